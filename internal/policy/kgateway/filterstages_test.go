package kgateway_test

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/kgateway"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestFilterStages: the HTTP filters a TrafficPolicy brings run in
// kgateway's order (trafficpolicy/traffic_policy_plugin.go: HttpFilters,
// sorted by pluginsdk/filters CompareStagedFilters): by stage — fault,
// CORS, WAF, authentication, authorization, rate limits, accepted, route
// — then the filter's weight relative to the stage, then, between filters
// of one type, the extension's weight, then the name. No public case
// combines these families, so each input here is one no case has.
func TestFilterStages(t *testing.T) {
	route := func(fields string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: all, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]\n" + fields
	}
	const keys = "---\napiVersion: v1\nkind: Secret\nmetadata: {name: api-keys, namespace: infra}\ndata: {client1: a2V5MQ==}\n"
	const heavyExtAuth = "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\n" +
		"metadata: {name: authz, namespace: infra, annotations: {kgateway.dev/policy-weight: \"10\"}}\n" +
		"spec: {extAuth: {grpcService: {backendRef: {name: ext, port: 9000}}}}\n"
	tests := []struct {
		name, input string
		want        []string
		targets     []string // the render targets, both when none
	}{
		{
			name: "compression right after CORS, before authentication: the first compressor and every decompressor share a place and sort by name, the later compressors follow",
			input: route("  cors: {allowOrigins: [\"https://a.example.com\"]}\n" +
				"  compression: {responseCompression: {libraries: [Zstd, Gzip]}, requestDecompression: {libraries: [Zstd, Gzip]}}\n" +
				"  basicAuth: {users: [\"alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\"]}\n"),
			want: []string{"envoy.filters.http.cors", "envoy.filters.http.compressor.zstd", "envoy.filters.http.decompressor", "envoy.filters.http.decompressor.zstd",
				"envoy.filters.http.compressor", "envoy.filters.http.basic_auth", "basic_auth_enabled"},
		},
		{
			name: "CSRF, header mutation and buffering at the route stage, after rate limits and transformation, by name",
			input: route("  csrf: {percentageEnabled: 100}\n  buffer: {maxRequestSize: 1Mi}\n" +
				"  headerModifiers: {request: {add: [{name: x-a, value: b}]}}\n" +
				"  transformation: {request: {set: [{name: x-t, value: v}]}}\n" +
				"  rateLimit: {local: {tokenBucket: {maxTokens: 5, fillInterval: 1s}}}\n"),
			want: []string{"ratelimit/local", "dynamic_modules/simple_mutations",
				"envoy.extensions.filters.http.header_mutation", "envoy.filters.http.buffer", "envoy.filters.http.csrf"},
			targets: []string{"kgateway"}, // only kgateway's data plane has the transformation module
		},
		{
			name: "authentication filters share the stage and sort by name whatever an extension's weight (weights order filters of one type only); the disable marker runs before fault injection",
			input: keys + heavyExtAuth + route("  faultInjection: {abort: {httpStatus: 503, percentage: 1}}\n"+
				"  extAuth: {extensionRef: {name: authz}}\n"+
				"  apiKeyAuth: {secretRef: {name: api-keys}}\n"+
				"  basicAuth: {users: [\"alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=\"]}\n"+
				"  rbac: {policy: {matchExpressions: [\"request.headers['x-a'] == 'b'\"]}}\n"),
			want: []string{"global_disable/ext_auth", "envoy.filters.http.fault",
				"envoy.filters.http.api_key_auth", "envoy.filters.http.basic_auth", "ext_auth/infra/authz",
				"api_key_auth_enabled", "basic_auth_enabled", "ext_auth_enabled", "envoy.filters.http.rbac"},
		},
		{
			name: "authorization, then a health check and ext_proc after it, by name, then rate limits",
			input: "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: proc, namespace: infra}\n" +
				"spec: {extProc: {grpcService: {backendRef: {name: ext, port: 9000}}}}\n" +
				"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: lp, namespace: infra}\n" +
				"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  default: {httpSettings: {healthCheck: {path: /healthz}}}\n" +
				route("  extProc: {extensionRef: {name: proc}}\n  rbac: {policy: {matchExpressions: [\"request.headers['x-a'] == 'b'\"]}}\n"+
					"  rateLimit: {local: {tokenBucket: {maxTokens: 5, fillInterval: 1s}}}\n"),
			want: []string{"global_disable/ext_proc", "envoy.filters.http.rbac", "envoy.filters.http.health_check", "ext_proc/infra/proc", "ratelimit/local"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// the "<family>_enabled" filters are written with the setting on
			cfg := policy.Config{}.WithSetting(kgateway.EnableAuthMetadata.Key, true)
			res := compileInline(t, weightBase+tt.input, cfg)
			targets := tt.targets
			if targets == nil {
				targets = []string{"envoy", "kgateway"}
			}
			for _, target := range targets {
				out, err := envoy.Render(res, envoy.Options{Target: target, Config: cfg})
				if err != nil || len(out.Diagnostics) > 0 || len(out.Gateways) != 1 {
					t.Fatalf("%s: render: %v %v", target, err, out.Diagnostics)
				}
				got := slices.DeleteFunc(filterNames(t, out.Gateways[0], ""), func(n string) bool { return n == "envoy.filters.http.router" })
				if !slices.Equal(got, tt.want) {
					t.Errorf("%s: filters\n  %v\nwant\n  %v", target, got, tt.want)
				}
			}
		})
	}
}
