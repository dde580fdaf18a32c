package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wso2EngineRoutes is a WSO2 Gateway's HTTPRoute with two rules, the
// first referencing APIPolicy "own" by ExtensionRef; the test appends the
// APIPolicies (the engine build, testdata/wso2/build-manifest.yaml, has
// cors only at v1, the definitions have v1 and v2).
const wso2EngineRoutes = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: wso2-api-platform}
spec: {controllerName: gateway.api-platform.wso2.com/gateway-operator}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: platform, namespace: shop}
spec:
  gatewayClassName: wso2-api-platform
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: items, namespace: shop}
spec: {ports: [{port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: store, namespace: shop}
spec:
  parentRefs: [{name: platform}]
  rules:
    - name: own
      matches: [{path: {type: PathPrefix, value: /own}}]
      filters:
        - type: ExtensionRef
          extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: own}
      backendRefs: [{name: items, port: 8080}]
    - name: plain
      matches: [{path: {type: PathPrefix, value: /}}]
      backendRefs: [{name: items, port: 8080}]
`

// wso2APIPolicy is an APIPolicy listing cors at major; api: it targets the
// route (API level), else a rule references it.
func wso2APIPolicy(name, major string, api bool) string {
	target := ""
	if api {
		target = "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: store}\n"
	}
	return "---\napiVersion: gateway.api-platform.wso2.com/v1\nkind: APIPolicy\nmetadata: {name: " + name + ", namespace: shop}\nspec:\n" + target +
		"  policies:\n    - name: cors\n      version: " + major + "\n"
}

// TestWSO2EngineLacksPolicy: a deployed API whose chain names a policy the
// policy engine was not built with (GWP505). The gateway-controller
// accepts the API and the operator writes the route Accepted, but the
// engine cannot build the chain of a route that runs the policy
// (registry.go: GetInstance "policy not found"), skips it
// (xdsclient/handler.go) and answers its requests 500 (kernel/extproc.go:
// "Policy chain not found for route"): an API-level policy fails every
// rule, a rule's own only that rule. Before (hap39) gwpol rendered such
// rules forwarding and lint said the engine would answer "policy not
// found".
func TestWSO2EngineLacksPolicy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policies string
		failing  int // rules answering 500
	}{
		{name: "a rule's own APIPolicy the engine lacks: that rule alone answers 500", policies: wso2APIPolicy("own", "v2", false), failing: 1},
		{name: "an API-level APIPolicy the engine lacks: every rule answers 500",
			policies: wso2APIPolicy("own", "v1", false) + wso2APIPolicy("api", "v2", true), failing: 2},
		{name: "the engine has every policy: both rules forward",
			policies: wso2APIPolicy("own", "v1", false) + wso2APIPolicy("api", "v1", true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(f, []byte(wso2EngineRoutes+tc.policies), 0o644); err != nil {
				t.Fatal(err)
			}
			flags := []string{"-f", f, "--policy-definitions", wso2Path("defs"), "--engine-manifest", wso2Path("build-manifest.yaml")}
			out, errOut, _ := mainWSO2(append([]string{"lint"}, flags...)...)
			if got := strings.Contains(out, "GWP505"); got != (tc.failing > 0) {
				t.Errorf("lint: GWP505 %v, want %v:\n%s%s", got, tc.failing > 0, out, errOut)
			}
			if tc.failing > 0 && !strings.Contains(out, "answers that route's requests 500") {
				t.Errorf("lint: GWP505 does not say what the engine does:\n%s", out)
			}
			rendered, errOut, code := mainWSO2(append([]string{"render", "-o", "json"}, flags...)...)
			if code != 0 {
				t.Fatalf("render: exit %d: %s", code, errOut)
			}
			compact := strings.Join(strings.Fields(rendered), "")
			if got := strings.Count(compact, `"direct_response":{"status":500`); got != tc.failing {
				t.Errorf("render: %d rule(s) answering 500, want %d", got, tc.failing)
			}
			st, errOut, code := mainWSO2(append([]string{"status", "-o", "summary"}, flags...)...)
			if code != 0 || !strings.Contains(st, "HTTPRoute shop/store → Gateway shop/platform: Accepted ResolvedRefs") {
				t.Errorf("status: the route is not the operator's Accepted (exit %d):\n%s%s", code, st, errOut)
			}
			ex, errOut, code := mainWSO2(append([]string{"explain", "httproute/shop/store"}, flags...)...)
			if code != 0 {
				t.Fatalf("explain: exit %d: %s", code, errOut)
			}
			if got := strings.Count(ex, "the policy engine was not built with cors:v2"); (got > 0) != (tc.failing > 0) {
				t.Errorf("explain: %d mention(s) of the engine's missing policy, want them only when rules fail:\n%s", got, ex)
			}
		})
	}
}
