package kgateway

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

// delegationGraph builds the topology of YAML documents with kgateway's
// route delegation and wildcard, as internal/families passes them in; the
// documents must have no finding but GWP104.
func delegationGraph(t testing.TB, docs ...string) *topology.Graph {
	t.Helper()
	objs, err := manifest.Parse("in.yaml", []byte(strings.Join(docs, "\n---\n")), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Wildcards: wildcards})
	for _, d := range m.Diagnostics {
		if d.Code != "GWP104" {
			t.Fatalf("fixture has a finding: %+v", d)
		}
	}
	return topology.Build(m, topology.Options{Keys: TopologyKeys, Delegation: Delegation})
}

// delegatedRoute finds a route by "Kind/namespace/name".
func delegatedRoute(t *testing.T, g *topology.Graph, id string) *topology.Route {
	t.Helper()
	parts := strings.Split(id, "/")
	r := g.Route(parts[0], parts[1], parts[2])
	if r == nil {
		t.Fatalf("route %s not in the graph", id)
	}
	return r
}

// delegationGateway has an HTTP listener open to every namespace.
const delegationGateway = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes: {namespaces: {from: All}}`

// httpRouteDoc is an HTTPRoute in ns with the given spec lines (indented
// by two spaces).
func httpRouteDoc(ns, name, spec string) string {
	return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n" + spec
}

func match(t *testing.T, y string) gwv1.HTTPRouteMatch {
	t.Helper()
	var m gwv1.HTTPRouteMatch
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestDelegationSelection: a delegating backendRef selects the HTTPRoutes
// of its namespace by name, by "*" or by the delegation label, never a
// route of another namespace or kind, and never the parent itself.
func TestDelegationSelection(t *testing.T) {
	child := func(ns, name, label string) string {
		labels := ""
		if label != "" {
			labels = ", labels: {" + DelegationLabel + ": " + label + "}"
		}
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: " + ns + labels + "}\nspec:\n  rules: [{}]\n"
	}
	grpc := "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: api, namespace: a}\nspec:\n  rules: [{}]\n"
	children := []string{child("a", "api", "team"), child("a", "web", "team"), child("a", "admin", ""), child("b", "api", "team"), grpc}
	tests := []struct {
		ref  string
		want []string
	}{
		{"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: api, namespace: a}", []string{"a/api"}},
		{"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: '*', namespace: a}", []string{"a/admin", "a/api", "a/web"}},
		{"{group: " + DelegationLabelGroup + ", kind: label, name: team, namespace: a}", []string{"a/api", "a/web"}},
		{"{group: " + DelegationLabelGroup + ", kind: label, name: other, namespace: a}", nil},
		{"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: api, namespace: c}", nil},
		{"{group: gateway.networking.k8s.io, kind: HTTPRoute, name: '*', namespace: infra}", nil}, // only the parent itself
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			parent := httpRouteDoc("infra", "parent", "  parentRefs: [{name: gw}]\n  rules:\n  - backendRefs: ["+tt.ref+"]\n")
			g := delegationGraph(t, append([]string{delegationGateway, parent}, children...)...)
			var got []string
			for _, d := range delegatedRoute(t, g, "HTTPRoute/infra/parent").Rules[0].Children {
				got = append(got, d.Child.Meta.Namespace+"/"+d.Child.Meta.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("children = %v, want %v", got, tt.want)
			}
		})
	}
}

// BenchmarkDelegation builds the topology of n parent routes, each
// delegating by name to its own child in one namespace: selection is a
// lookup per reference, not a scan of every route.
func BenchmarkDelegation(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			docs := []string{delegationGateway}
			for i := range n {
				docs = append(docs,
					httpRouteDoc("infra", fmt.Sprintf("parent-%d", i), fmt.Sprintf("  parentRefs: [{name: gw}]\n  hostnames: [h%d.example.com]\n  rules:\n  - backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: child-%d, namespace: apps}]\n", i, i)),
					httpRouteDoc("apps", fmt.Sprintf("child-%d", i), "  rules: [{}]\n"))
			}
			objs, err := manifest.Parse("in.yaml", []byte(strings.Join(docs, "\n---\n")), manifest.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{Wildcards: wildcards})
			b.ResetTimer()
			for b.Loop() {
				topology.Build(m, topology.Options{Delegation: Delegation})
			}
		})
	}
}

// TestDelegationUnresolved: a delegating backendRef no route takes (the
// only candidate names another parent, or the parent in another group)
// leaves the parent's ResolvedRefs False/BackendNotFound; one a child
// takes resolves.
func TestDelegationUnresolved(t *testing.T) {
	parent := httpRouteDoc("infra", "parent", "  parentRefs: [{name: gw}]\n  rules:\n  - backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: '*', namespace: a}]\n")
	tests := []struct {
		name, child string
		want        string
	}{
		{"taken", httpRouteDoc("a", "child", "  parentRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: parent, namespace: infra}]\n  rules: [{}]\n"), "True/ResolvedRefs"},
		{"no child takes it", httpRouteDoc("a", "child", "  parentRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: other, namespace: infra}]\n  rules: [{}]\n"), "False/BackendNotFound"},
		{"the parent named in another group", httpRouteDoc("a", "child", "  parentRefs: [{group: example.com, kind: HTTPRoute, name: parent, namespace: infra}]\n  rules: [{}]\n"), "False/BackendNotFound"},
		{"the parent named without a group (the API's default)", httpRouteDoc("a", "child", "  parentRefs: [{kind: HTTPRoute, name: parent, namespace: infra}]\n  rules: [{}]\n"), "True/ResolvedRefs"},
		{"the parent named beside a Gateway", httpRouteDoc("a", "child", "  parentRefs: [{name: gw, namespace: infra}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: parent, namespace: infra}]\n  rules: [{}]\n"), "True/ResolvedRefs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := delegationGraph(t, delegationGateway, parent, tt.child)
			r := delegatedRoute(t, g, "HTTPRoute/infra/parent")
			c := findCond(topology.RouteParentConditions(r, r.Parents[0]), "ResolvedRefs")
			if got := string(c.Status) + "/" + c.Reason; got != tt.want {
				t.Errorf("ResolvedRefs = %s (%s), want %s", got, c.Message, tt.want)
			}
		})
	}
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
	root := httpRouteDoc("infra", "root", "  parentRefs: [{name: gw}]\n  rules:\n"+
		"  - matches: [{path: {type: PathPrefix, value: /a}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: a, namespace: a}]\n"+
		"  - matches: [{path: {type: PathPrefix, value: /h}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: h, namespace: a}]\n")
	a := httpRouteDoc("a", "a", "  rules:\n"+
		"  - matches: [{path: {type: PathPrefix, value: /other}}]\n"+
		"  - matches: [{path: {type: PathPrefix, value: /a/1}}]\n"+
		"  - matches: [{path: {type: PathPrefix, value: /a/b}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: b, namespace: a}]\n")
	b := httpRouteDoc("a", "b", "  rules:\n  - matches: [{path: {type: PathPrefix, value: /a/b/c}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: a, namespace: a}]\n")
	h := httpRouteDoc("a", "h", "  hostnames: [h.example.com]\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /h/1}}]\n")
	g := delegationGraph(t, delegationGateway, root, a, b, h)
	var got []string
	for _, fm := range delegatedRoute(t, g, "HTTPRoute/infra/root").Flat {
		_, v := topology.PathOf(fm.Match.Path)
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
	ra, rb := delegatedRoute(t, g, "HTTPRoute/a/a"), delegatedRoute(t, g, "HTTPRoute/a/b")
	if ra.Served(ra.Rules[0]) || !ra.Served(ra.Rules[1]) {
		t.Errorf("served: rule 0 %v (outside /a), rule 1 %v", ra.Served(ra.Rules[0]), ra.Served(ra.Rules[1]))
	}
	if bk := rb.Rules[0].Backends[0]; bk.Resolved || bk.Reason != "RefNotPermitted" {
		t.Errorf("cycle backendRef: resolved %v, reason %q, want RefNotPermitted", bk.Resolved, bk.Reason)
	}
	if bk := delegatedRoute(t, g, "HTTPRoute/infra/root").Rules[1].Backends[0]; bk.Reason != "BackendNotFound" {
		t.Errorf("backendRef to the hostname-setting child: reason %q, want BackendNotFound", bk.Reason)
	}
	var parents []string
	for _, id := range []string{"HTTPRoute/a/a", "HTTPRoute/a/b", "HTTPRoute/a/h"} {
		for _, p := range delegatedRoute(t, g, id).Parents {
			parents = append(parents, fmt.Sprintf("%s<-%s %v %s", id, p.Ref.Name, p.Accepted, p.Reason))
		}
	}
	wantParents := []string{"HTTPRoute/a/a<-root true ", "HTTPRoute/a/b<-a true ", "HTTPRoute/a/h<-root false UnsupportedValue"}
	if !slices.Equal(parents, wantParents) {
		t.Errorf("parents = %q, want %q", parents, wantParents)
	}
}

// TestRegexParent: a delegating rule whose path is a RegularExpression.
// A child keeping its own matcher is never kept under it (only a PathPrefix
// parent keeps a child match: utils/delegation IsDelegatedRouteMatch), so
// the backendRef is unresolved. A child inheriting the matcher is served
// with the values joined as paths and its own path type kept
// (MergeParentChildRouteMatch: path.Join; the regex-aware merge of
// kgateway#14329 was closed unmerged): a regex child stays a regex, and a
// PathPrefix or Exact child becomes a literal path holding the parent's
// regex syntax, which kgateway's route validation refuses (validatePath:
// characters outside a URI path), replacing that child entry only.
func TestRegexParent(t *testing.T) {
	parent := func(re string) string {
		return httpRouteDoc("infra", "api", "  parentRefs: [{name: gw}]\n  rules:\n  - matches: [{path: {type: RegularExpression, value: '"+re+"'}}]\n"+
			"    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: kid}]\n")
	}
	child := func(inherit bool, path string) string {
		ann := ""
		if inherit {
			ann = ", annotations: {" + InheritParentMatcher + ": 'true'}"
		}
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: kid, namespace: infra" + ann + "}\nspec:\n  rules:\n" +
			"  - matches: [{path: " + path + "}]\n    backendRefs: [{name: svc, port: 80}]\n"
	}
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{port: 80}]}\n"
	tests := []struct {
		name, parent, child string
		want                []string // served kid entries: type value: problem ("-" none)
		resolved            bool
	}{
		{"a child keeping its matcher is not kept", parent("/v[0-9]+"), child(false, "{type: PathPrefix, value: /v1/orders}"), nil, false},
		{"a regex child is joined into a regex", parent("/v[0-9]+"), child(true, "{type: RegularExpression, value: '/o(.*)'}"),
			[]string{"RegularExpression /v[0-9]+/o(.*): -"}, true},
		{"a prefix child holds the regex syntax literally: replaced", parent("/v[0-9]+"), child(true, "{type: PathPrefix, value: /orders}"),
			[]string{`PathPrefix /v[0-9]+/orders: the "/v[0-9]+/orders" path is invalid: it must only contain valid URI path characters (replaced)`}, true},
		{"an exact child with a query character: replaced", parent("/items?"), child(true, "{type: Exact, value: /x}"),
			[]string{`Exact /items?/x: the "/items?/x" path is invalid: it must only contain valid URI path characters (replaced)`}, true},
		{"a regex of path characters only joins to a valid prefix", parent("/app/.*"), child(true, "{type: PathPrefix, value: /x}"),
			[]string{"PathPrefix /app/.*/x: -"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Parse("in.yaml", []byte(strings.Join([]string{delegationGateway, svc, tt.parent, tt.child}, "\n---\n")), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{Wildcards: wildcards})
			reg := policy.NewRegistry()
			reg.AddFamilies(Family)
			g := topology.Build(m, topology.Options{Keys: TopologyKeys, Delegation: Delegation, RuleChecks: reg.RuleChecks(policy.Config{})})
			api := delegatedRoute(t, g, "HTTPRoute/infra/api")
			var got []string
			for _, fm := range api.Flat {
				if fm.Route.Meta.Name != "kid" {
					continue
				}
				pt, pv := topology.PathOf(fm.Match.Path)
				p := "-"
				if pr := g.ProblemOn(fm.Problems, nil); pr != nil {
					p = pr.Message + " (replaced)"
					if pr.Dropped {
						p = pr.Message + " (dropped)"
					}
				}
				got = append(got, fmt.Sprintf("%s %s: %s", pt, pv, p))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("served:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if b := api.Rules[0].Backends[0]; b.Resolved != tt.resolved {
				t.Errorf("delegating backendRef resolved %v (%s), want %v", b.Resolved, b.Message, tt.resolved)
			}
		})
	}
}

// TestInheritedFilters: kgateway applies a delegating parent rule's
// built-in filters to each child route after the child's own, nearest
// parent first (inheritedFilters): header modifiers and mirrors are
// added, a URLRewrite's hostname and path each only where neither the
// child nor a nearer parent set one; a mirror keeps the backend its
// parent's rule resolved.
func TestInheritedFilters(t *testing.T) {
	parent := func(name, child, filters string) string {
		return httpRouteDoc("infra", name, "  parentRefs: [{name: gw}]\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /p}}]\n    filters: "+filters+"\n"+
			"    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: "+child+"}]\n")
	}
	middle := func(filters string) string {
		return httpRouteDoc("infra", "mid", "  rules:\n  - matches: [{path: {type: PathPrefix, value: /p/m}}]\n    filters: "+filters+"\n"+
			"    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: kid}]\n")
	}
	child := func(filters string) string {
		return httpRouteDoc("infra", "kid", "  rules:\n  - matches: [{path: {type: PathPrefix, value: /p/m/k}}]\n    filters: "+filters+"\n    backendRefs: [{name: svc, port: 80}]\n")
	}
	// prefer gives a route kgateway's inherited-policy-priority.
	prefer := func(doc, route, priority string) string {
		return strings.Replace(doc, "metadata: {name: "+route+", namespace: infra}",
			"metadata: {name: "+route+", namespace: infra, annotations: {"+AnnotationInheritedPriority+": "+priority+"}}", 1)
	}
	session := func(doc, name string) string {
		return strings.Replace(doc, "    backendRefs:", "    sessionPersistence: {sessionName: "+name+"}\n    backendRefs:", 1)
	}
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{port: 80}]}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: shadow, namespace: infra}\nspec: {ports: [{port: 8080}]}\n"
	const (
		setA     = "{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-a, value: parent}]}}"
		respB    = "{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: x-b, value: parent}]}}"
		mirror   = "{type: RequestMirror, requestMirror: {backendRef: {name: shadow, port: 8080}}}"
		hostPath = "{type: URLRewrite, urlRewrite: {hostname: parent.example, path: {type: ReplacePrefixMatch, replacePrefixMatch: /parent}}}"
		pathOnly = "{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /mid}}}"
		hostOnly = "{type: URLRewrite, urlRewrite: {hostname: kid.example}}"
	)
	tests := []struct {
		name string
		docs []string
		want []string // the leaf's inherited filters: type, from (route), what
	}{
		{"header modifiers and a mirror are added",
			[]string{parent("api", "kid", "["+setA+", "+respB+", "+mirror+"]"), child("[{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-a, value: kid}]}}]")},
			[]string{"RequestHeaderModifier from api", "ResponseHeaderModifier from api", "RequestMirror from api to Service infra/shadow:8080 resolved"}},
		{"a child's own hostname keeps the parent's path",
			[]string{parent("api", "kid", "["+hostPath+"]"), child("[" + hostOnly + "]")},
			[]string{"URLRewrite from api: path /parent"}},
		{"a child's whole rewrite takes nothing",
			[]string{parent("api", "kid", "["+hostPath+"]"), child("[{type: URLRewrite, urlRewrite: {hostname: kid.example, path: {type: ReplaceFullPath, replaceFullPath: /k}}}]")},
			nil},
		{"the nearest parent's path, a farther parent's hostname",
			[]string{parent("api", "mid", "["+hostPath+", "+setA+"]"), middle("[" + pathOnly + "]"), child("[]")},
			[]string{"URLRewrite from mid: path /mid", "URLRewrite from api: hostname parent.example", "RequestHeaderModifier from api"}},
		{"a parent preferring itself replaces the child's hostname and path (ShallowMergePreferParent)",
			[]string{prefer(parent("api", "kid", "["+hostPath+"]"), "api", "ShallowMergePreferParent"),
				child("[{type: URLRewrite, urlRewrite: {hostname: kid.example, path: {type: ReplaceFullPath, replaceFullPath: /k}}}]")},
			[]string{"URLRewrite from api: hostname parent.example path /parent"}},
		{"… and under DeepMergePreferParent",
			[]string{prefer(parent("api", "kid", "["+hostPath+"]"), "api", "DeepMergePreferParent"), child("[" + hostOnly + "]")},
			[]string{"URLRewrite from api: hostname parent.example path /parent"}},
		{"DeepMergePreferChild keeps the child's, as the default does",
			[]string{prefer(parent("api", "kid", "["+hostPath+"]"), "api", "DeepMergePreferChild"), child("[" + hostOnly + "]")},
			[]string{"URLRewrite from api: path /parent"}},
		{"a farther parent preferring itself replaces what a nearer one set",
			[]string{prefer(parent("api", "mid", "["+hostPath+"]"), "api", "ShallowMergePreferParent"), middle("[" + pathOnly + "]"), child("[]")},
			[]string{"URLRewrite from mid: path /mid", "URLRewrite from api: hostname parent.example path /parent"}},
		{"a nearer parent preferring itself, a farther one that does not",
			[]string{parent("api", "mid", "["+hostPath+"]"), prefer(middle("["+pathOnly+"]"), "mid", "ShallowMergePreferParent"), child("[" + hostOnly + "]")},
			[]string{"URLRewrite from mid: path /mid"}},
		{"a nearer parent's empty path replacement sets nothing: the farther parent's path reaches the child",
			[]string{parent("api", "mid", "["+hostPath+"]"), middle("[{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: \"\"}}}]"), child("[]")},
			[]string{"URLRewrite from api: hostname parent.example path /parent"}},
		{"header modifiers are added whatever the priority",
			[]string{prefer(parent("api", "kid", "["+setA+"]"), "api", "ShallowMergePreferParent"), child("[]")},
			[]string{"RequestHeaderModifier from api"}},
		{"a parent rule's sessionPersistence reaches a child without one",
			[]string{session(parent("api", "kid", "[]"), "parent-session"), child("[]")},
			[]string{"sessionPersistence from api: parent-session"}},
		{"… not a child with its own",
			[]string{session(parent("api", "kid", "[]"), "parent-session"), session(child("[]"), "kid-session")},
			nil},
		{"… unless the parent prefers itself",
			[]string{prefer(session(parent("api", "kid", "[]"), "parent-session"), "api", "ShallowMergePreferParent"), session(child("[]"), "kid-session")},
			[]string{"sessionPersistence from api: parent-session"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := delegationGraph(t, append([]string{delegationGateway, svc}, tt.docs...)...)
			var got []string
			for _, fm := range delegatedRoute(t, g, "HTTPRoute/infra/api").Flat {
				if fm.Route.Meta.Name != "kid" {
					continue
				}
				for _, in := range fm.Inherited {
					from := "?"
					for _, rt := range g.Routes {
						if slices.Contains(rt.Rules, in.From) {
							from = rt.Meta.Name
						}
					}
					s := string(in.Filter.Type) + " from " + from
					switch rw := in.Filter.URLRewrite; {
					case in.Session != nil:
						s = "sessionPersistence from " + from + ": " + *in.Session.SessionName
					case rw != nil:
						s += ":"
						if rw.Hostname != nil {
							s += " hostname " + string(*rw.Hostname)
						}
						if rw.Path != nil {
							s += " path " + *rw.Path.ReplacePrefixMatch
						}
					case in.Mirror != nil:
						s += fmt.Sprintf(" to %s %s/%s:%d resolved=%v", in.Mirror.Kind, in.Mirror.Namespace, in.Mirror.Name, in.Mirror.Port, in.Mirror.Resolved)
						s = strings.Replace(s, " resolved=true", " resolved", 1)
					}
					got = append(got, s)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("inherited:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
