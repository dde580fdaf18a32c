package envoy

import (
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/topology"
)

// TestPathModifiersAsWritten: under policy.Target.PathModifiersAsWritten
// (kgateway's krtcollections/builtin.go: urlRewriteIr.apply,
// translatePathRewrite) a full path is replaced through .*, a prefix
// replaced by "/" through ^<the written match>\/* whatever the match (the
// root prefix, a prefix written without its trailing slash), any other
// replacement as given; unset, the Gateway API forms gwpol writes for
// other controllers. A redirect without statusCode answers 302, the
// CRD's default, under every target.
func TestPathModifiersAsWritten(t *testing.T) {
	full := &gwv1.HTTPPathModifier{Type: gwv1.FullPathHTTPPathModifier, ReplaceFullPath: new("/new")}
	prefix := func(r string) *gwv1.HTTPPathModifier {
		return &gwv1.HTTPPathModifier{Type: gwv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: new(r)}
	}
	sep := func(p string) *routev3.RouteMatch {
		return &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_PathSeparatedPrefix{PathSeparatedPrefix: p}}
	}
	root := &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}}
	for _, tt := range []struct {
		name              string
		mod               *gwv1.HTTPPathModifier
		value             string // the rule's PathPrefix as written
		match             *routev3.RouteMatch
		written, standard string // "regex:P" or "prefix:P"
	}{
		{"full path", full, "/api", sep("/api"), "regex:.*", `regex:^/.*$`},
		{"prefix to / on a prefix with a trailing slash", prefix("/"), "/api/", sep("/api"), `regex:^/api\/*`, `regex:^/api/\/*`},
		{"prefix to / on the root prefix", prefix("/"), "/", root, `regex:^/\/*`, "prefix:/"},
		{"root prefix to /app", prefix("/app"), "/", root, "prefix:/app", "prefix:/app/"},
		{"prefix to /v2", prefix("/v2"), "/api", sep("/api"), "prefix:/v2", "prefix:/v2"},
	} {
		e := entry{path: pathMatch{kind: 2, value: tt.value}}
		for _, c := range []struct {
			asWritten bool
			want      string
		}{{true, tt.written}, {false, tt.standard}} {
			act := &routev3.RouteAction{}
			applyRewrite(act, &gwv1.HTTPURLRewriteFilter{Path: tt.mod}, e, tt.match, Target{PathModifiersAsWritten: c.asWritten})
			got := "prefix:" + act.PrefixRewrite
			if rr := act.RegexRewrite; rr != nil {
				got = "regex:" + rr.Pattern.Regex
			}
			if got != c.want {
				t.Errorf("%s (as written %v): %s, want %s", tt.name, c.asWritten, got, c.want)
			}
		}
	}
	for _, asWritten := range []bool{true, false} {
		ra := redirectAction(&gwv1.HTTPRequestRedirectFilter{Path: prefix("/app"), StatusCode: new(302)}, entry{rule: &topology.Rule{}, path: pathMatch{kind: 2, value: "/"}}, nil,
			Target{PathModifiersAsWritten: asWritten}, 0)
		wantCode, wantPrefix := routev3.RedirectAction_FOUND, "/app/"
		if asWritten {
			wantPrefix = "/app"
		}
		if ra.ResponseCode != wantCode || ra.GetPrefixRewrite() != wantPrefix {
			t.Errorf("redirect (kgateway forms %v): %v %q, want %v %q", asWritten, ra.ResponseCode, ra.GetPrefixRewrite(), wantCode, wantPrefix)
		}
	}
}

// TestRedirectStatusUnset: a RequestRedirect the model holds without a
// statusCode — its HTTPRoute CRD gave no default (the shipped one defaults
// it to 302: TestRedirectStatusAsStored) — answers the controller's own
// default: 302 under Target.RedirectFound (kgateway's built-in plugin),
// else Envoy's 301 (Envoy Gateway's translator sets no code). A code the
// model holds is answered under every target.
func TestRedirectStatusUnset(t *testing.T) {
	e := entry{rule: &topology.Rule{}, path: pathMatch{kind: 2, value: "/"}}
	for _, tc := range []struct {
		code  *int
		found bool
		want  routev3.RedirectAction_RedirectResponseCode
	}{
		{nil, true, routev3.RedirectAction_FOUND},
		{nil, false, routev3.RedirectAction_MOVED_PERMANENTLY},
		{new(302), false, routev3.RedirectAction_FOUND},
		{new(301), true, routev3.RedirectAction_MOVED_PERMANENTLY},
	} {
		ra := redirectAction(&gwv1.HTTPRequestRedirectFilter{StatusCode: tc.code}, e, nil, Target{RedirectFound: tc.found}, 0)
		if ra.ResponseCode != tc.want {
			t.Errorf("statusCode %v, RedirectFound %v: %v, want %v", tc.code, tc.found, ra.ResponseCode, tc.want)
		}
	}
}
