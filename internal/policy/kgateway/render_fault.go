package kgateway

import (
	"fmt"
	"time"

	commonfaultv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/common/fault/v3"
	faultv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/fault/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// fault: the fault filter (injecting nothing in the chain), and per
// resource the policy's delay, abort and response rate limit, or, for a
// disable, an empty HTTPFault that injects nothing.
func (r *fieldRenderer) fault() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*FaultInjectionPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.fault"
	fr := policy.Fragment{Capability: "fault", Filter: &policy.HTTPFilter{Name: name, Order: orderFault, Typed: &faultv3.HTTPFault{}}}
	if v.Disable != nil {
		// kgateway switches fault injection off where the policy applies
		// with an empty HTTPFault as the resource's config, which injects
		// nothing over a less specific policy's faults
		// (trafficpolicy/fault_injection.go: constructFaultInjection →
		// handleFaultInjection); disable wins over the faults set beside it.
		fr.TypedPerFilterConfig = map[string]proto.Message{name: &faultv3.HTTPFault{}}
		return []policy.Fragment{fr}, nil
	}
	per := &faultv3.HTTPFault{}
	if d := v.Delay; d != nil {
		fixed, err := time.ParseDuration(d.FixedDelay)
		if err != nil {
			return nil, fmt.Errorf("delay.fixedDelay: %q is not a duration", d.FixedDelay)
		}
		per.Delay = &commonfaultv3.FaultDelay{FaultDelaySecifier: &commonfaultv3.FaultDelay_FixedDelay{FixedDelay: durationpb.New(fixed)},
			Percentage: fraction(d.Percentage, 100)}
	}
	if a := v.Abort; a != nil {
		ab := &faultv3.FaultAbort{Percentage: fraction(a.Percentage, 100)}
		switch {
		case a.HTTPStatus != nil && *a.HTTPStatus >= 0:
			ab.ErrorType = &faultv3.FaultAbort_HttpStatus{HttpStatus: uint32(*a.HTTPStatus)}
		case a.GrpcStatus != nil && *a.GrpcStatus >= 0:
			ab.ErrorType = &faultv3.FaultAbort_GrpcStatus{GrpcStatus: uint32(*a.GrpcStatus)}
		default:
			return nil, fmt.Errorf("abort needs httpStatus or grpcStatus (not negative)")
		}
		per.Abort = ab
	}
	if rl := v.ResponseRateLimit; rl != nil {
		per.ResponseRateLimit = &commonfaultv3.FaultRateLimit{
			LimitType:  &commonfaultv3.FaultRateLimit_FixedLimit_{FixedLimit: &commonfaultv3.FaultRateLimit_FixedLimit{LimitKbps: rl.KbitsPerSecond}},
			Percentage: fraction(rl.Percentage, 100)}
	}
	if v.MaxActiveFaults != nil {
		per.MaxActiveFaults = wrapperspb.UInt32(*v.MaxActiveFaults)
	}
	fr.TypedPerFilterConfig = map[string]proto.Message{name: per}
	return []policy.Fragment{fr}, nil
}
