package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWSO2GatewayStatus: what the WSO2 gateway operator at the pin writes
// on a Gateway of a class it manages (k8s_gateway_controller.go@1c84e11c:
// syncGateway → patchGatewayStatus): Accepted True/Accepted "Gateway
// accepted" and Programmed True/Programmed "Gateway resources reconciled
// successfully", whatever its listeners — it reads them only for the
// router's ports (applyListenerOverlayToValues) and writes no listener
// status. Before (hap39) gwpol wrote the Gateway API's conditions there
// (ListenersNotValid for a listener it would refuse) and a status per
// listener. A Gateway of another controller keeps the Gateway API's.
func TestWSO2GatewayStatus(t *testing.T) {
	const operator = "gateway.api-platform.wso2.com/gateway-operator"
	input := func(controller, listeners string) string {
		return `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: wso2-api-platform}
spec: {controllerName: ` + controller + `}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: platform, namespace: shop}
spec:
  gatewayClassName: wso2-api-platform
  listeners: ` + listeners + `
`
	}
	for _, tc := range []struct {
		name, controller, listeners string
		conditions                  string // Type=Status/Reason:Message, joined by "; "
		listenerStatuses            int
	}{
		{name: "an HTTP listener", controller: operator, listeners: `[{name: http, protocol: HTTP, port: 80}]`,
			conditions: "Accepted=True/Accepted:Gateway accepted; Programmed=True/Programmed:Gateway resources reconciled successfully"},
		{name: "a listener the Gateway API refuses: the operator reads no listener verdict", controller: operator,
			listeners:  `[{name: http, protocol: HTTP, port: 80}, {name: udp, protocol: UDP, port: 81}, {name: tls, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: missing}]}}]`,
			conditions: "Accepted=True/Accepted:Gateway accepted; Programmed=True/Programmed:Gateway resources reconciled successfully"},
		{name: "another controller's class: the Gateway API's conditions and listeners", controller: "example.com/other",
			listeners: `[{name: http, protocol: HTTP, port: 80}]`, conditions: "Accepted=True/Accepted:Gateway is accepted; Programmed=True/Programmed:Gateway is programmed", listenerStatuses: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(f, []byte(input(tc.controller, tc.listeners)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := mainWSO2("status", "-o", "json", "-f", f)
			if code != 0 {
				t.Fatalf("status: exit %d: %s", code, errOut)
			}
			var rep struct {
				Gateways []struct {
					Conditions []struct{ Type, Status, Reason, Message string }
					Listeners  []json.RawMessage
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Gateways) != 1 {
				t.Fatalf("status: %v:\n%s", err, out)
			}
			var got []string
			for _, c := range rep.Gateways[0].Conditions {
				got = append(got, c.Type+"="+c.Status+"/"+c.Reason+":"+c.Message)
			}
			if strings.Join(got, "; ") != tc.conditions {
				t.Errorf("conditions: %s, want %s", strings.Join(got, "; "), tc.conditions)
			}
			if n := len(rep.Gateways[0].Listeners); n != tc.listenerStatuses {
				t.Errorf("%d listener statuses, want %d", n, tc.listenerStatuses)
			}
		})
	}
}
