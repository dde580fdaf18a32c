package haptic

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// finish is the family's Finish step for what HAPTIC decides per route,
// not per rule: GatewayPolicyReference (44-route-policies.yaml) gives
// every rule of a route that references a HAProxyRoutePolicy on any rule
// and passes TLS through on any rule the error "SSL passthrough bypasses
// HTTP policy enforcement", so all of them fail closed. The rules that
// reference a policy, or an ExtensionRef HAPTIC does not support, already
// fail by their own checks (the policy's CheckRule, or the unsupported
// filter); this breaks the others — a rule with no filter, or with only
// the passthrough filter — and reports each at the rule.
func finish(in policy.FinishInput) []diag.Diagnostic {
	if in.Graph == nil || in.Attached == nil {
		return nil
	}
	var out []diag.Diagnostic
	for _, rt := range in.Graph.Routes {
		ref, pass := policyAndPassthrough(rt.Route)
		if ref == nil || pass == nil {
			continue
		}
		for _, rule := range rt.Rules {
			if failsOnItsOwn(rule.Rule) {
				continue
			}
			d := passthroughRuleDiag(rt.Route, rule.Rule, ref, pass)
			in.Attached.Break(rule, policy.BrokenRule{Kind: Kind{}, Code: d.Code, Reason: d.Message})
			out = append(out, d)
		}
	}
	return out
}

// policyAndPassthrough returns the first HAProxyRoutePolicy reference and
// the first passthrough filter on any rule of rt (nil when there is none),
// as GatewayPolicyReference looks for them.
func policyAndPassthrough(rt *model.Route) (ref, pass *model.Filter) {
	for _, rule := range rt.Rules {
		for i := range rule.Filters {
			f := &rule.Filters[i]
			switch {
			case f.Type != "ExtensionRef" || f.ExtensionRef == nil:
			case isPolicyRef(f):
				if ref == nil {
					ref = f
				}
			case isPassthrough(f):
				if pass == nil {
					pass = f
				}
			}
		}
	}
	return ref, pass
}

func isPolicyRef(f *model.Filter) bool {
	return string(f.ExtensionRef.Group) == Group && string(f.ExtensionRef.Kind) == KindName
}

// isPassthrough: an SSLPassthrough filter, or an ExtensionRef whose name
// says ssl…passthrough, whatever its kind.
func isPassthrough(f *model.Filter) bool {
	return passthroughRef(string(f.ExtensionRef.Kind), string(f.ExtensionRef.Name))
}

// failsOnItsOwn reports whether a rule already fails closed without the
// route's passthrough: it references a HAProxyRoutePolicy, or an
// ExtensionRef that is not a passthrough filter (unsupported).
func failsOnItsOwn(rule *model.Rule) bool {
	for i := range rule.Filters {
		f := &rule.Filters[i]
		if f.Type == "ExtensionRef" && f.ExtensionRef != nil && (isPolicyRef(f) || !isPassthrough(f)) {
			return true
		}
	}
	return false
}

// ownFilter is the Controller's OwnFilter: an SSL passthrough filter
// (a HAProxyRoutePolicy is a policy, whatever its name),
// which HAPTIC's gateway library turns into TLS passthrough for the
// route's hostnames (22-ssl-passthrough.yaml:
// PublishGatewayHTTPSSLPassthrough) and GatewayPolicyReference does not
// count as an unsupported ExtensionRef.
func ownFilter(group, kind, name string) bool {
	return !(group == Group && kind == KindName) && passthroughRef(kind, name)
}

// passthroughRef: kind SSLPassthrough in any group, or a name that says
// ssl…passthrough whatever the kind.
func passthroughRef(kind, name string) bool {
	return kind == "SSLPassthrough" || passthroughName.MatchString(strings.ToLower(name))
}

// unknownFilterReasons are the Controller's UnknownFilterReasons:
// GatewayPolicyReference fails a rule with an ExtensionRef of another kind
// ("ExtensionRef kind X is unsupported") with reason UnsupportedValue and
// no resolvedReason, and HAPTIC's route status sets ResolvedRefs from the
// backendRefs only (71-status-route.yaml), so ResolvedRefs stays True.
func unknownFilterReasons() (reason, resolvedRefs string) {
	return "UnsupportedValue", ""
}

// passthroughRuleDiag is the finding on a rule that fails closed only
// because its route mixes a policy and a passthrough.
func passthroughRuleDiag(rt *model.Route, rule *model.Rule, ref, pass *model.Filter) diag.Diagnostic {
	d := diag.Diagnostic{Code: policy.LintDuplicatePolicyFilter.Code, Severity: diag.Error, Object: rt.Key().Ref(), Field: rule.Path,
		Message: fmt.Sprintf("SSL passthrough bypasses HTTP policy enforcement: %s %s/%s references %s %s (%s) and passes TLS through (%s %s at %s), so HAPTIC fails every rule of the route closed (IncompatibleFilters), this one included — move the passthrough or the policy to a separate route",
			rt.Kind, rt.Meta.Namespace, rt.Meta.Name, KindName, ref.ExtensionRef.Name, ref.Path, pass.ExtensionRef.Kind, pass.ExtensionRef.Name, pass.Path)}
	if rt.Src != nil {
		d.Pos = rt.Src.FieldPos(rule.Path)
	}
	return d
}
