package kgateway

import (
	"encoding/json"
	"testing"

	accesslogv3 "github.com/envoyproxy/go-control-plane/envoy/config/accesslog/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
)

// TestAccessLogRuntimeFilter: an access log's (or a local reply
// mapper's) runtimeFilter samples through its runtime key, with a
// fraction of requests out of a hundred unless its denominator says
// otherwise, and Envoy's independent randomness when asked
// (listenerpolicy/common.go: translateFilter, RuntimeFilter; the pinned
// CRD defines the field). Before, gwpol refused the field as unknown
// (GWP102) and the filter as having no type.
func TestAccessLogRuntimeFilter(t *testing.T) {
	for _, tc := range []struct {
		name, filter string
		want         *accesslogv3.AccessLogFilter
		wantErr      bool
	}{
		{"key alone", `{"runtimeFilter": {"runtimeKey": "access_log.sample"}}`,
			&accesslogv3.AccessLogFilter{FilterSpecifier: &accesslogv3.AccessLogFilter_RuntimeFilter{RuntimeFilter: &accesslogv3.RuntimeFilter{RuntimeKey: "access_log.sample"}}}, false},
		{"a share of a hundred when no denominator is named", `{"runtimeFilter": {"runtimeKey": "k", "percentSampled": {"numerator": 7}}}`,
			&accesslogv3.AccessLogFilter{FilterSpecifier: &accesslogv3.AccessLogFilter_RuntimeFilter{RuntimeFilter: &accesslogv3.RuntimeFilter{RuntimeKey: "k",
				PercentSampled: &typev3.FractionalPercent{Numerator: 7, Denominator: typev3.FractionalPercent_HUNDRED}}}}, false},
		{"a share of a million, independent randomness", `{"runtimeFilter": {"runtimeKey": "k", "percentSampled": {"numerator": 250, "denominator": "MILLION"}, "useIndependentRandomness": true}}`,
			&accesslogv3.AccessLogFilter{FilterSpecifier: &accesslogv3.AccessLogFilter_RuntimeFilter{RuntimeFilter: &accesslogv3.RuntimeFilter{RuntimeKey: "k",
				PercentSampled: &typev3.FractionalPercent{Numerator: 250, Denominator: typev3.FractionalPercent_MILLION}, UseIndependentRandomness: true}}}, false},
		{"numerator above the denominator is kept (Envoy caps it at 100%)", `{"runtimeFilter": {"runtimeKey": "k", "percentSampled": {"numerator": 150, "denominator": "HUNDRED"}}}`,
			&accesslogv3.AccessLogFilter{FilterSpecifier: &accesslogv3.AccessLogFilter_RuntimeFilter{RuntimeFilter: &accesslogv3.RuntimeFilter{RuntimeKey: "k",
				PercentSampled: &typev3.FractionalPercent{Numerator: 150, Denominator: typev3.FractionalPercent_HUNDRED}}}}, false},
		{"inside an or-filter", `{"orFilter": [{"runtimeFilter": {"runtimeKey": "k", "percentSampled": {"numerator": 1, "denominator": "TEN_THOUSAND"}}}, {"traceableFilter": true}]}`,
			&accesslogv3.AccessLogFilter{FilterSpecifier: &accesslogv3.AccessLogFilter_OrFilter{OrFilter: &accesslogv3.OrFilter{Filters: []*accesslogv3.AccessLogFilter{
				{FilterSpecifier: &accesslogv3.AccessLogFilter_RuntimeFilter{RuntimeFilter: &accesslogv3.RuntimeFilter{RuntimeKey: "k",
					PercentSampled: &typev3.FractionalPercent{Numerator: 1, Denominator: typev3.FractionalPercent_TEN_THOUSAND}}}},
				{FilterSpecifier: &accesslogv3.AccessLogFilter_TraceableFilter{TraceableFilter: &accesslogv3.TraceableFilter{}}},
			}}}}, false},
		{"a denominator the CRD does not name", `{"runtimeFilter": {"runtimeKey": "k", "percentSampled": {"numerator": 1, "denominator": "THOUSAND"}}}`, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var f AccessLogFilter
			if err := json.Unmarshal([]byte(tc.filter), &f); err != nil {
				t.Fatal(err)
			}
			got, err := accessLogFilter(&f)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if !proto.Equal(got, tc.want) {
				t.Errorf("filter %v, want %v", got, tc.want)
			}
			if err := got.ValidateAll(); err != nil {
				t.Errorf("Envoy would refuse the filter: %v", err)
			}
		})
	}
}
