package topology

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
)

// The ALPN option's values (Keys.TLS.ALPN).
const (
	alpnAllowEmpty   = "allow-empty"
	defaultALPNProto = "h2,http/1.1"
)

// TLSOptions are an HTTPS listener's kgateway tls.options, parsed.
type TLSOptions struct {
	// ALPN is the protocols offered: h2 and http/1.1 unless the option
	// sets others; empty for "allow-empty".
	ALPN []string
	// CipherSuites, ECDHCurves and SignatureAlgorithms, in the order written.
	CipherSuites, ECDHCurves, SignatureAlgorithms []string
	// MinVersion and MaxVersion are Envoy's names (TLSv1_2), or "".
	MinVersion, MaxVersion string
	// CertificateHashes and SubjectAltNames the client certificate must match.
	CertificateHashes, SubjectAltNames []string
}

// TLSOptions parses the listener's tls.options. An option kgateway would
// reject (an unknown TLS version) is an error naming it.
func (l *Listener) TLSOptions() (TLSOptions, error) {
	var o TLSOptions
	opts := map[string]string{}
	if l.TLS != nil {
		for k, v := range l.TLS.Options {
			opts[string(k)] = string(v)
		}
	}
	delete(opts, "") // a key the family does not declare is never read
	k := l.tlsKeys
	alpn := defaultALPNProto
	if v, ok := opts[k.ALPN]; ok && k.ALPN != "" {
		alpn = v
	}
	if alpn != alpnAllowEmpty {
		o.ALPN = commaList(alpn)
	}
	o.CipherSuites = commaList(opts[k.CipherSuites])
	o.ECDHCurves = commaList(opts[k.ECDHCurves])
	o.SignatureAlgorithms = commaList(opts[k.SignatureAlgorithms])
	var err error
	if o.MinVersion, err = tlsVersion(k.MinVersion, opts[k.MinVersion]); err != nil {
		return o, err
	}
	if o.MaxVersion, err = tlsVersion(k.MaxVersion, opts[k.MaxVersion]); err != nil {
		return o, err
	}
	o.CertificateHashes = hashList(opts[k.VerifyCertificateHash])
	var bad []string
	for _, h := range o.CertificateHashes {
		if !sha256Hash(h) {
			bad = append(bad, "invalid certificate hash: "+h)
		}
	}
	if len(bad) > 0 {
		return o, fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	if o.MinVersion != "" && o.MaxVersion != "" && o.MaxVersion < o.MinVersion {
		return o, fmt.Errorf("maximum tls version %s is less than minimum tls version %s", o.MaxVersion, o.MinVersion)
	}
	o.SubjectAltNames = commaList(opts[k.VerifySubjectAltNames])
	return o, nil
}

// sha256Hash: a certificate hash kgateway accepts (sslutils
// validateCertificateHash) is a SHA-256 digest, 64 hex digits or 32
// colon-separated hex pairs.
func sha256Hash(h string) bool {
	hexOnly := func(s string) bool {
		for _, r := range s {
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return false
			}
		}
		return true
	}
	if len(h) == 64 {
		return hexOnly(h)
	}
	pairs := strings.Split(h, ":")
	if len(pairs) != 32 {
		return false
	}
	for _, p := range pairs {
		if len(p) != 2 || !hexOnly(p) {
			return false
		}
	}
	return true
}

func commaList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// hashList reads certificate hashes written comma-separated or as a
// YAML-like list folded into one string (" - A - B"), as kgateway's own
// examples write them.
func hashList(s string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }) {
		if p != "-" {
			out = append(out, p)
		}
	}
	return out
}

func tlsVersion(opt, v string) (string, error) {
	switch v {
	case "":
		return "", nil
	case "1.0", "1.1", "1.2", "1.3":
		return "TLSv1_" + v[2:], nil
	}
	return "", fmt.Errorf("%s %q is not a TLS version (1.0, 1.1, 1.2 or 1.3)", opt, v)
}

// FrontendValidation is the client certificate validation the Gateway's
// spec.tls.frontend sets for an HTTPS listener: the entry for its port,
// else the default. A ListenerSet's listeners take their parent's.
func (l *Listener) FrontendValidation() *gwv1.FrontendTLSValidation {
	tls := l.Gateway.Spec.TLS
	if tls == nil || tls.Frontend == nil {
		return nil
	}
	for _, pp := range tls.Frontend.PerPort {
		if pp.Port == l.Port {
			return pp.TLS.Validation
		}
	}
	return tls.Frontend.Default.Validation
}

// CARef is one CA certificate reference of a frontend validation,
// resolved to its namespace.
type CARef struct {
	Kind, Namespace, Name string
}

// FrontendCAs resolves the listener's frontend validation CA references
// (relative to the Gateway, which owns spec.tls). ok is false with the
// spec's reason and a message when one is not usable: then kgateway
// serves none of the listener.
func (g *Graph) FrontendCAs(l *Listener) (refs []CARef, ok bool, reason, msg string) {
	v := l.FrontendValidation()
	if v == nil {
		return nil, true, "", ""
	}
	for _, r := range v.CACertificateRefs {
		ns := l.Gateway.Namespace
		if r.Namespace != nil && *r.Namespace != "" {
			ns = string(*r.Namespace)
		}
		kind := string(r.Kind)
		switch {
		case kind != "ConfigMap" && kind != "Secret":
			return nil, false, "InvalidCACertificateKind", fmt.Sprintf("invalid ca.crt kind %s in %s/%s", kind, ns, r.Name)
		case kind == "ConfigMap" && g.Model.ConfigMap(ns, string(r.Name)) == nil,
			kind == "Secret" && g.Model.Secret(ns, string(r.Name)) == nil:
			return nil, false, "InvalidCACertificateRef", fmt.Sprintf("%s %s/%s not found", kind, ns, r.Name)
		case !g.Model.GrantAllows(model.GatewayGroup, "Gateway", l.Gateway.Namespace, model.ObjectRefTo{Kind: kind, Namespace: ns, Name: string(r.Name)}):
			return nil, false, "RefNotPermitted", fmt.Sprintf("%s %s/%s is in another namespace and no ReferenceGrant allows it", kind, ns, r.Name)
		}
		if err := g.caObject(kind, ns, string(r.Name)).CAProblem(); err != nil {
			return nil, false, "InvalidCACertificateRef", err.Error()
		}
		refs = append(refs, CARef{Kind: kind, Namespace: ns, Name: string(r.Name)})
	}
	return refs, true, "", ""
}

// InsecureFrontend reports whether the Gateway lets some port accept
// clients whose certificate fails validation (AllowInsecureFallback).
func InsecureFrontend(gw *Gateway) bool {
	tls := gw.Spec.TLS
	if tls == nil || tls.Frontend == nil {
		return false
	}
	if v := tls.Frontend.Default.Validation; v != nil && v.Mode == gwv1.AllowInsecureFallback {
		return true
	}
	for _, pp := range tls.Frontend.PerPort {
		if v := pp.TLS.Validation; v != nil && v.Mode == gwv1.AllowInsecureFallback {
			return true
		}
	}
	return false
}

// notServed is the finding for a listener kgateway builds no filter chain
// for (LintListenerNotServed), at the field that decided it. A family that
// judges its listeners itself keeps it only where its own conditions
// agree (attach: dropStaleNotServed).
func (g *Graph) notServed(l *Listener) diag.Diagnostic {
	src := l.Gateway.Src
	if l.Set != nil {
		src = l.Set.Src
	}
	path := fmt.Sprintf("spec.listeners[%d]", l.Index)
	switch l.Unserved {
	case UnservedReservedPort:
		path += ".port"
	case UnservedRouteKinds:
		path += ".allowedRoutes.kinds"
	case UnservedTLS:
		path += ".tls"
		if _, ok, _, _ := g.FrontendCAs(l); !ok {
			src, path = l.Gateway.Src, "spec.tls.frontend"
		}
	}
	why := ""
	for _, c := range l.Conditions {
		if c.Status == metav1.ConditionFalse && (c.Type == "Accepted" || c.Type == "ResolvedRefs") || c.Type == "ResolvedRefs" && c.Reason == "InvalidRouteKinds" {
			why = c.Message
			break
		}
	}
	return diag.Diagnostic{Code: LintListenerNotServed.Code, Severity: LintListenerNotServed.Severity, Object: src.Ref(), Field: path, Pos: src.FieldPos(path),
		Message: fmt.Sprintf("listener %s is not served: %s; the controller builds no filter chain for it, and render leaves it out", l.ID(), why)}
}

// caObject is the ConfigMap or Secret a CA reference names.
func (g *Graph) caObject(kind, ns, name string) *model.Opaque {
	if kind == "Secret" {
		return g.Model.Secret(ns, name)
	}
	return g.Model.ConfigMap(ns, name)
}
