package envoy_test

import (
	"slices"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestRuleChecksPerController: a rule value one controller refuses is
// judged by each controller under its own parentRefs — kgateway's rule
// check on kgateway's Gateway, Envoy Gateway's (its route validation, and
// its rule check for values it accepts but writes into config Envoy
// refuses) on Envoy Gateway's, HAPTIC's (header operations it does not
// apply, the rest of the rule served) on HAPTIC's. Render writes on each
// Gateway what its controller does and never a value Envoy refuses; the
// findings (GWP212) are those of the controllers serving the route, in
// registration order. Shapes no public case has.
func TestRuleChecksPerController(t *testing.T) {
	const forwards, absent = 0, -1
	rule := func(body string) string {
		return strings.Replace(strangerRoutes, "  - name: main\n    backendRefs: [{name: svc, port: 80}]\n", "  - name: main\n"+body+"    backendRefs: [{name: svc, port: 80}]\n", 1)
	}
	egOnly := func(in string) string {
		return strings.Replace(in, "parentRefs: [{name: kgw}, {name: egw}, {name: hgw}]", "parentRefs: [{name: egw}]", 1)
	}
	annotated := func(in, value string) string {
		return strings.Replace(in, "metadata: {name: web, namespace: infra}", "metadata: {name: web, namespace: infra, annotations: {kgateway.dev/http-redirect-status-code: \""+value+"\"}}", 1)
	}
	redirect := "    filters: [{type: RequestRedirect, requestRedirect: {hostname: other.example, statusCode: 302}}]\n"
	for _, tc := range []struct {
		name, input string
		// what each host answers: forwards, a direct response's status,
		// a redirect's code (3xx) or absent (no route)
		kg, eg, hap int
		// a header the rule sets: on kgateway's Gateway, not on HAPTIC's
		header string
		// the response header x-a's value kgateway's and HAPTIC's Gateways
		// write under their controllers' render targets, when checked
		respValues [2]string
		// the findings at the route: what GWP212 messages of kgateway's
		// and Envoy Gateway's rule checks (topology's) say of the rule
		findings []string
	}{
		{name: "an empty header name to remove: kgateway replaces, Envoy Gateway's validation refuses the filter (500, PartiallyInvalid)",
			input: rule("    filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [\"\"]}}]\n"),
			kg:    500, eg: 500, hap: forwards, findings: []string{"(Programmed False)", "HAPTIC does not apply remove \"\", not an HTTP token; it serves the rest of the rule"}},
		{name: "the same on an Envoy Gateway Gateway only: no kgateway finding",
			input: egOnly(rule("    filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [\"\"]}}]\n")),
			kg:    absent, eg: 500, hap: absent},
		{name: "an empty regular expression: every controller leaves it out, each saying so",
			input: rule("    matches: [{path: {type: RegularExpression, value: \"\"}}]\n"),
			kg:    absent, eg: absent, hap: absent, findings: []string{"(Programmed False)", "gwpol leaves the rule out of the config it renders", "HAPTIC writes into its regex path map as an empty pattern"}},
		{name: "a header value Envoy's substitution format refuses: Envoy Gateway writes it as it is (Envoy refuses), kgateway's Standard validation passes it",
			input: rule("    filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: x-a, value: \"50%off\"}]}}]\n"),
			kg:    forwards, eg: absent, hap: forwards, respValues: [2]string{"50%off", "50%%off"}, // a literal to HAPTIC
			findings: []string{"Envoy refuses the route configuration that holds it, keeping the last one it accepted; gwpol leaves the rule out of the config it renders"}},
		{name: "a line feed in a rewrite path: kgateway replaces, Envoy Gateway's xDS fails validation",
			input: rule("    filters: [{type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: \"/a\\nb\"}}}]\n"),
			kg:    500, eg: absent, hap: absent, findings: []string{"(Programmed False)", "publishes no new config for the Gateway and Envoy keeps the last one it accepted; gwpol leaves the rule out of the config it renders",
				"HAPTIC does not apply the rewrite (a warning) and serves the rule without it; gwpol cannot render the rule without it"}},
		{name: "a line feed in a header name to remove, Envoy Gateway only",
			input: egOnly(rule("    filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [\"x-a\\nb\"]}}]\n")),
			kg:    absent, eg: absent, hap: absent, findings: []string{"publishes no new config for the Gateway"}},
		{name: "kgateway's redirect status annotation: its Gateway only",
			input: annotated(rule(redirect), "307"),
			kg:    307, eg: 302, hap: 302},
		{name: "an invalid redirect status annotation: kgateway replaces, the others redirect",
			input: annotated(rule(redirect), "399"),
			kg:    500, eg: 302, hap: 302, findings: []string{"(Programmed False)"}},
		{name: "a header name the Gateway API allows and HAPTIC does not take as an HTTP token: HAPTIC serves the rule without it",
			input: rule("    filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: \"x#a\", value: b}, {name: x-ok, value: c}]}}]\n"),
			kg:    forwards, eg: forwards, hap: forwards, header: "x#a", findings: []string{"HAPTIC does not apply set \"x#a\", not an HTTP token"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("fixture.yaml", []byte(tc.input), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			res := compile(t, &manifest.Set{Objects: objs}, policy.Config{})
			out := render(t, res, envoy.Options{})
			for _, want := range []struct {
				host   string
				status int
			}{{"kg.example", tc.kg}, {"eg.example", tc.eg}, {"hap.example", tc.hap}} {
				r, _ := routeServing(out, want.host).(*routev3.Route)
				if got := answer(r); got != want.status {
					t.Errorf("%s: answers %d, want %d (%v)", want.host, got, want.status, r)
				}
				if tc.header == "" || r == nil {
					continue
				}
				var set []string
				for _, h := range r.RequestHeadersToAdd {
					set = append(set, h.GetHeader().GetKey())
				}
				if has, there := slices.Contains(set, tc.header), want.host != "hap.example"; has != there || !slices.Contains(set, "x-ok") {
					t.Errorf("%s: sets %q, want %s there %v and x-ok", want.host, set, tc.header, there)
				}
			}
			if tc.respValues[0] != "" {
				// each Gateway under its controller's render target
				for i, gw := range []struct{ name, target, host string }{{"infra/kgw", "kgateway", "kg.example"}, {"infra/hgw", "haptic", "hap.example"}} {
					r, _ := routeServing(render(t, res, envoy.Options{Target: gw.target, Gateways: []string{gw.name}}), gw.host).(*routev3.Route)
					var v string
					for _, h := range r.GetResponseHeadersToAdd() {
						if h.GetHeader().GetKey() == "x-a" {
							v = h.GetHeader().GetValue()
						}
					}
					if v != tc.respValues[i] {
						t.Errorf("%s under --target %s: x-a is %q, want %q", gw.host, gw.target, v, tc.respValues[i])
					}
				}
			}
			var got []string
			for _, d := range res.Graph.Diagnostics {
				if d.Code == topology.LintRuleNotProgrammed.Code {
					got = append(got, d.Message)
				}
			}
			if len(got) != len(tc.findings) {
				t.Fatalf("findings %q, want %d saying %q", got, len(tc.findings), tc.findings)
			}
			for i, end := range tc.findings {
				if !strings.Contains(got[i], end) {
					t.Errorf("finding %q, want it to say %q", got[i], end)
				}
			}
		})
	}
}

// answer is what a route answers: 0 when it forwards, a direct response's
// status, a redirect's code, -1 for no route.
func answer(r *routev3.Route) int {
	switch {
	case r == nil:
		return -1
	case r.GetRoute() != nil:
		return 0
	case r.GetDirectResponse() != nil:
		return int(r.GetDirectResponse().GetStatus())
	case r.GetRedirect() != nil:
		return map[routev3.RedirectAction_RedirectResponseCode]int{routev3.RedirectAction_MOVED_PERMANENTLY: 301, routev3.RedirectAction_FOUND: 302,
			routev3.RedirectAction_SEE_OTHER: 303, routev3.RedirectAction_TEMPORARY_REDIRECT: 307, routev3.RedirectAction_PERMANENT_REDIRECT: 308}[r.GetRedirect().GetResponseCode()]
	}
	return -2
}
