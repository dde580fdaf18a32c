package trafficpolicy

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/policy"
)

// localRateLimit: the token bucket per resource, the chain's filter a
// shell.
func (r *fieldRenderer) localRateLimit() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*LocalRateLimitPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "ratelimit/local"
	typ := typeURL("envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit")
	per := obj{
		"@type": typ, "stat_prefix": "http_local_rate_limiter",
		"filter_enabled":  obj{"runtime_key": "local_rate_limit_enabled", "default_value": percent(v.PercentEnabled, 100)},
		"filter_enforced": obj{"runtime_key": "local_rate_limit_enforced", "default_value": percent(v.PercentEnforced, 100)},
	}
	if tb := v.TokenBucket; tb != nil {
		fill, err := parseDur(tb.FillInterval)
		if err != nil {
			return nil, fmt.Errorf("tokenBucket.fillInterval: %w", err)
		}
		tokens := int32(1)
		if tb.TokensPerFill != nil {
			tokens = *tb.TokensPerFill
		}
		per["token_bucket"] = obj{"max_tokens": tb.MaxTokens, "tokens_per_fill": tokens, "fill_interval": fill}
	}
	return []policy.Fragment{fragment("local_ratelimit", name, orderRateLimit,
		obj{"@type": typ, "stat_prefix": "http_local_rate_limiter"}, per)}, nil
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
	if p.Domain == "" {
		return nil, fmt.Errorf("GatewayExtension %s/%s: rateLimit.domain is empty", ns, ext.Name)
	}
	cluster, cl := serviceCluster(p.GrpcService.BackendRef.BackendObjectReference, ns, true)
	failOpen := p.FailOpen == nil || *p.FailOpen
	timeout := "0.1s"
	if p.Timeout != nil {
		if timeout, err = parseDur(*p.Timeout); err != nil {
			return nil, fmt.Errorf("rateLimit.timeout: %w", err)
		}
	}
	cfg := obj{
		"@type":             typeURL("envoy.extensions.filters.http.ratelimit.v3.RateLimit"),
		"domain":            p.Domain,
		"failure_mode_deny": !failOpen,
		"timeout":           timeout,
		"rate_limit_service": obj{
			"grpc_service":          obj{"envoy_grpc": obj{"cluster_name": cluster}},
			"transport_api_version": "V3",
		},
	}
	if p.XRateLimitHeaders == "DraftVersion03" {
		cfg["enable_x_ratelimit_headers"] = "DRAFT_VERSION_03"
	}
	var limits []any
	for _, d := range v.Descriptors {
		var actions []any
		for _, e := range d.Entries {
			switch e.Type {
			case "Generic":
				if e.Generic == nil {
					return nil, fmt.Errorf("descriptor entry of type Generic needs generic")
				}
				actions = append(actions, obj{"generic_key": obj{"descriptor_key": e.Generic.Key, "descriptor_value": e.Generic.Value}})
			case "Header":
				if e.Header == nil || *e.Header == "" {
					return nil, fmt.Errorf("descriptor entry of type Header needs header")
				}
				actions = append(actions, obj{"request_headers": obj{"header_name": *e.Header, "descriptor_key": *e.Header}})
			case "RemoteAddress":
				actions = append(actions, obj{"remote_address": obj{}})
			case "Path":
				actions = append(actions, obj{"request_headers": obj{"header_name": ":path", "descriptor_key": "path"}})
			default:
				return nil, fmt.Errorf("descriptor entry type %q is not Generic, Header, RemoteAddress or Path", e.Type)
			}
		}
		if len(actions) > 0 {
			limits = append(limits, obj{"actions": actions})
		}
	}
	name := "ratelimit/" + ns + "/" + ext.Name
	fr := fragment("ratelimit", name, orderRateLimit, cfg, obj{
		"@type": typeURL("envoy.extensions.filters.http.ratelimit.v3.RateLimitPerRoute"), "rate_limits": limits,
	})
	fr.Clusters = []map[string]any{cl}
	return []policy.Fragment{fr}, nil
}
