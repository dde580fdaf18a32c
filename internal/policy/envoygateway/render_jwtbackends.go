//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"fmt"
	"strconv"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	jwtauthnv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// This file is a remote JWKS that Envoy Gateway fetches through the
// provider's backendRefs rather than through a cluster of the URI's host
// and port. Envoy Gateway builds a cluster of the provider for it,
// securitypolicy/<ns>/<name>/jwt/<i>, of the backends' endpoints shaped
// by the provider's backendSettings (and a BackendTLSPolicy on the
// backend); the provider itself points at that cluster, takes its
// request timeout from backendSettings.timeout.http.requestTimeout and
// its fetch retries from backendSettings.retry. The provider is built
// here, so its hashed name and its route's requirement name are Envoy
// Gateway's. The cluster is built for one Service port
// (jwksBackendCluster); for another shape of backends it is not built
// yet, so render reports the field unsupported (jwksBackendsPart) and the
// routes fail closed.

// jwksBackendsPart is the part of spec.jwt render cannot express yet: the
// cluster a JWKS is fetched through when the provider names backendRefs.
const jwksBackendsPart = "remoteJWKS.backendRefs"

// jwksBackendsReason is why jwksBackendsPart is unsupported (%s: the
// cluster Envoy Gateway would build).
const jwksBackendsReason = "Envoy Gateway fetches this remote JWKS through a cluster of the provider, %s, " +
	"built from remoteJWKS.backendRefs, backendSettings and any BackendTLSPolicy on the backends; " +
	"gwpol does not build that cluster yet for these backends (it does for one Service port without a BackendTLSPolicy, its backendSettings shaping it; a remoteJWKS without backendRefs renders)"

// jwksClusterName is Envoy Gateway's name for the cluster the JWKS of
// the policy's i-th provider is fetched through when it names backends.
func jwksClusterName(who policyName, i int) string {
	return who.result().String() + "/jwt/" + strconv.Itoa(i)
}

// viaBackends reports whether a remoteJWKS is fetched through backends
// (backendRef, backendRefs or backendSettings set).
func viaBackends(r *egv1a1.RemoteJWKS) bool {
	return r.BackendRef != nil || r.BackendRefs != nil || r.BackendSettings != nil
}

// backendJWKS is the RemoteJwks of a provider fetched through backends,
// calling cluster: fetched asynchronously, cached (300s unless
// cacheDuration says otherwise), timing out after the backendSettings'
// HTTP request timeout (10s unless set), retried as backendSettings.retry
// says. part names a setting the provider cannot carry (a retry on HTTP
// statuses, a per-try timeout, retries per priority: Envoy's JWKS retry
// policy has none of these).
func backendJWKS(r *egv1a1.RemoteJWKS, written writtenAt, cluster string) (remote *jwtauthnv3.RemoteJwks, part string, err error) {
	settings := r.BackendSettings
	if settings == nil {
		settings = &egv1a1.ClusterSettings{}
	}
	timeout := durationpb.New(jwksTimeout)
	if t := settings.Timeout; t != nil && t.HTTP != nil && t.HTTP.RequestTimeout != nil {
		if timeout, err = optDuration(t.HTTP.RequestTimeout); err != nil {
			return nil, "", fmt.Errorf("remoteJWKS.backendSettings.timeout.http.requestTimeout: %w", err)
		}
	}
	remote = &jwtauthnv3.RemoteJwks{
		HttpUri:       &corev3.HttpUri{Uri: r.URI, HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: cluster}, Timeout: timeout},
		AsyncFetch:    &jwtauthnv3.JwksAsyncFetch{},
		CacheDuration: durationpb.New(jwksCacheDefault),
	}
	if r.CacheDuration != nil {
		if remote.CacheDuration, err = optDuration(r.CacheDuration); err != nil {
			return nil, "", fmt.Errorf("remoteJWKS.cacheDuration: %w", err)
		}
	}
	if remote.AsyncFetch.FailedRefetchDuration, err = optDuration(r.FailedRefetchDuration); err != nil {
		return nil, "", fmt.Errorf("remoteJWKS.failedRefetchDuration: %w", err)
	}
	if settings.Retry != nil {
		rp, p, err := nonRouteRetry(settings.Retry, written.field("backendSettings").field("retry"), "remoteJWKS.backendSettings.retry")
		if err != nil || p != "" {
			return nil, p, err
		}
		remote.RetryPolicy = rp
	}
	return remote, "", nil
}

// nonRouteRetry is a backendSettings.retry as the retry policy of the
// calls to a service (a JWKS fetch, an external processor's gRPC
// stream), as Envoy Gateway builds a retry of a call no route makes
// (buildNonRouteRetryPolicy): the number of retries, the back-off and
// the triggers (retryTriggerList), its default triggers where none are
// given. at is the retry's path, written where it was written.
func nonRouteRetry(r *egv1a1.Retry, written writtenAt, at string) (*corev3.RetryPolicy, string, error) {
	if k := unrenderedFields(written, r, "numRetries", "retryOn", "perRetry"); k != "" {
		return nil, at + "." + k, nil
	}
	rp := &corev3.RetryPolicy{RetryOn: retryDefaultOn}
	if r.NumRetries != nil {
		if *r.NumRetries < 0 {
			return nil, "", fmt.Errorf("%s.numRetries: %d is negative", at, *r.NumRetries)
		}
		rp.NumRetries = wrapperspb.UInt32(uint32(*r.NumRetries))
	}
	if on := r.RetryOn; on != nil {
		if len(on.HTTPStatusCodes) > 0 {
			return nil, at + ".retryOn.httpStatusCodes", nil
		}
		triggers, err := retryTriggerList(on.Triggers, at+".retryOn.triggers")
		if err != nil {
			return nil, "", err
		}
		if triggers != "" {
			rp.RetryOn = triggers
		}
	}
	if pr := r.PerRetry; pr != nil {
		if pr.Timeout != nil {
			return nil, at + ".perRetry.timeout", nil
		}
		if bo := pr.BackOff; bo != nil {
			base, err := optDuration(bo.BaseInterval)
			if err != nil {
				return nil, "", fmt.Errorf("%s.perRetry.backOff.baseInterval: %w", at, err)
			}
			maxInterval, err := optDuration(bo.MaxInterval)
			if err != nil {
				return nil, "", fmt.Errorf("%s.perRetry.backOff.maxInterval: %w", at, err)
			}
			if base != nil || maxInterval != nil {
				rp.RetryBackOff = &corev3.BackoffStrategy{BaseInterval: base, MaxInterval: maxInterval}
			}
		}
	}
	return rp, "", nil
}

// jwksBackendCluster is the cluster of the provider a remote JWKS is
// fetched through when its one backend is a Service port, as Envoy
// Gateway builds it (securitypolicy.go: buildRemoteJWKS →
// ext_service.go: translateExtServiceBackendRefs; xds translator
// jwt.go: patchResources → utils.go: createExtServiceXDSCluster): named
// name, an EDS cluster of the port's endpoints (those gwpol's cluster of
// the port is fed), its connect timeout 10s, plain HTTP/1.1 whatever the
// URI's scheme — TLS to the backend comes from a BackendTLSPolicy on it
// alone (applyBackendTLSSetting). The backendSettings shape it
// (serviceClusterParts, the caller's). ok is false for every other
// shape, not built yet: several backends, a Backend or another kind, a
// port a BackendTLSPolicy governs, or no environment to tell. Only
// backendRefs count: Envoy Gateway reads no other (buildRemoteJWKS).
func jwksBackendCluster(r *egv1a1.RemoteJWKS, ns, name string, env *policy.Env) (*clusterv3.Cluster, bool) {
	if r == nil || env == nil || len(r.BackendRefs) != 1 {
		return nil, false
	}
	ref := weightedRefOf(r.BackendRefs[0])
	if ref.unweighted || ref.Port == nil {
		return nil, false
	}
	k := ref.key(ns)
	if k.Group != "" || k.Kind != "Service" {
		return nil, false
	}
	for _, bp := range env.BackendPolicies(k, *ref.Port) {
		if bp.Policy.Group == model.GatewayGroup && bp.Policy.Kind == "BackendTLSPolicy" {
			return nil, false
		}
	}
	return &clusterv3.Cluster{
		Name:                 name,
		ConnectTimeout:       durationpb.New(extServiceTimeout),
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig: &clusterv3.Cluster_EdsClusterConfig{ServiceName: policy.ServiceCluster(k.Namespace, k.Name, *ref.Port), EdsConfig: &corev3.ConfigSource{
			ResourceApiVersion:    corev3.ApiVersion_V3,
			ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
		}},
	}, true
}
