package kgateway

import (
	"testing"
	"time"

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
