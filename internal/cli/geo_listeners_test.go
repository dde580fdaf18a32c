package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/secret/secrettest"
)

// TestEnvoyGatewayGeoLocationsOnHTTPListeners: Envoy Gateway checks a
// SecurityPolicy's client IP geolocation rules on the HTTP listeners it
// builds for the policy's targets only (securitypolicy.go:
// translateSecurityPolicyForListeners ranges over the Gateway IR's HTTP
// listeners, validateAuthorizationGeoIP on each), so a TCP listener of
// the Gateway without a ClientTrafficPolicy does not make the policy
// invalid; status, lint and render (the geolocation filter on the HTTP
// listener's chain) say the same.
func TestEnvoyGatewayGeoLocationsOnHTTPListeners(t *testing.T) {
	base := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n" +
		"  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: geo, namespace: infra}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: geo, namespace: infra}\nspec:\n" +
		"  geoIP: {provider: {type: MaxMind, maxMind: {countryDbSource: {local: {path: /etc/geo/country.mmdb}}}}}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
		"  - {name: web, protocol: HTTP, port: 80}\n  - {name: raw, protocol: TCP, port: 9000}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: geo, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n" +
		"  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientIPGeoLocations: [{country: US}]}}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n" +
		"  parentRefs: [{name: gw, sectionName: web}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{port: 8080}]}\n"
	ctp := func(section string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ip, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: " + section + "}]\n" +
			"  clientIPDetection: {xForwardedFor: {numTrustedHops: 1}}\n"
	}
	for _, tc := range []struct {
		name, more, accepted string
		filter               bool // render builds the geolocation filter
	}{
		{"client IP detection on the HTTP listener: the TCP listener takes no part", ctp("web"), "Accepted", true},
		{"client IP detection on the TCP listener only: the HTTP listener fails the check", ctp("raw"), "Invalid", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(base+tc.more), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "status", "-f", file, "-o", "summary")
			if code != 0 || !strings.Contains(out, "SecurityPolicy infra/geo → Gateway/infra/gw: ") {
				t.Fatalf("status: exit %d\n%s%s", code, out, errOut)
			}
			if got := strings.Contains(out, "SecurityPolicy infra/geo → Gateway/infra/gw: Accepted=False(Invalid)"); got != (tc.accepted == "Invalid") {
				t.Errorf("status: want %s\n%s", tc.accepted, out)
			}
			lint, _, _ := run(t, "lint", "-f", file)
			if got := strings.Contains(lint, "clientIPGeoLocations"); got != (tc.accepted == "Invalid") {
				t.Errorf("lint: geolocation finding %v, want %v\n%s", got, tc.accepted == "Invalid", lint)
			}
			rendered, _, _ := run(t, "render", "-f", file, "-o", "json")
			if got := strings.Contains(rendered, `"envoy.filters.http.geoip"`); got != tc.filter {
				t.Errorf("render: geolocation filter %v, want %v", got, tc.filter)
			}
		})
	}
}

// TestEnvoyGatewayGeoLocationsOnProgrammedListeners: the listeners the
// geolocation check runs on come from the listener verdict — those Envoy
// Gateway programs (translateGatewayListeners skips an HTTPS listener
// whose certificate Secret is missing) and, for a route target, those its
// parentRef attached to (translateSecurityPolicyForRoute ranges over the
// route's listeners; a listener whose hostname the route's do not meet
// has no route of it) — and every failing listener adds its error, one
// line each (errors.Join). Status, lint and render (the geolocation
// filter) read that one decision (refineGeo).
func TestEnvoyGatewayGeoLocationsOnProgrammedListeners(t *testing.T) {
	base := func(cert, target string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n" +
			"  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: geo, namespace: infra}\n" +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: geo, namespace: infra}\nspec:\n" +
			"  geoIP: {provider: {type: MaxMind, maxMind: {countryDbSource: {local: {path: /etc/geo/country.mmdb}}}}}\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
			"  - {name: web, protocol: HTTP, port: 80}\n  - {name: other, protocol: HTTP, port: 8080, hostname: other.example.com}\n" +
			"  - {name: secure, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: " + cert + "}]}}\n" +
			"---\n" + secrettest.TLSSecretYAML("infra", "site", "a.example.com") +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ip, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: web}]\n" +
			"  clientIPDetection: {xForwardedFor: {numTrustedHops: 1}}\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n" +
			"  parentRefs: [{name: gw}]\n  hostnames: [a.example.com]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{port: 8080}]}\n" +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: geo, namespace: infra}\nspec:\n" +
			"  targetRefs: [" + target + "]\n" +
			"  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientIPGeoLocations: [{country: US}]}}]}\n"
	}
	const (
		gateway = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"
		route   = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}"
		line    = "Authorization: authorization clientIPGeoLocations requires ClientTrafficPolicy.spec.clientIPDetection to be configured"
	)
	for _, tc := range []struct {
		name, cert, target string
		message            string // the Invalid condition's message, "" for Accepted
		filter             bool   // render builds the geolocation filter
	}{
		{"a route on the HTTP listener with client IP detection and an HTTPS listener not programmed: accepted", "missing", route, "", true},
		// web passes: the filter is on its chain (S107)
		{"the HTTPS listener programmed: it fails the check", "site", route, line + ".", true},
		{"a Gateway: the listener of another hostname fails, the HTTPS listener not programmed takes no part", "missing", gateway, line + ".", true},
		{"a Gateway whose two listeners fail: one line each", "site", gateway, line + "\n" + line + ".", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(base(tc.cert, tc.target)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "status", "-f", file, "-o", "json")
			if code != 0 {
				t.Fatalf("status: exit %d\n%s%s", code, out, errOut)
			}
			var rep struct {
				Policies []struct {
					Kind      string `json:"kind"`
					Ancestors []struct {
						Conditions []struct{ Type, Status, Reason, Message string } `json:"conditions"`
					} `json:"ancestors"`
				} `json:"policies"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			got := "none"
			for _, p := range rep.Policies {
				if p.Kind != "SecurityPolicy" {
					continue
				}
				for _, a := range p.Ancestors {
					for _, c := range a.Conditions {
						if c.Type == "Accepted" {
							got = ""
							if c.Status == "False" {
								got = c.Message
							}
						}
					}
				}
			}
			if got != tc.message {
				t.Errorf("status: Accepted False message %q, want %q", got, tc.message)
			}
			lint, _, _ := run(t, "lint", "-f", file)
			if has := strings.Contains(lint, "clientIPGeoLocations"); has != (tc.message != "") {
				t.Errorf("lint: geolocation finding %v, want %v\n%s", has, tc.message != "", lint)
			}
			rendered, _, _ := run(t, "render", "-f", file, "-o", "json")
			if has := strings.Contains(rendered, `"envoy.filters.http.geoip"`); has != tc.filter {
				t.Errorf("render: geolocation filter %v, want %v", has, tc.filter)
			}
		})
	}
}

// TestEnvoyGatewayGeoLocationsClientIPDetectionOfTheListener: the client
// IP detection the geolocation check reads is that of the
// ClientTrafficPolicy in effect on the listener (translateClientIPDetection
// on its HTTP IR): the first in processing order (older first) of those
// naming the listener, by its Gateway or its ListenerSet, else of those
// naming its ListenerSet, else its Gateway — the one status says took it.
func TestEnvoyGatewayGeoLocationsClientIPDetectionOfTheListener(t *testing.T) {
	base := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n" +
		"  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: geo, namespace: infra}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: geo, namespace: infra}\nspec:\n" +
		"  geoIP: {provider: {type: MaxMind, maxMind: {countryDbSource: {local: {path: /etc/geo/country.mmdb}}}}}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n" +
		"  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: web, protocol: HTTP, port: 80}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: extra, namespace: infra}\nspec:\n  parentRef: {name: gw}\n" +
		"  listeners: [{name: x, port: 8080, protocol: HTTP}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{port: 8080}]}\n"
	route := func(parent string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n" +
			"  parentRefs: [" + parent + "]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n" +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: geo, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n" +
			"  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientIPGeoLocations: [{country: US}]}}]}\n"
	}
	ctp := func(name, created, target string, detects bool) string {
		out := "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: " + name + ", namespace: infra, creationTimestamp: '" + created + "'}\nspec:\n" +
			"  targetRefs: [" + target + "]\n"
		if detects {
			return out + "  clientIPDetection: {xForwardedFor: {numTrustedHops: 1}}\n"
		}
		return out + "  timeout: {http: {idleTimeout: 5s}}\n"
	}
	// shared is a ListenerSet whose listener z shares port 80 with web
	// (a hostname of its own, so no conflict)
	const sharedSet = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: shared, namespace: infra}\nspec:\n  parentRef: {name: gw}\n" +
		"  listeners: [{name: z, port: 80, protocol: HTTP, hostname: z.example.com}]\n"
	const (
		onWeb = "{name: gw, sectionName: web}"
		onX   = "{group: gateway.networking.k8s.io, kind: ListenerSet, name: extra}"
		web   = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: web}"
		set   = "{group: gateway.networking.k8s.io, kind: ListenerSet, name: extra}"
		setX  = "{group: gateway.networking.k8s.io, kind: ListenerSet, name: extra, sectionName: x}"
		gw    = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"
	)
	for _, tc := range []struct {
		name, docs string
		invalid    bool
	}{
		{"the older of two on the listener detects, listed second", route(onWeb) +
			ctp("a-new", "2024-05-01T00:00:00Z", web, false) + ctp("z-old", "2024-01-01T00:00:00Z", web, true), false},
		{"the older of two on the listener does not detect", route(onWeb) +
			ctp("a-new", "2024-05-01T00:00:00Z", web, true) + ctp("z-old", "2024-01-01T00:00:00Z", web, false), true},
		{"a ListenerSet's listener takes its ListenerSet's policy", route(onX) + ctp("on-set", "2024-01-01T00:00:00Z", set, true), false},
		{"… and its section's before the whole set's", route(onX) +
			ctp("on-set", "2024-01-01T00:00:00Z", set, true) + ctp("on-x", "2024-02-01T00:00:00Z", setX, false), true},
		{"… and the set's before the Gateway's", route(onX) +
			ctp("on-gw", "2024-01-01T00:00:00Z", gw, false) + ctp("on-set", "2024-02-01T00:00:00Z", set, true), false},
		// validatePortOverlapForClientTrafficPolicy refuses a policy on a
		// plain HTTP listener sharing its port with one it does not cover
		{"a listener's own policy refused by the port check: the section stays claimed, no detection", route(onWeb) + sharedSet +
			ctp("on-gw", "2024-01-01T00:00:00Z", gw, true) + ctp("on-web", "2024-02-01T00:00:00Z", web, true), true},
		{"a set's policy refused on its listener sharing a port: the Gateway's applies there", route("{group: gateway.networking.k8s.io, kind: ListenerSet, name: shared}") + sharedSet +
			ctp("on-gw", "2024-01-01T00:00:00Z", gw, true) + ctp("on-shared", "2024-02-01T00:00:00Z", "{group: gateway.networking.k8s.io, kind: ListenerSet, name: shared}", false), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(base+tc.docs), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "status", "-f", file, "-o", "summary")
			if code != 0 || !strings.Contains(out, "SecurityPolicy infra/geo → ") {
				t.Fatalf("status: exit %d\n%s%s", code, out, errOut)
			}
			got := false
			for _, line := range strings.Split(out, "\n") {
				got = got || strings.Contains(line, "SecurityPolicy infra/geo → ") && strings.Contains(line, "Accepted=False(Invalid)")
			}
			if got != tc.invalid {
				t.Errorf("status: invalid %v, want %v\n%s", got, tc.invalid, out)
			}
			rendered, _, _ := run(t, "render", "-f", file, "-o", "json")
			if got := strings.Contains(rendered, `"envoy.filters.http.geoip"`); got == tc.invalid {
				t.Errorf("render: geolocation filter %v, want %v", got, !tc.invalid)
			}
		})
	}
}

// TestEnvoyGatewayGeoLocationsPerListener: Envoy Gateway decides the
// geolocation check per listener (securitypolicy.go:
// translateSecurityPolicyForListeners and translateSecurityPolicyForRoute,
// validateAuthorizationGeoIP on each HTTP listener): a failing listener
// gets no provider and the policy's routes there answer 500, a passing one
// gets the provider (the geolocation filter on its chain) and its routes
// the policy, and the policy's status says Invalid on the ancestors of
// each target with a failing listener. On a route target, a failing
// parentRef's error counts as a feature's error for the parentRefs after
// it (hasBaseErrs), which answer 500 too; another finding of the policy
// answers 500 everywhere. Every shape was checked with egctl x translate
// v1.9.0 (status and xDS).
func TestEnvoyGatewayGeoLocationsPerListener(t *testing.T) {
	base := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n" +
		"  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: geo, namespace: infra}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: geo, namespace: infra}\nspec:\n" +
		"  geoIP: {provider: {type: MaxMind, maxMind: {countryDbSource: {local: {path: /etc/geo/country.mmdb}}}}}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
		"  - {name: web, protocol: HTTP, port: 80}\n  - {name: other, protocol: HTTP, port: 8080}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ip, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: web}]\n" +
		"  clientIPDetection: {xForwardedFor: {numTrustedHops: 1}}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {clusterIP: 10.0.0.1, ports: [{port: 8080}]}\n"
	shape := func(parentRefs, targetRefs, more string) string {
		return base + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n" +
			"  parentRefs: " + parentRefs + "\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n" +
			"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: geo, namespace: infra}\nspec:\n" +
			"  targetRefs: " + targetRefs + "\n" + more +
			"  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientIPGeoLocations: [{country: US}]}}]}\n"
	}
	const (
		gateway  = "[{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]"
		route    = "[{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]"
		both     = "[{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: web}, {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: other}]"
		onOther  = "[{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: other}]"
		line     = "Authorization: authorization clientIPGeoLocations requires ClientTrafficPolicy.spec.clientIPDetection to be configured."
		accepted = "Policy has been accepted."
	)
	for _, tc := range []struct {
		name, input string
		// status: ancestor ("gw" or "gw#section") → Accepted's message
		status map[string]string
		// filter and fails: the listeners (by port) whose chain has the
		// geolocation filter, whose route answers 500
		filter, fails []string
	}{
		{"a Gateway: the listener without client IP detection answers 500, the other applies the policy",
			shape("[{name: gw}]", gateway, ""), map[string]string{"gw": line}, []string{"80"}, []string{"8080"}},
		{"a route on both listeners through one parentRef: the same",
			shape("[{name: gw}]", route, ""), map[string]string{"gw": line}, []string{"80"}, []string{"8080"}},
		{"a route whose passing parentRef comes first: 500 on the failing listener only",
			shape("[{name: gw, sectionName: web}, {name: gw, sectionName: other}]", route, ""),
			map[string]string{"gw#web": line, "gw#other": line}, []string{"80"}, []string{"8080"}},
		// gwpol writes no filter on web, which answers 500 only; Envoy
		// Gateway still configures its provider there
		{"a route whose failing parentRef comes first: the next parentRef's listener answers 500 too",
			shape("[{name: gw, sectionName: other}, {name: gw, sectionName: web}]", route, ""),
			map[string]string{"gw#web": line, "gw#other": line}, nil, []string{"80", "8080"}},
		{"each listener a target of its own: the passing one's ancestor says Accepted",
			shape("[{name: gw}]", both, ""), map[string]string{"gw#web": accepted, "gw#other": line}, []string{"80"}, []string{"8080"}},
		{"the failing listener the only target: Invalid, the other listener has no policy",
			shape("[{name: gw}]", onOther, ""), map[string]string{"gw#other": line}, nil, []string{"8080"}},
		{"another error of the policy: 500 on every listener",
			shape("[{name: gw}]", gateway, "  basicAuth: {users: {name: missing}}\n"), nil, nil, []string{"80", "8080"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(tc.input), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "status", "-f", file, "-o", "json")
			if code != 0 {
				t.Fatalf("status: exit %d\n%s%s", code, out, errOut)
			}
			var rep struct {
				Policies []struct {
					Kind      string `json:"kind"`
					Ancestors []struct {
						Ref struct {
							Name    string `json:"name"`
							Section string `json:"sectionName"`
						} `json:"ancestorRef"`
						Conditions []struct{ Type, Status, Message string } `json:"conditions"`
					} `json:"ancestors"`
				} `json:"policies"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					for _, c := range a.Conditions {
						if p.Kind == "SecurityPolicy" && c.Type == "Accepted" {
							key := a.Ref.Name
							if a.Ref.Section != "" {
								key += "#" + a.Ref.Section
							}
							got[key] = c.Message
						}
					}
				}
			}
			if tc.status != nil && !maps.Equal(got, tc.status) {
				t.Errorf("status: %q, want %q", got, tc.status)
			}
			rendered, errOut, code := run(t, "render", "-f", file, "-o", "json")
			if code > 1 {
				t.Fatalf("render: exit %d\n%s", code, errOut)
			}
			filter, fails := geoPerListener(t, rendered)
			if !slices.Equal(filter, tc.filter) || !slices.Equal(fails, tc.fails) {
				t.Errorf("render: geolocation filter on %q, 500 on %q; want %q, %q", filter, fails, tc.filter, tc.fails)
			}
		})
	}
}

// geoPerListener reads a render's output: the listeners (by port) whose
// chain has the geolocation filter, and those whose routes answer 500.
func geoPerListener(t *testing.T, rendered string) (filter, fails []string) {
	t.Helper()
	var out struct {
		Gateways []struct {
			Listeners           []json.RawMessage `json:"listeners"`
			RouteConfigurations []json.RawMessage `json:"routeConfigurations"`
		} `json:"gateways"`
	}
	if err := json.Unmarshal([]byte(rendered), &out); err != nil {
		t.Fatalf("render: %v\n%s", err, rendered)
	}
	port := func(raw json.RawMessage) string {
		var named struct{ Name string }
		_ = json.Unmarshal(raw, &named)
		return strings.TrimPrefix(named.Name, "listener~")
	}
	for _, g := range out.Gateways {
		for _, l := range g.Listeners {
			if strings.Contains(string(l), `"envoy.filters.http.geoip"`) {
				filter = append(filter, port(l))
			}
		}
		for _, rc := range g.RouteConfigurations {
			if strings.Contains(string(rc), `"status":500`) || strings.Contains(string(rc), `"status": 500`) {
				fails = append(fails, port(rc))
			}
		}
	}
	slices.Sort(filter)
	slices.Sort(fails)
	return filter, fails
}
