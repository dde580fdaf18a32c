package wso2

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
)

// Render settings (config wso2.<key>) and their defaults.
const (
	ConfigKeyEngineCluster = "policyEngineCluster"
	ConfigKeyEngineAddress = "policyEngineAddress"
	DefaultEngineCluster   = "policy-engine"
	DefaultEngineAddress   = "policy-engine:9001"
)

// FilterName is the HTTP filter that sends requests to the policy engine.
// It has a name of its own so that it never collides with an ext_proc
// filter another kind (kgateway's extProc) adds to the same chain.
const FilterName = "envoy.filters.http.ext_proc/wso2-policy-engine"

// filterOrder puts the policy engine after authentication filters and
// before the router.
const filterOrder = 400

const (
	typeExtProc       = "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor"
	typeExtProcPerRte = "type.googleapis.com/envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute"
	typeHTTPOptions   = "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions"
)

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

	cluster := EngineCluster(cfg)
	cl, err := engineCluster(cluster, configString(cfg, ConfigKeyEngineAddress, DefaultEngineAddress))
	if err != nil {
		return nil, err
	}
	return []policy.Fragment{{
		Capability: "ext_proc",
		Filter: &policy.HTTPFilter{Name: FilterName, Order: filterOrder, Config: map[string]any{
			"@type":        typeExtProc,
			"grpc_service": map[string]any{"envoy_grpc": map[string]any{"cluster_name": cluster}, "timeout": "20s"},
			"processing_mode": map[string]any{
				"request_header_mode": "SEND", "response_header_mode": "SEND",
				"request_body_mode": "NONE", "response_body_mode": "NONE",
			},
			// The engine asks for bodies only when a policy of the chain
			// needs them.
			"allow_mode_override": true,
			"request_attributes":  []any{"xds.route_name", "xds.route_metadata"},
			"message_timeout":     "20s",
		}},
		PerFilterConfig: map[string]map[string]any{
			FilterName: {"@type": typeExtProcPerRte, "overrides": map[string]any{}},
		},
		Route: map[string]any{
			"metadata": map[string]any{"filter_metadata": map[string]any{k.Spec().MetadataKey: meta}},
		},
		Clusters: []map[string]any{cl},
	}}, nil
}

// engineCluster is the policy engine's gRPC cluster: HTTP/2 to host:port.
func engineCluster(name, address string) (map[string]any, error) {
	host, portText, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("wso2.%s %q: want HOST:PORT", ConfigKeyEngineAddress, address)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return nil, fmt.Errorf("wso2.%s %q: the port must be 1-65535", ConfigKeyEngineAddress, address)
	}
	typ := "STRICT_DNS"
	if net.ParseIP(strings.Trim(host, "[]")) != nil {
		typ = "STATIC"
	}
	return map[string]any{
		"name":            name,
		"type":            typ,
		"connect_timeout": "5s",
		"typed_extension_protocol_options": map[string]any{
			"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": map[string]any{
				"@type":                typeHTTPOptions,
				"explicit_http_config": map[string]any{"http2_protocol_options": map[string]any{}},
			},
		},
		"load_assignment": map[string]any{
			"cluster_name": name,
			"endpoints": []any{map[string]any{"lb_endpoints": []any{map[string]any{"endpoint": map[string]any{
				"address": map[string]any{"socket_address": map[string]any{"address": host, "port_value": port}},
			}}}}},
		},
	}, nil
}
