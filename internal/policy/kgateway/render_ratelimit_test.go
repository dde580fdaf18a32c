package kgateway

import (
	"testing"
	"time"

	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestGlobalRateLimitService: the extension's gRPC service settings reach
// the rate limit service's client (its own request deadline and
// authority), beside the filter's overall timeout.
func TestGlobalRateLimitService(t *testing.T) {
	const input = `
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: rl, namespace: default}
spec:
  type: RateLimit
  rateLimit:
    domain: api
    timeout: 50ms
    grpcService:
      backendRef: {name: ratelimit, port: 8081}
      authority: rl.example.com
      requestTimeout: 200ms
`
	objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: Group, Kind: KindGatewayExtension}: true}})
	v := &RateLimitPolicy{ExtensionRef: NamespacedObjectReference{Name: "rl"}}
	frs, err := Kind{}.RenderField(policy.FieldInput{Key: "rateLimit.global", Values: []any{v}, Namespaces: []string{"default"}}, &policy.Env{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	var cfg *ratelimitv3.RateLimit
	for _, fr := range frs {
		if fr.Filter == nil {
			continue
		}
		if c, ok := fr.Filter.Typed.(*ratelimitv3.RateLimit); ok {
			cfg = c
		}
	}
	if cfg == nil {
		t.Fatalf("no rate limit filter in %v", frs)
	}
	svc := cfg.GetRateLimitService().GetGrpcService()
	if svc.GetTimeout().AsDuration() != 200*time.Millisecond || svc.GetEnvoyGrpc().GetAuthority() != "rl.example.com" || cfg.GetTimeout().AsDuration() != 50*time.Millisecond {
		t.Errorf("service %v, filter timeout %v: want the 200ms request deadline, the authority and the 50ms overall timeout", svc, cfg.GetTimeout())
	}
}

// TestLocalRateLimitForms: an empty rateLimit.local switches local rate
// limiting off where it applies (enabled for no request under kgateway's
// runtime key local_rate_limit_disabled, with the one-token bucket a
// per-route config needs); a policy with a token bucket enforces it on
// every request unless its percentages say otherwise.
func TestLocalRateLimitForms(t *testing.T) {
	fifty := int32(50)
	tests := []struct {
		name       string
		v          *LocalRateLimitPolicy
		runtimeKey string
		enabled    uint32
		enforced   bool
		maxTokens  uint32
		fill       time.Duration
	}{
		{"empty: switched off", &LocalRateLimitPolicy{}, "local_rate_limit_disabled", 0, false, 1, time.Nanosecond},
		{"token bucket", &LocalRateLimitPolicy{TokenBucket: &TokenBucket{MaxTokens: 10, FillInterval: "1s"}}, "local_rate_limit_enabled", 100, true, 10, time.Second},
		{"token bucket, half enabled", &LocalRateLimitPolicy{TokenBucket: &TokenBucket{MaxTokens: 3, FillInterval: "100ms"}, PercentEnabled: &fifty}, "local_rate_limit_enabled", 50, true, 3, 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frs, err := Kind{}.RenderField(policy.FieldInput{Key: "rateLimit.local", Values: []any{tt.v}}, &policy.Env{})
			if err != nil || len(frs) != 1 {
				t.Fatalf("fragments %v, error %v", frs, err)
			}
			per, ok := frs[0].TypedPerFilterConfig["ratelimit/local"].(*localratelimitv3.LocalRateLimit)
			if !ok {
				t.Fatalf("per-route config is a %T", frs[0].TypedPerFilterConfig["ratelimit/local"])
			}
			if err := per.ValidateAll(); err != nil {
				t.Errorf("Envoy would refuse it: %v", err)
			}
			fe := per.GetFilterEnabled()
			if fe.GetRuntimeKey() != tt.runtimeKey || fe.GetDefaultValue().GetNumerator() != tt.enabled {
				t.Errorf("filter_enabled %v, want %s at %d", fe, tt.runtimeKey, tt.enabled)
			}
			if (per.GetFilterEnforced() != nil) != tt.enforced {
				t.Errorf("filter_enforced %v, want set=%v", per.GetFilterEnforced(), tt.enforced)
			}
			tb := per.GetTokenBucket()
			if tb.GetMaxTokens() != tt.maxTokens || tb.GetFillInterval().AsDuration() != tt.fill {
				t.Errorf("token bucket %v, want %d tokens every %v", tb, tt.maxTokens, tt.fill)
			}
		})
	}
}
