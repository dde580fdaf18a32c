//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"k8s.io/apimachinery/pkg/api/resource"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret"
	"github.com/gwpol/gwpol/internal/topology"
)

// clientTraffic runs the checks Envoy Gateway's ClientTrafficPolicy
// translation makes (translateClientTrafficPolicyForListener and the
// builders it calls), in its order: TCP keepalive, connection, timeouts,
// then the HTTP settings (headers, HTTP/2), then TLS. Where a builder
// returns at its first error (buildKeepAlive, buildConnection,
// buildClientTimeout) only that one is reported; where it joins them
// (header modifiers, HTTP/2) every one is. Envoy Gateway builds the HTTP
// settings only on an HTTP listener, the TLS ones only on one that
// terminates TLS: their findings are kept apart (httpOnly, tlsOnly) and
// judged once the listener verdict says which listeners the policy covers
// and Envoy Gateway programs (refineListenerScope) — a Gateway's
// ListenerSets' listeners among them, which the input's Gateway does not
// list.
// docs/controllers/envoygateway-checks.md lists each check with its source.
func (v valueChecks) clientTraffic(s *egv1a1.ClientTrafficPolicySpec, m *model.Model) {
	n0 := len(v.p.Invalid)
	v.commonSettings(s)
	decoded(v.p).common = append(decoded(v.p).common, v.p.Invalid[n0:]...)
	if s.HTTP3 != nil && s.TLS != nil && s.TLS.ClientValidation != nil {
		// shouldDisableHTTP3ForClientValidation: a warning on each
		// target naming the listeners it disables HTTP/3 on, which
		// status decides (statusRun.http3Warning).
		decoded(v.p).http3ClientValidation = true
	}
	d := decoded(v.p)
	n := len(v.p.Invalid)
	v.httpSettings(s)
	d.httpOnly = append(d.httpOnly, v.p.Invalid[n:]...)
	if s.TLS != nil {
		n := len(v.p.Invalid)
		if v.ciphers(s.TLS.Ciphers) {
			// buildListenerTLSParameters returns at the cipher list.
			v.clientValidation(s.TLS.ClientValidation, m)
		}
		d.tlsOnly = append(d.tlsOnly, v.p.Invalid[n:]...)
	}
}

// refineListenerScope is the ClientTrafficPolicy's part of RefineWithGraph:
// Envoy Gateway builds the HTTP settings only on a listener it translated
// as an HTTP listener and the TLS settings only on one whose IR terminates
// TLS (translateClientTrafficPolicyForListener: httpIR, tcpIR with TLS),
// and it translates only the listeners it programs (translateGatewayListeners:
// IsReady). Decoding checks them all; once the listeners' verdict is
// known, the findings of the HTTP (or TLS) settings are dropped when no
// listener the policy covers — a Gateway's own or its ListenerSets'
// (ProcessClientTrafficPolicies ranges over gateway.listeners) — is one
// Envoy Gateway builds them on. Targets it cannot resolve keep them.
func refineListenerScope(p *policy.Policy, g *topology.Graph) {
	d := decoded(p)
	if len(d.httpOnly) == 0 && len(d.tlsOnly) == 0 && len(d.common) == 0 {
		return
	}
	anyBuilt, httpBuilt, tlsBuilt, known := builtListeners(p, g)
	if !known {
		return
	}
	drop := func(these []diag.Diagnostic) {
		p.Invalid = slices.DeleteFunc(p.Invalid, func(f diag.Diagnostic) bool {
			return slices.ContainsFunc(these, func(x diag.Diagnostic) bool { return x.Field == f.Field && x.Message == f.Message })
		})
	}
	if !anyBuilt {
		// translateClientTrafficPolicyForListener returns its errors
		// only from a listener with an HTTP or TCP IR listener
		drop(d.common)
	}
	if !httpBuilt {
		drop(d.httpOnly)
	}
	if !tlsBuilt {
		drop(d.tlsOnly)
	}
}

// builtListeners says whether the listeners p's targetRefs cover include
// one Envoy Gateway has an HTTP or TCP IR listener for (HTTP, HTTPS, TCP
// or TLS, programmed), one it builds as an HTTP listener (HTTP or HTTPS,
// programmed) and one whose IR terminates TLS (HTTPS, or TLS in Terminate
// mode, programmed); known is false where a target does not resolve in g.
// A whole Gateway or ListenerSet covers only the listeners no policy
// claimed first (claimed): Envoy Gateway skips those.
func builtListeners(p *policy.Policy, g *topology.Graph) (anyBuilt, httpBuilt, tlsBuilt, known bool) {
	claims := decoded(p).claims
	if len(p.Targets) == 0 {
		return false, false, false, false
	}
	for _, t := range p.Targets {
		if t.Selector != nil || (t.Group != "" && t.Group != gwv1.GroupName) {
			return false, false, false, false
		}
		var ls []*topology.Listener
		switch t.Kind {
		case "Gateway":
			gw := g.Gateway(p.Obj.Namespace, t.Name)
			if gw == nil {
				return false, false, false, false
			}
			ls = gw.Listeners
		case "ListenerSet":
			set := g.ListenerSet(p.Obj.Namespace, t.Name)
			if set == nil {
				return false, false, false, false
			}
			if set.Parent != nil {
				for _, l := range set.Parent.Listeners {
					if l.Set == set {
						ls = append(ls, l)
					}
				}
			}
		default:
			return false, false, false, false
		}
		for _, l := range ls {
			if t.Section != "" && string(l.Name) != t.Section || t.Section == "" && claimed(claims, t.Kind, l) {
				continue
			}
			built, http, tls := listenerBuilds(l)
			anyBuilt, httpBuilt, tlsBuilt = anyBuilt || built, httpBuilt || http, tlsBuilt || tls
		}
	}
	return anyBuilt, httpBuilt, tlsBuilt, true
}

// listenerClaim names what a ClientTrafficPolicy's targetRef takes
// before any policy on a whole Gateway or ListenerSet: a Gateway's or
// ListenerSet's listener by sectionName, or a whole ListenerSet (section
// "").
type listenerClaim struct {
	owner   model.Key
	section string
}

// ctpClaimsKey is the Env.Memo key of ctpClaims.
type ctpClaimsKey struct{}

// ctpClaims are the listeners the input's ClientTrafficPolicies claim
// before a policy on a whole Gateway or ListenerSet is translated
// (ProcessClientTrafficPolicies' claimedSections): each one a targetRef
// (targetRef or targetRefs) names by sectionName — whether the policy is
// valid or not, and the first of two on one listener alike, as the later
// one is Conflicted there —, and each ListenerSet a targetRef names
// whole, whose listeners a policy on its Gateway skips. Built once per
// pass from the input's policies.
func ctpClaims(env *policy.Env) map[listenerClaim]bool {
	return env.Memo(ctpClaimsKey{}, func() any {
		type ref struct {
			Group       string `json:"group"`
			Kind        string `json:"kind"`
			Name        string `json:"name"`
			SectionName string `json:"sectionName"`
		}
		out := map[listenerClaim]bool{}
		for _, o := range env.Model.OfKind(model.GroupKind{Group: Group, Kind: clientTrafficPolicy.name}) {
			var t struct {
				TargetRef  *ref  `json:"targetRef"`
				TargetRefs []ref `json:"targetRefs"`
			}
			if o.DecodeField("spec", &t) != nil {
				continue
			}
			refs := t.TargetRefs
			if t.TargetRef != nil {
				refs = append(refs, *t.TargetRef)
			}
			for _, r := range refs {
				if r.Group != gwv1.GroupName || r.Kind != "ListenerSet" && (r.Kind != "Gateway" || r.SectionName == "") {
					continue
				}
				out[listenerClaim{owner: model.GatewayAPIKey(r.Kind, o.Namespace, r.Name), section: r.SectionName}] = true
			}
		}
		return out
	}).(map[listenerClaim]bool)
}

// claimed: a policy on a whole object of kind (Gateway or ListenerSet)
// skips listener l, which a policy claimed first (ctpClaims): by its
// sectionName, or, from a Gateway, its ListenerSet's listener or whole
// ListenerSet.
func claimed(claims map[listenerClaim]bool, kind string, l *topology.Listener) bool {
	if l.Set != nil && (claims[listenerClaim{owner: l.Set.Key(), section: string(l.Name)}] || kind == "Gateway" && claims[listenerClaim{owner: l.Set.Key()}]) {
		return true
	}
	return kind == "Gateway" && l.Set == nil && l.Gateway != nil && claims[listenerClaim{owner: l.Gateway.Key(), section: string(l.Name)}]
}

// listenerBuilds says whether Envoy Gateway has an HTTP or TCP IR
// listener for listener l, which translateClientTrafficPolicyForListener
// returns errors from (an HTTP, HTTPS, TCP or TLS listener it programs),
// builds a ClientTrafficPolicy's HTTP settings on it (an HTTP or HTTPS
// one: an IR HTTP listener) and its TLS settings (an HTTPS one, or a TLS
// one in Terminate mode: an IR listener with TLS).
func listenerBuilds(l *topology.Listener) (built, http, tls bool) {
	if !listenerReady(l) {
		return false, false, false
	}
	switch l.Protocol {
	case gwv1.HTTPProtocolType:
		return true, true, false
	case gwv1.HTTPSProtocolType:
		return true, true, true
	case gwv1.TCPProtocolType:
		return true, false, false
	case gwv1.TLSProtocolType:
		return true, false, l.TLS == nil || l.TLS.Mode == nil || *l.TLS.Mode == gwv1.TLSModeTerminate
	}
	return false, false, false
}

// commonSettings are the checks of the settings Envoy Gateway builds for
// every listener: TCP keepalive, connection, timeouts.
func (v valueChecks) commonSettings(s *egv1a1.ClientTrafficPolicySpec) {
	if ka := s.TCPKeepalive; ka != nil {
		v.first(
			v.dur(ka.IdleTime, "TCP KeepAlive: invalid IdleTime value %s.", "tcpKeepalive", "idleTime"),
			v.dur(ka.Interval, "TCP KeepAlive: invalid Interval value %s.", "tcpKeepalive", "interval"),
		)
	}
	if c := s.Connection; c != nil {
		cl := c.ConnectionLimit
		if cl == nil {
			cl = &egv1a1.ConnectionLimit{}
		}
		v.first(
			v.dur(cl.CloseDelay, "Connection: invalid CloseDelay value %s.", "connection", "connectionLimit", "closeDelay"),
			v.dur(cl.MaxConnectionDuration, "Connection: invalid MaxConnectionDuration value %s.", "connection", "connectionLimit", "maxConnectionDuration"),
			v.dur(cl.MaxStreamDuration, "Connection: invalid MaxStreamDuration value %s.", "connection", "connectionLimit", "maxStreamDuration"),
			func() bool {
				return v.bytes(c.BufferLimit, "Connection: invalid BufferLimit value %s.", "Connection: BufferLimit value %s is out of range, must be between 0 and 4294967295.", "connection", "bufferLimit")
			},
		)
	}
	if t := s.Timeout; t != nil {
		tcp, http := t.TCP, t.HTTP
		if tcp == nil {
			tcp = &egv1a1.TCPClientTimeout{}
		}
		if http == nil {
			http = &egv1a1.HTTPClientTimeout{}
		}
		v.first(
			v.dur(tcp.IdleTimeout, "Timeout: invalid TCP IdleTimeout value %s.", "timeout", "tcp", "idleTimeout"),
			v.dur(tcp.TLSHandshakeTimeout, "Timeout: invalid TCP TLSHandshakeTimeout value %s.", "timeout", "tcp", "tlsHandshakeTimeout"),
			v.dur(tcp.ConnectionInspectionTimeout, "Timeout: invalid TCP ConnectionInspectionTimeout value %s.", "timeout", "tcp", "connectionInspectionTimeout"),
			v.dur(http.RequestReceivedTimeout, "Timeout: invalid HTTP RequestReceivedTimeout value %s.", "timeout", "http", "requestReceivedTimeout"),
			v.dur(http.IdleTimeout, "Timeout: invalid HTTP IdleTimeout value %s.", "timeout", "http", "idleTimeout"),
			v.dur(http.StreamIdleTimeout, "Timeout: invalid HTTP StreamIdleTimeout value %s.", "timeout", "http", "streamIdleTimeout"),
			v.dur(http.RequestHeadersReceivedTimeout, "Timeout: invalid HTTP RequestHeadersReceivedTimeout value %s.", "timeout", "http", "requestHeadersReceivedTimeout"),
		)
	}
}

// httpSettings are the checks of the settings Envoy Gateway builds for
// HTTP listeners only: header modifiers and HTTP/2.
func (v valueChecks) httpSettings(s *egv1a1.ClientTrafficPolicySpec) {
	if h := s.Headers; h != nil {
		v.headers(h.EarlyRequestHeaders, "EarlyRequestHeaders", "earlyRequestHeaders")
		v.headers(h.LateResponseHeaders, "LateResponseHeaders", "lateResponseHeaders")
	}
	v.http2Settings(s.HTTP2)
}

// http2Settings are the checks of http.go: buildIRHTTP2Settings, which
// ClientTrafficPolicy and BackendTrafficPolicy share: the window sizes,
// the connection keepalive's durations; every error is reported.
func (v valueChecks) http2Settings(h *egv1a1.HTTP2Settings) {
	if h == nil {
		return
	}
	v.window(h.InitialStreamWindowSize, "InitialStreamWindowSize", "http2", "initialStreamWindowSize")
	v.window(h.InitialConnectionWindowSize, "InitialConnectionWindowSize", "http2", "initialConnectionWindowSize")
	ka := h.ConnectionKeepalive
	if ka == nil {
		return
	}
	for _, f := range []struct {
		name  string
		value *gwv1.Duration
	}{{"Interval", ka.Interval}, {"Timeout", ka.Timeout}, {"IdleInterval", ka.IdleInterval}} {
		if f.value == nil {
			continue
		}
		if _, err := time.ParseDuration(string(*f.value)); err != nil {
			path := []string{"http2", "connectionKeepalive", strings.ToLower(f.name[:1]) + f.name[1:]}
			v.invalid(path, "HTTP2: invalid ConnectionKeepalive.%s: %v.", f.name, err)
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

// dur is a check that a duration, when set, is a Go duration
// (time.ParseDuration, which is what Envoy Gateway calls).
func (v valueChecks) dur(d *gwv1.Duration, format string, path ...string) check {
	return func() bool { return duration(v, d, format, path...) }
}

// headers checks a header modifier as Envoy Gateway's
// translateHeaderModifier does: every entry to add, set or addIfAbsent
// needs a name, without '/' or ':', and a valid value (headerValue, Envoy
// Gateway's HeaderValueRegexp); every name to
// remove is non-empty; every removeOnMatch matcher has a value; and at
// least one entry must survive. It reports every problem, as Envoy
// Gateway joins them.
func (v valueChecks) headers(mod *egv1a1.HTTPHeaderFilter, name, field string) {
	if mod == nil {
		return
	}
	path := []string{"headers", field}
	var kept, removed []string
	for _, op := range []struct {
		name string
		list []gwv1.HTTPHeader
	}{{"add", mod.Add}, {"set", mod.Set}, {"addIfAbsent", mod.AddIfAbsent}} {
		for _, h := range op.list {
			n, val := string(h.Name), h.Value
			switch {
			case n == "":
				v.invalid(append(path, op.name), "Headers: %s cannot %s a header with an empty name", name, op.name)
			case strings.ContainsAny(n, "/:"):
				v.invalid(append(path, op.name), "Headers: %s cannot %s a header with a '/' or ':' character in them. Header: '%q'", name, op.name, n)
			case !headerValue.MatchString(val):
				v.invalid(append(path, op.name), "Headers: %s cannot %s a header with an invalid value. Header: '%q'", name, op.name, n)
			default:
				kept = append(kept, n)
			}
		}
	}
	for _, n := range mod.Remove {
		if n == "" {
			v.invalid(append(path, "remove"), "Headers: %s cannot remove a header with an empty name", name)
		} else {
			removed = append(removed, n)
		}
	}
	for _, m := range mod.RemoveOnMatch {
		if m.Value == "" {
			v.invalid(append(path, "removeOnMatch"), "Headers: %s cannot remove a header with an empty matcher value", name)
		} else {
			removed = append(removed, m.Value)
		}
	}
	if len(kept) == 0 && len(removed) == 0 {
		v.invalid(path, "Headers: %s did not provide valid configuration to add/set/remove any headers", name)
	}
}

// window checks an HTTP/2 window size, when set: a whole number of bytes
// from 65535 to 2147483647.
func (v valueChecks) window(q *resource.Quantity, name string, path ...string) {
	if q == nil {
		return
	}
	n, ok := q.AsInt64()
	switch {
	case !ok:
		v.invalid(path, "HTTP2: invalid %s value %s", name, q.String())
	case n < 65535 || n > math.MaxInt32:
		v.invalid(path, "HTTP2: %s value %s is out of range, must be between 65535 and 2147483647", name, q.String())
	}
}

// clientValidation checks spec.tls.clientValidation as Envoy Gateway's
// buildListenerTLSParameters does, as far as the input can tell: each CA
// reference resolves (its kind, the ReferenceGrant for another namespace,
// the object, a key ca.crt or a single entry), a verifying mode has CA
// references, and each CRL reference resolves (key ca.crl). Whether the referenced data holds valid certificates is
// Secret data gwpol does not read (docs/controllers/envoygateway-checks.md).
func (v valueChecks) clientValidation(cv *egv1a1.ClientValidationContext, m *model.Model) {
	if cv == nil {
		return
	}
	path := []string{"tls", "clientValidation"}
	for i, r := range cv.CACertificateRefs {
		ref := secretObjectRef(r)
		at := append(slices.Clone(path), fmt.Sprintf("caCertificateRefs[%d]", i))
		if msg := v.dataRef(m, ref, "ca.crt"); msg != "" {
			v.invalid(at, "TLS: failed to get certificate from ref: %s.", msg)
			return
		}
		if data, ok := v.refData(m, ref, "ca.crt"); ok {
			// filterValidCACertificates: a bundle with no certificate
			// valid now is refused; one with some is used without the others
			if valid, err := secret.CheckCABundle(data, certificatesNow()); !valid {
				v.invalid(at, "TLS: no valid certificates exist in %s: %v.", ref.name, err)
				return
			}
		}
	}
	if len(cv.CACertificateRefs) == 0 {
		switch {
		case cv.Mode == nil && cv.Optional:
			v.invalid(path, "TLS: tls.clientValidation.optional=true requires caCertificateRefs (maps to mode %q).", "VerifyIfGiven")
			return
		case cv.Mode == nil:
			v.invalid(path, "TLS: tls.clientValidation.mode %q requires caCertificateRefs.", "RequireAndVerify")
			return
		case *cv.Mode == "VerifyIfGiven" || *cv.Mode == "RequireAndVerify":
			v.invalid(path, "TLS: tls.clientValidation.mode %q requires caCertificateRefs.", *cv.Mode)
			return
		}
	}
	if cv.Crl == nil {
		return
	}
	for i, r := range cv.Crl.Refs {
		ref := secretObjectRef(r)
		at := append(slices.Clone(path), "crl", fmt.Sprintf("refs[%d]", i))
		if msg := v.dataRef(m, ref, "ca.crl"); msg != "" {
			v.invalid(at, "TLS: failed to get crl from ref: %s.", msg)
			return
		}
		if data, ok := v.refData(m, ref, "ca.crl"); ok {
			if err := secret.CheckCRL(data, certificatesNow()); err != nil {
				v.invalid(at, "TLS: invalid crl in %s: %v.", ref.name, err)
				return
			}
		}
	}
}

// objectRef is a reference to a Secret, ConfigMap or ClusterTrustBundle
// as Envoy Gateway's types write one: empty strings for what is unset.
type objectRef struct {
	group, kind, name, namespace string
}

// secretObjectRef is a Gateway API SecretObjectReference as an objectRef.
func secretObjectRef(r gwv1.SecretObjectReference) objectRef {
	ref := objectRef{name: string(r.Name)}
	if r.Group != nil {
		ref.group = string(*r.Group)
	}
	if r.Kind != nil {
		ref.kind = string(*r.Kind)
	}
	if r.Namespace != nil {
		ref.namespace = string(*r.Namespace)
	}
	return ref
}

// dataRef is Envoy Gateway's validateAndGetDataAtKeyInRef for a CA
// certificate or CRL reference read at key: the problem, "" when it
// resolves.
func (v valueChecks) dataRef(m *model.Model, ref objectRef, key string) string {
	return v.dataRefFrom(m, "ClientTrafficPolicy", ref, key)
}

// dataRefFrom is dataRef for a policy of the given kind (the
// ReferenceGrant's from).
func (v valueChecks) dataRefFrom(m *model.Model, kindFrom string, ref objectRef, key string) string {
	group, kind, name, ns := ref.group, ref.kind, ref.name, ref.namespace
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
		keys = o.DataKeys() // Envoy Gateway reads data, never binaryData
	}
	if !o.Assumed && !slices.Contains(keys, key) && len(keys) != 1 {
		return fmt.Sprintf("ref %s [%s] has none of the expected keys [%s] and more than one entry", strings.ToLower(kind), name, key)
	}
	// validateAndGetDataAtKeyInRef refuses the entry it found when it is
	// empty, in the same words
	if val, ok := v.refData(m, objectRef{kind: kind, name: name, namespace: ns}, key); ok && kind != "ClusterTrustBundle" && val.Len() == 0 {
		return fmt.Sprintf("ref %s [%s] has none of the expected keys [%s] and more than one entry", strings.ToLower(kind), name, key)
	}
	return ""
}

// refData is the data a CA certificate or CRL reference that dataRef
// resolved points at (getFirstMatchOrFirstFromData: the entry key, else
// the only entry; a ClusterTrustBundle's trustBundle whatever the key),
// for the checks of its content; false for a reference whose content is
// not in the input (an object assumed to exist).
func (v valueChecks) refData(m *model.Model, ref objectRef, key string) (secret.Value, bool) {
	kind, name, ns := ref.kind, ref.name, ref.namespace
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
		if val, ok := cm.Data(key); ok {
			return val, true
		}
		if keys := cm.DataKeys(); len(keys) == 1 {
			return cm.Data(keys[0])
		}
	}
	return secret.Value{}, false
}

// deprecatedClientTraffic reports the deprecated ClientTrafficPolicy
// fields Envoy Gateway warns about (deprecatedFieldsUsedInClientTrafficPolicy;
// spec.targetRef, which every kind reports, is done in Decode): a
// DeprecatedField warning in status and a lint finding at the field.
func (v valueChecks) deprecatedClientTraffic(s *egv1a1.ClientTrafficPolicySpec) {
	d := decoded(v.p)
	for _, f := range []struct {
		path []string
		use  string
		set  bool
	}{
		{[]string{"enableProxyProtocol"}, "spec.proxyProtocol", s.EnableProxyProtocol != nil},
		{[]string{"headers", "preserveXRequestID"}, "spec.headers.requestID", s.Headers != nil && s.Headers.PreserveXRequestID != nil},
		// optional is a plain bool: only true changes anything.
		{[]string{"tls", "clientValidation", "optional"}, "spec.tls.clientValidation.mode", s.TLS != nil && s.TLS.ClientValidation != nil && s.TLS.ClientValidation.Optional},
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
