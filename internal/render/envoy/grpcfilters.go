package envoy

import (
	grpcstatsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/grpc_stats/v3"
	grpcwebv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/grpc_web/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// A target with Target.GRPCFilters gives a connection manager serving a
// GRPCRoute two filters of its data plane's own, on for every route, after the
// policies' filters: gRPC-Web translation (browsers' gRPC) and gRPC
// statistics for every method (and in filter state, for access logs).

// They sort after every policy filter (policy.OrderGRPC).
var grpcFilters = []filterDef{
	{name: "envoy.filters.http.grpc_web", order: policy.OrderGRPC, enabled: true, config: mustAny(&grpcwebv3.GrpcWeb{})},
	{name: "envoy.filters.http.grpc_stats", order: policy.OrderGRPC + 1, enabled: true, config: mustAny(&grpcstatsv3.FilterConfig{
		EmitFilterState:        true,
		PerMethodStatSpecifier: &grpcstatsv3.FilterConfig_StatsForAllMethods{StatsForAllMethods: wrapperspb.Bool(true)},
	})},
}

// servesGRPC notes that a virtual host serves a GRPCRoute (whatever its
// routes answer), on a target whose data plane adds the gRPC filters for
// it.
func (vb *vhostBuild) servesGRPC(e entry) {
	if vb.target.GRPCFilters && e.att.Route.Kind == "GRPCRoute" {
		vb.grpc = true
	}
}
