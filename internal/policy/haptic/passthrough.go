package haptic

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// finish is the family's Finish step for what HAPTIC decides per route,
// not per rule: GatewayPolicyReference (44-route-policies.yaml) gives
// every rule of a route that references a HAProxyRoutePolicy on any rule
// and passes TLS through on any rule the error "SSL passthrough bypasses
// HTTP policy enforcement", so all of them fail closed, and that error
// overwrites every other the rule's references have (IncompatibleFilters;
// the policy is not looked up). A rule using a policy that exists gets it
// from the policy's CheckRule; this breaks the others — a rule with no
// filter, with only the passthrough filter, with an ExtensionRef HAPTIC
// does not support or naming a policy that does not exist — and reports
// each at the rule.
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
			if usesPolicy(in.Attached, rule) {
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

// usesPolicy reports whether a HAProxyRoutePolicy is attached to the rule
// by its ExtensionRef, so the policy's CheckRule has already failed it for
// the route's passthrough (passthroughBeside).
func usesPolicy(att policy.Attachments, rule *topology.Rule) bool {
	for _, a := range att.OnRule(rule) {
		if a.ExtensionRef && a.Policy.Kind.GroupKind() == (Kind{}).GroupKind() {
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

// brokenRank is the Controller's BrokenRank, the order in which
// GatewayPolicyReference and GatewayPolicyRecord (44-route-policies.yaml)
// settle a rule's error. The reference comes first, and a wrong one ends
// the check: the policy is never looked up, so a missing policy or a
// credential it may not use sets no ResolvedRefs reason. Of the reference
// errors, the route's SSL passthrough beside a policy and several
// policies on the rule (GWP206) set IncompatibleFilters, which outranks
// the UnsupportedValue of a policy filter on a backendRef (GWP207) and of
// an ExtensionRef of another kind (any kind but this family's, the
// unknown ones included) — HAPTIC overwrites the error in that order.
func brokenRank(b policy.BrokenRule) int {
	switch {
	case b.Kind == nil || b.Kind.GroupKind() != (Kind{}).GroupKind():
		return 2
	case b.Code == policy.LintDuplicatePolicyFilter.Code:
		return 0
	case b.Code == policy.LintPolicyFilterOnBackend.Code:
		return 1
	}
	return 3 // the policy's own checks
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
