package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hapticFailClosedHead is a HAPTIC Gateway, a Service, the credential
// Secrets every shape below names (the test adds its own), and a route
// whose rule 0 names the policy p and whose rule 1 has no policy.
const hapticFailClosedHead = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: haptic}
spec: {controllerName: haproxy-haptic.org/controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: haptic
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: v1
kind: Service
metadata: {name: orders, namespace: shop}
spec: {ports: [{name: http, port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: orders, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
    - matches: [{path: {type: PathPrefix, value: /guarded}}]
      filters:
        - type: ExtensionRef
          extensionRef: {group: haproxy-haptic.org, kind: HAProxyRoutePolicy, name: p}
      backendRefs: [{name: orders, port: 8080}]
    - matches: [{path: {type: PathPrefix, value: /open}}]
      backendRefs: [{name: orders, port: 8080}]
---
`

// TestHAPTICFailClosedEveryWay: HAPTIC's contract for a HAProxyRoutePolicy
// — ExtensionRef only, fail closed — holds whatever makes the policy
// unusable (44-route-policies.yaml: GatewayPolicyRecord, each error it
// sets; frontend-filters-006-gateway-policy-errors: deny_status 503): a
// credential Secret missing, mutable, without its key or with a value
// HAPTIC refuses, a value of the policy's own out of its bounds, a section
// whose chart switch is off. In every case lint reports an error naming
// why, render answers the rule 503 and forwards the rule without a
// policy, and explain says 503 with the reason — until hap37 explain
// also said the rule was "replaced by a direct response (500)" beside
// render's 503.
func TestHAPTICFailClosedEveryWay(t *testing.T) {
	const switchesOn = "haptic:\n  rateLimit: {shared: {enabled: true}}\n  cache: {varnish: {enabled: true}}\n"
	secret := func(name, immutable, data string) string {
		return "apiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: shop}\nimmutable: " + immutable + "\ntype: Opaque\nstringData: " + data + "\n---\n"
	}
	policy := func(spec string) string {
		return "apiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: p, namespace: shop}\nspec:\n" + spec + "\n"
	}
	const keysRef = "  authentication:\n    apiKey:\n      secretRef: {name: keys}"
	const jwtRef = "  authentication:\n    jwt:\n      secretRef: {name: jwt}\n      algorithm: ES256"
	tests := []struct {
		name, objects, config string
		why                   string // a part of the lint error, which explain repeats
	}{
		{"API key Secret missing", policy(keysRef), "", "keys"},
		{"API key Secret mutable", secret("keys", "false", "{keys: \"k-1:app\"}") + policy(keysRef), "", "is mutable"},
		{"API key Secret without its keys entry", secret("keys", "true", "{other: \"k-1:app\"}") + policy(keysRef), "", "has no key keys"},
		{"a key named for two consumers", secret("keys", "true", "{keys: \"k-1:app\\nk-1:other\\n\"}") + policy(keysRef), "", "repeats the key of line 1 for another consumer"},
		{"JWT Secret without pubkey.pem", secret("jwt", "true", "{tls.crt: x}") + policy(jwtRef), "", "has no key pubkey.pem"},
		{"JWT key that is no PEM public key", secret("jwt", "true", "{pubkey.pem: \"{\\\"keys\\\": []}\"}") + policy(jwtRef), "", "pubkey.pem"},
		{"credential Secret in another namespace", policy("  authentication:\n    apiKey:\n      secretRef: {name: keys, namespace: other}"), "", "namespace"},
		{"a rate limit period HAPTIC does not read", policy("  rateLimit: {requests: 10, period: 5x}"), switchesOn, "period"},
		{"a rate limit with the shared stick tables off", policy("  rateLimit: {requests: 10, period: 1s}"), "", "rateLimit.shared.enabled"},
		{"a negative cache lifetime", policy("  cache: {ttlSeconds: -1}"), switchesOn, "ttlSeconds"},
		{"a cache with the cache tier off", policy("  cache: {ttlSeconds: 60}"), "", "cache.varnish.enabled"},
		{"a WAF policy with no WAF", policy("  waf: {policy: strict}"), "", "waf"},
		{"a policy that enforces nothing", policy("  authentication: {}"), "", "enforce"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.yaml")
			if err := os.WriteFile(in, []byte(hapticFailClosedHead+tt.objects), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"-f", in}
			if tt.config != "" {
				cfg := filepath.Join(dir, "gwpol.yaml")
				if err := os.WriteFile(cfg, []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", cfg)
			}
			out, errOut, code := run(t, append([]string{"lint"}, args...)...)
			if code != 1 || !strings.Contains(out, "error") || !strings.Contains(out, tt.why) {
				t.Errorf("lint: exit %d, want 1 with an error saying %q:\n%s%s", code, tt.why, out, errOut)
			}
			rendered, errOut, _ := run(t, append([]string{"render", "-o", "json"}, args...)...)
			compact := strings.Join(strings.Fields(rendered), "")
			if n := strings.Count(compact, `"direct_response":{"status":503`); n != 1 {
				t.Errorf("render: %d rules answer 503, want the policy's one:\n%s", n, errOut)
			}
			if strings.Contains(compact, `"direct_response":{"status":500`) {
				t.Errorf("render: a rule answers 500")
			}
			explained, _, _ := run(t, append([]string{"explain", "httproute/shop/orders"}, args...)...)
			guarded, open, _ := strings.Cut(explained, "\n\n")
			if !strings.Contains(guarded, "answers 503 to every request") || !strings.Contains(guarded, tt.why) || strings.Contains(guarded, "(500)") {
				t.Errorf("explain of the guarded rule does not say 503 and why (%q):\n%s", tt.why, guarded)
			}
			if strings.Contains(open, "503") {
				t.Errorf("explain of the rule without a policy says 503:\n%s", open)
			}
		})
	}
}
