package explain_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/status"
)

// egRoute is an Envoy Gateway Gateway app/gw with one HTTP listener and
// the route app/r on it, to its Service: what the tests of a policy on a
// route or on its Gateway add their policies to.
var egRoute = egGateway("app", "gw", "  listeners: [{name: http, port: 80, protocol: HTTP}]\n") + `---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{name: http, port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 8080}]}]
`

// spBase is egRoute with the OIDC client Secret.
var spBase = egRoute + `---
apiVersion: v1
kind: Secret
metadata: {name: oidc, namespace: app}
stringData: {client-secret: s3cr3t}
`

// sp is a SecurityPolicy of namespace app with the given targetRefs and
// fields.
func sp(name, targetRefs, fields string) string {
	return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" +
		"  targetRefs: " + targetRefs + "\n" + fields
}

const (
	toGateway = "[{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]"
	toRoute   = "[{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]"
)

// spVerdict compiles spBase with the policies and says, for the
// route's rule on the listener, which policy owns each of fields, whether
// it answers 500, the policies' conditions and their GWP401 findings.
func spVerdict(t *testing.T, policies string, fields ...string) (owners []string, answers int, conds, findings []string) {
	t.Helper()
	objs, err := manifest.Parse("t.yaml", []byte(spBase+policies), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
	rt := c.Graph.Route("HTTPRoute", "app", "r")
	got := explain.Rule(c.Result, rt, rt.Rules[0], c.Graph.Gateway("app", "gw").Listeners[0], explain.Options{})
	for _, want := range fields {
		owner := "-"
		for _, f := range got.Fields {
			if f.Field == want {
				owner = f.Owner[strings.LastIndex(f.Owner, "/")+1:]
			}
		}
		owners = append(owners, want+"="+owner)
	}
	answers = got.FixedStatus
	if slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "replaced by a direct response (500)") }) {
		answers = 500
	}
	for _, p := range status.Compute(c.Result, status.Options{}).Policies {
		for _, a := range p.Ancestors {
			for _, cd := range a.Conditions {
				if cd.Type != "Warning" {
					conds = append(conds, p.Name+"@"+a.AncestorRef.String()+" "+cd.Type+"="+cd.Status+"/"+cd.Reason+" "+cd.Message)
				}
			}
		}
	}
	slices.Sort(conds)
	for _, d := range c.Diagnostics() {
		if d.Code == "GWP401" && d.Object.Group == "gateway.envoyproxy.io" {
			findings = append(findings, d.Object.Name+" "+d.Field)
		}
	}
	return owners, answers, conds, findings
}

// TestMergedSecurityPolicyValidatedAgain: Envoy Gateway validates a route
// SecurityPolicy with mergeType alone, then the policy merged into its
// listener's or Gateway's again on each listener
// (processSecurityPolicyForRoute). Two policies that pass alone may not
// pass together: the Gateway's OIDC forwards the ID token in a header that
// the route's JWT provider reads. Refused there, the route policy is
// Invalid on that listener and the route takes the Gateway's policy alone.
// A provider list merges the same under either mergeType: the API type
// marks no patchStrategy on it, so StrategicMerge replaces it as JSONMerge
// does — the route's providers take the place of the Gateway's.
func TestMergedSecurityPolicyValidatedAgain(t *testing.T) {
	gwOIDC := "  oidc: {provider: {issuer: 'https://gw-idp.example.com'}, clientID: c, clientSecret: {name: oidc}, passThroughAuthHeader: true, forwardIDToken: {header: x-id-token}}\n"
	gwJWT := "  jwt: {providers: [{name: gw-idp, remoteJWKS: {uri: 'https://gw-idp.example.com/jwks'}, extractFrom: {headers: [{name: x-id-token}]}}]}\n"
	route := func(mergeType, header string) string {
		return sp("route-sp", toRoute, "  mergeType: "+mergeType+"\n"+
			"  jwt: {providers: [{name: app-idp, remoteJWKS: {uri: 'https://app-idp.example.com/jwks'}, extractFrom: {headers: [{name: "+header+"}]}}]}\n")
	}
	refused := func() []string {
		return []string{
			"gw-sp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
			"gw-sp@Gateway/app/gw Overridden=True/Overridden This policy is being overridden by other securityPolicies for these routes: [app/r]",
			// the route's own ancestor (its parentRef as written) is
			// accepted; the merge is judged on the listener
			"route-sp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
			`route-sp@Gateway/app/gw#http Accepted=False/Invalid The OIDC.ForwardIDToken header "x-id-token" cannot be the same as a JWT provider extractFrom header when passThroughAuthHeader is enabled.`,
		}
	}
	merged := []string{
		"gw-sp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
		"gw-sp@Gateway/app/gw Merged=True/Merged This policy is being merged by other securityPolicies for these routes: [app/r]",
		"route-sp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
		"route-sp@Gateway/app/gw#http Merged=True/Merged Merged with policy app/gw-sp",
	}
	for _, tc := range []struct {
		name, policies string
		owners         []string
		conds          []string
		findings       []string
	}{
		{name: "StrategicMerge: the route's provider reads the header the Gateway's OIDC forwards the ID token in",
			policies: sp("gw-sp", toGateway, gwOIDC+"  jwt: {providers: [{name: gw-idp, remoteJWKS: {uri: 'https://gw-idp.example.com/jwks'}, extractFrom: {headers: [{name: authorization}]}}]}\n") + route("StrategicMerge", "x-id-token"),
			owners:   []string{"oidc=gw-sp", "jwt=gw-sp"}, conds: refused(), findings: []string{"route-sp spec.mergeType"}},
		{name: "JSONMerge: the same",
			policies: sp("gw-sp", toGateway, gwOIDC+"  jwt: {providers: [{name: gw-idp, remoteJWKS: {uri: 'https://gw-idp.example.com/jwks'}, extractFrom: {headers: [{name: authorization}]}}]}\n") + route("JSONMerge", "x-id-token"),
			owners:   []string{"oidc=gw-sp", "jwt=gw-sp"}, conds: refused(), findings: []string{"route-sp spec.mergeType"}},
		{name: "StrategicMerge replaces the Gateway's providers: their header is gone, merged",
			policies: sp("gw-sp", toGateway, gwOIDC+gwJWT) + route("StrategicMerge", "x-other"),
			owners:   []string{"oidc=gw-sp", "jwt=route-sp"}, conds: merged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owners, answers, conds, findings := spVerdict(t, tc.policies, "oidc", "jwt")
			if !slices.Equal(owners, tc.owners) || answers != 0 {
				t.Errorf("owners %v, answers %d; want %v, 0", owners, answers, tc.owners)
			}
			if !slices.Equal(conds, tc.conds) {
				t.Errorf("conditions:\n  %s\nwant:\n  %s", strings.Join(conds, "\n  "), strings.Join(tc.conds, "\n  "))
			}
			if !slices.Equal(findings, tc.findings) {
				t.Errorf("findings at %v, want %v", findings, tc.findings)
			}
		})
	}
}

// TestRefusedSecurityPolicyAppliesFromItsGateway: Envoy Gateway runs
// validateSecurityPolicy on a policy's route targets only; a policy
// targeting a route and the route's Gateway that the validator refuses is
// Invalid on the route (which is not answered 500) and translated on the
// Gateway as if valid, so it reaches the route from there. A policy
// targeting the route alone is refused whole; a builder's error (a
// missing Secret) makes it Invalid on every target.
func TestRefusedSecurityPolicyAppliesFromItsGateway(t *testing.T) {
	both := "[{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}, {group: gateway.networking.k8s.io, kind: Gateway, name: gw}]"
	oidc := func(secret string) string {
		return "  oidc: {provider: {issuer: 'https://idp.example.com'}, clientID: c, clientSecret: {name: " + secret + "}, passThroughAuthHeader: true}\n"
	}
	const refusal = "Invalid SecurityPolicy: the OIDC.PassThroughAuthHeader setting must be used in conjunction with JWT settings."
	for _, tc := range []struct {
		name, policies string
		owners         []string
		answers        int
		conds          []string
		findings       []string
	}{
		{name: "route and Gateway: applied from the Gateway", policies: sp("both", both, oidc("oidc")),
			owners: []string{"oidc=both"},
			conds: []string{
				// the route's ancestor is the Gateway, which the
				// route target writes first; Envoy Gateway counts the
				// route, whose policy this is, as overriding it
				"both@Gateway/app/gw Accepted=False/Invalid " + refusal,
				"both@Gateway/app/gw Overridden=True/Overridden This policy is being overridden by other securityPolicies for these routes: [app/r]",
			},
			findings: []string{"both spec.oidc.passThroughAuthHeader"}},
		{name: "route alone: refused whole", policies: sp("both", toRoute, oidc("oidc")),
			owners:   []string{"oidc=-"},
			conds:    []string{"both@Gateway/app/gw Accepted=False/Invalid " + refusal},
			findings: []string{"both spec.oidc.passThroughAuthHeader"}},
		{name: "route and Gateway, a builder's error: Invalid everywhere", policies: sp("both", both, "  basicAuth: {users: {name: missing}}\n"),
			owners: []string{"oidc=-"}, answers: 500,
			conds: []string{
				"both@Gateway/app/gw Accepted=False/Invalid BasicAuth: secret app/missing does not exist.",
				"both@Gateway/app/gw Overridden=True/Overridden This policy is being overridden by other securityPolicies for these routes: [app/r]",
			},
			findings: []string{"both spec.basicAuth.users"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owners, answers, conds, findings := spVerdict(t, tc.policies, "oidc")
			if !slices.Equal(owners, tc.owners) || answers != tc.answers {
				t.Errorf("owners %v, answers %d; want %v, %d", owners, answers, tc.owners, tc.answers)
			}
			if !slices.Equal(conds, tc.conds) {
				t.Errorf("conditions:\n  %s\nwant:\n  %s", strings.Join(conds, "\n  "), strings.Join(tc.conds, "\n  "))
			}
			if !slices.Equal(findings, tc.findings) {
				t.Errorf("findings at %v, want %v", findings, tc.findings)
			}
		})
	}
}

// btp is a BackendTrafficPolicy of namespace app with the given
// targetRefs and fields.
func btp(name, targetRefs, fields string) string {
	return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" +
		"  targetRefs: " + targetRefs + "\n" + fields
}

// TestMergedBackendTrafficPolicyBuiltAgain: Envoy Gateway builds a route
// BackendTrafficPolicy with mergeType from the policy merged into its
// listener's or Gateway's, per listener; settings its builders check
// together may then come from the two policies, and a merge each of
// whose policies is valid alone may fail: the route policy is Invalid on
// that listener and the route answers 500.
func TestMergedBackendTrafficPolicyBuiltAgain(t *testing.T) {
	for _, tc := range []struct {
		name, gw, route string
		answers         int
		conds           []string
		findings        []string
	}{
		{name: "the Gateway's request buffer beside the route's upgrades",
			gw:      "  requestBuffer: {limit: 1Mi}\n",
			route:   "  mergeType: StrategicMerge\n  httpUpgrade: [{type: websocket}]\n",
			answers: 500,
			conds: []string{
				"gw-btp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"gw-btp@Gateway/app/gw Overridden=True/Overridden This policy is being overridden by other backendTrafficPolicies for these routes: [app/r]",
				"route-btp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"route-btp@Gateway/app/gw#http Accepted=False/Invalid RequestBuffer: requestBuffer cannot be used together with httpUpgrade.",
			},
			findings: []string{"route-btp spec.mergeType"}},
		{name: "a back-off's maxInterval below the Gateway's baseInterval",
			gw:      "  retry: {perRetry: {backOff: {baseInterval: 2s}}}\n",
			route:   "  mergeType: JSONMerge\n  retry: {perRetry: {backOff: {maxInterval: 1s}}}\n",
			answers: 500,
			conds: []string{
				"gw-btp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"gw-btp@Gateway/app/gw Overridden=True/Overridden This policy is being overridden by other backendTrafficPolicies for these routes: [app/r]",
				"route-btp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"route-btp@Gateway/app/gw#http Accepted=False/Invalid Retry: maxInterval cannot be less than baseInterval.",
			},
			findings: []string{"route-btp spec.retry.perRetry.backOff.maxInterval"}},
		{name: "settings that go together merge",
			gw:    "  retry: {perRetry: {backOff: {baseInterval: 1s}}}\n",
			route: "  mergeType: StrategicMerge\n  retry: {perRetry: {backOff: {maxInterval: 2s}}}\n",
			conds: []string{
				"gw-btp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"gw-btp@Gateway/app/gw Merged=True/Merged This policy is being merged by other backendTrafficPolicies for these routes: [app/r]",
				"route-btp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"route-btp@Gateway/app/gw#http Merged=True/Merged Merged with policy app/gw-btp",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, answers, conds, findings := spVerdict(t, btp("gw-btp", toGateway, tc.gw)+btp("route-btp", toRoute, tc.route))
			if answers != tc.answers {
				t.Errorf("answers %d, want %d", answers, tc.answers)
			}
			if !slices.Equal(conds, tc.conds) {
				t.Errorf("conditions:\n  %s\nwant:\n  %s", strings.Join(conds, "\n  "), strings.Join(tc.conds, "\n  "))
			}
			if !slices.Equal(findings, tc.findings) {
				t.Errorf("findings at %v, want %v", findings, tc.findings)
			}
		})
	}
}

// twoListeners is spBase with a second listener, b, on another port; the
// route is attached to the Gateway, so through both.
var twoListeners = strings.Replace(spBase, "listeners: [{name: http, port: 80, protocol: HTTP}]",
	"listeners: [{name: http, port: 80, protocol: HTTP}, {name: b, port: 8080, protocol: HTTP}]", 1)

// TestMergedPolicyRefusedOnOneListener: Envoy Gateway builds a route
// policy with mergeType again on each listener the route is attached
// through, merged into that listener's closest policy
// (processBackendTrafficPolicyForRoute, processSecurityPolicyForRoute).
// Refused on one listener, the route is served differently on each: on
// that listener a BackendTrafficPolicy's route answers 500 and a
// SecurityPolicy's route takes the listener's policy alone; on the other,
// the merged (or the route's own) policy applies.
func TestMergedPolicyRefusedOnOneListener(t *testing.T) {
	toListener := "[{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: http}]"
	for _, tc := range []struct {
		name, policies string
		field          string
		// per listener (http, b): the owner of field and the answer
		owners  []string
		answers []int
		conds   []string
	}{
		{name: "BackendTrafficPolicy: 500 on the refusing listener, merged on the other",
			policies: btp("l-btp", toListener, "  requestBuffer: {limit: 1Mi}\n") +
				btp("gw-btp", toGateway, "  timeout: {http: {requestTimeout: 5s}}\n") +
				btp("route-btp", toRoute, "  mergeType: StrategicMerge\n  httpUpgrade: [{type: websocket}]\n"),
			field: "httpUpgrade", owners: []string{"-", "route-btp"}, answers: []int{500, 0},
			conds: []string{
				"gw-btp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"gw-btp@Gateway/app/gw Merged=True/Merged This policy is being merged by other backendTrafficPolicies for these routes: [app/r]",
				"gw-btp@Gateway/app/gw Overridden=True/Overridden This policy is being overridden by other backendTrafficPolicies for these gateway listeners: [app/gw/http]",
				"l-btp@Gateway/app/gw#http Accepted=True/Accepted Policy has been accepted.",
				"l-btp@Gateway/app/gw#http Overridden=True/Overridden This policy is being overridden by other backendTrafficPolicies for these routes: [app/r]",
				"route-btp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"route-btp@Gateway/app/gw#b Merged=True/Merged Merged with policy app/gw-btp",
				"route-btp@Gateway/app/gw#http Accepted=False/Invalid RequestBuffer: requestBuffer cannot be used together with httpUpgrade.",
			}},
		{name: "BackendTrafficPolicy: no policy above on the other listener, the route's alone",
			policies: btp("l-btp", toListener, "  requestBuffer: {limit: 1Mi}\n") +
				btp("route-btp", toRoute, "  mergeType: StrategicMerge\n  httpUpgrade: [{type: websocket}]\n"),
			field: "httpUpgrade", owners: []string{"-", "route-btp"}, answers: []int{500, 0},
			conds: []string{
				"l-btp@Gateway/app/gw#http Accepted=True/Accepted Policy has been accepted.",
				"l-btp@Gateway/app/gw#http Overridden=True/Overridden This policy is being overridden by other backendTrafficPolicies for these routes: [app/r]",
				"route-btp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"route-btp@Gateway/app/gw#http Accepted=False/Invalid RequestBuffer: requestBuffer cannot be used together with httpUpgrade.",
			}},
		{name: "SecurityPolicy: the listener's policy alone on the refusing listener, merged on the other",
			policies: sp("l-sp", toListener, "  oidc: {provider: {issuer: 'https://gw-idp.example.com'}, clientID: c, clientSecret: {name: oidc}, passThroughAuthHeader: true, forwardIDToken: {header: x-id-token}}\n"+
				"  jwt: {providers: [{name: gw-idp, remoteJWKS: {uri: 'https://gw-idp.example.com/jwks'}, extractFrom: {headers: [{name: authorization}]}}]}\n") +
				sp("gw-sp", toGateway, "  cors: {allowOrigins: ['https://a.example.com']}\n") +
				sp("route-sp", toRoute, "  mergeType: StrategicMerge\n"+
					"  jwt: {providers: [{name: app-idp, remoteJWKS: {uri: 'https://app-idp.example.com/jwks'}, extractFrom: {headers: [{name: x-id-token}]}}]}\n"),
			field: "jwt", owners: []string{"l-sp", "route-sp"}, answers: []int{0, 0},
			conds: []string{
				"gw-sp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"gw-sp@Gateway/app/gw Merged=True/Merged This policy is being merged by other securityPolicies for these routes: [app/r]",
				"gw-sp@Gateway/app/gw Overridden=True/Overridden This policy is being overridden by other securityPolicies for these gateway listeners: [app/gw/http]",
				"l-sp@Gateway/app/gw#http Accepted=True/Accepted Policy has been accepted.",
				"l-sp@Gateway/app/gw#http Overridden=True/Overridden This policy is being overridden by other securityPolicies for these routes: [app/r]",
				"route-sp@Gateway/app/gw Accepted=True/Accepted Policy has been accepted.",
				"route-sp@Gateway/app/gw#b Merged=True/Merged Merged with policy app/gw-sp",
				`route-sp@Gateway/app/gw#http Accepted=False/Invalid The OIDC.ForwardIDToken header "x-id-token" cannot be the same as a JWT provider extractFrom header when passThroughAuthHeader is enabled.`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("t.yaml", []byte(twoListeners+tc.policies), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
			rt := c.Graph.Route("HTTPRoute", "app", "r")
			var owners []string
			var answers []int
			for _, l := range c.Graph.Gateway("app", "gw").Listeners {
				got := explain.Rule(c.Result, rt, rt.Rules[0], l, explain.Options{})
				owner := "-"
				for _, f := range got.Fields {
					if f.Field == tc.field {
						owner = f.Owner[strings.LastIndex(f.Owner, "/")+1:]
					}
				}
				answer := got.FixedStatus
				if slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "replaced by a direct response (500)") }) {
					answer = 500
				}
				owners, answers = append(owners, owner), append(answers, answer)
			}
			if !slices.Equal(owners, tc.owners) || !slices.Equal(answers, tc.answers) {
				t.Errorf("per listener: owners %v, answers %v; want %v, %v", owners, answers, tc.owners, tc.answers)
			}
			var conds []string
			for _, p := range status.Compute(c.Result, status.Options{}).Policies {
				for _, a := range p.Ancestors {
					for _, cd := range a.Conditions {
						if cd.Type != "Warning" {
							conds = append(conds, p.Name+"@"+a.AncestorRef.String()+" "+cd.Type+"="+cd.Status+"/"+cd.Reason+" "+cd.Message)
						}
					}
				}
			}
			slices.Sort(conds)
			if !slices.Equal(conds, tc.conds) {
				t.Errorf("conditions:\n  %s\nwant:\n  %s", strings.Join(conds, "\n  "), strings.Join(tc.conds, "\n  "))
			}
			// the verdict every view reads: refused through the first
			// listener only
			var vs []string
			for _, p := range c.Result.Policies.Policies {
				for _, v := range c.Result.Verdicts(p) {
					vs = append(vs, p.Obj.Name+": "+v.Desc()+": "+v.Rejection.Verdict)
				}
			}
			want := "route-btp: HTTPRoute app/r on listener app/gw/http: Invalid"
			if strings.HasPrefix(tc.name, "SecurityPolicy") {
				want = "route-sp: HTTPRoute app/r on listener app/gw/http: Refused"
			}
			if !slices.Contains(vs, want) {
				t.Errorf("verdicts %v, want %q among them", vs, want)
			}
		})
	}
}

// TestClientTrafficPolicySharedPortPerListener: Envoy Gateway checks a
// ClientTrafficPolicy's port overlap listener by listener
// (validatePortOverlapForClientTrafficPolicy, before each listener is
// translated). A ListenerSet-wide policy whose listener y shares its port
// with the Gateway's listener a is not applied on y alone: x, on a port of
// its own, takes it, and y — left unclaimed — takes the Gateway's policy.
func TestClientTrafficPolicySharedPortPerListener(t *testing.T) {
	in := egGateway("app", "open", "  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: a, protocol: HTTP, port: 8080}]\n") + `---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: extra, namespace: app}
spec:
  parentRef: {name: open}
  listeners: [{name: x, port: 9090, protocol: HTTP}, {name: y, port: 8080, protocol: HTTP, hostname: y.example.com}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: wide, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: open}]
  timeout: {http: {idleTimeout: 10s}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: on-set, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: extra}]
  timeout: {http: {idleTimeout: 20s}}
`
	objs, err := manifest.Parse("t.yaml", []byte(in), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
	var got []string
	for _, l := range c.Graph.Gateway("app", "open").Listeners {
		owner := "-"
		for _, f := range explain.Listener(c.Result, l, explain.Options{}).Fields {
			if f.Field == "timeout" {
				owner = f.Owner[strings.LastIndex(f.Owner, "/")+1:]
			}
		}
		got = append(got, string(l.Name)+"="+owner)
	}
	if want := []string{"a=wide", "x=on-set", "y=wide"}; !slices.Equal(got, want) {
		t.Errorf("timeout per listener %v, want %v", got, want)
	}
	var vs []string
	for _, p := range c.Result.Policies.Policies {
		for _, v := range c.Result.Verdicts(p) {
			vs = append(vs, p.Obj.Name+": "+v.Desc()+": "+v.Rejection.Verdict)
		}
	}
	if want := []string{"on-set: listener app/extra/y: Refused", "wide: listener app/extra/x: Overridden"}; !slices.Equal(vs, want) {
		t.Errorf("verdicts %v, want %v", vs, want)
	}
}

// TestClientTrafficPolicyDefaultHostPerListener: a Gateway-wide
// ClientTrafficPolicy setting http1.http10.useDefaultHost is refused on
// the listener whose default host Envoy Gateway cannot find (no hostname,
// and no route with a hostname without a wildcard) and only there
// (translateClientTrafficPolicyForListener, per listener): that
// listener's routes answer 500, the other listener keeps the policy. A
// route answering 500 keeps its destination in Envoy Gateway's IR, so
// the rule's one cluster, shaped by its route on the first listener, still
// carries that listener's HTTP/1 settings (T76, B107): explain shows them
// on the cluster only.
func TestClientTrafficPolicyDefaultHostPerListener(t *testing.T) {
	in := strings.Replace(spBase, "listeners: [{name: http, port: 80, protocol: HTTP}]",
		"listeners: [{name: http, port: 80, protocol: HTTP, hostname: a.example.com}, {name: b, port: 8080, protocol: HTTP}]", 1) + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: wild, namespace: app}
spec:
  parentRefs: [{name: gw, sectionName: b}]
  hostnames: ['*.example.com']
  rules: [{backendRefs: [{name: svc, port: 8080}]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: wide, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  http1: {http10: {useDefaultHost: true}}
`
	objs, err := manifest.Parse("t.yaml", []byte(in), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
	var got []string
	for _, name := range []string{"r", "wild"} {
		rt := c.Graph.Route("HTTPRoute", "app", name)
		for _, p := range rt.Parents {
			for _, l := range p.Listeners {
				v := explain.Rule(c.Result, rt, rt.Rules[0], l, explain.Options{})
				owner := "-"
				for _, f := range v.Fields {
					if strings.HasPrefix(f.Field, "http1") {
						owner = f.Owner[strings.LastIndex(f.Owner, "/")+1:]
						if c := f.ClusterFrom; c != nil && c.Only {
							owner += " on the cluster only, from " + c.Listener[strings.LastIndex(c.Listener, "/")+1:]
						}
					}
				}
				answer := 0
				if slices.ContainsFunc(v.Notes, func(n string) bool { return strings.Contains(n, "replaced by a direct response (500)") }) {
					answer = 500
				}
				got = append(got, fmt.Sprintf("%s@%s http1=%s answers %d", name, l.Name, owner, answer))
			}
		}
	}
	want := []string{"r@http http1=wide answers 0", "r@b http1=wide on the cluster only, from http answers 500", "wild@b http1=- answers 500"}
	if !slices.Equal(got, want) {
		t.Errorf("per route and listener:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
