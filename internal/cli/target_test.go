package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
)

// hapticPlatform is a Gateway of HAPTIC's class with a rule under a valid
// WAF policy.
const hapticPlatform = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: haptic}
spec: {controllerName: haproxy-haptic.org/controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: haptic
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: waf-v1, namespace: shop}
immutable: true
data:
  policies.yaml: "strict: {requestBody: {mode: none}}\n"
---
apiVersion: haproxy-haptic.org/v1alpha1
kind: HAProxyRoutePolicy
metadata: {name: guarded, namespace: shop}
spec:
  waf: {policy: strict, catalogRef: {name: waf-v1}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: app, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: web, port: 80}]
    filters: [{type: ExtensionRef, extensionRef: {group: haproxy-haptic.org, kind: HAProxyRoutePolicy, name: guarded}}]
`

// TestTargetInferredFromGatewayClass (issue 19): a Gateway of HAPTIC's
// class renders for target haptic, where WAF is a supported capability —
// no GWP404 in lint, and the rule forwards with its WAF selection in the
// route metadata; asking for upstream envoy still fails it closed.
func TestTargetInferredFromGatewayClass(t *testing.T) {
	file := filepath.Join(t.TempDir(), "haptic.yaml")
	if err := os.WriteFile(file, []byte(hapticPlatform), 0o600); err != nil {
		t.Fatal(err)
	}
	// The platform's WAF policy needs the chart switches the chart's
	// defaults leave off; this test is about the target, not them.
	deployment := "testdata/haptic-deployment.gwpol.yaml"
	stdout, stderr, code := run(t, "lint", "-f", file, "-o", "json", "--config", deployment)
	if code != ExitOK || strings.Contains(stdout, "GWP404") {
		t.Errorf("lint: exit %d, want a clean report:\n%s%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		args     []string
		forwards bool
	}{
		{nil, true},
		{[]string{"--target", "haptic"}, true},
		{[]string{"--target", "envoy"}, false},
	} {
		stdout, stderr, code := run(t, append([]string{"render", "-f", file, "-o", "json", "--config", deployment}, tc.args...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, stderr)
		}
		var doc struct {
			Gateways []struct {
				RouteConfigurations []struct {
					VirtualHosts []struct {
						Routes []map[string]json.RawMessage `json:"routes"`
					} `json:"virtual_hosts"`
				} `json:"routeConfigurations"`
			} `json:"gateways"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Gateways) != 1 || len(doc.Gateways[0].RouteConfigurations) != 1 || len(doc.Gateways[0].RouteConfigurations[0].VirtualHosts) != 1 {
			t.Fatalf("%v: unexpected shape:\n%s", tc.args, stdout)
		}
		routes := doc.Gateways[0].RouteConfigurations[0].VirtualHosts[0].Routes
		if len(routes) != 1 {
			t.Fatalf("%v: want one route, got %d", tc.args, len(routes))
		}
		_, forwards := routes[0]["route"]
		if forwards != tc.forwards {
			t.Errorf("%v: forwards = %v, want %v", tc.args, forwards, tc.forwards)
		}
		if got := strings.Contains(string(routes[0]["metadata"]), `"haproxy-haptic.org/waf"`); got != tc.forwards {
			t.Errorf("%v: WAF metadata present = %v, want %v: %s", tc.args, got, tc.forwards, routes[0]["metadata"])
		}
		if got := strings.Contains(stderr, "unsupported(required_capability: waf)"); got == tc.forwards {
			t.Errorf("%v: GWP404 reported = %v:\n%s", tc.args, got, stderr)
		}
	}
}

// TestExplainSharedBudgetOnlyWithRateLimit (issue 19): two rules using one
// policy share a budget only when the policy has a rate limit; explain
// says so then, and only then.
func TestExplainSharedBudgetOnlyWithRateLimit(t *testing.T) {
	twoRules := strings.Replace(hapticPlatform, "  rules:\n  - backendRefs", "  rules:\n  - backendRefs: [{name: web, port: 80}]\n    matches: [{path: {type: PathPrefix, value: /b}}]\n    filters: [{type: ExtensionRef, extensionRef: {group: haproxy-haptic.org, kind: HAProxyRoutePolicy, name: guarded}}]\n  - backendRefs", 1)
	for _, tc := range []struct {
		name, spec string
		budget     bool
	}{
		{"waf only", "  waf: {policy: strict, catalogRef: {name: waf-v1}}\n", false},
		{"rate limit", "  rateLimit: {requests: 10}\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(twoRules, "  waf: {policy: strict, catalogRef: {name: waf-v1}}\n", tc.spec, 1)
			objs, err := manifest.Parse("platform.yaml", []byte(src), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &Config{Namespace: "default"})
			rt := c.Graph.Route("HTTPRoute", "shop", "app")
			if rt == nil || len(rt.Rules) != 2 {
				t.Fatal("route not built")
			}
			notes := strings.Join(explain.Notes(c.Result)(rt, rt.Rules[0], nil), "\n")
			if !strings.Contains(notes, "runtime identity of this rule") {
				t.Errorf("identity note missing:\n%s", notes)
			}
			if got := strings.Contains(notes, "rate-limit budget"); got != tc.budget {
				t.Errorf("budget note present = %v, want %v:\n%s", got, tc.budget, notes)
			}
		})
	}
}
