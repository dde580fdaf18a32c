package envoygateway

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	jwtauthnv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// jwtFilter is Envoy's JWT authentication filter: one per listener, its
// providers and requirements those of every route under it, each route
// naming its requirement.
const jwtFilter = "envoy.filters.http.jwt_authn"

// Envoy Gateway's JWKS fetching: the API's default cache duration, its
// request timeout for external services, and the system trust bundle
// that checks a JWKS server's certificate.
const (
	jwksCacheDefault = 300 * time.Second
	jwksTimeout      = 10 * time.Second
	systemTrustStore = "/etc/ssl/certs/ca-certificates.crt"
)

// renderJWT is Envoy Gateway's JWT authentication: the jwt_authn filter,
// on in the chain, holding each provider under a name that carries a
// hash of its configuration and the route's requirement (its providers,
// any of them, plus a missing — optional — or a missing or failed —
// failOpen — token), named the same way; the route names its
// requirement. A remote JWKS is fetched through a DNS cluster named after
// its host and port (TLS for https, checked against the system trust
// store). A JWKS in a ConfigMap (its "jwks" key), which Envoy Gateway
// inlines, is the ConfigMap's placeholder: gwpol never reads ConfigMap
// data, so that provider's name hashes another configuration than Envoy
// Gateway's. A JWKS fetched through backendRefs is fetched through the
// provider's cluster of one Service port (jwksBackendCluster); through
// another shape of backends it is not rendered yet (see backendJWKS):
// unsupported, saying so.
func renderJWT(j *egv1a1.JWT, who policyName) ([]policy.Fragment, error) {
	return renderJWTOn(j, who, nil)
}

// renderJWTField is renderJWT of the field's value in effect, with the
// environment that tells which BackendTLSPolicies govern a JWKS backend.
func renderJWTField(in policy.FieldInput, env *policy.Env, who policyName) ([]policy.Fragment, error) {
	v, err := effectiveValue(in, "SecurityPolicy")
	if err != nil {
		return nil, err
	}
	j, err := typedAs[*egv1a1.JWT](v)
	if err != nil {
		return nil, fmt.Errorf("jwt: %w", err)
	}
	who.at = v.at
	return renderJWTOn(j, who, env)
}

// renderJWTOn is renderJWT given the environment (nil: no JWKS backend's
// cluster can be built).
func renderJWTOn(j *egv1a1.JWT, who policyName, env *policy.Env) ([]policy.Fragment, error) {
	if j == nil || len(j.Providers) == 0 {
		return nil, fmt.Errorf("jwt.providers: none")
	}
	cfg := &jwtauthnv3.JwtAuthentication{Providers: map[string]*jwtauthnv3.JwtProvider{}, RequirementMap: map[string]*jwtauthnv3.JwtRequirement{}}
	var reqs []*jwtauthnv3.JwtRequirement
	var names []string
	var frags []policy.Fragment
	for i, p := range j.Providers {
		prov, cluster, part, err := buildJWTProvider(p, who.at.field("providers").index(i), who.namespace, jwksClusterName(who, i))
		if err != nil && diag.KindOf(err) != diag.Unsupported {
			// Positioned at the provider whose value is refused.
			return nil, diag.FieldErrorf(diag.Invalid, fmt.Sprintf("spec.jwt.providers[%d]", i), "jwt.providers[%d]: %w", i, err)
		}
		if err != nil {
			return nil, fmt.Errorf("jwt.providers[%d]: %w", i, err)
		}
		if part == jwksBackendsPart {
			if c, ok := jwksBackendCluster(p.RemoteJWKS, who.namespace, jwksClusterName(who, i), env); ok {
				cluster, part = c, ""
			}
		}
		var parts []policy.Fragment
		if r := p.RemoteJWKS; r != nil && r.BackendSettings != nil && part == "" {
			var capability string
			parts, capability, err = serviceClusterParts(r.BackendSettings, who.at.field("providers").index(i).field("remoteJWKS").field("backendSettings"), who)
			if err != nil {
				return nil, fmt.Errorf("jwt.providers[%d].remoteJWKS.%w", i, err)
			}
			if capability != "" {
				return []policy.Fragment{{Capability: "envoygateway.SecurityPolicy.jwt.remoteJWKS.backendSettings." + capability}}, nil
			}
		}
		if part == jwksBackendsPart {
			return []policy.Fragment{{Capability: "envoygateway.SecurityPolicy.jwt." + part, Reason: fmt.Sprintf(jwksBackendsReason, jwksClusterName(who, i))}}, nil
		}
		if part != "" {
			return []policy.Fragment{{Capability: "envoygateway.SecurityPolicy.jwt." + part}}, nil
		}
		key, err := hashedName(p.Name, prov)
		if err != nil {
			return nil, err
		}
		cfg.Providers[key] = prov
		reqs = append(reqs, &jwtauthnv3.JwtRequirement{RequiresType: &jwtauthnv3.JwtRequirement_ProviderName{ProviderName: key}})
		names = append(names, p.Name)
		if cluster != nil {
			frags = append(frags, policy.Fragment{TypedClusters: []proto.Message{cluster}, TypedClusterParts: parts})
		}
	}
	switch {
	case j.FailOpen != nil && *j.FailOpen:
		reqs = append(reqs, &jwtauthnv3.JwtRequirement{RequiresType: &jwtauthnv3.JwtRequirement_AllowMissingOrFailed{AllowMissingOrFailed: &emptypb.Empty{}}})
		names = append(names, "missing-or-failed")
	case j.Optional != nil && *j.Optional:
		reqs = append(reqs, &jwtauthnv3.JwtRequirement{RequiresType: &jwtauthnv3.JwtRequirement_AllowMissing{AllowMissing: &emptypb.Empty{}}})
		names = append(names, "missing")
	}
	req := reqs[0]
	if len(reqs) > 1 {
		req = &jwtauthnv3.JwtRequirement{RequiresType: &jwtauthnv3.JwtRequirement_RequiresAny{RequiresAny: &jwtauthnv3.JwtRequirementOrList{Requirements: reqs}}}
	}
	reqName, err := hashedName(strings.Join(names, "-or-"), req)
	if err != nil {
		return nil, err
	}
	cfg.RequirementMap[reqName] = req
	return append(frags, policy.Fragment{
		Capability:           "jwt_authn",
		Filter:               &policy.HTTPFilter{Name: jwtFilter, Order: orderJWT, Enabled: true, Merge: true, Typed: cfg},
		TypedPerFilterConfig: map[string]proto.Message{jwtFilter: &jwtauthnv3.PerRouteConfig{RequirementSpecifier: &jwtauthnv3.PerRouteConfig_RequirementName{RequirementName: reqName}}},
	}), nil
}

// buildJWTProvider is one provider as Envoy Gateway configures it, and
// the cluster its remote JWKS is fetched through; part names a setting
// not rendered yet.
func buildJWTProvider(p egv1a1.JWTProvider, at writtenAt, ns, jwksCluster string) (prov *jwtauthnv3.JwtProvider, cluster *clusterv3.Cluster, part string, err error) {
	prov = &jwtauthnv3.JwtProvider{
		Issuer: p.Issuer, Audiences: p.Audiences, PayloadInMetadata: p.Name, Forward: true,
		NormalizePayloadInMetadata: &jwtauthnv3.JwtProvider_NormalizePayload{SpaceDelimitedClaims: []string{"scope", "scp"}},
	}
	for _, c := range p.ClaimToHeaders {
		prov.ClaimToHeaders = append(prov.ClaimToHeaders, &jwtauthnv3.JwtClaimToHeader{HeaderName: c.Header, ClaimName: c.Claim})
	}
	switch {
	case p.LocalJWKS != nil:
		l := p.LocalJWKS
		jwks := ""
		switch {
		case l.Inline != nil:
			jwks = *l.Inline
		case l.ValueRef != nil:
			jwks = policy.ConfigMapPlaceholder(ns, string(l.ValueRef.Name), "jwks")
		default:
			return nil, nil, "", fmt.Errorf("localJWKS: neither inline nor valueRef")
		}
		prov.JwksSourceSpecifier = &jwtauthnv3.JwtProvider_LocalJwks{LocalJwks: &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: jwks}}}
	case p.RemoteJWKS != nil && viaBackends(p.RemoteJWKS):
		name := jwksCluster
		if len(p.RemoteJWKS.BackendRefs) == 0 {
			// Envoy Gateway reads backendRefs alone (buildRemoteJWKS):
			// without them the JWKS is fetched through its URI's cluster,
			// which the backendSettings shape (jwt.go: patchResources,
			// addClusterFromURL with the settings)
			if cluster, err = urlCluster(p.RemoteJWKS.URI); err != nil {
				return nil, nil, "", fmt.Errorf("remoteJWKS.uri: %w", err)
			}
			name = cluster.Name
		}
		remote, bpart, err := backendJWKS(p.RemoteJWKS, at.field("remoteJWKS"), name)
		if err != nil {
			return nil, nil, "", err
		}
		prov.JwksSourceSpecifier = &jwtauthnv3.JwtProvider_RemoteJwks{RemoteJwks: remote}
		part = bpart
		if part == "" && cluster == nil {
			// The provider is Envoy Gateway's; the cluster of its
			// backends is built by the caller where it can be.
			part = jwksBackendsPart
		}
	case p.RemoteJWKS != nil:
		remote, c, err := fetchJWKS(p.RemoteJWKS)
		if err != nil {
			return nil, nil, "", err
		}
		prov.JwksSourceSpecifier = &jwtauthnv3.JwtProvider_RemoteJwks{RemoteJwks: remote}
		cluster = c
	default:
		return nil, nil, "", fmt.Errorf("neither remoteJWKS nor localJWKS")
	}
	if p.RecomputeRoute != nil {
		prov.ClearRouteCache = *p.RecomputeRoute
	}
	if x := p.ExtractFrom; x != nil {
		for _, h := range x.Headers {
			prov.FromHeaders = append(prov.FromHeaders, &jwtauthnv3.JwtHeader{Name: h.Name, ValuePrefix: deref(h.ValuePrefix)})
		}
		prov.FromCookies, prov.FromParams = x.Cookies, x.Params
	}
	return prov, cluster, part, nil
}

// fetchJWKS is a remote JWKS fetched asynchronously through the cluster
// of its URI's host and port.
func fetchJWKS(r *egv1a1.RemoteJWKS) (*jwtauthnv3.RemoteJwks, *clusterv3.Cluster, error) {
	c, err := urlCluster(r.URI)
	if err != nil {
		return nil, nil, fmt.Errorf("remoteJWKS.uri: %w", err)
	}
	remote := &jwtauthnv3.RemoteJwks{
		HttpUri:       &corev3.HttpUri{Uri: r.URI, HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: c.Name}, Timeout: durationpb.New(jwksTimeout)},
		AsyncFetch:    &jwtauthnv3.JwksAsyncFetch{},
		CacheDuration: durationpb.New(jwksCacheDefault),
	}
	if r.CacheDuration != nil {
		if remote.CacheDuration, err = optDuration(r.CacheDuration); err != nil {
			return nil, nil, fmt.Errorf("remoteJWKS.cacheDuration: %w", err)
		}
	}
	if remote.AsyncFetch.FailedRefetchDuration, err = optDuration(r.FailedRefetchDuration); err != nil {
		return nil, nil, fmt.Errorf("remoteJWKS.failedRefetchDuration: %w", err)
	}
	return remote, c, nil
}

// urlCluster is Envoy Gateway's cluster for a URL: <host, dots as
// underscores>_<port> (443 for https, else 80, unless given), resolving
// the host by DNS (an IP address is a static endpoint), TLS with the
// host as SNI for https.
func urlCluster(raw string) (*clusterv3.Cluster, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	port := uint64(80)
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.ParseUint(p, 10, 16); err != nil {
			return nil, err
		}
	}
	host := u.Hostname()
	if host == "" {
		// Envoy refuses an endpoint without an address: the URL is the
		// field's problem, not a cluster to write.
		return nil, fmt.Errorf("%q names no host", raw)
	}
	name := strings.ReplaceAll(host, ".", "_") + "_" + strconv.FormatUint(port, 10)
	discovery := clusterv3.Cluster_STRICT_DNS
	if _, err := netip.ParseAddr(host); err == nil {
		discovery = clusterv3.Cluster_STATIC
	}
	c := &clusterv3.Cluster{
		Name:                 name,
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: discovery},
		LoadAssignment: &endpointv3.ClusterLoadAssignment{ClusterName: name, Endpoints: []*endpointv3.LocalityLbEndpoints{{
			LbEndpoints: []*endpointv3.LbEndpoint{{HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
				Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
					Address: host, PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: uint32(port)}}}}}}}},
		}}},
	}
	if u.Scheme == "https" {
		tls, err := anypb.New(&tlsv3.UpstreamTlsContext{Sni: host, CommonTlsContext: &tlsv3.CommonTlsContext{
			TlsParams: &tlsv3.TlsParameters{TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3},
			ValidationContextType: &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: &tlsv3.CertificateValidationContext{
				TrustedCa: &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: systemTrustStore}}}},
		}})
		if err != nil {
			return nil, err
		}
		c.TransportSocket = &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: tls}}
	}
	return c, nil
}

// hashedName is Envoy Gateway's name for a JWT provider or requirement:
// a readable prefix, "_", and the first 16 hex digits of the SHA-256 of
// the configuration's deterministic encoding — identical configurations
// share one entry, whichever routes use them. The prefix is cut so the
// name stays within 256 characters.
func hashedName(prefix string, m proto.Message) (string, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	suffix := "_" + hex.EncodeToString(sum[:8])
	if limit := 256 - len(suffix); len(prefix) > limit {
		prefix = prefix[:limit]
	}
	return prefix + suffix, nil
}
