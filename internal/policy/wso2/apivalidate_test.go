package wso2

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
)

// TestRestAPIChecks: each check the gateway-controller makes of a RestApi's
// own fields (api_validator.go) refuses the API with the controller's
// message at the field; a RestApi that passes them has no such finding.
func TestRestAPIChecks(t *testing.T) {
	const base = `apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: RestApi
metadata: {name: shop}
spec:
  displayName: Shop API
  version: v1.0
  context: /shop
  upstream: {main: {url: "http://shop:8080"}}
  operations: [{method: GET, path: "/items/{id}"}]
`
	edit := func(old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("base has no %q", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	tests := []struct {
		name, src, field, msg string
	}{
		{"valid", base, "", ""},
		{"display-name-missing", edit("  displayName: Shop API\n", ""), "spec.displayName", "API display name is required"},
		{"display-name-long", edit("Shop API", strings.Repeat("a", 101)), "spec.displayName", "API display name must be 1-100 characters"},
		{"display-name-not-url-friendly", edit("Shop API", "Shop/API"), "spec.displayName", "API display name must be URL-friendly (only letters, numbers, spaces, hyphens, underscores, and dots allowed)"},
		{"version-missing", edit("  version: v1.0\n", ""), "spec.version", "API version is required"},
		{"version-not-semver", edit("version: v1.0", "version: v1.0.0.1"), "spec.version", "API version must follow semantic versioning pattern (e.g., v1.0, v2.1.3)"},
		{"context-missing", edit("  context: /shop\n", ""), "spec.context", "Context is required"},
		{"context-no-slash", edit("context: /shop", "context: shop"), "spec.context", "Context must start with /"},
		{"context-trailing-slash", edit("context: /shop", "context: /shop/"), "spec.context", "Context cannot end with / (except for root context)"},
		{"context-long", edit("context: /shop", "context: /"+strings.Repeat("a", 200)), "spec.context", "Context must be 1-200 characters"},
		{"upstream-url-and-ref", edit(`{main: {url: "http://shop:8080"}}`, `{main: {url: "http://shop:8080", ref: shop}}`), "spec.upstream.main", "Specify exactly one of 'url' or 'ref'"},
		{"upstream-neither", edit(`{main: {url: "http://shop:8080"}}`, `{main: {}}`), "spec.upstream.main", "Must specify either 'url' or 'ref'"},
		{"upstream-url-empty", edit(`url: "http://shop:8080"`, `url: " "`), "spec.upstream.main.url", "Upstream URL is required"},
		{"upstream-url-scheme", edit(`url: "http://shop:8080"`, `url: "ftp://shop:8080"`), "spec.upstream.main.url", "Upstream URL must use http or https scheme"},
		{"upstream-url-host", edit(`url: "http://shop:8080"`, `url: "http:///path"`), "spec.upstream.main.url", "Upstream URL must include a host"},
		{"upstream-url-malformed", edit(`url: "http://shop:8080"`, `url: "http://[::1"`), "spec.upstream.main.url", "Invalid URL format: parse \"http://[::1\": missing ']' in host"},
		{"sandbox-checked", edit(`{main: {url: "http://shop:8080"}}`, `{main: {url: "http://shop:8080"}, sandbox: {}}`), "spec.upstream.sandbox", "Must specify either 'url' or 'ref'"},
		{"ref-empty", edit(`{main: {url: "http://shop:8080"}}`, `{main: {ref: " "}}`), "spec.upstream.main.ref", "Upstream reference is required"},
		{"ref-no-definitions", edit(`{main: {url: "http://shop:8080"}}`, `{main: {ref: pool}}`), "spec.upstream.main.ref", "Referenced upstream definition 'pool' not found: no upstreamDefinitions provided"},
		{"ref-unknown", edit(`{main: {url: "http://shop:8080"}}`, "{main: {ref: pool}}\n  upstreamDefinitions: [{name: other, upstreams: [{url: \"http://a\"}]}]"), "spec.upstream.main.ref", "Referenced upstream definition 'pool' not found in upstreamDefinitions"},
		{"ref-resolves", edit(`{main: {url: "http://shop:8080"}}`, "{main: {ref: pool}}\n  upstreamDefinitions: [{name: pool, upstreams: [{url: \"http://a\", weight: 100}], timeout: {connect: 5s}}]"), "", ""},
		{"definition-no-name", edit("  operations:", "  upstreamDefinitions: [{upstreams: [{url: \"http://a\"}]}]\n  operations:"), "spec.upstreamDefinitions[0].name", "Upstream definition name is required"},
		{"definition-duplicate", edit("  operations:", "  upstreamDefinitions: [{name: a, upstreams: [{url: \"http://a\"}]}, {name: a, upstreams: [{url: \"http://b\"}]}]\n  operations:"), "spec.upstreamDefinitions[1].name", "Duplicate upstream definition name 'a'"},
		{"definition-no-upstreams", edit("  operations:", "  upstreamDefinitions: [{name: a}]\n  operations:"), "spec.upstreamDefinitions[0].upstreams", "At least one upstream target is required"},
		{"definition-url-missing", edit("  operations:", "  upstreamDefinitions: [{name: a, upstreams: [{weight: 1}]}]\n  operations:"), "spec.upstreamDefinitions[0].upstreams[0].url", "URL is required"},
		{"definition-url-scheme", edit("  operations:", "  upstreamDefinitions: [{name: a, upstreams: [{url: \"tcp://a:1\"}]}]\n  operations:"), "spec.upstreamDefinitions[0].upstreams[0].url", "URL must use http or https scheme"},
		{"definition-weight", edit("  operations:", "  upstreamDefinitions: [{name: a, upstreams: [{url: \"http://a\", weight: 101}]}]\n  operations:"), "spec.upstreamDefinitions[0].upstreams[0].weight", "Weight must be between 0 and 100"},
		{"definition-timeout", edit("  operations:", "  upstreamDefinitions: [{name: a, upstreams: [{url: \"http://a\"}], timeout: {connect: soon}}]\n  operations:"), "spec.upstreamDefinitions[0].timeout.connect", "Invalid timeout format: time: invalid duration \"soon\" (expected format: '30s', '1m', '500ms')"},
		{"operations-none", edit(`  operations: [{method: GET, path: "/items/{id}"}]`, "  operations: []"), "spec.operations", "At least one operation is required"},
		{"method-missing", edit("method: GET, ", ""), "spec.operations[0].method", "HTTP method is required"},
		{"method-unknown", edit("method: GET", "method: TRACE"), "spec.operations[0].method", "Invalid HTTP method 'TRACE' (must be GET, POST, PUT, DELETE, PATCH, HEAD, or OPTIONS)"},
		{"method-lower-case", edit("method: GET", "method: get"), "", ""},
		{"path-missing", edit(`, path: "/items/{id}"`, ""), "spec.operations[0].path", "Operation path is required"},
		{"path-no-slash", edit(`"/items/{id}"`, `"items"`), "spec.operations[0].path", "Operation path must start with /"},
		{"path-unbalanced", edit(`"/items/{id}"`, `"/items/{id"`), "spec.operations[0].path", "Operation path has unbalanced braces in parameters"},
		// The controller renders every spec string holding "{{" before it
		// validates: a template that parses is checked rendered (not
		// here), one that does not parse refuses the API at its field.
		{"template-upstream-url", edit(`url: "http://shop:8080"`, `url: '{{ env "SHOP_URL" | default "http://shop:8080" }}'`), "", ""},
		{"template-context", edit("context: /shop", `context: '{{ env "CTX" | default "/shop" }}'`), "", ""},
		{"template-definition-url-and-timeout", edit("  operations:", "  upstreamDefinitions: [{name: a, upstreams: [{url: '{{ secret \"pool-url\" }}'}], timeout: {connect: '{{ env \"T\" }}'}}]\n  operations:"), "", ""},
		{"template-operation-path", edit(`"/items/{id}"`, `'{{ env "P" | default "/items" }}/{id}'`), "", ""},
		{"template-unknown-function", edit(`url: "http://shop:8080"`, `url: '{{ lookup "SHOP_URL" }}'`), "spec.upstream.main.url", "template \"{{ lookup \\\"SHOP_URL\\\" }}\" does not parse (the gateway-controller rejects the API): function \"lookup\" not defined"},
		{"template-unclosed-in-display-name", edit("Shop API", "'Shop {{ API'"), "spec.displayName", "template \"Shop {{ API\" does not parse"},
		{"template-not-in-params-twice", edit(`operations: [{method: GET, path: "/items/{id}"}]`, `operations: [{method: GET, path: "/items/{id}", policies: [{name: api-key-auth, version: v1, params: {key: '{{ env "K" }}', in: header}}]}]`), "", ""},
		{"artifact-id-not-a-uuid", edit("metadata: {name: shop}", "metadata: {name: shop, annotations: {gateway.api-platform.wso2.com/artifact-id: 'api-42'}}"), "metadata.annotations", "invalid gateway.api-platform.wso2.com/artifact-id annotation: invalid UUID format \"api-42\""},
		{"artifact-id-uuid", edit("metadata: {name: shop}", "metadata: {name: shop, annotations: {gateway.api-platform.wso2.com/artifact-id: '0192f3a4-5b6c-7d8e-9f01-23456789abcd'}}"), "", ""},
		{"artifact-id-uuid-forms", edit("metadata: {name: shop}", "metadata: {name: shop, annotations: {gateway.api-platform.wso2.com/artifact-id: '{0192F3A4-5B6C-7D8E-9F01-23456789ABCD}'}}"), "", ""},
		{"artifact-id-urn", edit("metadata: {name: shop}", "metadata: {name: shop, annotations: {gateway.api-platform.wso2.com/artifact-id: 'URN:UUID:0192f3a4-5b6c-7d8e-9f01-23456789abcd'}}"), "", ""},
		{"artifact-id-bad-hex", edit("metadata: {name: shop}", "metadata: {name: shop, annotations: {gateway.api-platform.wso2.com/artifact-id: '0192f3a45b6c7d8e9f0123456789abcg'}}"), "metadata.annotations", "invalid gateway.api-platform.wso2.com/artifact-id annotation: invalid UUID format \"0192f3a45b6c7d8e9f0123456789abcg\""},
		{"artifact-id-empty", edit("metadata: {name: shop}", "metadata: {name: shop, annotations: {gateway.api-platform.wso2.com/artifact-id: ''}}"), "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := decode(t, New(definitions(t), engine(t)), tc.src)[0]
			var got []string
			for _, d := range p.Invalid {
				got = append(got, d.Field+": "+d.Message)
			}
			want := []string(nil)
			if tc.field != "" {
				want = []string{tc.field + ": " + tc.msg}
			}
			if !matches(got, want) {
				t.Errorf("invalid =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, d := range p.Invalid {
				if d.Code != "GWP401" || d.Pos.Line == 0 {
					t.Errorf("%s %s at %v: want GWP401 at the field", d.Code, d.Field, d.Pos)
				}
			}
		})
	}
}

// matches reports whether each finding got starts with the one wanted at
// its index (the controller's message, after which gwpol may say more).
func matches(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.HasPrefix(got[i], want[i]) {
			return false
		}
	}
	return true
}

// TestTemplatedReference: the gateway-controller renders a reference's
// name and version before it resolves them, so a template there is
// resolved at deploy time (a GWP509 note, no error); an APIPolicy's CRD
// allows none, and a template that does not parse refuses the API.
func TestTemplatedReference(t *testing.T) {
	restAPI := func(ref string) string {
		return `apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: RestApi
metadata: {name: shop}
spec:
  displayName: Shop API
  version: v1.0
  context: /shop
  upstream: {main: {url: "http://shop:8080"}}
  operations: [{method: GET, path: /items, policies: [` + ref + `]}]
`
	}
	apiPolicy := func(ref string) string {
		return `apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: APIPolicy
metadata: {name: api, namespace: ns}
spec:
  targetRef: {kind: HTTPRoute, name: hello}
  policies: [` + ref + `]
`
	}
	const at = "spec.operations[0].policies[0]"
	for _, tc := range []struct {
		name, src         string
		invalid, findings []string
	}{
		{"version from env", restAPI(`{name: set-headers, version: '{{ env "SH_VERSION" | default "v1" }}'}`), nil, []string{"GWP509@" + at + ".version"}},
		{"name from env", restAPI(`{name: '{{ env "AUTH" }}', version: v1, params: {key: k}}`), nil, []string{"GWP509@" + at + ".name"}},
		{"version as written resolves", restAPI(`{name: set-headers, version: v1}`), nil, nil},
		{"version template that does not parse", restAPI(`{name: set-headers, version: '{{ nosuch }}'}`), []string{"GWP401@" + at + ".version", "GWP501@" + at + ".version"}, nil},
		{"APIPolicy: the CRD allows no template", apiPolicy(`{name: set-headers, version: '{{ env "V" }}'}`), []string{"GWP501@spec.policies[0].version"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decode(t, New(definitions(t), engine(t)), tc.src)[0]
			var fs []diag.Diagnostic
			for _, d := range p.Findings {
				if d.Code == "GWP509" {
					fs = append(fs, d)
				}
			}
			if got := codes(p.Invalid); !slices.Equal(got, tc.invalid) {
				t.Errorf("invalid = %v, want %v", got, tc.invalid)
			}
			if got := codes(fs); !slices.Equal(got, tc.findings) {
				t.Errorf("GWP509 findings = %v, want %v", got, tc.findings)
			}
		})
	}
}
