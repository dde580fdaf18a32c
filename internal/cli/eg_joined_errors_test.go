package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestEnvoyGatewayJoinedErrors: a policy whose translation fails in
// several features says so in one condition message, as Envoy Gateway
// joins the builders' errors (errors.Join, then Error2ConditionMsg): in
// the order the translator builds the features on that target (a
// SecurityPolicy's JWT first on a Gateway, its basic auth first on a
// route), one label for several errors of one builder, the features built
// per parentRef (ext auth, OIDC, JWT; Lua, ExtProc) once for each
// parentRef of a route target, new lines between, one full stop at the
// end. Every shape was checked with egctl x translate v1.9.0.
func TestEnvoyGatewayJoinedErrors(t *testing.T) {
	const base = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
		"  - {name: web, protocol: HTTP, port: 80}\n  - {name: other, protocol: HTTP, port: 8080}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n" +
		"  parentRefs: [{name: gw, sectionName: web}, {name: gw, sectionName: other}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {clusterIP: 10.0.0.1, ports: [{port: 8080}]}\n"
	const (
		gateway = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n"
		route   = "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n"
		jwt     = "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks', backendRefs: [{name: missing, port: 443}]}}]}\n"
	)
	policy := func(kind, target, spec string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: p, namespace: infra}\nspec:\n" + target + spec
	}
	for _, tc := range []struct {
		name, policy, want string
	}{
		{"a SecurityPolicy on a Gateway: JWT, then basic auth, then ext auth",
			policy("SecurityPolicy", gateway, jwt+"  basicAuth: {users: {name: nope}}\n  extAuth: {http: {backendRefs: [{name: nosvc, port: 80}]}}\n"),
			"JWT: service infra/missing not found\nBasicAuth: secret infra/nope does not exist\nExtAuth: service infra/nosvc not found."},
		{"a SecurityPolicy on a route of two parentRefs: basic auth once, JWT per parentRef",
			policy("SecurityPolicy", route, jwt+"  basicAuth: {users: {name: nope}}\n"),
			"BasicAuth: secret infra/nope does not exist\nJWT: service infra/missing not found\nJWT: service infra/missing not found."},
		{"… API key auth once, ext auth and OIDC per parentRef, in that order",
			policy("SecurityPolicy", route, "  extAuth: {http: {backendRefs: [{name: nosvc, port: 80}]}}\n"+
				"  oidc: {provider: {issuer: 'https://idp.example.com', authorizationEndpoint: 'https://idp.example.com/auth', tokenEndpoint: 'https://idp.example.com/token'}, clientID: c, clientSecret: {name: nosecret}}\n"+
				"  apiKeyAuth: {credentialRefs: [{name: nokeys}], extractFrom: [{headers: [x-key]}]}\n"),
			"APIKeyAuth: secret infra/nokeys does not exist\nExtAuth: service infra/nosvc not found\nOIDC: secret infra/nosecret does not exist\nExtAuth: service infra/nosvc not found\nOIDC: secret infra/nosecret does not exist."},
		{"an EnvoyExtensionPolicy's two external processors: one label, per parentRef",
			policy("EnvoyExtensionPolicy", route, "  extProc: [{backendRefs: [{name: nosvc, port: 80}]}, {backendRefs: [{name: nosvc2, port: 80}]}]\n"),
			"ExtProc: service infra/nosvc not found\nservice infra/nosvc2 not found\nExtProc: service infra/nosvc not found\nservice infra/nosvc2 not found."},
		{"a BackendTrafficPolicy: HTTP2's two errors under one label, then the response override's",
			policy("BackendTrafficPolicy", route, "  http2: {initialStreamWindowSize: 1Ki, initialConnectionWindowSize: 1Ti}\n"+
				"  responseOverride: [{match: {statusCodes: [{value: 500}]}, response: {contentType: text/plain, body: {type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: nocm}}}}]\n"),
			"HTTP2: InitialStreamWindowSize value 1Ki is out of range, must be between 65535 and 2147483647\nInitialConnectionWindowSize value 1Ti is out of range, must be between 65535 and 2147483647\nResponseOverride: can't find the referenced configmap infra/nocm."},
		{"the validator's refusal on a route of two parentRefs: alone, once",
			policy("SecurityPolicy", route, "  oidc: {provider: {issuer: 'https://idp.example.com', authorizationEndpoint: 'https://idp.example.com/auth', tokenEndpoint: 'https://idp.example.com/token'}, clientID: c, clientSecret: {name: nosecret}, passThroughAuthHeader: true}\n"+
				"  basicAuth: {users: {name: nope}}\n"),
			"Invalid SecurityPolicy: the OIDC.PassThroughAuthHeader setting must be used in conjunction with JWT settings."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(base+tc.policy), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "status", "-f", file, "-o", "json")
			if code != 0 {
				t.Fatalf("status: exit %d\n%s%s", code, out, errOut)
			}
			var rep struct {
				Policies []struct {
					Name      string `json:"name"`
					Ancestors []struct {
						Conditions []struct{ Type, Message string } `json:"conditions"`
					} `json:"ancestors"`
				} `json:"policies"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					for _, c := range a.Conditions {
						if p.Name == "p" && c.Type == "Accepted" && !slices.Contains(got, c.Message) {
							got = append(got, c.Message)
						}
					}
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("Accepted messages %q, want %q", got, tc.want)
			}
		})
	}
}
