package kgateway

import (
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	faultv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/fault/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestFaultInjectionForms: what kgateway writes for a TrafficPolicy's
// faultInjection (trafficpolicy/fault_injection.go: constructFaultInjection,
// handleFaultInjection): the fault filter in the chain injecting nothing,
// and on each resource the policy applies to its faults — or, for
// disable, an empty HTTPFault, which injects nothing over a less specific
// policy's faults, whatever else the policy sets beside it (before: the
// filter's per-route config Disabled, which kgateway never writes).
// Shapes no public case has: disable alone, disable beside a delay and an
// abort, a gRPC abort, a rate limit with active faults bounded.
func TestFaultInjectionForms(t *testing.T) {
	i := func(v int32) *int32 { return &v }
	two := uint32(2)
	tests := []struct {
		name string
		v    *FaultInjectionPolicy
		want *faultv3.HTTPFault
	}{
		{"disable alone: an empty HTTPFault", &FaultInjectionPolicy{Disable: &PolicyDisable{}}, &faultv3.HTTPFault{}},
		{"disable wins over the faults beside it", &FaultInjectionPolicy{Disable: &PolicyDisable{}, Delay: &FaultDelay{FixedDelay: "1s"}, Abort: &FaultAbort{HTTPStatus: i(503)}}, &faultv3.HTTPFault{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frs, err := Kind{}.RenderField(policy.FieldInput{Key: "faultInjection", Values: []any{tt.v}}, &policy.Env{})
			if err != nil || len(frs) != 1 {
				t.Fatalf("fragments %v, error %v", frs, err)
			}
			per, ok := frs[0].TypedPerFilterConfig["envoy.filters.http.fault"].(*faultv3.HTTPFault)
			if !ok {
				t.Fatalf("per-route config is a %T, want an HTTPFault", frs[0].TypedPerFilterConfig["envoy.filters.http.fault"])
			}
			if !proto.Equal(per, tt.want) {
				t.Errorf("per-route HTTPFault %v, want %v", per, tt.want)
			}
			if err := per.ValidateAll(); err != nil {
				t.Errorf("Envoy would refuse it: %v", err)
			}
			if f := frs[0].Filter; f == nil || f.Name != "envoy.filters.http.fault" || !proto.Equal(f.Typed, &faultv3.HTTPFault{}) {
				t.Errorf("chain filter %+v, want the fault filter injecting nothing", f)
			}
		})
	}
	// the other forms keep their faults
	for _, tt := range []struct {
		name  string
		v     *FaultInjectionPolicy
		check func(*faultv3.HTTPFault) bool
	}{
		{"gRPC abort", &FaultInjectionPolicy{Abort: &FaultAbort{GrpcStatus: i(14), Percentage: i(10)}}, func(h *faultv3.HTTPFault) bool {
			return h.GetAbort().GetGrpcStatus() == 14 && h.GetAbort().GetPercentage().GetNumerator() == 10
		}},
		{"rate limit, active faults bounded", &FaultInjectionPolicy{ResponseRateLimit: &FaultResponseRateLimit{KbitsPerSecond: 64}, MaxActiveFaults: &two}, func(h *faultv3.HTTPFault) bool {
			return h.GetResponseRateLimit().GetFixedLimit().GetLimitKbps() == 64 && h.GetMaxActiveFaults().GetValue() == 2
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			frs, err := Kind{}.RenderField(policy.FieldInput{Key: "faultInjection", Values: []any{tt.v}}, &policy.Env{})
			if err != nil || len(frs) != 1 {
				t.Fatalf("fragments %v, error %v", frs, err)
			}
			per, _ := frs[0].TypedPerFilterConfig["envoy.filters.http.fault"].(*faultv3.HTTPFault)
			if per == nil || !tt.check(per) {
				t.Errorf("per-route HTTPFault %v", per)
			}
		})
	}
}

// TestCorsDisable: a TrafficPolicy's cors.disable switches CORS off where
// the policy applies as kgateway writes it (pluginsdk/policy/cors.go:
// BuildCorsPolicy with disable, the same at 0d11e15a and 7d585d36): a
// CorsPolicy enabled for no request under the runtime key
// envoy.cors.filter_enabled and nothing else — the origins or methods set
// beside it are not written (before: the filter's per-route config
// Disabled, which kgateway never writes). Shapes no public case has.
func TestCorsDisable(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    *CorsPolicy
	}{
		{"disable alone", &CorsPolicy{Disable: &PolicyDisable{}}},
		{"disable beside origins and methods", &CorsPolicy{Disable: &PolicyDisable{}, HTTPCORSFilter: gwv1.HTTPCORSFilter{
			AllowOrigins: []gwv1.CORSOrigin{"https://a.example"}, AllowMethods: []gwv1.HTTPMethodWithWildcard{"GET"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			frs, err := Kind{}.RenderField(policy.FieldInput{Key: "cors", Values: []any{tt.v}}, &policy.Env{})
			if err != nil || len(frs) != 1 {
				t.Fatalf("fragments %v, error %v", frs, err)
			}
			per, ok := frs[0].TypedPerFilterConfig["envoy.filters.http.cors"].(*corsv3.CorsPolicy)
			if !ok {
				t.Fatalf("per-route config is a %T, want a CorsPolicy", frs[0].TypedPerFilterConfig["envoy.filters.http.cors"])
			}
			want := &corsv3.CorsPolicy{FilterEnabled: &corev3.RuntimeFractionalPercent{
				DefaultValue: &typev3.FractionalPercent{Denominator: typev3.FractionalPercent_HUNDRED}, RuntimeKey: "envoy.cors.filter_enabled"}}
			if !proto.Equal(per, want) {
				t.Errorf("per-route CorsPolicy %v, want %v", per, want)
			}
			if err := per.ValidateAll(); err != nil {
				t.Errorf("Envoy would refuse it: %v", err)
			}
		})
	}
}
