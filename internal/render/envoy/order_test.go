package envoy

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestRouteOrder: Envoy routes come in Gateway API precedence order — the
// route weight first (under weightedRoutePrecedence; 0 otherwise), then
// exact paths, regular expressions and prefixes, the longer exact path or
// prefix first while regular expressions keep route order unless the
// target orders them by length (policy.Target.RegexPathsByLength), then
// the older route, then "namespace/name" as one string (kgateway's
// routeutils/sortable_route.go: routeWrapperLessFunc, the Gateway API's
// alphabetical order), first of the route the virtual host serves and
// only then, for a delegated child's rules, of the child.
func TestRouteOrder(t *testing.T) {
	route := func(name string, weight int32, age int, paths ...string) *topology.Route {
		ns := "ns"
		if i := strings.IndexByte(name, '/'); i >= 0 {
			ns, name = name[:i], name[i+1:]
		}
		rt := &topology.Route{Route: &model.Route{Kind: "HTTPRoute", Meta: &metav1.ObjectMeta{Namespace: ns, Name: name,
			CreationTimestamp: metav1.NewTime(time.Unix(int64(age), 0))}}, PrecedenceWeight: weight}
		for i, p := range paths {
			typ, v := gwv1.PathMatchPathPrefix, p[1:]
			switch p[0] {
			case '=':
				typ = gwv1.PathMatchExact
			case '~':
				typ = gwv1.PathMatchRegularExpression
			}
			rule := &gwv1.HTTPRouteRule{Matches: []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: &typ, Value: &v}}}}
			rt.Rules = append(rt.Rules, &topology.Rule{Rule: &model.Rule{Index: i, HTTP: rule}})
		}
		return rt
	}
	tests := []struct {
		name          string
		routes        []*topology.Route
		regexByLength bool
		want          []string
	}{
		{"kinds and lengths", []*topology.Route{route("a", 0, 1, "^/a", "~/a/.*", "~/b/c/.*", "=/a/1", "=/a/1/2", "^/a/1")},
			false, []string{"a/4", "a/3", "a/1", "a/2", "a/5", "a/0"}},
		{"regular expressions by age, not length", []*topology.Route{route("new", 0, 2, "~/longer/.*"), route("old", 0, 1, "~/x")},
			false, []string{"old/0", "new/0"}},
		{"regular expressions by length where the target says so", []*topology.Route{route("new", 0, 2, "~/longer/.*"), route("old", 0, 1, "~/x")},
			true, []string{"new/0", "old/0"}},
		{"weight first", []*topology.Route{route("light", -1, 1, "=/a/1/2"), route("heavy", 5, 2, "^/x"), route("plain", 0, 3, "^/d/1/1")},
			false, []string{"heavy/0", "plain/0", "light/0"}},
		// '-' sorts before '/', '0' after it.
		{"namespace and name as one string", []*topology.Route{route("team/a", 0, 1, "^/a"), route("team0/b", 0, 1, "^/a"), route("team-b/x", 0, 1, "^/a")},
			false, []string{"x/0", "a/0", "b/0"}},
		{"a delegated child takes its parent route's age", []*topology.Route{delegating(route("parent", 0, 1), route("child", 0, 9, "^/a")), route("middle", 0, 5, "^/a")},
			false, []string{"child/0", "middle/0"}},
		{"children of one parent: by their own age", []*topology.Route{delegating(route("parent", 0, 1), route("young", 0, 9, "^/a"), route("old", 0, 3, "^/a"))},
			false, []string{"old/0", "young/0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var atts []*topology.Attachment
			for _, rt := range tt.routes {
				atts = append(atts, &topology.Attachment{Route: rt})
			}
			var got []string
			for _, e := range routeEntries(atts, routeOrder{regexByLength: tt.regexByLength}) {
				got = append(got, fmt.Sprintf("%s/%d", e.src.Meta.Name, e.rule.Index))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPrefixRankTrimmed: under policy.Target.PrefixesRankTrimmed a
// PathPrefix ranks by its value without trailing slashes (kgateway's
// routeutils/sortable_route.go: ParsePath → NormalizePathMatch), so an
// older /foo/ comes after a newer /abcd; ranked as written the two tie on
// length and the older comes first.
func TestPrefixRankTrimmed(t *testing.T) {
	mk := func(name string, age int, path string) *topology.Route {
		typ, v := gwv1.PathMatchPathPrefix, path
		rt := &topology.Route{Route: &model.Route{Kind: "HTTPRoute", Meta: &metav1.ObjectMeta{Namespace: "ns", Name: name,
			CreationTimestamp: metav1.NewTime(time.Unix(int64(age), 0))}}}
		rt.Rules = []*topology.Rule{{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{Matches: []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: &typ, Value: &v}}}}}}}
		return rt
	}
	atts := []*topology.Attachment{{Route: mk("old", 1, "/foo/")}, {Route: mk("new", 2, "/abcd")}, {Route: mk("root", 0, "/")}}
	for _, tt := range []struct {
		trimmed bool
		want    []string
	}{
		{true, []string{"new", "old", "root"}},
		{false, []string{"old", "new", "root"}},
	} {
		var got []string
		for _, e := range routeEntries(atts, routeOrder{trimmedPrefixes: tt.trimmed}) {
			got = append(got, e.src.Meta.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("PrefixesRankTrimmed %v: order %v, want %v", tt.trimmed, got, tt.want)
		}
	}
}

// delegating makes parent serve children's rules as delegated (its Flat,
// as topology's flattening lists them: the children in the order given).
func delegating(parent *topology.Route, children ...*topology.Route) *topology.Route {
	for _, c := range children {
		for _, rule := range c.Rules {
			parent.Flat = append(parent.Flat, topology.FlatMatch{Route: c, Rule: rule, RuleIndex: rule.Index, Match: &rule.HTTP.Matches[0]})
		}
	}
	return parent
}

// TestGRPCServiceMatch: a GRPCRoute match naming a service alone is the
// prefix /service/ by default, and under policy.Target.GRPCServiceSegments
// (kgateway's krtcollections/grpc_route.go: buildGRPCPathMatch turns it
// into the HTTPRoute PathPrefix /service) the segment prefix /service,
// ranked by that length among the virtual host's prefixes; the other
// method match forms are the same either way.
func TestGRPCServiceMatch(t *testing.T) {
	str := func(s string) *string { return &s }
	regex := gwv1.GRPCMethodMatchRegularExpression
	grpc := &topology.Route{Route: &model.Route{Kind: "GRPCRoute", Meta: &metav1.ObjectMeta{Namespace: "ns", Name: "g",
		CreationTimestamp: metav1.NewTime(time.Unix(1, 0))}}}
	rule := &gwv1.GRPCRouteRule{Matches: []gwv1.GRPCRouteMatch{
		{Method: &gwv1.GRPCMethodMatch{Service: str("pkg.Svc")}},
		{Method: &gwv1.GRPCMethodMatch{Service: str("pkg.Svc"), Method: str("Get")}},
		{Method: &gwv1.GRPCMethodMatch{Method: str("Get")}},
		{Method: &gwv1.GRPCMethodMatch{Type: &regex, Service: str("pkg\\..*")}},
		{},
	}}
	grpc.Rules = []*topology.Rule{{Rule: &model.Rule{GRPC: rule}}}
	// a newer HTTPRoute's prefix as long as /pkg.Svc/, longer than /pkg.Svc
	web := &topology.Route{Route: &model.Route{Kind: "HTTPRoute", Meta: &metav1.ObjectMeta{Namespace: "ns", Name: "web",
		CreationTimestamp: metav1.NewTime(time.Unix(2, 0))}}}
	prefix, v := gwv1.PathMatchPathPrefix, "/pkg.Svc1"
	web.Rules = []*topology.Rule{{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{Matches: []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Type: &prefix, Value: &v}}}}}}}
	for _, tt := range []struct {
		segments bool
		want     []string
	}{
		{false, []string{"g path /pkg.Svc/Get", "g regex /.+/Get", "g regex /pkg\\..*/.+", "g prefix /pkg.Svc/", "web separated /pkg.Svc1", "g prefix /"}},
		{true, []string{"g path /pkg.Svc/Get", "g regex /.+/Get", "g regex /pkg\\..*/.+", "web separated /pkg.Svc1", "g separated /pkg.Svc", "g prefix /"}},
	} {
		var got []string
		for _, e := range routeEntries([]*topology.Attachment{{Route: grpc}, {Route: web}}, routeOrder{grpcServiceSegments: tt.segments}) {
			m := routeMatch(e)
			var what string
			switch p := m.PathSpecifier.(type) {
			case *routev3.RouteMatch_Path:
				what = "path " + p.Path
			case *routev3.RouteMatch_SafeRegex:
				what = "regex " + p.SafeRegex.Regex
			case *routev3.RouteMatch_Prefix:
				what = "prefix " + p.Prefix
			case *routev3.RouteMatch_PathSeparatedPrefix:
				what = "separated " + p.PathSeparatedPrefix
			}
			got = append(got, e.src.Meta.Name+" "+what)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("GRPCServiceSegments %v: matches %q, want %q", tt.segments, got, tt.want)
		}
	}
}
