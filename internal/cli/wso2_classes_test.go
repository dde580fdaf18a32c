package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWSO2GatewayClassStatus: the WSO2 gateway operator at the pin
// (k8s_gatewayclass_controller.go: Reconcile) writes Accepted on each
// GatewayClass whose controllerName is its own — True when the class's
// name is one it manages (config wso2.gatewayClassNames), else
// False/Unsupported — and its Gateway and HTTPRoute reconcilers skip the
// Gateways of a class it does not manage (by name), so nothing serves
// them. gwpol decides it once (topology.ClassVerdict): status writes the
// class's condition and leaves the Gateway Pending with none of its
// routes' parents, render leaves the Gateway out, explain notes it on
// the route, and lint reports the class and the Gateway (GWP225). A class
// naming another controller gets no status of the operator's. Before,
// gwpol served such a Gateway as the generic controller of its class's
// controllerName.
func TestWSO2GatewayClassStatus(t *testing.T) {
	const operator = "gateway.api-platform.wso2.com/gateway-operator"
	input := func(class, controller string) string {
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
metadata: {name: items, namespace: shop}
spec: {ports: [{port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: store, namespace: shop}
spec:
  parentRefs: [{name: platform}]
  rules:
    - matches: [{path: {type: PathPrefix, value: /items/*}}]
      backendRefs: [{name: items, port: 8080}]
`
	}
	tests := []struct {
		name, class, controller, config string
		classStatus                     string // "": no gatewayClasses entry; else Accepted=STATUS/REASON
		served                          bool   // the Gateway is programmed and rendered, the route has its parent
	}{
		{"the default name: accepted", "wso2-api-platform", operator, "", "Accepted=True/Accepted", true},
		{"another name: Unsupported, its Gateway served by nothing", "wso2-staging", operator, "", "Accepted=False/Unsupported", false},
		{"a configured name: accepted", "platform", operator, "wso2:\n  gatewayClassNames: [platform, edge]\n", "Accepted=True/Accepted", true},
		{"the default name once others are configured: Unsupported", "wso2-api-platform", operator, "wso2:\n  gatewayClassNames: [platform]\n", "Accepted=False/Unsupported", false},
		{"another controller's class: nothing of the operator's", "wso2-staging", "example.com/other", "", "", true},
		{"the operator's name on another controller's class: no class status, the operator serves its Gateway", "wso2-api-platform", "example.com/other", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "in.yaml")
			if err := os.WriteFile(f, []byte(input(tt.class, tt.controller)), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := []string{}
			if tt.config != "" {
				c := filepath.Join(dir, "gwpol.yaml")
				if err := os.WriteFile(c, []byte(tt.config), 0o644); err != nil {
					t.Fatal(err)
				}
				cfg = []string{"--config", c}
			}
			// status: the class, the Gateway, the route's parents
			out, errOut, code := mainWSO2(append([]string{"status", "-f", f, "-o", "json"}, cfg...)...)
			if code != ExitOK && code != ExitFindings {
				t.Fatalf("status: exit %d: %s", code, errOut)
			}
			var rep struct {
				GatewayClasses []struct {
					Name, ControllerName string
					Conditions           []struct{ Type, Status, Reason string }
				}
				Gateways []struct {
					Name       string
					Conditions []struct{ Type, Status, Reason, Message string }
				}
				Routes []struct{ Parents []any }
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			var classStatus []string
			for _, c := range rep.GatewayClasses {
				if c.Name != tt.class || c.ControllerName != operator {
					t.Errorf("class status of %s (%s)", c.Name, c.ControllerName)
				}
				for _, cond := range c.Conditions {
					classStatus = append(classStatus, cond.Type+"="+cond.Status+"/"+cond.Reason)
				}
			}
			if got := strings.Join(classStatus, " "); got != tt.classStatus {
				t.Errorf("class status %q, want %q", got, tt.classStatus)
			}
			gwAccepted := ""
			for _, c := range rep.Gateways[0].Conditions {
				if c.Type == "Accepted" {
					gwAccepted = c.Status + "/" + c.Reason
					if !tt.served && !strings.Contains(c.Message, "does not accept GatewayClass "+tt.class) {
						t.Errorf("Gateway Pending without naming the class's refusal: %s", c.Message)
					}
				}
			}
			if want := map[bool]string{true: "True/Accepted", false: "Unknown/Pending"}[tt.served]; gwAccepted != want {
				t.Errorf("Gateway Accepted %s, want %s", gwAccepted, want)
			}
			if got := len(rep.Routes[0].Parents) > 0; got != tt.served {
				t.Errorf("route has parents: %v, want %v", got, tt.served)
			}
			// lint: the class and its Gateway, GWP225
			lint, _ := lintWSO2(t, append([]string{"-f", f, "--fail-on", "none"}, cfg...)...)
			var lines []int
			for _, d := range lint.Diagnostics {
				if d.Code == "GWP225" {
					lines = append(lines, d.Line)
				}
			}
			if want := map[bool][]int{true: nil, false: {3, 10}}[tt.served]; !slices.Equal(lines, want) {
				t.Errorf("GWP225 at lines %v, want %v", lines, want)
			}
			// render and explain
			rendered, errOut, _ := mainWSO2(append([]string{"render", "-f", f}, cfg...)...)
			if got := !strings.Contains(rendered, "gateways: []"); got != tt.served {
				t.Errorf("rendered the Gateway: %v, want %v\n%s", got, tt.served, errOut)
			}
			if !tt.served && !strings.Contains(errOut, "note: Gateway shop/platform is not rendered: its controller "+operator+" does not accept its GatewayClass") {
				t.Errorf("render's note does not say why:\n%s", errOut)
			}
			explained, _, _ := mainWSO2(append([]string{"explain", "httproute/shop/store", "-f", f}, cfg...)...)
			if got := strings.Contains(explained, "does not accept Gateway shop/platform's GatewayClass "+tt.class); got == tt.served {
				t.Errorf("explain notes the refused class: %v, want %v:\n%s", got, !tt.served, explained)
			}
		})
	}
}
