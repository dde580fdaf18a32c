package haptic

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// deps are the Secrets and catalog a policy in namespace shop may use.
const deps = `
apiVersion: v1
kind: Secret
metadata: {name: jwt-key, namespace: shop}
immutable: true
stringData:
  pubkey.pem: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAqPVOqoPgdTGaeGg2KSPb\ncbTcMjsDxBHZQG0Oo70MIMV2XhtEKzPThXitX23SreNU7To5DCXStoVYz1dix0uD\nsXXIJzz0Eh/+pU4LmbRuNmtKz07mEYL47hdVsm+KZbwOXokZePJrzvrHfUShHvt2\n2yFhRCyzNmD+Jf5c3cgo3UqjQwGtLMy9sOIx0cHFd91oBHeQnMg44VvBtGppwBB2\ny9iaOV0m4hi0RWKoh3eoaPS1TrWLGlKekJoGoMK5Mi4P8r14fknM6x/F/pQDDwzy\nh2jDhPQUUOmlQsC/3wjLX7E+EEXE+NmxVB4G+0uYNpkXeRQWwYvOjoHLv/uBnpDn\nGwIDAQAB\n-----END PUBLIC KEY-----\n"
---
apiVersion: v1
kind: Secret
metadata: {name: jwt-ec, namespace: shop}
immutable: true
data:
  pubkey.pem: "LS0tLS1CRUdJTiBQVUJMSUMgS0VZLS0tLS0KTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFYkFwNnFFZUM1bXVreUgwdktZTTR2UENsTENLKwpNSTVjeWRTM1lSSzFsOTMxSDJZWGo2VDZWN0R2dDdMaWc4TUhPeExVa1V3RkpoeDVSYlpJaXlGNVFnPT0KLS0tLS1FTkQgUFVCTElDIEtFWS0tLS0tCg=="
---
apiVersion: v1
kind: Secret
metadata: {name: jwt-jwks, namespace: shop}
immutable: true
stringData:
  pubkey.pem: '{"keys":[{"kty":"RSA","n":"qPVOqoPgdTGaeGg2KSPbcbTcMjsDxBHZQG0Oo70MIMV2XhtEKzPThXitX23SreNU7To5DCXStoVYz1dix0uDsXXIJzz0Eh_-pU4LmbRuNmtKz07mEYL47hdVsm-KZbwOXokZePJrzvrHfUShHvt22yFhRCyzNmD-Jf5c3cgo3UqjQwGtLMy9sOIx0cHFd91oBHeQnMg44VvBtGppwBB2y9iaOV0m4hi0RWKoh3eoaPS1TrWLGlKekJoGoMK5Mi4P8r14fknM6x_F_pQDDwzyh2jDhPQUUOmlQsC_3wjLX7E-EEXE-NmxVB4G-0uYNpkXeRQWwYvOjoHLv_uBnpDnGw","e":"AQAB"}]}'
---
apiVersion: v1
kind: Secret
metadata: {name: jwt-not-a-key, namespace: shop}
immutable: true
data:
  pubkey.pem: UFVCTElDS0VZTUFURVJJQUwgbm90IGEga2V5
---
apiVersion: v1
kind: Secret
metadata: {name: jwt-private, namespace: shop}
immutable: true
stringData:
  pubkey.pem: "-----BEGIN PRIVATE KEY-----\nUFVCTElDS0VZTUFURVJJQUw=\n-----END PRIVATE KEY-----\n"
---
apiVersion: v1
kind: Secret
metadata: {name: jwt-bad-jwks, namespace: shop}
immutable: true
stringData:
  pubkey.pem: '{"keys":[{"kty":"oct","k":"PUBLICKEYMATERIAL"}]}'
---
apiVersion: v1
kind: Secret
metadata: {name: jwt-wide-point, namespace: shop}
immutable: true
stringData:
  pubkey.pem: '{"keys":[{"kty":"EC","crv":"P-256","x":"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8w","y":"AQ"}]}'
---
apiVersion: v1
kind: Secret
metadata: {name: jwt-short-rsa, namespace: shop}
immutable: true
stringData:
  pubkey.pem: "-----BEGIN PUBLIC KEY-----\nMIGfMA0GCSqGSIb3DQEBAQUAA4GNADCBiQKBgQDesFzQLFNzgKjasuXkuWzkdHXh\nriSba7uU3Qq44xZBo5oAFDMSrZutWMmUJxila6UnO58fPn2JIQg+o5ur8iimyV5s\nwC8rK5PfzGFERF/VwgTsIJgEp8+9ZvpT68PCU/jhXitwjVUyTFUakKyTVXWcIGbd\ncpplGXZGIZE8wbpQ8QIDAQAB\n-----END PUBLIC KEY-----\n"
---
apiVersion: v1
kind: Secret
metadata: {name: jwt-two-keys, namespace: shop}
immutable: true
stringData:
  pubkey.pem: "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAqPVOqoPgdTGaeGg2KSPb\ncbTcMjsDxBHZQG0Oo70MIMV2XhtEKzPThXitX23SreNU7To5DCXStoVYz1dix0uD\nsXXIJzz0Eh/+pU4LmbRuNmtKz07mEYL47hdVsm+KZbwOXokZePJrzvrHfUShHvt2\n2yFhRCyzNmD+Jf5c3cgo3UqjQwGtLMy9sOIx0cHFd91oBHeQnMg44VvBtGppwBB2\ny9iaOV0m4hi0RWKoh3eoaPS1TrWLGlKekJoGoMK5Mi4P8r14fknM6x/F/pQDDwzy\nh2jDhPQUUOmlQsC/3wjLX7E+EEXE+NmxVB4G+0uYNpkXeRQWwYvOjoHLv/uBnpDn\nGwIDAQAB\n-----END PUBLIC KEY-----\n-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAqPVOqoPgdTGaeGg2KSPb\ncbTcMjsDxBHZQG0Oo70MIMV2XhtEKzPThXitX23SreNU7To5DCXStoVYz1dix0uD\nsXXIJzz0Eh/+pU4LmbRuNmtKz07mEYL47hdVsm+KZbwOXokZePJrzvrHfUShHvt2\n2yFhRCyzNmD+Jf5c3cgo3UqjQwGtLMy9sOIx0cHFd91oBHeQnMg44VvBtGppwBB2\ny9iaOV0m4hi0RWKoh3eoaPS1TrWLGlKekJoGoMK5Mi4P8r14fknM6x/F/pQDDwzy\nh2jDhPQUUOmlQsC/3wjLX7E+EEXE+NmxVB4G+0uYNpkXeRQWwYvOjoHLv/uBnpDn\nGwIDAQAB\n-----END PUBLIC KEY-----\n"
---
apiVersion: v1
kind: Secret
metadata: {name: repeated-keys, namespace: shop}
immutable: true
stringData:
  keys: "k-1:mobile-app\nk-2\nk-1:mobile-app\nk-2:k-2\n"
---
apiVersion: v1
kind: Secret
metadata: {name: bare-then-named, namespace: shop}
immutable: true
stringData:
  keys: "k-1\nk-1:mobile-app\n"
---
apiVersion: v1
kind: Secret
metadata: {name: bare-keys, namespace: shop}
immutable: true
stringData:
  keys: "k-123\nk-456:partner-a\n"
---
apiVersion: v1
kind: Secret
metadata: {name: spaced-keys, namespace: shop}
immutable: true
stringData:
  keys: "  k-123:mobile  \nk-456 : partner-a\n"
---
apiVersion: v1
kind: Secret
metadata: {name: non-ascii-consumer, namespace: shop}
immutable: true
stringData:
  keys: "k-123:müller\n"
---
apiVersion: v1
kind: Secret
metadata: {name: bad-lines-b64, namespace: shop}
immutable: true
data:
  keys: U0VDUkVUVkFMVUU6Cg==
---
apiVersion: v1
kind: Secret
metadata: {name: bad-base64, namespace: shop}
immutable: true
data:
  keys: "!!!not base64"
---
apiVersion: v1
kind: Secret
metadata: {name: api-keys, namespace: shop}
immutable: true
stringData:
  keys: "k-123:mobile-app\nk-456:partner-a\n"
---
apiVersion: v1
kind: Secret
metadata: {name: api-keys-b64, namespace: shop}
immutable: true
data:
  keys: azEyMzptb2JpbGUtYXBw
---
apiVersion: v1
kind: Secret
metadata: {name: mutable-key, namespace: shop}
stringData:
  pubkey.pem: "x"
---
apiVersion: v1
kind: Secret
metadata: {name: wrong-key, namespace: shop}
immutable: true
stringData:
  tls.crt: "x"
---
apiVersion: v1
kind: Secret
metadata: {name: bad-lines, namespace: shop}
immutable: true
stringData:
  keys: "k-123:mobile-app\nSECRETVALUE:\n"
---
apiVersion: v1
kind: Secret
metadata: {name: dup-lines, namespace: shop}
immutable: true
stringData:
  keys: "k-123:mobile-app\nk-123:partner-a\n"
---
apiVersion: v1
kind: Secret
metadata: {name: empty-lines, namespace: shop}
immutable: true
stringData:
  keys: "\n\n"
---
apiVersion: v1
kind: Secret
metadata: {name: jwt-key, namespace: other}
immutable: true
stringData:
  pubkey.pem: "x"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: waf, namespace: shop}
immutable: true
data:
  policies.yaml: |
    strict-json:
      requestBody: {mode: none}
    buffered:
      requestBody: {mode: any}
    silent: {}
  other.yaml: |
    strict-json:
      requestBody: {mode: none}
  broken.yaml: "strict-json: [unclosed"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: waf-mutable, namespace: shop}
data:
  policies.yaml: "strict-json: {}"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: waf-settings, namespace: shop}
immutable: true
data:
  json.yaml: |
    api-json:
      requestBody: {mode: json}
  tuned.yaml: |
    tuned: {enforcement: detect, paranoiaLevel: 2, requestBody: {mode: none}}
  enforcement.yaml: |
    tuned: {enforcement: block}
  paranoia.yaml: |
    tuned: {paranoiaLevel: 5}
  maxbytes.yaml: |
    capped:
      requestBody: {mode: any, maxBytes: 4096}
  seclang.yaml: |
    custom:
      secLang: "SecRuleRemoveById 941320"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: waf-binary, namespace: shop}
immutable: true
binaryData:
  policies.yaml: c3RyaWN0LWpzb246IHt9Cg==
`

// decode decodes one HAProxyRoutePolicy (given as its spec, indented two
// spaces) in namespace shop, next to deps.
func decode(t *testing.T, specYAML string) *policy.Policy {
	t.Helper()
	doc := "apiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: p, namespace: shop}\n" + specYAML + "\n---\n" + deps
	objs, err := manifest.Parse("policy.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: Group, Kind: KindName}: true}})
	reg := policy.NewRegistry(New())
	set := reg.Decode(&policy.Env{Model: m, Config: deployedConfig(nil)})
	for _, p := range set.Policies {
		if p.Obj.Name == "p" {
			return p
		}
	}
	t.Fatal("policy not decoded")
	return nil
}

func codes(ds []diag.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code+" "+d.Field)
	}
	slices.Sort(out)
	return out
}

const okRate = "spec:\n  rateLimit: {requests: 10}"

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string
		// want lists "CODE field" of every Invalid diagnostic; empty means valid.
		want []string
	}{
		// At least one section.
		{"empty spec", "spec: {}", []string{"GWP401 spec"}},
		{"no spec", "", []string{"GWP401 spec"}},
		{"rate limit only", okRate, nil},
		{"empty authentication", "spec:\n  authentication: {}", []string{"GWP401 spec"}},
		{"empty authentication beside a rate limit", "spec:\n  authentication: {}\n  rateLimit: {requests: 10}", nil},
		{"targetRefs", "spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n  rateLimit: {requests: 10}", []string{"GWP401 spec.targetRefs"}},
		{"targetSelectors", "spec:\n  targetSelectors: [{group: gateway.networking.k8s.io, kind: HTTPRoute, matchLabels: {a: b}}]\n  rateLimit: {requests: 10}", []string{"GWP401 spec.targetSelectors"}},
		{"wrong type", "spec:\n  rateLimit: {requests: ten}", []string{"GWP401 spec.rateLimit.requests"}},

		// jwt.
		{"jwt ok", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-ec}, algorithm: ES256, issuer: i, audience: a, requiredClaims: [sub], forwardClaims: [{claim: sub, header: X-User}]}", nil},
		{"jwt default algorithm", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}}", nil},
		{"jwt PS512", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, algorithm: PS512}", nil},
		{"jwt bad algorithm", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, algorithm: HS256}", []string{"GWP401 spec.authentication.jwt.algorithm"}},
		{"jwt lower-case algorithm", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, algorithm: rs256}", []string{"GWP401 spec.authentication.jwt.algorithm"}},
		{"jwt no secret name", "spec:\n  authentication:\n    jwt: {algorithm: RS256}", []string{"GWP401 spec.authentication.jwt.secretRef.name"}},
		{"apiKey secretRef without a name", "spec:\n  authentication:\n    apiKey: {secretRef: {namespace: shop}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		{"jwt empty required claim", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, requiredClaims: ['']}", []string{"GWP401 spec.authentication.jwt.requiredClaims[0]"}},
		{"jwt forward claim without header", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, forwardClaims: [{claim: sub}]}", []string{"GWP401 spec.authentication.jwt.forwardClaims[0].header"}},
		{"jwt forward claim bad header", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, forwardClaims: [{claim: sub, header: 'X User'}]}", []string{"GWP401 spec.authentication.jwt.forwardClaims[0].header"}},
		// Forwarded headers are distinct and overwrite neither the token's
		// Authorization nor the API key's header.
		{"jwt forward claim into Authorization", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, forwardClaims: [{claim: sub, header: authorization}]}", []string{"GWP401 spec.authentication.jwt.forwardClaims[0].header"}},
		{"jwt forward claim into the default API key header", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, forwardClaims: [{claim: sub, header: X-Api-Key}]}\n    apiKey: {secretRef: {name: api-keys}}", []string{"GWP401 spec.authentication.jwt.forwardClaims[0].header"}},
		{"jwt forward claim into a set API key header", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, forwardClaims: [{claim: sub, header: X-User}, {claim: tenant, header: x-key}]}\n    apiKey: {secretRef: {name: api-keys}, header: X-Key}", []string{"GWP401 spec.authentication.jwt.forwardClaims[1].header"}},
		{"jwt forward claim X-API-Key without apiKey", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, forwardClaims: [{claim: sub, header: X-API-Key}]}", nil},
		{"jwt forward claims share a header", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, forwardClaims: [{claim: sub, header: X-User}, {claim: email, header: X-Mail}, {claim: name, header: x-user}]}", []string{"GWP401 spec.authentication.jwt.forwardClaims[2].header"}},
		{"jwt forward claim without claim", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, forwardClaims: [{header: X-User}]}", []string{"GWP401 spec.authentication.jwt.forwardClaims[0].claim"}},
		{"jwt secret missing", "spec:\n  authentication:\n    jwt: {secretRef: {name: nope}}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt secret mutable", "spec:\n  authentication:\n    jwt: {secretRef: {name: mutable-key}}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt secret without pubkey.pem", "spec:\n  authentication:\n    jwt: {secretRef: {name: wrong-key}}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt secret in other namespace", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key, namespace: other}}", []string{"GWP402 spec.authentication.jwt.secretRef.namespace"}},
		{"jwt secret namespace same", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key, namespace: shop}}", nil},

		// apiKey.
		{"apiKey ok", "spec:\n  authentication:\n    apiKey: {secretRef: {name: api-keys}, header: X-Key, consumerHeader: X-Consumer}", nil},
		{"apiKey base64 keys ok", "spec:\n  authentication:\n    apiKey: {secretRef: {name: api-keys-b64}}", nil},
		// Regression (issue 19): bare key lines are HAPTIC's documented
		// format, and keys under data: are checked too.
		{"apiKey bare key lines", "spec:\n  authentication:\n    apiKey: {secretRef: {name: bare-keys}}", nil},
		// A key and its consumer are printable ASCII without spaces, the
		// line's outer whitespace dropped (HAPTIC's key map is
		// whitespace-delimited); until hap34 gwpol trimmed around the ':'.
		{"apiKey spaces around the colon", "spec:\n  authentication:\n    apiKey: {secretRef: {name: spaced-keys}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		{"apiKey consumer not ASCII", "spec:\n  authentication:\n    apiKey: {secretRef: {name: non-ascii-consumer}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		{"apiKey base64 malformed line", "spec:\n  authentication:\n    apiKey: {secretRef: {name: bad-lines-b64}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		{"apiKey data not base64", "spec:\n  authentication:\n    apiKey: {secretRef: {name: bad-base64}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		// Regression (issue 19): a JWT key must be a public key that fits
		// the algorithm, as PEM (stringData or data) or JWKS.
		{"jwt EC key under data", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-ec}, algorithm: ES256}", nil},
		// HAPTIC's policy reference: pubkey.pem holds one PEM public key,
		// an RSA one of at least 2048 bits; HAProxy loads it as PEM, so a
		// JWKS document is no key there.
		{"jwt JWKS", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-jwks}, algorithm: PS256}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt RSA key of 1024 bits", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-short-rsa}, algorithm: RS512}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt two PEM keys", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-two-keys}}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt not a key", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-not-a-key}}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt private key", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-private}}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt JWKS without RSA or EC key", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-bad-jwks}}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt JWKS point wider than the curve", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-wide-point}, algorithm: ES256}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt RSA key for ES256", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, algorithm: ES256}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"jwt EC P-256 key for ES384", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-ec}, algorithm: ES384}", []string{"GWP402 spec.authentication.jwt.secretRef.name"}},
		{"apiKey bad header", "spec:\n  authentication:\n    apiKey: {secretRef: {name: api-keys}, header: 'X:Key'}", []string{"GWP401 spec.authentication.apiKey.header"}},
		{"apiKey bad consumer header", "spec:\n  authentication:\n    apiKey: {secretRef: {name: api-keys}, consumerHeader: 'a b'}", []string{"GWP401 spec.authentication.apiKey.consumerHeader"}},
		{"apiKey secret missing", "spec:\n  authentication:\n    apiKey: {secretRef: {name: nope}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		{"apiKey secret without keys", "spec:\n  authentication:\n    apiKey: {secretRef: {name: jwt-key}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		{"apiKey malformed line", "spec:\n  authentication:\n    apiKey: {secretRef: {name: bad-lines}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		// A key repeated for the same consumer (a bare key is its own
		// consumer) is the same map entry; only another consumer is a
		// conflict.
		{"apiKey key repeated for its consumer", "spec:\n  authentication:\n    apiKey: {secretRef: {name: repeated-keys}}", nil},
		{"apiKey bare key then named for another consumer", "spec:\n  authentication:\n    apiKey: {secretRef: {name: bare-then-named}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		{"apiKey duplicate key", "spec:\n  authentication:\n    apiKey: {secretRef: {name: dup-lines}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		{"apiKey no lines", "spec:\n  authentication:\n    apiKey: {secretRef: {name: empty-lines}}", []string{"GWP402 spec.authentication.apiKey.secretRef.name"}},
		{"both auth", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}}\n    apiKey: {secretRef: {name: api-keys}}", nil},

		// rateLimit.
		{"rate full", "spec:\n  rateLimit: {requests: 50, period: 1s, burst: 100, algorithm: gcra, key: ip}", nil},
		{"rate zero requests", "spec:\n  rateLimit: {requests: 0}", []string{"GWP401 spec.rateLimit.requests"}},
		{"rate negative requests", "spec:\n  rateLimit: {requests: -1}", []string{"GWP401 spec.rateLimit.requests"}},
		{"rate huge requests", "spec:\n  rateLimit: {requests: 4294967296}", []string{"GWP401 spec.rateLimit.requests"}},
		{"rate period ms", "spec:\n  rateLimit: {requests: 1, period: 500ms}", nil},
		{"rate period m", "spec:\n  rateLimit: {requests: 100, period: 1m}", nil},
		{"rate period h", "spec:\n  rateLimit: {requests: 1000, period: 1h}", nil},
		{"rate period d", "spec:\n  rateLimit: {requests: 100000, period: 1d, burst: 4000}", nil},
		{"rate period no unit", "spec:\n  rateLimit: {requests: 1, period: '10'}", []string{"GWP401 spec.rateLimit.period"}},
		{"rate period bad unit", "spec:\n  rateLimit: {requests: 1, period: 1w}", []string{"GWP401 spec.rateLimit.period"}},
		{"rate period fraction", "spec:\n  rateLimit: {requests: 1, period: 1.5s}", []string{"GWP401 spec.rateLimit.period"}},
		{"rate period zero", "spec:\n  rateLimit: {requests: 1, period: 0s}", []string{"GWP401 spec.rateLimit.period"}},
		{"rate period too long", "spec:\n  rateLimit: {requests: 100000000, period: 366d}", []string{"GWP401 spec.rateLimit.period"}},
		{"rate burst zero", "spec:\n  rateLimit: {requests: 1, burst: 0}", []string{"GWP401 spec.rateLimit.burst"}},
		{"rate algorithm", "spec:\n  rateLimit: {requests: 1, algorithm: leaky-bucket}", []string{"GWP401 spec.rateLimit.algorithm"}},
		{"rate token-bucket", "spec:\n  rateLimit: {requests: 1, algorithm: token-bucket}", nil},
		{"rate key", "spec:\n  rateLimit: {requests: 1, key: header}", []string{"GWP401 spec.rateLimit.key"}},
		{"rate key consumer without auth", "spec:\n  rateLimit: {requests: 1, key: consumer}", []string{"GWP401 spec.rateLimit.key"}},
		{"rate key consumer with apiKey", "spec:\n  authentication:\n    apiKey: {secretRef: {name: api-keys}}\n  rateLimit: {requests: 1, key: consumer}", nil},
		{"rate key consumer with jwt", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}}\n  rateLimit: {requests: 1, key: consumer}", nil},
		// burst×period÷requests ≤ 3600s, at the edge and past it.
		{"rate bound edge", "spec:\n  rateLimit: {requests: 1, period: 1h, burst: 1}", nil},
		{"rate bound edge burst", "spec:\n  rateLimit: {requests: 1, period: 1s, burst: 3600}", nil},
		{"rate bound over burst", "spec:\n  rateLimit: {requests: 1, period: 1s, burst: 3601}", []string{"GWP401 spec.rateLimit"}},
		{"rate bound over period", "spec:\n  rateLimit: {requests: 1, period: 2h}", []string{"GWP401 spec.rateLimit"}},
		{"rate bound over day", "spec:\n  rateLimit: {requests: 23, period: 1d, burst: 1}", []string{"GWP401 spec.rateLimit"}},
		{"rate bound default burst", "spec:\n  rateLimit: {requests: 1000000, period: 1d}", []string{"GWP401 spec.rateLimit"}},
		{"rate bound day ok", "spec:\n  rateLimit: {requests: 24, period: 1d, burst: 1}", nil},

		// waf.
		{"waf ok", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", nil},
		{"waf other key", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf, key: other.yaml}}", nil},
		{"waf no policy", "spec:\n  waf: {catalogRef: {name: waf}}", []string{"GWP401 spec.waf.policy"}},
		{"waf no catalog name", "spec:\n  waf: {policy: strict-json, catalogRef: {}}", []string{"GWP401 spec.waf.catalogRef.name"}},
		{"waf catalog missing", "spec:\n  waf: {policy: strict-json, catalogRef: {name: nope}}", []string{"GWP402 spec.waf.catalogRef.name"}},
		{"waf catalog mutable", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf-mutable}}", []string{"GWP402 spec.waf.catalogRef.name"}},
		{"waf catalog other namespace", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf, namespace: other}}", nil},
		{"waf catalog other namespace, none in the policy's", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf-elsewhere, namespace: other}}", []string{"GWP402 spec.waf.catalogRef.name"}},
		{"waf catalog key missing", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf, key: nope.yaml}}", []string{"GWP402 spec.waf.catalogRef.key"}},
		// An entry's settings as values.yaml documents them.
		{"waf catalog json body mode", "spec:\n  waf: {policy: api-json, catalogRef: {name: waf-settings, key: json.yaml}}", nil},
		{"waf catalog enforcement and paranoia", "spec:\n  waf: {policy: tuned, catalogRef: {name: waf-settings, key: tuned.yaml}}", nil},
		{"waf catalog bad enforcement", "spec:\n  waf: {policy: tuned, catalogRef: {name: waf-settings, key: enforcement.yaml}}", []string{"GWP402 spec.waf.catalogRef.key"}},
		{"waf catalog paranoia out of range", "spec:\n  waf: {policy: tuned, catalogRef: {name: waf-settings, key: paranoia.yaml}}", []string{"GWP402 spec.waf.catalogRef.key"}},
		{"waf self-service secLang", "spec:\n  waf: {policy: custom, catalogRef: {name: waf-settings, key: seclang.yaml}}", []string{"GWP402 spec.waf.catalogRef.key"}},
		// HAPTIC reads a catalog from the ConfigMap's data only.
		{"waf catalog in binaryData", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf-binary}}", []string{"GWP402 spec.waf.catalogRef.key"}},
		{"waf catalog malformed", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf, key: broken.yaml}}", []string{"GWP402 spec.waf.catalogRef.key"}},
		{"waf policy not in catalog", "spec:\n  waf: {policy: lenient, catalogRef: {name: waf}}", []string{"GWP402 spec.waf.policy"}},

		// cache.
		{"cache ok", "spec:\n  cache: {ttlSeconds: 60, maxObjectSizeBytes: 1048576, varyHeaders: [Accept-Encoding]}", nil},
		// ttlSeconds is optional and non-negative (the origin's
		// Cache-Control decides without it).
		{"cache zero ttl", "spec:\n  cache: {ttlSeconds: 0}", nil},
		{"cache no ttl", "spec:\n  cache: {varyHeaders: [Accept]}", nil},
		{"cache empty", "spec:\n  cache: {}", nil},
		{"cache negative ttl", "spec:\n  cache: {ttlSeconds: -1}", []string{"GWP401 spec.cache.ttlSeconds"}},
		{"cache size zero", "spec:\n  cache: {ttlSeconds: 1, maxObjectSizeBytes: 0}", []string{"GWP401 spec.cache.maxObjectSizeBytes"}},
		{"cache size huge", "spec:\n  cache: {ttlSeconds: 1, maxObjectSizeBytes: 4294967296}", []string{"GWP401 spec.cache.maxObjectSizeBytes"}},
		{"cache haptic vary", "spec:\n  cache: {ttlSeconds: 1, varyHeaders: [Accept, x-haptic-consumer]}", []string{"GWP401 spec.cache.varyHeaders[1]"}},
		{"cache haptic vary upper", "spec:\n  cache: {ttlSeconds: 1, varyHeaders: [X-Haptic-Anything]}", []string{"GWP401 spec.cache.varyHeaders[0]"}},
		{"cache haptic-like vary ok", "spec:\n  cache: {ttlSeconds: 1, varyHeaders: [X-Hapticness]}", nil},
		{"cache bad vary", "spec:\n  cache: {ttlSeconds: 1, varyHeaders: ['']}", []string{"GWP401 spec.cache.varyHeaders[0]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decode(t, tc.spec)
			if got := codes(p.Invalid); !slices.Equal(got, tc.want) {
				t.Errorf("invalid = %q, want %q", got, tc.want)
				for _, d := range p.Invalid {
					t.Logf("  %s: %s", d.Pos, d.Message)
				}
			}
			for _, d := range p.Invalid {
				if d.Pos.Line == 0 {
					t.Errorf("%s has no position", d.Code)
				}
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	p := decode(t, "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}}\n    apiKey: {secretRef: {name: api-keys}}\n  rateLimit: {requests: 50}\n  waf: {policy: strict-json, catalogRef: {name: waf}}\n  cache: {ttlSeconds: 5}")
	if !p.IsValid() {
		t.Fatalf("invalid: %v", p.Invalid)
	}
	if got := p.SetFields(); !slices.Equal(got, []string{FieldJWT, FieldAPIKey, FieldRateLimit, FieldWAF, FieldCache}) {
		t.Errorf("fields = %v", got)
	}
	j := p.Values[FieldJWT].(*JWT)
	a := p.Values[FieldAPIKey].(*APIKey)
	r := p.Values[FieldRateLimit].(*RateLimit)
	w := p.Values[FieldWAF].(*WAF)
	if j.Algorithm != "RS256" || a.Header != "X-API-Key" || r.Period != "1s" || *r.Burst != 50 || r.Algorithm != "token-bucket" || r.Key != "ip" || w.CatalogRef.Key != "policies.yaml" {
		t.Errorf("defaults not applied: jwt %q header %q period %q burst %d algorithm %q key %q catalog key %q",
			j.Algorithm, a.Header, r.Period, *r.Burst, r.Algorithm, r.Key, w.CatalogRef.Key)
	}
	if !w.catalogRead || w.requestBody != "none" {
		t.Errorf("catalog entry: read %v mode %q", w.catalogRead, w.requestBody)
	}
}

// TestSecretValuesNeverPrinted: findings about credential Secrets name the
// Secret and line numbers, never what the Secret holds.
func TestSecretValuesNeverPrinted(t *testing.T) {
	for _, spec := range []string{
		"spec:\n  authentication:\n    apiKey: {secretRef: {name: bad-lines}}",
		"spec:\n  authentication:\n    apiKey: {secretRef: {name: dup-lines}}",
		"spec:\n  authentication:\n    jwt: {secretRef: {name: mutable-key}}",
		"spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-bad-jwks}}",
		"spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-not-a-key}}",
		"spec:\n  authentication:\n    apiKey: {secretRef: {name: bad-lines-b64}}",
		"spec:\n  authentication:\n    apiKey: {secretRef: {name: api-keys}}\n  rateLimit: {requests: 1, burst: 100000}",
	} {
		p := decode(t, spec)
		all := append(append(append([]diag.Diagnostic(nil), p.Invalid...), p.Warnings...), p.Findings...)
		if len(all) == 0 {
			t.Fatalf("%s: want findings", spec)
		}
		for _, d := range all {
			for _, secret := range []string{"SECRETVALUE", "k-123", "mobile-app", "partner-a", "PUBLICKEYMATERIAL", "MIIBIjAN", "UFVCTElD"} {
				if strings.Contains(d.Message, secret) {
					t.Errorf("message prints Secret data %q: %s", secret, d.Message)
				}
			}
		}
	}
}

func TestUnknownFields(t *testing.T) {
	p := decode(t, "spec:\n  rateLimit: {requests: 1, bursts: 2}\n  cach: {}\nstatus: {ancestors: []}")
	if got := codes(p.Findings); !slices.Equal(got, []string{"GWP102 spec.cach", "GWP102 spec.rateLimit.bursts"}) {
		t.Errorf("findings = %q", got)
	}
	// targetRefs is a GWP401, not also an unknown field.
	p = decode(t, "spec:\n  targetRefs: []\n  rateLimit: {requests: 1}")
	if len(p.Findings) != 0 || len(p.Invalid) != 1 {
		t.Errorf("targetRefs: findings %q invalid %q", codes(p.Findings), codes(p.Invalid))
	}
}

func TestCheckRule(t *testing.T) {
	for _, tc := range []struct {
		name, spec, route string
		want              []string
	}{
		{"http cache", "spec:\n  cache: {ttlSeconds: 1}", "HTTPRoute", nil},
		{"grpc cache", "spec:\n  cache: {ttlSeconds: 1}", "GRPCRoute", []string{"GWP403 spec.cache"}},
		{"grpc rate limit", okRate, "GRPCRoute", nil},
		{"grpc waf none", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", "GRPCRoute", nil},
		{"grpc waf buffered", "spec:\n  waf: {policy: buffered, catalogRef: {name: waf}}", "GRPCRoute", []string{"GWP403 spec.waf.policy"}},
		{"grpc waf silent", "spec:\n  waf: {policy: silent, catalogRef: {name: waf}}", "GRPCRoute", nil},
		{"grpc waf json", "spec:\n  waf: {policy: api-json, catalogRef: {name: waf-settings, key: json.yaml}}", "GRPCRoute", []string{"GWP403 spec.waf.policy"}},
		{"http waf buffered", "spec:\n  waf: {policy: buffered, catalogRef: {name: waf}}", "HTTPRoute", nil},
		// A catalog problem is GWP402 on the policy, not GWP403 again.
		{"grpc waf missing catalog", "spec:\n  waf: {policy: strict-json, catalogRef: {name: nope}}", "GRPCRoute", nil},
		{"grpc cache and buffered waf", "spec:\n  waf: {policy: buffered, catalogRef: {name: waf}}\n  cache: {ttlSeconds: 1}", "GRPCRoute", []string{"GWP403 spec.cache", "GWP403 spec.waf.policy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decode(t, tc.spec)
			if got := codes(Kind{}.CheckRule(p, routeOf(tc.route))); !slices.Equal(got, tc.want) {
				t.Errorf("CheckRule = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestCheckRulePassthrough: a route that also passes TLS through (an
// SSLPassthrough filter, or an ExtensionRef named ssl…passthrough, on any
// of its rules) fails every rule using a policy closed, IncompatibleFilters
// at the passthrough filter, as HAPTIC's GatewayPolicyReference does.
func TestCheckRulePassthrough(t *testing.T) {
	ext := func(group, kind, name string) model.Filter {
		return model.Filter{Type: "ExtensionRef", Path: "spec.rules[1].filters[0]",
			ExtensionRef: &gwv1.LocalObjectReference{Group: gwv1.Group(group), Kind: gwv1.Kind(kind), Name: gwv1.ObjectName(name)}}
	}
	for _, tc := range []struct {
		name   string
		filter model.Filter
		want   []string
	}{
		{"passthrough kind", ext("haproxy-haptic.org", "SSLPassthrough", "p"), []string{"GWP206 spec.rules[1].filters[0].extensionRef"}},
		{"passthrough by name", ext("example.com", "Thing", "Edge-SSL-Passthrough"), []string{"GWP206 spec.rules[1].filters[0].extensionRef"}},
		{"other extension", ext("example.com", "Thing", "auth"), nil},
		{"a policy named like a passthrough is a policy", ext("haproxy-haptic.org", "HAProxyRoutePolicy", "ssl-passthrough"), nil},
		{"not an extension", model.Filter{Type: "RequestHeaderModifier", Path: "spec.rules[1].filters[0]"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &model.Route{Kind: "HTTPRoute", Meta: &metav1.ObjectMeta{Namespace: "shop", Name: "r"},
				Rules: []*model.Rule{{Index: 0}, {Index: 1, Filters: []model.Filter{tc.filter}}}}
			got := Kind{}.CheckRule(decode(t, okRate), rt)
			if !slices.Equal(codes(got), tc.want) {
				t.Errorf("CheckRule = %q, want %q", codes(got), tc.want)
			}
			if len(got) > 0 && !strings.Contains(got[0].Message, "SSL passthrough bypasses HTTP policy enforcement") {
				t.Errorf("message: %s", got[0].Message)
			}
		})
	}
	if reason, _ := Family.BrokenReasons("GWP206", "spec.rules[1].filters[0].extensionRef"); reason != "IncompatibleFilters" {
		t.Errorf("reason = %s, want IncompatibleFilters", reason)
	}
}

func TestIdentity(t *testing.T) {
	for _, tc := range []struct {
		kind, ns, name string
		idx            int
		want           string
	}{
		{"HTTPRoute", "default", "route-0", 0, "h_default_route-0_0"},
		{"HTTPRoute", "shop", "orders", 3, "h_shop_orders_3"},
		{"GRPCRoute", "shop", "orders.v1", 1, "g_shop_orders.v1_1"},
	} {
		if got := (Kind{}).RuleIdentity(tc.kind, tc.ns, tc.name, tc.idx); got != tc.want {
			t.Errorf("RuleIdentity(%s %s/%s %d) = %q, want %q", tc.kind, tc.ns, tc.name, tc.idx, got, tc.want)
		}
	}
	p := decode(t, okRate)
	if got := (Kind{}).PolicyIdentity(p); got != "p_shop_p" {
		t.Errorf("PolicyIdentity = %q", got)
	}
}

// trustedDeps are a trusted catalog and self-service catalogs for the
// deployment-settings tests.
const trustedDeps = `
apiVersion: v1
kind: ConfigMap
metadata: {name: catalog, namespace: security}
immutable: true
data:
  policies.yaml: "central: {requestBody: {mode: none}}\n"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: catalog-bad, namespace: security}
immutable: true
data:
  policies.yaml: "central: {requestBody: {mode: none}}\nzz: {requestBody: {mode: [none]}}\n"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: catalog-mutable, namespace: security}
data:
  policies.yaml: "central: {}\n"
---
apiVersion: v1
kind: ConfigMap
metadata: {name: waf-empty, namespace: shop}
immutable: true
data:
  policies.yaml: ""
---
apiVersion: v1
kind: ConfigMap
metadata: {name: waf-unselected-bad, namespace: shop}
immutable: true
data:
  policies.yaml: "strict-json: {}\nbroken: {requestBody: {mode: invalid}}\n"
`

// decodeWith decodes policy p (spec given as in decode) with the haptic:
// config section values and the extra documents.
func decodeWith(t *testing.T, specYAML string, values map[string]any, extra string) *policy.Policy {
	t.Helper()
	doc := "apiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: p, namespace: shop}\n" + specYAML + "\n---\n" + deps + "\n---\n" + trustedDeps + extra
	objs, err := manifest.Parse("policy.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: Group, Kind: KindName}: true}})
	set := policy.NewRegistry(New()).Decode(&policy.Env{Model: m, Config: deployedConfig(values)})
	for _, p := range set.Policies {
		if p.Obj.Name == "p" {
			return p
		}
	}
	t.Fatal("policy not decoded")
	return nil
}

// TestDeploymentSettings: WAF without catalogRef names a trusted policy of
// the deployment (inline or a trusted catalog), as HAPTIC documents and
// tests it (issue 19), and the chart switches fail closed what they turn
// off.
func TestDeploymentSettings(t *testing.T) {
	central := func(name string) map[string]any {
		return map[string]any{"policies": map[string]any{"configMapRefs": map[string]any{"central": map[string]any{"namespace": "security", "name": name}}}}
	}
	inline := map[string]any{"policies": map[string]any{"inline": map[string]any{"inline-safe": map[string]any{"requestBody": map[string]any{"mode": "none"}}, "central": map[string]any{}}}}
	limits := func(perNS, total string) map[string]any {
		return map[string]any{"policies": map[string]any{"selfService": map[string]any{"limits": map[string]any{"maxPoliciesPerNamespace": perNS, "maxTotalPolicies": total}}}}
	}
	second := "\n---\napiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: a-first, namespace: shop}\nspec:\n  waf: {policy: strict-json, catalogRef: {name: waf, key: other.yaml}}\n"
	for _, tc := range []struct {
		name   string
		spec   string
		values map[string]any
		extra  string
		want   []string
	}{
		{"trusted inline", "spec:\n  waf: {policy: inline-safe}", map[string]any{"waf": inline}, "", nil},
		{"trusted catalog", "spec:\n  waf: {policy: central}", map[string]any{"waf": central("catalog")}, "", nil},
		{"trusted unknown", "spec:\n  waf: {policy: absent}", map[string]any{"waf": central("catalog")}, "", []string{"GWP402 spec.waf.policy"}},
		{"trusted with no trusted source configured", "spec:\n  waf: {policy: central}", map[string]any{"waf": map[string]any{"policies": map[string]any{"inline": map[string]any{}}}}, "", []string{"GWP402 spec.waf.policy"}},
		{"trusted catalog missing", "spec:\n  waf: {policy: central}", map[string]any{"waf": central("nope")}, "", []string{"GWP402 spec.waf.policy"}},
		{"trusted catalog mutable", "spec:\n  waf: {policy: central}", map[string]any{"waf": central("catalog-mutable")}, "", []string{"GWP402 spec.waf.policy"}},
		{"trusted catalog with an invalid entry", "spec:\n  waf: {policy: central}", map[string]any{"waf": central("catalog-bad")}, "", []string{"GWP402 spec.waf.policy"}},
		{"trusted collision", "spec:\n  waf: {policy: central}", map[string]any{"waf": map[string]any{"policies": map[string]any{
			"inline": map[string]any{"central": map[string]any{}}, "configMapRefs": map[string]any{"c": map[string]any{"namespace": "security", "name": "catalog"}}}}}, "", []string{"GWP402 spec.waf.policy"}},
		{"no tenant fallback", "spec:\n  waf: {policy: strict-json}", map[string]any{"waf": central("catalog")}, "", []string{"GWP402 spec.waf.policy"}},
		{"self-service empty catalog", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf-empty}}", nil, "", []string{"GWP402 spec.waf.catalogRef.key"}},
		{"self-service invalid unselected entry", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf-unselected-bad}}", nil, "", []string{"GWP402 spec.waf.catalogRef.key"}},
		{"self-service disabled", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", map[string]any{"waf": map[string]any{"policies": map[string]any{"selfService": map[string]any{"enabled": false}}}}, "", []string{"GWP402 spec.waf.catalogRef"}},
		{"waf disabled", "spec:\n  waf: {policy: inline-safe}", map[string]any{"waf": map[string]any{"enabled": false}}, "", []string{"GWP402 spec.waf"}},
		// The Ingress WAF permissions apply to route policies: without
		// policy selection no waf.policy is served, trusted or not.
		{"policy selection disabled: trusted", "spec:\n  waf: {policy: inline-safe}", map[string]any{"waf": map[string]any{"policies": inline["policies"], "ingressPermissions": map[string]any{"allowPolicySelection": false}}}, "", []string{"GWP402 spec.waf.policy"}},
		{"policy selection disabled: self-service", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", map[string]any{"waf": map[string]any{"ingressPermissions": map[string]any{"allowPolicySelection": false}}}, "", []string{"GWP402 spec.waf.policy"}},
		{"policy selection allowed, other permissions off", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", map[string]any{"waf": map[string]any{"ingressPermissions": map[string]any{"allowEnforcementOverride": false, "allowWafDisable": false}}}, "", nil},
		// A self-service entry in detect mode may not weaken a
		// default-on deny baseline; deny entries, a detect baseline and
		// opt-in dispatch leave it alone.
		{"self-service detect under a default-on deny baseline", "spec:\n  waf: {policy: tuned, catalogRef: {name: waf-settings, key: tuned.yaml}}", map[string]any{"waf": map[string]any{"dispatch": map[string]any{"mode": "default-on", "defaultEnforcement": "deny"}}}, "", []string{"GWP402 spec.waf.policy"}},
		{"self-service deny under a default-on deny baseline", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", map[string]any{"waf": map[string]any{"dispatch": map[string]any{"mode": "default-on"}}}, "", nil},
		{"self-service detect under a default-on detect baseline", "spec:\n  waf: {policy: tuned, catalogRef: {name: waf-settings, key: tuned.yaml}}", map[string]any{"waf": map[string]any{"dispatch": map[string]any{"mode": "default-on", "defaultEnforcement": "detect"}}}, "", nil},
		{"trusted detect under a default-on deny baseline", "spec:\n  waf: {policy: inline-detect}", map[string]any{"waf": map[string]any{"dispatch": map[string]any{"mode": "default-on"}, "policies": map[string]any{"inline": map[string]any{"inline-detect": map[string]any{"enforcement": "detect"}}}}}, "", nil},
		{"self-service detect with opt-in dispatch", "spec:\n  waf: {policy: tuned, catalogRef: {name: waf-settings, key: tuned.yaml}}", map[string]any{"waf": map[string]any{"dispatch": map[string]any{"mode": "opt-in"}}}, "", nil},
		{"namespace limit admits the first entry", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf, key: other.yaml}}", map[string]any{"waf": limits("1", "0")}, "", nil},
		// The limits count every entry of the referenced catalogs, in
		// scope and then name order, selected or not: waf/policies.yaml
		// holds buffered, silent and strict-json. One entry over a limit
		// fails the catalog's every selection (diagnosed by scope).
		{"namespace limit counts unselected entries of the catalog", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", map[string]any{"waf": limits("1", "0")}, "", []string{"GWP402 spec.waf.catalogRef"}},
		{"a catalog with an entry over the limit fails every selection from it", "spec:\n  waf: {policy: buffered, catalogRef: {name: waf}}", map[string]any{"waf": limits("1", "0")}, "", []string{"GWP402 spec.waf.catalogRef"}},
		{"cluster limit counts unselected entries of the catalog", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", map[string]any{"waf": limits("0", "2")}, "", []string{"GWP402 spec.waf.catalogRef"}},
		{"limits that hold every entry of the catalog", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", map[string]any{"waf": limits("3", "3")}, "", nil},
		{"an unreadable catalog loads nothing and counts nothing", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf, key: other.yaml}}", map[string]any{"waf": limits("1", "1")}, "\n---\napiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: a-broken, namespace: shop}\nspec:\n  waf: {policy: x, catalogRef: {name: waf, key: broken.yaml}}\n", nil},
		{"namespace limit refuses the second entry", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", map[string]any{"waf": limits("1", "0")}, second, []string{"GWP402 spec.waf.catalogRef"}},
		{"cluster limit refuses the second entry", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf}}", map[string]any{"waf": limits("0", "1")}, second, []string{"GWP402 spec.waf.catalogRef"}},
		{"limit counts a shared entry once", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf, key: other.yaml}}", map[string]any{"waf": limits("1", "1")}, second, nil},
		{"shared rate limit disabled", okRate, map[string]any{"rateLimit": map[string]any{"shared": map[string]any{"enabled": false}}}, "", []string{"GWP402 spec.rateLimit"}},
		{"shared rate limit enabled", okRate, map[string]any{"rateLimit": map[string]any{"shared": map[string]any{"enabled": true}}}, "", nil},
		{"SPOA hub without the rate-limit message", okRate, map[string]any{"spoaHub": map[string]any{"haproxy": map[string]any{"messages": []any{"check-request"}}}}, "", []string{"GWP402 spec.rateLimit"}},
		{"SPOA hub with the rate-limit message", okRate, map[string]any{"spoaHub": map[string]any{"haproxy": map[string]any{"messages": []any{"check-request", "check-ratelimit"}}}}, "", nil},
		{"SPOA hub off: no shared rate limit", okRate, map[string]any{"spoaHub": map[string]any{"enabled": false}}, "", []string{"GWP402 spec.rateLimit"}},
		{"SPOA hub off: no WAF", "spec:\n  waf: {policy: inline-safe}", map[string]any{"waf": inline, "spoaHub": map[string]any{"enabled": false}}, "", []string{"GWP402 spec.waf"}},
		{"self-service body cap within the ceiling", "spec:\n  waf: {policy: capped, catalogRef: {name: waf-settings, key: maxbytes.yaml}}", nil, "", nil},
		{"self-service body cap over a lowered ceiling", "spec:\n  waf: {policy: capped, catalogRef: {name: waf-settings, key: maxbytes.yaml}}", map[string]any{"waf": map[string]any{"policies": map[string]any{"requestBody": map[string]any{"maxBytes": 1024, "defaultMaxBytes": 1024}}}}, "", []string{"GWP402 spec.waf.catalogRef.key"}},
		{"self-service secLang allowed", "spec:\n  waf: {policy: custom, catalogRef: {name: waf-settings, key: seclang.yaml}}", map[string]any{"waf": map[string]any{"policies": map[string]any{"selfService": map[string]any{"allowSecLang": true}}}}, "", nil},
		{"SPOA hub on", okRate, map[string]any{"spoaHub": map[string]any{"enabled": true}}, "", nil},
		{"SPOA hub derived (null)", okRate, map[string]any{"spoaHub": map[string]any{"enabled": nil}}, "", nil},
		{"SPOA hub messages do not matter without a rate limit", "spec:\n  cache: {ttlSeconds: 5}", map[string]any{"spoaHub": map[string]any{"haproxy": map[string]any{"messages": []any{}}}}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decodeWith(t, tc.spec, tc.values, tc.extra)
			if got := codes(p.Invalid); !slices.Equal(got, tc.want) {
				t.Errorf("invalid = %q, want %q", got, tc.want)
				for _, d := range p.Invalid {
					t.Logf("  %s: %s", d.Pos, d.Message)
				}
			}
		})
	}
}

// TestTrustedUnchecked (issue 19): without the deployment's trusted
// policies in the config, a WAF selection without catalogRef is not
// rejected — gwpol says, as info, that it could not check it.
func TestTrustedUnchecked(t *testing.T) {
	p := decodeWith(t, "spec:\n  waf: {policy: central}", nil, "")
	if !p.IsValid() {
		t.Fatalf("rejected: %v", p.Invalid)
	}
	if len(p.Findings) != 1 || p.Findings[0].Severity != diag.Info || p.Findings[0].Field != "spec.waf.policy" {
		t.Errorf("want one info finding on spec.waf.policy, got %v", p.Findings)
	}
}

// routeOf is a route of the kind with no rules of interest.
func routeOf(kind string) *model.Route {
	return &model.Route{Kind: kind, Meta: &metav1.ObjectMeta{Namespace: "shop", Name: "r"}}
}

// TestCacheTierSwitch: with the cache tier off a cache policy fails its
// HTTPRoute rules closed; on a GRPCRoute the gRPC restriction is what is
// reported, as HAPTIC reports it.
func TestCacheTierSwitch(t *testing.T) {
	off := map[string]any{"cache": map[string]any{"varnish": map[string]any{"enabled": false}}}
	p := decodeWith(t, "spec:\n  cache: {ttlSeconds: 60}", off, "")
	if !p.IsValid() {
		t.Fatalf("policy itself is valid: %v", p.Invalid)
	}
	if got := codes(New().CheckRule(p, routeOf("HTTPRoute"))); !slices.Equal(got, []string{"GWP402 spec.cache"}) {
		t.Errorf("HTTPRoute: %q", got)
	}
	if got := codes(New().CheckRule(p, routeOf("GRPCRoute"))); !slices.Equal(got, []string{"GWP403 spec.cache"}) {
		t.Errorf("GRPCRoute: %q", got)
	}
	on := decodeWith(t, "spec:\n  cache: {ttlSeconds: 60}", nil, "")
	if got := New().CheckRule(on, routeOf("HTTPRoute")); len(got) != 0 {
		t.Errorf("cache tier on by default, got %v", got)
	}
}

func TestParseSettings(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value map[string]any
		err   string
	}{
		{"defaults", nil, ""},
		{"unknown key", map[string]any{"haptic.spoa": true}, "haptic.spoa is not a setting"},
		{"bad switch", map[string]any{"haptic.rateLimit": map[string]any{"shared": map[string]any{"enabled": "sometimes"}}}, "haptic.rateLimit.shared.enabled must be true or false"},
		{"bad limit", map[string]any{"haptic.waf": map[string]any{"policies": map[string]any{"selfService": map[string]any{"limits": map[string]any{"maxTotalPolicies": "-1"}}}}}, "must not be negative"},
		{"trusted ref without name", map[string]any{"haptic.waf": map[string]any{"policies": map[string]any{"configMapRefs": map[string]any{"c": map[string]any{"namespace": "x"}}}}}, "needs namespace and name"},
		{"unknown waf key", map[string]any{"haptic.waf": map[string]any{"engine": map[string]any{}}}, "haptic.waf.engine is not a setting"},
		{"dispatch mode not the chart's", map[string]any{"haptic.waf": map[string]any{"dispatch": map[string]any{"mode": "always"}}}, `haptic.waf.dispatch.mode must be one of opt-in, default-on, not "always"`},
		{"default enforcement not the chart's", map[string]any{"haptic.waf": map[string]any{"dispatch": map[string]any{"defaultEnforcement": "block"}}}, "haptic.waf.dispatch.defaultEnforcement must be one of deny, detect"},
		{"unknown dispatch key", map[string]any{"haptic.waf": map[string]any{"dispatch": map[string]any{"modes": "opt-in"}}}, "haptic.waf.dispatch.modes is not a setting"},
		{"permission not a bool", map[string]any{"haptic.waf": map[string]any{"ingressPermissions": map[string]any{"allowWafDisable": "maybe"}}}, "haptic.waf.ingressPermissions.allowWafDisable must be true or false"},
		{"unknown permission", map[string]any{"haptic.waf": map[string]any{"ingressPermissions": map[string]any{"allowEverything": true}}}, "haptic.waf.ingressPermissions.allowEverything is not a setting"},
		{"dispatch and permissions as the chart writes them", map[string]any{"haptic.waf": map[string]any{"dispatch": map[string]any{"mode": "default-on", "defaultEnforcement": "detect"},
			"ingressPermissions": map[string]any{"allowPolicySelection": false, "allowCustomRules": true}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSettings(policy.Config{Values: tc.value})
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// TestWAFDispatchSettings: waf.dispatch and waf.ingressPermissions take
// the chart's defaults (opt-in, deny; only policy selection allowed) and
// the values written, in the chart's spelling.
func TestWAFDispatchSettings(t *testing.T) {
	d := DefaultSettings()
	if d.Dispatch != (WAFDispatch{Mode: "opt-in", DefaultEnforcement: "deny"}) || d.IngressPermissions != (WAFIngressPermissions{AllowPolicySelection: true}) {
		t.Errorf("defaults: %+v %+v", d.Dispatch, d.IngressPermissions)
	}
	s, err := ParseSettings(policy.Config{Values: map[string]any{"haptic.waf": map[string]any{
		"dispatch":           map[string]any{"mode": "Default-On", "defaultEnforcement": "detect"},
		"ingressPermissions": map[string]any{"allowPolicySelection": false, "allowRawHAProxyConfig": "true"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Dispatch != (WAFDispatch{Mode: "default-on", DefaultEnforcement: "detect"}) || s.IngressPermissions != (WAFIngressPermissions{AllowRawHAProxyConfig: true}) {
		t.Errorf("parsed: %+v %+v", s.Dispatch, s.IngressPermissions)
	}
}

// TestCheckDeployment: HAPTIC's admission refuses an invalid trusted
// catalog and a defaultPolicy that names no trusted policy; gwpol reports
// both on the config keys.
func TestCheckDeployment(t *testing.T) {
	objs, err := manifest.Parse("deps.yaml", []byte(trustedDeps), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{})
	// waf is a config of WAF policies and, in pairs, other haptic: keys.
	waf := func(policies map[string]any, keyValues ...any) policy.Config {
		cfg := policy.Config{Values: map[string]any{ConfigPrefix + "waf": map[string]any{"policies": policies}}}
		for i := 0; i+1 < len(keyValues); i += 2 {
			cfg.Values[ConfigPrefix+keyValues[i].(string)] = keyValues[i+1]
		}
		if _, err := ParseSettings(cfg); err != nil {
			t.Fatalf("config: %v", err)
		}
		return cfg
	}
	ref := func(name string) map[string]any {
		return map[string]any{"c": map[string]any{"namespace": "security", "name": name}}
	}
	for _, tc := range []struct {
		name string
		cfg  policy.Config
		want []string
	}{
		{"no settings", policy.Config{}, nil},
		{"valid catalog and default", waf(map[string]any{"configMapRefs": ref("catalog"), "defaultPolicy": "central"}), nil},
		{"inline default", waf(map[string]any{"inline": map[string]any{"base": map[string]any{}}, "defaultPolicy": "base"}), nil},
		{"unknown default", waf(map[string]any{"configMapRefs": ref("catalog"), "defaultPolicy": "absent"}), []string{"GWP402 haptic.waf.policies.defaultPolicy"}},
		{"missing catalog", waf(map[string]any{"configMapRefs": ref("nope")}), []string{"GWP402 haptic.waf.policies.configMapRefs.c"}},
		{"invalid catalog hides its policies", waf(map[string]any{"configMapRefs": ref("catalog-bad"), "defaultPolicy": "central"}),
			[]string{"GWP402 haptic.waf.policies.configMapRefs.c", "GWP402 haptic.waf.policies.defaultPolicy"}},
		{"waf off", policy.Config{Values: map[string]any{ConfigPrefix + "waf": map[string]any{"enabled": false, "policies": map[string]any{"defaultPolicy": "absent"}}}}, nil},
		{"invalid inline policy", waf(map[string]any{"inline": map[string]any{"base": map[string]any{"enforcement": "block"}}, "defaultPolicy": "base"}),
			[]string{"GWP402 haptic.waf.policies.defaultPolicy", "GWP402 haptic.waf.policies.inline.base"}},
		{"inline body cap over the ceiling", waf(map[string]any{"inline": map[string]any{"big": map[string]any{"requestBody": map[string]any{"mode": "any", "maxBytes": 16384}}}}),
			[]string{"GWP402 haptic.waf.policies.inline.big"}},
		{"inline body cap within a raised ceiling", waf(map[string]any{"inline": map[string]any{"big": map[string]any{"requestBody": map[string]any{"mode": "any", "maxBytes": 16384}}},
			"requestBody": map[string]any{"maxBytes": 65536}}, "requestBodyInspection", map[string]any{"haproxyBuffer": map[string]any{"sizeBytes": 65536 + 8192}}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := codes(CheckDeployment(m, tc.cfg, nil)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// deployed are chart values with every feature a route policy can use
// switched on and self-service catalogs unlimited: the deployment the
// checks of this package's tests run in unless a test says otherwise
// (the chart's own defaults switch them off: TestChartDefaults).
func deployed() map[string]any {
	return map[string]any{
		"rateLimit": map[string]any{"shared": map[string]any{"enabled": true}},
		"cache":     map[string]any{"varnish": map[string]any{"enabled": true}},
		"waf": map[string]any{"enabled": true, "policies": map[string]any{
			"selfService": map[string]any{"enabled": true, "limits": map[string]any{"maxPoliciesPerNamespace": 0, "maxTotalPolicies": 0}}}},
	}
}

// deployedConfig is the config of deployed chart values with values
// (keys of the haptic: section) merged over them, a map into a map.
func deployedConfig(values map[string]any) policy.Config {
	merged := mergeValues(deployed(), values)
	cfg := policy.Config{Values: map[string]any{}}
	for k, v := range merged {
		cfg.Values[ConfigPrefix+k] = v
	}
	return cfg
}

func mergeValues(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		bm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = mergeValues(bm, om)
			continue
		}
		out[k] = v
	}
	return out
}

// TestChartDefaults: without a haptic: section gwpol takes the chart's
// values.yaml defaults — shared rate limit, cache tier and self-service
// catalogs off (limits 4 and 64) — and the Coraza plugin follows the
// chart's predicate: on when dispatch is default-on or a catalog is
// configured, unless waf.enabled says otherwise. A policy that needs a
// feature the defaults leave off fails closed naming the switch.
func TestChartDefaults(t *testing.T) {
	d, err := ParseSettings(policy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if d.SharedRateLimit || d.Varnish || d.WAF || d.SelfService || d.MaxPerNamespace != 4 || d.MaxTotal != 64 || !d.RateLimitMessage {
		t.Errorf("defaults = %+v", d)
	}
	waf := func(w map[string]any) map[string]any { return map[string]any{"haptic.waf": w} }
	tests := []struct {
		name   string
		values map[string]any
		want   bool
	}{
		{"nothing configured", nil, false},
		{"inline policy", waf(map[string]any{"policies": map[string]any{"inline": map[string]any{"base": map[string]any{}}}}), true},
		{"inline map empty", waf(map[string]any{"policies": map[string]any{"inline": map[string]any{}}}), false},
		{"trusted catalog", waf(map[string]any{"policies": map[string]any{"configMapRefs": map[string]any{"central": map[string]any{"namespace": "security", "name": "catalog", "key": "policies.yaml"}}}}), true},
		{"default policy", waf(map[string]any{"policies": map[string]any{"defaultPolicy": "base"}}), true},
		{"self-service", waf(map[string]any{"policies": map[string]any{"selfService": map[string]any{"enabled": true}}}), true},
		{"default-on dispatch", waf(map[string]any{"dispatch": map[string]any{"mode": "default-on"}}), true},
		{"explicitly off", waf(map[string]any{"enabled": false, "policies": map[string]any{"defaultPolicy": "base"}}), false},
		{"explicitly on", waf(map[string]any{"enabled": true}), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseSettings(policy.Config{Values: tc.values})
			if err != nil {
				t.Fatal(err)
			}
			if s.WAF != tc.want {
				t.Errorf("WAF = %v, want %v", s.WAF, tc.want)
			}
		})
	}
	doc := "apiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: p, namespace: shop}\nspec:\n  rateLimit: {requests: 10, period: 1s}\n"
	objs, err := manifest.Parse("policy.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: Group, Kind: KindName}: true}})
	set := policy.NewRegistry(New()).Decode(&policy.Env{Model: m})
	if p := set.Policies[0]; len(p.Invalid) == 0 || !strings.Contains(p.Invalid[0].Message, "rateLimit.shared.enabled") {
		t.Errorf("a rate limit under the chart's defaults: %v, want a finding naming rateLimit.shared.enabled", p.Invalid)
	}
}

// TestAcceptedWithWarning: what HAPTIC's templates accept but ignore is a
// warning at the field, and the policy stays valid — an authentication
// with neither jwt nor apiKey beside another section (GatewayPolicyRecord
// counts only jwt and apiKey as authenticating), and a catalogRef
// namespace (49-policy-catalogs.yaml reads the catalog from the policy's
// namespace).
func TestAcceptedWithWarning(t *testing.T) {
	for _, tc := range []struct{ name, spec, field, msg string }{
		{"empty authentication", "spec:\n  authentication: {}\n  rateLimit: {requests: 10}", "spec.authentication", "authenticates no request"},
		{"catalogRef namespace", "spec:\n  waf: {policy: strict-json, catalogRef: {name: waf, namespace: other}}", "spec.waf.catalogRef.namespace", "ignores namespace other and reads ConfigMap shop/waf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decode(t, tc.spec)
			if !p.IsValid() {
				t.Fatalf("invalid: %v", p.Invalid)
			}
			var found bool
			for _, d := range p.Findings {
				if d.Severity == diag.Warning && d.Field == tc.field && strings.Contains(d.Message, tc.msg) && d.Pos.Line > 0 {
					found = true
				}
			}
			if !found {
				t.Errorf("no positioned warning at %s containing %q: %v", tc.field, tc.msg, p.Findings)
			}
		})
	}
}

// TestBodyCeilingSetting: waf.policies.requestBody.maxBytes, the ceiling
// of a WAF policy's body cap, defaults to the chart's 8192 and takes 1 …
// 1 MiB; anything else is a config error naming the key.
func TestBodyCeilingSetting(t *testing.T) {
	cfg := func(v any) policy.Config {
		return policy.Config{Values: map[string]any{ConfigPrefix + "waf": map[string]any{"policies": map[string]any{"requestBody": map[string]any{"maxBytes": v}}}}}
	}
	if s, err := ParseSettings(policy.Config{}); err != nil || s.MaxBodyBytes != DefaultMaxBodyBytes {
		t.Errorf("default: %d, %v", s.MaxBodyBytes, err)
	}
	lowered := cfg("4096")
	lowered.Values[ConfigPrefix+"waf"].(map[string]any)["policies"].(map[string]any)["requestBody"].(map[string]any)["defaultMaxBytes"] = "4096"
	if s, err := ParseSettings(lowered); err != nil || s.MaxBodyBytes != 4096 || s.DefaultBodyBytes != 4096 {
		t.Errorf("\"4096\": %d, %v", s.MaxBodyBytes, err)
	}
	for _, bad := range []any{0, MaxBodyBytesLimit + 1, "lots", -1} {
		if _, err := ParseSettings(cfg(bad)); err == nil || !strings.Contains(err.Error(), "haptic.waf.policies.requestBody.maxBytes") {
			t.Errorf("%v: error %v, want one naming the key", bad, err)
		}
	}
}

// TestCredentialBeforeAuthentication: GatewayPolicyRecord
// (44-route-policies.yaml) checks the jwt and then the apiKey secretRef —
// a name, the policy's namespace, an immutable Secret — before
// PolicyAuthentication reads either, so a credential reference the policy
// may not use is the rule's error (RefNotPermitted) even when the
// authentication has other problems: it is the policy's first Invalid,
// which the rule's status reports.
func TestCredentialBeforeAuthentication(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		// first is "CODE field" of p.Invalid[0]; resolved the
		// ResolvedRefs reason the rule gets from it.
		first, resolved string
	}{
		{"bad algorithm, mutable Secret",
			"spec:\n  authentication:\n    jwt: {algorithm: HS999, secretRef: {name: mutable-key}}",
			"GWP402 spec.authentication.jwt.secretRef.name", "RefNotPermitted"},
		{"empty claim, then an apiKey Secret in another namespace",
			"spec:\n  authentication:\n    jwt: {requiredClaims: [\" \"], secretRef: {name: jwt-key}}\n    apiKey: {secretRef: {name: api-keys, namespace: other}}",
			"GWP402 spec.authentication.apiKey.secretRef.namespace", "RefNotPermitted"},
		{"bad header, mutable Secret",
			"spec:\n  authentication:\n    apiKey: {header: \"x y\", secretRef: {name: mutable-key}}",
			"GWP402 spec.authentication.apiKey.secretRef.name", "RefNotPermitted"},
		{"jwt without a secretRef, apiKey Secret mutable",
			"spec:\n  authentication:\n    jwt: {}\n    apiKey: {secretRef: {name: mutable-key}}",
			"GWP402 spec.authentication.apiKey.secretRef.name", "RefNotPermitted"},
		{"bad algorithm, usable Secret",
			"spec:\n  authentication:\n    jwt: {algorithm: HS999, secretRef: {name: jwt-key}}",
			"GWP401 spec.authentication.jwt.algorithm", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decode(t, tc.spec)
			if len(p.Invalid) < 2 && tc.resolved != "" {
				t.Fatalf("want the reference and another problem, got %v", codes(p.Invalid))
			}
			if len(p.Invalid) == 0 {
				t.Fatal("policy is valid")
			}
			first := p.Invalid[0]
			if got := first.Code + " " + first.Field; got != tc.first {
				t.Errorf("first problem %q, want %q (all: %v)", got, tc.first, codes(p.Invalid))
			}
			if _, resolved := brokenReasons(first.Code, first.Field); resolved != tc.resolved {
				t.Errorf("ResolvedRefs reason %q, want %q", resolved, tc.resolved)
			}
		})
	}
}

// TestEmptyCacheTakesEffect: HAPTIC caches a rule whenever its policy has a
// cache section (44-route-policies.yaml: GatewayPolicyRecord runs
// PolicyCache when spec.cache is present; 48-policy-cache.yaml publishes
// the rule's cache record), an empty one too — its lifetime is then the
// origin's Cache-Control (route-policy.md@04be9778). So a policy whose
// only section is cache: {} is valid, renders the cache filter, and is
// not one that "sets no field that takes effect" (Enabler; GWP405 said so
// until hap33); other empty sections stay what they were.
func TestEmptyCacheTakesEffect(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		valid      bool
		noEffect   bool
		warnings   int
		renders    bool // the cache field renders its filter
	}{
		{"cache: {} alone", "spec:\n  cache: {}", true, false, 0, true},
		{"cache: {} beside an empty authentication", "spec:\n  authentication: {}\n  cache: {}", true, false, 1, true},
		{"cache with a lifetime", "spec:\n  cache: {ttlSeconds: 30}", true, false, 0, true},
		{"an empty rateLimit is no rate limit", "spec:\n  rateLimit: {}", false, false, 0, false},
		{"an empty authentication alone enforces nothing", "spec:\n  authentication: {}", false, false, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decode(t, tc.spec)
			if p.IsValid() != tc.valid {
				t.Fatalf("valid %v, want %v: %v", p.IsValid(), tc.valid, codes(p.Invalid))
			}
			if got := p.NoEffect(); got != tc.noEffect {
				t.Errorf("NoEffect %v, want %v", got, tc.noEffect)
			}
			warnings := 0
			for _, d := range p.Findings {
				if d.Severity == diag.Warning {
					warnings++
				}
			}
			if warnings != tc.warnings {
				t.Errorf("%d warnings, want %d: %v", warnings, tc.warnings, codes(p.Findings))
			}
			v, ok := p.Values[FieldCache]
			if ok != tc.renders {
				t.Fatalf("cache value set %v, want %v", ok, tc.renders)
			}
			if !ok {
				return
			}
			frags, err := New().RenderField(policy.FieldInput{Key: FieldCache, Values: []any{v}, Contributors: []string{p.ID()}, Scope: policy.ScopeRoute}, nil)
			if err != nil || len(frags) == 0 || frags[0].Capability != CapCache {
				t.Errorf("cache renders %v, %v; want its cache filter", frags, err)
			}
		})
	}
	if (Kind{}).Enables(FieldRateLimit, &RateLimit{}) || (Kind{}).Enables(FieldWAF, &WAF{}) {
		t.Error("only an empty cache switches its feature on")
	}
}

// TestNullIsAbsent: HAPTIC reads a policy through dig, to which a null is
// no value (49-policy-waf.yaml: `ref != nil` before a catalog is read;
// 44-route-policies.yaml: a credential's secretRef, `credential == nil`),
// and the API server prunes a null its schema does not allow: a field
// written null is absent, never an empty reference. Before hap33 gwpol
// refused `catalogRef: null` as a catalogRef without a name.
func TestNullIsAbsent(t *testing.T) {
	inline := map[string]any{"waf": map[string]any{"policies": map[string]any{"inline": map[string]any{"inline-safe": map[string]any{"requestBody": map[string]any{"mode": "none"}}}}}}
	for _, tc := range []struct {
		name, spec string
		want       []string // codes and fields of p.Invalid
	}{
		{"catalogRef null names a trusted policy", "spec:\n  waf: {policy: inline-safe, catalogRef: null}", nil},
		{"an empty catalogRef is still a catalogRef", "spec:\n  waf: {policy: inline-safe, catalogRef: {}}", []string{"GWP401 spec.waf.catalogRef.name"}},
		{"secretRef null is no secretRef, not a reference refused", "spec:\n  authentication: {apiKey: {secretRef: null}}", []string{"GWP401 spec.authentication.apiKey.secretRef.name"}},
		{"targetRefs null attaches nothing", "spec:\n  targetRefs: null\n  rateLimit: {requests: 10}", nil},
		{"targetRefs written are refused", "spec:\n  targetRefs: []\n  rateLimit: {requests: 10}", []string{"GWP401 spec.targetRefs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decodeWith(t, tc.spec, inline, "")
			if got := codes(p.Invalid); !slices.Equal(got, tc.want) {
				t.Errorf("invalid %q, want %q", got, tc.want)
			}
		})
	}
}
