package status_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/secret/secrettest"
	"github.com/gwpol/gwpol/internal/status"
	"github.com/gwpol/gwpol/internal/topology"
)

const base = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: x
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - {name: one, backendRefs: [{name: svc, port: 80}]}
  - {name: two, backendRefs: [{name: svc, port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r2, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - {backendRefs: [{name: svc, port: 80}]}
`

// builtinRoute sets its own timeouts and retry.
const builtinRoute = `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r3, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - {backendRefs: [{name: svc, port: 80}], timeouts: {request: 5s}, retry: {attempts: 3}}
`

func policyDoc(name, target, section, fields string, created int) string {
	sec := ""
	if section != "" {
		sec = ", sectionName: " + section
	}
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: " + name + ", namespace: infra, creationTimestamp: \"2020-01-01T00:00:0" +
		string(rune('0'+created)) + "Z\"}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: " + target + sec + "}]\n" + fields
}

func compile(t *testing.T, docs string) *status.Report {
	t.Helper()
	return status.Compute(compileFull(t, docs).Result, status.Options{})
}

// attached returns "status/reason" of each policy's Attached condition.
// backendRefFilter is a TrafficPolicy without targets that route r4's
// backendRef filter references, and its rule filter too when onRule.
func backendRefFilter(name string, onRule bool) string {
	ref := "{type: ExtensionRef, extensionRef: {group: gateway.kgateway.dev, kind: TrafficPolicy, name: " + name + "}}"
	rule := ""
	if onRule {
		rule = ", filters: [" + ref + "]"
	}
	return `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: ` + name + `, namespace: infra}
spec: {timeouts: {request: 1s}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r4, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - {backendRefs: [{name: svc, port: 80, filters: [` + ref + `]}]` + rule + `}
`
}

func attached(rep *status.Report) map[string]string {
	out := map[string]string{}
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			for _, c := range a.Conditions {
				if c.Type == "Attached" {
					out[p.Name] += c.Status + "/" + c.Reason
				}
			}
		}
	}
	return out
}

func TestAttachedAggregation(t *testing.T) {
	tests := []struct {
		name string
		docs string
		want map[string]string
	}{
		{"alone on every target: Attached",
			policyDoc("a", "r1", "", "  timeouts: {request: 1s}\n", 1),
			map[string]string{"a": "True/Attached"}},
		{"different fields on one target: both Merged",
			policyDoc("a", "r2", "", "  timeouts: {request: 1s}\n", 1) + policyDoc("b", "r2", "", "  retry: {attempts: 2}\n", 2),
			map[string]string{"a": "True/Merged", "b": "True/Merged"}},
		{"same field, older wins: the newer is Overridden",
			policyDoc("a", "r2", "", "  timeouts: {request: 1s}\n", 1) + policyDoc("b", "r2", "", "  timeouts: {request: 2s}\n", 2),
			map[string]string{"a": "True/Attached", "b": "False/Overridden"}},
		{"Attached on one rule, Overridden on another under the same Gateway: Overridden wins",
			policyDoc("whole", "r1", "", "  timeouts: {request: 1s}\n", 2) + policyDoc("rule", "r1", "one", "  timeouts: {request: 2s}\n", 1),
			map[string]string{"whole": "False/Overridden", "rule": "True/Attached"}},
		{"Merged on one rule, Attached on another: Merged wins",
			policyDoc("whole", "r1", "", "  timeouts: {request: 1s}\n  retry: {attempts: 1}\n", 2) + policyDoc("rule", "r1", "one", "  timeouts: {request: 2s}\n", 1),
			map[string]string{"whole": "True/Merged", "rule": "True/Merged"}},
		{"the rule's own timeouts and retry win in the data plane, yet kgateway reports Attached",
			builtinRoute + policyDoc("a", "r3", "", "  timeouts: {request: 1s}\n  retry: {attempts: 2}\n", 1),
			map[string]string{"a": "True/Attached"}},
		{"a policy field beside the rule's own ones keeps its own status",
			builtinRoute + policyDoc("a", "r3", "", "  cors: {allowOrigins: [\"https://a.example\"]}\n", 1),
			map[string]string{"a": "True/Attached"}},
		{"invalid policy stays Pending",
			policyDoc("bad", "r1", "", "  timeouts: {request: soon}\n", 1),
			map[string]string{"bad": "False/Pending"}},
		{"referenced only from a backendRef filter: Pending",
			backendRefFilter("only-backend", false),
			map[string]string{"only-backend": "False/Pending"}},
		{"referenced from a backendRef filter and a rule filter: Attached",
			backendRefFilter("both", true),
			map[string]string{"both": "True/Attached"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, attached(compile(t, base+tt.docs))); diff != "" {
				t.Errorf("Attached (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTargetNotFound(t *testing.T) {
	rep := compile(t, base+policyDoc("lost", "nope", "", "  timeouts: {request: 1s}\n", 1)+policyDoc("nosection", "r1", "three", "  timeouts: {request: 1s}\n", 2))
	for _, p := range rep.Policies {
		if len(p.Ancestors) != 1 || p.Ancestors[0].AncestorRef != (status.AncestorRef{Group: "gateway.kgateway.dev", Kind: "StatusSummary", Name: "StatusSummary"}) {
			t.Fatalf("%s: ancestors %+v, want the StatusSummary ancestor", p.Name, p.Ancestors)
		}
		for _, c := range p.Ancestors[0].Conditions {
			if c.Status != "False" || c.Reason != "TargetNotFound" || !strings.Contains(c.Message, "not found") && !strings.Contains(c.Message, "no section") {
				t.Errorf("%s: condition %+v", p.Name, c)
			}
		}
	}
}

func TestRouteParentReasons(t *testing.T) {
	rep := compile(t, base+`---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: lost, namespace: infra}
spec:
  parentRefs: [{name: nogw}, {name: gw, sectionName: https}]
  rules: [{backendRefs: [{name: missing, port: 80}]}]
`)
	for _, r := range rep.Routes {
		if r.Name != "lost" {
			continue
		}
		got := []string{}
		for _, p := range r.Parents {
			for _, c := range p.Conditions {
				got = append(got, c.Type+"="+c.Status+"/"+c.Reason)
			}
		}
		want := []string{"Accepted=False/NoMatchingParent", "ResolvedRefs=False/BackendNotFound", "kgateway.dev/Programmed=True/Programmed",
			"Accepted=False/NoMatchingParent", "ResolvedRefs=False/BackendNotFound", "kgateway.dev/Programmed=True/Programmed"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("conditions (-want +got):\n%s", diff)
		}
	}
}

// TestKgatewayConditions covers the conditions kgateway adds to the
// Gateway API's: a route rule replaced by a direct response, and the
// Gateway's ResolvedRefs.
func TestKgatewayConditions(t *testing.T) {
	extRef := `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: svc, port: 80}]
    filters: [{type: ExtensionRef, extensionRef: {group: gateway.kgateway.dev, kind: TrafficPolicy, name: POLICY}}]
`
	httpsGW := `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: tls, namespace: infra}
spec:
  gatewayClassName: x
  listeners:
  - {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: missing}]}}
`
	tests := []struct {
		name, docs string
		route      string // "" when the route is not checked
		programmed string
		gateway    string
		resolved   string
	}{
		{"programmed", base, "r2", "True/Programmed", "gw", "True/ResolvedRefs"},
		{"invalid policy on the route: replaced", base + policyDoc("bad", "r2", "", "  rateLimit: {local: {tokenBucket: {maxTokens: -1}}}\n", 1),
			"r2", "False/RouteRuleReplaced", "gw", "True/ResolvedRefs"},
		{"ExtensionRef to a missing policy: replaced", strings.Replace(base, "kind: HTTPRoute\nmetadata: {name: r1", "kind: HTTPRoute\nmetadata: {name: old", 1) + strings.Replace(extRef, "POLICY", "nope", 1),
			"r1", "False/RouteRuleReplaced", "gw", "True/ResolvedRefs"},
		{"unresolved certificate: Gateway ResolvedRefs False", base + httpsGW, "", "", "tls", "False/ListenersNotResolved"},
		{"no backendRefs and nothing that answers: replaced", base + noAction, "empty", "False/RouteRuleReplaced", "gw", "True/ResolvedRefs"},
		{"no backendRefs but a redirect: programmed", base + strings.Replace(noAction, "type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: a, value: b}]}", "type: RequestRedirect, requestRedirect: {hostname: example.org}", 1),
			"empty", "True/Programmed", "gw", "True/ResolvedRefs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := compile(t, tt.docs)
			for _, r := range rep.Routes {
				if r.Name == tt.route {
					if got := condOf(r.Parents[0].Conditions, "kgateway.dev/Programmed"); got != tt.programmed {
						t.Errorf("route %s %s = %s, want %s", r.Name, "kgateway.dev/Programmed", got, tt.programmed)
					}
				}
			}
			for _, g := range rep.Gateways {
				if g.Name == tt.gateway {
					if got := condOf(g.Conditions, "ResolvedRefs"); got != tt.resolved {
						t.Errorf("Gateway %s ResolvedRefs = %s, want %s", g.Name, got, tt.resolved)
					}
				}
			}
		})
	}
}

// noAction is a route whose rule has no backendRefs, only a header filter.
const noAction = `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: empty, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: a, value: b}]}}]
`

func condOf(cs []status.Condition, typ string) string {
	for _, c := range cs {
		if c.Type == typ {
			return c.Status + "/" + c.Reason
		}
	}
	return "absent"
}

// namedPorts is Service infra/web with named ports http and admin, which
// a route of the Gateway sends to, for sectionName targetRefs.
const namedPorts = `---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80, name: http}, {port: 81, name: admin}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: to-web, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`

func bcpDoc(name, target, section, fields string, created int) string {
	sec := ""
	if section != "" {
		sec = ", sectionName: " + section
	}
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: BackendConfigPolicy\nmetadata: {name: " + name + ", namespace: infra, creationTimestamp: \"2020-01-01T00:00:0" +
		string(rune('0'+created)) + "Z\"}\nspec:\n  targetRefs: [{group: \"\", kind: Service, name: " + target + sec + "}]\n" + fields
}

// TestBackendConfigPolicyStatus: a BackendConfigPolicy reports against the
// Service it configures (not the Gateways the routes to it use), and two
// on one Service merge per field, the older first — on a port a policy
// names by sectionName, the whole Service's policies before the port's.
func TestBackendConfigPolicyStatus(t *testing.T) {
	tests := []struct {
		name string
		docs string
		want map[string]string // policy → "ancestor Accepted Attached"
	}{
		{"one policy on a Service two routes use",
			bcpDoc("a", "svc", "", "  connectTimeout: 5s\n", 1),
			map[string]string{"a": "Service/infra/svc True/Valid True/Attached"}},
		{"same field: the older wins, the newer is Overridden",
			bcpDoc("old", "svc", "", "  connectTimeout: 5s\n", 1) + bcpDoc("new", "svc", "", "  connectTimeout: 9s\n", 2),
			map[string]string{"old": "Service/infra/svc True/Valid True/Attached", "new": "Service/infra/svc True/Valid False/Overridden"}},
		{"different fields: both Merged",
			bcpDoc("a", "svc", "", "  connectTimeout: 5s\n", 1) + bcpDoc("b", "svc", "", "  loadBalancer: {roundRobin: {}}\n", 2),
			map[string]string{"a": "Service/infra/svc True/Valid True/Merged", "b": "Service/infra/svc True/Valid True/Merged"}},
		{"different parts of dns: both Merged (kgateway merges dns.refreshRate, dns.jitter, dns.respectTTL one by one)",
			bcpDoc("a", "svc", "", "  dns: {refreshRate: 60s}\n", 1) + bcpDoc("b", "svc", "", "  dns: {jitter: 5s, respectTTL: true}\n", 2),
			map[string]string{"a": "Service/infra/svc True/Valid True/Merged", "b": "Service/infra/svc True/Valid True/Merged"}},
		{"the same part of dns: the older wins, the newer is Overridden",
			bcpDoc("a", "svc", "", "  dns: {refreshRate: 60s}\n", 1) + bcpDoc("b", "svc", "", "  dns: {refreshRate: 30s}\n", 2),
			map[string]string{"a": "Service/infra/svc True/Valid True/Attached", "b": "Service/infra/svc True/Valid False/Overridden"}},
		{"missing Service",
			bcpDoc("a", "nope", "", "  connectTimeout: 5s\n", 1),
			map[string]string{"a": "StatusSummary/StatusSummary False/TargetNotFound False/TargetNotFound"}},
		{"missing port name",
			bcpDoc("a", "svc", "grpc", "  connectTimeout: 5s\n", 1),
			map[string]string{"a": "StatusSummary/StatusSummary False/TargetNotFound False/TargetNotFound"}},
		{"bad duration: Invalid",
			bcpDoc("a", "svc", "", "  connectTimeout: soon\n", 1),
			map[string]string{"a": "Service/infra/svc False/Invalid False/Pending"}},
		// kgateway lists a Service's whole-object policies ahead of a
		// port's own (BackendIndex.AddBackends), each in age order, and
		// keeps the first setter of each field.
		{"port and whole Service, same field: the whole Service's wins though newer",
			namedPorts + bcpDoc("port", "web", "http", "  connectTimeout: 5s\n", 1) + bcpDoc("whole", "web", "", "  connectTimeout: 9s\n", 2),
			map[string]string{"port": "Service/infra/web True/Valid False/Overridden", "whole": "Service/infra/web True/Valid True/Attached"}},
		{"port and whole Service, same field, the whole Service's older",
			namedPorts + bcpDoc("whole", "web", "", "  connectTimeout: 9s\n", 1) + bcpDoc("port", "web", "http", "  connectTimeout: 5s\n", 2),
			map[string]string{"port": "Service/infra/web True/Valid False/Overridden", "whole": "Service/infra/web True/Valid True/Attached"}},
		{"port and whole Service, different fields: both Merged",
			namedPorts + bcpDoc("port", "web", "http", "  connectTimeout: 5s\n", 1) + bcpDoc("whole", "web", "", "  loadBalancer: {roundRobin: {}}\n", 2),
			map[string]string{"port": "Service/infra/web True/Valid True/Merged", "whole": "Service/infra/web True/Valid True/Merged"}},
		{"two policies on one port: the older wins there",
			namedPorts + bcpDoc("new", "web", "http", "  connectTimeout: 5s\n", 2) + bcpDoc("old", "web", "http", "  connectTimeout: 9s\n", 1),
			map[string]string{"new": "Service/infra/web True/Valid False/Overridden", "old": "Service/infra/web True/Valid True/Attached"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := compile(t, base+tt.docs)
			got := map[string]string{}
			for _, p := range rep.Policies {
				if p.Kind != "BackendConfigPolicy" {
					continue
				}
				for _, a := range p.Ancestors {
					got[p.Name] = a.AncestorRef.String() + " " + condOf(a.Conditions, "Accepted") + " " + condOf(a.Conditions, "Attached")
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
}

// btpRefs is BackendTLSPolicy infra/name on Service svc with the CA
// references refs (a YAML flow sequence's items).
func btpRefs(name, refs string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: infra}\n" +
		"spec:\n  targetRefs: [{group: \"\", kind: Service, name: svc}]\n  validation: {hostname: svc.example.com, caCertificateRefs: [" + refs + "]}\n"
}

func btpDoc(name, target, ca string, created int) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: infra, creationTimestamp: \"2020-01-01T00:00:0" +
		string(rune('0'+created)) + "Z\"}\nspec:\n  targetRefs: [{group: \"\", kind: Service, name: " + target + "}]\n  validation: {hostname: svc.example.com, caCertificateRefs: [{group: \"\", kind: ConfigMap, name: " + ca + "}]}\n"
}

// caConfigMap is the ConfigMap infra/ca holding a CA certificate.
var caConfigMap = func() string {
	cert, _ := secrettest.KeyPair()
	return "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: infra}\ndata: {ca.crt: " + strconv.Quote(cert) + "}\n"
}()

// TestBackendTLSPolicyStatus: a BackendTLSPolicy reports the Gateway API's
// conditions against the Gateways whose routes use its Service; of two on
// one Service the newer is Conflicted.
func TestBackendTLSPolicyStatus(t *testing.T) {
	tests := []struct {
		name string
		docs string
		want map[string]string // policy → "ancestor ResolvedRefs Accepted"
		msg  string            // policy a's ResolvedRefs message, when given
	}{
		{"accepted", caConfigMap + btpDoc("a", "svc", "ca", 1),
			map[string]string{"a": "Gateway/infra/gw True/ResolvedRefs True/Accepted"}, ""},
		{"the newer of two on one Service is Conflicted", caConfigMap + btpDoc("old", "svc", "ca", 1) + btpDoc("new", "svc", "ca", 2),
			map[string]string{"old": "Gateway/infra/gw True/ResolvedRefs True/Accepted", "new": "Gateway/infra/gw True/ResolvedRefs False/Conflicted"}, ""},
		{"missing CA ConfigMap", btpDoc("a", "svc", "nope", 1),
			map[string]string{"a": "Gateway/infra/gw False/InvalidCACertificateRef False/NoValidCACertificate"}, ""},
		{"CA ConfigMap whose ca.crt is no certificate", strings.Replace(caConfigMap, "data: {ca.crt: ", "data: {ca.crt: x, other: ", 1) + btpDoc("a", "svc", "ca", 1),
			map[string]string{"a": "Gateway/infra/gw False/InvalidCACertificateRef False/NoValidCACertificate"}, ""},
		{"CA ConfigMap without ca.crt", "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: infra}\ndata: {other: x}\n" + btpDoc("a", "svc", "ca", 1),
			map[string]string{"a": "Gateway/infra/gw False/InvalidCACertificateRef False/NoValidCACertificate"}, ""},
		{"CA ConfigMap with metadata only", "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: infra}\n" + btpDoc("a", "svc", "ca", 1),
			map[string]string{"a": "Gateway/infra/gw True/ResolvedRefs True/Accepted"}, ""},
		// kgateway reads the first CA reference only (buildTranslateFunc).
		{"first CA reference resolves, a later one does not", caConfigMap + btpRefs("a", `{group: "", kind: ConfigMap, name: ca}, {group: "", kind: ConfigMap, name: nope}`),
			map[string]string{"a": "Gateway/infra/gw True/ResolvedRefs True/Accepted"}, ""},
		{"first CA reference missing, a later one resolves", caConfigMap + btpRefs("a", `{group: "", kind: ConfigMap, name: nope}, {group: "", kind: ConfigMap, name: ca}`),
			map[string]string{"a": "Gateway/infra/gw False/InvalidCACertificateRef False/NoValidCACertificate"},
			"invalid CA certificate ref ConfigMap/nope: ConfigMap not found: infra/nope"},
		{"a CA reference of another kind", btpRefs("a", `{group: certificates.k8s.io, kind: ClusterTrustBundle, name: bundle}`),
			map[string]string{"a": "Gateway/infra/gw False/InvalidKind False/NoValidCACertificate"},
			`unsupported certificate reference kind "ClusterTrustBundle" in group "certificates.k8s.io"`},
		{"a CA reference of another kind, no group", btpRefs("a", `{group: "", kind: Service, name: svc}`),
			map[string]string{"a": "Gateway/infra/gw False/InvalidKind False/NoValidCACertificate"},
			`unsupported certificate reference kind "Service"`},
		{"a ConfigMap reference's group is not read", caConfigMap + btpRefs("a", `{group: example.com, kind: ConfigMap, name: ca}`),
			map[string]string{"a": "Gateway/infra/gw True/ResolvedRefs True/Accepted"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := compile(t, base+tt.docs)
			got := map[string]string{}
			for _, p := range rep.Policies {
				if p.Kind != "BackendTLSPolicy" {
					continue
				}
				for _, a := range p.Ancestors {
					got[p.Name] = a.AncestorRef.String() + " " + condOf(a.Conditions, "ResolvedRefs") + " " + condOf(a.Conditions, "Accepted")
					for _, c := range a.Conditions {
						if p.Name == "a" && tt.msg != "" && c.Type == "ResolvedRefs" && c.Message != tt.msg {
							t.Errorf("ResolvedRefs message %q, want %q", c.Message, tt.msg)
						}
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReplacement: an invalid policy on the whole Gateway makes it
// Accepted=False/GatewayReplaced, one on a listener (sectionName) that
// listener ListenerReplaced, in either validation mode (the mode decides
// which policies are invalid: this one fails kgateway's own checks), as
// render replaces them. One on a whole ListenerSet replaces its listeners
// (its HTTP ones) and reports the Gateway replaced too, as kgateway does.
func TestReplacement(t *testing.T) {
	policy := func(kind, name, section string) string {
		sec := ""
		if section != "" {
			sec = ", sectionName: " + section
		}
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: bad, namespace: infra}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + name + sec + "}]\n  timeouts: {request: soon}\n"
	}
	gwPolicy := func(section string) string { return policy("Gateway", "gw", section) }
	set := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: extra, namespace: infra}\nspec:\n  parentRef: {name: gw}\n  listeners: [{name: extra, port: 9090, protocol: HTTP}]\n"
	tests := []struct {
		name, docs, mode string
		gateway, http    string
		setListener      string // Accepted of the ListenerSet's listener, "" when none
	}{
		{"gateway policy, strict", gwPolicy(""), "Strict", "False/GatewayReplaced", "True/Accepted", ""},
		{"listener policy, strict", gwPolicy("http"), "Strict", "True/Accepted", "False/ListenerReplaced", ""},
		{"gateway policy, standard", gwPolicy(""), "Standard", "False/GatewayReplaced", "True/Accepted", ""},
		{"listener set policy, standard", set + policy("ListenerSet", "extra", ""), "Standard", "False/GatewayReplaced", "True/Accepted", "False/ListenerReplaced"},
		{"listener set policy, the set's HTTPS listener", strings.Replace(set, "port: 9090, protocol: HTTP", "port: 9443, protocol: HTTPS", 1) + policy("ListenerSet", "extra", ""), "Standard", "False/GatewayReplaced", "True/Accepted", "True/Accepted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base
			if tt.setListener != "" {
				in = strings.Replace(in, "  listeners:\n", "  allowedListeners: {namespaces: {from: All}}\n  listeners:\n", 1)
			}
			objs, err := manifest.Parse("test.yaml", []byte(in+tt.docs), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, (&pipeline.Config{Namespace: "default"}).WithSetting("validationMode", tt.mode))
			rep := status.Compute(c.Result, status.Options{})
			g := rep.Gateways[0]
			if got := condOf(g.Conditions, "Accepted"); got != tt.gateway {
				t.Errorf("Gateway Accepted = %s, want %s", got, tt.gateway)
			}
			if got := condOf(g.Listeners[0].Conditions, "Accepted"); got != tt.http {
				t.Errorf("listener http Accepted = %s, want %s", got, tt.http)
			}
			seen := ""
			for _, l := range g.Listeners {
				if l.ListenerSet != "" {
					seen = condOf(l.Conditions, "Accepted")
				}
			}
			if seen != tt.setListener {
				t.Errorf("ListenerSet listener Accepted = %q, want %q", seen, tt.setListener)
			}
		})
	}
}

// TestListenerPolicyInvalidSetting: a ListenerPolicy with a setting
// kgateway cannot build is Invalid (with kgateway's message) and stays
// Pending, yet the settings it sets validly still merge, so a policy that
// shares the Gateway with it is Merged; the Gateway and its routes stay
// accepted (nothing is replaced), as in kgateway.
func TestListenerPolicyInvalidSetting(t *testing.T) {
	lp := func(name string, created int, settings string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: " + name + ", namespace: infra, creationTimestamp: \"2020-01-01T00:00:0" +
			string(rune('0'+created)) + "Z\"}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  default: {httpSettings: " + settings + "}\n"
	}
	rep := compile(t, base+lp("bad", 1, "{idleTimeout: 30s, http2ProtocolOptions: {initialStreamWindowSize: 1Ki}}")+lp("h2", 2, "{http2ProtocolOptions: {maxConcurrentStreams: 100}}"))
	got := map[string]string{}
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			got[p.Name] = a.AncestorRef.String() + " " + condOf(a.Conditions, "Accepted") + " " + condOf(a.Conditions, "Attached")
			if p.Name == "bad" {
				for _, c := range a.Conditions {
					if c.Type == "Accepted" && c.Message != "initialStreamWindowSize must be between 65535 and 2147483647 bytes (inclusive), got 1024" {
						t.Errorf("Accepted message %q, want kgateway's", c.Message)
					}
				}
			}
		}
	}
	want := map[string]string{"bad": "Gateway/infra/gw False/Invalid False/Pending", "h2": "Gateway/infra/gw True/Valid True/Merged"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	for _, g := range rep.Gateways {
		if c := condOf(g.Conditions, "Accepted"); c != "True/Accepted" {
			t.Errorf("Gateway %s Accepted %s, want True/Accepted", g.Name, c)
		}
	}
	for _, r := range rep.Routes {
		for _, pa := range r.Parents {
			if c := condOf(pa.Conditions, "Accepted"); c != "True/Accepted" {
				t.Errorf("route %s Accepted %s, want True/Accepted", r.Name, c)
			}
		}
	}
}

// TestDelegatedChildPerParentPath: a child delegated by two parents is
// reported from each parent path's merge: the second parent's policy,
// which only its copy inherits, is reported (before, only the first
// parent's copy was), and a child policy that wins in one copy and is
// overridden in the other (a parent preferring its own) is Overridden
// against the Gateway, the most severe of the two.
func TestDelegatedChildPerParentPath(t *testing.T) {
	route := func(name, host, annotations string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: infra" + annotations + "}\nspec:\n  parentRefs: [{name: gw}]\n  hostnames: [" + host + "]\n" +
			"  rules:\n  - matches: [{path: {type: PathPrefix, value: /x}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: child}]\n"
	}
	child := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: child, namespace: infra}\nspec:\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /x/y}}]\n    backendRefs: [{name: svc, port: 80}]\n"
	docs := route("pa", "a.example.com", "") + route("pb", "b.example.com", ", annotations: {kgateway.dev/inherited-policy-priority: ShallowMergePreferParent}") + child +
		policyDoc("ta", "pa", "", "  timeouts: {request: 5s}\n", 1) + policyDoc("tb", "pb", "", "  timeouts: {request: 30s}\n", 2) + policyDoc("tc", "child", "", "  timeouts: {request: 1s}\n", 3)
	rep := compile(t, base+docs)
	got := map[string]string{}
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			got[p.Name] += a.AncestorRef.String() + " " + condOf(a.Conditions, "Attached")
		}
	}
	want := map[string]string{
		"ta": "Gateway/infra/gw False/Overridden", // the child's own policy wins in a's copy
		"tb": "Gateway/infra/gw True/Attached",    // b prefers its own: it wins in b's copy
		"tc": "Gateway/infra/gw False/Overridden", // wins in a's copy, loses in b's
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Attached per policy (-want +got):\n%s", diff)
	}
}

// policyConditions lists every policy condition of rep, one line each
// ("name @ ancestor: Type=Status/Reason: message"), sorted.
func policyConditions(rep *status.Report) []string {
	var got []string
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			for _, c := range a.Conditions {
				got = append(got, p.Name+" @ "+a.AncestorRef.String()+": "+c.Type+"="+c.Status+"/"+c.Reason+": "+c.Message)
			}
		}
	}
	slices.Sort(got)
	return got
}

// TestStreamRouteRefusal: kgateway takes up, for a TCP listener, its
// oldest route, and for a TLS listener every route, and translates one
// with exactly one rule only: a route it takes up with another number of
// rules is Accepted=False/UnsupportedValue on each of its parentRefs
// (translator/listener/gateway_listener_translator.go:
// translateTcpFilterChain); a route it does not take up keeps Accepted.
func TestStreamRouteRefusal(t *testing.T) {
	gw := `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: x
  listeners:
  - {name: tcp, protocol: TCP, port: 9000}
  - {name: tls, protocol: TLS, port: 9443, tls: {mode: Passthrough}}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{port: 80}]}
`
	route := func(kind, name, section string, created, rules int) string {
		doc := "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: infra, creationTimestamp: \"2020-01-01T00:00:0" +
			strconv.Itoa(created) + "Z\"}\nspec:\n  parentRefs: [{name: gw, sectionName: " + section + "}]\n  rules:\n"
		for range rules {
			doc += "  - {backendRefs: [{name: svc, port: 80}]}\n"
		}
		return doc
	}
	tests := []struct {
		name string
		docs string
		want map[string]string // route: its Accepted
	}{
		{"TLS: every route taken up, the one of two rules refused",
			route("TLSRoute", "one", "tls", 1, 1) + route("TLSRoute", "two", "tls", 2, 2),
			map[string]string{"one": "True/Accepted", "two": "False/UnsupportedValue"}},
		{"TCP: the oldest taken up and refused",
			route("TCPRoute", "old", "tcp", 1, 2) + route("TCPRoute", "new", "tcp", 2, 1),
			map[string]string{"old": "False/UnsupportedValue", "new": "True/Accepted"}},
		{"TCP: a newer route of two rules is not taken up",
			route("TCPRoute", "old", "tcp", 1, 1) + route("TCPRoute", "new", "tcp", 2, 2),
			map[string]string{"old": "True/Accepted", "new": "True/Accepted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compileFull(t, gw+tt.docs)
			rep := status.Compute(c.Result, status.Options{})
			got := map[string]string{}
			for _, r := range rep.Routes {
				for _, p := range r.Parents {
					got[r.Name] = condOf(p.Conditions, "Accepted")
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Accepted (-want +got):\n%s", diff)
			}
			// The finding that the route carries no connection (GWP213)
			// says what status says: refused or accepted.
			for _, d := range c.Graph.Diagnostics {
				if d.Code != topology.LintStreamRouteNotProgrammed.Code {
					continue
				}
				name := d.Object.Name
				refused := strings.Contains(d.Message, "is refused (Accepted=False, UnsupportedValue)")
				if accepted := strings.HasPrefix(got[name], "True/"); accepted == refused || accepted != strings.Contains(d.Message, " is accepted by ") {
					t.Errorf("%s: status says Accepted %s, GWP213 says %q", name, got[name], d.Message)
				}
			}
		})
	}
}

// compileFull is compile's pipeline result, for tests that read what
// status reads and what the findings say.
func compileFull(t *testing.T, docs string) *pipeline.Compiled {
	t.Helper()
	objs, err := manifest.Parse("test.yaml", []byte(docs), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
}
