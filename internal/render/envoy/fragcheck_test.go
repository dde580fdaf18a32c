package envoy

import (
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	proxyprotocolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/proxy_protocol/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestFragmentShellsValid: every shell passes Envoy's rules by itself, so
// that what fails inside one is the part merged over it.
func TestFragmentShellsValid(t *testing.T) {
	for name, shell := range fragmentShells {
		if err := validateDeep(shell); err != nil {
			t.Errorf("shell %s: %v", name, err)
		}
	}
}

// TestCheckFragment: a part that only the whole resource completes (a
// route without a match, connection manager settings without a route
// source) passes; a value Envoy refuses is named, whichever part holds it.
func TestCheckFragment(t *testing.T) {
	for _, c := range []struct {
		name string
		fr   policy.Fragment
		want string // "" when the fragment passes
	}{
		{"partial route", policy.Fragment{TypedRoute: &routev3.Route{Decorator: &routev3.Decorator{Operation: "op"}}}, ""},
		{"partial connection manager", policy.Fragment{HCM: &hcmv3.HttpConnectionManager{RequestTimeout: durationpb.New(5e9)}}, ""},
		{"direct response status", policy.Fragment{TypedRoute: &routev3.Route{Action: &routev3.Route_DirectResponse{DirectResponse: &routev3.DirectResponseAction{Status: 99}}}},
			"route settings: invalid Route.DirectResponse"},
		{"negative timeout", policy.Fragment{HCM: &hcmv3.HttpConnectionManager{RequestHeadersTimeout: durationpb.New(-5e9)}},
			"connection manager settings: invalid HttpConnectionManager.RequestHeadersTimeout"},
		{"header count", policy.Fragment{HCM: &hcmv3.HttpConnectionManager{MaxRequestHeadersKb: wrapperspb.UInt32(0)}},
			"connection manager settings: invalid HttpConnectionManager.MaxRequestHeadersKb"},
	} {
		err := checkFragment(c.fr)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

// TestClusterSettingsAsOverAShell: validClusterSettings validates the
// settings themselves instead of a copy merged over a named cluster; the
// answer must be that copy's, error for error, with and without a name,
// valid, with one refused value and with several.
func TestClusterSettingsAsOverAShell(t *testing.T) {
	overShell := func(c *clusterv3.Cluster) error {
		whole := &clusterv3.Cluster{Name: "shell"}
		proto.Merge(whole, c)
		return whole.ValidateAll()
	}
	refused := map[string]func(*clusterv3.Cluster){
		"connect timeout":  func(c *clusterv3.Cluster) { c.ConnectTimeout = durationpb.New(-time.Second) },
		"health check":     func(c *clusterv3.Cluster) { c.HealthChecks = []*corev3.HealthCheck{{}} },
		"lb policy":        func(c *clusterv3.Cluster) { c.LbPolicy = clusterv3.Cluster_LbPolicy(99) },
		"cleanup interval": func(c *clusterv3.Cluster) { c.CleanupInterval = durationpb.New(-time.Second) },
		"outlier interval": func(c *clusterv3.Cluster) {
			c.OutlierDetection = &clusterv3.OutlierDetection{Interval: durationpb.New(-time.Second)}
		},
	}
	fine := func(c *clusterv3.Cluster) {
		c.ConnectTimeout = durationpb.New(2 * time.Second)
		c.CircuitBreakers = &clusterv3.CircuitBreakers{Thresholds: []*clusterv3.CircuitBreakers_Thresholds{{MaxConnections: wrapperspb.UInt32(512)}}}
	}
	var cases []*clusterv3.Cluster
	for _, name := range []string{"", "kube_apps_api_8080"} {
		c := &clusterv3.Cluster{Name: name}
		fine(c)
		cases = append(cases, &clusterv3.Cluster{Name: name}, c)
		all := &clusterv3.Cluster{Name: name}
		for _, set := range refused {
			one := &clusterv3.Cluster{Name: name}
			fine(one)
			set(one)
			set(all)
			cases = append(cases, one)
		}
		cases = append(cases, all)
	}
	failing := 0
	for _, c := range cases {
		want, got := overShell(c), validClusterSettings(c)
		if (want == nil) != (got == nil) || want != nil && want.Error() != got.Error() {
			t.Errorf("%v:\n got %v\nwant %v", c, got, want)
		}
		if want != nil {
			failing++
		}
	}
	if want := len(refused)*2 + 2; failing != want {
		t.Fatalf("%d of %d cases were refused, want %d (each refused value alone and all of them, with and without a name)", failing, len(cases), want)
	}
}

// TestPackedShellsValid: every shell of a partial packed config passes
// Envoy's rules by itself, so that what fails inside one is the config
// merged over it.
func TestPackedShellsValid(t *testing.T) {
	for name, shell := range packedShells {
		if err := validateDeep(shell); err != nil {
			t.Errorf("shell %s: %v", name, err)
		}
	}
}

// TestClusterSettingsPackedConfigs: the configs packed in cluster
// settings are held to Envoy's rules as the field renders them: those it
// renders in part (protocol options without the upstream protocol, a
// PROXY protocol socket without the one it wraps) pass; a value Envoy
// refuses is the field's, whether the config is whole or partial, and
// however deep it is packed.
func TestClusterSettingsPackedConfigs(t *testing.T) {
	options := func(o *upstreamhttpv3.HttpProtocolOptions) *clusterv3.Cluster {
		return &clusterv3.Cluster{TypedExtensionProtocolOptions: map[string]*anypb.Any{"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": mustAny(o)}}
	}
	h2 := func(h *corev3.Http2ProtocolOptions) *upstreamhttpv3.HttpProtocolOptions {
		return &upstreamhttpv3.HttpProtocolOptions{UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{
			ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: h}}}}
	}
	socket := func(name string, m proto.Message) *corev3.TransportSocket {
		return &corev3.TransportSocket{Name: name, ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(m)}}
	}
	proxy := func(inner *corev3.TransportSocket) *clusterv3.Cluster {
		return &clusterv3.Cluster{TransportSocket: socket(proxyProtocolSocket, &proxyprotocolv3.ProxyProtocolUpstreamTransport{
			Config: &corev3.ProxyProtocolConfig{Version: corev3.ProxyProtocolConfig_V2}, TransportSocket: inner})}
	}
	longSNI := &tlsv3.UpstreamTlsContext{Sni: strings.Repeat("a", 256)}
	for _, c := range []struct {
		name string
		c    *clusterv3.Cluster
		want string // "" when the settings pass
	}{
		{"common options alone", options(&upstreamhttpv3.HttpProtocolOptions{CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{IdleTimeout: durationpb.New(time.Minute)}}), ""},
		{"HTTP/2 options", options(h2(&corev3.Http2ProtocolOptions{InitialStreamWindowSize: wrapperspb.UInt32(65535)})), ""},
		{"HTTP/2 window Envoy refuses", options(h2(&corev3.Http2ProtocolOptions{InitialStreamWindowSize: wrapperspb.UInt32(1)})), "Http2ProtocolOptions.InitialStreamWindowSize"},
		{"common options Envoy refuses", options(&upstreamhttpv3.HttpProtocolOptions{CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{MaxHeadersCount: wrapperspb.UInt32(0)}}), "HttpProtocolOptions.MaxHeadersCount"},
		{"PROXY protocol wrapping nothing yet", proxy(nil), ""},
		{"PROXY protocol wrapping TLS", proxy(socket("envoy.transport_sockets.tls", &tlsv3.UpstreamTlsContext{Sni: "a.example"})), ""},
		{"PROXY protocol wrapping TLS Envoy refuses", proxy(socket("envoy.transport_sockets.tls", longSNI)), "UpstreamTlsContext.Sni"},
		{"PROXY protocol TLV Envoy refuses", &clusterv3.Cluster{TransportSocket: socket(proxyProtocolSocket, &proxyprotocolv3.ProxyProtocolUpstreamTransport{
			Config: &corev3.ProxyProtocolConfig{AddedTlvs: []*corev3.TlvEntry{{Type: 256}}}})}, "TlvEntry.Type"},
		{"TLS Envoy refuses", &clusterv3.Cluster{TransportSocket: socket("envoy.transport_sockets.tls", longSNI)}, "UpstreamTlsContext.Sni"},
		{"TLS socket among matches", &clusterv3.Cluster{TransportSocketMatches: []*clusterv3.Cluster_TransportSocketMatch{{Name: "m", TransportSocket: socket("envoy.transport_sockets.tls", longSNI)}}},
			"UpstreamTlsContext.Sni"},
	} {
		err := validClusterSettings(c.c)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}
