package status_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/status"
)

// TestGatewayValidListeners: kgateway counts a Gateway's valid listeners
// (its own and its ListenerSets') after validateSupportedRoutes has
// dropped those of a protocol it does not serve or of no route kind it
// can carry (translator/listener/validation.go: validateSupportedRoutes,
// validateListeners); with none left — none at all included — the
// Gateway is Accepted=False and Programmed=False, ListenersNotValid ("No
// valid listeners"). Shapes no public case has: a Gateway of UDP
// listeners only, one of none, one whose ListenerSet brings only a UDP
// listener, and a UDP listener beside a valid one.
func TestGatewayValidListeners(t *testing.T) {
	gw := func(name, listeners string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + name + ", namespace: infra}\n" +
			"spec:\n  gatewayClassName: x\n  allowedListeners: {namespaces: {from: Same}}\n  listeners: " + listeners + "\n"
	}
	docs := gw("udp-only", "[{name: dns, protocol: UDP, port: 53}, {name: syslog, protocol: UDP, port: 514}]") +
		gw("none", "[]") +
		gw("set-udp", "[]") + `---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: set, namespace: infra}
spec:
  parentRef: {name: set-udp}
  listeners: [{name: dns, protocol: UDP, port: 53}]
` + gw("mixed", "[{name: dns, protocol: UDP, port: 53}, {name: http, protocol: HTTP, port: 80}]") +
		gw("kinds-and-udp", "[{name: dns, protocol: UDP, port: 53}, {name: http, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: TCPRoute}]}}]")
	want := map[string]string{
		"udp-only":      "False/ListenersNotValid False/Invalid",
		"none":          "False/ListenersNotValid False/Invalid",
		"set-udp":       "False/ListenersNotValid False/Invalid",
		"mixed":         "True/ListenersNotValid True/Programmed",
		"kinds-and-udp": "False/ListenersNotValid False/Invalid",
	}
	c := compileFull(t, docs)
	rep := status.Compute(c.Result, status.Options{})
	got := map[string]string{}
	for _, g := range rep.Gateways {
		got[g.Name] = condOf(g.Conditions, "Accepted") + " " + condOf(g.Conditions, "Programmed")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Gateway Accepted, Programmed (-want +got):\n%s", diff)
	}
}
