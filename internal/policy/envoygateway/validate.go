package envoygateway

import (
	"fmt"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// backendRef is Envoy Gateway's BackendObjectReference.
type backendRef struct {
	Group     string  `json:"group"`
	Kind      string  `json:"kind"`
	Name      string  `json:"name"`
	Namespace *string `json:"namespace"`
	Port      *int32  `json:"port"`
	// unweighted: weight 0, a backend Envoy Gateway checks but builds no
	// destination for.
	unweighted bool
}

// serviceImport is the multi-cluster Service a backendRef may name.
var serviceImport = model.GroupKind{Group: "multicluster.x-k8s.io", Kind: "ServiceImport"}

// validateReferences makes p Invalid, with Envoy Gateway's messages, for a
// backend or Secret reference that does not resolve: the object is missing,
// in another namespace without a ReferenceGrant, or (a Service) has no such
// port.
func (k *Kind) validateReferences(p *policy.Policy, spec any, env *policy.Env) {
	noBackend := !EnableBackend.Bool(env.Config)
	v := refValidator{p: p, m: env.Model, kind: k.name, noBackend: noBackend, env: env}
	switch s := spec.(type) {
	case *egv1a1.SecurityPolicySpec:
		if e := s.ExtAuth; e != nil {
			if e.GRPC != nil {
				v.backends("ExtAuth", "spec.extAuth", clusterRefs(&e.GRPC.BackendCluster))
			}
			if e.HTTP != nil {
				v.backends("ExtAuth", "spec.extAuth", clusterRefs(&e.HTTP.BackendCluster))
			}
		}
	case *egv1a1.EnvoyExtensionPolicySpec:
		for i, e := range s.ExtProc {
			v.backends("ExtProc", fmt.Sprintf("spec.extProc[%d]", i), clusterRefs(&e.BackendCluster))
		}
		v.luaConfigMaps(s.Lua)
	}
}

// luaConfigMaps checks the ConfigMaps Lua scripts are read from.
func (v refValidator) luaConfigMaps(scripts []egv1a1.Lua) {
	ns := v.p.Obj.Namespace
	for i, l := range scripts {
		if l.ValueRef == nil {
			continue
		}
		name, path := string(l.ValueRef.Name), fmt.Sprintf("spec.lua[%d].valueRef", i)
		switch keys, ok := v.configMapKeys(name); {
		case !ok:
			v.invalid(path, "Lua: can't find the referenced configmap %s in namespace %s.", name, ns)
		case len(keys) == 0:
			// Without a lua key Envoy Gateway reads another: only an
			// empty ConfigMap fails.
			v.invalid(path, "Lua: can't find the key lua in the referenced configmap %s.", name)
		}
	}
}

// configMapKeys are the data keys of a ConfigMap in the policy's
// namespace, the Lua script's (dataKeys); ok is false when it is not in
// the input.
func (v refValidator) configMapKeys(name string) (keys []string, ok bool) {
	cm := v.m.ConfigMap(v.p.Obj.Namespace, name)
	if cm == nil {
		return nil, false
	}
	return dataKeys(cm, "lua"), true
}

// dataKeys are the names of a ConfigMap's data entries, the only ones
// Envoy Gateway reads a Lua script, a local JWKS or an ext auth context
// extension from (cm.Data: a binaryData entry is not found). A ConfigMap
// assumed to exist (config assumeExist) holds the key wanted.
func dataKeys(cm *model.Opaque, want string) []string {
	if cm.Assumed {
		return []string{want}
	}
	return cm.DataKeys()
}

type refValidator struct {
	p    *policy.Policy
	m    *model.Model
	kind string
	// noBackend: Envoy Gateway's Backend kind is disabled
	// (envoyGateway.enableBackend: false).
	noBackend bool
	// env answers what the policies of other kinds on a backend port
	// reference (policy.Env.BackendPolicies) and the deployment's
	// settings; nil in checks that build no destination.
	env *policy.Env
}

func (v refValidator) invalid(path, format string, args ...any) {
	v.p.Invalid = append(v.p.Invalid, v.p.Diag(policy.LintPolicyInvalid.Code, diag.Error, path, format, args...))
}

// backends checks an extension's backendRefs; the first problem is
// reported, as Envoy Gateway stops at it.
func (v refValidator) backends(feature, path string, refs []backendRef) {
	types := map[string]bool{}
	for _, r := range refs {
		msg := v.backend(r)
		if msg == "" && r.unweighted {
			continue
		}
		if msg == "" {
			msg = v.destination(r)
		}
		if msg == "" {
			msg = v.backendTLS(r)
		}
		if msg != "" {
			v.invalid(path, "%s: %s", feature, msg)
			return
		}
		types[v.addressType(r)] = true
	}
	if len(types) > 1 {
		v.invalid(path, "%s: external service destinations having multiple endpoint types are not supported.", feature)
	}
}

// addressType is how Envoy Gateway reaches a destination: "IP" for a
// Service or ServiceImport (their endpoints), for a Backend that of its
// endpoints — "FQDN", "IP", or "Mixed" when they differ. One extension's
// destinations must share one type (one Envoy cluster type).
func (v refValidator) addressType(r backendRef) string {
	return backendAddressType(v.env, v.m, v.p.Obj.Namespace, r)
}

// backendAddressType is refValidator.addressType for a reference made
// from namespace ns (env: the pass, nil outside one).
func backendAddressType(env *policy.Env, m *model.Model, ns string, r backendRef) string {
	if r.Kind != backend.Kind || m == nil {
		return "IP"
	}
	if r.Namespace != nil && *r.Namespace != "" {
		ns = *r.Namespace
	}
	spec, _ := readBackend(env, m, ns, r.Name)
	if spec == nil {
		return "IP"
	}
	seen := ""
	for _, ep := range spec.Endpoints {
		t := "IP"
		if ep.FQDN != nil {
			t = "FQDN"
		}
		if seen != "" && seen != t {
			return "Mixed"
		}
		seen = t
	}
	return seen
}

func (v refValidator) backend(r backendRef) string {
	ns := v.p.Obj.Namespace
	if r.Namespace != nil && *r.Namespace != "" {
		ns = *r.Namespace
	}
	gk, msg := extServiceKind(r)
	if msg != "" {
		return msg
	}
	// Envoy Gateway's order: the port, the object (and its port), the
	// ReferenceGrant, then what building the destination finds (a disabled
	// Backend kind, an ExternalName Service).
	if (gk == model.GroupKind{Kind: "Service"} || gk == serviceImport) && r.Port == nil {
		return "a valid port number corresponding to a port on the Service must be specified."
	}
	var svc *model.Service
	switch gk {
	case model.GroupKind{Kind: "Service"}:
		svc = v.m.Service(ns, r.Name)
		switch {
		case svc == nil:
			return fmt.Sprintf("service %s/%s not found.", ns, r.Name)
		case !hasPortFor(svc, *r.Port, "TCP"):
			return fmt.Sprintf("TCP Port %d not found on service %s/%s.", *r.Port, ns, r.Name)
		}
	case serviceImport, backend:
		o, ok := v.m.Object(model.Key{Group: gk.Group, Kind: gk.Kind, Namespace: ns, Name: r.Name})
		switch {
		case !ok:
			return fmt.Sprintf("%s %s/%s not found.", lower(gk.Kind), ns, r.Name)
		case gk == serviceImport && !serviceImportHasPort(o, *r.Port, "TCP"):
			// The services a policy calls (ext auth, ext proc, …) speak
			// HTTP or gRPC, both over TCP.
			return fmt.Sprintf("TCP Port %d not found on service %s/%s.", *r.Port, ns, r.Name)
		}
	}
	if !v.m.GrantAllows(Group, v.kind, v.p.Obj.Namespace, model.ObjectRefTo{Group: r.Group, Kind: gk.Kind, Namespace: ns, Name: r.Name}) {
		return fmt.Sprintf("backend ref to %s %s/%s not permitted by any ReferenceGrant.", gk.Kind, ns, r.Name)
	}
	if gk == backend && v.noBackend {
		return fmt.Sprintf("resource %s of type Backend cannot be used since Backend is disabled in Envoy Gateway configuration (%s).", r.Name, enables(EnableBackend))
	}
	if svc != nil && svc.Spec.Type == "ExternalName" {
		return fmt.Sprintf("Service %s/%s is of type ExternalName, which is not supported as a backend; use an Envoy Gateway Backend resource with an FQDN endpoint instead.", ns, r.Name)
	}
	return ""
}

// destination is what building an extension service's destination finds
// (ext_service.go: processExtServiceDestination): a Service or
// ServiceImport whose EndpointSlices list no address for the port (the
// rule of lacksEndpoints) or mix address types, a DynamicResolver
// Backend, a Backend mixing FQDN with IP endpoints.
func (v refValidator) destination(r backendRef) string {
	ns := v.p.Obj.Namespace
	if r.Namespace != nil && *r.Namespace != "" {
		ns = *r.Namespace
	}
	gk, _ := extServiceKind(r)
	switch gk {
	case model.GroupKind{Kind: "Service"}, serviceImport:
		// A called service's destination takes no BackendTrafficPolicy's
		// routingType: only an EnvoyProxy's.
		routesToServices := func() bool { return envoyProxyRoutesToServices(v.m) }
		switch {
		case r.Port == nil:
		case lacksEndpoints(v.m, gk.Kind, ns, r.Name, *r.Port, routesToServices):
			return fmt.Sprintf("no ready endpoints for the related %s %s/%s.", gk.Kind, ns, r.Name)
		case !routesToServices() && sliceAddressTypesMixed(backendSlices(v.m, gk.Kind, ns, r.Name)):
			return "mixed endpointslice address type for the same backendRef is not supported."
		}
	case backend:
		if spec, _ := readBackend(v.env, v.m, ns, r.Name); spec != nil && isDynamicResolver(spec) {
			return "dynamic resolver destinations are not supported."
		}
		if v.addressType(r) == "Mixed" {
			return "mixed endpointslice address type for the same backendRef is not supported."
		}
	}
	return ""
}

// extServiceKinds are the objects an extension service's backendRef may
// name, by kind.
var extServiceKinds = map[string]model.GroupKind{"Service": {Kind: "Service"}, serviceImport.Kind: serviceImport, backend.Kind: backend}

// extServiceKind checks a reference's group and kind as Envoy Gateway
// v1.9.0's validateExtServiceBackendReference does — each against the
// ones it supports, separately, before anything is looked up — and
// gives the object it names by its kind (as Envoy Gateway looks it up),
// else the message.
func extServiceKind(r backendRef) (model.GroupKind, string) {
	if g := r.Group; g != "" && g != serviceImport.Group && g != Group {
		return model.GroupKind{}, fmt.Sprintf("group is invalid, only the core API group (specified by omitting the group field or setting it to an empty string), the %s API group, and the %s API group are supported.", serviceImport.Group, Group)
	}
	kind := r.Kind
	if kind == "" {
		kind = "Service"
	}
	gk, ok := extServiceKinds[kind]
	if !ok {
		return model.GroupKind{}, "kind is invalid, only Service (specified by omitting the kind field or setting it to 'Service'), ServiceImport, and Backend are supported."
	}
	return gk, ""
}

// backendTLS is applyBackendTLSSetting for a called service's resolved
// backend (backendtls.go), as Envoy Gateway builds it while it translates
// the calling policy.
func (v refValidator) backendTLS(r backendRef) string {
	if v.env == nil {
		return ""
	}
	var port int32
	if r.Port != nil {
		port = *r.Port
	}
	k := r.key(v.p.Obj.Namespace)
	var spec *egv1a1.BackendSpec
	if k.Kind == backend.Kind { // found by kind; its policy by the group as written

		spec, _ = readBackend(v.env, v.m, k.Namespace, k.Name)
	}
	if msg := destinationTLSProblem(v.env, k, port, spec); msg != "" {
		return msg + "."
	}
	return ""
}

func lower(s string) string {
	out := []byte(s)
	for i, c := range out {
		if 'A' <= c && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return string(out)
}
