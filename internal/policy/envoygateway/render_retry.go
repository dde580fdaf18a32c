package envoygateway

import (
	"fmt"
	"slices"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	bufferv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/buffer/v3"
	previoushostsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/retry/host/previous_hosts/v3"
	previousprioritiesv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/retry/priority/previous_priorities/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/policy"
)

// Envoy Gateway's retry defaults: what a route retries on, the status it
// retries, and how often, unless the policy says otherwise.
const (
	retryDefaultOn     = "connect-failure,refused-stream,unavailable,cancelled,retriable-status-codes"
	retryDefaultStatus = 503
	retryDefaultNum    = 2
)

// retryTriggers are the retryOn triggers Envoy Gateway accepts, spelt as
// Envoy's retry_on conditions.
var retryTriggers = []string{"5xx", "gateway-error", "reset", "reset-before-request", "connect-failure", "retriable-4xx", "refused-stream",
	"retriable-status-codes", "cancelled", "deadline-exceeded", "internal", "resource-exhausted", "unavailable"}

// renderRetry is the route's retry policy as Envoy Gateway builds it:
// its defaults, a retry never sent to the host that just failed (at most
// 5 host selections), the policy's triggers (joined) and statuses in
// place of the default ones, the per-try timeout and back-off, and
// priority-aware retries when numAttemptsPerPriority is set.
func renderRetry(r *egv1a1.Retry, _ policyName) ([]policy.Fragment, error) {
	if r == nil {
		r = &egv1a1.Retry{}
	}
	hosts, err := anypb.New(&previoushostsv3.PreviousHostsPredicate{})
	if err != nil {
		return nil, err
	}
	rp := &routev3.RetryPolicy{
		RetryOn: retryDefaultOn, RetriableStatusCodes: []uint32{retryDefaultStatus}, NumRetries: wrapperspb.UInt32(retryDefaultNum),
		RetryHostPredicate: []*routev3.RetryPolicy_RetryHostPredicate{{Name: "envoy.retry_host_predicates.previous_hosts",
			ConfigType: &routev3.RetryPolicy_RetryHostPredicate_TypedConfig{TypedConfig: hosts}}},
		HostSelectionRetryMaxAttempts: 5,
	}
	if r.NumRetries != nil {
		if *r.NumRetries < 0 {
			return nil, fmt.Errorf("retry.numRetries: %d is negative", *r.NumRetries)
		}
		rp.NumRetries = wrapperspb.UInt32(uint32(*r.NumRetries))
	}
	if n := r.NumAttemptsPerPriority; n != nil && *n > 0 {
		pri, err := anypb.New(&previousprioritiesv3.PreviousPrioritiesConfig{UpdateFrequency: *n})
		if err != nil {
			return nil, err
		}
		rp.RetryPriority = &routev3.RetryPolicy_RetryPriority{Name: "envoy.retry_priorities.previous_priorities",
			ConfigType: &routev3.RetryPolicy_RetryPriority_TypedConfig{TypedConfig: pri}}
	}
	if on := r.RetryOn; retryOnSet(on) {
		if err := retryOn(rp, on.Triggers); err != nil {
			return nil, err
		}
		codes, err := retryStatuses(on.HTTPStatusCodes)
		if err != nil {
			return nil, err
		}
		rp.RetriableStatusCodes = codes
	}
	if err := perRetry(rp, r); err != nil {
		return nil, err
	}
	return []policy.Fragment{{Capability: "route", TypedRouteAction: &routev3.RouteAction{RetryPolicy: rp}}}, nil
}

// retryOnSet: retryOn sets triggers or httpStatusCodes (an empty list
// counts). Envoy Gateway's buildRetry takes a retryOn that sets neither
// as unset: the default triggers and status stay.
func retryOnSet(on *egv1a1.RetryOn) bool {
	return on != nil && (on.Triggers != nil || on.HTTPStatusCodes != nil)
}

// retryOn sets the triggers, when there are any, as Envoy Gateway
// writes them (retryTriggerList).
func retryOn(rp *routev3.RetryPolicy, triggers []egv1a1.TriggerEnum) error {
	on, err := retryTriggerList(triggers, "retry.retryOn.triggers")
	if err != nil || on == "" {
		return err
	}
	rp.RetryOn = on
	return nil
}

// retryTriggerList is a retry's triggers as Envoy Gateway writes them,
// route's and extension service's alike: once each, in lexical order,
// comma-separated — its buildRetry keeps them as a set (makeIrTriggerSet:
// sets.List) before buildRetryOn joins them; "" when there are none. at
// names the list in an error.
func retryTriggerList(triggers []egv1a1.TriggerEnum, at string) (string, error) {
	on := make([]string, 0, len(triggers))
	for i, t := range triggers {
		if !slices.Contains(retryTriggers, string(t)) {
			return "", fmt.Errorf("%s[%d]: unknown trigger %q", at, i, t)
		}
		on = append(on, string(t))
	}
	slices.Sort(on)
	return strings.Join(slices.Compact(on), ","), nil
}

// retryStatuses are a route retry's HTTP statuses as Envoy Gateway writes
// them: once each, in ascending order (makeIrStatusSet keeps them as a
// set, sets.Int.List).
func retryStatuses(codes []egv1a1.HTTPStatus) ([]uint32, error) {
	var out []uint32
	for _, c := range codes {
		if c < 0 || c > 1<<32-1 {
			return nil, fmt.Errorf("retry.retryOn.httpStatusCodes: %d is not a status", c)
		}
		out = append(out, uint32(c))
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// perRetry sets the per-try timeout and the back-off (when it has an
// interval).
func perRetry(rp *routev3.RetryPolicy, r *egv1a1.Retry) error {
	pr := r.PerRetry
	if pr == nil {
		return nil
	}
	t, err := optDuration(pr.Timeout)
	if err != nil {
		return fmt.Errorf("retry.perRetry.timeout: %w", err)
	}
	rp.PerTryTimeout = t
	if pr.BackOff == nil {
		return nil
	}
	bo := &routev3.RetryPolicy_RetryBackOff{}
	if bo.BaseInterval, err = optDuration(pr.BackOff.BaseInterval); err != nil {
		return fmt.Errorf("retry.perRetry.backOff.baseInterval: %w", err)
	}
	if bo.MaxInterval, err = optDuration(pr.BackOff.MaxInterval); err != nil {
		return fmt.Errorf("retry.perRetry.backOff.maxInterval: %w", err)
	}
	if bo.BaseInterval != nil || bo.MaxInterval != nil {
		rp.RetryBackOff = bo
	}
	return nil
}

// bufferFilter is Envoy's buffer filter, which Envoy Gateway adds to the
// chain disabled and enables per route.
const bufferFilter = "envoy.filters.http.buffer"

// renderRequestBuffer buffers whole requests up to the limit before they
// go upstream: the buffer filter, and the route's BufferPerRoute.
func renderRequestBuffer(b *egv1a1.RequestBuffer, _ policyName) ([]policy.Fragment, error) {
	if b == nil || b.Limit.IsZero() {
		return nil, fmt.Errorf("requestBuffer.limit: missing")
	}
	n, ok := b.Limit.AsInt64()
	if !ok || n <= 0 || n > 1<<32-1 {
		return nil, fmt.Errorf("requestBuffer.limit: %s is not a byte count Envoy accepts", &b.Limit)
	}
	cfg := &bufferv3.Buffer{MaxRequestBytes: wrapperspb.UInt32(uint32(n))}
	return []policy.Fragment{{
		Capability: "buffer",
		// a request buffered whole cannot be upgraded: Envoy Gateway
		// writes no upgrade configs on the route (buildUpgradeConfig)
		NoUpgrade:            true,
		Filter:               &policy.HTTPFilter{Name: bufferFilter, Order: orderBuffer, Typed: cfg},
		TypedPerFilterConfig: map[string]proto.Message{bufferFilter: &bufferv3.BufferPerRoute{Override: &bufferv3.BufferPerRoute_Buffer{Buffer: cfg}}},
	}}, nil
}
