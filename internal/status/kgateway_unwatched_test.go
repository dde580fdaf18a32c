package status_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/status"
)

// TestExperimentalRouteKinds: kgateway never reads a UDPRoute (it has no
// collection of them), and with enableExperimentalGatewayAPIFeatures
// false it watches no TCPRoute and no TLSRoute
// (pkg/pluginsdk/collections/setup.go: InitCollections builds empty
// collections in their place), so such a route attaches nowhere, takes
// no status from kgateway, and its listener carries nothing; the other
// route kinds are read as before. The shapes mix the kinds on one
// Gateway, a ListenerSet parent, and a TLS listener that terminates.
func TestExperimentalRouteKinds(t *testing.T) {
	gw := `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: x
  allowedListeners: {namespaces: {from: Same}}
  listeners:
  - {name: http, protocol: HTTP, port: 8080}
  - {name: tcp, protocol: TCP, port: 9000}
  - {name: tls, protocol: TLS, port: 9443, tls: {mode: Passthrough}}
  - {name: udp, protocol: UDP, port: 5353}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: set, namespace: infra}
spec:
  parentRef: {name: gw}
  listeners:
  - {name: set-tcp, protocol: TCP, port: 9100}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: http}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
`
	route := func(kind, name, parent string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: " + kind + "\nmetadata: {name: " + name +
			", namespace: infra}\nspec:\n  parentRefs: [" + parent + "]\n  rules: [{backendRefs: [{name: svc, port: 80}]}]\n"
	}
	docs := gw + route("TCPRoute", "tcp", "{name: gw, sectionName: tcp}") + route("TLSRoute", "tls", "{name: gw, sectionName: tls}") +
		route("TCPRoute", "set-tcp", "{name: set, kind: ListenerSet}") + route("UDPRoute", "udp", "{name: gw, sectionName: udp}") +
		route("UDPRoute", "udp-nowhere", "{name: missing}") + route("TCPRoute", "tcp-nowhere", "{name: missing}")
	tests := []struct {
		name    string
		enabled any // the setting's value; nil: kgateway's default
		// routes: each route's Accepted per parent ("" when kgateway
		// reports none); listeners: attachedRoutes and Programmed
		routes    map[string]string
		listeners map[string]string
	}{
		{"default: every kind but UDPRoute read", nil,
			map[string]string{"web": "True/Accepted", "tcp": "True/Accepted", "tls": "True/Accepted", "set-tcp": "True/Accepted", "udp": "", "udp-nowhere": "", "tcp-nowhere": "False/NoMatchingParent"},
			map[string]string{"http": "1 True/Programmed", "tcp": "1 True/Programmed", "tls": "1 True/Programmed", "set-tcp": "1 True/Programmed", "udp": "0 True/Programmed"}},
		{"true: every kind but UDPRoute read", true,
			map[string]string{"web": "True/Accepted", "tcp": "True/Accepted", "tls": "True/Accepted", "set-tcp": "True/Accepted", "udp": "", "udp-nowhere": "", "tcp-nowhere": "False/NoMatchingParent"},
			map[string]string{"http": "1 True/Programmed", "tcp": "1 True/Programmed", "tls": "1 True/Programmed", "set-tcp": "1 True/Programmed", "udp": "0 True/Programmed"}},
		{"false: TCP and TLS routes unread, their listeners carry nothing", false,
			map[string]string{"web": "True/Accepted", "tcp": "", "tls": "", "set-tcp": "", "udp": "", "udp-nowhere": "", "tcp-nowhere": ""},
			map[string]string{"http": "1 True/Programmed", "tcp": "0 False/Invalid", "tls": "0 False/Invalid", "set-tcp": "0 False/Invalid", "udp": "0 True/Programmed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Parse("test.yaml", []byte(docs), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := &pipeline.Config{Namespace: "default"}
			if tt.enabled != nil {
				cfg = cfg.WithSetting("enableExperimentalGatewayAPIFeatures", tt.enabled)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, cfg)
			rep := status.Compute(c.Result, status.Options{})
			routes := map[string]string{}
			for _, r := range rep.Routes {
				routes[r.Name] = ""
				for _, p := range r.Parents {
					routes[r.Name] += condOf(p.Conditions, "Accepted")
				}
			}
			listeners := map[string]string{}
			for _, g := range rep.Gateways {
				for _, l := range g.Listeners {
					listeners[l.Name] = strconv.Itoa(l.AttachedRoutes) + " " + condOf(l.Conditions, "Programmed")
				}
			}
			if diff := cmp.Diff(tt.routes, routes); diff != "" {
				t.Errorf("routes' Accepted (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.listeners, listeners); diff != "" {
				t.Errorf("listeners (-want +got):\n%s", diff)
			}
			// the graph says why, for lint (GWP204) and explain
			for _, r := range c.Graph.Routes {
				for _, p := range r.Parents {
					if want := tt.routes[r.Meta.Name] == ""; p.Unwatched != want || want && p.Message == "" {
						t.Errorf("%s: Unwatched %v (%q), want %v", r.Meta.Name, p.Unwatched, p.Message, want)
					}
				}
			}
		})
	}
}
