package kgateway

import (
	"fmt"
	"maps"
	"slices"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/policy"
)

// extAuth: one ext_authz filter per GatewayExtension (deep merge keeps
// several), honouring the family's disable marker through
// filter_enabled_metadata.
//
// A disable among the values (a deep merge keeps it beside the providers
// it merged with) disables the family on the resource whatever the others
// call: kgateway's merged IR then has disableAllProviders, and
// handleExtAuth writes the disable marker and the blank auth metadata and
// returns before it adds any provider's filter or per-route config
// (trafficpolicy/extauth_policy.go, merge.go: mergeExtAuth).
func (r *fieldRenderer) extAuth() ([]policy.Fragment, error) {
	if anyDisables(r.in.Values, func(v *ExtAuthPolicy) bool { return v.Disable != nil }) {
		return append([]policy.Fragment{disableMarker("ext_authz", "ext_auth")}, r.authMetadata("ext_authz", "ext_auth", orderAuthEnabled, true)...), nil
	}
	var out []policy.Fragment
	for i, val := range r.in.Values {
		v, ok := val.(*ExtAuthPolicy)
		if !ok {
			return nil, fmt.Errorf("unexpected value %T", val)
		}
		ext, ns, err := r.extension(v.ExtensionRef, r.ns(i))
		if err != nil {
			return nil, err
		}
		p := ext.Spec.ExtAuth
		if p == nil {
			return nil, fmt.Errorf("GatewayExtension %s/%s has no extAuth", ns, ext.Name)
		}
		cfg, cl, err := extAuthz(p, ns, ext.Name, extensionHTTP2(r.env))
		if err != nil {
			return nil, err
		}
		filterName := "ext_auth/" + ns + "/" + ext.Name
		fr := policy.Fragment{Capability: "ext_authz", Filter: &policy.HTTPFilter{Name: filterName, Order: orderExtAuth, Typed: cfg},
			TypedClusters: []proto.Message{cl}}
		// Switched on as configured in the chain (kgateway's FilterConfig),
		// or with the policy's own check settings.
		if len(v.ContextExtensions) > 0 || v.WithRequestBody != nil {
			cs := &extauthzv3.CheckSettings{ContextExtensions: v.ContextExtensions}
			if v.WithRequestBody != nil {
				cs.WithRequestBody = requestBody(v.WithRequestBody)
			}
			fr.TypedPerFilterConfig = map[string]proto.Message{filterName: &extauthzv3.ExtAuthzPerRoute{
				Override: &extauthzv3.ExtAuthzPerRoute_CheckSettings{CheckSettings: cs}}}
		} else {
			fr.TypedPerFilterConfig = map[string]proto.Message{filterName: enabledConfig()}
		}
		fr.Filter.Precedence = filterWeight("extAuth", ext).Weight
		out = append(out, familyMarker("ext_authz", "ext_auth"), fr)
	}
	return append(out, r.authMetadata("ext_authz", "ext_auth", orderAuthEnabled, len(out) == 0)...), nil
}

// anyDisables reports whether one of the values, all of type T (a value
// of another type is left to the caller's own check), disables its
// family.
func anyDisables[T any](vals []any, disables func(*T) bool) bool {
	for _, val := range vals {
		if v, ok := val.(*T); ok && v != nil && disables(v) {
			return true
		}
	}
	return false
}

// extAuthz is the filter calling an extension's authorization service,
// switched off by the family's disable marker, with the cluster entry of
// the service.
func extAuthz(p *ExtAuthProvider, ns, extName string, http2 bool) (*extauthzv3.ExtAuthz, *clusterv3.Cluster, error) {
	cfg := &extauthzv3.ExtAuthz{
		FilterEnabledMetadata: &matcherv3.MetadataMatcher{Filter: disableNamespace("ext_auth"),
			Path:  []*matcherv3.MetadataMatcher_PathSegment{{Segment: &matcherv3.MetadataMatcher_PathSegment_Key{Key: "disable"}}},
			Value: &matcherv3.ValueMatcher{MatchPattern: &matcherv3.ValueMatcher_BoolMatch{BoolMatch: true}}, Invert: true},
		StatusOnError: &typev3.HttpStatus{Code: typev3.StatusCode_Forbidden},
	}
	var cl *clusterv3.Cluster
	switch {
	case p.GrpcService != nil:
		svc, c, err := extGrpcService(*p.GrpcService, ns, http2)
		if err != nil {
			return nil, nil, err
		}
		cl = c
		cfg.Services = &extauthzv3.ExtAuthz_GrpcService{GrpcService: svc}
	case p.HTTPService != nil:
		h := p.HTTPService
		var name string
		name, cl = serviceCluster(h.BackendRef.BackendObjectReference, ns, false)
		// kgateway's defaults: the cluster name as the URI (Envoy sends to
		// the cluster either way) and a 2s timeout.
		timeout := durationpb.New(2 * time.Second)
		if h.RequestTimeout != nil {
			var err error
			if timeout, err = duration("httpService.requestTimeout", *h.RequestTimeout); err != nil {
				return nil, nil, err
			}
		}
		hs := &extauthzv3.HttpService{PathPrefix: h.PathPrefix,
			ServerUri:             &corev3.HttpUri{Uri: name, HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: name}, Timeout: timeout},
			AuthorizationRequest:  authorizationRequest(h.AuthorizationRequest),
			AuthorizationResponse: authorizationResponse(h.AuthorizationResponse)}
		var err error
		if hs.RetryPolicy, err = extRetryPolicy(h.Retry, "httpService"); err != nil {
			return nil, nil, err
		}
		cfg.Services = &extauthzv3.ExtAuthz_HttpService{HttpService: hs}
	default:
		return nil, nil, fmt.Errorf("GatewayExtension %s/%s: extAuth needs grpcService or httpService", ns, extName)
	}
	if p.FailOpen != nil {
		cfg.FailureModeAllow = *p.FailOpen
	}
	if p.ClearRouteCache != nil {
		cfg.ClearRouteCache = *p.ClearRouteCache
	}
	if p.StatusOnError != nil {
		cfg.StatusOnError.Code = statusCode(*p.StatusOnError)
	}
	if p.StatPrefix != nil {
		cfg.StatPrefix = *p.StatPrefix
	}
	cfg.AllowedHeaders = exactList(p.HeadersToForward)
	if b := p.WithRequestBody; b != nil {
		cfg.WithRequestBody = requestBody(b)
	}
	return cfg, cl, nil
}

// authorizationRequest is the headers an HTTP authorization service is
// sent beside the client's, by name (kgateway reads them from a map; gwpol
// writes them sorted, so the output does not depend on map order).
func authorizationRequest(a *AuthorizationRequest) *extauthzv3.AuthorizationRequest {
	if a == nil || len(a.HeadersToAdd) == 0 {
		return nil
	}
	out := &extauthzv3.AuthorizationRequest{}
	for _, k := range slices.Sorted(maps.Keys(a.HeadersToAdd)) {
		out.HeadersToAdd = append(out.HeadersToAdd, &corev3.HeaderValue{Key: k, Value: a.HeadersToAdd[k]})
	}
	return out
}

// authorizationResponse is which of the authorization service's response
// headers reach the backend and the client.
func authorizationResponse(a *AuthorizationResponse) *extauthzv3.AuthorizationResponse {
	if a == nil || len(a.HeadersToBackend)+len(a.HeadersToClient)+len(a.HeadersToClientOnSuccess) == 0 {
		return nil
	}
	return &extauthzv3.AuthorizationResponse{AllowedUpstreamHeaders: exactList(a.HeadersToBackend),
		AllowedClientHeaders: exactList(a.HeadersToClient), AllowedClientHeadersOnSuccess: exactList(a.HeadersToClientOnSuccess)}
}

// exactList matches each header name exactly; nil for none.
func exactList(names []string) *matcherv3.ListStringMatcher {
	if len(names) == 0 {
		return nil
	}
	l := &matcherv3.ListStringMatcher{}
	for _, n := range names {
		l.Patterns = append(l.Patterns, &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: n}})
	}
	return l
}

// requestBody is ext_authz's with_request_body.
func requestBody(b *ExtAuthBufferSettings) *extauthzv3.BufferSettings {
	o := &extauthzv3.BufferSettings{MaxRequestBytes: uint32(max(b.MaxRequestBytes, 0))}
	if b.AllowPartialMessage != nil {
		o.AllowPartialMessage = *b.AllowPartialMessage
	}
	if b.PackAsBytes != nil {
		o.PackAsBytes = *b.PackAsBytes
	}
	return o
}

// statusCode is the Envoy status code of an HTTP status; one Envoy does
// not name falls back to 403, kgateway's default (never rendered: such a
// code makes the policies calling the extension Invalid,
// extAuthStatusProblem).
func statusCode(code int32) typev3.StatusCode {
	if _, ok := typev3.StatusCode_name[code]; ok {
		return typev3.StatusCode(code)
	}
	return typev3.StatusCode_Forbidden
}

// extAuthStatusProblem is the validation kgateway's policy plugin runs on
// an ext_authz extension's filter config (extAuthIR.Validate →
// TrafficPolicyGatewayExtensionIR.Validate → ExtAuthz.ValidateAll) where
// the GatewayExtension decides it: statusOnError must be a status Envoy's
// StatusCode enum defines (the CRD allows any of 100–511). Nil when it
// passes.
func extAuthStatusProblem(code int32) error {
	return (&extauthzv3.ExtAuthz{StatusOnError: &typev3.HttpStatus{Code: typev3.StatusCode(code)}}).ValidateAll()
}
