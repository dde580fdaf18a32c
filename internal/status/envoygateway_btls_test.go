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

// TestEnvoyGatewayBackendTLSPolicyAncestorNamespaceAsWritten: the
// parentRef Envoy Gateway reports a route destination's BackendTLSPolicy
// against is the one the route wrote (route.go: processDestination copies
// its namespace pointer), and status/policy.go: ancestorRefsEqual tells a
// reference without a namespace from one naming it: a route whose two
// parentRefs name one Gateway with and without its namespace gives the
// policy two ancestors, the first written without a namespace — whether
// they differ in sectionName, port or nothing else. A Conflicted policy
// takes the same references.
func TestEnvoyGatewayBackendTLSPolicyAncestorNamespaceAsWritten(t *testing.T) {
	const ok = "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"
	gw := egPlatform("infra", "  listeners:\n  - {name: http, protocol: HTTP, port: 80}\n  - {name: alt, protocol: HTTP, port: 8080, hostname: alt.example.com}\n") +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{name: https, port: 8443}]}\n"
	policy := func(name string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: '', kind: Service, name: svc}]\n  validation: {hostname: a.example.com, wellKnownCACertificates: System}\n"
	}
	for _, tc := range []struct {
		name, parentRefs, policies string
		want                       []string // "POLICY @ ANCESTOR: conditions"
	}{
		{name: "one parentRef without a namespace", parentRefs: "[{name: gw}]", policies: policy("p"),
			want: []string{"p @ Gateway/gw: " + ok}},
		{name: "the Gateway with and without its namespace: two ancestors", parentRefs: "[{name: gw}, {name: gw, namespace: infra}]", policies: policy("p"),
			want: []string{"p @ Gateway/gw: " + ok, "p @ Gateway/infra/gw: " + ok}},
		{name: "with and without, each with a sectionName", parentRefs: "[{name: gw, namespace: infra, sectionName: http}, {name: gw, sectionName: alt}]", policies: policy("p"),
			want: []string{"p @ Gateway/gw#alt: " + ok, "p @ Gateway/infra/gw#http: " + ok}},
		{name: "with and without, each with a port", parentRefs: "[{name: gw, port: 80}, {name: gw, namespace: infra, port: 8080}]", policies: policy("p"),
			want: []string{"p @ Gateway/gw:80: " + ok, "p @ Gateway/infra/gw:8080: " + ok}},
		{name: "a later policy Conflicted on both", parentRefs: "[{name: gw}, {name: gw, namespace: infra}]", policies: policy("p") + policy("q"),
			want: []string{"p @ Gateway/gw: " + ok, "p @ Gateway/infra/gw: " + ok, "q @ Gateway/gw: Accepted=False/Conflicted", "q @ Gateway/infra/gw: Accepted=False/Conflicted"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs := gw + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n" +
				"  parentRefs: " + tc.parentRefs + "\n  rules: [{backendRefs: [{name: svc, port: 8443}]}]\n" + tc.policies
			rep := status.Compute(compileFull(t, docs).Result, status.Options{})
			got, _ := egStatuses(rep)
			var ancs []string
			for k, v := range got {
				if rest, ok := strings.CutPrefix(k, "BackendTLSPolicy/infra/"); ok {
					ancs = append(ancs, rest+": "+v)
				}
			}
			slices.Sort(ancs)
			if !slices.Equal(ancs, tc.want) {
				t.Errorf("ancestors %q, want %q", ancs, tc.want)
			}
			// the object an unqualified reference names is still known
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					if a.ResolvedNamespace != "infra" {
						t.Errorf("%s @ %s resolves to namespace %q, want infra", p.Name, a.AncestorRef, a.ResolvedNamespace)
					}
				}
			}
		})
	}
}

// TestEnvoyGatewayBackendTLSPolicyTelemetryAncestor: Envoy Gateway
// translates the telemetry of the EnvoyProxy in effect on each of its
// Gateways before any route (listener.go: processProxyObservability →
// processAccessLog, processTracing, processMetrics →
// processBackendRefsForTelemetry), and looks for the BackendTLSPolicy of
// every telemetry backend with the EnvoyProxy as the parent
// (applyBackendTLSSetting): the policy's ancestor is
// gateway.envoyproxy.io EnvoyProxy NS/NAME. The walk — access log
// settings' ALS and OpenTelemetry sinks, the tracing provider, metrics
// OpenTelemetry sinks — stops at the first error it returns: an access
// log match that is not CEL, a Service missing or without the TCP port,
// a kind other than Service or Backend, or the policy's own TLS failing
// (its ancestor set first); a later sink's policy then has no ancestor. A
// Gateway refused whole (an EnvoyProxy Envoy Gateway refuses) is not
// walked.
func TestEnvoyGatewayBackendTLSPolicyTelemetryAncestor(t *testing.T) {
	const ok = "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"
	const noCA = "Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidCACertificateRef"
	const proxy = "EnvoyProxy/infra/proxy"
	class := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: " + egController +
		"\n  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: proxy, namespace: infra}\n"
	base := class + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
		"  listeners: [{name: http, protocol: HTTP, port: 80}]\n"
	svc := func(name string) string {
		return "---\napiVersion: v1\nkind: Service\nmetadata: {name: " + name + ", namespace: infra}\nspec: {ports: [{port: 4317}]}\n"
	}
	policy := func(name, target, ca string) string {
		v := "{hostname: a.example.com, wellKnownCACertificates: System}"
		if ca != "" {
			v = "{hostname: a.example.com, caCertificateRefs: [{group: '', kind: ConfigMap, name: " + ca + "}]}"
		}
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: '', kind: Service, name: " + target + "}]\n  validation: " + v + "\n"
	}
	envoyProxy := func(telemetry string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: proxy, namespace: infra}\nspec:\n  telemetry:\n" + telemetry
	}
	otelLog := func(svc string) string {
		return "{type: OpenTelemetry, openTelemetry: {backendRefs: [{name: " + svc + ", port: 4317}]}}"
	}
	tracing := func(svc string) string {
		return "    tracing: {provider: {type: OpenTelemetry, backendRefs: [{name: " + svc + ", port: 4317}]}}\n"
	}
	metrics := func(svc string) string {
		return "    metrics: {sinks: [{type: OpenTelemetry, openTelemetry: {backendRefs: [{name: " + svc + ", port: 4317}]}}]}\n"
	}
	for _, tc := range []struct {
		name, docs string
		want       []string // "POLICY @ ANCESTOR: conditions"
	}{
		{name: "an access log, tracing and metrics backend, each with its policy",
			docs: envoyProxy("    accessLog: {settings: [{sinks: ["+otelLog("logs")+"]}]}\n"+tracing("traces")+metrics("metrics")) +
				svc("logs") + svc("traces") + svc("metrics") + policy("l", "logs", "") + policy("t", "traces", "") + policy("m", "metrics", ""),
			want: []string{"l @ " + proxy + ": " + ok, "m @ " + proxy + ": " + ok, "t @ " + proxy + ": " + ok}},
		{name: "an ALS sink",
			docs: envoyProxy("    accessLog: {settings: [{sinks: [{type: ALS, als: {type: HTTP, backendRefs: [{name: logs, port: 4317}]}}]}]}\n") +
				svc("logs") + policy("l", "logs", ""),
			want: []string{"l @ " + proxy + ": " + ok}},
		{name: "a policy refusing its CA stops the walk after its ancestor",
			docs: envoyProxy(tracing("traces")+metrics("metrics")) + svc("traces") + svc("metrics") + policy("t", "traces", "missing") + policy("m", "metrics", ""),
			want: []string{"t @ " + proxy + ": " + noCA}},
		{name: "a missing Service stops the walk",
			docs: envoyProxy(tracing("gone")+metrics("metrics")) + svc("metrics") + policy("m", "metrics", ""),
			want: nil},
		{name: "a Service without the port stops the walk",
			docs: envoyProxy(tracing("traces")+metrics("metrics")) + strings.Replace(svc("traces"), "4317", "4318", 1) + svc("metrics") +
				policy("t", "traces", "") + policy("m", "metrics", ""),
			want: nil},
		{name: "an access log match that is not CEL stops the walk before the tracing",
			docs: envoyProxy("    accessLog: {settings: [{matches: ['a ==('], sinks: ["+otelLog("logs")+"]}]}\n"+tracing("traces")) +
				svc("logs") + svc("traces") + policy("l", "logs", "") + policy("t", "traces", ""),
			want: nil},
		{name: "an EnvoyProxy Envoy Gateway refuses: its Gateway is not translated, nothing walked",
			docs: strings.Replace(envoyProxy(tracing("traces")), "spec:\n", "spec:\n  provider: {type: Host}\n", 1) + svc("traces") + policy("t", "traces", ""),
			want: nil},
		{name: "a disabled access log is not walked",
			docs: envoyProxy("    accessLog: {disable: true, settings: [{sinks: ["+otelLog("logs")+"]}]}\n"+tracing("traces")) +
				svc("logs") + svc("traces") + policy("l", "logs", "") + policy("t", "traces", ""),
			want: []string{"t @ " + proxy + ": " + ok}},
		{name: "a backend both a route and the telemetry use: both ancestors",
			docs: envoyProxy(tracing("traces")) + svc("traces") + policy("t", "traces", "") +
				"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n" +
				"  parentRefs: [{name: gw, namespace: infra}]\n  rules: [{backendRefs: [{name: traces, port: 4317}]}]\n",
			want: []string{"t @ " + proxy + ": " + ok, "t @ Gateway/infra/gw: " + ok}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := egStatuses(status.Compute(compileFull(t, base+tc.docs).Result, status.Options{}))
			var ancs []string
			for k, v := range got {
				if rest, ok := strings.CutPrefix(k, "BackendTLSPolicy/infra/"); ok {
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

// TestEnvoyGatewayBackendTLSPolicyAggregated: Envoy Gateway cuts a
// BackendTLSPolicy's ancestors to 16 as it does every policy's
// (ProcessBackendTLSPolicyStatus → TruncatePolicyAncestors): the most
// important kept — not accepted first, then by the reference's namespace
// as written (none for a parentRef written without one), then its name —
// and the 16th kept says Aggregated; while it writes them it holds 17 at
// most (boundPolicyAncestors). A later policy Conflicted with it copies
// the 16 it kept, without Aggregated.
func TestEnvoyGatewayBackendTLSPolicyAggregated(t *testing.T) {
	const ok = "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"
	const agg = "Accepted=True/Accepted Aggregated=True/Aggregated ResolvedRefs=True/ResolvedRefs"
	var docs strings.Builder
	docs.WriteString(egClassDoc)
	var refs []string
	for i := range 18 {
		fmt.Fprintf(&docs, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: g%02d, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n", i)
		refs = append(refs, fmt.Sprintf("{name: g%02d, namespace: infra}", i))
	}
	docs.WriteString("---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{port: 8443}]}\n")
	policy := func(name string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: '', kind: Service, name: svc}]\n  validation: {hostname: a.example.com, wellKnownCACertificates: System}\n"
	}
	route := func(refs []string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n" +
			"  parentRefs: [" + strings.Join(refs, ", ") + "]\n  rules: [{backendRefs: [{name: svc, port: 8443}]}]\n"
	}
	kept := func(first string, from, to int, last, also string) []string {
		var out []string
		if first != "" {
			out = append(out, first)
		}
		for i := from; i <= to; i++ {
			v := ok
			if i == to {
				v = last
			}
			out = append(out, fmt.Sprintf("p @ Gateway/infra/g%02d: %s", i, v))
		}
		if also != "" {
			out = append(out, also)
		}
		return out
	}
	// the last parentRef written without a namespace: Gateway//g17 ranks first
	unq := slices.Clone(refs)
	unq[17] = "{name: g17}"
	conflicted := kept("", 0, 15, agg, "")
	for i := range 16 {
		conflicted = append(conflicted, fmt.Sprintf("q @ Gateway/infra/g%02d: Accepted=False/Conflicted", i))
	}
	for _, tc := range []struct {
		name, docs string
		want       []string
	}{
		{"18 Gateways: the first 16 by name, the 16th Aggregated", route(refs) + policy("p"), kept("", 0, 15, agg, "")},
		{"one of them written without a namespace ranks first", route(unq) + policy("p"), kept("", 0, 14, agg, "p @ Gateway/g17: "+ok)},
		{"a later duplicate Conflicted on the 16 kept, no Aggregated of its own", route(refs) + policy("p") + policy("q"), conflicted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := egStatuses(status.Compute(compileFull(t, docs.String()+tc.docs).Result, status.Options{}))
			var ancs []string
			for k, v := range got {
				if rest, ok := strings.CutPrefix(k, "BackendTLSPolicy/infra/"); ok {
					ancs = append(ancs, rest+": "+v)
				}
			}
			slices.Sort(ancs)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(ancs, want) {
				t.Errorf("ancestors\n%s\nwant\n%s", strings.Join(ancs, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
