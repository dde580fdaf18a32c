package status_test

import (
	"slices"
	"strings"
	"testing"
)

// TestClientTrafficPolicyStatus: the conditions and messages Envoy
// Gateway's ProcessClientTrafficPolicies writes, one subtest per status
// path (docs/controllers/envoygateway-checks.md names them).
func TestClientTrafficPolicyStatus(t *testing.T) {
	ctp := func(name, target, extra string) string {
		ref := "{group: gateway.networking.k8s.io, kind: Gateway, name: gw"
		gw, section, _ := strings.Cut(target, "#")
		ref = strings.Replace(ref, "name: gw", "name: "+gw, 1)
		if section != "" {
			ref += ", sectionName: " + section
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  targetRefs: [" + ref + "}]\n  tcpKeepalive: {}\n" + extra
	}
	// open is a Gateway that admits the ListenerSets of its namespace.
	const open = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: open, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
		"  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: a, protocol: HTTP, port: 8080}]\n"
	const set = open + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: extra, namespace: infra}\nspec:\n  parentRef: {name: open}\n" +
		"  listeners: [{name: x, port: 9090, protocol: HTTP}]\n"
	onSet := func(name, section string) string {
		ref := "{group: gateway.networking.k8s.io, kind: ListenerSet, name: extra"
		if section != "" {
			ref += ", sectionName: " + section
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  targetRefs: [" + ref + "}]\n  tcpKeepalive: {}\n"
	}
	tests := []struct {
		name, policies string
		want           []string
	}{{
		name:     "accepted",
		policies: ctp("one", "gw", ""),
		want:     []string{"one @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted."},
	}, {
		name:     "section-not-found",
		policies: ctp("one", "gw#nope", ""),
		want:     []string{"one @ Gateway/infra/gw#nope: Accepted=False/TargetNotFound: No section name nope found for Gateway infra/gw"},
	}, {
		name:     "section-conflicted",
		policies: ctp("first", "gw#a", "") + ctp("second", "gw#a", ""),
		want: []string{
			"first @ Gateway/infra/gw#a: Accepted=True/Accepted: Policy has been accepted.",
			"second @ Gateway/infra/gw#a: Accepted=False/Conflicted: Unable to target section of gw, another ClientTrafficPolicy has already attached to it",
		},
	}, {
		name:     "gateway-conflicted",
		policies: ctp("first", "gw", "") + ctp("second", "gw", ""),
		want: []string{
			"first @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"second @ Gateway/infra/gw: Accepted=False/Conflicted: Unable to target Gateway gw, another ClientTrafficPolicy has already attached to it",
		},
	}, {
		name:     "gateway-overridden-by-sections",
		policies: ctp("wide", "gw", "") + ctp("narrow", "gw#b", ""),
		want: []string{
			"narrow @ Gateway/infra/gw#b: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/gw: Overridden=True/Overridden: There are existing ClientTrafficPolicies that are overriding these sections [b]",
		},
	}, {
		name:     "listenerset-section-not-found",
		policies: set + onSet("one", "nope"),
		want:     []string{`one @ ListenerSet/infra/extra#nope: Accepted=False/TargetNotFound: ListenerSet infra/extra does not have a listener named "nope"`},
	}, {
		name:     "listenerset-conflicted",
		policies: set + onSet("first", "") + onSet("second", ""),
		want: []string{
			"first @ ListenerSet/infra/extra: Accepted=True/Accepted: Policy has been accepted.",
			"second @ ListenerSet/infra/extra: Accepted=False/Conflicted: Unable to target ListenerSet extra, another ClientTrafficPolicy has already attached to it",
		},
	}, {
		name:     "listenerset-before-gateway",
		policies: set + ctp("wide", "open", "") + onSet("on-set", ""),
		want: []string{
			"on-set @ ListenerSet/infra/extra: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/open: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/open: Overridden=True/Overridden: There are existing ClientTrafficPolicies that are overriding these sections [x]",
		},
	}, {
		// resolveClientTrafficPolicyTargetRef looks a Gateway target's
		// sectionName up among all the Gateway's listeners, its
		// ListenerSets' included: x is the set's.
		name:     "gateway-section-names-a-listenerset-listener",
		policies: set + ctp("wide", "open", "") + ctp("one", "open#x", ""),
		want: []string{
			"one @ Gateway/infra/open#x: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/open: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/open: Overridden=True/Overridden: There are existing ClientTrafficPolicies that are overriding these sections [x]",
		},
	}, {
		// validatePortOverlapForClientTrafficPolicy runs per listener: the
		// set's listener y (a hostname of its own, so not in conflict with
		// a) shares port 8080 with the Gateway's a, so the
		// set's policy is Invalid and not translated there — y stays
		// unclaimed and the Gateway's policy takes it (not among the
		// sections overriding it); x, on a port of its own, takes the
		// set's policy.
		name: "listenerset-shared-port-per-listener",
		policies: strings.Replace(set, "listeners: [{name: x, port: 9090, protocol: HTTP}]", "listeners: [{name: x, port: 9090, protocol: HTTP}, {name: y, port: 8080, protocol: HTTP, hostname: y.example.com}]", 1) +
			ctp("wide", "open", "") + onSet("on-set", ""),
		want: []string{
			"on-set @ ListenerSet/infra/extra: Accepted=False/Invalid: ClientTrafficPolicy is being applied to multiple http (non https) listeners (infra/open/a) on the same port, which is not allowed.",
			"wide @ Gateway/infra/open: Accepted=True/Accepted: Policy has been accepted.",
			"wide @ Gateway/infra/open: Overridden=True/Overridden: There are existing ClientTrafficPolicies that are overriding these sections [x]",
		},
	}, {
		// listenersWithSameHTTPPort compares the Gateway IR's HTTP
		// listeners: one Envoy Gateway does not program (it allows only a
		// route kind it cannot carry on HTTP) shares no port.
		name: "shared-port-with-a-listener-not-programmed",
		policies: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: two, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
			"  - {name: a, protocol: HTTP, port: 8080, hostname: a.example.com}\n  - {name: b, protocol: HTTP, port: 8080, hostname: b.example.com, allowedRoutes: {kinds: [{kind: TCPRoute}]}}\n" +
			ctp("one", "two#a", ""),
		want: []string{"one @ Gateway/infra/two#a: Accepted=True/Accepted: Policy has been accepted."},
	}, {
		// … and a listener it does not program is not checked: it has no
		// IR to configure.
		name: "shared-port-on-a-listener-not-programmed",
		policies: "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: two, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
			"  - {name: a, protocol: HTTP, port: 8080, hostname: a.example.com}\n  - {name: b, protocol: HTTP, port: 8080, hostname: b.example.com, allowedRoutes: {kinds: [{kind: TCPRoute}]}}\n" +
			ctp("one", "two#b", ""),
		want: []string{"one @ Gateway/infra/two#b: Accepted=True/Accepted: Policy has been accepted."},
	}, {
		// translated once per listener of the Gateway (two HTTP
		// listeners: the error twice, T72)
		name:     "translation-error-invalid",
		policies: ctp("bad", "gw", "  timeout: {http: {idleTimeout: 1d}}\n"),
		want:     []string{"bad @ Gateway/infra/gw: Accepted=False/Invalid: Timeout: invalid HTTP IdleTimeout value 1d\nTimeout: invalid HTTP IdleTimeout value 1d."},
	}, {
		name:     "deprecated-field-warning",
		policies: ctp("old", "gw", "  enableProxyProtocol: true\n"),
		want: []string{
			"old @ Gateway/infra/gw: Accepted=True/Accepted: Policy has been accepted.",
			"old @ Gateway/infra/gw: Warning=True/DeprecatedField: spec.enableProxyProtocol is deprecated, use spec.proxyProtocol instead",
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
