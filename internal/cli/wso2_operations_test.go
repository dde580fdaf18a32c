package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWSO2OperatorOperations: the operator at the pin builds one operation
// per match — its method (or all seven), its path value whatever the
// match type, under the context annotation — and the gateway-controller
// serves a path exactly (and with a trailing slash), /* as a prefix,
// {param} as one segment, / as the context alone; header and query
// matches are not read. Where that differs from the match, lint says so
// (GWP514) at the match. The API built from the route (its display name,
// version and context annotations, its operations, its artifact-id
// annotation) is validated as a RestApi: a failure is GWP512 at the
// route field, and the whole route is refused (DeploymentFailed). Until
// hap36 gwpol said nothing of either.
func TestWSO2OperatorOperations(t *testing.T) {
	const head = `apiVersion: gateway.networking.k8s.io/v1
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
metadata: {name: cart, namespace: shop}
spec: {ports: [{port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: store
  namespace: shop
`
	tests := []struct {
		name, route string
		want        []string // CODE FIELD: words, in order
	}{
		{"a PathPrefix match is one path", `spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: PathPrefix, value: /items}}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"GWP514 spec.rules[0].matches[0].path: serves it as exactly /items and /items/: a PathPrefix match becomes that one path"}},
		{"a PathPrefix ending in /* keeps the paths under it", `spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: PathPrefix, value: /items/*}}]
      backendRefs: [{name: cart, port: 8080}]
`, nil},
		{"an Exact match with a header match: the header is dropped", `spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: Exact, value: /a}, headers: [{name: x-tier, value: gold}], method: GET}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"GWP514 spec.rules[0].matches[0].path: the operation GET /a from this match, and the gateway-controller serves it as exactly /a and /a/: its 1 header match(es) are dropped"}},
		{"an Exact match alone: served as written", `spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: Exact, value: /a}, method: POST}]
      backendRefs: [{name: cart, port: 8080}]
`, nil},
		{"a regular expression is a literal path", `spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: RegularExpression, value: "/b/[0-9]+"}, queryParams: [{name: v, value: "2"}]}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"GWP514 spec.rules[0].matches[0].path: taken as a path, not as a regular expression; its 1 query parameter match(es) are dropped"}},
		// The API server writes the HTTPRoute CRD's default match (PathPrefix
		// /) on a rule without matches, and the operator reads that.
		{"no matches: the CRD's default match, the context alone", `spec:
  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: cart, port: 8080}]
`, []string{"GWP514 spec.rules[0].matches[0].path: serves it as / alone"}},
		{"the context annotation prefixes the path", `  annotations: {gateway.api-platform.wso2.com/context: shop}
spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: Exact, value: /a}}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"GWP514 spec.rules[0].matches[0].path: serves it as exactly /shop/a and /shop/a/: the API's context /shop"}},
		{"a CONNECT match: the API is refused", `spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: Exact, value: /a}, method: CONNECT}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"GWP512 spec.rules[0].matches[0].method: Invalid HTTP method 'CONNECT'", "GWP512 spec.rules: gateway-controller rejects all of it"}},
		{"unbalanced braces in a regular expression: the API is refused", `spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: RegularExpression, value: "/x{2"}, method: GET}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"GWP512 spec.rules[0].matches[0].path.value: unbalanced braces", "GWP514 spec.rules[0].matches[0].path: with any one path segment at each {…}", "GWP512 spec.rules: gateway-controller rejects all of it"}},
		{"a context annotation ending in /: the API is refused", `  annotations: {gateway.api-platform.wso2.com/context: /shop/}
spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: Exact, value: /a}, method: GET}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"GWP512 metadata.annotations: Context cannot end with /", "GWP514 spec.rules[0].matches[0].path: the API's context /shop/", "GWP512 spec.rules: gateway-controller rejects all of it"}},
		{"a display name and version the controller refuses", `  annotations: {gateway.api-platform.wso2.com/display-name: "shop/store", gateway.api-platform.wso2.com/api-version: one}
spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: Exact, value: /a}, method: GET}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"GWP512 metadata.annotations: (displayName, its gateway.api-platform.wso2.com/display-name annotation): API display name must be URL-friendly",
			"GWP512 metadata.annotations: (version, its gateway.api-platform.wso2.com/api-version annotation): API version must follow semantic versioning", "GWP512 spec.rules: gateway-controller rejects all of it"}},
		{"an artifact-id annotation that is no UUID", `  annotations: {gateway.api-platform.wso2.com/artifact-id: nope}
spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: Exact, value: /a}, method: GET}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{`GWP512 metadata.annotations: invalid UUID format "nope"`, "GWP512 spec.rules: gateway-controller rejects all of it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(f, []byte(head+tt.route), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, _ := lintWSO2(t, "-f", f, "--fail-on", "none")
			var got []string
			for _, d := range rep.Diagnostics {
				if d.Code == "GWP514" || d.Code == "GWP512" {
					got = append(got, d.Code+" "+d.Field+": "+d.Message)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("findings:\n%s\nwant %d", strings.Join(got, "\n"), len(tt.want))
			}
			for _, w := range tt.want {
				code, rest, _ := strings.Cut(w, " ")
				field, words, _ := strings.Cut(rest, ": ")
				if !slices.ContainsFunc(got, func(g string) bool {
					return strings.HasPrefix(g, code+" "+field+": ") && strings.Contains(g, words)
				}) {
					t.Errorf("no %s at %s saying %q in:\n%s", code, field, words, strings.Join(got, "\n"))
				}
			}
		})
	}
}

// TestWSO2OperatorClassNames: the operator reconciles the HTTPRoutes of
// Gateways whose class NAME is in its gateway_api.gateway_class_names
// (ManagedGatewayClass; default wso2-api-platform), whatever the class's
// controllerName (config wso2.gatewayClassNames). Until hap36 gwpol took
// any class whose controllerName starts gateway.api-platform.wso2.com/,
// and so judged routes the operator never reconciles.
func TestWSO2OperatorClassNames(t *testing.T) {
	route := func(class, controller string) string {
		return `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: ` + class + `}
spec: {controllerName: ` + controller + `}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: platform, namespace: shop}
spec:
  gatewayClassName: ` + class + `
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop}
spec: {ports: [{port: 8080}]}
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
    - backendRefs: [{name: items, port: 8080, weight: 90}, {name: cart, port: 8080, weight: 10}]
`
	}
	const operator = "gateway.api-platform.wso2.com/gateway-operator"
	tests := []struct {
		name, class, controller, config string
		refused                         bool // the operator refuses the route (two Services)
	}{
		{"the default class name", "wso2-api-platform", operator, "", true},
		{"another name with the operator's controllerName: not reconciled", "wso2", operator, "", false},
		{"a configured name", "platform", operator, "wso2:\n  gatewayClassNames: [platform]\n", true},
		{"the default name is no longer managed once others are configured", "wso2-api-platform", operator, "wso2:\n  gatewayClassNames: [platform]\n", false},
		{"the name decides, not the controllerName", "wso2-api-platform", "example.com/other", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "in.yaml")
			if err := os.WriteFile(f, []byte(route(tt.class, tt.controller)), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"-f", f, "--fail-on", "none"}
			if tt.config != "" {
				c := filepath.Join(dir, "gwpol.yaml")
				if err := os.WriteFile(c, []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "--config", c)
			}
			rep, _ := lintWSO2(t, args...)
			refused := false
			for _, d := range rep.Diagnostics {
				if d.Code == "GWP512" && strings.Contains(d.Message, "single Service backend") {
					refused = true
				}
			}
			if refused != tt.refused {
				t.Errorf("refused = %v, want %v: %+v", refused, tt.refused, rep.Diagnostics)
			}
		})
	}
}
