package wso2

import (
	"fmt"
	"net"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_proc/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/policy"
)

// Render settings (config wso2.<key>) and their defaults.
const (
	ConfigKeyEngineCluster = "policyEngineCluster"
	ConfigKeyEngineAddress = "policyEngineAddress"
	DefaultEngineCluster   = "policy-engine"
)

// FilterName is the HTTP filter that sends requests to the policy engine.
// It has a name of its own so that it never collides with an ext_proc
// filter another kind (kgateway's extProc) adds to the same chain.
const FilterName = "envoy.filters.http.ext_proc/wso2-policy-engine"

// filterOrder puts the policy engine after authentication filters and
// before the router.
const filterOrder = 400

func configString(cfg policy.Config, key, def string) string {
	if v, ok := configValue(cfg, key); ok {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return def
}

// EngineCluster is the name of the policy engine's cluster (config
// wso2.policyEngineCluster, default policy-engine).
func EngineCluster(cfg policy.Config) string {
	return configString(cfg, ConfigKeyEngineCluster, DefaultEngineCluster)
}

// RenderField implements policy.Renderer. The merged chain of a route rule
// (API-level APIPolicies, then rule-level ones, after the configured system
// policies) is executed by the WSO2 policy engine over ext_proc: the route
// enables the engine's ext_proc filter and carries the chain in its
// metadata — each entry's name:vN and the full version it resolves to in
// the controller's definitions (resolved) and in the engine build (engine),
// so drift shows in the config too.
func (k *APIPolicyKind) RenderField(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	if in.Key != FieldChain {
		return nil, fmt.Errorf("APIPolicy has no field %q", in.Key)
	}
	var cfg policy.Config
	if env != nil {
		cfg = env.Config
	}
	sys, _ := k.ks.System(cfg, nil)
	entries := Effective(append([]*Chain{sys}, ChainsOf(in.Values)...)...)
	if len(entries) == 0 {
		return nil, nil
	}
	chain := make([]any, 0, len(entries))
	resolved := map[string]any{}
	engine := map[string]any{}
	for _, e := range entries {
		chain = append(chain, e.Identity)
		if e.Definition != "" {
			resolved[e.Identity] = e.Definition
		}
		if e.Engine != "" {
			engine[e.Identity] = e.Engine
		}
	}
	meta := map[string]any{"chain": chain, "resolved": resolved}
	if k.ks.Engine != nil {
		meta["engine"] = engine
	}
	policies := make([]any, 0, len(in.Contributors))
	for _, id := range policy.SortIDs(append([]string(nil), in.Contributors...)) {
		policies = append(policies, id)
	}
	meta["policies"] = policies

	set, err := ParseSettings(cfg)
	if err != nil {
		return nil, err
	}
	cluster := EngineCluster(cfg)
	cl, err := engineCluster(cluster, set.Engine)
	if err != nil {
		return nil, err
	}
	md, err := structpb.NewStruct(meta)
	if err != nil {
		return nil, fmt.Errorf("chain metadata: %w", err)
	}
	return []policy.Fragment{{
		Capability: "ext_proc",
		Filter:     &policy.HTTPFilter{Name: FilterName, Order: filterOrder, Typed: engineFilter(cluster, set.Engine)},
		TypedPerFilterConfig: map[string]proto.Message{
			FilterName: &extprocv3.ExtProcPerRoute{Override: &extprocv3.ExtProcPerRoute_Overrides{Overrides: &extprocv3.ExtProcOverrides{}}},
		},
		TypedRoute:    &routev3.Route{Metadata: &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{k.Spec().MetadataKey: md}}},
		TypedClusters: []proto.Message{cl},
	}}, nil
}

// engineFilter is the ext_proc filter calling the policy engine, as the
// gateway-controller writes it from router.policy_engine
// (createExtProcFilter): its timeouts, whether a failed call lets the
// request through, whether the engine may ask for bodies; headers both
// ways, bodies only when a policy of the chain asks for them.
func engineFilter(cluster string, e EngineSettings) *extprocv3.ExternalProcessor {
	return &extprocv3.ExternalProcessor{
		GrpcService: &corev3.GrpcService{TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: cluster}},
			Timeout: durationpb.New(time.Duration(e.TimeoutMs) * time.Millisecond)},
		ProcessingMode: &extprocv3.ProcessingMode{
			RequestHeaderMode: extprocv3.ProcessingMode_SEND, ResponseHeaderMode: extprocv3.ProcessingMode_SEND,
			RequestBodyMode: extprocv3.ProcessingMode_NONE, ResponseBodyMode: extprocv3.ProcessingMode_NONE,
		},
		FailureModeAllow:  e.FailureModeAllow,
		AllowModeOverride: e.AllowModeOverride,
		RequestAttributes: []string{"xds.route_name", "xds.route_metadata"},
		MessageTimeout:    durationpb.New(time.Duration(e.MessageTimeoutMs) * time.Millisecond),
	}
}

// engineCluster is the policy engine's gRPC cluster (HTTP/2), as the
// gateway-controller writes it (createPolicyEngineCluster): in uds mode
// the engine's Unix socket (STATIC), in tcp mode host:port (STRICT_DNS,
// STATIC for an IP address).
func engineCluster(name string, e EngineSettings) (*clusterv3.Cluster, error) {
	h2, err := anypb.New(&upstreamhttpv3.HttpProtocolOptions{UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{
		ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
			ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: &corev3.Http2ProtocolOptions{}}}}})
	if err != nil {
		return nil, err
	}
	typ := clusterv3.Cluster_STATIC
	addr := &corev3.Address{Address: &corev3.Address_Pipe{Pipe: &corev3.Pipe{Path: EngineSocket}}}
	if e.Mode == EngineTCP {
		if net.ParseIP(strings.Trim(e.Host, "[]")) == nil {
			typ = clusterv3.Cluster_STRICT_DNS
		}
		addr = &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
			Address: strings.Trim(e.Host, "[]"), PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: e.Port}}}}
	}
	endpoint := &endpointv3.LbEndpoint{HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{Address: addr}}}
	return &clusterv3.Cluster{
		Name:                          name,
		ClusterDiscoveryType:          &clusterv3.Cluster_Type{Type: typ},
		ConnectTimeout:                durationpb.New(5 * time.Second),
		TypedExtensionProtocolOptions: map[string]*anypb.Any{"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": h2},
		LoadAssignment: &endpointv3.ClusterLoadAssignment{ClusterName: name,
			Endpoints: []*endpointv3.LocalityLbEndpoints{{LbEndpoints: []*endpointv3.LbEndpoint{endpoint}}}},
	}, nil
}
