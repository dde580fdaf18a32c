package envoygateway

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestSecurityPolicyChecks has one subtest per check of Envoy Gateway's
// SecurityPolicy translation (validateSecurityPolicy and the builders of
// translateSecurityPolicyForRoute / …ForListeners) that gwpol makes when
// it decodes the policy; docs/controllers/envoygateway-checks.md names
// them. Policies target a route unless the spec says otherwise.
func TestSecurityPolicyChecks(t *testing.T) {
	const route = "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n"
	const gateway = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n"
	const tcp = "  targetRefs: [{group: gateway.networking.k8s.io, kind: TCPRoute, name: db}]\n"
	const sha = "YWxpY2U6e1NIQX1xdlRHSGR6RjZLTGF2dDRQTzBnczJhNnBRMDA9" // base64 of alice:{SHA}qvTGHdzF6KLavt4PO0gs2a6pQ00=
	secret := func(name, data string) string {
		return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: default}\ndata: " + data + "\n"
	}
	others := secret("users", "{.htpasswd: "+sha+"}") + secret("plain", "{.htpasswd: YWxpY2U6c2VjcmV0}") + secret("empty", "{other: eA==}") +
		secret("keys", "{alice: azE=, bob: azI=}") + secret("dup", "{carol: azE=}") + secret("client", "{client-id: aWQ=, client-secret: cw==}") +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ctx, namespace: default}\ndata: {tenant: a}\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: nojwks, namespace: default}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: auth, namespace: default}\nspec: {ports: [{port: 80}]}\n"
	const oidc = "  oidc: {provider: {issuer: 'https://idp.example.com', authorizationEndpoint: 'https://idp.example.com/auth', tokenEndpoint: 'https://idp.example.com/token'}, clientID: app, clientSecret: {name: client}"
	const jwtHeader = "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks'}, extractFrom: {headers: [{name: X-Token}]}}]}\n"
	const extAuth = "  extAuth: {http: {backendRefs: [{name: auth, port: 80}]}"
	runChecks(t, SecurityPolicy(), []checkCase{
		// validateSecurityPolicy (routes only)
		{name: "validate.apiKeyAuth-one-source", spec: route + "  apiKeyAuth: {credentialRefs: [{name: keys}], extractFrom: [{headers: [x], params: [y]}]}\n", others: others,
			want: []string{"Invalid SecurityPolicy: only one of headers, params or cookies must be specified."}},
		{name: "validate.not-on-gateway", spec: gateway + "  apiKeyAuth: {credentialRefs: [{name: keys}], extractFrom: [{headers: [x], params: [y]}]}\n", others: others},
		{name: "validate.passThrough-needs-jwt", spec: route + oidc + ", passThroughAuthHeader: true}\n", others: others,
			want: []string{"Invalid SecurityPolicy: the OIDC.PassThroughAuthHeader setting must be used in conjunction with JWT settings."}},
		{name: "validate.passThrough-needs-header-provider", spec: route + oidc + ", passThroughAuthHeader: true}\n" +
			"  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks'}, extractFrom: {cookies: [c]}}]}\n", others: others,
			want: []string{"Invalid SecurityPolicy: the OIDC.PassThroughAuthHeader setting must be used in conjunction with a JWT provider that is configured to read from a header."}},
		{name: "validate.forwardIDToken-authorization", spec: route + oidc + ", passThroughAuthHeader: true, forwardIDToken: {header: authorization}}\n" +
			"  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks'}}]}\n", others: others,
			want: []string{"Invalid SecurityPolicy: the OIDC.ForwardIDToken header \"authorization\" cannot be the Authorization header when passThroughAuthHeader is enabled and a JWT provider reads from it."}},
		{name: "validate.forwardIDToken-extractFrom", spec: route + oidc + ", passThroughAuthHeader: true, forwardIDToken: {header: x-token}}\n" + jwtHeader, others: others,
			want: []string{"Invalid SecurityPolicy: the OIDC.ForwardIDToken header \"x-token\" cannot be the same as a JWT provider extractFrom header when passThroughAuthHeader is enabled."}},
		{name: "validate.passThrough-valid", spec: route + oidc + ", passThroughAuthHeader: true, forwardIDToken: {header: x-id}}\n" + jwtHeader, others: others},
		{name: "validate.only-error", spec: route + "  apiKeyAuth: {credentialRefs: [{name: missing}], extractFrom: [{headers: [x], cookies: [y]}]}\n" + extAuth + "}\n  basicAuth: {users: {name: missing}}\n",
			others: others, want: []string{"Invalid SecurityPolicy: only one of headers, params or cookies must be specified."}},

		// validateSecurityPolicyForTCP (TCPRoute targets)
		{name: "tcp.authorization-only", spec: tcp + "  basicAuth: {users: {name: users}}\n", others: others,
			want: []string{"Invalid SecurityPolicy for TCP route: only authorization is supported for TCP (routes/listeners)."}},
		{name: "tcp.cel", spec: tcp + "  authorization: {rules: [{action: Allow, cel: 'true'}]}\n",
			want: []string{"Invalid SecurityPolicy for TCP route: rule 0: CEL not supported for TCP."}},
		{name: "tcp.headers", spec: tcp + "  authorization: {rules: [{action: Allow, principal: {clientCIDRs: [10.0.0.0/8]}}, {action: Deny, principal: {headers: [{name: x, values: [y]}]}}]}\n",
			want: []string{"Invalid SecurityPolicy for TCP route: rule 1: headers not supported for TCP."}},
		{name: "tcp.jwt", spec: tcp + "  authorization: {rules: [{action: Allow, principal: {jwt: {provider: p, scopes: [a]}}}]}\n",
			want: []string{"Invalid SecurityPolicy for TCP route: rule 0: JWT not supported for TCP."}},
		{name: "tcp.clientIPGeoLocations", spec: tcp + "  authorization: {rules: [{action: Allow, principal: {clientIPGeoLocations: [{country: US}]}}]}\n",
			want: []string{"Invalid SecurityPolicy for TCP route: rule 0: clientIPGeoLocations not supported for TCP."}},
		{name: "tcp.clientCIDR", spec: tcp + "  authorization: {rules: [{action: Allow, principal: {clientCIDRs: [10.0.0.0/33]}}]}\n",
			want: []string{"Invalid SecurityPolicy for TCP route: rule 0: invalid ClientCIDR \"10.0.0.0/33\": invalid CIDR address: 10.0.0.0/33."}},
		{name: "tcp.valid", spec: tcp + "  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientCIDRs: [10.0.0.0/8]}}]}\n"},

		// basic auth (buildBasicAuth)
		{name: "basicAuth.secret-missing", spec: route + "  basicAuth: {users: {name: nope}}\n", others: others,
			want: []string{"BasicAuth: secret default/nope does not exist."}},
		{name: "basicAuth.secret-group", spec: route + "  basicAuth: {users: {group: example.com, name: users}}\n", others: others,
			want: []string{"BasicAuth: secret ref group must be unspecified/empty."}},
		{name: "basicAuth.secret-kind", spec: route + "  basicAuth: {users: {kind: Service, name: users}}\n", others: others,
			want: []string{"BasicAuth: secret ref kind must be Secret."}},
		{name: "basicAuth.secret-grant", spec: route + "  basicAuth: {users: {name: users, namespace: other}}\n", others: others,
			want: []string{"BasicAuth: ref to Secret other/users not permitted by any ReferenceGrant."}},
		{name: "basicAuth.htpasswd-key", spec: route + "  basicAuth: {users: {name: empty}}\n", others: others,
			want: []string{"BasicAuth: secret default/empty must contain a non-empty \".htpasswd\" key."}},
		{name: "basicAuth.htpasswd-sha", spec: route + "  basicAuth: {users: {name: plain}}\n", others: others,
			want: []string{"BasicAuth: unsupported htpasswd format: please use {SHA}."}},
		{name: "basicAuth.valid", spec: route + "  basicAuth: {users: {name: users}}\n", others: others},

		// API key auth (buildAPIKeyAuth)
		{name: "apiKeyAuth.secret-missing", spec: route + "  apiKeyAuth: {credentialRefs: [{name: keys}, {name: nope}], extractFrom: [{headers: [x]}]}\n", others: others,
			want: []string{"APIKeyAuth: secret default/nope does not exist."}},
		{name: "apiKeyAuth.duplicated-key", spec: route + "  apiKeyAuth: {credentialRefs: [{name: keys}, {name: dup}], extractFrom: [{headers: [x]}]}\n", others: others,
			want: []string{"APIKeyAuth: duplicated API key."}},
		{name: "apiKeyAuth.same-client-skipped", spec: route + "  apiKeyAuth: {credentialRefs: [{name: keys}, {name: keys}], extractFrom: [{headers: [x]}]}\n", others: others},

		// authorization (buildAuthorization)
		{name: "authorization.clientCIDR", spec: route + "  authorization: {rules: [{action: Allow, principal: {clientCIDRs: [10.0.0.0/40]}}]}\n",
			want: []string{"Authorization: unable to translate authorization rule: invalid CIDR address: 10.0.0.0/40."}},
		{name: "authorization.path-type", spec: route + "  authorization: {rules: [{action: Allow, operation: {path: {type: Bogus, value: /}}}]}\n",
			want: []string{"Authorization: unable to translate authorization rule: invalid path type."}},
		{name: "authorization.path-regex", spec: route + "  authorization: {rules: [{action: Allow, operation: {path: {type: RegularExpression, value: '('}}}]}\n",
			want: []string{"Authorization: unable to translate authorization rule: regex \"(\" is invalid: error parsing regexp: missing closing ): `(`."}},
		{name: "authorization.cel", spec: route + "  authorization: {rules: [{action: Allow, cel: 'request.path =='}]}\n",
			want: []string{"Authorization: invalid CEL expression: request.path ==."}},
		{name: "authorization.valid", spec: route + "  authorization: {rules: [{action: Allow, cel: 'request.path == \"/\"', principal: {clientCIDRs: [10.0.0.0/8]}, operation: {path: {type: Exact, value: /a}}}]}\n"},

		// ext auth (buildExtAuth; backends: validateReferences)
		{name: "extAuth.one-of", spec: route + "  extAuth: {failOpen: true}\n",
			want: []string{"ExtAuth: one of grpc or http must be specified."}},
		{name: "extAuth.only-one", spec: route + "  extAuth: {http: {backendRefs: [{name: auth, port: 80}]}, grpc: {backendRefs: [{name: auth, port: 80}]}}\n", others: others,
			want: []string{"ExtAuth: only one of grpc or http can be specified."}},
		{name: "extAuth.backend-refs", spec: route + "  extAuth: {grpc: {}}\n",
			want: []string{"ExtAuth: grpc backend refs must be specified."}},
		// translateTrafficFeatures on the service's backendSettings: the
		// builders' errors bare, after the feature; the first failing
		// builder ends it (the timeouts report all theirs).
		{name: "extAuth.backendSettings", spec: route + "  extAuth: {grpc: {backendRefs: [{name: auth, port: 80}], backendSettings: {loadBalancer: {type: ConsistentHash, consistentHash: {type: SourceIP, tableSize: 4}}}}}\n", others: others,
			want: []string{"ExtAuth: ConsistentHash: invalid TableSize value 4."}},
		{name: "extAuth.backendSettings-after-backends", spec: route + "  extAuth: {http: {backendRefs: [{name: nope, port: 80}], backendSettings: {tcpKeepalive: {idleTime: 1d}}}}\n", others: others,
			want: []string{"ExtAuth: service default/nope not found."}},
		{name: "extAuth.context-configmap-missing", spec: route + extAuth + ", contextExtensions: [{name: t, type: ValueRef, valueRef: {kind: ConfigMap, name: nope, key: tenant}}]}\n", others: others,
			want: []string{"ExtAuth: can't find the referenced configmap \"nope\" in namespace \"default\"."}},
		{name: "extAuth.context-configmap-key", spec: route + extAuth + ", contextExtensions: [{name: t, type: ValueRef, valueRef: {kind: ConfigMap, name: ctx, key: other}}]}\n", others: others,
			want: []string{"ExtAuth: can't find the key \"other\" in the referenced configmap \"ctx\"."}},
		{name: "extAuth.context-secret-missing", spec: route + extAuth + ", contextExtensions: [{name: t, type: ValueRef, valueRef: {kind: Secret, name: nope, key: k}}]}\n", others: others,
			want: []string{"ExtAuth: can't find the referenced secret \"nope\" in namespace \"default\"."}},
		{name: "extAuth.context-secret-key", spec: route + extAuth + ", contextExtensions: [{name: t, type: ValueRef, valueRef: {kind: Secret, name: keys, key: k}}]}\n", others: others,
			want: []string{"ExtAuth: can't find the key \"k\" in the referenced secret \"keys\"."}},
		{name: "extAuth.valid", spec: route + extAuth + ", contextExtensions: [{name: t, type: ValueRef, valueRef: {kind: ConfigMap, name: ctx, key: tenant}}, {name: v, type: Value, value: x}]}\n", others: others},
		// A Secret's context extension value is decoded once more as base64
		// (keys: k1 is "k1" once decoded, not base64 text; "azE=" is).
		{name: "extAuth.context-secret-not-base64", spec: route + extAuth + ", contextExtensions: [{name: t, type: ValueRef, valueRef: {kind: Secret, name: keys, key: alice}}]}\n", others: others,
			want: []string{"ExtAuth: error decoding the base64 value of the key \"alice\" in the referenced secret \"keys\": illegal base64 data at input byte 0."}},
		{name: "extAuth.context-secret-base64", spec: route + extAuth + ", contextExtensions: [{name: t, type: ValueRef, valueRef: {kind: Secret, name: b64, key: v}}]}\n",
			others: others + secret("b64", "{v: YXpFPQ==}")},
		// A ConfigMap's context extension is read from data, not binaryData.
		{name: "extAuth.context-configmap-binaryData", spec: route + extAuth + ", contextExtensions: [{name: t, type: ValueRef, valueRef: {kind: ConfigMap, name: bin, key: tenant}}]}\n",
			others: others + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bin, namespace: default}\nbinaryData: {tenant: YQ==}\n",
			want:   []string{"ExtAuth: can't find the key \"tenant\" in the referenced configmap \"bin\"."}},

		// OIDC (buildOIDC, buildOIDCProvider)
		{name: "oidc.token-endpoint-ip", spec: route + "  oidc: {provider: {issuer: 'https://idp.example.com', authorizationEndpoint: 'https://idp.example.com/auth', tokenEndpoint: 'https://10.0.0.1/token'}, clientID: app, clientSecret: {name: client}}\n", others: others,
			want: []string{"OIDC: token endpoint URL must be a domain name: https://10.0.0.1/token."}},
		{name: "oidc.clientIDRef-missing", spec: route + "  oidc: {provider: {issuer: 'https://idp.example.com', authorizationEndpoint: 'https://idp.example.com/auth', tokenEndpoint: 'https://idp.example.com/token'}, clientIDRef: {name: nope}, clientSecret: {name: client}}\n", others: others,
			want: []string{"OIDC: secret default/nope does not exist."}},
		{name: "oidc.clientIDRef-key", spec: route + "  oidc: {provider: {issuer: 'https://idp.example.com', authorizationEndpoint: 'https://idp.example.com/auth', tokenEndpoint: 'https://idp.example.com/token'}, clientIDRef: {name: keys}, clientSecret: {name: client}}\n", others: others,
			want: []string{"OIDC: client ID not found in secret default/keys."}},
		{name: "oidc.clientSecret-missing", spec: route + "  oidc: {provider: {issuer: 'https://idp.example.com'}, clientID: app, clientSecret: {name: nope}}\n", others: others,
			want: []string{"OIDC: secret default/nope does not exist."}},
		{name: "oidc.clientSecret-grant", spec: route + "  oidc: {provider: {issuer: 'https://idp.example.com'}, clientID: app, clientSecret: {name: client, namespace: other}}\n", others: others,
			want: []string{"OIDC: ref to Secret other/client not permitted by any ReferenceGrant."}},
		{name: "oidc.clientSecret-key", spec: route + "  oidc: {provider: {issuer: 'https://idp.example.com'}, clientID: app, clientSecret: {name: keys}}\n", others: others,
			want: []string{"OIDC: client secret not found in secret default/keys."}},
		{name: "oidc.redirectURL", spec: route + oidc + ", redirectURL: 'https://app.example.com/'}\n", others: others,
			want: []string{"OIDC: invalid redirect URL https://app.example.com/."}},
		{name: "oidc.redirectURL-scheme", spec: route + oidc + ", redirectURL: 'ftp://app.example.com/cb'}\n", others: others,
			want: []string{"OIDC: invalid redirect URL ftp://app.example.com/cb."}},
		{name: "oidc.ttl", spec: route + oidc + ", defaultTokenTTL: 1d}\n", others: others,
			want: []string{"OIDC: invalid defaultTokenTTL: time: unknown unit \"d\" in duration \"1d\"."}},
		{name: "oidc.valid", spec: route + oidc + ", redirectURL: '%REQ(x-forwarded-proto)%://app.example.com/oauth2/callback', csrfTokenTTL: 10m}\n", others: others},

		// JWT (validateJWTProvider, buildRemoteJWKS, buildLocalJWKS)
		{name: "jwt.provider-name", spec: route + "  jwt: {providers: [{name: '', remoteJWKS: {uri: 'https://idp.example.com/jwks'}}]}\n",
			want: []string{"JWT: jwt provider cannot be an empty string."}},
		{name: "jwt.issuer-uri", spec: route + "  jwt: {providers: [{name: p, issuer: ':no-scheme', remoteJWKS: {uri: 'https://idp.example.com/jwks'}}]}\n",
			want: []string{"JWT: invalid issuer; when issuer contains ':' character, it MUST be a valid URI."}},
		{name: "jwt.issuer-email", spec: route + "  jwt: {providers: [{name: p, issuer: 'a@b@c', remoteJWKS: {uri: 'https://idp.example.com/jwks'}}]}\n",
			want: []string{"JWT: invalid issuer; when issuer contains '@' character, it MUST be a valid Email Address format: mail: expected single address, got \"@c\"."}},
		{name: "jwt.remote-or-local", spec: route + "  jwt: {providers: [{name: p}]}\n",
			want: []string{"JWT: either remoteJWKS or localJWKS must be specified for jwt provider: p."}},
		{name: "jwt.remote-uri", spec: route + "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'jwks'}}]}\n",
			want: []string{"JWT: invalid remote JWKS URI: parse \"jwks\": invalid URI for request."}},
		{name: "jwt.local-inline", spec: route + "  jwt: {providers: [{name: p, localJWKS: {type: Inline}}]}\n",
			want: []string{"JWT: inline JWKS must be set for local JWKS provider: p if type is Inline."}},
		{name: "jwt.local-valueRef", spec: route + "  jwt: {providers: [{name: p, localJWKS: {type: ValueRef}}]}\n",
			want: []string{"JWT: valueRef must be set for local JWKS provider: p if type is ValueRef."}},
		{name: "jwt.qualified-name", spec: route + "  jwt: {providers: [{name: 'a b', remoteJWKS: {uri: 'https://idp.example.com/jwks'}}]}\n",
			want: []string{"JWT: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')."}},
		{name: "jwt.unique", spec: route + "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://a.example.com/jwks'}}, {name: p, remoteJWKS: {uri: 'https://b.example.com/jwks'}}]}\n",
			want: []string{"JWT: provider name p must be unique."}},
		{name: "jwt.claimToHeaders", spec: route + "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks'}, claimToHeaders: [{header: '', claim: sub}, {header: x-sub, claim: ''}]}]}\n",
			want: []string{"JWT: header must be set for claimToHeader provider: .", "JWT: claim must be set for claimToHeader provider: ."}},
		{name: "jwt.all-provider-errors", spec: route + "  jwt: {providers: [{name: '', remoteJWKS: {uri: 'https://idp.example.com/jwks'}}, {name: q}]}\n",
			want: []string{"JWT: jwt provider cannot be an empty string.", "JWT: either remoteJWKS or localJWKS must be specified for jwt provider: q."}},
		{name: "jwt.remote-cacheDuration", spec: route + "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks', cacheDuration: 1d}}]}\n",
			want: []string{"JWT: time: unknown unit \"d\" in duration \"1d\"."}},
		{name: "jwt.remote-backendSettings", spec: route + "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks', backendRefs: [{name: auth, port: 80}], backendSettings: {timeout: {tcp: {connectTimeout: 5x}}}}}]}\n", others: others,
			want: []string{"JWT: invalid ConnectTimeout value 5x."}},
		{name: "jwt.remote-backendSettings-first-builder", spec: route + "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks', backendRefs: [{name: auth, port: 80}], " +
			"backendSettings: {timeout: {tcp: {connectTimeout: 5x}, http: {requestTimeout: 1d}}, circuitBreaker: {maxConnections: -1}, retry: {perRetry: {timeout: x}}}}}]}\n", others: others,
			want: []string{"JWT: invalid ConnectTimeout value 5x.", "JWT: invalid RequestTimeout value 1d."}},
		{name: "jwt.remote-backendSettings-order", spec: route + "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks', backendRefs: [{name: auth, port: 80}], " +
			"backendSettings: {circuitBreaker: {maxConnections: -1}, connection: {bufferLimit: 1.5}}, cacheDuration: 1d}}]}\n", others: others,
			want: []string{"JWT: invalid BufferLimit value 1500m."}},
		{name: "oidc.provider-backendSettings", spec: route + "  oidc: {provider: {issuer: 'https://idp.example.com', authorizationEndpoint: 'https://idp.example.com/auth', tokenEndpoint: 'https://idp.example.com/token', backendRefs: [{name: auth, port: 80}], backendSettings: {tcpKeepalive: {interval: 1d}}}, clientID: app, clientSecret: {name: client}}\n", others: others,
			want: []string{"OIDC: invalid Interval value 1d."}},
		{name: "jwt.remote-backend-missing", spec: route + "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks', backendRefs: [{name: nope, port: 443}]}}]}\n", others: others,
			want: []string{"JWT: service default/nope not found."}},
		{name: "jwt.remote-backend", spec: route + "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://idp.example.com/jwks', backendRefs: [{name: auth, port: 80}]}}]}\n", others: others},
		{name: "oidc.provider-backend-missing", spec: route + "  oidc: {provider: {issuer: 'https://idp.example.com', authorizationEndpoint: 'https://idp.example.com/auth', tokenEndpoint: 'https://idp.example.com/token', backendRefs: [{name: nope, port: 443}]}, clientID: app, clientSecret: {name: client}}\n", others: others,
			want: []string{"OIDC: service default/nope not found."}},
		{name: "jwt.local-configmap-missing", spec: route + "  jwt: {providers: [{name: p, localJWKS: {type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: nope}}}]}\n", others: others,
			want: []string{"JWT: local JWKS ConfigMap default/nope not found."}},
		{name: "jwt.local-configmap-empty", spec: route + "  jwt: {providers: [{name: p, localJWKS: {type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: nojwks}}}]}\n", others: others,
			want: []string{"JWT: JWKS data not found in ConfigMap jwks/default, no \"nojwks\" key and no other data found."}},
		{name: "jwt.local-configmap-binaryData", spec: route + "  jwt: {providers: [{name: p, localJWKS: {type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: binjwks}}}]}\n",
			others: others + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: binjwks, namespace: default}\nbinaryData: {jwks: e30=}\n",
			want:   []string{"JWT: JWKS data not found in ConfigMap jwks/default, no \"binjwks\" key and no other data found."}},

		// order: on a route basic auth, API key auth, authorization, ext auth, OIDC, JWT
		{name: "route-order", spec: route + "  jwt: {providers: [{name: p}]}\n  oidc: {provider: {issuer: 'https://idp.example.com'}, clientID: app, clientSecret: {name: nope}}\n" +
			"  authorization: {rules: [{action: Allow, cel: '('}]}\n  basicAuth: {users: {name: nope}}\n", others: others,
			want: []string{
				"BasicAuth: secret default/nope does not exist.",
				"Authorization: invalid CEL expression: (.",
				"OIDC: secret default/nope does not exist.",
				"JWT: either remoteJWKS or localJWKS must be specified for jwt provider: p.",
			}},
		// … on a Gateway JWT, OIDC, basic auth, API key auth, ext auth, authorization
		{name: "gateway-order", spec: gateway + "  jwt: {providers: [{name: p}]}\n  oidc: {provider: {issuer: 'https://idp.example.com'}, clientID: app, clientSecret: {name: nope}}\n" +
			"  authorization: {rules: [{action: Allow, cel: '('}]}\n  basicAuth: {users: {name: nope}}\n", others: others,
			want: []string{
				"JWT: either remoteJWKS or localJWKS must be specified for jwt provider: p.",
				"OIDC: secret default/nope does not exist.",
				"BasicAuth: secret default/nope does not exist.",
				"Authorization: invalid CEL expression: (.",
			}},
	})
}

// TestSecurityPolicyDeprecatedFields: the singular extAuth backendRef is
// a DeprecatedField warning (deprecatedFieldsUsedInSecurityPolicy) and a
// GWP104 finding.
func TestSecurityPolicyDeprecatedFields(t *testing.T) {
	p := decodeKind(t, SecurityPolicy(), "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n  extAuth: {grpc: {backendRef: {name: auth, port: 80}}}\n", "", policy.Config{})
	if d := decoded(p).deprecated; !slices.Equal(d, []string{"spec.extAuth.grpc.backendRef is deprecated, use spec.extAuth.grpc.backendRefs instead"}) {
		t.Errorf("deprecated = %q", d)
	}
	if !slices.ContainsFunc(p.Findings, func(f diag.Diagnostic) bool { return f.Code == "GWP104" && f.Field == "spec.extAuth.grpc.backendRef" }) {
		t.Errorf("findings %v: want GWP104 at spec.extAuth.grpc.backendRef", p.Findings)
	}
}
