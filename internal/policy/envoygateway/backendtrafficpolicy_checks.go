package envoygateway

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// backendTraffic runs the checks of Envoy Gateway's BackendTrafficPolicy
// translation (buildTrafficFeatures and the builders it calls), in its
// order: rate limit, bandwidth limit, load balancer, circuit breaker, TCP
// keepalive, retry, timeouts, backend connection, HTTP/2, response
// override, request buffer, telemetry, and the request buffer against
// HTTP upgrades. Every builder runs and their errors are joined; within
// one builder, the ones that return at their first error report only that
// one (buildClusterSettingsTimeout and buildIRHTTP2Settings join theirs).
// docs/controllers/envoygateway-checks.md lists each check with its source.
func (v valueChecks) backendTraffic(s *egv1a1.BackendTrafficPolicySpec, env *policy.Env) {
	globalRL := RateLimitEnabled.Bool(env.Config)
	v.rateLimit(s.RateLimit, globalRL)
	v.bandwidthLimit(s.BandwidthLimit)
	v.loadBalancer(s.LoadBalancer)
	v.circuitBreaker(s.CircuitBreaker)
	v.tcpKeepalive(s.TCPKeepalive)
	v.retry(s.Retry)
	v.clusterTimeout(s.Timeout)
	v.backendConnection(s.Connection)
	v.http2Settings(s.HTTP2)
	v.responseOverride(s.ResponseOverride, env.Model)
	buffered := false
	if rb := s.RequestBuffer; rb != nil {
		q := rb.Limit
		n, ok := q.AsInt64()
		switch {
		case !ok:
			v.invalid([]string{"requestBuffer", "limit"}, "RequestBuffer: limit must be convertible to an int64.")
		case n < 0 || n > math.MaxUint32:
			v.invalid([]string{"requestBuffer", "limit"}, "RequestBuffer: limit value %s is out of range, must be between 0 and %d.", q.String(), uint32(math.MaxUint32))
		default:
			buffered = true
		}
	}
	if t := s.Telemetry; t != nil && t.Metrics != nil && t.Metrics.RouteStatName != nil && *t.Metrics.RouteStatName != "" {
		if err := validateRouteStatName(*t.Metrics.RouteStatName); err != nil {
			v.invalid([]string{"telemetry", "metrics", "routeStatName"}, "Telemetry: %v.", err)
		}
	}
	if buffered && len(s.HTTPUpgrade) > 0 {
		v.invalid([]string{"requestBuffer"}, "RequestBuffer: requestBuffer cannot be used together with httpUpgrade.")
	}
	if hc := s.HealthCheck; hc != nil && hc.Active != nil && hc.Active.HTTP != nil {
		v.httpStatuses(hc.Active.HTTP.ExpectedStatuses, "healthCheck", "active", "http", "expectedStatuses")
		v.httpStatuses(hc.Active.HTTP.RetriableStatuses, "healthCheck", "active", "http", "retriableStatuses")
	}
	if r := s.Retry; r != nil && r.RetryOn != nil {
		v.httpStatuses(r.RetryOn.HTTPStatusCodes, "retry", "retryOn", "httpStatusCodes")
	}
}

// bandwidthLimit is buildBandwidthLimit: the request's limit, then the
// response's, each a whole, non-negative number of bytes per unit of at
// least 1 KiB per second; it returns at its first error.
func (v valueChecks) bandwidthLimit(bl *egv1a1.BandwidthLimitSpec) {
	if bl == nil {
		return
	}
	var limits [2]*egv1a1.BandwidthLimitValue
	if bl.Request != nil {
		limits[0] = &bl.Request.Limit
	}
	if bl.Response != nil {
		limits[1] = &bl.Response.Limit
	}
	for i, dir := range []string{"request", "response"} {
		l := limits[i]
		if l == nil {
			continue
		}
		path := []string{"bandwidthLimit", dir, "limit", "value"}
		n, ok := l.Value.AsInt64()
		unit := string(l.Unit)
		secs := map[string]int64{"Minute": 60, "Hour": 3600}[unit]
		if secs == 0 {
			secs = 1 // bandwidthToKibps: any other unit is per second
		}
		switch {
		case !ok:
			v.invalid(path, "BandwidthLimit: %s limit value must be convertible to an int64.", dir)
		case n < 0:
			v.invalid(path, "BandwidthLimit: %s limit value must be positive.", dir)
		case n/(secs*1024) == 0:
			v.invalid(path, "BandwidthLimit: %s: bandwidth limit of %d bytes per %s is below the minimum of 1 KiB/s.", dir, n, unit)
		default:
			continue
		}
		return
	}
}

// loadBalancer is buildLoadBalancer: what it reads depends on the type —
// a consistent-hash table size (a prime ≤ 5000011), the backend
// utilization periods, the slow start window of the types that have one
// (RoundRobin, LeastRequest, BackendUtilization; Random has none). It
// returns at its first error; a bad slow start window is reported with
// Go's own duration error.
func (v valueChecks) loadBalancer(lb *egv1a1.LoadBalancer) {
	if lb == nil {
		return
	}
	switch lb.Type {
	case egv1a1.ConsistentHashLoadBalancerType:
		v.tableSize(lb.ConsistentHash)
		return
	case egv1a1.BackendUtilizationLoadBalancerType:
		if v.backendUtilization(lb.BackendUtilization) {
			return
		}
	case egv1a1.RoundRobinLoadBalancerType, egv1a1.LeastRequestLoadBalancerType:
	default:
		return
	}
	if ss := lb.SlowStart; ss != nil && ss.Window != nil {
		if _, err := time.ParseDuration(string(*ss.Window)); err != nil {
			v.invalid([]string{"loadBalancer", "slowStart", "window"}, "LoadBalancer: %v.", err)
		}
	}
}

// backendUtilization checks the periods of a BackendUtilization load
// balancer, up to the first that is not a duration; it reports whether
// one was not.
func (v valueChecks) backendUtilization(bu *egv1a1.BackendUtilization) bool {
	if bu == nil {
		return false
	}
	var reporting *gwv1.Duration
	if bu.OutOfBand != nil {
		reporting = bu.OutOfBand.ReportingPeriod
	}
	for _, f := range []struct {
		name, field string
		value       *gwv1.Duration
	}{
		{"BlackoutPeriod", "blackoutPeriod", bu.BlackoutPeriod},
		{"WeightExpirationPeriod", "weightExpirationPeriod", bu.WeightExpirationPeriod},
		{"WeightUpdatePeriod", "weightUpdatePeriod", bu.WeightUpdatePeriod},
		{"OutOfBand ReportingPeriod", "outOfBand.reportingPeriod", reporting},
	} {
		if f.value == nil {
			continue
		}
		if _, err := time.ParseDuration(string(*f.value)); err != nil {
			v.invalid([]string{"loadBalancer", "backendUtilization", f.field}, "LoadBalancer: invalid %s value %s: %v.", f.name, *f.value, err)
			return true
		}
	}
	return false
}

// circuitBreaker is buildCircuitBreaker: each limit fits in 32 bits
// unsigned, checked in Envoy Gateway's order up to the first that does
// not.
func (v valueChecks) circuitBreaker(cb *egv1a1.CircuitBreaker) {
	if cb == nil {
		return
	}
	for _, f := range []struct {
		field string
		value *int64
	}{
		{"maxConnections", cb.MaxConnections},
		{"maxParallelRequests", cb.MaxParallelRequests},
		{"maxPendingRequests", cb.MaxPendingRequests},
		{"maxParallelRetries", cb.MaxParallelRetries},
		{"maxRequestsPerConnection", cb.MaxRequestsPerConnection},
	} {
		if n := f.value; n != nil && (*n < 0 || *n > math.MaxUint32) {
			v.invalid([]string{"circuitBreaker", f.field}, "CircuitBreaker: invalid %s value %v.", upperFirst(f.field), *n)
			return
		}
	}
}

// retry is buildRetry: the per-try timeout is a Go duration (its error is
// Go's own); a back-off interval that parses must not be zero, and the
// maximum not below the base. Intervals that do not parse are left out,
// not refused. What buildRetry and the route's retry policy take nothing
// from is a warning at the field (retryUnused), for a policy's own retry
// (a backendSettings' retry is not a route's).
func (v valueChecks) retry(r *egv1a1.Retry) {
	if r == nil {
		return
	}
	if len(v.at) == 0 {
		v.retryUnused(r)
	}
	if r.PerRetry == nil {
		return
	}
	if t := r.PerRetry.Timeout; t != nil {
		if _, err := time.ParseDuration(string(*t)); err != nil {
			v.invalid([]string{"retry", "perRetry", "timeout"}, "Retry: %v.", err)
			return
		}
	}
	bo := r.PerRetry.BackOff
	if bo == nil {
		return
	}
	parse := func(s *gwv1.Duration) (time.Duration, bool) {
		if s == nil {
			return 0, false
		}
		d, err := time.ParseDuration(string(*s))
		return d, err == nil
	}
	base, hasBase := parse(bo.BaseInterval)
	if hasBase && base == 0 {
		v.invalid([]string{"retry", "perRetry", "backOff", "baseInterval"}, "Retry: baseInterval cannot be set to 0s.")
		return
	}
	if max, ok := parse(bo.MaxInterval); ok {
		switch {
		case max == 0:
			v.invalid([]string{"retry", "perRetry", "backOff", "maxInterval"}, "Retry: maxInterval cannot be set to 0s.")
		case hasBase && base > max:
			v.invalid([]string{"retry", "perRetry", "backOff", "maxInterval"}, "Retry: maxInterval cannot be less than baseInterval.")
		}
	}
}

// retryUnused warns at each retry field set to a value Envoy Gateway
// takes nothing from: a numAttemptsPerPriority that is not positive (the
// route's retry policy gets priority-aware retries only for a positive
// one), a retryOn with neither triggers nor httpStatusCodes, a perRetry
// with neither timeout nor backOff, a backOff with neither interval
// (buildRetry keeps each only when it sets something).
func (v valueChecks) retryUnused(r *egv1a1.Retry) {
	if n := r.NumAttemptsPerPriority; n != nil && *n <= 0 {
		v.noEffect([]string{"retry", "numAttemptsPerPriority"}, "Retry: numAttemptsPerPriority %d is not positive: Envoy Gateway sets no priority-aware retries for it, so it has no effect", *n)
	}
	if on := r.RetryOn; on != nil && !retryOnSet(on) {
		v.noEffect([]string{"retry", "retryOn"}, "Retry: retryOn sets neither triggers nor httpStatusCodes: Envoy Gateway keeps its default triggers (%s) and status (%d), as if it were not set", retryDefaultOn, retryDefaultStatus)
	}
	pr := r.PerRetry
	if pr == nil {
		return
	}
	if pr.Timeout == nil && pr.BackOff == nil {
		v.noEffect([]string{"retry", "perRetry"}, "Retry: perRetry sets neither timeout nor backOff, so it has no effect")
	}
	if bo := pr.BackOff; bo != nil && bo.BaseInterval == nil && bo.MaxInterval == nil {
		v.noEffect([]string{"retry", "perRetry", "backOff"}, "Retry: backOff sets neither baseInterval nor maxInterval: Envoy Gateway writes no back-off, so Envoy's default applies")
	}
}

// responseOverride is getCustomResponseBody: a body of type ValueRef is
// read from a ConfigMap in the policy's namespace, key response.body, else
// any key (data, then binaryData); a ConfigMap that is missing or empty is
// an error, the first one ends the builder. A body of another type does
// not read its valueRef.
func (v valueChecks) responseOverride(list []*egv1a1.ResponseOverride, m *model.Model) {
	ns := v.p.Obj.Namespace
	for i, ro := range list {
		if ro == nil || ro.Redirect != nil || ro.Response == nil {
			continue
		}
		body := ro.Response.Body
		if body == nil || body.Type == nil || *body.Type != egv1a1.ResponseValueTypeValueRef || body.ValueRef == nil {
			continue
		}
		name := string(body.ValueRef.Name)
		path := []string{fmt.Sprintf("responseOverride[%d]", i), "response", "body", "valueRef"}
		cm := m.ConfigMap(ns, name)
		switch {
		case cm == nil:
			v.invalid(path, "ResponseOverride: can't find the referenced configmap %s/%s.", ns, name)
		case len(cm.Keys) == 0:
			v.invalid(path, "ResponseOverride: can't find the key %s in the referenced configmap %s/%s.", responseBodyKey, ns, name)
		default:
			if len(cm.Keys) > 1 && !slices.Contains(cm.Keys, responseBodyKey) {
				v.p.Findings = append(v.p.Findings, v.p.Diag(policy.LintPolicyInvalid.Code, diag.Warning, "spec."+strings.Join(path, "."),
					"ResponseOverride: configmap %s/%s has no key response.body but several others (%s): Envoy Gateway takes the body from any one of them", ns, name, strings.Join(cm.Keys, ", ")))
			}
			continue
		}
		return
	}
}

// statOperator is an operator of a stat name (%…%).
var statOperator = regexp.MustCompile("%[^%]*%")

// routeStatOperators are the operators a route's stat name may use.
var routeStatOperators = map[string]bool{"%ROUTE_NAME%": true, "%ROUTE_NAMESPACE%": true, "%ROUTE_KIND%": true, "%ROUTE_RULE_NAME%": true}

// validateRouteStatName is Envoy Gateway's ValidateRouteStatName
// (api/v1alpha1/validation): every %…% operator is one a route's stat
// name supports, and a % is part of an operator.
func validateRouteStatName(name string) error {
	if why := statNameProblem(name, routeStatOperators); why != "" {
		return fmt.Errorf("unable to configure Route Stat Name: %s", why)
	}
	return nil
}
