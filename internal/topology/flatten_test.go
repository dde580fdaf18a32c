package topology

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func match(t *testing.T, y string) gwv1.HTTPRouteMatch {
	t.Helper()
	var m gwv1.HTTPRouteMatch
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestWithinMatch: without matcher inheritance a child match is kept only
// under a PathPrefix parent whose value starts its path (as a string), and
// when it repeats the parent's headers, query params and method.
func TestWithinMatch(t *testing.T) {
	parent := "{path: {type: PathPrefix, value: /a}, headers: [{name: h, value: v}], queryParams: [{name: q, value: v}], method: GET}"
	tests := []struct {
		name, parent, child string
		want                bool
	}{
		{"superset", parent, "{path: {type: Exact, value: /a/1}, headers: [{name: x, value: y}, {name: h, value: v}], queryParams: [{name: q, value: v}], method: GET}", true},
		{"string prefix, not a segment", "{path: {type: PathPrefix, value: /a}}", "{path: {type: PathPrefix, value: /ab}}", true},
		{"outside the prefix", "{path: {type: PathPrefix, value: /a}}", "{path: {type: PathPrefix, value: /b}}", false},
		{"missing header", parent, "{path: {type: PathPrefix, value: /a/1}, queryParams: [{name: q, value: v}], method: GET}", false},
		{"header value differs", parent, "{path: {type: PathPrefix, value: /a/1}, headers: [{name: h, value: w}], queryParams: [{name: q, value: v}], method: GET}", false},
		{"missing query param", parent, "{path: {type: PathPrefix, value: /a/1}, headers: [{name: h, value: v}], method: GET}", false},
		{"other method", parent, "{path: {type: PathPrefix, value: /a/1}, headers: [{name: h, value: v}], queryParams: [{name: q, value: v}], method: PUT}", false},
		{"regex parent", "{path: {type: RegularExpression, value: /a.*}}", "{path: {type: PathPrefix, value: /a/1}}", false},
		{"parent without path matches every path", "{}", "{path: {type: PathPrefix, value: /x}}", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := withinMatch(match(t, tt.parent), match(t, tt.child)); got != tt.want {
				t.Errorf("withinMatch = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestInheritMatch: a child inheriting its parent's matcher is served with
// the paths joined (its own type kept), both sets of headers and query
// params (the parent's winning a shared name, sorted by name), and the
// parent's method over its own.
func TestInheritMatch(t *testing.T) {
	tests := []struct {
		name, parent, child, want string
	}{
		{"paths joined", "{path: {type: PathPrefix, value: /a}}", "{path: {type: Exact, value: /a/1}}",
			"{path: {type: Exact, value: /a/a/1}}"},
		{"child without path", "{path: {type: PathPrefix, value: /x}}", "{method: POST}",
			"{path: {type: PathPrefix, value: /x}, method: POST}"},
		{"root joins to the child", "{path: {type: PathPrefix, value: /}}", "{path: {type: PathPrefix, value: /c}}",
			"{path: {type: PathPrefix, value: /c}}"},
		{"headers and query params merged, parent's method",
			"{path: {type: PathPrefix, value: /x}, headers: [{name: z, value: p}], queryParams: [{name: q, value: p}], method: GET}",
			"{path: {type: PathPrefix, value: /c}, headers: [{name: z, value: c}, {name: a, value: c}], queryParams: [{name: r, value: c}], method: PUT}",
			"{path: {type: PathPrefix, value: /x/c}, headers: [{name: a, value: c}, {name: z, value: p}], queryParams: [{name: q, value: p}, {name: r, value: c}], method: GET}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(match(t, tt.want), inheritMatch(match(t, tt.parent), match(t, tt.child))); diff != "" {
				t.Errorf("inheritMatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFlatten: a root route's delegation tree in kgateway's order — a
// delegating match's kept children before the rule's own entry — with a
// child's kept rules renumbered, a cycle refused (RefNotPermitted, the
// match replaced) and a delegatee setting hostnames refused
// (UnsupportedValue on its parent entry, and BackendNotFound when nothing
// else is kept).
func TestFlatten(t *testing.T) {
	root := httpRoute("infra", "root", "  parentRefs: [{name: gw}]\n  rules:\n"+
		"  - matches: [{path: {type: PathPrefix, value: /a}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: a, namespace: a}]\n"+
		"  - matches: [{path: {type: PathPrefix, value: /h}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: h, namespace: a}]\n")
	a := httpRoute("a", "a", "  rules:\n"+
		"  - matches: [{path: {type: PathPrefix, value: /other}}]\n"+
		"  - matches: [{path: {type: PathPrefix, value: /a/1}}]\n"+
		"  - matches: [{path: {type: PathPrefix, value: /a/b}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: b, namespace: a}]\n")
	b := httpRoute("a", "b", "  rules:\n  - matches: [{path: {type: PathPrefix, value: /a/b/c}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: a, namespace: a}]\n")
	h := httpRoute("a", "h", "  hostnames: [h.example.com]\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /h/1}}]\n")
	g := graph(t, Options{}, gatewayInfra, root, a, b, h)
	var got []string
	for _, fm := range route(t, g, "HTTPRoute/infra/root").Flat {
		_, v := pathOf(fm.Match.Path)
		s := fmt.Sprintf("%s/%d/%d %s", fm.Route.Meta.Name, fm.RuleIndex, fm.MatchIndex, v)
		if fm.Delegates {
			s += " delegates"
		}
		if fm.Replaced != "" {
			s += " replaced"
		}
		got = append(got, s)
	}
	want := []string{"a/0/0 /a/1", "b/0/0 /a/b/c delegates replaced", "a/1/0 /a/b delegates", "root/0/0 /a delegates", "root/1/0 /h delegates replaced"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flattened (-want +got):\n%s", diff)
	}
	ra, rb := route(t, g, "HTTPRoute/a/a"), route(t, g, "HTTPRoute/a/b")
	if ra.Served(ra.Rules[0]) || !ra.Served(ra.Rules[1]) {
		t.Errorf("served: rule 0 %v (outside /a), rule 1 %v", ra.Served(ra.Rules[0]), ra.Served(ra.Rules[1]))
	}
	if bk := rb.Rules[0].Backends[0]; bk.Resolved || bk.Reason != "RefNotPermitted" {
		t.Errorf("cycle backendRef: resolved %v, reason %q, want RefNotPermitted", bk.Resolved, bk.Reason)
	}
	if bk := route(t, g, "HTTPRoute/infra/root").Rules[1].Backends[0]; bk.Reason != "BackendNotFound" {
		t.Errorf("backendRef to the hostname-setting child: reason %q, want BackendNotFound", bk.Reason)
	}
	var parents []string
	for _, id := range []string{"HTTPRoute/a/a", "HTTPRoute/a/b", "HTTPRoute/a/h"} {
		for _, p := range route(t, g, id).Parents {
			parents = append(parents, fmt.Sprintf("%s<-%s %v %s", id, p.Ref.Name, p.Accepted, p.Reason))
		}
	}
	wantParents := []string{"HTTPRoute/a/a<-root true ", "HTTPRoute/a/b<-a true ", "HTTPRoute/a/h<-root false UnsupportedValue"}
	if !slices.Equal(parents, wantParents) {
		t.Errorf("parents = %q, want %q", parents, wantParents)
	}
}
