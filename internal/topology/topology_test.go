package topology

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// graph builds the topology of YAML documents joined into one stream.
func graph(t *testing.T, opt Options, docs ...string) *Graph {
	t.Helper()
	objs, err := manifest.Parse("in.yaml", []byte(strings.Join(docs, "\n---\n")), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// The pipeline registers backend kinds with the model too.
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: opt.BackendKinds})
	for _, d := range m.Diagnostics {
		if d.Code != "GWP104" {
			t.Fatalf("fixture has a finding: %+v", d)
		}
	}
	if opt.Keys == (Keys{}) {
		opt.Keys = kgatewayKeys
	}
	return Build(m, opt)
}

// route finds a route by "Kind/namespace/name".
func route(t *testing.T, g *Graph, id string) *Route {
	t.Helper()
	parts := strings.Split(id, "/")
	r := g.Route(parts[0], parts[1], parts[2])
	if r == nil {
		t.Fatalf("route %s not in the graph", id)
	}
	return r
}

// gatewayInfra has an HTTP listener and a wildcard HTTPS listener open to
// every namespace, and a listener that keeps the default (Same namespace).
const gatewayInfra = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes: {namespaces: {from: All}}
  - name: https
    port: 443
    protocol: HTTPS
    hostname: "*.example.com"
    tls: {certificateRefs: [{name: cert}]}
    allowedRoutes: {namespaces: {from: All}}
  - name: internal
    port: 8080
    protocol: HTTP
---
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: infra}
type: kubernetes.io/tls`

// httpRoute is an HTTPRoute in ns with the given spec lines (indented by
// two spaces) and one backend-free rule.
func httpRoute(ns, name, spec string) string {
	return "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n" + spec
}

type parentWant struct {
	accepted  bool
	reason    string
	listeners []string   // Listener IDs attached to
	hosts     [][]string // per listener; nil entry = any host
}

func listenerIDs(ls []*Listener) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.ID())
	}
	return out
}

func checkParent(t *testing.T, p *Parent, want parentWant) {
	t.Helper()
	if p.Accepted != want.accepted || p.Reason != want.reason {
		t.Errorf("accepted=%v reason=%q (%s), want accepted=%v reason=%q", p.Accepted, p.Reason, p.Message, want.accepted, want.reason)
	}
	if !want.accepted && p.Message == "" {
		t.Error("rejected parentRef has no message")
	}
	if got := listenerIDs(p.Listeners); !slices.Equal(got, want.listeners) {
		t.Errorf("listeners = %v, want %v", got, want.listeners)
	}
	if want.hosts != nil && !slices.EqualFunc(p.Hostnames, want.hosts, slices.Equal) {
		t.Errorf("hostnames = %q, want %q", p.Hostnames, want.hosts)
	}
	if len(p.Hostnames) != len(p.Listeners) {
		t.Errorf("%d hostname sets for %d listeners", len(p.Hostnames), len(p.Listeners))
	}
}

func TestRouteAttachment(t *testing.T) {
	tests := []struct {
		name  string
		docs  []string
		route string
		want  []parentWant
	}{
		{
			name:  "parentRef defaults to a Gateway in the route's namespace",
			docs:  []string{gatewayInfra, httpRoute("infra", "r", "  parentRefs: [{name: gw}]\n")},
			route: "HTTPRoute/infra/r",
			want: []parentWant{{true, "", []string{"infra/gw/http", "infra/gw/https", "infra/gw/internal"},
				[][]string{nil, {"*.example.com"}, nil}}},
		},
		{
			name:  "defaulted namespace is the route's, not the Gateway's",
			docs:  []string{gatewayInfra, httpRoute("apps", "r", "  parentRefs: [{name: gw}]\n")},
			route: "HTTPRoute/apps/r",
			want:  []parentWant{{false, "NoMatchingParent", nil, nil}},
		},
		{
			name: "explicit group, kind and namespace",
			docs: []string{gatewayInfra, httpRoute("apps", "r",
				"  parentRefs: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra, name: gw}]\n")},
			route: "HTTPRoute/apps/r",
			want: []parentWant{{true, "", []string{"infra/gw/http", "infra/gw/https"},
				[][]string{nil, {"*.example.com"}}}},
		},
		{
			name:  "parentRef of another kind",
			docs:  []string{gatewayInfra, httpRoute("infra", "r", "  parentRefs: [{kind: Service, group: \"\", name: gw}]\n")},
			route: "HTTPRoute/infra/r",
			want:  []parentWant{{false, "NoMatchingParent", nil, nil}},
		},
		{
			name:  "sectionName picks one listener",
			docs:  []string{gatewayInfra, httpRoute("apps", "r", "  parentRefs: [{namespace: infra, name: gw, sectionName: https}]\n")},
			route: "HTTPRoute/apps/r",
			want:  []parentWant{{true, "", []string{"infra/gw/https"}, [][]string{{"*.example.com"}}}},
		},
		{
			name:  "sectionName that does not exist",
			docs:  []string{gatewayInfra, httpRoute("apps", "r", "  parentRefs: [{namespace: infra, name: gw, sectionName: grpc}]\n")},
			route: "HTTPRoute/apps/r",
			want:  []parentWant{{false, "NoMatchingParent", nil, nil}},
		},
		{
			name:  "port picks the listeners on it",
			docs:  []string{gatewayInfra, httpRoute("apps", "r", "  parentRefs: [{namespace: infra, name: gw, port: 80}]\n")},
			route: "HTTPRoute/apps/r",
			want:  []parentWant{{true, "", []string{"infra/gw/http"}, [][]string{nil}}},
		},
		{
			name:  "port no listener uses",
			docs:  []string{gatewayInfra, httpRoute("apps", "r", "  parentRefs: [{namespace: infra, name: gw, port: 9999}]\n")},
			route: "HTTPRoute/apps/r",
			want:  []parentWant{{false, "NoMatchingParent", nil, nil}},
		},
		{
			name:  "sectionName and port must both match",
			docs:  []string{gatewayInfra, httpRoute("apps", "r", "  parentRefs: [{namespace: infra, name: gw, sectionName: https, port: 80}]\n")},
			route: "HTTPRoute/apps/r",
			want:  []parentWant{{false, "NoMatchingParent", nil, nil}},
		},
		{
			name: "each parentRef has its own outcome",
			docs: []string{gatewayInfra, httpRoute("apps", "r", `  parentRefs:
  - {namespace: infra, name: gw, sectionName: http}
  - {namespace: infra, name: gw, sectionName: internal}
  - {namespace: infra, name: missing}
`)},
			route: "HTTPRoute/apps/r",
			want: []parentWant{
				{true, "", []string{"infra/gw/http"}, [][]string{nil}},
				{false, "NotAllowedByListeners", nil, nil},
				{false, "NoMatchingParent", nil, nil},
			},
		},
		{
			name:  "allowedRoutes Same (the default) refuses other namespaces",
			docs:  []string{gatewayInfra, httpRoute("apps", "r", "  parentRefs: [{namespace: infra, name: gw, sectionName: internal}]\n")},
			route: "HTTPRoute/apps/r",
			want:  []parentWant{{false, "NotAllowedByListeners", nil, nil}},
		},
		{
			name:  "allowedRoutes Same admits the Gateway's namespace",
			docs:  []string{gatewayInfra, httpRoute("infra", "r", "  parentRefs: [{name: gw, sectionName: internal}]\n")},
			route: "HTTPRoute/infra/r",
			want:  []parentWant{{true, "", []string{"infra/gw/internal"}, [][]string{nil}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph(t, Options{}, tt.docs...)
			r := route(t, g, tt.route)
			if len(r.Parents) != len(tt.want) {
				t.Fatalf("%d parents, want %d", len(r.Parents), len(tt.want))
			}
			for i, w := range tt.want {
				checkParent(t, r.Parents[i], w)
			}
			if r.Attached() != slices.ContainsFunc(tt.want, func(w parentWant) bool { return w.accepted }) {
				t.Errorf("Attached() = %v", r.Attached())
			}
		})
	}
}

func TestParentRefDefaults(t *testing.T) {
	g := graph(t, Options{}, gatewayInfra, httpRoute("apps", "r", "  parentRefs: [{name: gw, sectionName: http}]\n"))
	ref := route(t, g, "HTTPRoute/apps/r").Parents[0].Ref
	if *ref.Group != model.GatewayGroup || *ref.Kind != "Gateway" || *ref.Namespace != "apps" || ref.Name != "gw" || *ref.SectionName != "http" {
		t.Errorf("defaulted ref = group %q kind %q ns %q name %q", *ref.Group, *ref.Kind, *ref.Namespace, ref.Name)
	}
	// The model's parentRef is left as written.
	if mr := g.Model.Route("HTTPRoute", "apps", "r"); mr.ParentRefs[0].Namespace != nil || mr.ParentRefs[0].Kind != nil {
		t.Error("defaulting changed the model's parentRef")
	}
}

func TestProtocolAndKinds(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes: {namespaces: {from: All}}
  - name: tcp
    port: 9000
    protocol: TCP
    allowedRoutes: {namespaces: {from: All}}
  - name: udp
    port: 9001
    protocol: UDP
  - name: grpc-only
    port: 8443
    protocol: HTTP
    allowedRoutes:
      namespaces: {from: All}
      kinds: [{kind: GRPCRoute}]
  - name: http-only
    port: 8080
    protocol: HTTP
    allowedRoutes:
      namespaces: {from: All}
      kinds: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]
  - name: other-group
    port: 8081
    protocol: HTTP
    allowedRoutes:
      namespaces: {from: All}
      kinds: [{group: example.com, kind: HTTPRoute}]`
	grpcRoute := func(section string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: g-" + section + ", namespace: apps}\nspec:\n  parentRefs: [{namespace: infra, name: gw, sectionName: " + section + "}]\n"
	}
	tests := []struct {
		route, section string
		accepted       bool
	}{
		{"HTTPRoute", "http", true},
		{"GRPCRoute", "http", true},
		{"HTTPRoute", "tcp", false},
		{"GRPCRoute", "tcp", false},
		{"HTTPRoute", "grpc-only", false},
		{"GRPCRoute", "grpc-only", true},
		{"HTTPRoute", "http-only", true},
		{"GRPCRoute", "http-only", false},
		{"HTTPRoute", "other-group", false},
	}
	docs := []string{gw}
	for _, tt := range tests {
		if tt.route == "HTTPRoute" {
			docs = append(docs, httpRoute("apps", "h-"+tt.section, "  parentRefs: [{namespace: infra, name: gw, sectionName: "+tt.section+"}]\n"))
		} else {
			docs = append(docs, grpcRoute(tt.section))
		}
	}
	g := graph(t, Options{}, docs...)
	for _, tt := range tests {
		t.Run(tt.route+" on "+tt.section, func(t *testing.T) {
			name := "h-" + tt.section
			if tt.route == "GRPCRoute" {
				name = "g-" + tt.section
			}
			want := parentWant{accepted: true, listeners: []string{"infra/gw/" + tt.section}}
			if !tt.accepted {
				want = parentWant{reason: "NotAllowedByListeners"}
			}
			checkParent(t, route(t, g, tt.route+"/apps/"+name).Parents[0], want)
		})
	}
	// The Gateway API defines route kinds for TCP and UDP listeners: both
	// are accepted until a controller judges them (Controller.Listeners).
	for _, l := range []struct {
		name   string
		status metav1.ConditionStatus
		reason string
	}{{"tcp", metav1.ConditionTrue, "Accepted"}, {"udp", metav1.ConditionTrue, "Accepted"}} {
		c := findCond(g.Gateway("infra", "gw").Listener(l.name).Conditions, "Accepted")
		if c.Status != l.status || c.Reason != l.reason {
			t.Errorf("%s listener Accepted = %+v, want %s/%s", l.name, c, l.status, l.reason)
		}
	}
}

func TestAllowedRoutesNamespaces(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  listeners:
  - name: labelled
    port: 80
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: Selector
        selector: {matchLabels: {expose: "true"}}
  - name: by-name
    port: 81
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: Selector
        selector: {matchLabels: {kubernetes.io/metadata.name: team-b}}
  - name: expression
    port: 82
    protocol: HTTP
    allowedRoutes:
      namespaces:
        from: Selector
        selector:
          matchExpressions: [{key: env, operator: In, values: [prod, staging]}]
  - name: no-selector
    port: 83
    protocol: HTTP
    allowedRoutes: {namespaces: {from: Selector}}
  - name: everything
    port: 84
    protocol: HTTP
    allowedRoutes: {namespaces: {from: Selector, selector: {}}}
  - name: all
    port: 85
    protocol: HTTP
    allowedRoutes: {namespaces: {from: All}}
  - name: same
    port: 86
    protocol: HTTP
    allowedRoutes: {namespaces: {from: Same}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-a, labels: {expose: "true", env: prod}}
---
apiVersion: v1
kind: Namespace
metadata: {name: team-c, labels: {expose: "false", env: dev}}`
	// infra and team-b have no Namespace object: they still carry the name
	// label the API server sets on every namespace, and a selector that
	// needs other labels cannot be decided for them, so their routes are
	// let in and the listener reported (GWP106), once per namespace.
	admitted := map[string][]string{
		"labelled":    {"infra", "team-a", "team-b"},
		"by-name":     {"team-b"},
		"expression":  {"infra", "team-a", "team-b"},
		"no-selector": nil,
		"everything":  {"infra", "team-a", "team-b", "team-c"},
		"all":         {"infra", "team-a", "team-b", "team-c"},
		"same":        {"infra"},
	}
	docs := []string{gw}
	for _, ns := range []string{"infra", "team-a", "team-b", "team-c"} {
		for section := range admitted {
			docs = append(docs, httpRoute(ns, section, "  parentRefs: [{namespace: infra, name: gw, sectionName: "+section+"}]\n"))
		}
	}
	g := graph(t, Options{}, docs...)
	for section, nss := range admitted {
		for _, ns := range []string{"infra", "team-a", "team-b", "team-c"} {
			t.Run(section+"/"+ns, func(t *testing.T) {
				want := parentWant{reason: "NotAllowedByListeners"}
				if slices.Contains(nss, ns) {
					want = parentWant{accepted: true, listeners: []string{"infra/gw/" + section}}
				}
				checkParent(t, route(t, g, "HTTPRoute/"+ns+"/"+section).Parents[0], want)
			})
		}
	}
	var undecided []string
	for _, d := range g.Diagnostics {
		if d.Code == LintNamespaceLabelsUnknown.Code {
			undecided = append(undecided, d.Field+" "+strings.Fields(d.Message)[1])
		}
	}
	slices.Sort(undecided)
	want := []string{
		"spec.listeners[0].allowedRoutes.namespaces.selector infra", "spec.listeners[0].allowedRoutes.namespaces.selector team-b",
		"spec.listeners[2].allowedRoutes.namespaces.selector infra", "spec.listeners[2].allowedRoutes.namespaces.selector team-b",
	}
	if !slices.Equal(undecided, want) {
		t.Errorf("undecided selectors = %q, want %q", undecided, want)
	}
}

func TestHostnameIntersection(t *testing.T) {
	tests := []struct {
		listener string // "" for none
		route    []string
		want     []string // nil with ok = any host
		ok       bool
	}{
		{"*.example.com", []string{"foo.example.com"}, []string{"foo.example.com"}, true},
		{"*.example.com", []string{"a.b.example.com"}, []string{"a.b.example.com"}, true},
		{"*.example.com", []string{"example.com"}, nil, false},
		{"*.example.com", []string{"fooexample.com"}, nil, false},
		{"*.example.com", []string{"foo.example.org"}, nil, false},
		{"*.example.com", []string{"*.example.com"}, []string{"*.example.com"}, true},
		{"*.example.com", []string{"*.foo.example.com"}, []string{"*.foo.example.com"}, true},
		{"*.foo.example.com", []string{"*.example.com"}, []string{"*.foo.example.com"}, true},
		{"*.example.com", []string{"example.com", "foo.example.com", "bar.example.com"}, []string{"bar.example.com", "foo.example.com"}, true},
		{"foo.example.com", []string{"foo.example.com"}, []string{"foo.example.com"}, true},
		{"foo.example.com", []string{"*.example.com"}, []string{"foo.example.com"}, true},
		{"foo.example.com", []string{"*.foo.example.com"}, nil, false},
		{"foo.example.com", []string{"bar.example.com"}, nil, false},
		{"foo.example.com", []string{"*.example.com", "foo.example.com"}, []string{"foo.example.com"}, true},
		{"foo.example.com", nil, []string{"foo.example.com"}, true},
		{"*.example.com", nil, []string{"*.example.com"}, true},
		{"", nil, nil, true},
		{"", []string{"b.example.com", "a.example.com"}, []string{"a.example.com", "b.example.com"}, true},
		{"", []string{"*.example.com"}, []string{"*.example.com"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.listener+" vs "+strings.Join(tt.route, ","), func(t *testing.T) {
			var lh *gwv1.Hostname
			if tt.listener != "" {
				h := gwv1.Hostname(tt.listener)
				lh = &h
			}
			var rh []gwv1.Hostname
			for _, h := range tt.route {
				rh = append(rh, gwv1.Hostname(h))
			}
			got, ok := intersect(lh, rh)
			if ok != tt.ok || !slices.Equal(got, tt.want) {
				t.Errorf("intersect = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestHostnameAttachment(t *testing.T) {
	g := graph(t, Options{}, gatewayInfra,
		httpRoute("apps", "foo", "  parentRefs: [{namespace: infra, name: gw}]\n  hostnames: [foo.example.com]\n"),
		httpRoute("apps", "apex", "  parentRefs: [{namespace: infra, name: gw}]\n  hostnames: [example.com]\n"),
		httpRoute("apps", "apex-https", "  parentRefs: [{namespace: infra, name: gw, sectionName: https}]\n  hostnames: [example.com]\n"),
		httpRoute("apps", "deep", "  parentRefs: [{namespace: infra, name: gw, sectionName: https}]\n  hostnames: [a.b.example.com, other.org]\n"),
	)
	checkParent(t, route(t, g, "HTTPRoute/apps/foo").Parents[0], parentWant{true, "",
		[]string{"infra/gw/http", "infra/gw/https"}, [][]string{{"foo.example.com"}, {"foo.example.com"}}})
	// example.com matches the catch-all HTTP listener but not *.example.com.
	checkParent(t, route(t, g, "HTTPRoute/apps/apex").Parents[0], parentWant{true, "",
		[]string{"infra/gw/http"}, [][]string{{"example.com"}}})
	checkParent(t, route(t, g, "HTTPRoute/apps/apex-https").Parents[0], parentWant{false, "NoMatchingListenerHostname", nil, nil})
	checkParent(t, route(t, g, "HTTPRoute/apps/deep").Parents[0], parentWant{true, "",
		[]string{"infra/gw/https"}, [][]string{{"a.b.example.com"}}})

	// The listener side: attachments are sorted and carry the hostnames.
	https := g.Gateway("infra", "gw").Listener("https")
	var names []string
	for _, a := range https.Routes {
		names = append(names, a.Route.Meta.Name)
		if a.Parent.Gateway != g.Gateway("infra", "gw") {
			t.Errorf("%s: attachment parent gateway = %v", a.Route.Meta.Name, a.Parent.Gateway)
		}
	}
	if !slices.Equal(names, []string{"deep", "foo"}) {
		t.Errorf("https listener routes = %v", names)
	}
	if c := RouteParentConditions(route(t, g, "HTTPRoute/apps/apex-https"), route(t, g, "HTTPRoute/apps/apex-https").Parents[0]); c[0].Status != metav1.ConditionFalse || c[0].Reason != "NoMatchingListenerHostname" {
		t.Errorf("Accepted condition = %+v", c[0])
	}
}

const backendFixtures = `apiVersion: v1
kind: Service
metadata: {name: web, namespace: apps}
spec: {ports: [{name: http, port: 8080}]}
---
apiVersion: v1
kind: Service
metadata: {name: shared, namespace: backends}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: private}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: ext, namespace: apps}
spec: {type: ExternalName, externalName: api.example.org}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: apps-to-backends, namespace: backends}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: apps}]
  to: [{group: "", kind: Service}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata: {name: lambda, namespace: apps}`

func TestBackendRefs(t *testing.T) {
	tests := []struct {
		name     string
		ref      string
		resolved bool
		reason   string
	}{
		{"Service in the route's namespace", "{name: web, port: 8080}", true, ""},
		{"explicit core group and kind", `{group: "", kind: Service, name: web, port: 8080}`, true, ""},
		{"missing Service", "{name: nope, port: 80}", false, "BackendNotFound"},
		{"no port", "{name: web}", false, "UnsupportedValue"},
		{"port the Service lacks", "{name: web, port: 9090}", false, "BackendNotFound"},
		{"ExternalName takes any port", "{name: ext, port: 443}", true, ""},
		{"cross-namespace with a ReferenceGrant", "{name: shared, namespace: backends, port: 80}", true, ""},
		{"cross-namespace without a ReferenceGrant", "{name: other, namespace: private, port: 80}", false, "RefNotPermitted"},
		{"unsupported kind", "{group: example.com, kind: Thing, name: x}", false, "InvalidKind"},
		{"registered backend kind", "{group: gateway.kgateway.dev, kind: Backend, name: lambda}", true, ""},
		{"registered backend kind, missing object", "{group: gateway.kgateway.dev, kind: Backend, name: nope}", false, "BackendNotFound"},
		{"backend kind that defines its ports, with a port", "{group: gateway.kgateway.dev, kind: Backend, name: lambda, port: 8080}", false, "BackendNotFound"},
		// Backends an extension plugin registers are not objects of the
		// input: found by namespace, name and port together.
		{"extension backend", "{kind: plugin-backend, name: ext, port: 80}", true, ""},
		{"extension backend in another namespace, no ReferenceGrant", "{kind: plugin-backend, name: ext, namespace: backends, port: 80}", false, "RefNotPermitted"},
		{"extension backend, another port", "{kind: plugin-backend, name: ext, port: 81}", false, "BackendNotFound"},
		{"extension backend, no port", "{kind: plugin-backend, name: ext}", false, "BackendNotFound"},
		{"extension backend, another name", "{kind: plugin-backend, name: other, port: 80}", false, "BackendNotFound"},
		{"extension kind in another group", "{group: example.com, kind: plugin-backend, name: ext, port: 80}", false, "InvalidKind"},
	}
	docs := []string{gatewayInfra, backendFixtures}
	for i, tt := range tests {
		docs = append(docs, httpRoute("apps", "r"+strings.Repeat("x", i),
			"  parentRefs: [{namespace: infra, name: gw, sectionName: http}]\n  rules:\n  - backendRefs: ["+tt.ref+"]\n"))
	}
	backend := model.GroupKind{Group: "gateway.kgateway.dev", Kind: "Backend"}
	opt := Options{BackendKinds: map[model.GroupKind]bool{backend: true}, PortlessBackendKinds: map[model.GroupKind]bool{backend: true},
		ExtensionBackends: []ExtensionBackend{{Kind: "plugin-backend", Namespace: "apps", Name: "ext", Port: 80}, {Kind: "plugin-backend", Namespace: "backends", Name: "ext", Port: 80}}}
	g := graph(t, opt, docs...)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := route(t, g, "HTTPRoute/apps/r"+strings.Repeat("x", i))
			b := r.Rules[0].Backends[0]
			if b.Resolved != tt.resolved || b.Reason != tt.reason {
				t.Errorf("resolved=%v reason=%q (%s), want %v %q", b.Resolved, b.Reason, b.Message, tt.resolved, tt.reason)
			}
			// A bad backend does not stop the route from attaching.
			if !r.Parents[0].Accepted {
				t.Errorf("route not accepted: %s", r.Parents[0].Reason)
			}
			conds := RouteParentConditions(r, r.Parents[0])
			refs := findCond(conds, "ResolvedRefs")
			if wantStatus := metav1.ConditionStatus(map[bool]string{true: "True", false: "False"}[tt.resolved]); refs.Status != wantStatus {
				t.Errorf("ResolvedRefs = %+v", refs)
			}
			if !tt.resolved && refs.Reason != tt.reason {
				t.Errorf("ResolvedRefs reason = %q, want %q", refs.Reason, tt.reason)
			}
			if findCond(conds, "Accepted").Status != metav1.ConditionTrue {
				t.Errorf("Accepted = %+v", findCond(conds, "Accepted"))
			}
			if b.Extension != (tt.resolved && strings.HasPrefix(tt.name, "extension")) {
				t.Errorf("Extension = %v", b.Extension)
			}
		})
	}
	// Defaults on the resolved backend.
	b := route(t, g, "HTTPRoute/apps/r").Rules[0].Backends[0]
	if b.Group != "" || b.Kind != "Service" || b.Namespace != "apps" || b.Name != "web" || b.Port != 8080 || b.Service == nil {
		t.Errorf("backend = %+v", b)
	}
	if b.Path != "spec.rules[0].backendRefs[0]" {
		t.Errorf("backend path %q", b.Path)
	}
}

func TestBackendGrantIsPerRouteKind(t *testing.T) {
	g := graph(t, Options{}, gatewayInfra, backendFixtures,
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: g, namespace: apps}\nspec:\n  parentRefs: [{namespace: infra, name: gw, sectionName: http}]\n  rules:\n  - backendRefs: [{name: shared, namespace: backends, port: 80}]\n")
	b := route(t, g, "GRPCRoute/apps/g").Rules[0].Backends[0]
	if b.Resolved || b.Reason != "RefNotPermitted" {
		t.Errorf("GRPCRoute through an HTTPRoute grant: resolved=%v reason=%q", b.Resolved, b.Reason)
	}
}

const listenerSetFixture = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    hostname: gw.example.com
    allowedRoutes: {namespaces: {from: All}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: team, namespace: team-a}
spec:
  parentRef: {name: gw, namespace: infra}
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    hostname: team-a.example.com
  - name: extra
    port: 8080
    protocol: HTTP`

func TestListenerSets(t *testing.T) {
	g := graph(t, Options{}, listenerSetFixture,
		httpRoute("team-a", "via-set", "  parentRefs: [{kind: ListenerSet, name: team}]\n"),
		httpRoute("team-a", "via-set-section", "  parentRefs: [{kind: ListenerSet, name: team, sectionName: extra}]\n"),
		httpRoute("team-a", "via-gateway", "  parentRefs: [{namespace: infra, name: gw}]\n"),
		httpRoute("team-a", "both", "  parentRefs: [{kind: ListenerSet, name: team, sectionName: http}, {namespace: infra, name: gw, sectionName: http}]\n"),
		httpRoute("team-a", "set-section-missing", "  parentRefs: [{kind: ListenerSet, name: team, sectionName: nope}]\n"),
		httpRoute("team-a", "missing-set", "  parentRefs: [{kind: ListenerSet, name: nope}]\n"),
		httpRoute("team-b", "other-ns", "  parentRefs: [{kind: ListenerSet, name: team, namespace: team-a}]\n"),
	)
	gw := g.Gateway("infra", "gw")
	set := g.ListenerSet("team-a", "team")
	if set == nil || !set.Accepted || set.Parent != gw || !slices.Contains(gw.Sets, set) {
		t.Fatalf("ListenerSet = %+v", set)
	}
	if got := listenerIDs(gw.Listeners); !slices.Equal(got, []string{"infra/gw/http", "team-a/team/http", "team-a/team/extra"}) {
		t.Errorf("merged listeners = %v", got)
	}
	l := set.Listener("http")
	if l == nil || l.Set != set || l.Gateway != gw || l.Ancestor() != set.Key() || l.Index != 0 {
		t.Fatalf("set listener = %+v", l)
	}
	if gw.Listener("http").Ancestor() != gw.Key() || gw.Listener("extra") != nil {
		t.Error("Gateway.Listener must find only the Gateway's own listeners")
	}
	checkParent(t, route(t, g, "HTTPRoute/team-a/via-set").Parents[0], parentWant{true, "",
		[]string{"team-a/team/http", "team-a/team/extra"}, [][]string{{"team-a.example.com"}, nil}})
	checkParent(t, route(t, g, "HTTPRoute/team-a/via-set-section").Parents[0], parentWant{true, "",
		[]string{"team-a/team/extra"}, [][]string{nil}})
	// A route on the Gateway attaches to its own listeners only (GEP-1713).
	checkParent(t, route(t, g, "HTTPRoute/team-a/via-gateway").Parents[0], parentWant{true, "",
		[]string{"infra/gw/http"}, [][]string{{"gw.example.com"}}})
	both := route(t, g, "HTTPRoute/team-a/both")
	checkParent(t, both.Parents[0], parentWant{true, "", []string{"team-a/team/http"}, nil})
	checkParent(t, both.Parents[1], parentWant{true, "", []string{"infra/gw/http"}, nil})
	if both.Parents[0].Gateway != gw {
		t.Error("a ListenerSet parent resolves to its Gateway")
	}
	checkParent(t, route(t, g, "HTTPRoute/team-a/set-section-missing").Parents[0], parentWant{false, "NoMatchingParent", nil, nil})
	checkParent(t, route(t, g, "HTTPRoute/team-a/missing-set").Parents[0], parentWant{false, "NoMatchingParent", nil, nil})
	// allowedRoutes Same on a ListenerSet listener means the set's namespace.
	checkParent(t, route(t, g, "HTTPRoute/team-b/other-ns").Parents[0], parentWant{false, "NotAllowedByListeners", nil, nil})
}

func TestListenerSetAllowedListeners(t *testing.T) {
	set := func(ns string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: ls, namespace: " + ns + "}\nspec:\n  parentRef: {name: gw, namespace: infra}\n  listeners: [{name: l, port: 8080, protocol: HTTP}]\n"
	}
	gateway := func(allowed string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: cls\n" + allowed + "  listeners: [{name: http, port: 80, protocol: HTTP}]\n"
	}
	ns := "apiVersion: v1\nkind: Namespace\nmetadata: {name: team-a, labels: {gateway-access: \"yes\"}}\n"
	tests := []struct {
		name, allowed, setNS string
		accepted             bool
	}{
		{"no allowedListeners: none by default", "", "infra", false},
		{"from None", "  allowedListeners: {namespaces: {from: None}}\n", "infra", false},
		{"from Same, same namespace", "  allowedListeners: {namespaces: {from: Same}}\n", "infra", true},
		{"from Same, other namespace", "  allowedListeners: {namespaces: {from: Same}}\n", "team-a", false},
		{"from All", "  allowedListeners: {namespaces: {from: All}}\n", "team-a", true},
		{"from Selector, matching", "  allowedListeners: {namespaces: {from: Selector, selector: {matchLabels: {gateway-access: \"yes\"}}}}\n", "team-a", true},
		{"from Selector, not matching", "  allowedListeners: {namespaces: {from: Selector, selector: {matchLabels: {gateway-access: \"yes\"}}}}\n", "team-b", false},
		{"from Selector without selector", "  allowedListeners: {namespaces: {from: Selector}}\n", "team-a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph(t, Options{}, gateway(tt.allowed), set(tt.setNS), ns,
				httpRoute(tt.setNS, "r", "  parentRefs: [{kind: ListenerSet, name: ls}]\n"))
			s := g.ListenerSet(tt.setNS, "ls")
			if s.Accepted != tt.accepted {
				t.Errorf("ListenerSet accepted = %v (%s %s), want %v", s.Accepted, s.Reason, s.Message, tt.accepted)
			}
			gw := g.Gateway("infra", "gw")
			if got := len(gw.Listeners); got != map[bool]int{true: 2, false: 1}[tt.accepted] {
				t.Errorf("Gateway has %d listeners", got)
			}
			p := route(t, g, "HTTPRoute/"+tt.setNS+"/r").Parents[0]
			if tt.accepted {
				checkParent(t, p, parentWant{true, "", []string{tt.setNS + "/ls/l"}, nil})
			} else {
				if s.Reason != "NotAllowed" || s.Parent != nil {
					t.Errorf("refused set: reason %q parent %v", s.Reason, s.Parent)
				}
				checkParent(t, p, parentWant{false, "NoMatchingParent", nil, nil})
			}
		})
	}
	g := graph(t, Options{}, set("infra"))
	if s := g.ListenerSet("infra", "ls"); s.Accepted || s.Reason != "NoMatchingParent" {
		t.Errorf("ListenerSet without its Gateway: %+v", s)
	}
}

func findCond(conds []metav1.Condition, typ string) metav1.Condition {
	for _, c := range conds {
		if c.Type == typ {
			return c
		}
	}
	return metav1.Condition{Type: typ, Reason: "<missing>"}
}

func TestListenerConditions(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  listeners:
  - name: http
    port: 80
    protocol: HTTP
  - name: good-cert
    port: 443
    protocol: HTTPS
    hostname: a.example.com
    tls: {certificateRefs: [{name: cert}]}
  - name: missing-cert
    port: 443
    protocol: HTTPS
    hostname: b.example.com
    tls: {certificateRefs: [{name: nope}]}
  - name: no-refs
    port: 443
    protocol: HTTPS
    hostname: c.example.com
    tls: {mode: Terminate}
  - name: no-tls
    port: 443
    protocol: HTTPS
    hostname: notls.example.com
  - name: granted
    port: 443
    protocol: HTTPS
    hostname: d.example.com
    tls: {certificateRefs: [{name: shared-cert, namespace: certs}]}
  - name: not-granted
    port: 443
    protocol: HTTPS
    hostname: e.example.com
    tls: {certificateRefs: [{name: private-cert, namespace: private}]}
  - name: wrong-kind
    port: 443
    protocol: HTTPS
    hostname: f.example.com
    tls: {certificateRefs: [{kind: ConfigMap, name: cert}]}
  - name: second-bad
    port: 443
    protocol: HTTPS
    hostname: g.example.com
    tls: {certificateRefs: [{name: cert}, {name: nope}]}
---
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: infra}
---
apiVersion: v1
kind: Secret
metadata: {name: shared-cert, namespace: certs}
---
apiVersion: v1
kind: Secret
metadata: {name: private-cert, namespace: private}
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: gw-certs, namespace: certs}
spec:
  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]
  to: [{group: "", kind: Secret}]`
	g := graph(t, Options{}, gw)
	// kgateway serves an HTTPS listener with the certificates that
	// resolve: with none it is neither accepted nor programmed (and not
	// served); with some it is both, reported Invalid.
	tests := []struct {
		listener string
		refs     bool
		reason   string
		accepted string // Accepted's status/reason; Programmed's follows it
	}{
		{"http", true, "ResolvedRefs", "True/Accepted"},
		{"good-cert", true, "ResolvedRefs", "True/Accepted"},
		{"missing-cert", false, "InvalidCertificateRef", "False/Invalid"},
		{"no-refs", false, "InvalidCertificateRef", "False/Invalid"},
		{"no-tls", true, "ResolvedRefs", "True/Accepted"},
		{"granted", true, "ResolvedRefs", "True/Accepted"},
		{"not-granted", false, "RefNotPermitted", "False/Invalid"},
		{"wrong-kind", false, "InvalidCertificateRef", "False/Invalid"},
		{"second-bad", false, "InvalidCertificateRef", "True/Invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.listener, func(t *testing.T) {
			l := g.Gateway("infra", "gw").Listener(tt.listener)
			refs := findCond(l.Conditions, "ResolvedRefs")
			wantStatus := metav1.ConditionTrue
			if !tt.refs {
				wantStatus = metav1.ConditionFalse
			}
			if refs.Status != wantStatus || refs.Reason != tt.reason {
				t.Errorf("ResolvedRefs = %s/%s (%s), want %s/%s", refs.Status, refs.Reason, refs.Message, wantStatus, tt.reason)
			}
			a := findCond(l.Conditions, "Accepted")
			if got := string(a.Status) + "/" + a.Reason; got != tt.accepted {
				t.Errorf("Accepted = %s (%s), want %s", got, a.Message, tt.accepted)
			}
			st, reason, _ := strings.Cut(tt.accepted, "/")
			if reason == "Accepted" {
				reason = "Programmed"
			}
			programmed := findCond(l.Conditions, "Programmed")
			if got := string(programmed.Status) + "/" + programmed.Reason; got != st+"/"+reason {
				t.Errorf("Programmed = %s, want %s/%s", got, st, reason)
			}
			if served := l.Unserved == ""; served != (st == "True") {
				t.Errorf("served = %v (%q), want %v", served, l.Unserved, st == "True")
			}
			if c := findCond(l.Conditions, "Conflicted"); c.Status != metav1.ConditionFalse || c.Reason != "NoConflicts" {
				t.Errorf("Conflicted = %+v", c)
			}
		})
	}
}

func TestListenerSetCertificateGrant(t *testing.T) {
	// A grant to the Gateway does not extend to a ListenerSet's listeners.
	g := graph(t, Options{}, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  allowedListeners: {namespaces: {from: All}}
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: ls, namespace: team}
spec:
  parentRef: {name: gw, namespace: infra}
  listeners:
  - name: own
    port: 443
    protocol: HTTPS
    hostname: own.example.com
    tls: {certificateRefs: [{name: team-cert}]}
  - name: gateway-grant
    port: 443
    protocol: HTTPS
    hostname: gw.example.com
    tls: {certificateRefs: [{name: cert, namespace: certs}]}
---
apiVersion: v1
kind: Secret
metadata: {name: team-cert, namespace: team}
---
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: certs}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: gw-certs, namespace: certs}
spec:
  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}]
  to: [{group: "", kind: Secret}]`)
	s := g.ListenerSet("team", "ls")
	if c := findCond(s.Listener("own").Conditions, "ResolvedRefs"); c.Status != metav1.ConditionTrue {
		t.Errorf("own cert: %+v", c)
	}
	if c := findCond(s.Listener("gateway-grant").Conditions, "ResolvedRefs"); c.Status != metav1.ConditionFalse || c.Reason != "RefNotPermitted" {
		t.Errorf("cert granted to the Gateway only: %+v", c)
	}
}

func TestConflictedListeners(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes: {namespaces: {from: All}}
  - name: https-on-80
    port: 80
    protocol: HTTPS
    hostname: x.example.com
    tls: {certificateRefs: [{name: cert}]}
  - name: a
    port: 8080
    protocol: HTTP
    hostname: a.example.com
  - name: a-again
    port: 8080
    protocol: HTTP
    hostname: a.example.com
  - name: b
    port: 8080
    protocol: HTTP
    hostname: b.example.com
  - name: https
    port: 443
    protocol: HTTPS
    hostname: s.example.com
    tls: {certificateRefs: [{name: cert}]}
  - name: tls
    port: 443
    protocol: TLS
    hostname: t.example.com
    tls: {mode: Passthrough}
---
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: infra}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: early, namespace: team-a}
spec:
  parentRef: {name: gw, namespace: infra}
  listeners:
  - {name: dup-gateway, port: 8080, protocol: HTTP, hostname: b.example.com}
  - {name: shared, port: 9090, protocol: HTTP, hostname: shared.example.com}
  - {name: proto, port: 443, protocol: HTTP, hostname: p.example.com}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: late, namespace: team-b}
spec:
  parentRef: {name: gw, namespace: infra}
  listeners:
  - {name: shared, port: 9090, protocol: HTTP, hostname: shared.example.com}
  - {name: distinct, port: 9090, protocol: HTTP, hostname: other.example.com}`
	g := graph(t, Options{}, gw,
		httpRoute("infra", "on-http", "  parentRefs: [{name: gw, sectionName: http}]\n"),
		httpRoute("team-a", "on-early", "  parentRefs: [{kind: ListenerSet, name: early, sectionName: shared}]\n"),
		httpRoute("team-b", "on-late", "  parentRefs: [{kind: ListenerSet, name: late, sectionName: shared}]\n"),
	)
	gateway := g.Gateway("infra", "gw")
	tests := []struct {
		listener *Listener
		reason   string // "" = not conflicted
	}{
		// Within the Gateway no conflicting listener wins: all are Conflicted.
		{gateway.Listener("http"), "ProtocolConflict"},
		{gateway.Listener("https-on-80"), "ProtocolConflict"},
		{gateway.Listener("a"), "HostnameConflict"},
		{gateway.Listener("a-again"), "HostnameConflict"},
		{gateway.Listener("b"), ""},
		// HTTPS and TLS may share a port.
		{gateway.Listener("https"), ""},
		{gateway.Listener("tls"), ""},
		// Across resources the earlier one in precedence keeps its place.
		{g.ListenerSet("team-a", "early").Listener("dup-gateway"), "HostnameConflict"},
		{g.ListenerSet("team-a", "early").Listener("shared"), ""},
		{g.ListenerSet("team-a", "early").Listener("proto"), "ProtocolConflict"},
		{g.ListenerSet("team-b", "late").Listener("shared"), "HostnameConflict"},
		{g.ListenerSet("team-b", "late").Listener("distinct"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.listener.ID(), func(t *testing.T) {
			l := tt.listener
			if l.Conflicted != (tt.reason != "") || l.ConflictReason != tt.reason {
				t.Errorf("Conflicted = %v %q, want %q", l.Conflicted, l.ConflictReason, tt.reason)
			}
			c, a := findCond(l.Conditions, "Conflicted"), findCond(l.Conditions, "Accepted")
			if tt.reason == "" {
				if c.Status != metav1.ConditionFalse || c.Reason != "NoConflicts" {
					t.Errorf("Conflicted condition = %+v", c)
				}
				return
			}
			if c.Status != metav1.ConditionTrue || c.Reason != tt.reason {
				t.Errorf("Conflicted condition = %+v, want True/%s", c, tt.reason)
			}
			if a.Status != metav1.ConditionFalse || findCond(l.Conditions, "Programmed").Status != metav1.ConditionFalse {
				t.Errorf("a Conflicted listener is Accepted=%s Programmed=%s", a.Status, findCond(l.Conditions, "Programmed").Status)
			}
		})
	}
	// Routes do not attach to Conflicted listeners.
	checkParent(t, route(t, g, "HTTPRoute/infra/on-http").Parents[0], parentWant{false, "NotAllowedByListeners", nil, nil})
	checkParent(t, route(t, g, "HTTPRoute/team-a/on-early").Parents[0], parentWant{true, "", []string{"team-a/early/shared"}, nil})
	checkParent(t, route(t, g, "HTTPRoute/team-b/on-late").Parents[0], parentWant{false, "NotAllowedByListeners", nil, nil})
	// The Gateway reports that some of its listeners are not valid.
	if c := findCond(GatewayConditions(g, gateway), "Accepted"); c.Reason != "ListenersNotValid" {
		t.Errorf("Gateway Accepted = %+v", c)
	}
}

// TestGatewayConditions: a Gateway whose class the input holds is
// Accepted and Programmed; one whose class is missing is assumed served
// when the input has no GatewayClass at all, and Pending (Unknown) when
// the input's classes are all others' — render leaves it out then.
func TestGatewayConditions(t *testing.T) {
	class := func(name string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: " + name + "}\nspec: {controllerName: kgateway.dev/kgateway}"
	}
	tests := []struct {
		name                 string
		docs                 []string
		accepted, programmed string // Status/Reason
	}{
		{"class in the input", []string{gatewayInfra, class("cls")}, "True/Accepted", "True/Programmed"},
		{"no class in the input", []string{gatewayInfra}, "True/Accepted", "True/Programmed"},
		{"only other classes", []string{gatewayInfra, class("other")}, "Unknown/Pending", "Unknown/Pending"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph(t, Options{}, tt.docs...)
			conds := GatewayConditions(g, g.Gateway("infra", "gw"))
			if a := findCond(conds, "Accepted"); string(a.Status)+"/"+a.Reason != tt.accepted {
				t.Errorf("Accepted = %+v, want %s", a, tt.accepted)
			}
			if p := findCond(conds, "Programmed"); string(p.Status)+"/"+p.Reason != tt.programmed {
				t.Errorf("Programmed = %+v, want %s", p, tt.programmed)
			}
		})
	}
}

func TestGatewayWithoutListeners(t *testing.T) {
	g := graph(t, Options{}, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  listeners: []`, httpRoute("infra", "r", "  parentRefs: [{name: gw}]\n"))
	checkParent(t, route(t, g, "HTTPRoute/infra/r").Parents[0], parentWant{false, "NoMatchingParent", nil, nil})
}

func TestGraphOrderAndLookups(t *testing.T) {
	g := graph(t, Options{},
		strings.ReplaceAll(strings.Split(gatewayInfra, "\n---\n")[0], "name: gw,", "name: zz,"),
		gatewayInfra,
		httpRoute("b", "r", "  parentRefs: []\n"),
		httpRoute("a", "r", "  parentRefs: []\n"),
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: g, namespace: z}\nspec: {}\n",
	)
	var gws, routes []string
	for _, gw := range g.Gateways {
		gws = append(gws, gw.Namespace+"/"+gw.Name)
	}
	for _, r := range g.Routes {
		routes = append(routes, r.Kind+"/"+r.Meta.Namespace+"/"+r.Meta.Name)
	}
	if !slices.Equal(gws, []string{"infra/gw", "infra/zz"}) {
		t.Errorf("Gateways = %v", gws)
	}
	if !slices.Equal(routes, []string{"GRPCRoute/z/g", "HTTPRoute/a/r", "HTTPRoute/b/r"}) {
		t.Errorf("Routes = %v", routes)
	}
	if g.Gateway("infra", "nope") != nil || g.Route("HTTPRoute", "a", "nope") != nil || g.ListenerSet("a", "b") != nil {
		t.Error("lookups of missing objects must return nil")
	}
	if r := route(t, g, "HTTPRoute/a/r"); r.Attached() || len(r.Parents) != 0 {
		t.Errorf("route without parentRefs: %+v", r.Parents)
	}
}

func TestListenerSetConditions(t *testing.T) {
	set := func(name, listeners string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  parentRef: {name: gw}\n  listeners: " + listeners + "\n"
	}
	gateway := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: cls\n  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: http, port: 80, protocol: HTTP}]\n"
	tests := []struct {
		name, docs string
		want       []string
	}{
		{"valid", gateway + "---\n" + set("ls", "[{name: a, port: 8080, protocol: HTTP}]"), []string{"Accepted=True/Accepted", "Programmed=True/Programmed"}},
		{"some listeners invalid", gateway + "---\n" + set("ls", "[{name: a, port: 8080, protocol: HTTP}, {name: u, port: 9443, protocol: HTTPS, tls: {certificateRefs: [{name: nope}]}}]"),
			[]string{"Accepted=True/ListenersNotValid", "Programmed=True/Programmed"}},
		{"every listener invalid", gateway + "---\n" + set("ls", "[{name: u, port: 9443, protocol: HTTPS, tls: {certificateRefs: [{name: nope}]}}]"),
			[]string{"Accepted=False/ListenersNotValid", "Programmed=False/ListenersNotValid"}},
		{"parent refuses it", strings.Replace(gateway, "  allowedListeners: {namespaces: {from: Same}}\n", "", 1) + "---\n" + set("ls", "[{name: a, port: 8080, protocol: HTTP}]"),
			[]string{"Accepted=False/NotAllowed", "Programmed=False/NotAllowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := graph(t, Options{}, tt.docs)
			var got []string
			for _, c := range ListenerSetConditions(g.ListenerSet("infra", "ls")) {
				got = append(got, c.Type+"="+string(c.Status)+"/"+c.Reason)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("conditions = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestGatewayListenersNotValid: a Gateway whose listener is accepted but
// not programmed (its certificate is missing) reports ListenersNotValid,
// as kgateway does.
func TestGatewayListenersNotValid(t *testing.T) {
	g := graph(t, Options{}, "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: cls\n  listeners: [{name: https, port: 443, protocol: HTTPS, tls: {certificateRefs: [{name: missing}]}}]\n")
	gw := g.Gateway("infra", "gw")
	if c := findCond(gw.Listener("https").Conditions, "Programmed"); c.Status != metav1.ConditionFalse {
		t.Fatalf("listener Programmed = %+v", c)
	}
	if c := findCond(GatewayConditions(g, gw), "Accepted"); c.Status != metav1.ConditionTrue || c.Reason != "ListenersNotValid" {
		t.Errorf("Gateway Accepted = %+v, want True/ListenersNotValid", c)
	}
}

// TestStreamRoutes: a TCPRoute attaches to TCP listeners and TLS listeners
// that terminate TLS, a TLSRoute to TLS listeners (by SNI hostname), a
// UDPRoute to UDP listeners, never to HTTP ones, whatever
// allowedRoutes.kinds lists.
func TestStreamRoutes(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  listeners:
  - {name: tcp, port: 9000, protocol: TCP}
  - {name: tls, port: 8443, protocol: TLS, hostname: db.example.com, tls: {mode: Passthrough}}
  - {name: tls-term, port: 9443, protocol: TLS, tls: {mode: Terminate, certificateRefs: [{name: cert}]}}
  - {name: udp, port: 5353, protocol: UDP}
  - {name: http, port: 80, protocol: HTTP, allowedRoutes: {kinds: [{kind: TCPRoute}, {kind: TLSRoute}, {kind: UDPRoute}]}}`
	stream := func(kind, name, section, extra string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  parentRefs: [{name: gw, sectionName: " + section + "}]\n" + extra + "  rules: [{backendRefs: [{name: db, port: 5432}]}]\n"
	}
	g := graph(t, Options{}, gw,
		stream("TCPRoute", "on-tcp", "tcp", ""), stream("TCPRoute", "on-http", "http", ""),
		stream("TLSRoute", "on-tls", "tls", "  hostnames: [db.example.com]\n"), stream("TLSRoute", "other-sni", "tls", "  hostnames: [web.example.com]\n"),
		stream("TCPRoute", "tcp-on-tls", "tls", ""), stream("TCPRoute", "tcp-on-terminate", "tls-term", ""),
		stream("UDPRoute", "on-udp", "udp", ""), stream("UDPRoute", "udp-on-http", "http", ""), stream("TCPRoute", "tcp-on-udp", "udp", ""))
	tests := []struct {
		route string
		want  parentWant
	}{
		{"TCPRoute/infra/on-tcp", parentWant{accepted: true, listeners: []string{"infra/gw/tcp"}}},
		{"TCPRoute/infra/on-http", parentWant{reason: "NotAllowedByListeners"}},
		{"TLSRoute/infra/on-tls", parentWant{accepted: true, listeners: []string{"infra/gw/tls"}}},
		{"TLSRoute/infra/other-sni", parentWant{reason: "NoMatchingListenerHostname"}},
		{"TCPRoute/infra/tcp-on-tls", parentWant{reason: "NotAllowedByListeners"}},
		{"TCPRoute/infra/tcp-on-terminate", parentWant{accepted: true, listeners: []string{"infra/gw/tls-term"}}},
		{"UDPRoute/infra/on-udp", parentWant{accepted: true, listeners: []string{"infra/gw/udp"}}},
		{"UDPRoute/infra/udp-on-http", parentWant{reason: "NotAllowedByListeners"}},
		{"TCPRoute/infra/tcp-on-udp", parentWant{reason: "NotAllowedByListeners"}},
	}
	for _, tt := range tests {
		t.Run(tt.route, func(t *testing.T) {
			checkParent(t, route(t, g, tt.route).Parents[0], tt.want)
		})
	}
}

// TestUngrantedBackendRefs: under a controller deployed with grants off
// (kgateway's referenceGrantMode Off) a backendRef into another namespace
// resolves without a ReferenceGrant; otherwise it needs one.
func TestUngrantedBackendRefs(t *testing.T) {
	svc := "apiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: other}\nspec: {ports: [{port: 80}]}\n"
	rt := httpRoute("infra", "r", "  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: svc, namespace: other, port: 80}]}]\n")
	for ungranted, want := range map[bool]string{true: "True/ResolvedRefs", false: "False/RefNotPermitted"} {
		g := graph(t, Options{UngrantedBackendRefs: ungranted}, gatewayInfra, svc, rt)
		r := route(t, g, "HTTPRoute/infra/r")
		if c := findCond(RouteParentConditions(r, r.Parents[0]), "ResolvedRefs"); string(c.Status)+"/"+c.Reason != want {
			t.Errorf("ungranted %v: ResolvedRefs = %+v, want %s", ungranted, c, want)
		}
	}
}

// TestRouteWeight: kgateway.dev/route-weight orders routes only under
// weightedRoutePrecedence; a value that is not an int32 counts as 0 and is
// reported either way.
func TestRouteWeight(t *testing.T) {
	tests := []struct {
		name, value string
		on          bool
		want        int32
		finding     bool
	}{
		{"on", "5", true, 5, false},
		{"negative", "-1", true, -1, false},
		{"off", "5", false, 0, false},
		{"not a number", "high", true, 0, true},
		{"out of range", "4294967296", true, 0, true},
		{"not a number, off", "high", false, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra, annotations: {kgateway.dev/route-weight: \"" + tt.value + "\"}}\nspec:\n  parentRefs: [{name: gw}]\n  rules: [{}]\n"
			g := graph(t, Options{WeightedRoutePrecedence: tt.on}, gatewayInfra, r)
			if got := route(t, g, "HTTPRoute/infra/r").PrecedenceWeight; got != tt.want {
				t.Errorf("weight = %d, want %d", got, tt.want)
			}
			found := slices.ContainsFunc(g.Diagnostics, func(d diag.Diagnostic) bool { return d.Code == LintRouteWeightInvalid.Code })
			if found != tt.finding {
				t.Errorf("GWP215 reported: %v, want %v", found, tt.finding)
			}
		})
	}
}

// TestAdmissionFirst: under Controller.AdmissionFirst a parentRef that
// attaches nowhere is NotAllowedByListeners only when no listener of its
// parent admits the route's kind and namespace, whichever its
// sectionName and port select, and otherwise NoMatchingParent when no
// listener that admits it is selected (kgateway's query/route.go:
// processRoute, anyRoutesAllowed before anyListenerMatched); the Gateway
// API's order judges the selected listeners only.
func TestAdmissionFirst(t *testing.T) {
	const class = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: cls}
spec: {controllerName: example.com/own}`
	// gatewayInfra: http and https admit every namespace, internal only
	// infra; grpc admits GRPCRoutes alone.
	const grpcOnly = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: grpc, namespace: infra}
spec:
  gatewayClassName: cls
  listeners:
  - name: grpc
    port: 81
    protocol: HTTP
    allowedRoutes: {kinds: [{kind: GRPCRoute}], namespaces: {from: All}}`
	tests := []struct {
		name       string
		ref        string
		own, gwapi string // reason under AdmissionFirst, under the Gateway API's order
	}{
		{"selected listener refuses the namespace, another admits it", "{namespace: infra, name: gw, sectionName: internal}", "NoMatchingParent", "NotAllowedByListeners"},
		{"no listener of that name, none admits the kind", "{namespace: infra, name: grpc, sectionName: web}", "NotAllowedByListeners", "NoMatchingParent"},
		{"no listener admits the kind", "{namespace: infra, name: grpc}", "NotAllowedByListeners", "NotAllowedByListeners"},
		{"a port only refusing listeners use", "{namespace: infra, name: gw, port: 8080}", "NoMatchingParent", "NotAllowedByListeners"},
		{"a port no listener uses", "{namespace: infra, name: gw, port: 9999}", "NoMatchingParent", "NoMatchingParent"},
		{"selected and admitted", "{namespace: infra, name: gw, sectionName: http}", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs := []string{class, gatewayInfra, grpcOnly, httpRoute("apps", "r", "  parentRefs: ["+tt.ref+"]\n")}
			for _, c := range []struct {
				opt  Options
				want string
			}{
				{Options{Controllers: map[string]Controller{"example.com/own": {AdmissionFirst: true}}}, tt.own},
				{Options{}, tt.gwapi},
			} {
				p := route(t, graph(t, c.opt, docs...), "HTTPRoute/apps/r").Parents[0]
				if p.Reason != c.want || p.Accepted != (c.want == "") || (c.want != "" && p.Message == "") {
					t.Errorf("AdmissionFirst %v: accepted=%v reason=%q (%s), want reason %q", c.opt.Controllers != nil, p.Accepted, p.Reason, p.Message, c.want)
				}
			}
		})
	}
}

// TestGrantRuleByController: each controller matches ReferenceGrants by
// its own rule (Controller.Grants): under a rule reading "core" as the
// core group, grants written `group: core` allow its Gateways' certificate
// and frontend CA references and its routes' backendRefs; a controller
// comparing groups as written refuses them (RefNotPermitted). A route
// with parents under both is judged by the stricter rule, and one with
// no parent Gateway by the configured controller's.
func TestGrantRuleByController(t *testing.T) {
	gateway := func(name, class string) string {
		return `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: ` + name + `, namespace: edge}
spec:
  gatewayClassName: ` + class + `
  tls:
    frontend:
      default:
        validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: client-ca, namespace: pki}]}
  listeners:
  - name: web
    port: 8443
    protocol: HTTPS
    tls: {certificateRefs: [{name: site, namespace: pki}]}
    allowedRoutes: {namespaces: {from: All}}`
	}
	docs := []string{
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: aliasing}\nspec: {controllerName: example.com/aliasing}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: literal}\nspec: {controllerName: example.com/literal}",
		gateway("a", "aliasing"), gateway("l", "literal"),
		"apiVersion: v1\nkind: Secret\nmetadata: {name: site, namespace: pki}\ntype: kubernetes.io/tls",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: client-ca, namespace: pki}",
		`apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: gateways, namespace: pki}
spec:
  from: [{group: gateway.networking.k8s.io, kind: Gateway, namespace: edge}]
  to: [{group: core, kind: Secret, name: site}, {group: core, kind: ConfigMap}]`,
		"apiVersion: v1\nkind: Service\nmetadata: {name: ledger, namespace: money}\nspec: {ports: [{port: 7000}]}",
		`apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: routes, namespace: money}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]
  to: [{group: core, kind: Service}]`,
		httpRoute("shop", "on-a", "  parentRefs: [{name: a, namespace: edge}]\n  rules: [{backendRefs: [{name: ledger, namespace: money, port: 7000}]}]\n"),
		httpRoute("shop", "on-l", "  parentRefs: [{name: l, namespace: edge}]\n  rules: [{backendRefs: [{name: ledger, namespace: money, port: 7000}]}]\n"),
		httpRoute("shop", "on-both", "  parentRefs: [{name: a, namespace: edge}, {name: l, namespace: edge}]\n  rules: [{backendRefs: [{name: ledger, namespace: money, port: 7000}]}]\n"),
		httpRoute("shop", "on-none", "  parentRefs: [{name: gone, namespace: edge}]\n  rules: [{backendRefs: [{name: ledger, namespace: money, port: 7000}]}]\n"),
	}
	alias := Controller{Grants: model.GrantRule{CoreAlias: true}}
	for _, fallback := range []string{"example.com/aliasing", "example.com/literal"} {
		g := graph(t, Options{Controller: fallback, Controllers: map[string]Controller{"example.com/aliasing": alias, "example.com/literal": {}}}, docs...)
		listeners := []struct{ gw, want string }{{"a", "True/ResolvedRefs"}, {"l", "False/RefNotPermitted"}}
		for _, tc := range listeners {
			c := findCond(g.Gateway("edge", tc.gw).Listener("web").Conditions, "ResolvedRefs")
			if got := string(c.Status) + "/" + c.Reason; got != tc.want {
				t.Errorf("fallback %s: listener of %s: ResolvedRefs = %s (%s), want %s", fallback, tc.gw, got, c.Message, tc.want)
			}
		}
		// The frontend CA alone, with the certificate granted either way.
		if _, ok, reason, _ := g.FrontendCAs(g.Gateway("edge", "a").Listener("web")); !ok {
			t.Errorf("fallback %s: frontend CA under the aliasing controller refused: %s", fallback, reason)
		}
		if _, ok, reason, _ := g.FrontendCAs(g.Gateway("edge", "l").Listener("web")); ok || reason != "RefNotPermitted" {
			t.Errorf("fallback %s: frontend CA under the literal controller: ok=%v reason=%q, want RefNotPermitted", fallback, ok, reason)
		}
		noParent := "RefNotPermitted"
		if fallback == "example.com/aliasing" {
			noParent = ""
		}
		routes := []struct{ name, want string }{{"on-a", ""}, {"on-l", "RefNotPermitted"}, {"on-both", "RefNotPermitted"}, {"on-none", noParent}}
		for _, tc := range routes {
			b := route(t, g, "HTTPRoute/shop/"+tc.name).Rules[0].Backends[0]
			if got := map[bool]string{true: "", false: b.Reason}[b.Resolved]; got != tc.want {
				t.Errorf("fallback %s: route %s: backend reason %q (%s), want %q", fallback, tc.name, got, b.Message, tc.want)
			}
		}
	}
}

// TestBackendGroupsByController: a controller that reads a backendRef by
// its kind in any of its groups (Controller.BackendGroups) resolves one
// naming its backend kind, or Service, in another of them to that object;
// a ReferenceGrant still matches the group as written; a controller
// without them, or a route whose parents' controllers differ, takes group
// and kind as written; a group outside them is not read so.
func TestBackendGroupsByController(t *testing.T) {
	widget := model.GroupKind{Group: "widgets.example.com", Kind: "Widget"}
	docs := []string{
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: bykind}\nspec: {controllerName: example.com/bykind}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: literal}\nspec: {controllerName: example.com/literal}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: k, namespace: shop}\nspec: {gatewayClassName: bykind, listeners: [{name: web, port: 80, protocol: HTTP}]}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: l, namespace: shop}\nspec: {gatewayClassName: literal, listeners: [{name: web, port: 80, protocol: HTTP}]}",
		"apiVersion: widgets.example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}",
		"apiVersion: widgets.example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: money}",
		"apiVersion: v1\nkind: Service\nmetadata: {name: s, namespace: shop}\nspec: {ports: [{port: 80}]}",
		`apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: routes, namespace: money}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop}]
  to: [{group: widgets.example.com, kind: Widget}]`,
	}
	rt := func(name, parents, ref string) string {
		return httpRoute("shop", name, "  parentRefs: "+parents+"\n  rules: [{backendRefs: ["+ref+"]}]\n")
	}
	tests := []struct {
		name, parents, ref string
		want               string // "Group/Kind" resolved, or the reason
	}{
		{"its kind without a group", "[{name: k}]", "{kind: Widget, name: w}", "widgets.example.com/Widget"},
		{"its kind in another of its groups", "[{name: k}]", "{group: other.example.com, kind: Widget, name: w}", "widgets.example.com/Widget"},
		{"a Service in its own group", "[{name: k}]", "{group: widgets.example.com, kind: Service, name: s, port: 80}", "/Service"},
		{"a group it does not read", "[{name: k}]", "{group: elsewhere.example.com, kind: Widget, name: w}", "InvalidKind"},
		{"the grant matches the group as written", "[{name: k}]", "{kind: Widget, name: w, namespace: money}", "RefNotPermitted"},
		{"granted as written", "[{name: k}]", "{group: widgets.example.com, kind: Widget, name: w, namespace: money}", "widgets.example.com/Widget"},
		{"a controller reading groups as written", "[{name: l}]", "{kind: Widget, name: w}", "InvalidKind"},
		{"parents under both", "[{name: k}, {name: l}]", "{kind: Widget, name: w}", "InvalidKind"},
	}
	all := slices.Clone(docs)
	for i, tt := range tests {
		all = append(all, rt(fmt.Sprintf("r%d", i), tt.parents, tt.ref))
	}
	g := graph(t, Options{BackendKinds: map[model.GroupKind]bool{widget: true}, Controllers: map[string]Controller{
		"example.com/bykind":  {BackendGroups: []string{"", "other.example.com", "widgets.example.com"}},
		"example.com/literal": {},
	}}, all...)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := route(t, g, fmt.Sprintf("HTTPRoute/shop/r%d", i)).Rules[0].Backends[0]
			got := b.Reason
			if b.Resolved {
				got = b.Group + "/" + b.Kind
			}
			if got != tt.want {
				t.Errorf("got %q (%s), want %q", got, b.Message, tt.want)
			}
		})
	}
}
