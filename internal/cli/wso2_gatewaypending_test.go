package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWSO2GatewayPending: a Gateway of a class the WSO2 operator manages
// whose own annotations keep the operator from installing it
// (k8s_gateway_controller.go@1c84e11c: syncGateway — the api-selector
// annotation read as JSON, then the values.yaml of the helm-values
// ConfigMap, gateway_infra.go: configMapValuesYAML) is never registered:
// the operator writes Programmed False/Pending with its error (Accepted
// stays the API server's default, Unknown/Pending), every HTTPRoute on it
// gets Accepted False/GatewayPending (httproute_controller.go: Reconcile,
// before it builds anything), and nothing is served. Before (hap39) gwpol
// wrote the installed Gateway's conditions and served its routes.
func TestWSO2GatewayPending(t *testing.T) {
	input := func(class, annotations, extra string) string {
		return `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: wso2-api-platform}
spec: {controllerName: gateway.api-platform.wso2.com/gateway-operator}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/other}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: platform
  namespace: shop
  annotations: {` + annotations + `}
spec:
  gatewayClassName: ` + class + `
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: shop}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: platform}]
  rules: [{backendRefs: [{name: echo, port: 80}]}]
` + extra
	}
	const (
		values   = "gateway.api-platform.wso2.com/helm-values-configmap: gw-values"
		selector = "gateway.api-platform.wso2.com/api-selector"
	)
	configMap := func(data string) string {
		return "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: gw-values, namespace: shop}\ndata: {" + data + "}\n"
	}
	installed := "Accepted=True/Accepted:Gateway accepted; Programmed=True/Programmed:Gateway resources reconciled successfully"
	pending := func(msg string) string {
		return "Accepted=Unknown/Pending:Waiting for controller; Programmed=False/Pending:" + msg
	}
	for _, tc := range []struct {
		name, class, annotations, extra string
		gateway                         string // Type=Status/Reason:Message, joined by "; "
		route                           string // the route's Accepted as Status/Reason; "" for none of the operator's
	}{
		{name: "the helm-values ConfigMap is missing", class: "wso2-api-platform", annotations: values,
			gateway: pending(`failed to get ConfigMap shop/gw-values: configmaps "gw-values" not found`), route: "False/GatewayPending"},
		{name: "the ConfigMap has no values.yaml", class: "wso2-api-platform", annotations: values, extra: configMap("other.yaml: x"),
			gateway: pending("ConfigMap shop/gw-values does not contain 'values.yaml' key"), route: "False/GatewayPending"},
		{name: "its values.yaml is empty", class: "wso2-api-platform", annotations: values, extra: configMap(`values.yaml: ""`),
			gateway: pending("'values.yaml' key in ConfigMap shop/gw-values is empty"), route: "False/GatewayPending"},
		{name: "the api-selector is not JSON, read before the ConfigMap", class: "wso2-api-platform", annotations: selector + ": 'scope: Cluster', " + values,
			gateway: pending("api selector annotation: invalid character 's' looking for beginning of value"), route: "False/GatewayPending"},
		{name: "a JSON selector and values.yaml: installed", class: "wso2-api-platform", annotations: selector + `: '{"scope": "Namespaced", "namespaces": ["shop"]}', ` + values,
			extra: configMap(`values.yaml: "replicaCount: 1"`), gateway: installed, route: "True/Accepted"},
		{name: "another controller's Gateway: the annotations are not read", class: "other", annotations: values,
			gateway: "Accepted=True/Accepted:Gateway is accepted; Programmed=True/Programmed:Gateway is programmed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(f, []byte(input(tc.class, tc.annotations, tc.extra)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := mainWSO2("status", "-o", "json", "-f", f)
			if code != 0 {
				t.Fatalf("status: exit %d: %s", code, errOut)
			}
			var rep struct {
				Gateways []struct {
					Conditions []struct{ Type, Status, Reason, Message string }
				}
				Routes []struct {
					Parents []struct {
						ControllerName string `json:"controllerName"`
						Conditions     []struct{ Type, Status, Reason, Message string }
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Gateways) != 1 || len(rep.Routes) != 1 {
				t.Fatalf("status: %v:\n%s", err, out)
			}
			var got []string
			for _, c := range rep.Gateways[0].Conditions {
				got = append(got, c.Type+"="+c.Status+"/"+c.Reason+":"+c.Message)
			}
			if strings.Join(got, "; ") != tc.gateway {
				t.Errorf("Gateway: %s, want %s", strings.Join(got, "; "), tc.gateway)
			}
			route := ""
			for _, p := range rep.Routes[0].Parents {
				for _, c := range p.Conditions {
					if p.ControllerName == "gateway.api-platform.wso2.com/gateway-operator" && c.Type == "Accepted" {
						route = c.Status + "/" + c.Reason
					}
				}
			}
			if route != tc.route {
				t.Errorf("route Accepted: %q, want %q", route, tc.route)
			}
			lint, _, lintCode := mainWSO2("lint", "-f", f)
			never := strings.Contains(lint, "GWP515")
			if wantNever := tc.route == "False/GatewayPending"; never != wantNever || (never && lintCode != 1) {
				t.Errorf("lint: GWP515 %v (exit %d), want %v:\n%s", never, lintCode, wantNever, lint)
			}
			rendered, _, _ := mainWSO2("render", "-o", "json", "-f", f)
			if served := strings.Contains(rendered, `"name": "echo"`) || strings.Contains(rendered, "shop_echo"); served == never {
				t.Errorf("render: the route's backend served %v, want %v:\n%s", served, !never, rendered)
			}
		})
	}
}
