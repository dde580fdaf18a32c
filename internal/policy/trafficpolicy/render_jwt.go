package trafficpolicy

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/policy"
)

// jwt: the GatewayExtension's providers and requirement in one jwt_authn
// filter, wrapped so the family's disable marker switches it off; each
// resource names the requirement.
func (r *fieldRenderer) jwt() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*JWTAuth)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	typPer := typeURL("envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig")
	if v.Disable != nil {
		return append([]policy.Fragment{disableMarker("jwt_authn", "jwt", orderJWT-1)},
			r.authMetadata("jwt_authn", "jwt", orderJWT+1, true)...), nil
	}
	ext, ns, err := r.extension(v.ExtensionRef, r.ns(0))
	if err != nil {
		return nil, err
	}
	j := ext.Spec.JWT
	if j == nil || len(j.Providers) == 0 {
		return nil, fmt.Errorf("GatewayExtension %s/%s has no jwt providers", ns, ext.Name)
	}
	providers := obj{}
	var reqs []any
	var clusters []map[string]any
	for _, p := range j.Providers {
		pname := ext.Name + "_" + ns + "_" + p.Name
		po := obj{"payload_in_metadata": "payload"}
		if p.Issuer != "" {
			po["issuer"] = p.Issuer
		}
		if len(p.Audiences) > 0 {
			po["audiences"] = p.Audiences
		}
		if p.ForwardToken != nil {
			po["forward"] = *p.ForwardToken
		}
		if ts := p.TokenSource; ts != nil {
			if ts.HeaderSource != nil {
				h := obj{"name": ts.HeaderSource.Header}
				if ts.HeaderSource.Prefix != nil {
					h["value_prefix"] = *ts.HeaderSource.Prefix
				}
				po["from_headers"] = []any{h}
			}
			if ts.QueryParameter != nil {
				po["from_params"] = []any{*ts.QueryParameter}
			}
		}
		var c2h []any
		for _, c := range p.ClaimsToHeaders {
			c2h = append(c2h, obj{"claim_name": c.Name, "header_name": c.Header})
		}
		if len(c2h) > 0 {
			// Headers set from claims can change which route matches:
			// kgateway has Envoy match again.
			po["claim_to_headers"] = c2h
			po["clear_route_cache"] = true
		}
		switch {
		case p.JWKS.Local != nil && p.JWKS.Local.Inline != nil:
			po["local_jwks"] = obj{"inline_string": inlineJWKS(*p.JWKS.Local.Inline)}
		case p.JWKS.Local != nil && p.JWKS.Local.ConfigMapRef != nil:
			po["local_jwks"] = obj{"inline_string": policy.ConfigMapPlaceholder(ns, p.JWKS.Local.ConfigMapRef.Name, "jwks")}
		case p.JWKS.Remote != nil:
			rj := p.JWKS.Remote
			name, cl := serviceCluster(rj.BackendRef, ns, false)
			clusters = append(clusters, cl)
			remote := obj{"http_uri": obj{"uri": rj.URL, "cluster": name, "timeout": "5s"}}
			if rj.CacheDuration != nil {
				d, err := parseDur(*rj.CacheDuration)
				if err != nil {
					return nil, fmt.Errorf("jwks.remote.cacheDuration: %w", err)
				}
				remote["cache_duration"] = d
			}
			if rj.AsyncFetch != nil {
				af := obj{}
				if rj.AsyncFetch.FastListener != nil {
					af["fast_listener"] = *rj.AsyncFetch.FastListener
				}
				if rj.AsyncFetch.FailedRefetchDuration != nil {
					d, err := parseDur(*rj.AsyncFetch.FailedRefetchDuration)
					if err != nil {
						return nil, fmt.Errorf("jwks.remote.asyncFetch.failedRefetchDuration: %w", err)
					}
					af["failed_refetch_duration"] = d
				}
				remote["async_fetch"] = af
			}
			if rp := rj.RetryPolicy; rp != nil {
				p, err := jwksRetry(rp)
				if err != nil {
					return nil, fmt.Errorf("jwks.remote.retryPolicy: %w", err)
				}
				remote["retry_policy"] = p
			}
			po["remote_jwks"] = remote
		default:
			return nil, fmt.Errorf("jwt provider %s needs jwks.local or jwks.remote", p.Name)
		}
		providers[pname] = po
		reqs = append(reqs, obj{"provider_name": pname})
	}
	if j.ValidationMode != nil && *j.ValidationMode == "AllowMissing" {
		reqs = append(reqs, obj{"allow_missing": obj{}})
	}
	reqName := ext.Name + "_" + ns + "_requirements"
	req := obj{"requires_any": obj{"requirements": reqs}}
	if len(reqs) == 1 {
		req = reqs[0].(obj)
	}
	name := "jwt/" + ns + "/" + ext.Name
	fr := fragment("jwt_authn", name, orderJWT, unlessDisabled("jwt", "envoy.filters.http.jwt_authn", obj{
		"@type":           typeURL("envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication"),
		"providers":       providers,
		"requirement_map": obj{reqName: req},
	}), obj{"@type": typPer, "requirement_name": reqName})
	fr.Clusters = clusters
	return append([]policy.Fragment{familyMarker("jwt_authn", "jwt", orderJWT-1), fr},
		r.authMetadata("jwt_authn", "jwt", orderJWT+1, false)...), nil
}

// jwksRetry is the retry policy of a remote key set fetch.
func jwksRetry(rp *JWKSRetryPolicy) (obj, error) {
	p := obj{}
	if rp.NumRetries != nil {
		p["num_retries"] = *rp.NumRetries
	}
	if b := rp.BackOff; b != nil {
		base, err := parseDur(b.BaseInterval)
		if err != nil {
			return nil, fmt.Errorf("backOff.baseInterval: %w", err)
		}
		bo := obj{"base_interval": base}
		if b.MaxInterval != nil {
			if bo["max_interval"], err = parseDur(*b.MaxInterval); err != nil {
				return nil, fmt.Errorf("backOff.maxInterval: %w", err)
			}
		}
		p["retry_back_off"] = bo
	}
	return p, nil
}
