package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
)

// hapticBTPStatusBase is a HAPTIC GatewayClass and Gateway, an Envoy
// Gateway one, the Service svc (port https 443) and a CA ConfigMap; each
// case adds routes and BackendTLSPolicies.
const hapticBTPStatusBase = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: haptic}
spec: {controllerName: haproxy-haptic.org/controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: hp, namespace: default}
spec:
  gatewayClassName: haptic
  listeners: [{name: http, protocol: HTTP, port: 80}, {name: tls, protocol: TLS, port: 443, tls: {mode: Passthrough}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: eg, namespace: default}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: default}
spec: {ports: [{name: https, port: 443}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ca, namespace: default}
data: {ca.crt: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}
`

// hapticStatusBTP is a BackendTLSPolicy of ns/name created at created ("" for
// none) with the targetRefs written as targets, trusting the ConfigMap ca
// (or the system CAs outside default).
func hapticStatusBTP(ns, name, created, targets string) string {
	meta := "{name: " + name + ", namespace: " + ns
	if created != "" {
		meta += ", creationTimestamp: \"" + created + "\""
	}
	validation := `caCertificateRefs: [{group: "", kind: ConfigMap, name: ca}]`
	if ns != "default" {
		validation = "wellKnownCACertificates: System"
	}
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: " + meta + "}\nspec:\n  targetRefs: " + targets +
		"\n  validation:\n    hostname: svc.example.com\n    " + validation + "\n"
}

// hapticBTPRoute is a route of kind in ns/name with the parentRefs and
// one rule's backendRefs written as given.
func hapticBTPRoute(kind, ns, name, parents, backends string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: " + ns +
		"}\nspec:\n  parentRefs: " + parents + "\n  rules: [{backendRefs: " + backends + "}]\n"
}

// TestHAPTICBackendTLSPolicyStatus: the status HAPTIC writes on a
// BackendTLSPolicy is its own (73-status-policy.yaml@a7ac8a15:
// GenerateBackendTLSPolicyStatusPatch and the route-ancestors snippets) —
// the Gateways of every HTTPRoute, GRPCRoute, TLSRoute and TCPRoute
// sending to the Service, whoever's, the namespace written only where the
// parentRef wrote it, else the targetRefs themselves; Conflicted only
// beside an older policy with the same group, kind, name and sectionName,
// of any namespace. Before (hap39), gwpol reported it against the HAPTIC
// Gateways whose routes reach the backend, none when none did, and called
// a port's policy Conflicted beside an older whole-Service one (the
// backend's rank, not the status').
func TestHAPTICBackendTLSPolicyStatus(t *testing.T) {
	svc := `[{group: "", kind: Service, name: svc}]`
	port := `[{group: "", kind: Service, name: svc, sectionName: https}]`
	to := `[{name: svc, port: 443}]`
	for _, tc := range []struct {
		name string
		objs string
		want []string // "policy: ancestor Accepted=reason ResolvedRefs=reason", HAPTIC's entries, sorted
		warn string   // a part of a GWP401 warning; "" for none
	}{
		{name: "a GRPCRoute's and a TLSRoute's Gateways too, the namespace as the parentRef wrote it",
			objs: hapticBTPRoute("GRPCRoute", "default", "g", `[{name: hp}]`, to) +
				hapticBTPRoute("TLSRoute", "default", "t", `[{name: hp, namespace: default, sectionName: tls}]`, to) +
				hapticStatusBTP("default", "btp", "", svc),
			// the GRPCRoute ranks first and names hp without a namespace
			want: []string{"btp: Gateway/hp Accepted=Accepted ResolvedRefs=ResolvedRefs"}},
		{name: "the first parentRef by route kind and name decides the namespace",
			objs: hapticBTPRoute("HTTPRoute", "default", "a", `[{name: hp, namespace: default}]`, to) +
				hapticBTPRoute("HTTPRoute", "default", "b", `[{name: hp}]`, to) +
				hapticStatusBTP("default", "btp", "", svc),
			want: []string{"btp: Gateway/default/hp Accepted=Accepted ResolvedRefs=ResolvedRefs"}},
		{name: "another controller's Gateway: HAPTIC reports it as well",
			objs: hapticBTPRoute("HTTPRoute", "default", "r", `[{name: hp}, {name: eg}]`, to) + hapticStatusBTP("default", "btp", "", svc),
			want: []string{"btp: Gateway/eg Accepted=Accepted ResolvedRefs=ResolvedRefs", "btp: Gateway/hp Accepted=Accepted ResolvedRefs=ResolvedRefs"}},
		{name: "no route sends to the Service: the targetRef is the ancestor",
			objs: hapticStatusBTP("default", "btp", "", port),
			want: []string{"btp: Service/default/svc Accepted=Accepted ResolvedRefs=ResolvedRefs"}},
		{name: "a route of another namespace naming the Service's: its Gateway",
			objs: "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: apps}\n" +
				hapticBTPRoute("HTTPRoute", "apps", "r", `[{name: hp, namespace: default}]`, `[{name: svc, namespace: default, port: 443}]`) +
				hapticStatusBTP("default", "btp", "", svc),
			want: []string{"btp: Gateway/default/hp Accepted=Accepted ResolvedRefs=ResolvedRefs"}},
		{name: "a whole Service's policy and a port's: both accepted, and a warning that the backend takes the older",
			objs: hapticBTPRoute("HTTPRoute", "default", "r", `[{name: hp}]`, to) +
				hapticStatusBTP("default", "whole", "2026-01-01T00:00:00Z", svc) + hapticStatusBTP("default", "port", "2026-02-01T00:00:00Z", port),
			want: []string{"port: Gateway/hp Accepted=Accepted ResolvedRefs=ResolvedRefs", "whole: Gateway/hp Accepted=Accepted ResolvedRefs=ResolvedRefs"},
			warn: "its backends to port https of Service default/svc take gateway.networking.k8s.io/BackendTLSPolicy/default/whole"},
		{name: "two on the same port: the undated one conflicted, with the port in the message",
			objs: hapticBTPRoute("HTTPRoute", "default", "r", `[{name: hp}]`, to) +
				hapticStatusBTP("default", "a-undated", "", port) + hapticStatusBTP("default", "b-dated", "2026-02-01T00:00:00Z", port),
			want: []string{"a-undated: Gateway/hp Accepted=Conflicted(Another BackendTLSPolicy already targets Service/svc/https) ResolvedRefs=ResolvedRefs",
				"b-dated: Gateway/hp Accepted=Accepted ResolvedRefs=ResolvedRefs"}},
		{name: "an older policy of another namespace on a Service of the same name: conflicted, and a warning",
			objs: "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: other}\nspec: {ports: [{name: https, port: 443}]}\n" +
				hapticStatusBTP("default", "btp", "2026-01-02T00:00:00Z", svc) + hapticStatusBTP("other", "old", "2026-01-01T00:00:00Z", svc),
			want: []string{"btp: Service/default/svc Accepted=Conflicted(Another BackendTLSPolicy already targets Service/svc/) ResolvedRefs=ResolvedRefs",
				"old: Service/other/svc Accepted=Accepted ResolvedRefs=ResolvedRefs"},
			warn: "other/old, of another namespace, is older"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(in, []byte(hapticBTPStatusBase+tc.objs), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := hapticBTPAncestors(t, in); !slices.Equal(got, tc.want) {
				t.Errorf("status:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			out, errOut, _ := run(t, "lint", "-f", in)
			if warned := strings.Contains(out, "warning  GWP401"); warned != (tc.warn != "") || !strings.Contains(out, tc.warn) {
				t.Errorf("lint: want GWP401 warning %q:\n%s%s", tc.warn, out, errOut)
			}
			// one verdict, every view (TestVerdictProperty's check): where
			// HAPTIC's status and its backends differ, the IR says so
			set, err := manifest.Load([]string{in}, manifest.Options{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(set, &Config{Namespace: "default"})
			if rendered, err := renderPlatform(c, inferredTarget, false, nil); err == nil {
				checkVerdictInput(t, tc.name, c, rendered, map[string]int{})
			}
		})
	}
	t.Run("without a HAPTIC GatewayClass: no entry of HAPTIC's", func(t *testing.T) {
		in := filepath.Join(t.TempDir(), "in.yaml")
		base := strings.Replace(hapticBTPStatusBase, "haproxy-haptic.org/controller", "example.com/other", 1)
		if err := os.WriteFile(in, []byte(base+hapticStatusBTP("default", "btp", "", svc)), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := hapticBTPAncestors(t, in); len(got) != 0 {
			t.Errorf("status: %v, want no entry of HAPTIC's", got)
		}
	})
}

// hapticBTPAncestors are the BackendTLSPolicies' ancestors HAPTIC writes,
// as "policy: ancestor Type=Reason…" lines (a Conflicted reason with its
// message), sorted.
func hapticBTPAncestors(t *testing.T, in string) []string {
	t.Helper()
	out, errOut, code := run(t, "status", "-f", in, "-o", "json")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	var rep struct {
		Policies []struct {
			Kind, Name string
			Ancestors  []struct {
				AncestorRef    struct{ Kind, Namespace, Name string } `json:"ancestorRef"`
				ControllerName string                                 `json:"controllerName"`
				Conditions     []struct{ Type, Reason, Message string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range rep.Policies {
		if p.Kind != "BackendTLSPolicy" {
			continue
		}
		for _, a := range p.Ancestors {
			if a.ControllerName != "haproxy-haptic.org/controller" {
				continue
			}
			ref := a.AncestorRef.Kind + "/" + a.AncestorRef.Name
			if a.AncestorRef.Namespace != "" {
				ref = a.AncestorRef.Kind + "/" + a.AncestorRef.Namespace + "/" + a.AncestorRef.Name
			}
			line := p.Name + ": " + ref
			for _, c := range a.Conditions {
				line += " " + c.Type + "=" + c.Reason
				if c.Reason == "Conflicted" {
					line += "(" + c.Message + ")"
				}
			}
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	return lines
}
