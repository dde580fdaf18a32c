package haptic

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// Field keys: one per section, as MergeOrigins and explain name them.
const (
	FieldJWT       = "authentication.jwt"
	FieldAPIKey    = "authentication.apiKey"
	FieldRateLimit = "rateLimit"
	FieldWAF       = "waf"
	FieldCache     = "cache"
)

// Kind is HAPTIC's HAProxyRoutePolicy: attached only by a rule's
// ExtensionRef filter, one per rule, nothing merged, and anything wrong
// with it closes the rule.
type Kind struct {
	// catalogs caches parsed WAF catalogs across the policies of one
	// run; nil (the zero Kind) parses each time.
	catalogs *catalogCache
	// budget admits self-service WAF catalog entries against the
	// deployment's limits once per run; nil computes it each time.
	budget *wafBudget
}

// The hooks of the policy-kind contract (internal/policy/kind.go) that
// HAProxyRoutePolicy implements.
var (
	_ policy.Kind        = Kind{}
	_ policy.RuleChecker = Kind{}
	_ policy.Identifier  = Kind{}
	_ policy.Renderer    = Kind{}
	_ policy.RuleNoter   = Kind{}
	_ policy.Enabler     = Kind{}
)

// Enables implements policy.Enabler: an empty cache section turns the
// rule's response cache on — GatewayPolicyRecord (44-route-policies.yaml)
// runs PolicyCache and 48-policy-cache.yaml publishes the rule's cache
// record whenever spec.cache is present, its lifetime then the origin's
// Cache-Control (route-policy.md@04be9778) — so a policy setting only
// cache: {} has an effect.
func (Kind) Enables(key string, _ any) bool { return key == FieldCache }

// New returns the HAProxyRoutePolicy kind. Use one per pipeline run: it
// caches the WAF catalogs it parses.
func New() Kind {
	return Kind{catalogs: &catalogCache{m: map[catalogKey]parsedCatalog{}}, budget: &wafBudget{}}
}

// GroupKind implements policy.Kind.
func (Kind) GroupKind() model.GroupKind { return model.GroupKind{Group: Group, Kind: KindName} }

var spec = policy.KindSpec{
	ConfigKey:         "haproxyRoutePolicy",
	MetadataKey:       "merge." + Group + "/" + KindName,
	MetadataKeyCompat: "merge." + KindName + "." + Group,
	Fields: []policy.FieldSpec{
		// Its filters are named after the policy (…/haproxyroutepolicy/NS/NAME).
		{Key: FieldJWT, SpecPath: "spec.authentication.jwt", Default: policy.Exclusive, Writes: []string{
			"http_filter.envoy.filters.http.jwt_authn/*", "typed_per_filter_config.envoy.filters.http.jwt_authn/*",
			"http_filter.envoy.filters.http.rbac/*", "typed_per_filter_config.envoy.filters.http.rbac/*",
			"http_filter.envoy.filters.http.header_mutation/*", "typed_per_filter_config.envoy.filters.http.header_mutation/*", "clusters.*"}},
		{Key: FieldAPIKey, SpecPath: "spec.authentication.apiKey", Default: policy.Exclusive, Writes: []string{
			"http_filter.envoy.filters.http.api_key_auth/*", "typed_per_filter_config.envoy.filters.http.api_key_auth/*",
			"http_filter.envoy.filters.http.header_mutation/*", "typed_per_filter_config.envoy.filters.http.header_mutation/*",
			"http_filter.envoy.filters.http.rbac/*", "typed_per_filter_config.envoy.filters.http.rbac/*"}},
		{Key: FieldRateLimit, SpecPath: "spec.rateLimit", Default: policy.Exclusive, Writes: []string{
			"http_filter.envoy.filters.http.local_ratelimit/*", "typed_per_filter_config.envoy.filters.http.local_ratelimit/*",
			"http_filter.envoy.filters.http.ratelimit/*", "typed_per_filter_config.envoy.filters.http.ratelimit/*", "clusters.*"}},
		{Key: FieldWAF, SpecPath: "spec.waf", Default: policy.Exclusive, Writes: []string{"metadata.filter_metadata." + WAFMetadataKey,
			"http_filter.envoy.filters.http.ext_proc/*", "typed_per_filter_config.envoy.filters.http.ext_proc/*", "clusters.*"}},
		{Key: FieldCache, SpecPath: "spec.cache", Default: policy.Exclusive, Writes: []string{
			"http_filter.envoy.filters.http.cache/*", "typed_per_filter_config.envoy.filters.http.cache/*", "response_headers_to_add[]"}},
	},
	ExtensionRef: true,
	OnePerRule:   true,
	FailClosed:   true,
	// Gateway API policy status holds at most 16 ancestors.
	MaxAncestors: 16,
}

// Spec implements policy.Kind.
func (Kind) Spec() policy.KindSpec { return spec }

// Decode implements policy.Kind: it reads the spec, applies defaults,
// checks bounds (GWP401) and the Secrets and catalog the policy depends
// on (GWP402). It never fails; problems land in p.Invalid.
func (k Kind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	if o.Version != Version {
		// HAPTIC watches HAProxyRoutePolicies at v1alpha1 alone
		// (gateway-policies/_index.yaml@a7ac8a15: watchedResources
		// routepolicies, apiVersion haproxy-haptic.org/v1alpha1), the one
		// version its chart names: an object of another version is not
		// one it reads, so a rule naming it fails closed as for a missing
		// policy (brokenReasons: PolicyNotFound).
		p.Invalid = append(p.Invalid, p.Diag(model.LintVersionNotServed.Code, diag.Error, "apiVersion",
			"%s %s is not the version HAPTIC watches (%s): it never reads this object, so a rule naming it fails closed as for a missing policy (PolicyNotFound); use %s",
			o.Kind, o.APIVersion, APIVersion, APIVersion))
		return p
	}
	var hp HAProxyRoutePolicy
	unknown, errs := o.DecodeAll(&hp)
	p.Findings = append(p.Findings, policy.UnknownFieldFindings(o, withoutAttachmentFields(unknown), env.Config.LenientFields)...)
	if len(errs) > 0 {
		p.ReportDecodeErrors(errs)
		return p
	}
	p.Data = &hp.Spec
	v := &validator{p: p, env: env, spec: &hp.Spec, ns: o.Namespace, catalogs: k.catalogs, budget: k.budget, settings: settingsOf(env)}
	v.validate()
	s := &hp.Spec
	if s.Authentication != nil && s.Authentication.JWT != nil {
		p.Values[FieldJWT] = s.Authentication.JWT
	}
	if s.Authentication != nil && s.Authentication.APIKey != nil {
		p.Values[FieldAPIKey] = s.Authentication.APIKey
	}
	if s.RateLimit != nil {
		p.Values[FieldRateLimit] = s.RateLimit
	}
	if s.WAF != nil {
		p.Values[FieldWAF] = s.WAF
	}
	if s.Cache != nil {
		s.Cache.tierOff = !v.settings.Varnish
		p.Values[FieldCache] = s.Cache
	}
	return p
}

// settingsOf reads the deployment's switches from the config; the CLI
// has already refused a malformed haptic: section, so an error here means
// a caller without one and the defaults apply.
func settingsOf(env *policy.Env) Settings {
	if env == nil {
		return DefaultSettings()
	}
	s, err := ParseSettings(env.Config)
	if err != nil {
		return DefaultSettings()
	}
	return s
}

// attachmentFields are the policy-attachment fields other kinds use; this
// kind attaches only through ExtensionRef, so they make the policy invalid
// rather than being ignored as unknown.
var attachmentFields = []string{"targetRefs", "targetRef", "targetSelectors"}

// withoutAttachmentFields drops the attachment fields from unknown: the
// validator reports those as GWP401.
func withoutAttachmentFields(unknown []manifest.UnknownField) []manifest.UnknownField {
	var out []manifest.UnknownField
	for _, u := range unknown {
		if rest, ok := strings.CutPrefix(u.Path, "spec."); ok && isAttachmentField(rest) {
			continue
		}
		out = append(out, u)
	}
	return out
}

func isAttachmentField(path string) bool {
	head, _, _ := strings.Cut(path, ".")
	head, _, _ = strings.Cut(head, "[")
	for _, f := range attachmentFields {
		if head == f {
			return true
		}
	}
	return false
}

// CheckRule implements policy.RuleChecker: a route that also passes TLS
// through (an SSLPassthrough filter, or an ExtensionRef whose name says
// ssl…passthrough, on any of its rules) bypasses HTTP policy enforcement,
// so HAPTIC fails the rule closed (GWP206, IncompatibleFilters, at the
// passthrough filter); a GRPCRoute cannot cache responses, and cannot use
// a WAF policy that buffers request bodies (GWP403); on other routes a
// cache policy needs the deployment's cache tier (GWP402), reported after
// the gRPC restriction as HAPTIC does. The other diagnostics point at the
// policy's offending field.
func (Kind) CheckRule(p *policy.Policy, rt *model.Route) []diag.Diagnostic {
	s, ok := p.Data.(*Spec)
	if !ok || s == nil || rt == nil {
		return nil
	}
	if d, ok := passthroughBeside(p, rt); ok {
		return []diag.Diagnostic{d}
	}
	routeKind := rt.Kind
	if routeKind != "GRPCRoute" {
		if s.Cache != nil && s.Cache.tierOff {
			return []diag.Diagnostic{fieldDiag(p, LintPolicyDependency.Code, "spec.cache",
				"%s %s/%s sets cache, but the HAPTIC deployment's cache tier is disabled (config haptic.cache.varnish.enabled: false); the rule fails closed — enable the cache tier or drop cache", KindName, p.Obj.Namespace, p.Obj.Name)}
		}
		return nil
	}
	var out []diag.Diagnostic
	if s.Cache != nil {
		out = append(out, fieldDiag(p, LintGRPCFeature.Code, "spec.cache",
			"%s %s/%s sets cache, which a GRPCRoute cannot use (gRPC responses are streams); the rule fails closed — drop cache or use a policy without it for gRPC", KindName, p.Obj.Namespace, p.Obj.Name))
	}
	switch w := s.WAF; {
	case w == nil || !w.catalogRead || w.requestBody == "none" || w.requestBody == "":
		// No WAF, a catalog problem already reported as GWP402, or a
		// policy that reads headers only (none, the chart's default mode).
	default:
		out = append(out, fieldDiag(p, LintGRPCFeature.Code, "spec.waf.policy",
			"WAF policy %q buffers request bodies (its catalog entry sets requestBody.mode %s), which a GRPCRoute cannot do; the rule fails closed — use a WAF policy with requestBody.mode none", w.Policy, w.requestBody))
	}
	return out
}

// RuleIdentity is the runtime identity of a route rule: route kind (h for
// HTTPRoute, g for GRPCRoute), namespace, name and rule index, e.g.
// h_shop_orders_0. Namespaces and names cannot contain "_", so the parts
// never run together.
func RuleIdentity(kind, ns, name string, idx int) string {
	prefix := "h"
	if kind == "GRPCRoute" {
		prefix = "g"
	}
	return prefix + "_" + ns + "_" + name + "_" + strconv.Itoa(idx)
}

// PolicyIdentity is the runtime identity of a policy, which keys what all
// its rules share (the rate-limit budget): p_<namespace>_<name>.
func PolicyIdentity(ns, name string) string { return "p_" + ns + "_" + name }

// RuleIdentity implements policy.Identifier.
func (Kind) RuleIdentity(routeKind, ns, name string, rule int) string {
	return RuleIdentity(routeKind, ns, name, rule)
}

// SharedState implements policy.Identifier: only a rate limit is kept per
// policy (its budget); authentication, WAF and cache are per rule.
func (Kind) SharedState(p *policy.Policy) string {
	if _, ok := p.Values[FieldRateLimit]; ok {
		return "one rate-limit budget"
	}
	return ""
}

// PolicyIdentity implements policy.Identifier.
func (Kind) PolicyIdentity(p *policy.Policy) string {
	return PolicyIdentity(p.Obj.Namespace, p.Obj.Name)
}

// brokenReasons are the family's BrokenReasons, HAPTIC's route
// conditions: ResolvedRefs False only where a reference did not resolve —
// PolicyNotFound for a missing policy (or one of a version HAPTIC does
// not watch: Decode), RefNotPermitted for a credential
// Secret the policy may not use (a secretRef without a name or in
// another namespace, a missing or mutable Secret) — and
// IncompatibleFilters for two policies on one rule; every other problem
// (bad values, WAF catalogs, switched-off features, gRPC restrictions) is
// UnsupportedValue with the references resolved.
func brokenReasons(code, field string) (reason, resolvedRefs string) {
	switch {
	case code == policy.LintExtensionRefNotFound.Code, code == model.LintVersionNotServed.Code:
		return "UnsupportedValue", "PolicyNotFound"
	case code == policy.LintDuplicatePolicyFilter.Code:
		return "IncompatibleFilters", ""
	case code == LintPolicyDependency.Code && strings.HasPrefix(field, "spec.authentication."):
		return "UnsupportedValue", "RefNotPermitted"
	}
	return "UnsupportedValue", ""
}

// passthroughName is how HAPTIC recognises an SSL passthrough reference
// by name (44-route-policies.yaml: GatewayPolicyReference), whatever its
// kind.
var passthroughName = regexp.MustCompile(`ssl.*passthrough`)

// passthroughBeside is the finding for policy p used on route rt when rt
// also passes TLS through: HAPTIC (GatewayPolicyReference) fails every
// rule of such a route closed, since the passthrough bypasses HTTP policy
// enforcement.
func passthroughBeside(p *policy.Policy, rt *model.Route) (diag.Diagnostic, bool) {
	for _, rule := range rt.Rules {
		for _, f := range rule.Filters {
			ref := f.ExtensionRef
			if f.Type != "ExtensionRef" || ref == nil || string(ref.Group) == Group && string(ref.Kind) == KindName {
				continue // a policy reference, whatever its name
			}
			if !passthroughRef(string(ref.Kind), string(ref.Name)) {
				continue
			}
			path := f.Path + ".extensionRef"
			d := diag.Diagnostic{Code: policy.LintDuplicatePolicyFilter.Code, Severity: diag.Error, Object: rt.Key().Ref(), Field: path,
				Message: fmt.Sprintf("SSL passthrough bypasses HTTP policy enforcement: %s %s/%s passes TLS through (%s %s at %s) beside %s %s/%s, so HAPTIC fails the rule closed (IncompatibleFilters) — remove the passthrough or use a separate route",
					rt.Kind, rt.Meta.Namespace, rt.Meta.Name, ref.Kind, ref.Name, f.Path, KindName, p.Obj.Namespace, p.Obj.Name)}
			if rt.Src != nil {
				d.Pos = rt.Src.FieldPos(path)
			}
			return d, true
		}
	}
	return diag.Diagnostic{}, false
}
