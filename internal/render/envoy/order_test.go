package envoy

import (
	"fmt"
	"slices"
	"testing"
	"time"

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
// the older route.
func TestRouteOrder(t *testing.T) {
	route := func(name string, weight int32, age int, paths ...string) *topology.Route {
		rt := &topology.Route{Route: &model.Route{Kind: "HTTPRoute", Meta: &metav1.ObjectMeta{Namespace: "ns", Name: name,
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var atts []*topology.Attachment
			for _, rt := range tt.routes {
				atts = append(atts, &topology.Attachment{Route: rt})
			}
			var got []string
			for _, e := range routeEntries(atts, tt.regexByLength) {
				got = append(got, fmt.Sprintf("%s/%d", e.att.Route.Meta.Name, e.rule.Index))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("order = %v, want %v", got, tt.want)
			}
		})
	}
}
