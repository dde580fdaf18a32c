package envoygateway

import (
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/policy"
)

// renderHealthCheck is the rule's clusters' health: the panic threshold
// (the share of healthy hosts below which Envoy balances over all of
// them), passive checking (outlier detection) and active TCP or gRPC
// checks, with the API's defaults where the policy leaves a setting out,
// as the API server would fill them in. An active HTTP check without a
// hostname sends the hostname of the route it checks for, as Envoy
// Gateway's does (its IR route's: the virtual host's, "*" for any): the
// field's cluster has the check without a Host, each route's rule
// clusters get it with the route's (a PerRoute fragment); clusters no
// route owns (TCP routes') keep it without. Overrides and health check
// logs are not rendered yet.
func renderHealthCheck(h *egv1a1.HealthCheck, who policyName) ([]policy.Fragment, error) {
	if h == nil {
		h = &egv1a1.HealthCheck{}
	}
	c := &clusterv3.Cluster{}
	if h.PanicThreshold != nil {
		c.CommonLbConfig = &clusterv3.Cluster_CommonLbConfig{HealthyPanicThreshold: &typev3.Percent{Value: float64(*h.PanicThreshold)}}
	}
	if p := h.Passive; p != nil {
		od, err := outlierDetection(p)
		if err != nil {
			return nil, err
		}
		c.OutlierDetection = od
	}
	if a := h.Active; a != nil {
		if k := unrenderedFields(who.at.field("active"), a, "timeout", "interval", "initialJitter", "unhealthyThreshold", "healthyThreshold", "type", "tcp", "http", "grpc"); k != "" {
			return unsupportedPart("healthCheck", "active."+k), nil
		}
		hc, err := activeHealthCheck(a)
		if err != nil {
			return nil, err
		}
		c.HealthChecks = []*corev3.HealthCheck{hc}
		if a.Type == "HTTP" && (a.HTTP.Hostname == nil || *a.HTTP.Hostname == "") {
			return []policy.Fragment{{Cluster: c}, {PerRoute: routeHostCheck(hc)}}, nil
		}
	}
	return clusterFragment(c), nil
}

// routeHostCheck is, for each route, a cluster holding the active HTTP
// check hc with the route's hostname as its Host.
func routeHostCheck(hc *corev3.HealthCheck) func(policy.RouteSite) ([]policy.Fragment, error) {
	return func(site policy.RouteSite) ([]policy.Fragment, error) {
		own := proto.Clone(hc).(*corev3.HealthCheck)
		own.GetHttpHealthCheck().Host = site.Hostname
		return clusterFragment(&clusterv3.Cluster{HealthChecks: []*corev3.HealthCheck{own}}), nil
	}
}

// outlierDetection is passive health checking, the API's defaults filled
// in (interval 3s, ejection 30s for at most 10 % of hosts, 5 consecutive
// 5xx or local-origin failures); gateway errors and a failure percentage
// are enforced always when set.
func outlierDetection(p *egv1a1.PassiveHealthCheck) (*clusterv3.OutlierDetection, error) {
	interval, err := durationOr(p.Interval, 3*time.Second)
	if err != nil {
		return nil, fmt.Errorf("healthCheck.passive.interval: %w", err)
	}
	ejection, err := durationOr(p.BaseEjectionTime, 30*time.Second)
	if err != nil {
		return nil, fmt.Errorf("healthCheck.passive.baseEjectionTime: %w", err)
	}
	od := &clusterv3.OutlierDetection{
		BaseEjectionTime:               ejection,
		Interval:                       interval,
		SplitExternalLocalOriginErrors: p.SplitExternalLocalOriginErrors != nil && *p.SplitExternalLocalOriginErrors,
		ConsecutiveLocalOriginFailure:  wrapperspb.UInt32(uint32Default(p.ConsecutiveLocalOriginFailures, 5)),
		Consecutive_5Xx:                wrapperspb.UInt32(uint32Default(p.Consecutive5xxErrors, 5)),
		AlwaysEjectOneHost:             wrapperspb.Bool(p.AlwaysEjectOneEndpoint != nil && *p.AlwaysEjectOneEndpoint),
	}
	if pct := int32(10); p.MaxEjectionPercent == nil || *p.MaxEjectionPercent > 0 {
		if p.MaxEjectionPercent != nil {
			pct = *p.MaxEjectionPercent
		}
		od.MaxEjectionPercent = wrapperspb.UInt32(uint32(pct))
	}
	if n := p.ConsecutiveGatewayErrors; n != nil {
		od.ConsecutiveGatewayFailure, od.EnforcingConsecutiveGatewayFailure = wrapperspb.UInt32(*n), wrapperspb.UInt32(100)
	}
	if n := p.FailurePercentageThreshold; n != nil {
		od.FailurePercentageThreshold, od.EnforcingFailurePercentage = wrapperspb.UInt32(*n), wrapperspb.UInt32(100)
	}
	return od, nil
}

// activeHealthCheck is an active HTTP, TCP or gRPC check, the API's defaults
// filled in (1s timeout every 3s, unhealthy after 3 failures, healthy
// after 1 success).
func activeHealthCheck(a *egv1a1.ActiveHealthCheck) (*corev3.HealthCheck, error) {
	timeout, err := durationOr(a.Timeout, time.Second)
	if err != nil {
		return nil, fmt.Errorf("healthCheck.active.timeout: %w", err)
	}
	interval, err := durationOr(a.Interval, 3*time.Second)
	if err != nil {
		return nil, fmt.Errorf("healthCheck.active.interval: %w", err)
	}
	jitter, err := optDuration(a.InitialJitter)
	if err != nil {
		return nil, fmt.Errorf("healthCheck.active.initialJitter: %w", err)
	}
	hc := &corev3.HealthCheck{Timeout: timeout, Interval: interval, InitialJitter: jitter,
		UnhealthyThreshold: wrapperspb.UInt32(uint32Default(a.UnhealthyThreshold, 3)),
		HealthyThreshold:   wrapperspb.UInt32(uint32Default(a.HealthyThreshold, 1))}
	switch {
	case a.Type == "HTTP" && a.HTTP != nil:
		hc.HealthChecker = &corev3.HealthCheck_HttpHealthCheck_{HttpHealthCheck: httpHealthCheck(a.HTTP)}
	case a.Type == "TCP" && a.TCP != nil:
		tcp := &corev3.HealthCheck_TcpHealthCheck{Send: healthPayload(a.TCP.Send)}
		if r := healthPayload(a.TCP.Receive); r != nil {
			tcp.Receive = []*corev3.HealthCheck_Payload{r}
		}
		hc.HealthChecker = &corev3.HealthCheck_TcpHealthCheck_{TcpHealthCheck: tcp}
	case a.Type == "GRPC":
		svc := ""
		if a.GRPC != nil && a.GRPC.Service != nil {
			svc = *a.GRPC.Service
		}
		hc.HealthChecker = &corev3.HealthCheck_GrpcHealthCheck_{GrpcHealthCheck: &corev3.HealthCheck_GrpcHealthCheck{ServiceName: svc}}
	default:
		return nil, fmt.Errorf("healthCheck.active: type %q without its settings", a.Type)
	}
	return hc, nil
}

// httpHealthCheck is an active HTTP check: the method upper-cased, the
// expected statuses (200 when none is given) and the retriable ones as
// Envoy's half-open ranges of consecutive codes, duplicates dropped; the
// expected response is what the check receives, the request body what
// it sends.
func httpHealthCheck(h *egv1a1.HTTPActiveHealthChecker) *corev3.HealthCheck_HttpHealthCheck {
	out := &corev3.HealthCheck_HttpHealthCheck{Path: h.Path}
	if h.Hostname != nil {
		out.Host = *h.Hostname
	}
	if h.Method != nil {
		out.Method = corev3.RequestMethod(corev3.RequestMethod_value[strings.ToUpper(*h.Method)])
	}
	expected := statusCodes(h.ExpectedStatuses)
	if len(expected) == 0 {
		expected = []int64{200}
	}
	out.ExpectedStatuses = statusRanges(expected)
	out.RetriableStatuses = statusRanges(statusCodes(h.RetriableStatuses))
	if r := healthPayload(h.ExpectedResponse); r != nil {
		out.Receive = []*corev3.HealthCheck_Payload{r}
	}
	out.Send = healthPayload(h.RequestBody)
	return out
}

// statusRanges are HTTP status codes as ranges [start, end) of
// consecutive codes, in order; nil for none.
func statusRanges(codes []int64) []*typev3.Int64Range {
	if len(codes) == 0 {
		return nil
	}
	sorted := slices.Compact(slices.Sorted(slices.Values(codes)))
	var out []*typev3.Int64Range
	for _, c := range sorted {
		if n := len(out); n > 0 && out[n-1].End == c {
			out[n-1].End++
			continue
		}
		out = append(out, &typev3.Int64Range{Start: c, End: c + 1})
	}
	return out
}

// healthPayload is a payload as Envoy takes it: text hex-encoded, or
// bytes.
// statusCodes are HTTP statuses as Envoy's ranges count them.
func statusCodes(ss []egv1a1.HTTPStatus) []int64 {
	out := make([]int64, len(ss))
	for i, s := range ss {
		out[i] = int64(s)
	}
	return out
}

func healthPayload(p *egv1a1.ActiveHealthCheckPayload) *corev3.HealthCheck_Payload {
	if p == nil {
		return nil
	}
	out := &corev3.HealthCheck_Payload{}
	if p.Text != nil && *p.Text != "" {
		out.Payload = &corev3.HealthCheck_Payload_Text{Text: hex.EncodeToString([]byte(*p.Text))}
	}
	if len(p.Binary) > 0 {
		out.Payload = &corev3.HealthCheck_Payload_Binary{Binary: p.Binary}
	}
	return out
}

// durationOr is a Gateway API duration, def when unset.
func durationOr[S ~string](s *S, def time.Duration) (*durationpb.Duration, error) {
	if s == nil {
		return durationpb.New(def), nil
	}
	return optDuration(s)
}

func uint32Default(v *uint32, def uint32) uint32 {
	if v == nil {
		return def
	}
	return *v
}
