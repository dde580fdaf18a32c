package status_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/status"
)

// egBase is an Envoy Gateway platform: its class, a Gateway with two
// listeners and a route on each.
var egBase = egPlatform("infra", "  listeners:\n  - {name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}\n  - {name: b, protocol: HTTP, port: 81, allowedRoutes: {namespaces: {from: All}}}\n") + `
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ra, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: a}]
  rules: [{name: one}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: rb, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{name: one}, {name: two}]
`

// btp is a BackendTrafficPolicy document; target is KIND/NAME[#SECTION].
func btp(ns, name, target, extra string) string {
	kind, rest, _ := strings.Cut(target, "/")
	tname, section, _ := strings.Cut(rest, "#")
	ref := "{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + tname
	if section != "" {
		ref += ", sectionName: " + section
	}
	return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name +
		", namespace: " + ns + "}\nspec:\n  targetRefs: [" + ref + "}]\n  timeout: {tcp: {connectTimeout: 5s}}\n" + extra
}

// egConditions prints each Envoy Gateway policy's status as
// "NAME @ ANCESTOR (CONTROLLER): Type=Status/Reason …" lines.
func egConditions(rep *status.Report) []string {
	var out []string
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			var cs []string
			for _, c := range a.Conditions {
				cs = append(cs, c.Type+"="+c.Status+"/"+c.Reason)
			}
			slices.Sort(cs)
			out = append(out, p.Name+" @ "+a.AncestorRef.String()+" ("+a.ControllerName+"): "+strings.Join(cs, " "))
		}
	}
	return out
}

// tlsGateway is a Gateway with an HTTPS listener and the CA Secret its
// ClientTrafficPolicies validate clients with.
var tlsGateway = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: secure, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
	"  listeners: [{name: tls, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}]}}]\n" +
	"---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: infra}\ndata: " + testCA + "\n"

// servedTLSGateway is tlsGateway with its certificate: Envoy Gateway
// programs its HTTPS listener.
var servedTLSGateway = tlsGateway + "---\napiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: infra}\ntype: kubernetes.io/tls\ndata: " + testTLS + "\n"

func TestEnvoyGatewayPolicyStatus(t *testing.T) {
	const eg = egController
	tests := []struct {
		name     string
		policies string
		want     []string
	}{{
		name:     "a route policy overrides the Gateway's whole",
		policies: btp("infra", "gw-policy", "Gateway/gw", "") + btp("app", "route-policy", "HTTPRoute/ra", ""),
		want: []string{
			"gw-policy @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted Overridden=True/Overridden",
			"route-policy @ Gateway/infra/gw#a (" + eg + "): Accepted=True/Accepted",
		},
	}, {
		name:     "with mergeType both report Merged, on the listener the route merged through",
		policies: btp("infra", "gw-policy", "Gateway/gw", "") + btp("app", "route-policy", "HTTPRoute/rb", "  mergeType: StrategicMerge\n"),
		want: []string{
			"gw-policy @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted Merged=True/Merged",
			"route-policy @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted",
			"route-policy @ Gateway/infra/gw#a (" + eg + "): Merged=True/Merged",
			"route-policy @ Gateway/infra/gw#b (" + eg + "): Merged=True/Merged",
		},
	}, {
		name:     "a listener policy overrides the Gateway's; it merges with the route's",
		policies: btp("infra", "gw-policy", "Gateway/gw", "") + btp("infra", "l-policy", "Gateway/gw#a", "") + btp("app", "route-policy", "HTTPRoute/ra", "  mergeType: JSONMerge\n"),
		want: []string{
			"gw-policy @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted Overridden=True/Overridden",
			"l-policy @ Gateway/infra/gw#a (" + eg + "): Accepted=True/Accepted Merged=True/Merged",
			"route-policy @ Gateway/infra/gw#a (" + eg + "): Accepted=True/Accepted Merged=True/Merged",
		},
	}, {
		name:     "the later policy on one target is Conflicted, in document order",
		policies: btp("app", "z-first", "HTTPRoute/ra", "") + btp("app", "a-second", "HTTPRoute/ra", ""),
		want: []string{
			"a-second @ Gateway/infra/gw#a (" + eg + "): Accepted=False/Conflicted",
			"z-first @ Gateway/infra/gw#a (" + eg + "): Accepted=True/Accepted",
		},
	}, {
		name:     "a rule policy overrides the route's; a missing section is TargetNotFound",
		policies: btp("app", "route-policy", "HTTPRoute/ra", "") + btp("app", "rule-policy", "HTTPRoute/ra#one", "") + btp("infra", "lost", "Gateway/gw#nope", ""),
		want: []string{
			"route-policy @ Gateway/infra/gw#a (" + eg + "): Accepted=True/Accepted Overridden=True/Overridden",
			"rule-policy @ Gateway/infra/gw#a (" + eg + "): Accepted=True/Accepted",
			"lost @ Gateway/infra/gw#nope (" + eg + "): Accepted=False/TargetNotFound",
		},
	}, {
		name:     "the singular targetRef is a DeprecatedField warning; a target not in the input gives no status",
		policies: "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: old, namespace: app}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: rb}\n  cors: {allowOrigins: ['*']}\n" + btp("app", "nowhere", "HTTPRoute/missing", ""),
		want: []string{
			"old @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted Warning=True/DeprecatedField",
		},
	}, {
		name: "an extension backend that does not resolve makes the policy Invalid",
		policies: "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: auth, namespace: app}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ra}]\n  extAuth: {http: {backendRefs: [{name: missing, port: 80}]}}\n",
		want: []string{"auth @ Gateway/infra/gw#a (" + eg + "): Accepted=False/Invalid"},
	}, {
		name: "a parent Gateway of another class is not Envoy Gateway's: no ancestor through it",
		policies: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: other, namespace: infra}\nspec:\n  gatewayClassName: not-in-input\n" +
			"  listeners: [{name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: both, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}, {name: other, namespace: infra}]\n" +
			btp("app", "route-policy", "HTTPRoute/both", ""),
		want: []string{"route-policy @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted"},
	}, {
		name: "a ClientTrafficPolicy on one of two plain HTTP listeners sharing a port is Invalid",
		policies: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: shared, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
			"  listeners:\n  - {name: x, protocol: HTTP, port: 80, hostname: x.example.com}\n  - {name: y, protocol: HTTP, port: 80, hostname: y.example.com}\n" +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: one, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: shared, sectionName: x}]\n  tcpKeepalive: {}\n" +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: all, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  tcpKeepalive: {}\n",
		want: []string{
			"one @ Gateway/infra/shared#x (" + eg + "): Accepted=False/Invalid",
			"all @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted",
		},
	}, {
		name: "a geolocation rule needs a geoIP provider and client IP detection on the listener",
		policies: "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: geo, namespace: app}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ra}]\n" +
			"  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientIPGeoLocations: [{country: US}]}}]}\n",
		want: []string{"geo @ Gateway/infra/gw#a (" + eg + "): Accepted=False/Invalid"},
	}, {
		name: "a targetSelector reaches another namespace only where its namespaces select and a ReferenceGrant allows",
		policies: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: other, namespace: team, labels: {pick: me}}\nspec:\n  gatewayClassName: eg\n" +
			"  listeners: [{name: a, protocol: HTTP, port: 80}]\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: closed, namespace: shut, labels: {pick: me}}\nspec:\n  gatewayClassName: eg\n" +
			"  listeners: [{name: a, protocol: HTTP, port: 80}]\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: team}\nspec:\n" +
			"  from: [{group: gateway.envoyproxy.io, kind: BackendTrafficPolicy, namespace: app}]\n  to: [{group: gateway.networking.k8s.io, kind: Gateway}]\n" +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: picker, namespace: app}\nspec:\n" +
			"  targetSelectors: [{group: gateway.networking.k8s.io, kind: Gateway, namespaces: {from: All}, matchLabels: {pick: me}}]\n  timeout: {tcp: {connectTimeout: 5s}}\n",
		want: []string{"picker @ Gateway/team/other (" + eg + "): Accepted=True/Accepted"},
	}, {
		name:     "a route policy merging into an invalid Gateway policy is invalid on that listener; the Gateway's is overridden",
		policies: btp("infra", "gw-policy", "Gateway/gw", "  circuitBreaker: {maxConnections: -1}\n") + btp("app", "route-policy", "HTTPRoute/rb", "  mergeType: StrategicMerge\n"),
		want: []string{
			"gw-policy @ Gateway/infra/gw (" + eg + "): Accepted=False/Invalid Overridden=True/Overridden",
			"route-policy @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted",
			"route-policy @ Gateway/infra/gw#a (" + eg + "): Accepted=False/Invalid",
			"route-policy @ Gateway/infra/gw#b (" + eg + "): Accepted=False/Invalid",
		},
	}, {
		name: "HTTP/3 with client certificate validation is a warning: Envoy cannot validate clients over QUIC",
		policies: servedTLSGateway + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: quic, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: secure}]\n  http3: {}\n  tls: {clientValidation: {caCertificateRefs: [{name: ca}]}}\n",
		want: []string{"quic @ Gateway/infra/secure (" + eg + "): Accepted=True/Accepted Warning=True/UnsupportedHTTP3ClientValidation"},
	}, {
		name: "an HTTPS listener Envoy Gateway does not program (its certificate Secret is missing) gets no HTTP/3 warning",
		policies: tlsGateway + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: quic, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: secure}]\n  http3: {}\n  tls: {clientValidation: {caCertificateRefs: [{name: ca}]}}\n",
		want: []string{"quic @ Gateway/infra/secure (" + eg + "): Accepted=True/Accepted"},
	}, {
		name: "on plain HTTP listeners there is no TLS: no HTTP/3 warning, and the client validation is not checked",
		policies: "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: quic, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  http3: {}\n  tls: {clientValidation: {caCertificateRefs: [{name: missing}]}}\n",
		want: []string{"quic @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted"},
	}, {
		name: "the HTTP/3 warning and a deprecated field are one Warning, reason Warnings",
		policies: servedTLSGateway + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: quic, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: secure}]\n  http3: {}\n  enableProxyProtocol: true\n  tls: {clientValidation: {caCertificateRefs: [{name: ca}]}}\n",
		want: []string{"quic @ Gateway/infra/secure (" + eg + "): Accepted=True/Accepted Warning=True/Warnings"},
	}, {
		name: "a missing CA certificate Secret on an HTTPS listener makes the policy Invalid",
		policies: servedTLSGateway + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: mtls, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: secure}]\n  tls: {clientValidation: {caCertificateRefs: [{name: missing}]}}\n",
		want: []string{"mtls @ Gateway/infra/secure (" + eg + "): Accepted=False/Invalid"},
	}, {
		name: "… not on an HTTPS listener Envoy Gateway does not program (its certificate Secret is missing): it builds no TLS there",
		policies: tlsGateway + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: mtls, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: secure}]\n  tls: {clientValidation: {caCertificateRefs: [{name: missing}]}}\n  headers: {earlyRequestHeaders: {remove: ['', x]}}\n",
		want: []string{"mtls @ Gateway/infra/secure (" + eg + "): Accepted=True/Accepted"},
	}, {
		name: "a route one of whose rule policies merges counts as merging into the Gateway's, not overriding it",
		policies: btp("infra", "gw-policy", "Gateway/gw", "") + btp("app", "rule-keeps", "HTTPRoute/rb#one", "") +
			btp("app", "rule-merges", "HTTPRoute/rb#two", "  mergeType: StrategicMerge\n"),
		want: []string{
			"gw-policy @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted Merged=True/Merged",
			"rule-keeps @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted",
			"rule-merges @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted",
			"rule-merges @ Gateway/infra/gw#a (" + eg + "): Merged=True/Merged",
			"rule-merges @ Gateway/infra/gw#b (" + eg + "): Merged=True/Merged",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := egConditions(compile(t, egBase+tc.policies))
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("status (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnmanagedGatewayParent: when the input has GatewayClasses but not a
// Gateway's, no controller in view manages that Gateway, so a route's
// parentRef to it gets no status entry (its controller writes that).
func TestUnmanagedGatewayParent(t *testing.T) {
	rep := compile(t, egBase+"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: other, namespace: infra}\nspec:\n  gatewayClassName: not-in-input\n"+
		"  listeners: [{name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n"+
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: both, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra}, {name: other, namespace: infra}]\n")
	var got []string
	for _, r := range rep.Routes {
		if r.Name == "both" {
			for _, p := range r.Parents {
				got = append(got, p.ParentRef.Name+" "+p.ControllerName)
			}
		}
	}
	want := []string{"gw gateway.envoyproxy.io/gatewayclass-controller"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("route parents (-want +got):\n%s", diff)
	}
	// The Gateway itself is Pending, and its listener claims no route:
	// saying Accepted would contradict render, which leaves it out.
	for _, gw := range rep.Gateways {
		if gw.Name != "other" {
			continue
		}
		if len(gw.Listeners) != 0 || len(gw.Conditions) != 2 || gw.Conditions[0].Status != "Unknown" || gw.Conditions[0].Reason != "Pending" {
			t.Errorf("unmanaged Gateway status = %+v, want Accepted and Programmed Unknown/Pending, no listeners", gw)
		}
	}
}

// egBaseAndGateways is egBase and n more Envoy Gateway Gateways in infra
// (g00, g01, …, each with the one listener given), with a targetRef to
// each.
func egBaseAndGateways(n int, listener string) (docs string, refs []string) {
	docs = egBase
	for i := range n {
		name := fmt.Sprintf("g%02d", i)
		docs += "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners: [" + listener + "]\n"
		refs = append(refs, "{group: gateway.networking.k8s.io, kind: Gateway, name: "+name+"}")
	}
	return docs, refs
}

// TestEnvoyGatewayAggregated: past 16 ancestors Envoy Gateway keeps the
// first 16 in printed order and marks the last kept one Aggregated.
func TestEnvoyGatewayAggregated(t *testing.T) {
	docs, refs := egBaseAndGateways(17, "{name: a, protocol: HTTP, port: 80}")
	docs += "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: wide, namespace: infra}\nspec:\n  targetRefs: [" + strings.Join(refs, ", ") + "]\n  tcpKeepalive: {}\n"
	var got []string
	for _, line := range egConditions(compile(t, docs)) {
		if strings.HasPrefix(line, "wide @ ") {
			got = append(got, line)
		}
	}
	if len(got) != 16 {
		t.Fatalf("%d ancestors, want 16: %v", len(got), got)
	}
	const eg = egController
	if want := "wide @ Gateway/infra/g15 (" + eg + "): Accepted=True/Accepted Aggregated=True/Aggregated"; got[15] != want {
		t.Errorf("last ancestor = %q, want %q", got[15], want)
	}
}

// TestPolicyAncestorController: every policy status entry carries the
// controller of its Gateway's class, not the configured default.
func TestPolicyAncestorController(t *testing.T) {
	docs := base +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: x}\nspec: {controllerName: example.com/other}\n" +
		policyDoc("p1", "r1", "", "  cors: {allowOrigins: ['*']}\n", 1)
	rep := compile(t, docs)
	var got []string
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			got = append(got, p.Name+" @ "+a.AncestorRef.String()+" "+a.ControllerName)
		}
	}
	want := []string{"p1 @ Gateway/infra/gw example.com/other"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ancestors (-want +got):\n%s", diff)
	}
}

// TestHTTPRouteFilterExtensionRef: a rule naming Envoy Gateway's
// HTTPRouteFilter resolves; one naming a filter not in the input does not.
func TestHTTPRouteFilterExtensionRef(t *testing.T) {
	route := func(name, filter string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra, sectionName: a}]\n" +
			"  rules: [{filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: " + filter + "}}]}]\n"
	}
	docs := egBase + route("uses", "direct") + route("misses", "nowhere") +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: HTTPRouteFilter\nmetadata: {name: direct, namespace: app}\nspec:\n  directResponse: {statusCode: 404}\n"
	got := map[string]string{}
	for _, r := range compile(t, docs).Routes {
		for _, p := range r.Parents {
			for _, c := range p.Conditions {
				if c.Type == "ResolvedRefs" {
					got[r.Name] = c.Status
				}
			}
		}
	}
	want := map[string]string{"ra": "True", "rb": "True", "uses": "True", "misses": "False"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ResolvedRefs (-want +got):\n%s", diff)
	}
}

// TestEnvoyGatewayRouteValidation: a route on an Envoy Gateway Gateway
// gets Envoy Gateway's verdict (a rule dropped with PartiallyInvalid and
// "Dropped Rule(s) [i]", a missing Service port as PortNotFound); the same
// route on a kgateway Gateway keeps kgateway's conditions.
func TestEnvoyGatewayRouteValidation(t *testing.T) {
	const rules = "  rules:\n  - backendRefs: [{name: svc, port: 9999}]\n  - matches: [{path: {type: RegularExpression, value: '*x*'}}]\n"
	docs := egBase + "---\n" + kgClassDoc +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: kg, namespace: infra}\nspec:\n  gatewayClassName: kgw\n" +
		"  listeners: [{name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: app}\nspec: {ports: [{port: 8080}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: on-eg, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra, sectionName: a}]\n" + rules +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: on-kgw, namespace: app}\nspec:\n  parentRefs: [{name: kg, namespace: infra}]\n" + rules
	got := map[string][]string{}
	for _, r := range compile(t, docs).Routes {
		for _, p := range r.Parents {
			for _, typ := range []string{"Accepted", "ResolvedRefs", "PartiallyInvalid"} {
				got[r.Name] = append(got[r.Name], typ+"="+condOf(p.Conditions, typ))
			}
			if typ := "PartiallyInvalid"; condOf(p.Conditions, typ) != "absent" && !strings.HasPrefix(msgOf(p.Conditions, typ), "Dropped Rule(s) [1]: ") {
				t.Errorf("%s: PartiallyInvalid message %q does not name the dropped rule", r.Name, msgOf(p.Conditions, typ))
			}
		}
	}
	want := map[string][]string{
		"ra":     {"Accepted=True/Accepted", "ResolvedRefs=True/ResolvedRefs", "PartiallyInvalid=absent"},
		"rb":     {"Accepted=True/Accepted", "ResolvedRefs=True/ResolvedRefs", "PartiallyInvalid=absent"},
		"on-eg":  {"Accepted=True/Accepted", "ResolvedRefs=False/PortNotFound", "PartiallyInvalid=True/UnsupportedValue"},
		"on-kgw": {"Accepted=True/Accepted", "ResolvedRefs=False/BackendNotFound", "PartiallyInvalid=absent"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("route conditions (-want +got):\n%s", diff)
	}
}

func msgOf(cs []status.Condition, typ string) string {
	for _, c := range cs {
		if c.Type == typ {
			return c.Message
		}
	}
	return ""
}

// TestDeclinedListenerSetParent: Envoy Gateway writes no status for a
// parentRef to a ListenerSet its Gateway declines (it never translates
// the set); kgateway reports it NoMatchingParent.
func TestDeclinedListenerSetParent(t *testing.T) {
	for _, tc := range []struct{ class, want string }{
		{"eg", ""},
		{"kgw", "Accepted=False/NoMatchingParent"},
	} {
		docs := egBase + "---\n" + kgClassDoc +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: closed, namespace: infra}\nspec:\n  gatewayClassName: " + tc.class + "\n" +
			"  listeners: [{name: a, protocol: HTTP, port: 80}]\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: extra, namespace: app}\nspec:\n  parentRef: {name: closed, namespace: infra}\n" +
			"  listeners: [{name: x, protocol: HTTP, port: 81}]\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: on-set, namespace: app}\nspec:\n  parentRefs: [{kind: ListenerSet, name: extra}]\n"
		got := ""
		for _, r := range compile(t, docs).Routes {
			if r.Name != "on-set" {
				continue
			}
			for _, p := range r.Parents {
				got += "Accepted=" + condOf(p.Conditions, "Accepted")
			}
		}
		if got != tc.want {
			t.Errorf("class %s: parent status %q, want %q", tc.class, got, tc.want)
		}
	}
}

// TestBackendTLSPolicyCallerAncestor: a BackendTLSPolicy on an ext-auth
// backend is reported against the SecurityPolicy that calls it, as Envoy
// Gateway reports it, beside the Gateways whose routes use the backend.
func TestBackendTLSPolicyCallerAncestor(t *testing.T) {
	docs := egBase + "---\napiVersion: v1\nkind: Service\nmetadata: {name: auth, namespace: app}\nspec: {ports: [{name: grpc, port: 9000}]}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: sp, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: ra}]\n  extAuth: {grpc: {backendRefs: [{name: auth, port: 9000}]}}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: auth}]\n  validation: {wellKnownCACertificates: System, hostname: auth.example.com}\n"
	var got []string
	for _, p := range compile(t, docs).Policies {
		if p.Name != "tls" {
			continue
		}
		for _, a := range p.Ancestors {
			got = append(got, a.AncestorRef.String()+" "+condOf(a.Conditions, "Accepted"))
		}
	}
	want := []string{"SecurityPolicy/app/sp True/Accepted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ancestors (-want +got):\n%s", diff)
	}
}

// TestSecurityPolicyMergedOnTCPRoute: a SecurityPolicy merged into its
// listener's on a TCPRoute may only authorize; with basic auth from the
// listener's policy the route policy is Invalid there and the listener's
// is Overridden. Authorization alone merges.
func TestSecurityPolicyMergedOnTCPRoute(t *testing.T) {
	sp := func(ns, name, target, fields string) string {
		kind, tname, _ := strings.Cut(target, "/")
		tname, section, _ := strings.Cut(tname, "#")
		ref := "{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + tname
		if section != "" {
			ref += ", sectionName: " + section
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n  targetRefs: [" + ref + "}]\n" + fields
	}
	base := egBase + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: tcp, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
		"  listeners: [{name: t, protocol: TCP, port: 9000, allowedRoutes: {namespaces: {from: All}}}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: db, namespace: app}\nspec:\n  parentRefs: [{name: tcp, namespace: infra, sectionName: t}]\n  rules: [{backendRefs: [{name: svc, port: 9000}]}]\n"
	// the basic auth users (htpasswd {SHA}), which Envoy Gateway reads
	base += "---\napiVersion: v1\nkind: Secret\nmetadata: {name: users, namespace: infra}\ndata: {.htpasswd: YWxpY2U6e1NIQX1xdlRHSGR6RjZLTGF2dDRQTzBnczJhNnBRMDA9}\n"
	authz := "  authorization: {defaultAction: Deny}\n"
	route := sp("app", "route", "TCPRoute/db", "  mergeType: StrategicMerge\n"+authz)
	tests := []struct {
		name, listener string
		want           []string
	}{
		{"basic auth on the listener", sp("infra", "listener", "Gateway/tcp#t", "  basicAuth: {users: {name: users}}\n"), []string{
			"listener @ Gateway/infra/tcp#t (" + egController + "): Accepted=True/Accepted Overridden=True/Overridden",
			"route @ Gateway/infra/tcp#t (" + egController + "): Accepted=False/Invalid",
		}},
		{"authorization on the listener", sp("infra", "listener", "Gateway/tcp#t", authz), []string{
			"listener @ Gateway/infra/tcp#t (" + egController + "): Accepted=True/Accepted Merged=True/Merged",
			"route @ Gateway/infra/tcp#t (" + egController + "): Accepted=True/Accepted Merged=True/Merged",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := egConditions(compile(t, base+tc.listener+route))
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParentGatewayNotInInput: a parentRef to a Gateway the input does not
// hold is reported (NoMatchingParent) by the configured controller only
// when the input lets it run: no GatewayClass at all, or one of its own.
func TestParentGatewayNotInInput(t *testing.T) {
	route := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: lost, namespace: app}\nspec:\n  parentRefs: [{name: nowhere, namespace: infra}]\n"
	for _, tc := range []struct{ name, docs, want string }{
		{"only Envoy Gateway's class in the input", egBase + route, ""},
		{"no GatewayClass in the input", route, "False/NoMatchingParent"},
	} {
		got := ""
		for _, r := range compile(t, tc.docs).Routes {
			if r.Name == "lost" {
				for _, p := range r.Parents {
					got += condOf(p.Conditions, "Accepted")
				}
			}
		}
		if got != tc.want {
			t.Errorf("%s: Accepted %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestEnvoyGatewayAggregatedOverridden: Envoy Gateway holds at most 17
// entries while it writes a policy's status (boundPolicyAncestors drops
// the least important past that: the last by namespace and name among
// the accepted ones) and cuts to 16 at the end. With 17 Gateways nothing
// is dropped before the cut, so the overridden one keeps its Accepted;
// with 18 the overridden Gateway (last by name) was dropped when it was
// added and comes back with Overridden alone, pushing out the one before.
func TestEnvoyGatewayAggregatedOverridden(t *testing.T) {
	for _, tc := range []struct {
		gateways int
		want     []string
	}{
		{17, []string{
			"Gateway/infra/g14 (" + egController + "): Accepted=True/Accepted Aggregated=True/Aggregated",
			"Gateway/infra/g16 (" + egController + "): Accepted=True/Accepted Overridden=True/Overridden",
		}},
		{18, []string{
			"Gateway/infra/g14 (" + egController + "): Accepted=True/Accepted Aggregated=True/Aggregated",
			"Gateway/infra/g17 (" + egController + "): Overridden=True/Overridden",
		}},
	} {
		docs, refs := egBaseAndGateways(tc.gateways, "{name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}")
		last := fmt.Sprintf("g%02d", tc.gateways-1)
		docs += "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: wide, namespace: infra}\nspec:\n  targetRefs: [" + strings.Join(refs, ", ") + "]\n  timeout: {tcp: {connectTimeout: 5s}}\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: last, namespace: app}\nspec:\n  parentRefs: [{name: " + last + ", namespace: infra}]\n" +
			btp("app", "route-policy", "HTTPRoute/last", "")
		var got []string
		for _, line := range egConditions(compile(t, docs)) {
			if strings.HasPrefix(line, "wide @ ") {
				got = append(got, strings.TrimPrefix(line, "wide @ "))
			}
		}
		if len(got) != 16 || !slices.Equal(got[14:], tc.want) {
			t.Errorf("%d Gateways: ancestors %d, last two %q, want 16 ending %q", tc.gateways, len(got), got[max(0, len(got)-2):], tc.want)
		}
	}
}

// TestEnvoyExtensionPolicyDeprecatedTargetRef: an EnvoyExtensionPolicy's
// singular targetRef is a deprecated field too
// (envoyextensionpolicy.go: deprecatedFieldsUsedInEnvoyExtensionPolicy),
// written beside its acceptance on each ancestor, whether or not the
// policy is valid there.
func TestEnvoyExtensionPolicyDeprecatedTargetRef(t *testing.T) {
	const eg = egController
	eep := func(name, target, lua string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" +
			"  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: " + target + "}\n" +
			"  lua: [{type: Inline, inline: '" + lua + "'}]\n"
	}
	docs := egBase + eep("old", "rb", "function envoy_on_request(h) end") + eep("old-broken", "ra", "function envoy_on_request(h")
	got := egConditions(compileWithSettings(t, docs, map[string]any{"envoyGateway.extensionApis.enableLua": true}))
	want := []string{
		"old @ Gateway/infra/gw (" + eg + "): Accepted=True/Accepted Warning=True/DeprecatedField",
		"old-broken @ Gateway/infra/gw#a (" + eg + "): Accepted=False/Invalid Warning=True/DeprecatedField",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("conditions (-want +got):\n%s", diff)
	}
}

// TestEnvoyGatewayAggregatedConflicted: past 16 ancestors Envoy Gateway
// keeps the ones not accepted first (status/policy.go:
// TruncatePolicyAncestors → sortRankForPolicyAncestor: Accepted=False,
// then Overridden, then the rest, each by namespace and name) and writes
// Aggregated on the last one it keeps.
func TestEnvoyGatewayAggregatedConflicted(t *testing.T) {
	docs, refs := egBaseAndGateways(17, "{name: a, protocol: HTTP, port: 80}")
	ctp := func(name, refs string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  targetRefs: [" + refs + "]\n  tcpKeepalive: {}\n"
	}
	docs += ctp("first", refs[16]) + ctp("wide", strings.Join(refs, ", "))
	var got []string
	for _, line := range egConditions(compile(t, docs)) {
		if strings.HasPrefix(line, "wide @ ") {
			got = append(got, strings.TrimPrefix(line, "wide @ "))
		}
	}
	want := []string{
		"Gateway/infra/g14 (" + egController + "): Accepted=True/Accepted Aggregated=True/Aggregated",
		"Gateway/infra/g16 (" + egController + "): Accepted=False/Conflicted",
	}
	if len(got) != 16 || !slices.Equal(got[14:], want) {
		t.Errorf("ancestors %d, last two %q, want 16 ending %q", len(got), got[max(0, len(got)-2):], want)
	}
}

// TestEnvoyGatewayHTTP3WarningNamesListeners: a ClientTrafficPolicy with
// HTTP/3 and client certificate validation is warned about on each
// target, naming the listeners Envoy Gateway disables HTTP/3 on
// (ProcessClientTrafficPolicies: shouldDisableHTTP3ForClientValidation on
// each listener it translates, disabledHTTP3WarningMessage): the HTTPS
// listeners it programs, those a policy on the listener took first left
// out; none, no warning.
func TestEnvoyGatewayHTTP3WarningNamesListeners(t *testing.T) {
	gateway := func(second string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: secure, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
			"  - {name: tls, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}]}}\n" +
			"  - {name: tls2, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: " + second + "}]}}\n" +
			"  - {name: plain, protocol: HTTP, port: 80}\n" +
			"---\napiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: infra}\ntype: kubernetes.io/tls\ndata: " + testTLS + "\n" +
			"---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: infra}\ndata: " + testCA + "\n"
	}
	ctp := func(name, section string) string {
		target := "{group: gateway.networking.k8s.io, kind: Gateway, name: secure}"
		if section != "" {
			target = "{group: gateway.networking.k8s.io, kind: Gateway, name: secure, sectionName: " + section + "}"
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n" +
			"  targetRefs: [" + target + "]\n  http3: {}\n  tls: {clientValidation: {caCertificateRefs: [{name: ca}]}}\n"
	}
	const why = " because Envoy does not support downstream client TLS validation over QUIC"
	for _, tc := range []struct {
		name, docs string
		want       map[string]string // policy @ section → Warning message
	}{
		{"both HTTPS listeners programmed: both named, sorted", gateway("cert") + ctp("quic", ""),
			map[string]string{"quic@": `HTTP/3 was disabled for listeners [tls tls2]` + why}},
		{"one not programmed (no certificate): the other alone", gateway("missing") + ctp("quic", ""),
			map[string]string{"quic@": `HTTP/3 was disabled for listener "tls"` + why}},
		{"a listener a policy on it took first is that policy's", gateway("cert") + ctp("quic", "") + ctp("one", "tls2"),
			map[string]string{"quic@": `HTTP/3 was disabled for listener "tls"` + why, "one@tls2": `HTTP/3 was disabled for listener "tls2"` + why}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, tc.docs)
			got := map[string]string{}
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					for _, c := range a.Conditions {
						if c.Type == "Warning" {
							got[p.Name+"@"+a.AncestorRef.SectionName] = c.Message
						}
					}
				}
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("warnings %v\nwant %v", got, tc.want)
			}
		})
	}
}
