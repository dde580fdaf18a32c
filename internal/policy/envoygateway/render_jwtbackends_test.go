package envoygateway

import (
	"encoding/json"
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"strings"
	"testing"

	jwtauthnv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	"google.golang.org/protobuf/encoding/protojson"
)

// jwksProvider is a provider fetching its JWKS through a Backend, with
// backendSettings that shape the provider (timeout, retry) and the
// cluster (circuit breaker).
const jwksProvider = `{"name": "foobar", "issuer": "https://foo.bar.com", "audiences": ["foo.bar.com"],
  "remoteJWKS": {"uri": "https://foo.bar.com/jwt/public-key/jwks.json",
    "backendRefs": [{"group": "gateway.envoyproxy.io", "kind": "Backend", "name": "backend-fqdn", "port": 443}],
    "backendSettings": {
      "retry": {"numRetries": 3, "perRetry": {"backOff": {"baseInterval": "1s", "maxInterval": "5s"}},
        "retryOn": {"triggers": ["5xx", "gateway-error", "reset"]}},
      "circuitBreaker": {"maxConnections": 2048},
      "timeout": {"http": {"requestTimeout": "5s"}}}},
  "claimToHeaders": [{"header": "claim-header", "claim": "claim"}]}`

// TestBackendJWKSNames: a provider fetched through backends is Envoy
// Gateway's — the provider and requirement names below are those Envoy
// Gateway v1.9.0 gives this provider (conformance case
// securitypolicy-with-jwt-backendcluster) — and fetches through the
// cluster of the provider, with the backendSettings' timeout and retry.
func TestBackendJWKSNames(t *testing.T) {
	var p egv1a1.JWTProvider
	if err := json.Unmarshal([]byte(jwksProvider), &p); err != nil {
		t.Fatal(err)
	}
	who := policyName{kind: "securitypolicy", namespace: "default", name: "policy-for-route"}
	prov, cluster, part, err := buildJWTProvider(p, writtenAt{}, who.namespace, jwksClusterName(who, 0))
	if err != nil {
		t.Fatal(err)
	}
	if cluster != nil || part != jwksBackendsPart {
		t.Errorf("cluster %v, part %q: want no cluster, part %q", cluster, part, jwksBackendsPart)
	}
	got, err := protojson.Marshal(prov.GetRemoteJwks())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"httpUri":{"uri":"https://foo.bar.com/jwt/public-key/jwks.json","cluster":"securitypolicy/default/policy-for-route/jwt/0","timeout":"5s"},` +
		`"cacheDuration":"300s","asyncFetch":{},"retryPolicy":{"retryBackOff":{"baseInterval":"1s","maxInterval":"5s"},"numRetries":3,"retryOn":"5xx,gateway-error,reset"}}`
	if g := strings.ReplaceAll(string(got), " ", ""); g != want {
		t.Errorf("remote JWKS\n got %s\nwant %s", g, want)
	}
	key, err := hashedName(p.Name, prov)
	if err != nil {
		t.Fatal(err)
	}
	if key != "foobar_fc9cefde7b760d1e" {
		t.Errorf("provider name %s, want foobar_fc9cefde7b760d1e", key)
	}
	req, err := hashedName(p.Name, &jwtauthnv3.JwtRequirement{RequiresType: &jwtauthnv3.JwtRequirement_ProviderName{ProviderName: key}})
	if err != nil {
		t.Fatal(err)
	}
	if req != "foobar_3ded86e24048b6ba" {
		t.Errorf("requirement name %s, want foobar_3ded86e24048b6ba", req)
	}
}

// TestBackendJWKSUnsupported: render reports the cluster of a JWKS
// fetched through backends unsupported, naming it, and a retry setting
// the JWKS fetch cannot carry by name.
func TestBackendJWKSUnsupported(t *testing.T) {
	who := policyName{kind: "securitypolicy", namespace: "ns", name: "p"}
	for _, tc := range []struct{ retry, capability, reason string }{
		{`{"numRetries": 2}`, "envoygateway.SecurityPolicy.jwt.remoteJWKS.backendRefs", "securitypolicy/ns/p/jwt/0"},
		{`{"retryOn": {"httpStatusCodes": [503]}}`, "envoygateway.SecurityPolicy.jwt.remoteJWKS.backendSettings.retry.retryOn.httpStatusCodes", ""},
		{`{"perRetry": {"timeout": "1s"}}`, "envoygateway.SecurityPolicy.jwt.remoteJWKS.backendSettings.retry.perRetry.timeout", ""},
		{`{"numAttemptsPerPriority": 2}`, "envoygateway.SecurityPolicy.jwt.remoteJWKS.backendSettings.retry.numAttemptsPerPriority", ""},
	} {
		v := `{"providers": [{"name": "a", "remoteJWKS": {"uri": "https://a.example/jwks",
		  "backendRefs": [{"name": "jwks", "port": 443}], "backendSettings": {"retry": ` + tc.retry + `}}}]}`
		frags, err := raw2(renderJWT)(json.RawMessage(v), who)
		if err != nil {
			t.Fatalf("%s: %v", tc.retry, err)
		}
		if len(frags) != 1 || frags[0].Capability != tc.capability || frags[0].Filter != nil || len(frags[0].TypedClusters) != 0 {
			t.Fatalf("%s: fragments %+v, want only capability %s", tc.retry, frags, tc.capability)
		}
		if !strings.Contains(frags[0].Reason, tc.reason) {
			t.Errorf("%s: reason %q does not name %q", tc.retry, frags[0].Reason, tc.reason)
		}
	}
	if _, err := raw2(renderJWT)(json.RawMessage(`{"providers": [{"name": "a", "remoteJWKS": {"uri": "https://a.example/jwks",
	  "backendRefs": [{"name": "jwks"}], "backendSettings": {"retry": {"retryOn": {"triggers": ["sometimes"]}}}}}]}`), who); err == nil {
		t.Error("an unknown retry trigger: no error")
	}
}
