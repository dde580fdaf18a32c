package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hapticRankPlatform is a HAPTIC Gateway with an HTTPRoute to web:443 and
// a GRPCRoute to rpc:443 (both ports named https), a CA ConfigMap, and
// (appended by the test) BackendTLSPolicies on them.
const hapticRankPlatform = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: haptic}
spec: {controllerName: haproxy-haptic.org/controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: hp-gw, namespace: default}
spec:
  gatewayClassName: haptic
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: default}
spec:
  parentRefs: [{name: hp-gw}]
  hostnames: [web.example.com]
  rules: [{backendRefs: [{name: web, port: 443}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: g, namespace: default}
spec:
  parentRefs: [{name: hp-gw}]
  hostnames: [rpc.example.com]
  rules: [{backendRefs: [{name: rpc, port: 443}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: default}
spec: {ports: [{name: https, port: 443}]}
---
apiVersion: v1
kind: Service
metadata: {name: rpc, namespace: default}
spec: {ports: [{name: https, port: 443}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: default}
data: {ca.crt: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}
`

// hapticBTP is a BackendTLSPolicy on Service svc (its port https when
// port is set), created at created ("" for none), whose hostname says
// which policy a cluster took.
func hapticBTP(name, svc string, port bool, created string) string {
	section := ""
	if port {
		section = ", sectionName: https"
	}
	ts := ""
	if created != "" {
		ts = ", creationTimestamp: \"" + created + "\""
	}
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: default" + ts + "}\n" +
		"spec:\n  targetRefs: [{group: \"\", kind: Service, name: " + svc + section + "}]\n" +
		"  validation: {hostname: " + name + ".example.com, caCertificateRefs: [{group: \"\", kind: ConfigMap, name: ca}]}\n"
}

// TestHAPTICBackendTLSPolicyOnBackend: which BackendTLSPolicy a HAPTIC
// backend takes is HAPTIC's rule (30-backends.yaml@0c1a6446: the backend
// macros' winningPolicy): among every policy naming the Service, whole or
// by the port's name alike, the oldest — one without creationTimestamp
// after every dated one — then namespace/name; and a GRPCRoute's backend
// is built without the port's name (portNameForBackend stays empty), so
// a policy naming the port never reaches it. Before (hap39), a port's
// own policy went first whatever its age, and reached gRPC backends too.
func TestHAPTICBackendTLSPolicyOnBackend(t *testing.T) {
	for _, tc := range []struct {
		name     string
		policies string
		web, rpc string // the SNI of web's and rpc's clusters; "" for plaintext
	}{
		{name: "the whole Service's older policy beats the port's newer one",
			policies: hapticBTP("whole", "web", false, "2024-01-01T00:00:00Z") + hapticBTP("port", "web", true, "2024-06-01T00:00:00Z"),
			web:      "whole.example.com"},
		{name: "the port's older policy beats the whole Service's",
			policies: hapticBTP("whole", "web", false, "2024-06-01T00:00:00Z") + hapticBTP("port", "web", true, "2024-01-01T00:00:00Z"),
			web:      "port.example.com"},
		{name: "a policy without creationTimestamp loses to a dated one",
			policies: hapticBTP("a-undated", "web", true, "") + hapticBTP("b-dated", "web", false, "2024-06-01T00:00:00Z"),
			web:      "b-dated.example.com"},
		{name: "same time: the smaller name",
			policies: hapticBTP("b-port", "web", true, "2024-01-01T00:00:00Z") + hapticBTP("a-whole", "web", false, "2024-01-01T00:00:00Z"),
			web:      "a-whole.example.com"},
		{name: "a GRPCRoute's backend: a policy naming the port never reaches it",
			policies: hapticBTP("port", "rpc", true, "2024-01-01T00:00:00Z")},
		{name: "a GRPCRoute's backend takes the whole Service's newer policy over the port's older one",
			policies: hapticBTP("port", "rpc", true, "2024-01-01T00:00:00Z") + hapticBTP("whole", "rpc", false, "2024-06-01T00:00:00Z"),
			rpc:      "whole.example.com"},
		{name: "the same policies on both Services: HTTP takes the port's, gRPC the whole Service's",
			policies: hapticBTP("web-port", "web", true, "2024-01-01T00:00:00Z") + hapticBTP("web-whole", "web", false, "2024-06-01T00:00:00Z") +
				hapticBTP("rpc-port", "rpc", true, "2024-01-01T00:00:00Z") + hapticBTP("rpc-whole", "rpc", false, "2024-06-01T00:00:00Z"),
			web: "web-port.example.com", rpc: "rpc-whole.example.com"},
		// HAPTIC builds one backend per route; gwpol one cluster per port:
		// where both kinds send, the cluster is the HTTPRoute's (explain
		// says what the GRPCRoute's backend takes)
		{name: "a port both an HTTPRoute and a GRPCRoute send to: the HTTPRoute's view",
			policies: hapticBTP("port", "web", true, "2024-01-01T00:00:00Z") +
				"---\napiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: g2, namespace: default}\n" +
				"spec:\n  parentRefs: [{name: hp-gw}]\n  hostnames: [grpc-web.example.com]\n  rules: [{backendRefs: [{name: web, port: 443}]}]\n",
			web: "port.example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(in, []byte(hapticRankPlatform+tc.policies), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "render", "-f", in, "-o", "json")
			if code != 0 {
				t.Fatalf("render: exit %d: %s", code, errOut)
			}
			sni := clusterSNIs(t, out)
			if got := sni["kube_default_web_443"]; got != tc.web {
				t.Errorf("web's cluster: SNI %q, want %q", got, tc.web)
			}
			if got := sni["kube_default_rpc_443"]; got != tc.rpc {
				t.Errorf("rpc's cluster: SNI %q, want %q", got, tc.rpc)
			}
			// explain's view of a port with its own policies that a
			// GRPCRoute sends to says what a gRPC backend takes
			for _, svc := range []string{"web", "rpc"} {
				if !strings.Contains(tc.policies, "name: "+svc+", sectionName") {
					continue
				}
				ex, errOut, code := run(t, "explain", "-f", in, "service/default/"+svc)
				if code != 0 {
					t.Fatalf("explain: exit %d: %s", code, errOut)
				}
				grpc := svc == "rpc" || strings.Contains(tc.policies, "name: g2")
				if got := strings.Contains(strings.Join(strings.Fields(ex), " "), "builds a GRPCRoute's backend without the port's name"); got != grpc {
					t.Errorf("explain service/default/%s: note on gRPC backends %v, want %v:\n%s", svc, got, grpc, ex)
				}
			}
		})
	}
}

// clusterSNIs are, by cluster name, the SNI of each rendered cluster's
// upstream TLS ("" for a cluster without).
func clusterSNIs(t *testing.T, rendered string) map[string]string {
	t.Helper()
	var doc struct {
		Gateways []struct {
			Clusters []json.RawMessage `json:"clusters"`
		} `json:"gateways"`
	}
	if err := json.Unmarshal([]byte(rendered), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, gw := range doc.Gateways {
		for _, raw := range gw.Clusters {
			var c struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &c) != nil {
				continue
			}
			compact := strings.Join(strings.Fields(string(raw)), "")
			sni := ""
			if i := strings.Index(compact, `"sni":"`); i >= 0 {
				sni = compact[i+len(`"sni":"`):]
				sni = sni[:strings.IndexByte(sni, '"')]
			}
			out[c.Name] = sni
		}
	}
	return out
}
