package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWSO2OperatorRouteStatus: the WSO2 gateway operator at the pin
// (httproute_controller.go: Reconcile, handleRESTError) writes a route's
// parent status by rules of its own — ResolvedRefs False (Invalid, or
// Retrying) when it builds no API from the route, Accepted False
// (DeploymentFailed) when the gateway-controller refuses the API, each
// leaving the other condition as the route's status had it under the
// operator's controllerName, and both True with its messages once the API
// is deployed. Until hap36 gwpol wrote the Gateway API's conditions for a
// rule that fails (Accepted False/UnsupportedValue, ResolvedRefs
// False/InvalidKind). Another controller's route keeps them.
func TestWSO2OperatorRouteStatus(t *testing.T) {
	const head = wso2OperatorPlatform + `apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop}
spec: {ports: [{port: 8080}]}
---
apiVersion: gateway.api-platform.wso2.com/v1
kind: APIPolicy
metadata: {name: broken, namespace: shop}
spec:
  policies: [{name: basic-ratelimit, version: v1.1.1}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: store, namespace: shop}
spec:
`
	const earlier = `status:
  parents:
    - parentRef: {group: gateway.networking.k8s.io, kind: Gateway, name: platform}
      controllerName: %s
      conditions:
        - {type: Accepted, status: "True", reason: Accepted, message: Route accepted by platform gateway operator}
        - {type: ResolvedRefs, status: "True", reason: ResolvedRefs, message: Backend references resolved and API deployed to platform gateway}
`
	operator := strings.Replace(earlier, "%s", "gateway.api-platform.wso2.com/gateway-operator", 1)
	tests := []struct {
		name, spec string
		want       []string // per parent: TYPE=STATUS/REASON joined by spaces
	}{
		{"deployed: both True with the operator's messages", `  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: PathPrefix, value: /cart}}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"}},
		{"a port the Service lacks: ResolvedRefs Invalid, no Accepted", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: cart, port: 9999}]
`, []string{"ResolvedRefs=False/Invalid"}},
		{"a Service not found after an accepted version: Retrying, Accepted kept", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: nowhere, port: 80}]
` + operator, []string{"Accepted=True/Accepted ResolvedRefs=False/Retrying"}},
		{"another controller's earlier status is not the operator's", `  parentRefs: [{name: platform}]
  rules:
    - backendRefs: [{name: nowhere, port: 80}]
` + strings.Replace(earlier, "%s", "example.com/other", 1), []string{"ResolvedRefs=False/Retrying"}},
		{"an invalid APIPolicy: DeploymentFailed, no ResolvedRefs", `  parentRefs: [{name: platform}]
  rules:
    - filters: [{type: ExtensionRef, extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: broken}}]
      backendRefs: [{name: cart, port: 8080}]
    - matches: [{path: {value: /b}}]
      backendRefs: [{name: cart, port: 8080}]
`, []string{"Accepted=False/DeploymentFailed"}},
		{"an invalid APIPolicy after an accepted version: ResolvedRefs kept", `  parentRefs: [{name: platform}]
  rules:
    - filters: [{type: ExtensionRef, extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: broken}}]
      backendRefs: [{name: cart, port: 8080}]
` + operator, []string{"Accepted=False/DeploymentFailed ResolvedRefs=True/ResolvedRefs"}},
		{"two sections of the operator's Gateway: Invalid on each", `  parentRefs: [{name: platform, sectionName: http}, {name: platform, sectionName: alt}]
  rules:
    - backendRefs: [{name: cart, port: 8080}]
`, []string{"ResolvedRefs=False/Invalid", "ResolvedRefs=False/Invalid"}},
		{"an earlier status of another section is not this parent's", `  parentRefs: [{name: platform, sectionName: http}]
  rules:
    - backendRefs: [{name: nowhere, port: 80}]
` + operator, []string{"ResolvedRefs=False/Retrying"}},
		{"another controller's route with an invalid APIPolicy: the Gateway API's conditions", `  parentRefs: [{name: other-gw}]
  rules:
    - filters: [{type: ExtensionRef, extensionRef: {group: gateway.api-platform.wso2.com, kind: APIPolicy, name: broken}}]
      backendRefs: [{name: cart, port: 8080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/other}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: other-gw, namespace: shop}
spec:
  gatewayClassName: other
  listeners: [{name: http, protocol: HTTP, port: 80}]
`, []string{"Accepted=False/UnsupportedValue ResolvedRefs=False/InvalidKind"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(f, []byte(head+tt.spec), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := mainWSO2("status", "-o", "json", "-f", f, "--policy-definitions", wso2Path("defs"))
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rep struct {
				Routes []struct {
					Name    string
					Parents []struct {
						ControllerName string
						Conditions     []struct{ Type, Status, Reason, Message string }
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, rt := range rep.Routes {
				if rt.Name != "store" {
					continue
				}
				for _, p := range rt.Parents {
					var cs []string
					for _, c := range p.Conditions {
						cs = append(cs, c.Type+"="+c.Status+"/"+c.Reason)
						if c.Reason == "DeploymentFailed" && !strings.HasPrefix(c.Message, "gateway returned status 400: ") {
							t.Errorf("DeploymentFailed message %q", c.Message)
						}
					}
					got = append(got, strings.Join(cs, " "))
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("route parents' conditions (-want +got):\n%s", diff)
			}
		})
	}
}
