package status_test

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestEnvoyGatewayRouteTargetAncestors: a policy on a route reports
// against the route's parentRefs that name a Gateway of Envoy Gateway's
// in the input, or a ListenerSet such a Gateway has (GetManagedParentReferences:
// only the parentRefs the translator made a parent context for); a
// parentRef to a Gateway or ListenerSet that is not there is no ancestor,
// for every kind that reports route ancestors this way (Envoy Gateway's
// processBackendTrafficPolicyForRoute, and its SecurityPolicy and
// EnvoyExtensionPolicy siblings). Found by TestEnvoyGatewayOracle.
func TestEnvoyGatewayRouteTargetAncestors(t *testing.T) {
	route := func(parents string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: multi, namespace: app}\nspec:\n  parentRefs: " + parents + "\n  rules: [{name: one}]\n"
	}
	const sp = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: sec, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: multi}]\n  cors: {allowOrigins: ['https://a.example']}\n"
	const eep = "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: ext, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: multi}]\n" +
		"  lua: [{type: Inline, inline: 'function envoy_on_request(request_handle) end'}]\n"
	policies := btp("app", "one", "HTTPRoute/multi", "") + sp + eep
	accepted := func(anc string) []string {
		return []string{
			"BackendTrafficPolicy/app/one @ " + anc + ": Accepted=True/Accepted",
			"EnvoyExtensionPolicy/app/ext @ " + anc + ": Accepted=True/Accepted",
			"SecurityPolicy/app/sec @ " + anc + ": Accepted=True/Accepted",
		}
	}
	tests := []struct {
		name, docs string
		want       []string
	}{{
		name: "a missing Gateway beside a present one",
		docs: route("[{name: gw, namespace: infra, sectionName: b}, {name: gone, namespace: infra}]"),
		want: accepted("Gateway/infra/gw#b"),
	}, {
		name: "a missing ListenerSet beside a present Gateway",
		docs: route("[{kind: ListenerSet, name: not-there, namespace: infra, sectionName: x}, {name: gw, namespace: infra}]"),
		want: accepted("Gateway/infra/gw"),
	}, {
		name: "only missing parents: no ancestor, no status",
		docs: route("[{name: gone, namespace: infra}, {kind: ListenerSet, name: not-there, namespace: infra}]"),
	}, {
		name: "a Gateway of another class is not Envoy Gateway's",
		docs: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: other, namespace: infra}\nspec:\n  gatewayClassName: someone-else\n" +
			"  listeners: [{name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n" +
			route("[{name: other, namespace: infra}, {name: gw, namespace: infra, sectionName: a}]"),
		want: accepted("Gateway/infra/gw#a"),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// Lua is off by default in Envoy Gateway (extensionApis.enableLua)
			lines, _ := egStatuses(compileWithSettings(t, egBase+tc.docs+policies, map[string]any{"envoyGateway.extensionApis.enableLua": true}))
			var got []string
			for key, conds := range lines {
				for _, prefix := range []string{"BackendTrafficPolicy/app/one @", "SecurityPolicy/app/sec @", "EnvoyExtensionPolicy/app/ext @"} {
					if len(key) > len(prefix) && key[:len(prefix)] == prefix {
						got = append(got, key+": "+conds)
					}
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

// TestTargetNotFoundSummaryInView: a policy whose targets are all missing
// gets the reporting controller's synthetic StatusSummary ancestor only
// where that controller is in view — the input has no GatewayClass, or one
// naming it. An input whose GatewayClasses are all Envoy Gateway's gets
// none: Envoy Gateway writes a BackendTLSPolicy's status only through the
// routes whose backends it covers (backendtlspolicy.go:
// processBackendTLSPolicy), so a policy on a Service that is not there has
// no status. Found by TestEnvoyGatewayOracle.
func TestTargetNotFoundSummaryInView(t *testing.T) {
	const btls = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: not-there}]\n  validation: {hostname: a.example, wellKnownCACertificates: System}\n"
	class := func(name, controller string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: " + name + "}\nspec: {controllerName: " + controller + "}\n"
	}
	tests := []struct {
		name, docs string
		want       int // ancestors
	}{
		{"only Envoy Gateway's class", class("eg", "gateway.envoyproxy.io/gatewayclass-controller"), 0},
		{"kgateway's class beside it", class("eg", "gateway.envoyproxy.io/gatewayclass-controller") + class("kgw", "kgateway.dev/kgateway"), 1},
		{"no class at all", "", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, tc.docs+btls)
			for _, p := range rep.Policies {
				if p.Kind == "BackendTLSPolicy" && len(p.Ancestors) != tc.want {
					t.Errorf("ancestors %+v, want %d", p.Ancestors, tc.want)
				}
			}
		})
	}
}

// TestEnvoyGatewayOverriddenByWrittenParentRefs: a route with a policy of
// its own overrides the policies of the scopes its parentRefs name,
// accepted there or not (Envoy Gateway's processBackendTrafficPolicyForRoute
// records the route under each managed parentRef's scope before anything
// is translated; policyScopeGraph.GetWithDescendants lets a listener's
// policy count the routes attached to its whole Gateway), and with
// mergeType merges into the policy over each listener the parentRef
// allows, whether or not a hostname matches. Shapes of the egBase Gateway
// (listeners a and b); found by TestEnvoyGatewayOracle.
func TestEnvoyGatewayOverriddenByWrittenParentRefs(t *testing.T) {
	route := func(name, parents, extra string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: app}\nspec:\n  parentRefs: " + parents + "\n" + extra + "  rules: [{name: one}]\n"
	}
	const grpcOnly = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: grpc, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
		"  listeners: [{name: g, protocol: HTTP, port: 90, allowedRoutes: {namespaces: {from: All}, kinds: [{kind: GRPCRoute}]}}]\n"
	const named = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: named, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
		"  listeners: [{name: h, hostname: only.example.com, protocol: HTTP, port: 91, allowedRoutes: {namespaces: {from: All}}}]\n"
	const merge = "  mergeType: StrategicMerge\n"
	tests := []struct {
		name, docs string
		want       []string
	}{{
		name: "a route no listener allows still overrides the Gateway's policy",
		docs: grpcOnly + route("refused", "[{name: grpc, namespace: infra}]", "") +
			btp("infra", "gw-policy", "Gateway/grpc", "") + btp("app", "route-policy", "HTTPRoute/refused", ""),
		want: []string{
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/grpc: Accepted=True/Accepted",
			"BackendTrafficPolicy/infra/gw-policy @ Gateway/infra/grpc: Accepted=True/Accepted Overridden=True/Overridden",
			"HTTPRoute/app/refused @ Gateway/infra/grpc: Accepted=False/NotAllowedByListeners ResolvedRefs=True/ResolvedRefs",
		},
	}, {
		name: "a parentRef naming a listener the Gateway lacks still records the route under the Gateway",
		docs: route("lost", "[{name: gw, namespace: infra, sectionName: nope}]", "") +
			btp("infra", "gw-policy", "Gateway/gw", "") + btp("app", "route-policy", "HTTPRoute/lost", ""),
		want: []string{
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw#nope: Accepted=True/Accepted",
			"BackendTrafficPolicy/infra/gw-policy @ Gateway/infra/gw: Accepted=True/Accepted Overridden=True/Overridden",
			"HTTPRoute/app/lost @ Gateway/infra/gw: Accepted=False/NoMatchingParent ResolvedRefs=True/ResolvedRefs",
		},
	}, {
		name: "a listener's policy counts the routes whose parentRef names the whole Gateway",
		docs: btp("infra", "on-b", "Gateway/gw#b", "") + btp("app", "on-ra", "HTTPRoute/ra", "") + btp("app", "on-rb", "HTTPRoute/rb", ""),
		want: []string{
			"BackendTrafficPolicy/app/on-ra @ Gateway/infra/gw#a: Accepted=True/Accepted",
			"BackendTrafficPolicy/app/on-rb @ Gateway/infra/gw: Accepted=True/Accepted",
			"BackendTrafficPolicy/infra/on-b @ Gateway/infra/gw#b: Accepted=True/Accepted Overridden=True/Overridden",
		},
	}, {
		name: "a route merges on a listener it allows whose hostname it does not match",
		docs: named + route("elsewhere", "[{name: named, namespace: infra}]", "  hostnames: [other.example.org]\n") +
			btp("infra", "gw-policy", "Gateway/named", "") + btp("app", "route-policy", "HTTPRoute/elsewhere", merge),
		want: []string{
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/named#h: Merged=True/Merged",
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/named: Accepted=True/Accepted",
			"BackendTrafficPolicy/infra/gw-policy @ Gateway/infra/named: Accepted=True/Accepted Merged=True/Merged",
			"HTTPRoute/app/elsewhere @ Gateway/infra/named: Accepted=False/NoMatchingListenerHostname ResolvedRefs=True/ResolvedRefs",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines, _ := egStatuses(compile(t, egBase+tc.docs))
			var got []string
			for key, conds := range lines {
				if strings.HasPrefix(key, "BackendTrafficPolicy/") || strings.HasPrefix(key, "HTTPRoute/app/") && !strings.HasPrefix(key, "HTTPRoute/app/ra ") && !strings.HasPrefix(key, "HTTPRoute/app/rb ") {
					got = append(got, key+": "+conds)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

// TestBackendTLSPolicyCallerTranslated: a BackendTLSPolicy on a backend a
// SecurityPolicy calls is reported against that SecurityPolicy only while
// Envoy Gateway translates it for a target (applyBackendTLSSetting runs
// inside the translation), so a caller whose targets are all missing, or
// whose sectionName names no listener, adds no ancestor. Found by
// TestEnvoyGatewayOracle.
func TestBackendTLSPolicyCallerTranslated(t *testing.T) {
	const others = "---\napiVersion: v1\nkind: Service\nmetadata: {name: auth, namespace: infra}\nspec: {ports: [{name: grpc, port: 9000}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: auth}]\n  validation: {wellKnownCACertificates: System, hostname: auth.example.com}\n"
	caller := func(target string) string {
		kind, rest, _ := strings.Cut(target, "/")
		name, section, _ := strings.Cut(rest, "#")
		ref := "{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + name
		if section != "" {
			ref += ", sectionName: " + section
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: sp, namespace: infra}\nspec:\n" +
			"  targetRefs: [" + ref + "}]\n  extAuth: {grpc: {backendRefs: [{name: auth, port: 9000}]}}\n"
	}
	tests := []struct {
		name, target string
		want         []string
	}{
		{"a Gateway it translates for", "Gateway/gw", []string{"SecurityPolicy/infra/sp"}},
		{"a Gateway that is not there", "Gateway/gone", nil},
		{"a listener the Gateway lacks", "Gateway/gw#nope", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, p := range compile(t, egBase+others+caller(tc.target)).Policies {
				if p.Name == "tls" {
					for _, a := range p.Ancestors {
						got = append(got, a.AncestorRef.String())
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ancestors %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEnvoyGatewayMergedRouteErrorsOnListeners: a BackendTrafficPolicy (or
// EnvoyExtensionPolicy) with mergeType on a route is built only per
// listener of its route, merged into the closest policy above or alone,
// and a failure is written on that listener's entry; the parentRef's own
// entry says Accepted (processBackendTrafficPolicyForRoute's merge
// branch, then SetAcceptedForPolicyAncestors where Accepted is unset).
// Nothing merges, so the Gateway's policy is Overridden. Route rb of
// egBase names the whole Gateway, attached through a and b. Found by
// TestEnvoyGatewayOracle.
func TestEnvoyGatewayMergedRouteErrorsOnListeners(t *testing.T) {
	const bad = "  connection: {bufferLimit: 100m}\n  mergeType: StrategicMerge\n"
	// a SecurityPolicy is built the same way (processSecurityPolicyForRoute's
	// merge branch), after its validator
	sp := func(ns, name, target, extra string) string {
		kind, tname, _ := strings.Cut(target, "/")
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + tname + "}]\n" + extra
	}
	const badSecurity = "  basicAuth: {users: {name: nope}}\n  mergeType: StrategicMerge\n"
	tests := []struct {
		name, docs string
		want       []string
	}{{
		name: "under a Gateway policy",
		docs: btp("infra", "gw-policy", "Gateway/gw", "") + btp("app", "route-policy", "HTTPRoute/rb", bad),
		want: []string{
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw#a: Accepted=False/Invalid",
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw#b: Accepted=False/Invalid",
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw: Accepted=True/Accepted",
			"BackendTrafficPolicy/infra/gw-policy @ Gateway/infra/gw: Accepted=True/Accepted Overridden=True/Overridden",
		},
	}, {
		name: "alone",
		docs: btp("app", "route-policy", "HTTPRoute/rb", bad),
		want: []string{
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw#a: Accepted=False/Invalid",
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw#b: Accepted=False/Invalid",
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw: Accepted=True/Accepted",
		},
	}, {
		name: "without mergeType the route's own entry is Invalid",
		docs: btp("app", "route-policy", "HTTPRoute/rb", "  connection: {bufferLimit: 100m}\n"),
		want: []string{"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw: Accepted=False/Invalid"},
	}, {
		name: "a SecurityPolicy under a Gateway policy",
		docs: sp("infra", "gw-policy", "Gateway/gw", "  cors: {allowOrigins: ['https://a.example.com']}\n") + sp("app", "route-policy", "HTTPRoute/rb", badSecurity),
		want: []string{
			"SecurityPolicy/app/route-policy @ Gateway/infra/gw#a: Accepted=False/Invalid",
			"SecurityPolicy/app/route-policy @ Gateway/infra/gw#b: Accepted=False/Invalid",
			"SecurityPolicy/app/route-policy @ Gateway/infra/gw: Accepted=True/Accepted",
			"SecurityPolicy/infra/gw-policy @ Gateway/infra/gw: Accepted=True/Accepted Overridden=True/Overridden",
		},
	}, {
		name: "a SecurityPolicy alone",
		docs: sp("app", "route-policy", "HTTPRoute/rb", badSecurity),
		want: []string{
			"SecurityPolicy/app/route-policy @ Gateway/infra/gw#a: Accepted=False/Invalid",
			"SecurityPolicy/app/route-policy @ Gateway/infra/gw#b: Accepted=False/Invalid",
			"SecurityPolicy/app/route-policy @ Gateway/infra/gw: Accepted=True/Accepted",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines, _ := egStatuses(compile(t, egBase+tc.docs))
			var got []string
			for key, conds := range lines {
				if strings.HasPrefix(key, "BackendTrafficPolicy/") || strings.HasPrefix(key, "SecurityPolicy/") {
					got = append(got, key+": "+conds)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

// TestEnvoyGatewayUnknownMergeType: spec.mergeType has no enum in the
// CRD, so Envoy Gateway admits any value and takes its merge branch
// (processBackendTrafficPolicyForRoute, processSecurityPolicyForRoute:
// MergeType != nil). utils.Merge fails with "unsupported merge type" only
// on a listener where a parent policy exists; on a listener with none
// the route policy is built alone. Route rb of egBase is attached
// through listeners a and b.
func TestEnvoyGatewayUnknownMergeType(t *testing.T) {
	sp := func(ns, name, target, extra string) string {
		kind, tname, _ := strings.Cut(target, "/")
		tname, section, _ := strings.Cut(tname, "#")
		ref := "{group: gateway.networking.k8s.io, kind: " + kind + ", name: " + tname
		if section != "" {
			ref += ", sectionName: " + section
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: " + name +
			", namespace: " + ns + "}\nspec:\n  targetRefs: [" + ref + "}]\n  cors: {allowOrigins: [https://a.example]}\n" + extra
	}
	tests := []struct {
		name, prefix, docs string
		want               []string
		msg                string
	}{{
		name:   "a listener policy on one of two listeners: refused there only",
		prefix: "BackendTrafficPolicy/",
		docs:   btp("infra", "a-policy", "Gateway/gw#a", "") + btp("app", "route-policy", "HTTPRoute/rb", "  mergeType: Merge\n"),
		want: []string{
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw#a: Accepted=False/Invalid",
			"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw: Accepted=True/Accepted",
			"BackendTrafficPolicy/infra/a-policy @ Gateway/infra/gw#a: Accepted=True/Accepted Overridden=True/Overridden",
		},
		msg: "Error merging policies: unsupported merge type: Merge.",
	}, {
		name:   "an empty mergeType with nothing above: built alone",
		prefix: "BackendTrafficPolicy/",
		docs:   btp("app", "route-policy", "HTTPRoute/rb", "  mergeType: \"\"\n"),
		want:   []string{"BackendTrafficPolicy/app/route-policy @ Gateway/infra/gw: Accepted=True/Accepted"},
	}, {
		name:   "a SecurityPolicy on a route through one listener, under a Gateway policy: its message is not capitalised",
		prefix: "SecurityPolicy/",
		docs:   sp("infra", "gw-policy", "Gateway/gw", "") + sp("app", "route-policy", "HTTPRoute/ra", "  mergeType: other\n"),
		want: []string{
			"SecurityPolicy/app/route-policy @ Gateway/infra/gw#a: Accepted=False/Invalid", // ra's parentRef names listener a: one entry
			"SecurityPolicy/infra/gw-policy @ Gateway/infra/gw: Accepted=True/Accepted Overridden=True/Overridden",
		},
		msg: "error merging policies: unsupported merge type: other",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines, msgs := egStatuses(compile(t, egBase+tc.docs))
			var got []string
			for key, conds := range lines {
				if strings.HasPrefix(key, tc.prefix) {
					got = append(got, key+": "+conds)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %q\nwant\n  %q", got, tc.want)
			}
			if tc.msg != "" && !slices.Contains(msgs, tc.msg) {
				t.Errorf("no condition says %q in %q", tc.msg, msgs)
			}
		})
	}
}

// TestEnvoyGatewayPerGatewayBuilders: on a route target Envoy Gateway
// builds an EnvoyExtensionPolicy's Lua, ExtProc and DynamicModules, and a
// SecurityPolicy's ExtAuth, OIDC and JWT, once per parentRef whose parent
// context has a Gateway (translateEnvoyExtensionPolicyForRoute,
// translateSecurityPolicyForRoute: GetGateway is nil when no listener
// allows the route). A route no listener allows gets none of those
// errors: its ancestors say Accepted. Wasm and the SecurityPolicy's
// other builders run once, before the loop.
func TestEnvoyGatewayPerGatewayBuilders(t *testing.T) {
	tcpOnly := egPlatform("infra", "  listeners:\n  - {name: grpc-only, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}, kinds: [{kind: GRPCRoute}]}}\n  - {name: same-ns, protocol: HTTP, port: 81}\n") + `
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{}]
`
	eep := func(spec string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: p, namespace: app}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n" + spec
	}
	sp := func(spec string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: p, namespace: app}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n" + spec
	}
	// Route r in app reaches neither listener: grpc-only admits GRPCRoutes
	// only, same-ns routes of infra only. Moved to infra it reaches same-ns.
	reaching := strings.Replace(tcpOnly, "metadata: {name: r, namespace: app}", "metadata: {name: r, namespace: infra}", 1)
	tests := []struct {
		name, base, policy, want string
	}{
		{"a dynamic module no EnvoyProxy registers, on a route no listener allows", tcpOnly, eep("  dynamicModule: [{name: mod}]\n"), "Accepted=True/Accepted"},
		{"an ext processor whose backend is missing, on a route no listener allows", tcpOnly, eep("  extProc: [{backendRefs: [{name: missing, port: 9000}]}]\n"), "Accepted=True/Accepted"},
		{"an ext auth backend that is missing, on a route no listener allows", tcpOnly, sp("  extAuth: {grpc: {backendRefs: [{name: missing, port: 9000}]}}\n"), "Accepted=True/Accepted"},
		{"the same ext auth on a route a listener allows", reaching, strings.Replace(sp("  extAuth: {grpc: {backendRefs: [{name: missing, port: 9000}]}}\n"), "namespace: app", "namespace: infra", 1), "Accepted=False/Invalid"},
		{"the same dynamic module on a route a listener allows", reaching, strings.Replace(eep("  dynamicModule: [{name: mod}]\n"), "namespace: app", "namespace: infra", 1), "Accepted=False/Invalid"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, tc.base+tc.policy)
			var got []string
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					var cs []string
					for _, c := range a.Conditions {
						if c.Type == "Accepted" {
							cs = append(cs, c.Type+"="+c.Status+"/"+c.Reason)
						}
					}
					got = append(got, strings.Join(cs, " "))
				}
			}
			if len(got) == 0 || slices.ContainsFunc(got, func(s string) bool { return s != tc.want }) {
				t.Errorf("ancestors %q, want each %q", got, tc.want)
			}
		})
	}
}

// TestEnvoyGatewayPerTargetBuilders: a route policy's per-parent builders
// (EnvoyExtensionPolicy's ExtProc, Lua, DynamicModules; SecurityPolicy's
// ExtAuth, OIDC, JWT) run for each route target that reaches one of Envoy
// Gateway's Gateways, and their errors are written on that route's
// ancestors alone (processSecurityPolicyForRoute,
// processEnvoyExtensionPolicyForRoute: SetTranslationErrorForPolicyAncestors
// with the route's ancestorRefs): a target route no listener allows keeps
// Accepted, unless another target's error reaches the same ancestor.
func TestEnvoyGatewayPerTargetBuilders(t *testing.T) {
	base := egPlatform("infra", "  listeners:\n  - {name: grpc-only, protocol: HTTP, port: 80, allowedRoutes: {kinds: [{kind: GRPCRoute}]}}\n  - {name: web, protocol: HTTP, port: 81}\n") + `
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: reaches, namespace: infra}
spec:
  parentRefs: [PARENTS]
  rules: [{}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: allowed-nowhere, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: grpc-only}]
  rules: [{}]
`
	targets := "  targetRefs:\n  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: allowed-nowhere}\n  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: reaches}\n"
	policy := func(kind, spec string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: p, namespace: infra}\nspec:\n" + targets + spec
	}
	extAuth := policy("SecurityPolicy", "  extAuth: {http: {backendRefs: [{name: missing, port: 9000}]}}\n")
	extProc := policy("EnvoyExtensionPolicy", "  extProc: [{backendRefs: [{name: missing, port: 9000}]}]\n")
	tests := []struct {
		name, parents, policy string
		want                  map[string]string // ancestor section → Accepted
	}{
		{"an ext auth backend that is missing: invalid where a target is built only", "{name: gw, sectionName: web}", extAuth,
			map[string]string{"web": "False/Invalid", "grpc-only": "True/Accepted"}},
		{"an ext processor backend that is missing: the same", "{name: gw, sectionName: web}", extProc,
			map[string]string{"web": "False/Invalid", "grpc-only": "True/Accepted"}},
		{"a built target's error reaches each of its route's ancestors, one it shares with the other target too", "{name: gw, sectionName: web}, {name: gw, sectionName: grpc-only}", extAuth,
			map[string]string{"web": "False/Invalid", "grpc-only": "False/Invalid"}},
		{"no target built: no error of those builders", "{name: gw, sectionName: grpc-only}", extAuth,
			map[string]string{"grpc-only": "True/Accepted"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, strings.Replace(base, "PARENTS", tc.parents, 1)+tc.policy)
			got := map[string]string{}
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					for _, c := range a.Conditions {
						if c.Type == "Accepted" {
							got[a.AncestorRef.SectionName] = c.Status + "/" + c.Reason
						}
					}
				}
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("ancestors %v, want %v", got, tc.want)
			}
		})
	}
}
