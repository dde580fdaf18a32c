package kgateway

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kgatewayGraph builds the topology of docs with kgateway's verdict on its
// Gateways' listeners, its tls.options parser and its stream route rule,
// as internal/families passes them in.
func kgatewayGraph(t *testing.T, docs ...string) *topology.Graph {
	t.Helper()
	objs, err := manifest.Parse("in.yaml", []byte(strings.Join(docs, "\n---\n")), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{})
	ctrls := map[string]topology.Controller{ControllerName: {Title: Controller.Title, Listeners: func(g *topology.Graph, gw *topology.Gateway) []diag.Diagnostic {
		return Family.Listeners(g, gw, policy.Config{})
	}, StreamRoutes: Family.StreamRoutes, Conflicts: Family.Conflicts}}
	return topology.Build(m, topology.Options{Keys: TopologyKeys, TLSOptions: tlsOptions, Controllers: ctrls, Controller: ControllerName})
}

func findCond(conds []metav1.Condition, typ string) metav1.Condition {
	for _, c := range conds {
		if c.Type == typ {
			return c
		}
	}
	return metav1.Condition{Type: typ, Reason: "<missing>"}
}

// TestListenerValidity: the listeners kgateway does not serve, with the
// conditions it writes for them (frontendtlsconfig, validation and
// gateway-only goldens).
func TestListenerValidity(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  tls:
    frontend:
      default:
        validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}]}
      perPort:
      - port: 8443
        tls: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: nope}]}}
      - port: 8444
        tls: {validation: {caCertificateRefs: [{group: "", kind: Service, name: ca}]}}
      - port: 8445
        tls: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: ca, namespace: other}]}}
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: udp-reserved, protocol: UDP, port: 9091}
  - name: tcp-kinds
    protocol: HTTP
    port: 81
    allowedRoutes: {kinds: [{kind: TCPRoute}]}
  - {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}]}}
  - {name: ca-missing, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: cert}]}}
  - {name: ca-kind, protocol: HTTPS, port: 8444, tls: {certificateRefs: [{name: cert}]}}
  - {name: ca-not-granted, protocol: HTTPS, port: 8445, tls: {certificateRefs: [{name: cert}]}}
  - name: bad-version
    protocol: HTTPS
    port: 8446
    tls: {certificateRefs: [{name: cert}], options: {kgateway.dev/min-tls-version: "1.4"}}`
	reserved := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: reserved, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: reserved, protocol: HTTP, port: 9091}]`
	objs := []string{gw, reserved, `apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: infra}`, `apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: infra}`, `apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: other}`}
	g := kgatewayGraph(t, objs...)
	tests := []struct {
		listener, accepted, refs, unserved string
	}{
		{"http", "True/Accepted", "True/ResolvedRefs", ""},
		{"reserved", "False/Invalid", "True/ResolvedRefs", topology.UnservedReservedPort},             // on Gateway reserved
		{"udp-reserved", "False/UnsupportedProtocol", "True/ResolvedRefs", topology.UnservedProtocol}, // dropped by validateSupportedRoutes first; not served (GWP216)
		{"tcp-kinds", "True/Accepted", "False/InvalidRouteKinds", topology.UnservedRouteKinds},
		{"https", "True/Accepted", "True/ResolvedRefs", ""},
		{"ca-missing", "False/NoValidCACertificate", "False/InvalidCACertificateRef", topology.UnservedTLS},
		{"ca-kind", "False/NoValidCACertificate", "False/InvalidCACertificateKind", topology.UnservedTLS},
		{"ca-not-granted", "False/NoValidCACertificate", "False/RefNotPermitted", topology.UnservedTLS},
		{"bad-version", "False/Invalid", "True/ResolvedRefs", topology.UnservedTLS},
	}
	for _, tt := range tests {
		t.Run(tt.listener, func(t *testing.T) {
			gw := "gw"
			if tt.listener == "reserved" {
				gw = "reserved"
			}
			l := g.Gateway("infra", gw).Listener(tt.listener)
			a, r := findCond(l.Conditions, "Accepted"), findCond(l.Conditions, "ResolvedRefs")
			got := []string{string(a.Status) + "/" + a.Reason, string(r.Status) + "/" + r.Reason, l.Unserved}
			if diff := cmp.Diff([]string{tt.accepted, tt.refs, tt.unserved}, got); diff != "" {
				t.Errorf("Accepted, ResolvedRefs, Unserved (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGatewayRefusedListeners: kgateway's Gateway Accepted and
// Programmed when listeners are refused before or during translation.
func TestGatewayRefusedListeners(t *testing.T) {
	tests := []struct {
		name, listeners  string
		accepted, progrd string
	}{
		{"one valid", `[{name: a, protocol: HTTP, port: 80}, {name: b, protocol: HTTP, port: 9091}]`, "True/ListenersNotValid", "True/Programmed"},
		{"only a reserved port", `[{name: a, protocol: HTTP, port: 9091}]`, "True/ListenersNotValid", "False/Invalid"},
		{"only kinds it cannot carry", `[{name: a, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: TCPRoute}]}}]`, "False/ListenersNotValid", "False/Invalid"},
		{"only a missing certificate", `[{name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: nope}]}}]`, "True/ListenersNotValid", "True/Programmed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := kgatewayGraph(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: `+tt.listeners)
			conds := topology.GatewayConditions(g, g.Gateway("infra", "gw"))
			a, p := findCond(conds, "Accepted"), findCond(conds, "Programmed")
			got := []string{string(a.Status) + "/" + a.Reason, string(p.Status) + "/" + p.Reason}
			if diff := cmp.Diff([]string{tt.accepted, tt.progrd}, got); diff != "" {
				t.Errorf("Accepted, Programmed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIdleStreamListeners: a TCP or TLS listener is programmed only when
// some route is attached on its port through a TCP or TLS listener.
func TestIdleStreamListeners(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: cls
  listeners:
  - {name: idle-tcp, port: 9000, protocol: TCP}
  - {name: tls-a, port: 8443, protocol: TLS, hostname: a.example.com, tls: {mode: Passthrough}}
  - {name: tls-b, port: 8443, protocol: TLS, hostname: b.example.com, tls: {mode: Passthrough}}
  - {name: http, port: 80, protocol: HTTP}`
	tlsRoute := "apiVersion: gateway.networking.k8s.io/v1\nkind: TLSRoute\nmetadata: {name: r, namespace: infra}\nspec:\n  parentRefs: [{name: gw, sectionName: tls-b}]\n  hostnames: [b.example.com]\n  rules: [{backendRefs: [{name: db, port: 443}]}]\n"
	g := kgatewayGraph(t, gw, tlsRoute)
	for name, want := range map[string]metav1.ConditionStatus{"idle-tcp": metav1.ConditionFalse, "tls-a": metav1.ConditionTrue, "tls-b": metav1.ConditionTrue, "http": metav1.ConditionTrue} {
		if c := findCond(g.Gateway("infra", "gw").Listener(name).Conditions, "Programmed"); c.Status != want {
			t.Errorf("%s Programmed = %+v, want %s", name, c, want)
		}
	}
}

// TestStreamListenerProgrammed: a TCP or TLS listener on a port where
// kgateway programs no route (topology.Listener.StreamRoutes) is not
// programmed.
func TestStreamListenerProgrammed(t *testing.T) {
	const gw = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  listeners:
  - {name: tcp, protocol: TCP, port: 9000}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec: {ports: [{port: 80}]}`
	route := func(rules, backends int) string {
		refs := strings.TrimSuffix(strings.Repeat("{name: svc, port: 80}, ", backends), ", ")
		return "apiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: r, namespace: ns}\nspec:\n  parentRefs: [{name: gw, sectionName: tcp}]\n  rules:\n" +
			strings.Repeat("  - backendRefs: ["+refs+"]\n", rules)
	}
	for name, c := range map[string]struct {
		docs []string
		want metav1.ConditionStatus
	}{
		"no route":                   {[]string{gw}, metav1.ConditionFalse},
		"a route it programs":        {[]string{gw, route(1, 1)}, metav1.ConditionTrue},
		"two rules":                  {[]string{gw, route(2, 1)}, metav1.ConditionFalse},
		"a rule without backendRefs": {[]string{gw, route(1, 0)}, metav1.ConditionFalse},
	} {
		t.Run(name, func(t *testing.T) {
			l := kgatewayGraph(t, c.docs...).Gateway("ns", "gw").Listener("tcp")
			if p := findCond(l.Conditions, "Programmed"); p.Status != c.want {
				t.Errorf("Programmed = %+v, want %s", p, c.want)
			}
		})
	}
}

// TestUnsupportedProtocol: kgateway serves HTTP, HTTPS, TCP and TLS; a
// UDP listener is not accepted, yet reported programmed.
func TestUnsupportedProtocol(t *testing.T) {
	g := kgatewayGraph(t, "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  listeners: [{name: udp, port: 5353, protocol: UDP}, {name: tcp, port: 9000, protocol: TCP}]\n")
	for _, l := range []struct {
		name, accepted, programmed string
	}{{"udp", "False/UnsupportedProtocol", "True/Programmed"}, {"tcp", "True/Accepted", "False/Invalid"}} {
		cs := g.Gateway("infra", "gw").Listener(l.name).Conditions
		a, p := findCond(cs, "Accepted"), findCond(cs, "Programmed")
		if got := []string{string(a.Status) + "/" + a.Reason, string(p.Status) + "/" + p.Reason}; !cmp.Equal(got, []string{l.accepted, l.programmed}) {
			t.Errorf("%s listener Accepted, Programmed = %v, want %s, %s", l.name, got, l.accepted, l.programmed)
		}
	}
}

// TestListenerNotServedNamesController: the finding for a listener left
// unserved names the controller whose verdict it is.
func TestListenerNotServedNamesController(t *testing.T) {
	g := kgatewayGraph(t, "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  listeners: [{name: a, protocol: HTTP, port: 9091}]\n")
	var msgs []string
	for _, d := range g.Diagnostics {
		if d.Code == topology.LintListenerNotServed.Code {
			msgs = append(msgs, d.Message)
		}
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "port is reserved; "+Controller.Title+" builds no filter chain") {
		t.Errorf("not-served findings = %q, want one naming the reserved port and %s", msgs, Controller.Title)
	}
}
