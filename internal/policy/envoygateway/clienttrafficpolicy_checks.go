package envoygateway

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret"
)

// clientTraffic runs the checks Envoy Gateway's ClientTrafficPolicy
// translation makes (translateClientTrafficPolicyForListener and the
// builders it calls), in its order: TCP keepalive, connection, timeouts,
// then the HTTP settings (headers, HTTP/2), then TLS. Where a builder
// returns at its first error (buildKeepAlive, buildConnection,
// buildClientTimeout) only that one is reported; where it joins them
// (header modifiers, HTTP/2) every one is. The HTTP settings are checked
// only where the policy covers an HTTP listener, the TLS ones only where
// it covers a listener that terminates TLS (covered), as Envoy Gateway
// builds them only for those.
// docs/controllers/envoygateway-checks.md lists each check with its source.
func (v valueChecks) clientTraffic(m *model.Model) {
	httpListener, tlsListener, httpsListener := covered(v.p, m)
	v.commonSettings()
	if httpsListener && v.at("http3") != nil && v.at("tls", "clientValidation") != nil {
		// shouldDisableHTTP3ForClientValidation, for listeners with TLS
		// and HTTP.
		decoded(v.p).warning = [2]string{"UnsupportedHTTP3ClientValidation",
			"HTTP/3 was disabled for the HTTPS listeners because Envoy does not support downstream client TLS validation over QUIC"}
	}
	if httpListener {
		v.httpSettings()
	}
	if tlsListener && v.ciphers() {
		// buildListenerTLSParameters returns at the cipher list.
		v.clientValidation(m)
	}
}

// commonSettings are the checks of the settings Envoy Gateway builds for
// every listener: TCP keepalive, connection, timeouts.
func (v valueChecks) commonSettings() {
	v.first(
		v.dur("TCP KeepAlive: invalid IdleTime value %s.", "tcpKeepalive", "idleTime"),
		v.dur("TCP KeepAlive: invalid Interval value %s.", "tcpKeepalive", "interval"),
	)
	v.first(
		v.dur("Connection: invalid CloseDelay value %s.", "connection", "connectionLimit", "closeDelay"),
		v.dur("Connection: invalid MaxConnectionDuration value %s.", "connection", "connectionLimit", "maxConnectionDuration"),
		v.dur("Connection: invalid MaxStreamDuration value %s.", "connection", "connectionLimit", "maxStreamDuration"),
		func() bool {
			return v.bytes("Connection: invalid BufferLimit value %s.", "Connection: BufferLimit value %s is out of range, must be between 0 and 4294967295.", "connection", "bufferLimit")
		},
	)
	v.first(
		v.dur("Timeout: invalid TCP IdleTimeout value %s.", "timeout", "tcp", "idleTimeout"),
		v.dur("Timeout: invalid TCP TLSHandshakeTimeout value %s.", "timeout", "tcp", "tlsHandshakeTimeout"),
		v.dur("Timeout: invalid TCP ConnectionInspectionTimeout value %s.", "timeout", "tcp", "connectionInspectionTimeout"),
		v.dur("Timeout: invalid HTTP RequestReceivedTimeout value %s.", "timeout", "http", "requestReceivedTimeout"),
		v.dur("Timeout: invalid HTTP IdleTimeout value %s.", "timeout", "http", "idleTimeout"),
		v.dur("Timeout: invalid HTTP StreamIdleTimeout value %s.", "timeout", "http", "streamIdleTimeout"),
		v.dur("Timeout: invalid HTTP RequestHeadersReceivedTimeout value %s.", "timeout", "http", "requestHeadersReceivedTimeout"),
	)
}

// httpSettings are the checks of the settings Envoy Gateway builds for
// HTTP listeners only: header modifiers and HTTP/2.
func (v valueChecks) httpSettings() {
	v.headers("EarlyRequestHeaders", "earlyRequestHeaders")
	v.headers("LateResponseHeaders", "lateResponseHeaders")
	v.http2Settings()
}

// http2Settings are the checks of http.go: buildIRHTTP2Settings, which
// ClientTrafficPolicy and BackendTrafficPolicy share: the window sizes,
// the connection keepalive's durations; every error is reported.
func (v valueChecks) http2Settings() {
	v.window("InitialStreamWindowSize", "http2", "initialStreamWindowSize")
	v.window("InitialConnectionWindowSize", "http2", "initialConnectionWindowSize")
	for _, f := range []string{"Interval", "Timeout", "IdleInterval"} {
		path := []string{"http2", "connectionKeepalive", strings.ToLower(f[:1]) + f[1:]}
		if s, ok := v.at(path...).(string); ok {
			if _, err := time.ParseDuration(s); err != nil {
				v.invalid(path, "HTTP2: invalid ConnectionKeepalive.%s: %v.", f, err)
			}
		}
	}
}

// check is one check of a builder that stops at its first error; it
// reports whether it found one.
type check func() bool

// first runs checks until one fails, as a builder that returns at its
// first error does.
func (v valueChecks) first(checks ...check) {
	for _, c := range checks {
		if c() {
			return
		}
	}
}

// dur is a check that the value at path, when set, is a Go duration
// (time.ParseDuration, which is what Envoy Gateway calls).
func (v valueChecks) dur(format string, path ...string) check {
	return func() bool { return v.duration(format, path...) }
}

// headers checks a header modifier as Envoy Gateway's
// translateHeaderModifier does: every entry to add, set or addIfAbsent
// needs a name, without '/' or ':', and a valid value (headerValue, Envoy
// Gateway's HeaderValueRegexp); every name to
// remove is non-empty; every removeOnMatch matcher has a value; and at
// least one entry must survive. It reports every problem, as Envoy
// Gateway joins them.
func (v valueChecks) headers(name, field string) {
	path := []string{"headers", field}
	mod, ok := v.at(path...).(map[string]any)
	if !ok {
		return
	}
	var kept, removed []string
	for _, op := range []string{"add", "set", "addIfAbsent"} {
		list, _ := mod[op].([]any)
		for _, h := range list {
			m, _ := h.(map[string]any)
			n, _ := m["name"].(string)
			val, _ := m["value"].(string)
			switch {
			case n == "":
				v.invalid(append(path, op), "Headers: %s cannot %s a header with an empty name", name, op)
			case strings.ContainsAny(n, "/:"):
				v.invalid(append(path, op), "Headers: %s cannot %s a header with a '/' or ':' character in them. Header: '%q'", name, op, n)
			case !headerValue.MatchString(val):
				v.invalid(append(path, op), "Headers: %s cannot %s a header with an invalid value. Header: '%q'", name, op, n)
			default:
				kept = append(kept, n)
			}
		}
	}
	list, _ := mod["remove"].([]any)
	for _, h := range list {
		if n, _ := h.(string); n == "" {
			v.invalid(append(path, "remove"), "Headers: %s cannot remove a header with an empty name", name)
		} else {
			removed = append(removed, n)
		}
	}
	matches, _ := mod["removeOnMatch"].([]any)
	for _, h := range matches {
		m, _ := h.(map[string]any)
		if s, _ := m["value"].(string); s == "" {
			v.invalid(append(path, "removeOnMatch"), "Headers: %s cannot remove a header with an empty matcher value", name)
		} else {
			removed = append(removed, s)
		}
	}
	if len(kept) == 0 && len(removed) == 0 {
		v.invalid(path, "Headers: %s did not provide valid configuration to add/set/remove any headers", name)
	}
}

// window checks an HTTP/2 window size: a whole number of bytes from
// 65535 to 2147483647.
func (v valueChecks) window(name string, path ...string) {
	s := quantityString(v.at(path...))
	if s == "" {
		return
	}
	q, err := resource.ParseQuantity(s)
	n, ok := q.AsInt64()
	switch {
	case err != nil || !ok:
		v.invalid(path, "HTTP2: invalid %s value %s", name, s)
	case n < 65535 || n > math.MaxInt32:
		v.invalid(path, "HTTP2: %s value %s is out of range, must be between 65535 and 2147483647", name, s)
	}
}

// clientValidation checks spec.tls.clientValidation as Envoy Gateway's
// buildListenerTLSParameters does, as far as the input can tell: each CA
// reference resolves (its kind, the ReferenceGrant for another namespace,
// the object, a key ca.crt or a single entry), a verifying mode has CA
// references, and each CRL reference resolves (key ca.crl). Whether the referenced data holds valid certificates is
// Secret data gwpol does not read (docs/controllers/envoygateway-checks.md).
func (v valueChecks) clientValidation(m *model.Model) {
	path := []string{"tls", "clientValidation"}
	cv, ok := v.at(path...).(map[string]any)
	if !ok {
		return
	}
	refs, _ := cv["caCertificateRefs"].([]any)
	for i, r := range refs {
		ref, _ := r.(map[string]any)
		at := append(slices.Clone(path), fmt.Sprintf("caCertificateRefs[%d]", i))
		if msg := v.dataRef(m, ref, "ca.crt"); msg != "" {
			v.invalid(at, "TLS: failed to get certificate from ref: %s.", msg)
			return
		}
		if data, ok := v.refData(m, ref, "ca.crt"); ok {
			// filterValidCACertificates: a bundle with no certificate
			// valid now is refused; one with some is used without the others
			if valid, err := secret.CheckCABundle(data, certificatesNow()); !valid {
				name, _ := ref["name"].(string)
				v.invalid(at, "TLS: no valid certificates exist in %s: %v.", name, err)
				return
			}
		}
	}
	mode, hasMode := cv["mode"].(string)
	optional, _ := cv["optional"].(bool)
	if len(refs) == 0 {
		switch {
		case !hasMode && optional:
			v.invalid(path, "TLS: tls.clientValidation.optional=true requires caCertificateRefs (maps to mode %q).", "VerifyIfGiven")
			return
		case !hasMode:
			v.invalid(path, "TLS: tls.clientValidation.mode %q requires caCertificateRefs.", "RequireAndVerify")
			return
		case mode == "VerifyIfGiven" || mode == "RequireAndVerify":
			v.invalid(path, "TLS: tls.clientValidation.mode %q requires caCertificateRefs.", mode)
			return
		}
	}
	crl, _ := cv["crl"].(map[string]any)
	crlRefs, _ := crl["refs"].([]any)
	for i, r := range crlRefs {
		ref, _ := r.(map[string]any)
		at := append(slices.Clone(path), "crl", fmt.Sprintf("refs[%d]", i))
		if msg := v.dataRef(m, ref, "ca.crl"); msg != "" {
			v.invalid(at, "TLS: failed to get crl from ref: %s.", msg)
			return
		}
		if data, ok := v.refData(m, ref, "ca.crl"); ok {
			if err := secret.CheckCRL(data, certificatesNow()); err != nil {
				name, _ := ref["name"].(string)
				v.invalid(at, "TLS: invalid crl in %s: %v.", name, err)
				return
			}
		}
	}
}

// dataRef is Envoy Gateway's validateAndGetDataAtKeyInRef for a CA
// certificate or CRL reference read at key: the problem, "" when it
// resolves.
func (v valueChecks) dataRef(m *model.Model, ref map[string]any, key string) string {
	return v.dataRefFrom(m, "ClientTrafficPolicy", ref, key)
}

// dataRefFrom is dataRef for a policy of the given kind (the
// ReferenceGrant's from).
func (v valueChecks) dataRefFrom(m *model.Model, kindFrom string, ref map[string]any, key string) string {
	group, _ := ref["group"].(string)
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	ns, _ := ref["namespace"].(string)
	if kind == "" {
		kind = "Secret"
	}
	own := v.p.Obj.Namespace
	if ns == "" {
		ns = own
	}
	switch kind {
	case "ClusterTrustBundle":
		// Cluster-scoped: no group, namespace or ReferenceGrant is read.
		if m.ClusterTrustBundle(name) == nil {
			return fmt.Sprintf("ref ClusterTrustBundle [%s] not found", name)
		}
		return ""
	case "Secret", "ConfigMap":
	default:
		return fmt.Sprintf("unsupported ref kind:%s", kind)
	}
	if group != "" {
		return "secret ref group must be unspecified/empty"
	}
	if ns != own && !m.GrantAllows(Group, kindFrom, own, model.ObjectRefTo{Kind: kind, Namespace: ns, Name: name}) {
		return fmt.Sprintf("ref to %s %s/%s not permitted by any ReferenceGrant", kind, ns, name)
	}
	o := m.Secret(ns, name)
	if kind == "ConfigMap" {
		o = m.ConfigMap(ns, name)
	}
	if o == nil {
		return fmt.Sprintf("%s %s/%s does not exist", strings.ToLower(kind), ns, name)
	}
	keys := o.Keys
	if kind == "ConfigMap" && !o.Assumed {
		keys = slices.Sorted(maps.Keys(configMapData(o))) // Envoy Gateway reads data, never binaryData
	}
	if !o.Assumed && !slices.Contains(keys, key) && len(keys) != 1 {
		return fmt.Sprintf("ref %s [%s] has none of the expected keys [%s] and more than one entry", strings.ToLower(kind), name, key)
	}
	return ""
}

// refData is the data a CA certificate or CRL reference that dataRef
// resolved points at (getFirstMatchOrFirstFromData: the entry key, else
// the only entry; a ClusterTrustBundle's trustBundle whatever the key),
// for the checks of its content; false for a reference whose content is
// not in the input (an object assumed to exist).
func (v valueChecks) refData(m *model.Model, ref map[string]any, key string) (secret.Value, bool) {
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	ns, _ := ref["namespace"].(string)
	if ns == "" {
		ns = v.p.Obj.Namespace
	}
	switch kind {
	case "", "Secret":
		s := m.Secret(ns, name)
		if s == nil || s.Assumed {
			return secret.Value{}, false
		}
		if val, ok := s.Value(key); ok {
			return val, true
		}
		if len(s.Keys) == 1 {
			return s.Value(s.Keys[0])
		}
	case "ClusterTrustBundle":
		if b := m.ClusterTrustBundle(name); b != nil && !b.Assumed {
			return secret.NewValue([]byte(b.TrustBundle)), true
		}
	case "ConfigMap":
		cm := m.ConfigMap(ns, name)
		if cm == nil || cm.Assumed {
			return secret.Value{}, false
		}
		data := configMapData(cm)
		if val, ok := data[key]; ok {
			return secret.NewValue([]byte(val)), true
		}
		if len(data) == 1 {
			for _, val := range data {
				return secret.NewValue([]byte(val)), true
			}
		}
	}
	return secret.Value{}, false
}

// configMapData is a ConfigMap's data entries as written (not
// binaryData: Envoy Gateway reads a CA bundle or a CRL from data only).
// The model keeps no ConfigMap content; it is read from the object.
func configMapData(o *model.Opaque) map[string]string {
	if o.Src == nil {
		return nil
	}
	raw, err := o.Src.FieldJSON("data")
	var data map[string]string
	// A ConfigMap's data, not a policy spec: no typed value holds it.
	if err != nil || json.Unmarshal(raw, &data) != nil {
		return nil
	}
	return data
}

// deprecatedClientTraffic reports the deprecated ClientTrafficPolicy
// fields Envoy Gateway warns about (deprecatedFieldsUsedInClientTrafficPolicy;
// spec.targetRef, which every kind reports, is done in Decode): a
// DeprecatedField warning in status and a lint finding at the field.
func (v valueChecks) deprecatedClientTraffic() {
	d := decoded(v.p)
	for _, f := range []struct {
		path []string
		use  string
		set  bool
	}{
		{[]string{"enableProxyProtocol"}, "spec.proxyProtocol", v.at("enableProxyProtocol") != nil},
		{[]string{"headers", "preserveXRequestID"}, "spec.headers.requestID", v.at("headers", "preserveXRequestID") != nil},
		// optional is a plain bool: only true changes anything.
		{[]string{"tls", "clientValidation", "optional"}, "spec.tls.clientValidation.mode", v.at("tls", "clientValidation", "optional") == true},
	} {
		if !f.set {
			continue
		}
		field := "spec." + strings.Join(f.path, ".")
		msg := field + " is deprecated, use " + f.use + " instead"
		d.deprecated = append(d.deprecated, msg)
		v.p.Findings = append(v.p.Findings, v.p.Diag(model.LintDeprecatedVersion.Code, diag.Warning, field, "%s", msg))
	}
}

// covered says whether the listeners p's targetRefs name include one that
// serves HTTP, one that terminates TLS, and one that does both. Where it
// cannot tell (no targetRefs, a targetSelector, a kind or a Gateway or
// ListenerSet not in the input — which then gets no status, but lint
// still reports) it answers yes to all three.
func covered(p *policy.Policy, m *model.Model) (httpListener, tlsListener, httpsListener bool) {
	if len(p.Targets) == 0 {
		return true, true, true
	}
	for _, t := range p.Targets {
		var ls []gwv1.Listener
		switch {
		case t.Selector != nil || (t.Group != "" && t.Group != gwv1.GroupName):
			return true, true, true
		case t.Kind == "Gateway":
			g := m.Gateway(p.Obj.Namespace, t.Name)
			if g == nil {
				return true, true, true
			}
			ls = g.Spec.Listeners
		case t.Kind == "ListenerSet":
			set, _ := m.Typed(model.GatewayAPIKey("ListenerSet", p.Obj.Namespace, t.Name))
			s, ok := set.(*model.ListenerSet)
			if !ok {
				return true, true, true
			}
			for _, l := range s.Spec.Listeners {
				ls = append(ls, gwv1.Listener{Name: l.Name, Protocol: l.Protocol, TLS: l.TLS})
			}
		default:
			return true, true, true
		}
		for _, l := range ls {
			if t.Section != "" && string(l.Name) != t.Section {
				continue
			}
			switch l.Protocol {
			case gwv1.HTTPProtocolType:
				httpListener = true
			case gwv1.HTTPSProtocolType:
				httpListener, tlsListener, httpsListener = true, true, true
			case gwv1.TLSProtocolType:
				if l.TLS == nil || l.TLS.Mode == nil || *l.TLS.Mode == gwv1.TLSModeTerminate {
					tlsListener = true
				}
			}
		}
	}
	return httpListener, tlsListener, httpsListener
}
