package kgateway

import (
	"fmt"
	"reflect"
	"strconv"
	"time"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// Annotations kgateway reads on policies.
const (
	AnnotationWeight            = "kgateway.dev/policy-weight"
	AnnotationInheritedPriority = "kgateway.dev/inherited-policy-priority"
)

// field maps one MergeOrigins key to its place in the spec.
type field struct {
	key, path string
	deep      bool
	writes    []string                     // policy.FieldSpec.Writes
	get       func(*TrafficPolicySpec) any // nil when unset
}

func isSet(v any) bool {
	if v == nil {
		return false
	}
	rv := reflect.ValueOf(v)
	return !(rv.Kind() == reflect.Pointer && rv.IsNil())
}

// fields are kgateway's MergeOrigins keys in kgateway's order; the key
// differs from the spec field for jwt (jwtAuth), oidc (oauth2), httpACL
// (acl) and the two halves of compression.
var fields = []field{
	{"transformation", "spec.transformation", true, []string{"http_filter.dynamic_modules/simple_mutations", "typed_per_filter_config.dynamic_modules/simple_mutations"}, func(s *TrafficPolicySpec) any { return s.Transformation }},
	{"extProc", "spec.extProc", true, []string{"http_filter.ext_proc/*", "typed_per_filter_config.ext_proc/*", "http_filter.ext_proc_enabled", "typed_per_filter_config.ext_proc_enabled", "http_filter.global_disable/ext_proc", "typed_per_filter_config.global_disable/ext_proc", "clusters.kube_*"}, func(s *TrafficPolicySpec) any { return s.ExtProc }},
	{"extAuth", "spec.extAuth", true, []string{"http_filter.ext_auth/*", "typed_per_filter_config.ext_auth/*", "http_filter.ext_auth_enabled", "typed_per_filter_config.ext_auth_enabled", "http_filter.global_disable/ext_auth", "typed_per_filter_config.global_disable/ext_auth", "clusters.kube_*"}, func(s *TrafficPolicySpec) any { return s.ExtAuth }},
	{"rateLimit.local", "spec.rateLimit.local", false, []string{"http_filter.ratelimit/local", "typed_per_filter_config.ratelimit/local"}, func(s *TrafficPolicySpec) any {
		if s.RateLimit == nil {
			return nil
		}
		return s.RateLimit.Local
	}},
	{"rateLimit.global", "spec.rateLimit.global", false, []string{"http_filter.ratelimit/*", "typed_per_filter_config.ratelimit/*", "clusters.kube_*"}, func(s *TrafficPolicySpec) any {
		if s.RateLimit == nil {
			return nil
		}
		return s.RateLimit.Global
	}},
	{"cors", "spec.cors", false, []string{"http_filter.envoy.filters.http.cors", "typed_per_filter_config.envoy.filters.http.cors"}, func(s *TrafficPolicySpec) any { return s.Cors }},
	{"csrf", "spec.csrf", false, []string{"http_filter.envoy.filters.http.csrf", "typed_per_filter_config.envoy.filters.http.csrf"}, func(s *TrafficPolicySpec) any { return s.Csrf }},
	{"headerModifiers", "spec.headerModifiers", false, []string{"http_filter.envoy.extensions.filters.http.header_mutation", "typed_per_filter_config.envoy.extensions.filters.http.header_mutation"}, func(s *TrafficPolicySpec) any { return s.HeaderModifiers }},
	{"autoHostRewrite", "spec.autoHostRewrite", false, []string{"route.auto_host_rewrite"}, func(s *TrafficPolicySpec) any { return s.AutoHostRewrite }},
	{"buffer", "spec.buffer", false, []string{"http_filter.envoy.filters.http.buffer", "typed_per_filter_config.envoy.filters.http.buffer"}, func(s *TrafficPolicySpec) any { return s.Buffer }},
	{"timeouts", "spec.timeouts", false, []string{"route.timeout", "route.idle_timeout"}, func(s *TrafficPolicySpec) any { return s.Timeouts }},
	{"retry", "spec.retry", false, []string{"route.retry_policy"}, func(s *TrafficPolicySpec) any { return s.Retry }},
	{"rbac", "spec.rbac", false, []string{"http_filter.envoy.filters.http.rbac", "typed_per_filter_config.envoy.filters.http.rbac"}, func(s *TrafficPolicySpec) any { return s.RBAC }},
	{"jwt", "spec.jwtAuth", false, []string{"http_filter.jwt/*", "typed_per_filter_config.jwt/*", "http_filter.jwt_enabled", "typed_per_filter_config.jwt_enabled", "http_filter.global_disable/jwt", "typed_per_filter_config.global_disable/jwt", "clusters.kube_*"}, func(s *TrafficPolicySpec) any { return s.JWTAuth }},
	{"urlRewrite", "spec.urlRewrite", false, []string{"route.regex_rewrite", "route.prefix_rewrite"}, func(s *TrafficPolicySpec) any { return s.URLRewrite }},
	{"compression", "spec.compression.responseCompression", false, []string{"http_filter.envoy.filters.http.compressor*", "typed_per_filter_config.envoy.filters.http.compressor*"}, func(s *TrafficPolicySpec) any {
		if s.Compression == nil {
			return nil
		}
		return s.Compression.ResponseCompression
	}},
	{"decompression", "spec.compression.requestDecompression", false, []string{"http_filter.envoy.filters.http.decompressor*", "typed_per_filter_config.envoy.filters.http.decompressor*"}, func(s *TrafficPolicySpec) any {
		if s.Compression == nil {
			return nil
		}
		return s.Compression.RequestDecompression
	}},
	{"basicAuth", "spec.basicAuth", false, []string{"http_filter.envoy.filters.http.basic_auth", "typed_per_filter_config.envoy.filters.http.basic_auth", "http_filter.basic_auth_enabled", "typed_per_filter_config.basic_auth_enabled"}, func(s *TrafficPolicySpec) any { return s.BasicAuth }},
	{"apiKeyAuth", "spec.apiKeyAuth", false, []string{"http_filter.envoy.filters.http.api_key_auth", "typed_per_filter_config.envoy.filters.http.api_key_auth", "http_filter.api_key_auth_enabled", "typed_per_filter_config.api_key_auth_enabled"}, func(s *TrafficPolicySpec) any { return s.APIKeyAuth }},
	{"oidc", "spec.oauth2", false, []string{"http_filter.oauth2/*", "typed_per_filter_config.oauth2/*", "http_filter.oauth2_enabled", "typed_per_filter_config.oauth2_enabled", "http_filter.envoy.filters.http.oauth2/*", "typed_per_filter_config.envoy.filters.http.oauth2/*", "clusters.*"}, func(s *TrafficPolicySpec) any { return s.OAuth2 }},
	{"tracing", "spec.tracing", false, []string{"tracing"}, func(s *TrafficPolicySpec) any { return s.Tracing }},
	{"faultInjection", "spec.faultInjection", false, []string{"http_filter.envoy.filters.http.fault", "typed_per_filter_config.envoy.filters.http.fault"}, func(s *TrafficPolicySpec) any { return s.FaultInjection }},
	{"httpACL", "spec.acl", true, []string{"http_filter.dynamic_modules/http-acl", "typed_per_filter_config.dynamic_modules/http-acl"}, func(s *TrafficPolicySpec) any { return s.ACL }},
	{"requestMirror", "spec.requestMirror", false, []string{"route.request_mirror_policies[]"}, func(s *TrafficPolicySpec) any { return s.RequestMirror }},
	{"internalRedirect", "spec.internalRedirect", false, []string{"route.internal_redirect_policy"}, func(s *TrafficPolicySpec) any { return s.InternalRedirect }},
	{"statPrefix", "spec.statPrefix", false, []string{"stat_prefix"}, func(s *TrafficPolicySpec) any { return s.StatPrefix }},
}

// routeLevel are the fields kgateway sets on the Envoy route itself
// (its route action, tracing, mirrors, stat prefix) rather than as a
// filter's per-route configuration. On a backendRef's ExtensionRef
// kgateway applies a TrafficPolicy per backend with only its per-filter
// configuration (the weighted cluster's typed_per_filter_config), so
// these are left out there; every other field applies per backend.
var routeLevel = map[string]bool{
	"autoHostRewrite": true, "timeouts": true, "retry": true, "urlRewrite": true, "tracing": true,
	"requestMirror": true, "internalRedirect": true, "statPrefix": true,
}

// Kind is kgateway's TrafficPolicy.
type Kind struct{}

// The hooks of the policy-kind contract (internal/policy/kind.go) that
// TrafficPolicy implements.
var (
	_ policy.Kind            = Kind{}
	_ policy.Auxiliary       = Kind{}
	_ policy.BackendProvider = Kind{}
	_ policy.DeepConflicter  = Kind{}
	_ policy.Inheritor       = Kind{}
	_ policy.RuleFielder     = Kind{}
	_ policy.Instancer       = Kind{}
	_ policy.DeepResetter    = Kind{}
	_ policy.Renderer        = Kind{}
)

// New returns the TrafficPolicy kind.
func New() Kind { return Kind{} }

// GroupKind implements policy.Kind.
func (Kind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: Group, Kind: KindTrafficPolicy}
}

var spec = func() policy.KindSpec {
	s := policy.KindSpec{
		ConfigKey:         "trafficPolicy",
		MetadataKey:       "merge." + Group + "/" + KindTrafficPolicy,
		MetadataKeyCompat: "merge." + KindTrafficPolicy + "." + Group,
		TargetKinds:       []policy.TargetKind{policy.TargetGateway, policy.TargetListenerSet, policy.TargetHTTPRoute, policy.TargetGRPCRoute},
		ExtensionRef:      true,
		BackendRefFilter:  true,
		// kgateway resolves a backendRef's ExtensionRef leniently: one to
		// a TrafficPolicy that does not exist is skipped, with no status
		// saying so (its backendRef filters' errors are left undefined).
		SkipsUnresolvedBackendRef: true,
		BackendRefNote:            "kgateway applies a TrafficPolicy named from a backendRef to that backend only, with its per-filter settings (the weighted cluster's typed_per_filter_config), and drops its route settings",
		// kgateway's Attached condition counts a policy's merge origins
		// (GetRefCount): listed under every merged field Attached, some
		// Merged, none Overridden; a field the route rule's own value
		// takes is not counted as lost (status.refCount).
		Attached:         true,
		MaxAncestors:     16,
		Precedence:       true,
		WeightAnnotation: AnnotationWeight,
	}
	for _, f := range fields {
		fs := policy.FieldSpec{Key: f.key, SpecPath: f.path, Deep: f.deep, Default: policy.AugmentedShallow, Writes: f.writes}
		if f.key == "httpACL" {
			// kgateway deep-merges ACLs by default (policyMerge acl:
			// ShallowMerge turns it off); the others deep-merge on request.
			fs.Default, fs.ConfigName = policy.AugmentedDeep, "acl"
		}
		fs.FillsUnset = f.key == "timeouts"
		// timeout_retry.go: applyTimeoutDefaults skips GRPCRoutes' routes
		fs.NotOnGRPCRoutes = f.key == "timeouts"
		// traffic_policy_plugin.go: handlePerRoutePolicies returns before
		// its route tracing on a route without a RouteAction
		fs.ForwardingOnly = f.key == "tracing"
		fs.PerBackend = !routeLevel[f.key]
		s.Fields = append(s.Fields, fs)
	}
	return s
}()

// Spec implements policy.Kind.
func (Kind) Spec() policy.KindSpec { return spec }

// AuxiliaryKinds implements policy.Auxiliary: the kgateway objects
// TrafficPolicies reference.
func (Kind) AuxiliaryKinds() []model.GroupKind {
	return []model.GroupKind{{Group: Group, Kind: KindGatewayExtension}, {Group: Group, Kind: KindBackend}}
}

// BackendKinds implements policy.BackendProvider.
func (Kind) BackendKinds() []model.GroupKind {
	return []model.GroupKind{{Group: Group, Kind: KindBackend}}
}

// Decode implements policy.Kind.
func (k Kind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	var tp TrafficPolicy
	if !decodeInto(p, &tp, env.Config) {
		return p
	}
	p.Weight, p.Created = weightAndAge(p, tp.Annotations, tp.CreationTimestamp.Time)
	p.Targets = targets(tp.Spec.TargetRefs, tp.Spec.TargetSelectors)
	for _, f := range fields {
		if v := f.get(&tp.Spec); isSet(v) {
			p.Values[f.key] = v
		}
	}
	v := &validator{p: p, env: env, spec: &tp.Spec}
	v.validate()
	p.FilterWeights = filterWeights(env.Model, p)
	return p
}

// decodeInto decodes p's object into v (a pointer), which becomes p.Data;
// a value that does not fit makes p invalid (false), unknown keys are
// findings (policy.DecodeObject).
func decodeInto(p *policy.Policy, v any, cfg policy.Config) bool {
	if !p.DecodeObject(v, cfg) {
		return false
	}
	p.Data = v
	return true
}

func weightAndAge(p *policy.Policy, annotations map[string]string, created time.Time) (int32, time.Time) {
	var w int32
	if s, ok := annotations[AnnotationWeight]; ok {
		// kgateway parses the same way and, on an error (out of range
		// included, where ParseInt returns the bound), counts it among
		// the policy's errors and keeps weight 0: the policy is rejected.
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "metadata.annotations", "annotation %s=%q is not an int32 (-2147483648 to 2147483647); kgateway rejects the policy and its weight is 0", AnnotationWeight, s))
			n = 0
		}
		w = int32(n)
	}
	return w, created
}

// ignoredWeight reports a kgateway.dev/policy-weight annotation on a kind
// whose policies kgateway orders by age alone (GWP406): of its policy
// kinds only the TrafficPolicy plugin parses the annotation into the
// policy's PrecedenceWeight, which the policy index sorts by before age
// (krtcollections/policy.go: getTargetingPoliciesMaybeForBackends); the
// ListenerPolicy and BackendConfigPolicy plugins leave it zero, so the
// annotation orders nothing there and a value that is not a number is
// no error.
func ignoredWeight(p *policy.Policy, annotations map[string]string) {
	if _, ok := annotations[AnnotationWeight]; !ok {
		return
	}
	p.Findings = append(p.Findings, p.Diag(policy.LintNotTranslated.Code, diag.Warning, "metadata.annotations",
		"annotation %s has no effect on a %s: kgateway reads it on TrafficPolicies only and orders %ss by creationTimestamp alone (the older wins a field)",
		AnnotationWeight, p.Kind.GroupKind().Kind, p.Kind.GroupKind().Kind))
}

func targets(refs []LocalPolicyTargetReferenceWithSectionName, sels []LocalPolicyTargetSelectorWithSectionName) []policy.TargetRef {
	var out []policy.TargetRef
	for i, t := range refs {
		r := policy.TargetRef{Group: t.Group, Kind: t.Kind, Name: t.Name, Path: fmt.Sprintf("spec.targetRefs[%d]", i)}
		if t.SectionName != nil {
			r.Section = *t.SectionName
		}
		out = append(out, r)
	}
	for i, t := range sels {
		r := policy.TargetRef{Group: t.Group, Kind: t.Kind, Selector: t.MatchLabels, Path: fmt.Sprintf("spec.targetSelectors[%d]", i)}
		if r.Selector == nil {
			r.Selector = map[string]string{}
		}
		if t.SectionName != nil {
			r.Section = *t.SectionName
		}
		out = append(out, r)
	}
	return out
}

// DeepConflict implements policy.DeepConflicter: two ACLs deep-merge only
// when their default action and deny response agree.
func (Kind) DeepConflict(key string, a, b any) bool {
	x, ok1 := a.(*ACLPolicy)
	y, ok2 := b.(*ACLPolicy)
	if key != "httpACL" || !ok1 || !ok2 {
		return false
	}
	return !reflect.DeepEqual(x.DefaultAction, y.DefaultAction) || !reflect.DeepEqual(x.DenyResponse, y.DenyResponse)
}

// InheritStrategy implements policy.Inheritor: the parent route's
// kgateway.dev/inherited-policy-priority annotation decides how its
// policies fold into a delegated child's (default: the child wins).
func (Kind) InheritStrategy(annotations map[string]string) policy.Strategy {
	switch annotations[AnnotationInheritedPriority] {
	case "ShallowMergePreferParent":
		return policy.OverridableShallow
	case "DeepMergePreferChild":
		return policy.AugmentedDeep
	case "DeepMergePreferParent":
		return policy.OverridableDeep
	}
	return policy.AugmentedShallow
}
