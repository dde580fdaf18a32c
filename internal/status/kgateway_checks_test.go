package status_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/secret/secrettest"
	"github.com/gwpol/gwpol/internal/status"
)

// extension is a GatewayExtension in infra of the given type, whose
// service is the Service svc (port 80) unless backend names another.
func extension(name, typ, backend string) string {
	field := map[string]string{"ExtAuth": "extAuth", "ExtProc": "extProc", "RateLimit": "rateLimit"}[typ]
	svc := "grpcService: {backendRef: {name: " + backend + ", port: 80}}"
	if typ == "RateLimit" {
		svc = "grpcService: {backendRef: {name: " + backend + ", port: 80}}, domain: d"
	}
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  type: " + typ + "\n  " + field + ": {" + svc + "}\n"
}

// extensionRef is an ExtAuth GatewayExtension in infra whose gRPC
// service's backendRef is the given flow mapping.
func extensionRef(name, backendRef string) string {
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  type: ExtAuth\n  extAuth: {grpcService: {backendRef: " + backendRef + "}}\n"
}

// oauth2Extension is an OAuth2 GatewayExtension infra/oidc whose provider
// calls Service svc, with its client Secret and the other fields given
// (indented by four spaces).
func oauth2Extension(clientSecret, fields string) string {
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: oidc, namespace: infra}\nspec:\n  type: OAuth2\n  oauth2:\n" +
		"    backendRef: {name: svc, port: 80}\n    tokenEndpoint: https://idp.example.com/token\n    authorizationEndpoint: https://idp.example.com/authorize\n" +
		"    credentials: {clientID: app, clientSecretRef: {name: " + clientSecret + "}}\n" + fields
}

// staticBackend is a static kgateway Backend in infra.
func staticBackend(name string) string {
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  type: Static\n  static: {hosts: [{host: authz.internal, port: 9000}]}\n"
}

// secret is a Secret in infra holding the given data keys.
func secret(name string, keys ...string) string {
	data := ""
	for _, k := range keys {
		data += "  " + k + ": eA==\n"
	}
	if data == "" {
		return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: infra}\n"
	}
	return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: infra}\ndata:\n" + data
}

// jwtExtension is a JWT GatewayExtension infra/jwt with one provider p1
// whose remaining fields (indented by two spaces under it) are given.
func jwtExtension(provider string) string {
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: jwt, namespace: infra}\nspec:\n  jwt:\n    providers:\n    - name: p1\n      issuer: https://issuer.example.com\n" +
		"    " + strings.ReplaceAll(strings.TrimSuffix(provider, "\n"), "\n", "\n    ") + "\n"
}

// secretData is a Secret in infra holding key with the given text as its
// value (written as stringData).
func secretData(name, key, value string) string {
	return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: infra}\nstringData:\n  " + key + ": " + strconv.Quote(value) + "\n"
}

// TestKgatewayChecks: the checks kgateway's translator makes on its
// policies, one subtest each, as docs/controllers/kgateway-checks.md lists
// them (the inventory names each subtest). A case compiles the policies
// with the base Gateway and routes and states the policy's Accepted
// condition on its ancestor, and a part of the message where kgateway's
// wording matters.
func TestKgatewayChecks(t *testing.T) {
	tp := func(name, fields string) string { return policyDoc(name, "r2", "", fields, 1) }
	cert, key := secrettest.KeyPair()
	pubPEM := secrettest.PublicKeyPEM()
	_, otherKey := secrettest.KeyPair()
	tests := []struct {
		name, docs string
		mode       string // kgateway's referenceGrantMode; its default when empty
		validation string // kgateway's validationMode; its default when empty
		policy     string
		want       string // Accepted status/reason
		message    string // part of its message
	}{
		// TrafficPolicy: what ConstructIR and validateWithValidationLevel check.
		{name: "valid policy accepted", docs: tp("p", "  timeouts: {request: 5s}\n"), policy: "p", want: "True/Valid", message: "Policy accepted"},
		{name: "policy-weight not an int32", docs: strings.Replace(tp("p", "  timeouts: {request: 5s}\n"), "namespace: infra,", "namespace: infra, annotations: {kgateway.dev/policy-weight: heavy},", 1),
			policy: "p", want: "False/Invalid", message: "kgateway.dev/policy-weight"},
		{name: "target not found", docs: policyDoc("p", "nope", "", "  timeouts: {request: 5s}\n", 1), policy: "p", want: "False/TargetNotFound"},
		{name: "extAuth extension not found", docs: tp("p", "  extAuth: {extensionRef: {name: nope}}\n"), policy: "p", want: "False/Invalid", message: "GatewayExtension infra/nope not found"},
		{name: "extAuth extension of another type", docs: extension("ep", "ExtProc", "svc") + tp("p", "  extAuth: {extensionRef: {name: ep}}\n"), policy: "p", want: "False/Invalid", message: "does not configure extAuth"},
		{name: "extAuth extension backend missing", docs: extension("ea", "ExtAuth", "gone") + tp("p", "  extAuth: {extensionRef: {name: ea}}\n"), policy: "p", want: "False/Invalid", message: "backend Service infra/gone not found"},
		{name: "extAuth extension backend Service without the port", docs: extensionRef("ea", "{name: svc, port: 81}") + tp("p", "  extAuth: {extensionRef: {name: ea}}\n"), policy: "p", want: "False/Invalid", message: "backend Service infra/svc has no port 81"},
		{name: "extAuth extension backend Backend not found", docs: extensionRef("ea", "{group: gateway.kgateway.dev, kind: Backend, name: gone}") + tp("p", "  extAuth: {extensionRef: {name: ea}}\n"), policy: "p", want: "False/Invalid", message: "backend Backend infra/gone not found"},
		{name: "extAuth extension backend Backend resolves", docs: extensionRef("ea", "{group: gateway.kgateway.dev, kind: Backend, name: authz}") + staticBackend("authz") + tp("p", "  extAuth: {extensionRef: {name: ea}}\n"), policy: "p", want: "True/Valid"},
		{name: "extAuth extension resolves", docs: extension("ea", "ExtAuth", "svc") + tp("p", "  extAuth: {extensionRef: {name: ea}}\n"), policy: "p", want: "True/Valid"},
		{name: "extension in another namespace without ReferenceGrant (Strict)", mode: "Strict",
			docs:   strings.Replace(extension("ea", "ExtAuth", "svc"), "namespace: infra", "namespace: other", 1) + tp("p", "  extAuth: {extensionRef: {name: ea, namespace: other}}\n"),
			policy: "p", want: "False/Invalid", message: "missing reference grant"},
		{name: "extProc extension not found", docs: tp("p", "  extProc: {extensionRef: {name: nope}}\n"), policy: "p", want: "False/Invalid", message: "not found"},
		{name: "global rate limit extension not found", docs: tp("p", "  rateLimit: {global: {extensionRef: {name: nope}, descriptors: [{entries: [{type: RemoteAddress}]}]}}\n"), policy: "p", want: "False/Invalid", message: "not found"},
		{name: "extAuth statusOnError Envoy does not define", docs: strings.Replace(extension("ea", "ExtAuth", "svc"), "extAuth: {", "extAuth: {statusOnError: 420, ", 1) + tp("p", "  extAuth: {extensionRef: {name: ea}}\n"),
			policy: "p", want: "False/Invalid", message: "invalid ExtAuthz.StatusOnError: embedded message failed validation | caused by: invalid HttpStatus.Code: value must be one of the defined enum values"},
		{name: "global rate limit extension with an empty domain", docs: strings.Replace(extension("rl", "RateLimit", "svc"), "domain: d", `domain: ""`, 1) + tp("p", "  rateLimit: {global: {extensionRef: {name: rl}, descriptors: [{entries: [{type: RemoteAddress}]}]}}\n"),
			policy: "p", want: "False/Invalid", message: "invalid RateLimit.Domain: value length must be at least 1 runes"},
		{name: "global rate limit extension with a domain", docs: extension("rl", "RateLimit", "svc") + tp("p", "  rateLimit: {global: {extensionRef: {name: rl}, descriptors: [{entries: [{type: RemoteAddress}]}]}}\n"),
			policy: "p", want: "True/Valid"},
		{name: "extAuth authorization request header with an empty name", docs: "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: ea, namespace: infra}\nspec:\n  type: ExtAuth\n  extAuth: {httpService: {backendRef: {name: svc, port: 80}, authorizationRequest: {headersToAdd: {\"\": v, x-ok: v}}}}\n" + tp("p", "  extAuth: {extensionRef: {name: ea}}\n"),
			policy: "p", want: "False/Invalid", message: "invalid HeaderValue.Key: value length must be at least 1 runes"},
		{name: "extAuth authorization request headers with names", docs: "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: ea, namespace: infra}\nspec:\n  type: ExtAuth\n  extAuth: {httpService: {backendRef: {name: svc, port: 80}, authorizationRequest: {headersToAdd: {x-ok: v}}}}\n" + tp("p", "  extAuth: {extensionRef: {name: ea}}\n"),
			policy: "p", want: "True/Valid"},
		{name: "extAuth statusOnError Envoy defines", docs: strings.Replace(extension("ea", "ExtAuth", "svc"), "extAuth: {", "extAuth: {statusOnError: 503, ", 1) + tp("p", "  extAuth: {extensionRef: {name: ea}}\n"),
			policy: "p", want: "True/Valid"},
		{name: "oauth2 client Secret not found", docs: oauth2Extension("gone", "") + tp("p", "  oauth2: {extensionRef: {name: oidc}}\n"), policy: "p", want: "False/Invalid",
			message: "extauth: error building OAuth2 config: Secret infra/gone not found"},
		{name: "oauth2 client Secret without client-secret", docs: secret("client", "clientSecret") + oauth2Extension("client", "") + tp("p", "  oauth2: {extensionRef: {name: oidc}}\n"), policy: "p", want: "False/Invalid",
			message: "client-secret not found or empty in secret infra/client referenced by GatewayExtension infra/oidc"},
		{name: "oauth2 client Secret with an empty client-secret", docs: secretData("client", "client-secret", "") + oauth2Extension("client", "") + tp("p", "  oauth2: {extensionRef: {name: oidc}}\n"), policy: "p", want: "False/Invalid",
			message: "client-secret not found or empty"},
		{name: "oauth2 client Secret with metadata only is not read", docs: secret("client") + oauth2Extension("client", "") + tp("p", "  oauth2: {extensionRef: {name: oidc}}\n"), policy: "p", want: "True/Valid"},
		{name: "oauth2 redirectURI without a path", docs: secret("client", "client-secret") + oauth2Extension("client", "    redirectURI: https://app.example.com\n") + tp("p", "  oauth2: {extensionRef: {name: oidc}}\n"), policy: "p", want: "False/Invalid",
			message: "invalid redirectURI: invalid redirect URI: https://app.example.com; missing path"},
		{name: "oauth2 redirectURI without a scheme", docs: secret("client", "client-secret") + oauth2Extension("client", "    redirectURI: app.example.com/callback\n") + tp("p", "  oauth2: {extensionRef: {name: oidc}}\n"), policy: "p", want: "False/Invalid",
			message: "missing scheme"},
		{name: "oauth2 provider that builds", docs: secret("client", "client-secret") + oauth2Extension("client", "    redirectURI: https://app.example.com/callback\n") + tp("p", "  oauth2: {extensionRef: {name: oidc}}\n"), policy: "p", want: "True/Valid"},
		{name: "jwtAuth extension not found", docs: tp("p", "  jwtAuth: {extensionRef: {name: nope}}\n"), policy: "p", want: "False/Invalid", message: "not found"},
		{name: "local rate limit without a token bucket", docs: tp("p", "  rateLimit: {local: {percentEnabled: 50}}\n"), policy: "p", want: "False/Invalid", message: "TokenBucket"},
		{name: "local rate limit empty: it switches rate limiting off", docs: tp("p", "  rateLimit: {local: {}}\n"), policy: "p", want: "True/Valid"},
		{name: "local rate limit maxTokens below 1", docs: tp("p", "  rateLimit: {local: {tokenBucket: {maxTokens: 0, fillInterval: 1s}}}\n"), policy: "p", want: "False/Invalid", message: "maxTokens"},
		{name: "local rate limit fillInterval not a duration", docs: tp("p", "  rateLimit: {local: {tokenBucket: {maxTokens: 1, fillInterval: soon}}}\n"), policy: "p", want: "False/Invalid", message: "not a duration"},
		{name: "timeout not a duration", docs: tp("p", "  timeouts: {request: soon}\n"), policy: "p", want: "False/Invalid", message: "not a duration"},
		{name: "retry perTryTimeout not a duration", docs: tp("p", "  retry: {attempts: 2, perTryTimeout: soon}\n"), policy: "p", want: "False/Invalid", message: "not a duration"},
		{name: "basicAuth Secret not found", docs: tp("p", "  basicAuth: {secretRef: {name: nope}}\n"), policy: "p", want: "False/Invalid", message: "Secret infra/nope not found"},
		{name: "basicAuth Secret without the .htpasswd key", docs: secret("users", "other") + tp("p", "  basicAuth: {secretRef: {name: users}}\n"), policy: "p", want: "False/Invalid", message: "does not contain key '.htpasswd'"},
		{name: "basicAuth Secret without the named key", docs: secret("users", ".htpasswd") + tp("p", "  basicAuth: {secretRef: {name: users, key: team}}\n"), policy: "p", want: "False/Invalid", message: "does not contain key 'team'"},
		{name: "basicAuth Secret with the key", docs: secretData("users", ".htpasswd", "alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\n") + tp("p", "  basicAuth: {secretRef: {name: users}}\n"), policy: "p", want: "True/Valid"},
		{name: "basicAuth Secret user not SHA", docs: secretData("users", ".htpasswd", "# team\nalice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\nbob:$apr1$x$y\n") + tp("p", "  basicAuth: {secretRef: {name: users}}\n"),
			policy: "p", want: "False/Invalid", message: "dropped 1 user(s), invalid hash format (only {SHA} is supported), malformed entry, or a username listed twice with different hashes: [line 3]"},
		{name: "basicAuth Secret user twice with different hashes", docs: secretData("users", "team", "alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\nalice:{SHA}NkvfLtd6hUTTtxGgO2nurcxjydc=") + tp("p", "  basicAuth: {secretRef: {name: users, key: team}}\n"),
			policy: "p", want: "False/Invalid", message: "[line 2] (lines of key 'team' in secret infra/users)"},
		{name: "basicAuth Secret key empty", docs: secretData("users", ".htpasswd", "") + tp("p", "  basicAuth: {secretRef: {name: users}}\n"), policy: "p", want: "False/Invalid", message: "basic auth: secret infra/users key '.htpasswd' is empty"},
		{name: "basicAuth Secret with comments only", docs: secretData("users", ".htpasswd", "# nobody yet\n") + tp("p", "  basicAuth: {secretRef: {name: users}}\n"), policy: "p", want: "False/Invalid", message: "no valid users with {SHA} hash format found"},
		{name: "basicAuth inline user not SHA", docs: tp("p", "  basicAuth: {users: [\"alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\", \"bob:$apr1$x$y\"]}\n"), policy: "p", want: "False/Invalid", message: "dropped 1 user(s)"},
		{name: "basicAuth inline entry without colon", docs: tp("p", "  basicAuth: {users: [\"alice\"]}\n"), policy: "p", want: "False/Invalid", message: "[line 1]"},
		{name: "basicAuth inline user twice with different hashes", docs: tp("p", "  basicAuth: {users: [\"alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\", \"alice:{SHA}NkvfLtd6hUTTtxGgO2nurcxjydc=\"]}\n"),
			policy: "p", want: "False/Invalid", message: "[alice]"},
		{name: "basicAuth inline users valid", docs: tp("p", "  basicAuth: {users: [\"alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\", \"alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\"]}\n"), policy: "p", want: "True/Valid"},
		{name: "apiKeyAuth Secret not found", docs: tp("p", "  apiKeyAuth: {secretRef: {name: nope}}\n"), policy: "p", want: "False/Invalid", message: "not found"},
		{name: "apiKeyAuth selector matches no Secret", docs: tp("p", "  apiKeyAuth: {secretSelector: {matchLabels: {team: none}}}\n"), policy: "p", want: "False/Invalid", message: "no Secret matches"},
		{name: "apiKeyAuth Secret with every value empty", docs: secretData("keys", "alice", "") + tp("p", "  apiKeyAuth: {secretRef: {name: keys}}\n"), policy: "p", want: "False/Invalid", message: "no valid API keys found in secrets"},
		{name: "apiKeyAuth one key shared by two clients", docs: "---\n" + secrettest.SecretYAML("infra", "keys", "alice", "GWPOL-MARKER-1", "bob", "GWPOL-MARKER-1") + tp("p", "  apiKeyAuth: {secretRef: {name: keys}}\n"),
			policy: "p", want: "False/Invalid", message: `errors processing API key secrets: duplicate API key value shared by client "alice" in secret infra/keys and client "bob" in secret infra/keys`},
		{name: "apiKeyAuth the same client and key in two selected Secrets", docs: "---\n" + strings.Replace(secrettest.SecretYAML("infra", "keys-a", "alice", "GWPOL-MARKER-1"), "namespace: infra}", "namespace: infra, labels: {team: a}}", 1) +
			"---\n" + strings.Replace(secrettest.SecretYAML("infra", "keys-b", "alice", "GWPOL-MARKER-1", "bob", "GWPOL-MARKER-2"), "namespace: infra}", "namespace: infra, labels: {team: a}}", 1) +
			tp("p", "  apiKeyAuth: {secretSelector: {matchLabels: {team: a}}}\n"), policy: "p", want: "True/Valid"},
		{name: "apiKeyAuth distinct keys", docs: "---\n" + secrettest.SecretYAML("infra", "keys", "alice", "GWPOL-MARKER-1", "bob", "GWPOL-MARKER-2") + tp("p", "  apiKeyAuth: {secretRef: {name: keys}}\n"), policy: "p", want: "True/Valid"},
		{name: "jwt inline key set does not parse", docs: jwtExtension("  jwks: {local: {inline: \"not a key\"}}\n") + tp("p", "  jwtAuth: {extensionRef: {name: jwt}}\n"),
			policy: "p", want: "False/Invalid", message: "jwt: GatewayExtension infra/jwt provider p1: cannot parse local jwks"},
		{name: "jwt inline JWKS with an unknown key type", docs: jwtExtension("  jwks: {local: {inline: '{\"keys\":[{\"kty\":\"XX\"}]}'}}\n") + tp("p", "  jwtAuth: {extensionRef: {name: jwt}}\n"),
			policy: "p", want: "False/Invalid", message: "cannot parse local jwks"},
		{name: "jwt inline PEM public key", docs: jwtExtension("  jwks: {local: {inline: "+strconv.Quote(pubPEM)+"}}\n") + tp("p", "  jwtAuth: {extensionRef: {name: jwt}}\n"), policy: "p", want: "True/Valid"},
		{name: "jwt inline JWKS", docs: jwtExtension("  jwks: {local: {inline: '{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}'}}\n") + tp("p", "  jwtAuth: {extensionRef: {name: jwt}}\n"), policy: "p", want: "True/Valid"},
		{name: "jwt key set ConfigMap not found", docs: jwtExtension("  jwks: {local: {configMapRef: {name: keys}}}\n") + tp("p", "  jwtAuth: {extensionRef: {name: jwt}}\n"),
			policy: "p", want: "False/Invalid", message: "failed to find configmap keys"},
		{name: "jwt key set ConfigMap without the jwks key", docs: jwtExtension("  jwks: {local: {configMapRef: {name: keys}}}\n") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: keys, namespace: infra}\ndata: {other: x}\n" + tp("p", "  jwtAuth: {extensionRef: {name: jwt}}\n"),
			policy: "p", want: "False/Invalid", message: "configmap key 'jwks' not found"},
		{name: "jwt key set ConfigMap with a key set", docs: jwtExtension("  jwks: {local: {configMapRef: {name: keys}}}\n") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: keys, namespace: infra}\ndata: {jwks: " + strconv.Quote(pubPEM) + "}\n" + tp("p", "  jwtAuth: {extensionRef: {name: jwt}}\n"),
			policy: "p", want: "True/Valid"},
		{name: "header from a Secret not found", docs: tp("p", "  headerModifiers: {request: {set: [{name: x-key, secretRef: {name: nope}}]}}\n"), policy: "p", want: "False/Invalid", message: "not found"},
		{name: "header from a Secret without the key", docs: secret("creds", "other") + tp("p", "  headerModifiers: {request: {set: [{name: x-key, secretRef: {name: creds}}]}}\n"),
			policy: "p", want: "False/Invalid", message: `request: failed to resolve header 'x-key': secret infra/creds does not contain key "x-key"`},
		{name: "header from a Secret's named key", docs: secret("creds", "token") + tp("p", "  headerModifiers: {response: {add: [{name: x-key, secretRef: {name: creds, key: token}}]}}\n"), policy: "p", want: "True/Valid"},
		{name: "header from a Secret written with metadata only is not read", docs: secret("creds") + tp("p", "  headerModifiers: {request: {set: [{name: x-key, secretRef: {name: creds}}]}}\n"), policy: "p", want: "True/Valid"},
		{name: "headers from every key of a Secret", docs: secret("creds") + tp("p", "  headerModifiers: {request: {set: [{secretRef: {name: creds}}]}}\n"), policy: "p", want: "True/Valid"},
		{name: "rbac CEL expression does not compile", docs: tp("p", "  rbac: {policy: {matchExpressions: [\"request.headers['x'] ==\"]}}\n"), policy: "p", want: "False/Invalid", message: "RBAC policy encountered CEL matcher errors"},
		{name: "rbac CEL expression compiles", docs: tp("p", "  rbac: {policy: {matchExpressions: [\"request.headers['x'] == 'y'\"]}}\n"), policy: "p", want: "True/Valid"},
		{name: "acl CIDR with host bits", docs: tp("p", "  acl: {defaultAction: Deny, rules: [{cidrs: [10.0.0.0/8, 172.18.0.0/12], action: Allow}]}\n"), policy: "p", want: "False/Invalid",
			message: `acl: invalid CIDR(s): "172.18.0.0/12" (host bits set; did you mean "172.16.0.0/12"?)`},
		{name: "acl network CIDRs and bare IPs", docs: tp("p", "  acl: {defaultAction: Deny, rules: [{cidrs: [10.0.0.0/8, 192.168.1.7, \"2001:db8::/32\"], action: Allow}]}\n"), policy: "p", want: "True/Valid"},
		{name: "urlRewrite pathRegex not RE2", docs: tp("p", "  urlRewrite: {pathRegex: {pattern: \"(\", substitution: x}}\n"), policy: "p", want: "False/Invalid", message: "not an RE2"},
		{name: "Strict: transformation template malformed", validation: "Strict", docs: tp("p", "  transformation: {request: {set: [{name: x, value: \"{{ a\"}]}}\n"), policy: "p", want: "False/Invalid", message: "invalid xds configuration"},
		{name: "Standard: transformation template not validated", docs: tp("p", "  transformation: {request: {set: [{name: x, value: \"{{ a\"}]}}\n"), policy: "p", want: "True/Valid"},
		{name: "Strict: csrf regex does not compile", validation: "Strict", docs: tp("p", "  csrf: {percentageEnabled: 100, additionalOrigins: [{safeRegex: \"(\"}]}\n"), policy: "p", want: "False/Invalid", message: "invalid xds configuration"},

		// BackendConfigPolicy (backendconfigpolicy/plugin.go: translate).
		{name: "backendconfigpolicy connectTimeout not a duration", docs: bcpDoc("b", "svc", "", "  connectTimeout: soon\n", 1), policy: "b", want: "False/Invalid"},
		{name: "backendconfigpolicy valid", docs: bcpDoc("b", "svc", "", "  connectTimeout: 5s\n", 1), policy: "b", want: "True/Valid"},
		{name: "backendconfigpolicy tls Secret not found", docs: bcpDoc("b", "svc", "", "  tls: {secretRef: {name: nope}}\n", 1), policy: "b", want: "False/Invalid", message: "failed to extract TLS data: Secret infra/nope not found"},
		{name: "backendconfigpolicy tls Secret with a client certificate", docs: "---\n" + secrettest.SecretYAML("infra", "client", "tls.crt", cert, "tls.key", key, "ca.crt", cert) +
			bcpDoc("b", "svc", "", "  tls: {secretRef: {name: client}, verifySubjectAltNames: [example.com]}\n", 1), policy: "b", want: "True/Valid"},
		{name: "backendconfigpolicy tls Secret key does not match", docs: "---\n" + secrettest.SecretYAML("infra", "client", "tls.crt", cert, "tls.key", otherKey) +
			bcpDoc("b", "svc", "", "  tls: {secretRef: {name: client}}\n", 1), policy: "b", want: "False/Invalid", message: "invalid certificate and key pair: tls: private key does not match public key"},
		{name: "backendconfigpolicy tls Secret certificate without key", docs: "---\n" + secrettest.SecretYAML("infra", "client", "tls.crt", cert) +
			bcpDoc("b", "svc", "", "  tls: {secretRef: {name: client}}\n", 1), policy: "b", want: "False/Invalid", message: "both certChain and privateKey must be provided"},
		{name: "backendconfigpolicy tls simpleTLS does not read the client certificate", docs: "---\n" + secrettest.SecretYAML("infra", "client", "tls.crt", cert, "ca.crt", cert) +
			bcpDoc("b", "svc", "", "  tls: {secretRef: {name: client}, simpleTLS: true}\n", 1), policy: "b", want: "True/Valid"},
		{name: "backendconfigpolicy tls Secret ca.crt not a certificate", docs: "---\n" + secrettest.SecretYAML("infra", "client", "ca.crt", "GWPOL-MARKER") +
			bcpDoc("b", "svc", "", "  tls: {secretRef: {name: client}}\n", 1), policy: "b", want: "False/Invalid", message: "invalid ca.crt in Secret infra/client: data does not contain any valid RSA or ECDSA certificates"},
		{name: "backendconfigpolicy tls subject alt names without a CA", docs: "---\n" + secrettest.SecretYAML("infra", "client", "tls.crt", cert, "tls.key", key) +
			bcpDoc("b", "svc", "", "  tls: {secretRef: {name: client}, verifySubjectAltNames: [example.com]}\n", 1), policy: "b", want: "False/Invalid", message: "a root_ca must be provided if verify_subject_alt_name is not empty"},
		{name: "backendconfigpolicy tls subject alt names with the system CA", docs: bcpDoc("b", "svc", "", "  tls: {wellKnownCACertificates: System, verifySubjectAltNames: [example.com]}\n", 1), policy: "b", want: "True/Valid"},
		{name: "backendconfigpolicy tls insecureSkipVerify reads no Secret", docs: bcpDoc("b", "svc", "", "  tls: {secretRef: {name: nope}, insecureSkipVerify: true}\n", 1), policy: "b", want: "True/Valid"},
		{name: "backendconfigpolicy tls Secret with metadata only is not read", docs: secret("client") + bcpDoc("b", "svc", "", "  tls: {secretRef: {name: client}, verifySubjectAltNames: [example.com]}\n", 1), policy: "b", want: "True/Valid"},
		{name: "backendconfigpolicy port name not on the Service", docs: bcpDoc("b", "svc", "grpc", "  connectTimeout: 5s\n", 1), policy: "b", want: "False/TargetNotFound"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &pipeline.Config{Namespace: "default"}
			if tt.mode != "" {
				cfg.WithSetting("referenceGrantMode", tt.mode)
			}
			if tt.validation != "" {
				cfg.WithSetting("validationMode", tt.validation)
			}
			objs, err := manifest.Parse("test.yaml", []byte(base+tt.docs), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, cfg)
			rep := status.Compute(c.Result, status.Options{})
			found := false
			for _, p := range rep.Policies {
				if p.Name != tt.policy {
					continue
				}
				for _, a := range p.Ancestors {
					found = true
					for _, c := range a.Conditions {
						if c.Type != "Accepted" {
							continue
						}
						if got := c.Status + "/" + c.Reason; got != tt.want {
							t.Errorf("%s @ %s: Accepted = %s (%q), want %s", p.Name, a.AncestorRef.String(), got, c.Message, tt.want)
						}
						if !strings.Contains(c.Message, tt.message) {
							t.Errorf("%s @ %s: Accepted message %q does not say %q", p.Name, a.AncestorRef.String(), c.Message, tt.message)
						}
					}
				}
			}
			if !found {
				t.Fatalf("no status for policy %s", tt.policy)
			}
		})
	}
}
