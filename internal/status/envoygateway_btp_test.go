package status_test

import (
	"slices"
	"strings"
	"testing"
)

// TestBackendTrafficPolicyStatus: the conditions and messages Envoy
// Gateway's ProcessBackendTrafficPolicies writes, one subtest per status
// path (docs/controllers/envoygateway-checks.md names them). egBase's
// Gateway infra/gw has listeners a and b; route ra attaches to a, rb to
// both, with rules one (and two).
func TestBackendTrafficPolicyStatus(t *testing.T) {
	// open is a Gateway that admits the ListenerSets of its namespace; set
	// is one, with listener x.
	const set = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: open, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
		"  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: a, protocol: HTTP, port: 8080}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: extra, namespace: infra}\nspec:\n  parentRef: {name: open}\n" +
		"  listeners: [{name: x, port: 9090, protocol: HTTP}]\n"
	tests := []struct {
		name, policies string
		want           []string
	}{{
		name:     "accepted",
		policies: btp("app", "one", "HTTPRoute/ra", ""),
		want:     []string{"one @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted."},
	}, {
		// the ref listed twice: the second conflicts in the status only;
		// the policy is built through the first (B106)
		name:     "gateway-named-twice",
		policies: strings.Replace(btp("infra", "twice", "Gateway/gw", ""), "name: gw}]", "name: gw}, {group: gateway.networking.k8s.io, kind: Gateway, name: gw}]", 1),
		want: []string{
			"twice @ Gateway/infra/gw: Accepted=False/Conflicted: Unable to target Gateway gw, another BackendTrafficPolicy has already attached to it",
		},
	}, {
		name:     "gateway-section-not-found",
		policies: btp("infra", "one", "Gateway/gw#nope", ""),
		want:     []string{"one @ Gateway/infra/gw#nope: Accepted=False/TargetNotFound: No section name nope found for Gateway infra/gw"},
	}, {
		name:     "route-section-not-found",
		policies: btp("app", "one", "HTTPRoute/ra#nope", ""),
		want:     []string{"one @ Gateway/infra/gw#a: Accepted=False/TargetNotFound: No section name nope found for HTTPRoute app/ra"},
	}, {
		name:     "gateway-conflicted",
		policies: btp("infra", "first", "Gateway/gw", "") + btp("infra", "second", "Gateway/gw", ""),
		want: []string{
			"first @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"second @ Gateway/infra/gw: Accepted=False/Conflicted: Unable to target Gateway gw, another BackendTrafficPolicy has already attached to it",
		},
	}, {
		name:     "listener-conflicted",
		policies: btp("infra", "first", "Gateway/gw#b", "") + btp("infra", "second", "Gateway/gw#b", ""),
		want: []string{
			"first @ Gateway/infra/gw#b: Accepted=True/Accepted: Policy has been accepted.",
			"second @ Gateway/infra/gw#b: Accepted=False/Conflicted: Unable to target Listener infra/gw/b, another BackendTrafficPolicy has already attached to it",
		},
	}, {
		name:     "route-conflicted",
		policies: btp("app", "first", "HTTPRoute/ra", "") + btp("app", "second", "HTTPRoute/ra", ""),
		want: []string{
			"first @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"second @ Gateway/infra/gw#a: Accepted=False/Conflicted: Unable to target HTTPRoute ra, another BackendTrafficPolicy has already attached to it",
		},
	}, {
		name:     "rule-conflicted",
		policies: btp("app", "first", "HTTPRoute/ra#one", "") + btp("app", "second", "HTTPRoute/ra#one", ""),
		want: []string{
			"first @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"second @ Gateway/infra/gw#a: Accepted=False/Conflicted: Unable to target RouteRule ra/one, another BackendTrafficPolicy has already attached to it",
		},
	}, {
		name:     "listenerset-conflicted",
		policies: set + btp("infra", "first", "ListenerSet/extra", "") + btp("infra", "second", "ListenerSet/extra", ""),
		want: []string{
			"first @ ListenerSet/infra/extra: Accepted=True/Accepted: Policy has been accepted.",
			"second @ ListenerSet/infra/extra: Accepted=False/Conflicted: Unable to target ListenerSet extra, another BackendTrafficPolicy has already attached to it",
		},
	}, {
		name:     "listenerset-listener-conflicted",
		policies: set + btp("infra", "first", "ListenerSet/extra#x", "") + btp("infra", "second", "ListenerSet/extra#x", ""),
		want: []string{
			"first @ ListenerSet/infra/extra#x: Accepted=True/Accepted: Policy has been accepted.",
			"second @ ListenerSet/infra/extra#x: Accepted=False/Conflicted: Unable to target Listener extra/x, another BackendTrafficPolicy has already attached to it",
		},
	}, {
		name:     "listenerset-overrides-gateway",
		policies: set + btp("infra", "wide", "Gateway/open", "") + btp("infra", "on-set", "ListenerSet/extra", ""),
		want: []string{
			"on-set @ ListenerSet/infra/extra: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/open: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/open: Overridden=True/Overridden: This policy is being overridden by other backendTrafficPolicies for these listenersets: [infra/extra]",
		},
	}, {
		name:     "listenerset-section-not-found",
		policies: set + btp("infra", "one", "ListenerSet/extra#nope", ""),
		want:     []string{"one @ ListenerSet/infra/extra#nope: Accepted=False/TargetNotFound: No section name nope found for ListenerSet infra/extra"},
	}, {
		name: "route-through-listenerset",
		policies: set + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: via-set, namespace: infra}\nspec:\n" +
			"  parentRefs: [{kind: ListenerSet, name: extra, sectionName: x}, {name: open}]\n  rules: [{name: one}]\n" +
			btp("infra", "on-route", "HTTPRoute/via-set", ""),
		want: []string{
			"on-route @ Gateway/infra/open: Accepted=True/Accepted: Policy has been accepted.",
			"on-route @ ListenerSet/infra/extra#x: Accepted=True/Accepted: Policy has been accepted.",
		},
	}, {
		name: "gateway-overridden-every-scope",
		policies: set + btp("infra", "wide", "Gateway/open", "") + btp("infra", "set-listener", "ListenerSet/extra#x", "") +
			btp("infra", "listener", "Gateway/open#a", "") +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: on-a, namespace: infra}\nspec:\n  parentRefs: [{name: open, sectionName: a}]\n  rules: [{name: one}]\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: whole, namespace: infra}\nspec:\n  parentRefs: [{name: open}]\n  rules: [{name: one}, {name: two}]\n" +
			btp("infra", "route", "HTTPRoute/on-a", "") + btp("infra", "rule", "HTTPRoute/whole#two", ""),
		want: []string{
			"listener @ Gateway/infra/open#a: Accepted=True/Accepted: Policy has been accepted.",
			"listener @ Gateway/infra/open#a: Overridden=True/Overridden: This policy is being overridden by other backendTrafficPolicies for these routes: [infra/on-a infra/whole]",
			"route @ Gateway/infra/open#a: Accepted=True/Accepted: Policy has been accepted.",
			"rule @ Gateway/infra/open: Accepted=True/Accepted: Policy has been accepted.",
			"set-listener @ ListenerSet/infra/extra#x: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/open: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/open: Overridden=True/Overridden: This policy is being overridden by other backendTrafficPolicies for these gateway listeners: [infra/open/a] and these listenerset listeners: [infra/extra/x] and these routes: [infra/on-a infra/whole]",
		},
	}, {
		name:     "a route whose policy fails still overrides the Gateway's",
		policies: btp("infra", "gw-policy", "Gateway/gw", "") + btp("app", "lost", "HTTPRoute/ra#nope", "") + btp("app", "first", "HTTPRoute/rb", "") + btp("app", "second", "HTTPRoute/rb", ""),
		want: []string{
			"first @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"gw-policy @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"gw-policy @ Gateway/infra/gw: Overridden=True/Overridden: This policy is being overridden by other backendTrafficPolicies for these routes: [app/ra app/rb]",
			"lost @ Gateway/infra/gw#a: Accepted=False/TargetNotFound: No section name nope found for HTTPRoute app/ra",
			"second @ Gateway/infra/gw: Accepted=False/Conflicted: Unable to target HTTPRoute rb, another BackendTrafficPolicy has already attached to it",
		},
	}, {
		name: "route-parents-of-this-controller-only",
		policies: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: other}\nspec: {controllerName: example.com/other}\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: foreign, namespace: infra}\nspec:\n  gatewayClassName: other\n  listeners: [{name: a, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: both, namespace: app}\nspec:\n" +
			"  parentRefs: [{name: foreign, namespace: infra}, {name: gw, namespace: infra, sectionName: b}, {name: gw, namespace: infra, sectionName: a}]\n  rules: [{name: one}]\n" +
			btp("app", "on-both", "HTTPRoute/both", ""),
		want: []string{
			"on-both @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"on-both @ Gateway/infra/gw#b: Accepted=True/Accepted: Policy has been accepted.",
		},
	}, {
		name:     "route-overridden-by-rule",
		policies: btp("app", "route", "HTTPRoute/ra", "") + btp("app", "rule", "HTTPRoute/ra#one", ""),
		want: []string{
			"route @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"route @ Gateway/infra/gw#a: Overridden=True/Overridden: This policy is being overridden by other backendTrafficPolicy for these route rules: [one]",
			"rule @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
		},
	}, {
		name:     "gateway-overridden",
		policies: btp("infra", "gw-policy", "Gateway/gw", "") + btp("infra", "listener", "Gateway/gw#b", "") + btp("app", "route", "HTTPRoute/ra", ""),
		want: []string{
			"gw-policy @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"gw-policy @ Gateway/infra/gw: Overridden=True/Overridden: This policy is being overridden by other backendTrafficPolicies for these gateway listeners: [infra/gw/b] and these routes: [app/ra]",
			"listener @ Gateway/infra/gw#b: Accepted=True/Accepted: Policy has been accepted.",
			"route @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
		},
	}, {
		name:     "merged",
		policies: btp("infra", "gw-policy", "Gateway/gw", "") + btp("app", "route", "HTTPRoute/ra", "  mergeType: StrategicMerge\n"),
		want: []string{
			"gw-policy @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"gw-policy @ Gateway/infra/gw: Merged=True/Merged: This policy is being merged by other backendTrafficPolicies for these routes: [app/ra]",
			"route @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"route @ Gateway/infra/gw#a: Merged=True/Merged: Merged with policy infra/gw-policy",
		},
	}, {
		name:     "merge-without-parent",
		policies: btp("app", "route", "HTTPRoute/ra", "  mergeType: StrategicMerge\n"),
		want:     []string{"route @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted."},
	}, {
		name:     "translation-error-invalid",
		policies: btp("app", "bad", "HTTPRoute/ra", "  retry: {perRetry: {backOff: {baseInterval: 0s}}}\n"),
		want:     []string{"bad @ Gateway/infra/gw#a: Accepted=False/Invalid: Retry: baseInterval cannot be set to 0s."},
	}, {
		name:     "deprecated-field-warning",
		policies: btp("app", "old", "HTTPRoute/ra", "  compression: [{type: Gzip}]\n"),
		want: []string{
			"old @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"old @ Gateway/infra/gw#a: Warning=True/DeprecatedField: spec.compression is deprecated, use spec.compressor instead",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, egBase+tc.policies)
			got := policyConditions(rep)
			if !slices.Equal(got, tc.want) {
				t.Errorf("status =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}
