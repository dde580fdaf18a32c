package envoygateway

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// portProtocol is the protocol a route's backend port must carry in Envoy
// Gateway (validate.go: validateBackendRef): UDP for a UDPRoute, TCP for
// every other kind; a Service port without a protocol is TCP.
func portProtocol(routeKind string) string {
	if routeKind == "UDPRoute" {
		return "UDP"
	}
	return "TCP"
}

// servicePortProtocol is a Service port's protocol, TCP when unset
// (helpers.go: getServicePortProtocol).
func servicePortProtocol(p string) string {
	if p == "" {
		return "TCP"
	}
	return p
}

// hasPortFor reports whether svc exposes port with protocol proto.
func hasPortFor(svc *model.Service, port int32, proto string) bool {
	if svc.Assumed {
		return true
	}
	for _, p := range svc.Spec.Ports {
		if p.Port == port && servicePortProtocol(p.Protocol) == proto {
			return true
		}
	}
	return false
}

// serviceImportPorts is what the route validation reads of an MCS
// ServiceImport.
type serviceImportPorts struct {
	Ports []struct {
		Port     int32  `json:"port"`
		Protocol string `json:"protocol"`
	} `json:"ports"`
}

// serviceImportProblem: the ServiceImport must exist and have the port
// with the route's protocol (validate.go: validateBackendServiceImport).
func (rv *routeValidation) serviceImportProblem(ns, name string, port int32) *routeProblem {
	o, ok := rv.m.Object(model.Key{Group: serviceImport.Group, Kind: serviceImport.Kind, Namespace: ns, Name: name})
	if !ok {
		return unresolved("BackendNotFound", "", "service import %s/%s not found.", ns, name)
	}
	proto := portProtocol(rv.rt.Kind)
	if serviceImportHasPort(o, port, proto) {
		return nil
	}
	return unresolved("PortNotFound", "", "%s port %d not found on service import %s/%s.", proto, port, ns, name)
}

// serviceImportHasPort reports whether the ServiceImport exposes port
// with protocol proto. A spec that does not decode counts as having it:
// the object's own findings say why.
func serviceImportHasPort(o *manifest.Object, port int32, proto string) bool {
	var spec serviceImportPorts
	if o.DecodeField("spec", &spec) != nil {
		return true
	}
	for _, p := range spec.Ports {
		if p.Port == port && servicePortProtocol(p.Protocol) == proto {
			return true
		}
	}
	return false
}

// backendRefFiltersProblem checks the filters of one backendRef as Envoy
// Gateway does (validate.go: validateBackendRefFilters): on an HTTPRoute
// the header modifiers, a URLRewrite without a path modifier (Envoy's
// weighted clusters cannot rewrite paths) and an ExtensionRef to an
// HTTPRouteFilter; on a GRPCRoute the header modifiers only. Other route
// kinds have no backendRef filters.
func (rv *routeValidation) backendRefFiltersProblem(rule *model.Rule, j int) *routeProblem {
	var unsupported bool
	switch {
	case rule.HTTP != nil && j < len(rule.HTTP.BackendRefs):
		for _, f := range rule.HTTP.BackendRefs[j].Filters {
			if f.Type == gwv1.HTTPRouteFilterExtensionRef {
				if f.ExtensionRef == nil || string(f.ExtensionRef.Group) != Group || string(f.ExtensionRef.Kind) != httpRouteFilter.name {
					unsupported = true
				}
				continue
			}
			if f.Type == gwv1.HTTPRouteFilterURLRewrite && f.URLRewrite != nil && f.URLRewrite.Path != nil {
				return unresolved("UnsupportedRefValue", "", "URLRewrite path modifier is not supported within BackendRef.")
			}
			switch f.Type {
			case gwv1.HTTPRouteFilterRequestHeaderModifier, gwv1.HTTPRouteFilterResponseHeaderModifier, gwv1.HTTPRouteFilterURLRewrite:
			default:
				unsupported = true
			}
		}
		if unsupported {
			return unresolved("UnsupportedRefValue", "", "Specific filter is not supported within BackendRef, only RequestHeaderModifier, ResponseHeaderModifier, URLRewrite and gateway.envoyproxy.io/HTTPRouteFilter are supported.")
		}
	case rule.GRPC != nil && j < len(rule.GRPC.BackendRefs):
		for _, f := range rule.GRPC.BackendRefs[j].Filters {
			if f.Type != gwv1.GRPCRouteFilterRequestHeaderModifier && f.Type != gwv1.GRPCRouteFilterResponseHeaderModifier {
				unsupported = true
			}
		}
		if unsupported {
			return unresolved("UnsupportedRefValue", "", "Specific filter is not supported within BackendRef, only RequestHeaderModifier and ResponseHeaderModifier are supported.")
		}
	}
	return nil
}

// isDynamicResolver: a Backend of type DynamicResolver forwards to the
// host each request names.
func isDynamicResolver(s *egv1a1.BackendSpec) bool {
	return s.Type != nil && *s.Type == egv1a1.BackendTypeDynamicResolver
}

// backendOf reads the Backend ns/name; ok is false when the input does
// not hold it, spec nil when its spec does not decode.
func (rv *routeValidation) backendOf(ns, name string) (spec *egv1a1.BackendSpec, ok bool) {
	return readBackend(rv.env, rv.m, ns, name)
}

// clientCertificateRef is a Backend's TLS client certificate, nil when
// it names none (the field is in an embedded struct that may be unset).
func clientCertificateRef(tls *egv1a1.BackendTLSSettings) *gwv1.SecretObjectReference {
	if tls.BackendTLSConfig == nil {
		return nil
	}
	return tls.ClientCertificateRef
}

// backendKey is the Env.Memo key of a Backend's decoded spec.
type backendKey struct{ namespace, name string }

// readBackend reads the Backend ns/name of m; ok is false when the input
// does not hold it, spec nil when its spec does not decode. Its spec is
// decoded once per pass (env.Memo; every backendRef of every route to it
// asks again), or per call without an Env.
func readBackend(env *policy.Env, m *model.Model, ns, name string) (spec *egv1a1.BackendSpec, ok bool) {
	o, ok := m.Object(model.Key{Group: Group, Kind: backend.Kind, Namespace: ns, Name: name})
	if !ok {
		return nil, false
	}
	if env == nil {
		return decodeBackend(o), true
	}
	return env.Memo(backendKey{ns, name}, func() any { return decodeBackend(o) }).(*egv1a1.BackendSpec), true
}

// decodeBackend is a Backend object's spec, nil when it does not decode
// (the object's own findings say why).
func decodeBackend(o *manifest.Object) *egv1a1.BackendSpec {
	var s egv1a1.BackendSpec
	if o.DecodeField("spec", &s) != nil {
		return nil
	}
	return &s
}

// backendObjectProblem follows Envoy Gateway's validateBackendRefBackend:
// the Backend must exist and be valid — the verdict of backend.go's
// validateBackend that its own status reports (backendJudge.verdict) —
// and a route may not reach a Unix socket.
func (rv *routeValidation) backendObjectProblem(ns, name string) *routeProblem {
	spec, ok := rv.backendOf(ns, name)
	switch {
	case !ok:
		return unresolved("BackendNotFound", "", "Backend %s/%s not found.", ns, name)
	case spec == nil:
		return nil // the Backend's own findings say why
	}
	if v := rv.backendJudge().verdict(ns, name, spec); v.problem != nil {
		p := *v.problem // the route's copy: its caller sets the answer and backendRef
		p.path = ""
		return &p
	}
	for _, ep := range spec.Endpoints {
		if ep.Unix != nil {
			return unresolved("UnsupportedAddressType", "", "unix domain sockets are not supported in backend references.")
		}
	}
	return nil
}

// backendJudge is what Envoy Gateway's Backend validation reads.
func (rv *routeValidation) backendJudge() backendJudge {
	return backendJudge{env: rv.env, onHost: rv.onHost}
}

// backendAddressTypeProblem is validateDestinationSettings for a Backend:
// Envoy Gateway builds one cluster per backendRef, of one address type,
// so a Backend mixing FQDN endpoints with IP (or Unix) ones is refused;
// IP and Unix endpoints together make a static cluster and are served.
func (rv *routeValidation) backendAddressTypeProblem(ns, name string) *routeProblem {
	spec, _ := rv.backendOf(ns, name)
	if spec == nil || isDynamicResolver(spec) {
		return nil
	}
	fqdn, other := false, false
	for _, ep := range spec.Endpoints {
		switch {
		case ep.IP != nil, ep.Unix != nil:
			other = true
		case ep.FQDN != nil:
			fqdn = true
		}
	}
	if fqdn && other {
		p := unresolved("UnsupportedAddressType", "", "mixed FQDN and IP or Unix address type for the same backendRef is not supported.")
		p.destination = true
		return p
	}
	return nil
}

// destinationTLSProblem is applyBackendTLSSetting for a route's backend
// port (backendtls.go): a problem refuses the backendRef
// (InvalidBackendTLS). spec is the Backend's, nil for a Service or
// ServiceImport.
func (rv *routeValidation) destinationTLSProblem(k model.Key, port *gwv1.PortNumber, spec *egv1a1.BackendSpec) *routeProblem {
	var n int32
	if port != nil {
		n = int32(*port)
	}
	msg := destinationTLSProblem(rv.env, k, n, spec)
	if msg == "" && usesTLS(rv.env, k, n, spec) {
		msg = rv.proxyClientCertProblem()
	}
	if msg == "" {
		return nil
	}
	p := unresolved("InvalidBackendTLS", "", "%s.", msg)
	p.destination = true
	return p
}

// usesTLS: Envoy Gateway connects to backend k's port over TLS — the
// Backend has TLS settings, or a BackendTLSPolicy governs the port
// (applyBackendTLSSetting's merged validation settings are not nil).
func usesTLS(env *policy.Env, k model.Key, port int32, spec *egv1a1.BackendSpec) bool {
	if spec != nil && spec.TLS != nil {
		return true
	}
	return slices.ContainsFunc(env.BackendPolicies(k, port), func(bp *policy.BackendPolicy) bool {
		return bp.Policy.Group == model.GatewayGroup && bp.Policy.Kind == "BackendTLSPolicy"
	})
}

// proxyClientCertProblem is applyBackendTLSSetting's last step for a
// destination it connects to over TLS: the client certificate the
// EnvoyProxy of the route's Gateway presents to backends
// (spec.backendTLS.clientCertificateRef, processClientTLSSettings with the
// EnvoyProxy as owner: a Secret in its namespace, that exists, or an SDS
// reference allowed and well formed). A Gateway that gives its own
// (spec.tls.backend) is used instead, validated with the Gateway. Envoy
// Gateway checks per parent; gwpol refuses the backendRef at the first
// parent whose proxy's certificate is refused.
func (rv *routeValidation) proxyClientCertProblem() string {
	for _, p := range rv.rt.Parents {
		if p.Gateway == nil || !p.Accepted {
			continue
		}
		if msg := gatewayClientCertProblem(rv.env, p.Gateway.Gateway); msg != "" {
			return msg
		}
	}
	return ""
}

// gatewayClientCertProblem is processClientTLSSettings on the client
// certificate the EnvoyProxy in effect on gw presents to backends: a
// Secret in the EnvoyProxy's namespace, that exists, or an SDS reference
// allowed and well formed. "" when gw gives its own (spec.tls.backend,
// validated with the Gateway) or the EnvoyProxy names none.
func gatewayClientCertProblem(env *policy.Env, gw *model.Gateway) string {
	if gw.Spec.TLS != nil && gw.Spec.TLS.Backend != nil {
		return ""
	}
	cert, _ := env.Memo(proxyClientCertMemo{gw}, func() any { return proxyClientCert(gw, env.Model) }).(ownedRef)
	ref, key := cert.ref, cert.owner
	if ref == nil {
		return ""
	}
	if ref.Namespace != nil && string(*ref.Namespace) != key.Namespace {
		return fmt.Sprintf("ClientCertificateRef Secret is not located in the same namespace as EnvoyProxy. Secret namespace: %s does not match EnvoyProxy namespace: %s", *ref.Namespace, key.Namespace)
	}
	return clientCertificateProblem(env, key, string(ref.Name))
}

// proxyClientCertMemo names a Gateway's EnvoyProxy's client certificate
// reference among what a pass derives once (policy.Env.Memo).
type proxyClientCertMemo struct{ gw *model.Gateway }

// ownedRef is a Secret reference and the EnvoyProxy it is read in.
type ownedRef struct {
	ref   *gwv1.SecretObjectReference
	owner model.Key
}

// proxyClientCert is spec.backendTLS.clientCertificateRef of the
// EnvoyProxy in effect on gw (effectiveProxy), nil when it sets none or
// none is in the input.
func proxyClientCert(gw *model.Gateway, m *model.Model) ownedRef {
	o, ok := effectiveProxy(gw, m)
	if !ok {
		return ownedRef{}
	}
	raw, err := o.FieldJSON("spec.backendTLS.clientCertificateRef")
	var ref gwv1.SecretObjectReference
	if err != nil || string(raw) == "null" || json.Unmarshal(raw, &ref) != nil || ref.Name == "" {
		return ownedRef{}
	}
	return ownedRef{&ref, o.owner}
}

// endpointHostnameProblem is backend.go's validateHostname of the
// hostname at path: a DNS-1123 subdomain (a trailing dot aside), of two
// labels or more unless Envoy Gateway runs on the host, and not an IP
// address.
func (j backendJudge) endpointHostnameProblem(h, typ, path string) *routeProblem {
	if errs := validation.IsDNS1123Subdomain(strings.TrimSuffix(h, ".")); len(errs) > 0 {
		return unresolved("InvalidAddress", path, "hostname %s is not a valid %s.", h, typ)
	}
	if !j.onHost && len(strings.Split(h, ".")) < 2 {
		return unresolved("InvalidAddress", path, "hostname %s should be a domain with at least two segments separated by dots.", h)
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return unresolved("InvalidAddress", path, "hostname %s is an IP address.", h)
	}
	return nil
}

// backendTLSPolicyTargets is what the Backend validation reads of a
// BackendTLSPolicy.
type backendTLSPolicyTargets struct {
	TargetRefs []struct {
		Group       string  `json:"group"`
		Kind        string  `json:"kind"`
		Name        string  `json:"name"`
		SectionName *string `json:"sectionName"`
	} `json:"targetRefs"`
	Validation struct {
		WellKnownCACertificates *string                     `json:"wellKnownCACertificates"`
		CACertificateRefs       []gwv1.LocalObjectReference `json:"caCertificateRefs"`
	} `json:"validation"`
}

// backendTLSCover is, for a Backend name, what the BackendTLSPolicies
// naming a Backend of that name give it: some policy on the whole Backend
// with a CA, and the ports (sectionName) some policy names.
type backendTLSCover struct {
	whole bool
	ports map[string]bool
}

// tlsCoverKey is the Env.Memo key of a pass's backendTLSCover index.
type tlsCoverKey struct{}

// backendTLSCovers indexes, once per pass, the BackendTLSPolicies of the
// input that target Envoy Gateway Backends by the Backends' names (each
// route to a Backend asks; each policy's spec is read once). It reads
// the objects, not their decoded policies, so that a Backend is judged
// alike wherever it is met: by a route, a calling policy, or the
// telemetry of an EnvoyProxy before any policy is decoded.
func backendTLSCovers(env *policy.Env) map[string]*backendTLSCover {
	return env.Memo(tlsCoverKey{}, func() any {
		out := map[string]*backendTLSCover{}
		for _, o := range env.Model.OfKind(backendTLSPolicy) {
			var s backendTLSPolicyTargets
			// The Gateway API kind's spec, which its own kind package decodes
			// into data of its own: this family reads the targets it matches
			// its own way (by name, any namespace).
			if o.DecodeField("spec", &s) != nil {
				continue
			}
			hasCA := s.Validation.WellKnownCACertificates != nil || len(s.Validation.CACertificateRefs) > 0
			for _, t := range s.TargetRefs {
				if t.Group != Group || t.Kind != backend.Kind {
					continue
				}
				c := out[t.Name]
				if c == nil {
					c = &backendTLSCover{ports: map[string]bool{}}
					out[t.Name] = c
				}
				switch {
				case t.SectionName == nil:
					c.whole = c.whole || hasCA
				default:
					c.ports[*t.SectionName] = true
				}
			}
		}
		return out
	}).(map[string]*backendTLSCover)
}

// backendTLSProblem is backend.go's validateBackendTLSSettings. A Backend
// with TLS that verifies its peer needs a CA: its own, or one from a
// BackendTLSPolicy on the whole Backend, or a BackendTLSPolicy per
// endpoint port (sectionName = the port). Envoy Gateway matches the
// policies' targets by the Backend's name only, in any namespace, and
// does not ask a per-port policy for a CA; gwpol does the same. The client
// certificate must be in the Backend's namespace.
func (j backendJudge) backendTLSProblem(ns, name string, spec *egv1a1.BackendSpec) *routeProblem {
	tls := spec.TLS
	if tls == nil {
		return nil
	}
	if tls.InsecureSkipVerify == nil || !*tls.InsecureSkipVerify {
		if tls.WellKnownCACertificates == nil && len(tls.CACertificateRefs) == 0 && !j.backendTLSPoliciesCover(name, spec) {
			return unresolved("InvalidBackendRef", "spec.tls", "must specify either CACertificateRefs or WellKnownCACertificates when InsecureSkipVerify is unset or false.")
		}
	}
	if ref := clientCertificateRef(tls); ref != nil && ref.Namespace != nil && *ref.Namespace != "" && string(*ref.Namespace) != ns {
		return unresolved("InvalidBackendRef", "spec.tls.clientCertificateRef.namespace", "clientCertificateRef Secret is not located in the same namespace as Backend. Secret namespace: %s does not match Backend namespace: %s.", *ref.Namespace, ns)
	}
	return nil
}

// backendTLSPoliciesCover: some BackendTLSPolicy on the whole Backend has
// a CA, or every port of its FQDN and IP endpoints has a policy naming
// it as sectionName (a Backend with no such port is not covered).
func (j backendJudge) backendTLSPoliciesCover(name string, spec *egv1a1.BackendSpec) bool {
	c := backendTLSCovers(j.env)[name]
	if c == nil {
		return false
	}
	if c.whole {
		return true
	}
	ports := 0
	for _, ep := range spec.Endpoints {
		var port int32
		switch {
		case ep.FQDN != nil:
			port = ep.FQDN.Port
		case ep.IP != nil:
			port = ep.IP.Port
		default:
			continue
		}
		if !c.ports[strconv.Itoa(int(port))] {
			return false
		}
		ports++
	}
	return ports > 0
}

// dynamicResolverProblem: a rule forwarding to a DynamicResolver Backend
// may not take its upstream host from the request path (an HTTPRouteFilter
// hostname rewrite of type PathRegex: the resolver's loopback guard reads
// only the rewrite header or the authority), and may have no other
// backendRef (route.go: processHTTPRouteRules,
// processTLSRouteParentRefs). The caller found a valid DynamicResolver
// destination among the rule's valid ones (valid of them, with a weight):
// Envoy Gateway counts those for a TLSRoute, every backendRef for the
// other kinds.
func (rv *routeValidation) dynamicResolverProblem(rule *model.Rule, st *filterState, valid int) *routeProblem {
	if st.rewrite.hostFromPath {
		return unresolved("UnsupportedValue", rule.Path+".filters", "Failed to process route rule %d: host rewrite from path (PathRegex) is not supported with a dynamic resolver backend.", rule.Index)
	}
	n := len(rule.BackendRefs)
	if rv.rt.Kind == "TLSRoute" {
		n = valid
	}
	if n <= 1 {
		return nil
	}
	if rv.rt.Kind == "TLSRoute" {
		return unresolved("InvalidBackendRef", rule.Path+".backendRefs", "dynamic resolver is not supported for multiple backendRefs.")
	}
	return unresolved("InvalidBackendRef", rule.Path+".backendRefs", "Failed to process route rule %d: dynamic resolver is not supported for multiple backendRefs.", rule.Index)
}

// isDynamicResolverRef: ref names a Backend of type DynamicResolver.
func (rv *routeValidation) isDynamicResolverRef(ref gwv1.BackendObjectReference) bool {
	if ref.Kind == nil || string(*ref.Kind) != backend.Kind {
		return false
	}
	ns := rv.rt.Meta.Namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	spec, _ := rv.backendOf(ns, string(ref.Name))
	return spec != nil && isDynamicResolver(spec)
}

// ruleCountProblem: Envoy Gateway serves a TCPRoute or UDPRoute of
// exactly one rule (route.go: processTCPRouteParentRefs,
// processUDPRouteParentRefs); any other is not accepted.
func ruleCountProblem(rt *model.Route) string {
	if (rt.Kind == "TCPRoute" || rt.Kind == "UDPRoute") && len(rt.Rules) != 1 {
		return "One and only one rule is supported"
	}
	return ""
}
