package topology

import (
	"fmt"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
)

// TLSOptions are an HTTPS listener's TLS settings that its controller
// reads from tls.options, parsed (TLSOptionParser).
type TLSOptions struct {
	// ALPN is the protocols offered; empty when none are.
	ALPN []string
	// CipherSuites, ECDHCurves and SignatureAlgorithms, in the order written.
	CipherSuites, ECDHCurves, SignatureAlgorithms []string
	// MinVersion and MaxVersion are Envoy's names (TLSv1_2), or "".
	MinVersion, MaxVersion string
	// CertificateHashes and SubjectAltNames the client certificate must match.
	CertificateHashes, SubjectAltNames []string
}

// TLSOptionParser is a controller family's reading of an HTTPS listener's
// tls.options (policy.Controller.TLSOptions, passed in as
// Options.TLSOptions): the settings they give, or an error naming an
// option the controller rejects, which leaves the listener unserved.
type TLSOptionParser func(l *Listener) (TLSOptions, error)

// TLSOptions are the listener's tls.options as its family reads them
// (Options.TLSOptions); none without a parser.
func (l *Listener) TLSOptions() (TLSOptions, error) {
	if l.tlsOptions == nil {
		return TLSOptions{}, nil
	}
	return l.tlsOptions(l)
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
// (relative to the Gateway, which owns spec.tls): refs are the usable
// ones, in order. ok is false, with the Gateway API's reason and a message
// for the first, when some are not usable; what that does to the listener
// is its controller's rule (CARule).
func (g *Graph) FrontendCAs(l *Listener) (refs []CARef, ok bool, reason, msg string) {
	v := l.FrontendValidation()
	if v == nil {
		return nil, true, "", ""
	}
	ok = true
	for _, r := range v.CACertificateRefs {
		ref, why, problem := g.frontendCA(l, r)
		if problem == "" {
			refs = append(refs, ref)
			continue
		}
		if ok {
			ok, reason, msg = false, why, problem
		}
	}
	return refs, ok, reason, msg
}

// frontendCA resolves one frontend validation CA reference: the Gateway
// API's reason and a message when it is not usable ("" when it is).
func (g *Graph) frontendCA(l *Listener, r gwv1.ObjectReference) (ref CARef, reason, msg string) {
	ns := l.Gateway.Namespace
	if r.Namespace != nil && *r.Namespace != "" {
		ns = string(*r.Namespace)
	}
	kind := string(r.Kind)
	switch {
	case kind != "ConfigMap" && kind != "Secret":
		return ref, "InvalidCACertificateKind", fmt.Sprintf("invalid ca.crt kind %s in %s/%s", kind, ns, r.Name)
	case kind == "ConfigMap" && g.Model.ConfigMap(ns, string(r.Name)) == nil,
		kind == "Secret" && g.Model.Secret(ns, string(r.Name)) == nil:
		return ref, "InvalidCACertificateRef", fmt.Sprintf("%s %s/%s not found", kind, ns, r.Name)
	case !g.Model.GrantAllowsBy(g.GrantRule(l.Gateway), model.GatewayGroup, "Gateway", l.Gateway.Namespace, model.ObjectRefTo{Kind: kind, Namespace: ns, Name: string(r.Name)}):
		return ref, "RefNotPermitted", fmt.Sprintf("%s %s/%s is in another namespace and no ReferenceGrant allows it", kind, ns, r.Name)
	}
	if err := g.caObject(kind, ns, string(r.Name)).CAProblem(); err != nil {
		return ref, "InvalidCACertificateRef", err.Error()
	}
	return CARef{Kind: kind, Namespace: ns, Name: string(r.Name)}, "", ""
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

// notServed is the finding for a listener its controller builds no filter
// chain for (LintListenerNotServed), at the field that decided it.
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
	case UnservedProtocol:
		path += ".protocol"
	case UnservedTLS:
		path += ".tls"
		if RefusedForCAs(l) {
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
	if why == "" {
		// a problem only the Programmed condition states
		if c := apimeta.FindStatusCondition(l.Conditions, "Programmed"); c != nil && c.Status == metav1.ConditionFalse {
			why = c.Message
		}
	}
	return diag.Diagnostic{Code: LintListenerNotServed.Code, Severity: LintListenerNotServed.Severity, Object: src.Ref(), Field: path, Pos: src.FieldPos(path),
		Message: fmt.Sprintf("listener %s is not served: %s; %s builds no filter chain for it, and render leaves it out", l.ID(), strings.TrimSuffix(why, "."), l.Gateway.ControllerTitle())}
}

// RefusedForCAs: the listener's verdict refuses it for its frontend
// validation CAs (Accepted False, NoValidCACertificate), whichever rule
// decided it.
func RefusedForCAs(l *Listener) bool {
	for _, c := range l.Conditions {
		if c.Type == "Accepted" && c.Status == metav1.ConditionFalse && c.Reason == "NoValidCACertificate" {
			return true
		}
	}
	return false
}

// caObject is the ConfigMap or Secret a CA reference names.
func (g *Graph) caObject(kind, ns, name string) *model.Opaque {
	if kind == "Secret" {
		return g.Model.Secret(ns, name)
	}
	return g.Model.ConfigMap(ns, name)
}
