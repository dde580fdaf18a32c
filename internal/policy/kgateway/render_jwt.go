package kgateway

import (
	"fmt"
	"slices"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// jwt: the GatewayExtension's providers and requirement in one jwt_authn
// filter, wrapped so the family's disable marker switches it off; each
// resource names the requirement. Built as typed messages.
func (r *fieldRenderer) jwt() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*JWTAuth)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	if v.Disable != nil {
		return append([]policy.Fragment{disableMarker("jwt_authn", "jwt")},
			r.authMetadata("jwt_authn", "jwt", orderAuthEnabled, true)...), nil
	}
	ext, ns, err := r.extension(v.ExtensionRef, r.ns(0))
	if err != nil {
		return nil, err
	}
	j := ext.Spec.JWT
	if j == nil || len(j.Providers) == 0 {
		return nil, fmt.Errorf("GatewayExtension %s/%s has no jwt providers", ns, ext.Name)
	}
	cfg := &jwtv3.JwtAuthentication{Providers: map[string]*jwtv3.JwtProvider{}}
	var reqs []*jwtv3.JwtRequirement
	var clusters []proto.Message
	for _, p := range j.Providers {
		pname := ext.Name + "_" + ns + "_" + p.Name
		po, cl, err := jwtProvider(p, ns)
		if err != nil {
			return nil, err
		}
		if cl != nil {
			clusters = append(clusters, cl)
		}
		cfg.Providers[pname] = po
		reqs = append(reqs, &jwtv3.JwtRequirement{RequiresType: &jwtv3.JwtRequirement_ProviderName{ProviderName: pname}})
	}
	// kgateway's buildJwtRequirementFromProviders: the providers'
	// requirements sorted by provider name, one alone or else any of
	// them; AllowMissing then wraps that requirement, as one of two
	// alternatives beside allow_missing (a list of providers stays a
	// nested requires_any).
	slices.SortFunc(reqs, func(a, b *jwtv3.JwtRequirement) int { return strings.Compare(a.GetProviderName(), b.GetProviderName()) })
	reqs = slices.CompactFunc(reqs, func(a, b *jwtv3.JwtRequirement) bool { return a.GetProviderName() == b.GetProviderName() })
	req := reqs[0]
	if len(reqs) > 1 {
		req = &jwtv3.JwtRequirement{RequiresType: &jwtv3.JwtRequirement_RequiresAny{RequiresAny: &jwtv3.JwtRequirementOrList{Requirements: reqs}}}
	}
	if j.ValidationMode != nil && *j.ValidationMode == "AllowMissing" {
		req = &jwtv3.JwtRequirement{RequiresType: &jwtv3.JwtRequirement_RequiresAny{RequiresAny: &jwtv3.JwtRequirementOrList{Requirements: []*jwtv3.JwtRequirement{
			req, {RequiresType: &jwtv3.JwtRequirement_AllowMissing{AllowMissing: &emptypb.Empty{}}}}}}}
	}
	reqName := ext.Name + "_" + ns + "_requirements"
	cfg.RequirementMap = map[string]*jwtv3.JwtRequirement{reqName: req}
	name := "jwt/" + ns + "/" + ext.Name
	fr := policy.Fragment{
		Capability: "jwt_authn",
		Filter:     &policy.HTTPFilter{Name: name, Order: orderJWT, Typed: unlessDisabled("jwt", "envoy.filters.http.jwt_authn", cfg)},
		TypedPerFilterConfig: map[string]proto.Message{name: &jwtv3.PerRouteConfig{
			RequirementSpecifier: &jwtv3.PerRouteConfig_RequirementName{RequirementName: reqName}}},
		TypedClusters: clusters,
	}
	return append([]policy.Fragment{familyMarker("jwt_authn", "jwt"), fr},
		r.authMetadata("jwt_authn", "jwt", orderAuthEnabled, false)...), nil
}

// jwtProvider is one provider, with the cluster entry of its remote key
// set (nil for a local one).
func jwtProvider(p NamedJWTProvider, ns string) (*jwtv3.JwtProvider, *clusterv3.Cluster, error) {
	po := &jwtv3.JwtProvider{Issuer: p.Issuer, Audiences: p.Audiences, PayloadInMetadata: "payload"}
	if p.ForwardToken != nil {
		po.Forward = *p.ForwardToken
	}
	if ts := p.TokenSource; ts != nil {
		if ts.HeaderSource != nil {
			h := &jwtv3.JwtHeader{Name: ts.HeaderSource.Header}
			if ts.HeaderSource.Prefix != nil {
				h.ValuePrefix = *ts.HeaderSource.Prefix
			}
			po.FromHeaders = []*jwtv3.JwtHeader{h}
		}
		if ts.QueryParameter != nil {
			po.FromParams = []string{*ts.QueryParameter}
		}
	}
	for _, c := range p.ClaimsToHeaders {
		po.ClaimToHeaders = append(po.ClaimToHeaders, &jwtv3.JwtClaimToHeader{ClaimName: c.Name, HeaderName: c.Header})
	}
	// Headers set from claims can change which route matches: kgateway
	// has Envoy match again.
	po.ClearRouteCache = len(po.ClaimToHeaders) > 0
	inline := func(s string) *jwtv3.JwtProvider_LocalJwks {
		return &jwtv3.JwtProvider_LocalJwks{LocalJwks: &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: s}}}
	}
	switch {
	case p.JWKS.Local != nil && p.JWKS.Local.Inline != nil:
		po.JwksSourceSpecifier = inline(inlineJWKS(*p.JWKS.Local.Inline))
	case p.JWKS.Local != nil && p.JWKS.Local.ConfigMapRef != nil:
		po.JwksSourceSpecifier = inline(policy.ConfigMapPlaceholder(ns, p.JWKS.Local.ConfigMapRef.Name, "jwks"))
	case p.JWKS.Remote != nil:
		remote, cl, err := remoteJWKS(p.JWKS.Remote, ns)
		if err != nil {
			return nil, nil, err
		}
		po.JwksSourceSpecifier = &jwtv3.JwtProvider_RemoteJwks{RemoteJwks: remote}
		return po, cl, nil
	default:
		return nil, nil, fmt.Errorf("jwt provider %s needs jwks.local or jwks.remote", p.Name)
	}
	return po, nil, nil
}

// remoteJWKS fetches a key set from a URL through the backend's cluster.
func remoteJWKS(rj *RemoteJWKS, ns string) (*jwtv3.RemoteJwks, *clusterv3.Cluster, error) {
	name, cl := serviceCluster(rj.BackendRef, ns, false)
	remote := &jwtv3.RemoteJwks{HttpUri: &corev3.HttpUri{Uri: rj.URL,
		HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: name}, Timeout: durationpb.New(5 * time.Second)}}
	var err error
	if rj.CacheDuration != nil {
		if remote.CacheDuration, err = duration("jwks.remote.cacheDuration", *rj.CacheDuration); err != nil {
			return nil, nil, err
		}
	}
	if af := rj.AsyncFetch; af != nil {
		remote.AsyncFetch = &jwtv3.JwksAsyncFetch{}
		if af.FastListener != nil {
			remote.AsyncFetch.FastListener = *af.FastListener
		}
		if af.FailedRefetchDuration != nil {
			if remote.AsyncFetch.FailedRefetchDuration, err = duration("jwks.remote.asyncFetch.failedRefetchDuration", *af.FailedRefetchDuration); err != nil {
				return nil, nil, err
			}
		}
	}
	if rp := rj.RetryPolicy; rp != nil {
		remote.RetryPolicy = &corev3.RetryPolicy{}
		if rp.NumRetries != nil {
			remote.RetryPolicy.NumRetries = wrapperspb.UInt32(uint32(max(*rp.NumRetries, 0)))
		}
		if b := rp.BackOff; b != nil {
			bo := &corev3.BackoffStrategy{}
			if bo.BaseInterval, err = duration("jwks.remote.retryPolicy.backOff.baseInterval", b.BaseInterval); err != nil {
				return nil, nil, err
			}
			if b.MaxInterval != nil {
				if bo.MaxInterval, err = duration("jwks.remote.retryPolicy.backOff.maxInterval", *b.MaxInterval); err != nil {
					return nil, nil, err
				}
			}
			remote.RetryPolicy.RetryBackOff = bo
		}
	}
	return remote, cl, nil
}

// duration reads a policy duration field.
func duration(field, s string) (*durationpb.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %q is not a duration", field, s)
	}
	return durationpb.New(d), nil
}
