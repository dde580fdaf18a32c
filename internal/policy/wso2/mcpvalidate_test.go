package wso2

import (
	"strings"
	"testing"
)

// TestMcpChecks: each check the gateway-controller makes of an Mcp's own
// fields (mcp_validator.go) refuses it with the controller's message at
// the field; an Mcp that passes them has no such finding.
func TestMcpChecks(t *testing.T) {
	const base = `apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: Mcp
metadata: {name: tools, namespace: ns}
spec:
  displayName: Tools
  version: v1.0
  context: /tools
  specVersion: "2025-06-18"
  upstream: {url: "http://mcp:3000"}
`
	edit := func(old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("base has no %q", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	tests := []struct {
		name, src string
		want      []string // "field: message" prefixes
	}{
		{"valid", base, nil},
		{"display-name-missing", edit("  displayName: Tools\n", ""), []string{"spec.displayName: MCP proxy displayName is required"}},
		{"display-name-not-url-friendly", edit("Tools", "Tools/x"), []string{"spec.displayName: MCP proxy displayName must be URL-friendly"}},
		{"version-missing", edit("  version: v1.0\n", ""), []string{"spec.version: Version is required"}},
		{"version-not-semver", edit("version: v1.0", "version: one"), []string{"spec.version: Version must follow semantic versioning pattern"}},
		{"spec-version-unknown", edit(`"2025-06-18"`, `"2024-11-05"`), []string{"spec.specVersion: Unsupported MCP spec version (supported versions: 2025-06-18, 2025-11-25)"}},
		{"context-trailing-slash", edit("context: /tools", "context: /tools/"), []string{"spec.context: Context cannot end with / (except for root context)"}},
		{"no-context-no-vhost", edit("  context: /tools\n", ""), []string{"spec.vhost: Vhost is required when context is not specified"}},
		{"no-context-with-vhost", edit("  context: /tools\n", "  vhost: mcp.example.com\n"), nil},
		{"upstream-ref-only", edit(`{url: "http://mcp:3000"}`, `{ref: pool}`), []string{"spec.upstream.url: Upstream URL is required"}},
		{"upstream-scheme", edit(`http://mcp:3000`, `ftp://mcp:3000`), []string{"spec.upstream.url: Upstream URL must use http or https scheme"}},
		{"auth-incomplete", edit(`{url: "http://mcp:3000"}`, `{url: "http://mcp:3000", auth: {type: api-key}}`), []string{"spec.upstream.auth.header: Auth header is required", "spec.upstream.auth.value: Auth value is required"}},
		{"auth-bearer-prefix", edit(`{url: "http://mcp:3000"}`, `{url: "http://mcp:3000", auth: {type: bearer, header: Authorization, value: abc}}`), []string{"spec.upstream.auth.value: Bearer token value must start with 'Bearer ' or 'bearer '"}},
		{"template-upstream-url", edit(`{url: "http://mcp:3000"}`, `{url: '{{ env "MCP_URL" }}'}`), nil},
		{"template-bearer-value", edit(`{url: "http://mcp:3000"}`, `{url: "http://mcp:3000", auth: {type: bearer, header: Authorization, value: '{{ secret "mcp-token" }}'}}`), nil},
		{"template-bad", edit(`{url: "http://mcp:3000"}`, `{url: '{{ env "MCP_URL" '}`), []string{`spec.upstream.url: template "{{ env \"MCP_URL\" " does not parse`}},
		{"auth-bearer-ok", edit(`{url: "http://mcp:3000"}`, `{url: "http://mcp:3000", auth: {type: bearer, header: Authorization, value: "Bearer abc"}}`), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := decode(t, New(definitions(t), engine(t)), tc.src)[0]
			var got []string
			for _, d := range p.Invalid {
				got = append(got, d.Field+": "+d.Message)
				if d.Code != "GWP401" || d.Pos.Line == 0 {
					t.Errorf("%s %s at %v: want GWP401 at the field", d.Code, d.Field, d.Pos)
				}
			}
			if !matches(got, tc.want) {
				t.Errorf("invalid =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
