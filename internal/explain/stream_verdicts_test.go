package explain_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/secret/secrettest"
)

// egStreams is an Envoy Gateway Gateway with a passthrough TLS listener,
// one that terminates TLS and a TCP listener; a TLSRoute to a
// DynamicResolver Backend attached to both TLS listeners; and three
// TCPRoutes on the TCP listener: the oldest of two rules, then two of one
// rule.
var egStreams = egGateway("infra", "gw", "  listeners:\n"+
	"  - {name: pass, protocol: TLS, port: 443, tls: {mode: Passthrough}}\n"+
	"  - {name: term, protocol: TLS, port: 8443, tls: {mode: Terminate, certificateRefs: [{name: cert}]}}\n"+
	"  - {name: tcp, protocol: TCP, port: 9000}\n") + `---
apiVersion: v1
kind: Service
metadata: {name: one, namespace: infra}
spec: {ports: [{port: 443}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: dyn, namespace: infra}
spec: {type: DynamicResolver}
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: dyn, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: pass}, {name: gw, sectionName: term}]
  hostnames: [www.example.com]
  rules: [{backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: dyn}]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: two-rules, namespace: infra, creationTimestamp: "2024-01-01T00:00:00Z"}
spec:
  parentRefs: [{name: gw, sectionName: tcp}]
  rules: [{backendRefs: [{name: one, port: 443}]}, {backendRefs: [{name: one, port: 443}]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: z-first, namespace: infra, creationTimestamp: "2024-02-01T00:00:00Z"}
spec:
  parentRefs: [{name: gw, sectionName: tcp}]
  rules: [{backendRefs: [{name: one, port: 443}]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: a-second, namespace: infra, creationTimestamp: "2024-03-01T00:00:00Z"}
spec:
  parentRefs: [{name: gw, sectionName: tcp}]
  rules: [{backendRefs: [{name: one, port: 443}]}]
`

// TestExplainEnvoyGatewayStreamVerdicts: on an Envoy Gateway Gateway,
// explain says of each TCPRoute and TLSRoute what Envoy Gateway serves,
// as render builds it: a TLSRoute to a dynamic resolver carries no
// connection on the listener that terminates TLS (its ResolvedRefs False
// there) and does on the passthrough one; a TCP listener serves its first
// TCPRoute of one rule, by creation time, and no other; a UDP listener
// its first UDPRoute of one rule, likewise.
func TestExplainEnvoyGatewayStreamVerdicts(t *testing.T) {
	// a second Gateway with a UDP listener and two UDPRoutes of one rule
	udp := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: dns, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: dns, protocol: UDP, port: 53}]\n"
	for _, r := range []struct{ name, created string }{{"u-second", "2024-02-01T00:00:00Z"}, {"u-first", "2024-01-01T00:00:00Z"}} {
		udp += "---\napiVersion: gateway.networking.k8s.io/v1\nkind: UDPRoute\nmetadata: {name: " + r.name + ", namespace: infra, creationTimestamp: '" + r.created + "'}\n" +
			"spec:\n  parentRefs: [{name: dns}]\n  rules: [{backendRefs: [{name: one, port: 443}]}]\n"
	}
	objs, err := manifest.Parse("t.yaml", []byte(egStreams+secrettest.TLSSecretYAML("infra", "cert", "www.example.com")+udp), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default", Settings: map[string]any{"envoyGateway.enableBackend": true}})
	tests := []struct {
		kind, name, listener, note string
	}{
		{"TLSRoute", "dyn", "infra/gw/pass", "its connections on port "},
		{"TLSRoute", "dyn", "infra/gw/term", "carries no connection (GWP213): refused on this listener (ResolvedRefs=False, UnsupportedValue): Dynamic resolver backend is only supported with TLS passthrough listeners"},
		{"TCPRoute", "z-first", "infra/gw/tcp", "its connections on port "},
		{"TCPRoute", "a-second", "infra/gw/tcp", "carries no connection (GWP213): a TCP listener serves one TCPRoute, the first of one rule by creationTimestamp, then namespace and name (all are Accepted); it serves TCPRoute infra/z-first"},
		{"TCPRoute", "two-rules", "infra/gw/tcp", "carries no connection (GWP213): refused (Accepted=False, InvalidRule)"},
		{"UDPRoute", "u-first", "infra/dns/dns", "its datagrams on UDP port 53 are proxied (udp_proxy)"},
		{"UDPRoute", "u-second", "infra/dns/dns", "carries no connection (GWP213): a UDP listener serves one UDPRoute, the first of one rule by creationTimestamp, then namespace and name (all are Accepted); it serves UDPRoute infra/u-first"},
	}
	for _, tt := range tests {
		rep, err := explain.Explain(c.Result, explain.TargetSpec{Kind: tt.kind, Namespace: "infra", Name: tt.name}, explain.Options{})
		if err != nil {
			t.Fatalf("%s %s: %v", tt.kind, tt.name, err)
		}
		found := false
		for _, tg := range rep.Targets {
			if tg.Listener != tt.listener {
				continue
			}
			found = true
			if len(tg.Notes) != 1 || !strings.HasPrefix(tg.Notes[0], tt.note) {
				t.Errorf("%s %s on %s: notes %q, want one starting %q", tt.kind, tt.name, tt.listener, tg.Notes, tt.note)
			}
		}
		if !found {
			t.Errorf("%s %s: no target on listener %s", tt.kind, tt.name, tt.listener)
		}
	}
}
