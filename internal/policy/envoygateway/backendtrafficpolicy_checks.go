package envoygateway

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

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
func (v valueChecks) backendTraffic(raw []byte, env *policy.Env) {
	globalRL := RateLimitEnabled.Bool(env.Config)
	v.rateLimit(globalRL)
	v.bandwidthLimit()
	v.loadBalancer()
	v.circuitBreaker()
	v.first(
		v.dur("TCPKeepalive: invalid IdleTime value %s.", "tcpKeepalive", "idleTime"),
		v.dur("TCPKeepalive: invalid Interval value %s.", "tcpKeepalive", "interval"),
	)
	v.retry()
	v.duration("Timeout: invalid ConnectTimeout value %s.", "timeout", "tcp", "connectTimeout")
	v.duration("Timeout: invalid ConnectionIdleTimeout value %s.", "timeout", "http", "connectionIdleTimeout")
	v.duration("Timeout: invalid MaxConnectionDuration value %s.", "timeout", "http", "maxConnectionDuration")
	v.duration("Timeout: invalid RequestTimeout value %s.", "timeout", "http", "requestTimeout")
	v.duration("Timeout: invalid MaxStreamDuration value %s.", "timeout", "http", "maxStreamDuration")
	v.duration("Timeout: invalid StreamIdleTimeout value %s.", "timeout", "http", "streamIdleTimeout")
	if s, n, ok := v.quantity("connection", "bufferLimit"); s != "" {
		switch {
		case !ok:
			v.invalid([]string{"connection", "bufferLimit"}, "BackendConnection: invalid BufferLimit value %s.", s)
		case n < 0 || n > math.MaxUint32:
			v.invalid([]string{"connection", "bufferLimit"}, "BackendConnection: BufferLimit value %s is out of range.", s)
		}
	}
	v.http2Settings()
	v.responseOverride(env.Model)
	buffered := false
	if s, n, ok := v.quantity("requestBuffer", "limit"); s != "" {
		switch {
		case !ok:
			v.invalid([]string{"requestBuffer", "limit"}, "RequestBuffer: limit must be convertible to an int64.")
		case n < 0 || n > math.MaxUint32:
			v.invalid([]string{"requestBuffer", "limit"}, "RequestBuffer: limit value %s is out of range, must be between 0 and %d.", s, uint32(math.MaxUint32))
		default:
			buffered = true
		}
	}
	if name, ok := v.at("telemetry", "metrics", "routeStatName").(string); ok && name != "" {
		if err := validateRouteStatName(name); err != nil {
			v.invalid([]string{"telemetry", "metrics", "routeStatName"}, "Telemetry: %v.", err)
		}
	}
	if upgrades, _ := v.at("httpUpgrade").([]any); buffered && len(upgrades) > 0 {
		v.invalid([]string{"requestBuffer"}, "RequestBuffer: requestBuffer cannot be used together with httpUpgrade.")
	}
	v.httpStatuses("healthCheck", "active", "http", "expectedStatuses")
	v.httpStatuses("healthCheck", "active", "http", "retriableStatuses")
	v.httpStatuses("retry", "retryOn", "httpStatusCodes")
}

// quantity reads a resource.Quantity at path: its text ("" when unset),
// and its value when it is a whole number that fits in an int64
// (Quantity.AsInt64, which Envoy Gateway calls).
func (v valueChecks) quantity(path ...string) (s string, n int64, ok bool) {
	s = quantityString(v.at(path...))
	if s == "" {
		return "", 0, false
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return s, 0, false
	}
	n, ok = q.AsInt64()
	return s, n, ok
}

// bandwidthLimit is buildBandwidthLimit: the request's limit, then the
// response's, each a whole, non-negative number of bytes per unit of at
// least 1 KiB per second; it returns at its first error.
func (v valueChecks) bandwidthLimit() {
	for _, dir := range []string{"request", "response"} {
		path := []string{"bandwidthLimit", dir, "limit", "value"}
		s, n, ok := v.quantity(path...)
		if s == "" {
			continue
		}
		unit, _ := v.at("bandwidthLimit", dir, "limit", "unit").(string)
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
func (v valueChecks) loadBalancer() {
	typ, _ := v.at("loadBalancer", "type").(string)
	switch typ {
	case "ConsistentHash":
		v.tableSize()
		return
	case "BackendUtilization":
		for _, f := range []struct{ name, field string }{
			{"BlackoutPeriod", "blackoutPeriod"}, {"WeightExpirationPeriod", "weightExpirationPeriod"}, {"WeightUpdatePeriod", "weightUpdatePeriod"},
		} {
			path := []string{"loadBalancer", "backendUtilization", f.field}
			if s, ok := v.at(path...).(string); ok {
				if _, err := time.ParseDuration(s); err != nil {
					v.invalid(path, "LoadBalancer: invalid %s value %s: %v.", f.name, s, err)
					return
				}
			}
		}
		path := []string{"loadBalancer", "backendUtilization", "outOfBand", "reportingPeriod"}
		if s, ok := v.at(path...).(string); ok {
			if _, err := time.ParseDuration(s); err != nil {
				v.invalid(path, "LoadBalancer: invalid OutOfBand ReportingPeriod value %s: %v.", s, err)
				return
			}
		}
	case "RoundRobin", "LeastRequest":
	default:
		return
	}
	path := []string{"loadBalancer", "slowStart", "window"}
	if s, ok := v.at(path...).(string); ok {
		if _, err := time.ParseDuration(s); err != nil {
			v.invalid(path, "LoadBalancer: %v.", err)
		}
	}
}

// circuitBreaker is buildCircuitBreaker: each limit fits in 32 bits
// unsigned, checked in Envoy Gateway's order up to the first that does
// not.
func (v valueChecks) circuitBreaker() {
	for _, f := range []string{"maxConnections", "maxParallelRequests", "maxPendingRequests", "maxParallelRetries", "maxRequestsPerConnection"} {
		path := []string{"circuitBreaker", f}
		if n, ok := v.at(path...).(float64); ok && (n < 0 || n > math.MaxUint32) {
			v.invalid(path, "CircuitBreaker: invalid %s value %v.", upperFirst(f), int64(n))
			return
		}
	}
}

// retry is buildRetry: the per-try timeout is a Go duration (its error is
// Go's own); a back-off interval that parses must not be zero, and the
// maximum not below the base. Intervals that do not parse are left out,
// not refused.
func (v valueChecks) retry() {
	if s, ok := v.at("retry", "perRetry", "timeout").(string); ok {
		if _, err := time.ParseDuration(s); err != nil {
			v.invalid([]string{"retry", "perRetry", "timeout"}, "Retry: %v.", err)
			return
		}
	}
	parse := func(f string) (time.Duration, bool) {
		s, ok := v.at("retry", "perRetry", "backOff", f).(string)
		if !ok {
			return 0, false
		}
		d, err := time.ParseDuration(s)
		return d, err == nil
	}
	base, hasBase := parse("baseInterval")
	if hasBase && base == 0 {
		v.invalid([]string{"retry", "perRetry", "backOff", "baseInterval"}, "Retry: baseInterval cannot be set to 0s.")
		return
	}
	if max, ok := parse("maxInterval"); ok {
		switch {
		case max == 0:
			v.invalid([]string{"retry", "perRetry", "backOff", "maxInterval"}, "Retry: maxInterval cannot be set to 0s.")
		case hasBase && base > max:
			v.invalid([]string{"retry", "perRetry", "backOff", "maxInterval"}, "Retry: maxInterval cannot be less than baseInterval.")
		}
	}
}

// responseOverride is getCustomResponseBody: a body of type ValueRef is
// read from a ConfigMap in the policy's namespace, key response.body, else
// any key (data, then binaryData); a ConfigMap that is missing or empty is
// an error, the first one ends the builder. A body of another type does
// not read its valueRef.
func (v valueChecks) responseOverride(m *model.Model) {
	list, _ := v.at("responseOverride").([]any)
	ns := v.p.Obj.Namespace
	for i, o := range list {
		ro, _ := o.(map[string]any)
		if ro["redirect"] != nil {
			continue
		}
		resp, _ := ro["response"].(map[string]any)
		body, _ := resp["body"].(map[string]any)
		ref, _ := body["valueRef"].(map[string]any)
		if typ, _ := body["type"].(string); typ != "ValueRef" || ref == nil {
			continue
		}
		name, _ := ref["name"].(string)
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
	ops := statOperator.FindAllString(name, -1)
	if len(ops) == 0 && strings.Contains(name, "%") {
		return fmt.Errorf("unable to configure Route Stat Name: unable to configure stat name with invalid operator")
	}
	var bad []string
	for _, op := range ops {
		if !routeStatOperators[op] {
			bad = append(bad, op)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("unable to configure Route Stat Name: unsupported operators: %v", bad)
	}
	return nil
}
