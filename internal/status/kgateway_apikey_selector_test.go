package status_test

import (
	"slices"
	"strings"
	"testing"

	apikeyauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/api_key_auth/v3"

	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
)

// TestKgatewayAPIKeySelectorPartialGrants: an apiKeyAuth secretSelector
// takes the matching Secrets the TrafficPolicy may read — its own
// namespace's and those a ReferenceGrant opens — and skips the others
// (kgateway's SecretIndex.GetSecretsBySelector at the revision the pinned
// api-key-auth-selector-no-matching-secret golden's message dates:
// ungranted matches skipped, "missing reference grant" only when every
// match was skipped). Status and render read the one selection. Shapes no
// public case has: a same-namespace match beside an ungranted one, a
// granted and an ungranted match in other namespaces, a grant naming one
// Secret of two, only ungranted matches, none.
func TestKgatewayAPIKeySelectorPartialGrants(t *testing.T) {
	secret := func(ns, name, client string) string {
		return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: " + ns + ", labels: {team: pay}}\ntype: Opaque\ndata: {" + client + ": a2V5LQ==}\n"
	}
	grant := func(ns, name string) string {
		to := "{group: \"\", kind: Secret}"
		if name != "" {
			to = "{group: \"\", kind: Secret, name: " + name + "}"
		}
		return "---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: " + ns + "}\nspec:\n  from: [{group: gateway.kgateway.dev, kind: TrafficPolicy, namespace: infra}]\n  to: [" + to + "]\n"
	}
	const base = kgClassDoc + `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgw
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: keys, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  apiKeyAuth: {secretSelector: {matchLabels: {team: pay}}}
`
	for _, tc := range []struct {
		name, docs string
		want       string   // policy Accepted status/reason
		message    string   // in the Accepted message when not accepted
		clients    []string // the credentials rendered, sorted
	}{
		{"a same-namespace match beside an ungranted one", secret("infra", "local", "alice") + secret("other", "far", "bob"), "True/Valid", "", []string{"alice"}},
		{"a granted and an ungranted match elsewhere", secret("other", "far", "bob") + grant("other", "") + secret("third", "away", "carol"), "True/Valid", "", []string{"bob"}},
		{"a grant naming one Secret of two", secret("other", "far", "bob") + secret("other", "near", "dave") + grant("other", "near"), "True/Valid", "", []string{"dave"}},
		{"only ungranted matches", secret("other", "far", "bob") + secret("third", "away", "carol"), "False/Invalid", "missing reference grant", nil},
		{"no match", "", "False/Invalid", "no Secret matches", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := compileFull(t, base+tc.docs)
			rep := status.Compute(c.Result, status.Options{})
			got, msg := "absent", ""
			for _, p := range rep.Policies {
				if p.Name != "keys" {
					continue
				}
				for _, a := range p.Ancestors {
					for _, cd := range a.Conditions {
						if cd.Type == "Accepted" {
							got, msg = cd.Status+"/"+cd.Reason, cd.Message
						}
					}
				}
			}
			if got != tc.want || !strings.Contains(msg, tc.message) {
				t.Errorf("policy Accepted %s %q, want %s with %q", got, msg, tc.want, tc.message)
			}
			out, err := envoy.Render(c.Result, envoy.Options{Target: "kgateway"})
			if err != nil {
				t.Fatal(err)
			}
			var clients []string
			for _, g := range out.Gateways {
				for _, rc := range g.RouteConfigurations {
					for _, vh := range rc.VirtualHosts {
						for _, r := range vh.Routes {
							a := r.TypedPerFilterConfig["envoy.filters.http.api_key_auth"]
							if a == nil {
								continue
							}
							per := &apikeyauthv3.ApiKeyAuthPerRoute{}
							if err := a.UnmarshalTo(per); err != nil {
								continue // not the per-route credentials (a disabled or error config)
							}
							for _, cr := range per.Credentials {
								clients = append(clients, cr.Client)
							}
						}
					}
				}
			}
			slices.Sort(clients)
			if tc.clients != nil && !slices.Equal(clients, tc.clients) {
				t.Errorf("rendered credentials of %v, want %v", clients, tc.clients)
			}
			if tc.clients == nil && len(clients) > 0 {
				t.Errorf("rendered credentials of %v, want none", clients)
			}
		})
	}
}
