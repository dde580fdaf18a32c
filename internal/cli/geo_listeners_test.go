package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
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
		{"the HTTPS listener programmed: it fails the check", "site", route, line + ".", false},
		{"a Gateway: the listener of another hostname fails, the HTTPS listener not programmed takes no part", "missing", gateway, line + ".", false},
		{"a Gateway whose two listeners fail: one line each", "site", gateway, line + "\n" + line + ".", false},
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
