package envoygateway

import (
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	admissioncontrolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/admission_control/v3"
	upstreamcodecv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/upstream_codec/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/policy"
)

// upstreamCodecFilter is the terminal upstream HTTP filter Envoy Gateway
// ends a cluster's upstream filters with (xds translator cluster.go
// buildUpstreamCodecFilter).
const upstreamCodecFilter = "envoy.extensions.filters.http.upstream_codec.v3.UpstreamCodec"

// grpcStatusCodes are the gRPC status names an admission control's
// success criteria take, by code (xds translator admission_control.go).
var grpcStatusCodes = map[egv1a1.GRPCSuccessCode]uint32{
	"Ok": 0, "Cancelled": 1, "Unknown": 2, "InvalidArgument": 3, "DeadlineExceeded": 4, "NotFound": 5,
	"AlreadyExists": 6, "PermissionDenied": 7, "ResourceExhausted": 8, "FailedPrecondition": 9, "Aborted": 10,
	"OutOfRange": 11, "Unimplemented": 12, "Internal": 13, "Unavailable": 14, "DataLoss": 15, "Unauthenticated": 16,
}

// renderAdmissionControl is a BackendTrafficPolicy's admissionControl as
// Envoy Gateway v1.9 writes it: Envoy's admission_control filter among the
// upstream HTTP filters of the clusters of the routes it applies to
// (gatewayapi backendtrafficpolicy.go buildAdmissionControl; xds
// translator admission_control.go buildAdmissionControlConfig, cluster.go
// buildClusterHTTPFilters): always enabled; the sampling window where it
// parses, the success rate threshold, aggression, request rate threshold
// and maximum rejection probability where given; success criteria of
// every HTTP status code given (each a one-code range) and every gRPC
// status named, the criteria written even when empty. It runs after an
// upstream credential injector and before the upstream codec, which ends
// the list (a finishing step, policy.Fragment.ClusterFinish, so that it
// finds the filters the other fields put there).
func renderAdmissionControl(ac *egv1a1.AdmissionControl, _ policyName) ([]policy.Fragment, error) {
	if ac == nil {
		return nil, nil
	}
	cfg := &admissioncontrolv3.AdmissionControl{Enabled: &corev3.RuntimeFeatureFlag{DefaultValue: wrapperspb.Bool(true)}}
	if ac.SamplingWindow != nil {
		if d, err := time.ParseDuration(string(*ac.SamplingWindow)); err == nil {
			cfg.SamplingWindow = durationpb.New(d)
		}
	}
	if ac.MinSuccessRate != nil {
		cfg.SrThreshold = &corev3.RuntimePercent{DefaultValue: &typev3.Percent{Value: float64(*ac.MinSuccessRate)}}
	}
	if ac.RejectionAggression != nil {
		cfg.Aggression = &corev3.RuntimeDouble{DefaultValue: float64(*ac.RejectionAggression)}
	}
	if ac.MinRequestRate != nil {
		cfg.RpsThreshold = &corev3.RuntimeUInt32{DefaultValue: *ac.MinRequestRate}
	}
	if ac.MaxRejectionPercent != nil {
		cfg.MaxRejectionProbability = &corev3.RuntimePercent{DefaultValue: &typev3.Percent{Value: float64(*ac.MaxRejectionPercent)}}
	}
	sc := &admissioncontrolv3.AdmissionControl_SuccessCriteria{}
	if c := ac.SuccessCriteria; c != nil {
		if c.HTTP != nil && len(c.HTTP.StatusCodes) > 0 {
			h := &admissioncontrolv3.AdmissionControl_SuccessCriteria_HttpCriteria{}
			for _, code := range c.HTTP.StatusCodes {
				h.HttpSuccessStatus = append(h.HttpSuccessStatus, &typev3.Int32Range{Start: int32(code), End: int32(code) + 1})
			}
			sc.HttpCriteria = h
		}
		if c.GRPC != nil && len(c.GRPC.StatusCodes) > 0 {
			g := &admissioncontrolv3.AdmissionControl_SuccessCriteria_GrpcCriteria{}
			for _, s := range c.GRPC.StatusCodes {
				if code, ok := grpcStatusCodes[s]; ok {
					g.GrpcSuccessStatus = append(g.GrpcSuccessStatus, code)
				}
			}
			sc.GrpcCriteria = g
		}
	}
	cfg.EvaluationCriteria = &admissioncontrolv3.AdmissionControl_SuccessCriteria_{SuccessCriteria: sc}
	a, err := anypb.New(cfg)
	if err != nil {
		return nil, err
	}
	filter := &hcmv3.HttpFilter{Name: "envoy.filters.http.admission_control", ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: a}}
	return []policy.Fragment{{ClusterFinish: func(m proto.Message) { withUpstreamFilter(m, filter) }}}, nil
}

// withUpstreamFilter adds f to a cluster's upstream HTTP filters, before
// the upstream codec that ends them (added when the list has none yet).
func withUpstreamFilter(m proto.Message, f *hcmv3.HttpFilter) {
	editHTTPOptions(m, func(opts *upstreamhttpv3.HttpProtocolOptions, _ bool) bool {
		fs := opts.HttpFilters
		if n := len(fs); n > 0 && fs[n-1].GetName() == upstreamCodecFilter {
			fs = fs[:n-1]
		}
		codec, err := anypb.New(&upstreamcodecv3.UpstreamCodec{})
		if err != nil {
			return false
		}
		opts.HttpFilters = append(fs, proto.Clone(f).(*hcmv3.HttpFilter),
			&hcmv3.HttpFilter{Name: upstreamCodecFilter, ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: codec}})
		return true
	})
}
