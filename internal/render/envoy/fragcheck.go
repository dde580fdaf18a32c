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
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

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
// threshold) and so are the configs packed in them that are whole as a
// field renders them (a load-balancing policy, a health checker); the
// partial ones (partialClusterConfigs) are checked with the built
// cluster.
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
// requires), with ValidateAll: the packed configs are not walked. The
// settings are validated as they are, without that copy (a clone of
// every field rendered, for every Gateway): only their lack of a name
// can differ, and that finding is dropped.
func validClusterSettings(m proto.Message) error {
	c, ok := m.(*clusterv3.Cluster)
	if !ok || c == nil {
		return nil
	}
	err := c.ValidateAll()
	if err == nil {
		return validateWholeConfigs(c)
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
		return validateWholeConfigs(c)
	}
	return errs
}

// partialClusterConfigs are the cluster fields whose packed configs a
// field may render in part, for the built cluster to complete: protocol
// options without the upstream protocol, a wrapping transport socket
// (proxy protocol) whose inner socket the cluster's TLS gives. A TLS
// context is whole as rendered, so it is held to Envoy's rules
// (wholeTransportSocket: an SNI over 255 bytes, from a hostname its CRD
// refuses, is the field's finding).
var partialClusterConfigs = map[protoreflect.Name]bool{
	"typed_extension_protocol_options": true,
	"transport_socket":                 true,
	"transport_socket_matches":         true,
}

// upstreamTLS is the type of the TLS transport socket's config.
var upstreamTLS = "type.googleapis.com/" + string((&tlsv3.UpstreamTlsContext{}).ProtoReflect().Descriptor().FullName())

// wholeTransportSocket validates c's transport socket when it is TLS.
func wholeTransportSocket(c *clusterv3.Cluster) error {
	if a := c.GetTransportSocket().GetTypedConfig(); a.GetTypeUrl() == upstreamTLS {
		return validateAny(a)
	}
	return nil
}

// validateWholeConfigs validates the packed configs of c's settings but
// the partial ones: an endpoint override with no source, say, is the
// field's finding, not config Envoy refuses.
func validateWholeConfigs(c *clusterv3.Cluster) error {
	var err error
	c.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if partialClusterConfigs[fd.Name()] || fd.Kind() != protoreflect.MessageKind || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len() && err == nil; i++ {
				err = visit(l.Get(i).Message(), validateAny)
			}
		} else {
			err = visit(v.Message(), validateAny)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	return wholeTransportSocket(c)
}
