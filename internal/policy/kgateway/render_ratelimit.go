package kgateway

import (
	"fmt"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	ratelimitconfv3 "github.com/envoyproxy/go-control-plane/envoy/config/ratelimit/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// localRateLimit: the token bucket per resource, the chain's filter a
// shell. Built as typed messages.
func (r *fieldRenderer) localRateLimit() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*LocalRateLimitPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name, statPrefix = "ratelimit/local", "http_local_rate_limiter"
	filter := &policy.HTTPFilter{Name: name, Order: orderRateLimit, Typed: &localratelimitv3.LocalRateLimit{StatPrefix: statPrefix}}
	if v.disables() {
		// kgateway's switch-off: enabled for no request, with the
		// smallest token bucket a per-route config must have.
		off := &localratelimitv3.LocalRateLimit{StatPrefix: statPrefix,
			TokenBucket:   &typev3.TokenBucket{MaxTokens: 1, FillInterval: durationpb.New(time.Nanosecond)},
			FilterEnabled: &corev3.RuntimeFractionalPercent{RuntimeKey: "local_rate_limit_disabled", DefaultValue: &typev3.FractionalPercent{}}}
		return []policy.Fragment{{Capability: "local_ratelimit", Filter: filter, TypedPerFilterConfig: map[string]proto.Message{name: off}}}, nil
	}
	per := &localratelimitv3.LocalRateLimit{
		StatPrefix:     statPrefix,
		FilterEnabled:  runtimePercent("local_rate_limit_enabled", v.PercentEnabled, 100),
		FilterEnforced: runtimePercent("local_rate_limit_enforced", v.PercentEnforced, 100),
	}
	if tb := v.TokenBucket; tb != nil {
		fill, err := time.ParseDuration(tb.FillInterval)
		if err != nil {
			return nil, fmt.Errorf("tokenBucket.fillInterval: %q is not a duration", tb.FillInterval)
		}
		tokens := int32(1)
		if tb.TokensPerFill != nil {
			tokens = *tb.TokensPerFill
		}
		per.TokenBucket = &typev3.TokenBucket{MaxTokens: uint32(max(tb.MaxTokens, 0)),
			TokensPerFill: wrapperspb.UInt32(uint32(max(tokens, 0))), FillInterval: durationpb.New(fill)}
	}
	return []policy.Fragment{{Capability: "local_ratelimit", Filter: filter, TypedPerFilterConfig: map[string]proto.Message{name: per}}}, nil
}

// runtimePercent is a runtime-overridable percentage (default def).
func runtimePercent(key string, p *int32, def int32) *corev3.RuntimeFractionalPercent {
	v := def
	if p != nil {
		v = *p
	}
	return &corev3.RuntimeFractionalPercent{RuntimeKey: key,
		DefaultValue: &typev3.FractionalPercent{Numerator: uint32(max(v, 0)), Denominator: typev3.FractionalPercent_HUNDRED}}
}

// globalRateLimit: one rate limit service filter per GatewayExtension,
// the descriptors per resource.
func (r *fieldRenderer) globalRateLimit() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*RateLimitPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	ext, ns, err := r.extension(&v.ExtensionRef, r.ns(0))
	if err != nil {
		return nil, err
	}
	p := ext.Spec.RateLimit
	if p == nil {
		return nil, fmt.Errorf("GatewayExtension %s/%s has no rateLimit", ns, ext.Name)
	}
	cfg, cl, err := rateLimitService(p, ns, extensionHTTP2(r.env))
	if err != nil {
		return nil, err
	}
	if err := cfg.ValidateAll(); err != nil {
		// the policy is Invalid (rateLimitProvider) and its routes replaced
		return nil, fmt.Errorf("GatewayExtension %s/%s: %w", ns, ext.Name, err)
	}
	per := &ratelimitv3.RateLimitPerRoute{}
	for _, d := range v.Descriptors {
		var actions []*routev3.RateLimit_Action
		for _, e := range d.Entries {
			a, err := descriptorAction(e)
			if err != nil {
				return nil, err
			}
			actions = append(actions, a)
		}
		if len(actions) > 0 {
			per.RateLimits = append(per.RateLimits, &routev3.RateLimit{Actions: actions})
		}
	}
	name := "ratelimit/" + ns + "/" + ext.Name
	return []policy.Fragment{{
		Capability:           "ratelimit",
		Filter:               &policy.HTTPFilter{Name: name, Order: orderRateLimit, Typed: cfg},
		TypedPerFilterConfig: map[string]proto.Message{name: per},
		TypedClusters:        []proto.Message{cl},
	}}, nil
}

// rateLimitService is the rate limit filter of a RateLimit extension in
// namespace ns — its domain, the service's gRPC client, the timeout (the
// CRD's 100ms by default), failure mode and rate limit headers — with the
// service's cluster entry (HTTP/2 when http2: extensionHTTP2), as
// kgateway's buildRateLimitFilter writes it; Envoy's own validation of it
// is what refuses the policies calling the extension (rateLimitProvider).
func rateLimitService(p *RateLimitProvider, ns string, http2 bool) (*ratelimitv3.RateLimit, *clusterv3.Cluster, error) {
	svc, cl, err := extGrpcService(p.GrpcService, ns, http2)
	if err != nil {
		return nil, nil, err
	}
	timeout := 100 * time.Millisecond
	if p.Timeout != nil {
		if timeout, err = time.ParseDuration(*p.Timeout); err != nil {
			return nil, nil, fmt.Errorf("rateLimit.timeout: %q is not a duration", *p.Timeout)
		}
	}
	cfg := &ratelimitv3.RateLimit{
		Domain:          p.Domain,
		FailureModeDeny: p.FailOpen != nil && !*p.FailOpen,
		Timeout:         durationpb.New(timeout),
		RateLimitService: &ratelimitconfv3.RateLimitServiceConfig{
			GrpcService:         svc,
			TransportApiVersion: corev3.ApiVersion_V3,
		},
	}
	if p.XRateLimitHeaders == "DraftVersion03" {
		cfg.EnableXRatelimitHeaders = ratelimitv3.RateLimit_DRAFT_VERSION_03
	}
	return cfg, cl, nil
}

// descriptorAction is the rate limit action of one descriptor entry.
func descriptorAction(e RateLimitDescriptorEntry) (*routev3.RateLimit_Action, error) {
	switch e.Type {
	case "Generic":
		if e.Generic == nil {
			return nil, fmt.Errorf("descriptor entry of type Generic needs generic")
		}
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_GenericKey_{
			GenericKey: &routev3.RateLimit_Action_GenericKey{DescriptorKey: e.Generic.Key, DescriptorValue: e.Generic.Value}}}, nil
	case "Header":
		if e.Header == nil || *e.Header == "" {
			return nil, fmt.Errorf("descriptor entry of type Header needs header")
		}
		return requestHeaderAction(*e.Header, *e.Header), nil
	case "RemoteAddress":
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RemoteAddress_{
			RemoteAddress: &routev3.RateLimit_Action_RemoteAddress{}}}, nil
	case "Path":
		return requestHeaderAction(":path", "path"), nil
	}
	return nil, fmt.Errorf("descriptor entry type %q is not Generic, Header, RemoteAddress or Path", e.Type)
}

func requestHeaderAction(header, key string) *routev3.RateLimit_Action {
	return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RequestHeaders_{
		RequestHeaders: &routev3.RateLimit_Action_RequestHeaders{HeaderName: header, DescriptorKey: key}}}
}
