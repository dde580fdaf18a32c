package status_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
)

// TestKgatewayGatewayAddresses: kgateway's status reporter writes, after
// translation, Programmed=False/AddressNotUsable for a Hostname address
// and Accepted=False/UnsupportedAddress for an address of any other type
// but IPAddress, over the Gateway's own conditions (reports/status.go:
// BuildGWStatus → handleInvalidAddresses); translation never reads the
// addresses, so the listeners keep their status and routes, render serves
// them bound as always, explain says what the Gateway reports, and lint
// reports each address (GWP223). Shapes no public case has: every
// address type alone and mixed, two of one type, an address without a
// type, a Gateway whose listeners are all refused, and an Envoy Gateway
// Gateway beside it (its own rule, GWP222, refuses only other types).
func TestKgatewayGatewayAddresses(t *testing.T) {
	cases := []struct {
		name, class, addresses, listeners string
		accepted, programmed              string // Gateway conditions: status/reason
		findings                          int    // GWP223
		served                            int    // rendered Envoy listeners
	}{
		{"no addresses", "kgw", "[]", "", "True/Accepted", "True/Programmed", 0, 1},
		{"an IP address", "kgw", "[{type: IPAddress, value: 10.0.0.1}]", "", "True/Accepted", "True/Programmed", 0, 1},
		{"an address without a type (IPAddress by default)", "kgw", "[{value: 10.0.0.1}]", "", "True/Accepted", "True/Programmed", 0, 1},
		{"a Hostname address: not programmed, still served", "kgw", "[{type: Hostname, value: lb.example.com}]", "", "True/Accepted", "False/AddressNotUsable", 1, 1},
		{"two Hostname addresses: one condition, two findings", "kgw", "[{type: Hostname, value: a.example.com}, {type: Hostname, value: b.example.com}]", "", "True/Accepted", "False/AddressNotUsable", 2, 1},
		{"a domain-prefixed type: not accepted, still served", "kgw", "[{type: example.com/pool, value: blue}]", "", "False/UnsupportedAddress", "True/Programmed", 1, 1},
		{"NamedAddress beside an IP", "kgw", "[{type: IPAddress, value: 10.0.0.1}, {type: NamedAddress, value: edge}]", "", "False/UnsupportedAddress", "True/Programmed", 1, 1},
		{"every kind at once", "kgw", "[{type: Hostname, value: lb.example.com}, {type: example.com/pool, value: blue}, {type: IPAddress, value: 10.0.0.1}]", "", "False/UnsupportedAddress", "False/AddressNotUsable", 2, 1},
		{"no valid listener: the address's reason replaces ListenersNotValid", "kgw", "[{type: example.com/pool, value: blue}]", "[{name: dns, protocol: UDP, port: 53}]", "False/UnsupportedAddress", "False/Invalid", 1, 0},
		{"no valid listener, a Hostname: Programmed's reason replaced", "kgw", "[{type: Hostname, value: lb.example.com}]", "[{name: dns, protocol: UDP, port: 53}]", "False/ListenersNotValid", "False/AddressNotUsable", 1, 0},
		{"Envoy Gateway takes a Hostname", "eg", "[{type: Hostname, value: lb.example.com}]", "", "True/Accepted", "True/Programmed", 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			listeners := tc.listeners
			if listeners == "" {
				listeners = "[{name: http, protocol: HTTP, port: 80}]"
			}
			docs := bothClasses + `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: ` + tc.class + `
  addresses: ` + tc.addresses + `
  listeners: ` + listeners + `
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
`
			c := compileFull(t, docs)
			rep := status.Compute(c.Result, status.Options{})
			if len(rep.Gateways) != 1 {
				t.Fatalf("gateways %v", rep.Gateways)
			}
			gw := rep.Gateways[0]
			if got := condOf(gw.Conditions, "Accepted") + " " + condOf(gw.Conditions, "Programmed"); got != tc.accepted+" "+tc.programmed {
				t.Errorf("Gateway Accepted, Programmed %s, want %s %s", got, tc.accepted, tc.programmed)
			}
			// the listeners are judged and attached to as without addresses
			if tc.listeners == "" {
				if len(gw.Listeners) != 1 || gw.Listeners[0].AttachedRoutes != 1 || condOf(gw.Listeners[0].Conditions, "Programmed") != "True/Programmed" {
					t.Errorf("listeners %+v, want http programmed with its route", gw.Listeners)
				}
				if len(rep.Routes) != 1 || len(rep.Routes[0].Parents) != 1 || condOf(rep.Routes[0].Parents[0].Conditions, "Accepted") != "True/Accepted" {
					t.Errorf("route status %+v, want accepted", rep.Routes)
				}
			}
			findings := 0
			for _, d := range c.Diagnostics() {
				if d.Code == "GWP223" {
					findings++
					if !strings.Contains(d.Field, "spec.addresses[") || d.Pos.Line == 0 {
						t.Errorf("GWP223 at %q %v, want an address's type with its position", d.Field, d.Pos)
					}
				}
			}
			if findings != tc.findings {
				t.Errorf("GWP223 findings %d, want %d", findings, tc.findings)
			}
			target := map[string]string{"kgw": "kgateway", "eg": "envoygateway"}[tc.class]
			out, err := envoy.Render(c.Result, envoy.Options{Target: target})
			if err != nil {
				t.Fatal(err)
			}
			served := 0
			for _, g := range out.Gateways {
				served += len(g.Listeners)
				for _, l := range g.Listeners {
					// bound as every listener of its controller, never to an address
					if a := l.GetAddress().GetSocketAddress().GetAddress(); a != "::" && a != "0.0.0.0" {
						t.Errorf("listener %s bound to %q", l.GetName(), a)
					}
				}
			}
			if served != tc.served {
				t.Errorf("rendered %d listeners, want %d", served, tc.served)
			}
			if tc.listeners == "" {
				ex, err := explain.Explain(c.Result, explain.TargetSpec{Kind: "Gateway", Namespace: "infra", Name: "gw"}, explain.Options{})
				if err != nil {
					t.Fatal(err)
				}
				notes := 0
				for _, n := range ex.Targets[0].Notes {
					if strings.Contains(n, "translated and served all the same") {
						notes++
					}
				}
				want := 0
				if tc.accepted != "True/Accepted" {
					want++
				}
				if tc.programmed != "True/Programmed" {
					want++
				}
				if notes != want {
					t.Errorf("explain notes %q, want %d on the reported conditions", ex.Targets[0].Notes, want)
				}
			}
		})
	}
}
