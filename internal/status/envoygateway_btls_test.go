package status_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/status"
)

// TestEnvoyGatewayBackendTLSPolicyAncestors: Envoy Gateway reports a
// BackendTLSPolicy against each route parentRef (its sectionName kept,
// attached or not) whose destination to a backend port it governs — the
// first policy, in processing order, naming the port by sectionName, else
// the first naming the whole Service (backendtlspolicy.go:
// getBackendTLSPolicy, processBackendTLSPolicy) — and against nothing
// else: a whole-Service policy every used port of which a port's own
// policy takes has no ancestor and is not Conflicted. A policy is
// Conflicted only when an earlier one has a targetRef with the same key
// (namespace, group, kind, name, sectionName; the first such targetRef,
// the later ones not claimed), and then on that earlier policy's
// ancestors, beside its own (ProcessBackendTLSPolicyStatus). Each shape
// was checked with egctl x translate v1.9.0.
func TestEnvoyGatewayBackendTLSPolicyAncestors(t *testing.T) {
	const ok = "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"
	const conflicted = "Accepted=False/Conflicted"
	for _, tc := range []struct {
		name string
		port int // the port route app/r1 (on gw2's listener l0, by sectionName) uses; r0 on gw uses 8080 and 8443
		svc  string
		pols [][2]string // name, targetRefs as "svc" or "svc:section", comma-separated
		want map[string][]string
		// overridden are the policies rejected Overridden, "name@port"
		overridden []string
	}{
		{name: "a whole-Service policy whose every used port a port's own policy takes", port: 8080, svc: "svc",
			pols:       [][2]string{{"a", "svc"}, {"b", "svc:https"}, {"c", "svc:http"}},
			want:       map[string][]string{"a": nil, "b": {"gw: " + ok}, "c": {"gw: " + ok, "gw2#l0: " + ok}},
			overridden: []string{"a@http", "a@https"}},
		{name: "… and a later duplicate of it, Conflicted on its (no) ancestors", port: 8080, svc: "svc",
			pols:       [][2]string{{"a", "svc"}, {"b", "svc:https"}, {"c", "svc:http"}, {"d", "svc"}},
			want:       map[string][]string{"a": nil, "b": {"gw: " + ok}, "c": {"gw: " + ok, "gw2#l0: " + ok}, "d": nil},
			overridden: []string{"a@http", "a@https", "d@http", "d@https"}},
		{name: "a whole-Service policy governs the port no policy names", port: 9000, svc: "svc",
			pols:       [][2]string{{"a", "svc"}, {"b", "svc:https"}, {"c", "svc:http"}, {"d", "svc"}},
			want:       map[string][]string{"a": {"gw2#l0: " + ok}, "b": {"gw: " + ok}, "c": {"gw: " + ok}, "d": {"gw2#l0: " + conflicted}},
			overridden: []string{"a@http", "a@https", "d@http", "d@https"}},
		{name: "a duplicate sectionName policy", port: 9000, svc: "svc",
			pols:       [][2]string{{"a", "svc:http"}, {"b", "svc:http"}, {"c", "svc"}},
			want:       map[string][]string{"a": {"gw: " + ok}, "b": {"gw: " + conflicted}, "c": {"gw: " + ok, "gw2#l0: " + ok}},
			overridden: []string{"c@http"}},
		{name: "a port's own policy first, a whole-Service one, a duplicate of the first", port: 8443, svc: "svc",
			pols:       [][2]string{{"a", "svc:https"}, {"b", "svc"}, {"c", "svc:https"}},
			want:       map[string][]string{"a": {"gw: " + ok, "gw2#l0: " + ok}, "b": {"gw: " + ok}, "c": {"gw: " + conflicted, "gw2#l0: " + conflicted}},
			overridden: []string{"b@https"}},
		{name: "a policy conflicting on one targetRef keeps the ancestors of its other", port: 8080, svc: "svc2",
			pols: [][2]string{{"a", "svc"}, {"b", "svc2,svc"}},
			want: map[string][]string{"a": {"gw: " + ok}, "b": {"gw: " + conflicted, "gw2#l0: " + ok}}},
		{name: "policies on a port no route uses", port: 8080, svc: "svc2",
			pols: [][2]string{{"a", "svc:grpc"}, {"b", "svc:grpc"}},
			want: map[string][]string{"a": nil, "b": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs := egBTLSBase(tc.svc, tc.port)
			for _, p := range tc.pols {
				var refs []string
				for _, r := range strings.Split(p[1], ",") {
					name, section, _ := strings.Cut(r, ":")
					ref := "{group: '', kind: Service, name: " + name
					if section != "" {
						ref += ", sectionName: " + section
					}
					refs = append(refs, ref+"}")
				}
				docs += fmt.Sprintf("---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: %s, namespace: app}\nspec:\n"+
					"  targetRefs: [%s]\n  validation: {hostname: %s.example.com, wellKnownCACertificates: System}\n", p[0], strings.Join(refs, ", "), p[0])
			}
			c := compileFull(t, docs)
			got, _ := egStatuses(status.Compute(c.Result, status.Options{}))
			for _, p := range tc.pols {
				var ancs []string
				prefix := "BackendTLSPolicy/app/" + p[0] + " @ Gateway/infra/"
				for k, v := range got {
					if rest, ok := strings.CutPrefix(k, prefix); ok {
						ancs = append(ancs, rest+": "+v)
					}
				}
				slices.Sort(ancs)
				want := slices.Sorted(slices.Values(tc.want[p[0]]))
				if !slices.Equal(ancs, want) {
					t.Errorf("%s: ancestors %q, want %q", p[0], ancs, want)
				}
			}
			var overridden []string
			for p, rjs := range c.Result.Attach.Rejected {
				for tk, rj := range rjs {
					if rj.Verdict == policy.VerdictOverridden && tk.Backend.Kind == "Service" {
						overridden = append(overridden, p.Obj.Name+"@"+tk.Port)
					}
				}
			}
			slices.Sort(overridden)
			if !slices.Equal(overridden, tc.overridden) {
				t.Errorf("Overridden on %q, want %q", overridden, tc.overridden)
			}
		})
	}
}

// egBTLSBase is an Envoy Gateway platform for BackendTLSPolicy: Gateway
// infra/gw (listener http) and infra/gw2 (l0), Services app/svc (ports
// http 8080, https 8443, grpc 9000) and app/svc2 (http 8080), route
// app/r0 on gw to svc's 8080 and 8443, and app/r1 on gw2's l0 to svc2's
// or svc's port.
func egBTLSBase(svc string, port int) string {
	return egPlatform("infra", "  listeners:\n  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}\n") + `
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw2, namespace: infra}
spec:
  gatewayClassName: eg
  listeners:
  - {name: l0, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
  - {name: l1, protocol: HTTP, port: 81, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{name: http, port: 8080}, {name: https, port: 8443}, {name: grpc, port: 9000}]}
---
apiVersion: v1
kind: Service
metadata: {name: svc2, namespace: app}
spec: {ports: [{name: http, port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r0, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules:
  - matches: [{path: {value: /r0}}]
    backendRefs: [{name: svc, port: 8080}]
  - matches: [{path: {value: /r1}}]
    backendRefs: [{name: svc, port: 8443}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: app}
spec:
  parentRefs: [{name: gw2, namespace: infra, sectionName: l0}]
  rules:
  - matches: [{path: {value: /r2}}]
    backendRefs: [{name: ` + svc + fmt.Sprintf(", port: %d}]\n", port)
}

// TestEnvoyGatewayBackendTLSPolicyAncestorPort: the ancestor Envoy
// Gateway reports a BackendTLSPolicy against for a route's destination is
// the route's parentRef as written, its port too (route.go:
// processDestination passes the parentRef's group, kind, namespace, name,
// sectionName and port to applyBackendTLSSetting), whether or not a
// listener has that port; entries are told apart without the port
// (status.ancestorRefsEqual), so of two parentRefs to one Gateway that
// differ only in their port the first is the ancestor. A policy
// Conflicted on it takes the same reference. Each shape was checked with
// egctl x translate v1.9.0.
func TestEnvoyGatewayBackendTLSPolicyAncestorPort(t *testing.T) {
	const ok = "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"
	gw := egPlatform("infra", "  listeners:\n  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}\n"+
		"  - {name: alt, protocol: HTTP, port: 8080, hostname: alt.example.com, allowedRoutes: {namespaces: {from: All}}}\n") +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: app}\nspec: {ports: [{name: http, port: 8080}, {name: https, port: 8443}]}\n"
	policy := func(name, target string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" +
			"  targetRefs: [" + target + "]\n  validation: {hostname: a.example.com, wellKnownCACertificates: System}\n"
	}
	const whole, https = "{group: '', kind: Service, name: svc}", "{group: '', kind: Service, name: svc, sectionName: https}"
	for _, tc := range []struct {
		name, parentRefs, policies string
		want                       []string // "POLICY @ ANCESTOR: conditions"
	}{
		{name: "a parentRef with a port", parentRefs: "[{name: gw, namespace: infra, port: 80}]", policies: policy("p", whole),
			want: []string{"p @ Gateway/infra/gw:80: " + ok}},
		{name: "a parentRef with a sectionName and a port, the policy on the Service port", parentRefs: "[{name: gw, namespace: infra, sectionName: http, port: 80}]",
			policies: policy("p", https), want: []string{"p @ Gateway/infra/gw#http:80: " + ok}},
		{name: "a port no listener has", parentRefs: "[{name: gw, namespace: infra, port: 9999}]", policies: policy("p", whole),
			want: []string{"p @ Gateway/infra/gw:9999: " + ok}},
		{name: "two parentRefs differing in the port: the first", parentRefs: "[{name: gw, namespace: infra, port: 8080}, {name: gw, namespace: infra, port: 80}]",
			policies: policy("p", https), want: []string{"p @ Gateway/infra/gw:8080: " + ok}},
		{name: "no port", parentRefs: "[{name: gw, namespace: infra}]", policies: policy("p", https),
			want: []string{"p @ Gateway/infra/gw: " + ok}},
		{name: "a later policy Conflicted on the ancestor with its port", parentRefs: "[{name: gw, namespace: infra, port: 80}]",
			policies: policy("p", whole) + policy("q", whole),
			want:     []string{"p @ Gateway/infra/gw:80: " + ok, "q @ Gateway/infra/gw:80: Accepted=False/Conflicted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs := gw + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n" +
				"  parentRefs: " + tc.parentRefs + "\n  rules: [{backendRefs: [{name: svc, port: 8443}]}]\n" + tc.policies
			got, _ := egStatuses(status.Compute(compileFull(t, docs).Result, status.Options{}))
			var ancs []string
			for k, v := range got {
				if rest, ok := strings.CutPrefix(k, "BackendTLSPolicy/app/"); ok {
					ancs = append(ancs, rest+": "+v)
				}
			}
			slices.Sort(ancs)
			if !slices.Equal(ancs, tc.want) {
				t.Errorf("ancestors %q, want %q", ancs, tc.want)
			}
		})
	}
}
