//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"fmt"
	"slices"
	"strconv"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	jwtauthnv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
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
// Gateway's; the cluster is not built yet, so render reports the field
// unsupported (jwksBackendsPart) and the routes fail closed.

// jwksBackendsPart is the part of spec.jwt render cannot express yet: the
// cluster a JWKS is fetched through when the provider names backendRefs.
const jwksBackendsPart = "remoteJWKS.backendRefs"

// jwksBackendsReason is why jwksBackendsPart is unsupported (%s: the
// cluster Envoy Gateway would build).
const jwksBackendsReason = "Envoy Gateway fetches this remote JWKS through a cluster of the provider, %s, " +
	"built from remoteJWKS.backendRefs, backendSettings and any BackendTLSPolicy on the backends; " +
	"gwpol does not build that cluster yet (a remoteJWKS with only a uri renders)"

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
		rp, p, err := jwksRetry(settings.Retry, written.field("backendSettings").field("retry"))
		if err != nil || p != "" {
			return nil, p, err
		}
		remote.RetryPolicy = rp
	}
	return remote, "", nil
}

// jwksRetry is a backendSettings.retry as the JWKS fetch's retry policy:
// the number of retries, the back-off and the triggers (joined).
func jwksRetry(r *egv1a1.Retry, written writtenAt) (*corev3.RetryPolicy, string, error) {
	const at = "remoteJWKS.backendSettings.retry"
	if k := unrenderedFields(written, r, "numRetries", "retryOn", "perRetry"); k != "" {
		return nil, at + "." + k, nil
	}
	rp := &corev3.RetryPolicy{}
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
		for i, t := range on.Triggers {
			if !slices.Contains(retryTriggers, string(t)) {
				return nil, "", fmt.Errorf("%s.retryOn.triggers[%d]: unknown trigger %q", at, i, t)
			}
			if i > 0 {
				rp.RetryOn += ","
			}
			rp.RetryOn += string(t)
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
