package envoy

import (
	"errors"
	"fmt"
	"slices"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	proxyprotocolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/proxy_protocol/v3"
	rawbufferv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/raw_buffer/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/gwpol/gwpol/internal/policy"
)

// A fragment's settings are parts of resources (a connection manager's
// timeouts, a route's direct response) whose values come from a policy.
// Held to Envoy's rules when the fragment is added, a value Envoy refuses
// is that field's finding; checked only with the whole resource, it was
// an internal error about the Gateway. A part is not valid on its own (a
// route needs a match), so each is checked inside a shell: the least
// resource of its type that Envoy accepts, the part merged over it. What
// fails then is the part's.

// fragmentShells are the shells by message type; TestFragmentShellsValid
// holds each to Envoy's rules.
var fragmentShells = map[protoreflect.FullName]proto.Message{}

func init() {
	ads := &corev3.ConfigSource{ResourceApiVersion: corev3.ApiVersion_V3, ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}}
	routeAction := &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: "shell"}}
	for _, m := range []proto.Message{
		&hcmv3.HttpConnectionManager{StatPrefix: "shell", RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{RouteConfigName: "shell", ConfigSource: ads}}},
		&tcpproxyv3.TcpProxy{StatPrefix: "shell", ClusterSpecifier: &tcpproxyv3.TcpProxy_Cluster{Cluster: "shell"}},
		&listenerv3.Listener{Name: "shell"},
		&listenerv3.FilterChain{},
		&listenerv3.Filter{Name: "shell"},
		routeAction,
		&routev3.Route{Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}}, Action: &routev3.Route_Route{Route: routeAction}},
		&routev3.RouteAction_RequestMirrorPolicy{Cluster: "shell"},
		&routev3.VirtualHost{Name: "shell", Domains: []string{"*"}},
	} {
		fragmentShells[m.ProtoReflect().Descriptor().FullName()] = m
	}
}

// validPart holds part to Envoy's rules inside its type's shell.
func validPart(part proto.Message) error {
	whole := part
	if shell, ok := fragmentShells[part.ProtoReflect().Descriptor().FullName()]; ok {
		whole = proto.Clone(shell)
		proto.Merge(whole, part)
	}
	return validateDeep(whole)
}

// checkFragment holds every typed part of fr to Envoy's rules (its HTTP
// filter and per-route configs are checked when they are packed). Cluster
// settings are held to the cluster's own rules (a timeout, a port, a
// threshold) and so are the configs packed in them (a load-balancing
// policy, a health checker, protocol options, a transport socket), those
// a field renders in part over their shells (packedShells).
func checkFragment(fr policy.Fragment) error {
	type part struct {
		what string
		m    proto.Message
	}
	parts := []part{
		{"connection manager settings", fr.HCM}, {"listener settings", fr.Listener}, {"filter chain settings", fr.FilterChain},
		{"TLS settings", fr.DownstreamTLS}, {"TCP proxy settings", fr.TCPProxy},
		{"route action settings", fr.TypedRouteAction}, {"route settings", fr.TypedRoute},
		{"request mirror policy", fr.TypedMirrorPolicy}, {"virtual host settings", fr.TypedVirtualHost},
	}
	for _, m := range fr.NetworkFilters {
		parts = append(parts, part{"network filter", m})
	}
	for _, p := range parts {
		if p.m == nil || !p.m.ProtoReflect().IsValid() {
			continue
		}
		if err := validPart(p.m); err != nil {
			return fmt.Errorf("%s: %w", p.what, err)
		}
	}
	for _, c := range []proto.Message{fr.Cluster, fr.ClusterOfType, fr.BackendCluster} {
		if err := validClusterSettings(c); err != nil {
			return fmt.Errorf("cluster settings: %w", err)
		}
	}
	return nil
}

// validClusterSettings holds cluster settings to the cluster's rules as
// if merged over a cluster that has only a name (the one field Envoy
// requires), with ValidateAll, then their packed configs
// (validatePackedConfigs). The settings are validated as they are,
// without that copy (a clone of every field rendered, for every
// Gateway): only their lack of a name can differ, and that finding is
// dropped.
func validClusterSettings(m proto.Message) error {
	c, ok := m.(*clusterv3.Cluster)
	if !ok || c == nil {
		return nil
	}
	err := c.ValidateAll()
	if err == nil {
		return validatePackedConfigs(c)
	}
	if c.GetName() != "" {
		return err
	}
	errs, ok := err.(clusterv3.ClusterMultiError)
	if !ok {
		return err
	}
	errs = slices.DeleteFunc(slices.Clone(errs), func(e error) bool {
		var ve clusterv3.ClusterValidationError
		return errors.As(e, &ve) && ve.Field() == "Name"
	})
	if len(errs) == 0 {
		return validatePackedConfigs(c)
	}
	return errs
}

// packedShells are the shells of the configs a field packs in part, for
// the built cluster to complete, by message type: HTTP protocol options
// without the upstream protocol (the backend's decides it), a PROXY
// protocol socket without the socket it wraps (the cluster's TLS, or raw
// buffer). Such a config is held to Envoy's rules merged over its
// shell, as a fragment's part is (validPart): what fails then is the
// field's (a window size Envoy refuses, from a value its CRD refuses, is
// the field's finding, not an internal error about the Gateway).
// TestPackedShellsValid holds each shell to Envoy's rules.
var packedShells = map[protoreflect.FullName]proto.Message{}

func init() {
	for _, m := range []proto.Message{
		&upstreamhttpv3.HttpProtocolOptions{UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{
			ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
				ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_HttpProtocolOptions{HttpProtocolOptions: &corev3.Http1ProtocolOptions{}}}}},
		&proxyprotocolv3.ProxyProtocolUpstreamTransport{TransportSocket: &corev3.TransportSocket{Name: "envoy.transport_sockets.raw_buffer",
			ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(&rawbufferv3.RawBuffer{})}}},
	} {
		packedShells[m.ProtoReflect().Descriptor().FullName()] = m
	}
}

// validatePackedConfigs validates every config packed in c's settings
// (protocol options, a transport socket, a load-balancing policy, a
// health checker), each as its field renders it: over its shell where it
// is partial (packedShells). An endpoint override with no source, say,
// is the field's finding, not config Envoy refuses.
func validatePackedConfigs(c *clusterv3.Cluster) error {
	return eachAny(c.ProtoReflect(), validatePacked)
}

// validatePacked validates the config packed in a, and those packed in
// it, as validateAny does, each merged over its shell first.
func validatePacked(a *anypb.Any) error {
	if a.GetTypeUrl() == "" {
		return nil
	}
	inner, err := a.UnmarshalNew()
	if err != nil {
		return fmt.Errorf("%s: %w", a.GetTypeUrl(), err)
	}
	if shell, ok := packedShells[inner.ProtoReflect().Descriptor().FullName()]; ok {
		whole := proto.Clone(shell)
		proto.Merge(whole, inner)
		inner = whole
	}
	if v, ok := inner.(validator); ok {
		err = v.ValidateAll()
	}
	if err == nil {
		err = eachAny(inner.ProtoReflect(), validatePacked)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", a.GetTypeUrl(), err)
	}
	return nil
}
