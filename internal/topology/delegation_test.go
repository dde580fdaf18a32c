package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestDelegationFollowsRules: topology delegates only as the controller's
// DelegationRules say. Without rules a backendRef naming an HTTPRoute
// hands nothing to it; with a controller's own rules (here: select by a
// label through a made-up kind, keep every child rule under the parent's
// match as written, refuse a child named "refused") the tree is linked,
// flattened and reported by them, with the controller's reasons.
func TestDelegationFollowsRules(t *testing.T) {
	parent := httpRoute("infra", "parent", "  parentRefs: [{name: gw}]\n  rules:\n"+
		"  - matches: [{path: {type: PathPrefix, value: /a}}]\n    backendRefs: [{group: example.com, kind: Team, name: blue, namespace: apps}]\n"+
		"  - matches: [{path: {type: PathPrefix, value: /b}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: refused, namespace: apps}]\n")
	child := func(name, team string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: apps, labels: {team: " + team + "}}\nspec:\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /x}}]\n"
	}
	docs := []string{gatewayInfra, parent, child("one", "blue"), child("two", "red"), child("refused", "red")}

	g := graph(t, Options{}, docs...)
	rt := route(t, g, "HTTPRoute/infra/parent")
	if rt.Rules[0].IsDelegating() || rt.Rules[1].IsDelegating() || len(route(t, g, "HTTPRoute/apps/one").DelegatedBy) > 0 {
		t.Fatalf("without DelegationRules a rule delegates")
	}
	if len(rt.Flat) != 2 {
		t.Errorf("without DelegationRules the root serves %d rule × match entries, want its own 2", len(rt.Flat))
	}

	rules := DelegationRules{
		Select: func(b *Backend) (ChildSelector, bool) {
			switch {
			case b.Group == "example.com" && b.Kind == "Team":
				return ChildSelector{Namespace: b.Namespace, Name: b.Name, Label: "team"}, true
			case b.Kind == "HTTPRoute":
				return ChildSelector{Namespace: b.Namespace, Name: b.Name}, true
			}
			return ChildSelector{}, false
		},
		Accepts: func(child, parent *Route) bool { return true },
		Keep: func(child *Route, parent gwv1.HTTPRouteMatch) []KeptRule {
			var out []KeptRule
			for _, r := range child.Rules {
				out = append(out, KeptRule{Rule: r, Matches: []gwv1.HTTPRouteMatch{parent}})
			}
			return out
		},
		Refuse: func(child *Route) (string, string, string) {
			if child.Meta.Name == "refused" {
				return "Refused", "the controller refuses it", "are refused"
			}
			return "", "", ""
		},
		Unresolved: func(parent *Route, b *Backend, cycle *Route) (string, string) {
			return "NoChild", "no child for " + b.Name
		},
		Widen: "ask the controller",
	}
	g = graph(t, Options{Delegation: rules}, docs...)
	rt = route(t, g, "HTTPRoute/infra/parent")
	var got []string
	for _, fm := range rt.Flat {
		_, v := PathOf(fm.Match.Path)
		got = append(got, fmt.Sprintf("%s/%d %s delegates=%v replaced=%v", fm.Route.Meta.Name, fm.RuleIndex, v, fm.Delegates, fm.Replaced != ""))
	}
	want := []string{"one/0 /a delegates=false replaced=false", "parent/0 /a delegates=true replaced=false", "parent/1 /b delegates=true replaced=true"}
	if !slices.Equal(got, want) {
		t.Errorf("flattened:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if b := rt.Rules[1].Backends[0]; b.Resolved || b.Reason != "NoChild" || b.Message != "no child for refused" || b.Why != "HTTPRoute/apps/refused are refused" {
		t.Errorf("refused child's backendRef: resolved %v, %q %q, why %q", b.Resolved, b.Reason, b.Message, b.Why)
	}
	if p := route(t, g, "HTTPRoute/apps/refused").Parents; len(p) != 1 || p[0].Accepted || p[0].Reason != "Refused" {
		t.Errorf("refused child's parents: %+v", p)
	}
	if len(route(t, g, "HTTPRoute/apps/two").DelegatedBy) != 0 {
		t.Errorf("a route of another label value is delegated to")
	}
}
