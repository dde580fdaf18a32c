package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// Notes gathers the kind-specific notes for a rule as served on the
// Gateway gw (nil: attached nowhere): runtime identities of
// one-policy-per-rule kinds (policy.Identifier, and the state two rules
// share through one policy), the attached policies that set nothing, and
// the notes of the kinds implementing policy.RuleNoter, in registry
// order — of the policies that take part there (a policy gw's controller
// does not take or does not resolve is left out: onGateway).
func Notes(r *merge.Result) func(*topology.Route, *topology.Rule, *topology.Gateway) []string {
	users := map[*policy.Policy][]string{}
	for _, rp := range r.Routes {
		for _, rule := range rp.Rules {
			for _, a := range r.Attach.Rule[rule.Rule] {
				users[a.Policy] = append(users[a.Policy], rp.Route.Kind+" "+rp.Route.Meta.Namespace+"/"+rp.Route.Meta.Name+" rule "+rule.Rule.Section())
			}
		}
	}
	var noters []policy.Kind
	for _, k := range r.Registry.Kinds() {
		if _, ok := k.(policy.RuleNoter); ok {
			noters = append(noters, k)
		}
	}
	return func(rt *topology.Route, rule *topology.Rule, gw *topology.Gateway) []string {
		var notes []string
		for _, a := range r.Attach.Rule[rule] {
			id, ok := a.Policy.Kind.(policy.Identifier)
			if !ok || !onGateway(r, a, gw) {
				continue
			}
			notes = append(notes, fmt.Sprintf("runtime identity of this rule: %s; policy %s has identity %s",
				id.RuleIdentity(rt.Kind, rt.Meta.Namespace, rt.Meta.Name, rule.Index), a.Policy.ID(), id.PolicyIdentity(a.Policy)))
			if others, shared := users[a.Policy], id.SharedState(a.Policy); len(others) > 1 && shared != "" {
				notes = append(notes, fmt.Sprintf("%s is shared by %d rules (%s); they share %s", a.Policy.ID(), len(others), strings.Join(others, ", "), shared))
			}
		}
		notes = append(notes, noEffectNotes(r, rt, rule, gw)...)
		for _, k := range noters {
			var own merge.Points
			if rp := r.Rule(rule); rp != nil {
				own = r.OnGateway(rp.Own, gw)
			}
			pt := own.Of(k)
			notes = append(notes, k.(policy.RuleNoter).RuleNotes(rule, func(key string) []any {
				if f := pt.Field(key); f != nil {
					return f.Values
				}
				return nil
			})...)
		}
		return notes
	}
}

// noEffectNotes names the policies attached to a rule or its route that
// set nothing: status calls them Attached, and the fields cannot show
// what is not there.
func noEffectNotes(r *merge.Result, rt *topology.Route, rule *topology.Rule, gw *topology.Gateway) []string {
	var notes []string
	for _, a := range slices.Concat(r.Attach.Rule[rule], r.Attach.Route[rt]) {
		if a.Policy.NoEffect() && onGateway(r, a, gw) {
			notes = append(notes, fmt.Sprintf("%s attaches here but sets no field that takes effect: no effect", a.Policy.ID()))
		}
	}
	return slices.Compact(notes)
}

// onGateway reports whether a policy attached to a rule or route takes
// part where the route is served on gw (nil: anywhere): one a rule's
// ExtensionRef names, unless gw's controller does not resolve its kind
// there (attach.Result.RefusedOn); one a targetRef attaches, unless gw's
// controller does not take its kind (attach.Result.Stranger) — the
// decisions merge.Result.LeftOutOn reads.
func onGateway(r *merge.Result, a *attach.Attachment, gw *topology.Gateway) bool {
	if gw == nil {
		return true
	}
	if a.Via == attach.ViaExtensionRef {
		return !r.Attach.RefusedOn(a.Policy.Kind, gw)
	}
	return !r.Attach.Stranger(a.Policy.Kind, gw)
}
