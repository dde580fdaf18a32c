package kgateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	dnsclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dns/v3"
	headerfmtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/header_formatters/preserve_case/v3"
	lbcommonv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/common/v3"
	leastrequestv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/least_request/v3"
	maglevv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/maglev/v3"
	randomv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/random/v3"
	ringhashv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/ring_hash/v3"
	roundrobinv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/round_robin/v3"
	proxyprotocolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/proxy_protocol/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret"
)

// BackendConfigPolicy renders each field into the cluster of the backend
// it targets, as kgateway's backendconfigpolicy plugin shapes it.
var _ policy.Renderer = BackendConfigKind{}

// HTTPProtocolOptionsKey is the typed_extension_protocol_options key of
// upstream HTTP protocol options.
const HTTPProtocolOptionsKey = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"

// RenderField implements policy.Renderer: one field becomes a Cluster
// holding only the settings it makes. A setting gwpol does not render yet
// is an unsupported error (GWP404), never dropped.
func (BackendConfigKind) RenderField(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	if len(in.Values) == 0 {
		return nil, nil
	}
	v := in.Values[0]
	c := &clusterv3.Cluster{}
	var err error
	switch in.Key {
	case "connectTimeout":
		var s string
		if err = strict(v, &s); err == nil {
			c.ConnectTimeout, err = parseDuration(s)
		}
	case "perConnectionBufferLimitBytes":
		var n uint32
		if err = strict(v, &n); err == nil {
			c.PerConnectionBufferLimitBytes = wrapperspb.UInt32(n)
		}
	case "tcpKeepalive":
		err = tcpKeepalive(v, c)
	case "commonHttpProtocolOptions", "http1ProtocolOptions", "http2ProtocolOptions":
		err = httpOptions(in.Key, v, c)
	case "loadBalancer":
		err = loadBalancer(v, c, in.Contributors)
	case "healthCheck":
		err = healthCheck(v, c)
	case "outlierDetection":
		err = outlierDetection(v, c)
	case "circuitBreakers":
		err = circuitBreakers(v, c)
	case "tls":
		err = upstreamTLS(v, c, in.Namespaces[0], envModel(env))
	case "upstreamProxyProtocol":
		err = proxyProtocol(v, c)
	case "dns.refreshRate", "dns.jitter", "dns.respectTTL":
		err = dnsSetting(in.Key, v, c)
	default:
		err = diag.Errorf(diag.Unsupported, "gwpol does not render %s yet", in.Key)
	}
	if err != nil {
		return nil, err
	}
	fr := policy.Fragment{Cluster: c}
	if in.Key == "loadBalancer" {
		fr.ClusterFinish = hostnameHashingOnDNSOnly
	}
	return []policy.Fragment{fr}, nil
}

// hostnameHashingOnDNSOnly is kgateway's applyLoadBalancerConfig: a
// consistent-hashing policy hashes on host names only in a cluster whose
// hosts come from DNS (STRICT_DNS, or the DNS cluster extension with one
// endpoint per address); in any other (a Service's EDS cluster) kgateway
// turns useHostnameForHashing off and keeps the rest of the policy.
func hostnameHashingOnDNSOnly(m proto.Message) {
	c, ok := m.(*clusterv3.Cluster)
	if !ok || hostsFromDNS(c) || c.GetLoadBalancingPolicy() == nil || len(c.GetLoadBalancingPolicy().GetPolicies()) == 0 {
		return
	}
	tc := c.GetLoadBalancingPolicy().GetPolicies()[0].GetTypedExtensionConfig()
	if tc == nil || tc.GetTypedConfig() == nil {
		return
	}
	msg, err := tc.GetTypedConfig().UnmarshalNew()
	if err != nil {
		return
	}
	var hc *lbcommonv3.ConsistentHashingLbConfig
	switch p := msg.(type) {
	case *ringhashv3.RingHash:
		hc = p.GetConsistentHashingLbConfig()
	case *maglevv3.Maglev:
		hc = p.GetConsistentHashingLbConfig()
	}
	if hc == nil || !hc.UseHostnameForHashing {
		return
	}
	hc.UseHostnameForHashing = false
	tc.TypedConfig = pack(msg)
}

// hostsFromDNS reports whether the cluster's hosts are DNS names Envoy
// resolves, one endpoint each (kgateway's supportsHostnameForHashing).
func hostsFromDNS(c *clusterv3.Cluster) bool {
	switch t := c.GetClusterDiscoveryType().(type) {
	case *clusterv3.Cluster_Type:
		return t.Type == clusterv3.Cluster_STRICT_DNS
	case *clusterv3.Cluster_ClusterType:
		if t.ClusterType.GetName() != DNSClusterType || t.ClusterType.GetTypedConfig() == nil {
			return false
		}
		d := &dnsclusterv3.DnsCluster{}
		if err := t.ClusterType.GetTypedConfig().UnmarshalTo(d); err != nil {
			return false
		}
		return !d.GetAllAddressesInSingleEndpoint()
	}
	return false
}

// strict decodes a field's value into a typed view; a setting the view
// lacks is unsupported (gwpol does not render it), a wrong type invalid.
func strict(v any, into any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return diag.Errorf(diag.Unsupported, "gwpol does not render the setting %s yet", f)
		}
		return err
	}
	return nil
}

func parseDuration(s string) (*durationpb.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a duration", s)
	}
	return durationpb.New(d), nil
}

// optDuration is duration for an optional setting.
func optDuration(s *string) (*durationpb.Duration, error) {
	if s == nil {
		return nil, nil
	}
	return parseDuration(*s)
}

func u32(n *uint32) *wrapperspb.UInt32Value {
	if n == nil {
		return nil
	}
	return wrapperspb.UInt32(*n)
}

// u32Or is n, or def when n is not given (a CRD default).
func u32Or(n *uint32, def uint32) *wrapperspb.UInt32Value {
	if n == nil {
		return wrapperspb.UInt32(def)
	}
	return wrapperspb.UInt32(*n)
}

func seconds(s *string) (*wrapperspb.UInt32Value, error) {
	if s == nil {
		return nil, nil
	}
	d, err := time.ParseDuration(*s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a duration", *s)
	}
	return wrapperspb.UInt32(uint32(d / time.Second)), nil
}

func tcpKeepalive(v any, c *clusterv3.Cluster) error {
	var k struct {
		KeepAliveProbes   *uint32 `json:"keepAliveProbes"`
		KeepAliveTime     *string `json:"keepAliveTime"`
		KeepAliveInterval *string `json:"keepAliveInterval"`
	}
	if err := strict(v, &k); err != nil {
		return err
	}
	t, err := seconds(k.KeepAliveTime)
	if err != nil {
		return err
	}
	i, err := seconds(k.KeepAliveInterval)
	if err != nil {
		return err
	}
	c.UpstreamConnectionOptions = &clusterv3.UpstreamConnectionOptions{TcpKeepalive: &corev3.TcpKeepalive{
		KeepaliveProbes: u32(k.KeepAliveProbes), KeepaliveTime: t, KeepaliveInterval: i,
	}}
	return nil
}

// httpOptions: the three HTTP protocol option fields share one
// HttpProtocolOptions extension; the renderer merges them (and chooses
// HTTP/1.1 when nothing names the upstream protocol).
func httpOptions(key string, v any, c *clusterv3.Cluster) error {
	opts := &upstreamhttpv3.HttpProtocolOptions{}
	switch key {
	case "commonHttpProtocolOptions":
		var o struct {
			IdleTimeout                  *string `json:"idleTimeout"`
			MaxHeadersCount              *uint32 `json:"maxHeadersCount"`
			MaxStreamDuration            *string `json:"maxStreamDuration"`
			MaxRequestsPerConnection     *uint32 `json:"maxRequestsPerConnection"`
			HeadersWithUnderscoresAction *string `json:"headersWithUnderscoresAction"`
		}
		if err := strict(v, &o); err != nil {
			return err
		}
		common := &corev3.HttpProtocolOptions{MaxHeadersCount: u32(o.MaxHeadersCount), MaxRequestsPerConnection: u32(o.MaxRequestsPerConnection)}
		var err error
		if common.IdleTimeout, err = optDuration(o.IdleTimeout); err != nil {
			return err
		}
		if common.MaxStreamDuration, err = optDuration(o.MaxStreamDuration); err != nil {
			return err
		}
		if o.HeadersWithUnderscoresAction != nil {
			a, ok := corev3.HttpProtocolOptions_HeadersWithUnderscoresAction_value[camelToEnum(*o.HeadersWithUnderscoresAction)]
			if !ok {
				return fmt.Errorf("headersWithUnderscoresAction %q is not one of Allow, RejectRequest, DropHeader", *o.HeadersWithUnderscoresAction)
			}
			common.HeadersWithUnderscoresAction = corev3.HttpProtocolOptions_HeadersWithUnderscoresAction(a)
		}
		opts.CommonHttpProtocolOptions = common
	case "http1ProtocolOptions":
		var o struct {
			EnableTrailers                          *bool `json:"enableTrailers"`
			OverrideStreamErrorOnInvalidHTTPMessage *bool `json:"overrideStreamErrorOnInvalidHttpMessage"`
			PreserveHTTP1HeaderCase                 *bool `json:"preserveHttp1HeaderCase"`
		}
		if err := strict(v, &o); err != nil {
			return err
		}
		h1 := &corev3.Http1ProtocolOptions{EnableTrailers: o.EnableTrailers != nil && *o.EnableTrailers}
		if o.OverrideStreamErrorOnInvalidHTTPMessage != nil {
			h1.OverrideStreamErrorOnInvalidHttpMessage = wrapperspb.Bool(*o.OverrideStreamErrorOnInvalidHTTPMessage)
		}
		if o.PreserveHTTP1HeaderCase != nil && *o.PreserveHTTP1HeaderCase {
			h1.HeaderKeyFormat = preserveCaseHeaderFormat()
		}
		opts.UpstreamProtocolOptions = &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
			ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_HttpProtocolOptions{HttpProtocolOptions: h1},
		}}
	case "http2ProtocolOptions":
		// The window sizes are Kubernetes quantities (an integer or a
		// string such as "128Ki", the CRD's int-or-string), written as
		// their value in bytes (translateHttp2ProtocolOptions:
		// Quantity.Value()); the CRD holds them to 65535–2147483647.
		var o struct {
			InitialStreamWindowSize                 *resource.Quantity `json:"initialStreamWindowSize"`
			InitialConnectionWindowSize             *resource.Quantity `json:"initialConnectionWindowSize"`
			MaxConcurrentStreams                    *uint32            `json:"maxConcurrentStreams"`
			OverrideStreamErrorOnInvalidHTTPMessage *bool              `json:"overrideStreamErrorOnInvalidHttpMessage"`
			ConnectionKeepalive                     *http2Keepalive    `json:"connectionKeepalive"`
		}
		if err := strict(v, &o); err != nil {
			return err
		}
		h2 := &corev3.Http2ProtocolOptions{
			InitialStreamWindowSize: quantityU32(o.InitialStreamWindowSize), InitialConnectionWindowSize: quantityU32(o.InitialConnectionWindowSize),
			MaxConcurrentStreams: u32(o.MaxConcurrentStreams),
		}
		var err error
		if h2.ConnectionKeepalive, err = o.ConnectionKeepalive.settings(); err != nil {
			return err
		}
		if o.OverrideStreamErrorOnInvalidHTTPMessage != nil {
			h2.OverrideStreamErrorOnInvalidHttpMessage = wrapperspb.Bool(*o.OverrideStreamErrorOnInvalidHTTPMessage)
		}
		opts.UpstreamProtocolOptions = &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
			ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: h2},
		}}
	}
	c.TypedExtensionProtocolOptions = map[string]*anypb.Any{HTTPProtocolOptionsKey: pack(opts)}
	return nil
}

// http2Keepalive is a BackendConfigPolicy's
// http2ProtocolOptions.connectionKeepalive: HTTP/2 PINGs on the upstream
// connections. The pinned CRD names Envoy's KeepaliveSettings as its
// reference and each of its three durations is the Envoy field of the same
// name (interval, timeout — which the CRD requires — and
// connectionIdleInterval); what is not written stays unset, so Envoy's own
// defaults (its 15 % interval jitter) apply.
type http2Keepalive struct {
	Interval               *string `json:"interval"`
	Timeout                *string `json:"timeout"`
	ConnectionIdleInterval *string `json:"connectionIdleInterval"`
}

// settings is the Envoy message for k (nil for nil).
func (k *http2Keepalive) settings() (*corev3.KeepaliveSettings, error) {
	if k == nil {
		return nil, nil
	}
	out := &corev3.KeepaliveSettings{}
	for _, f := range []struct {
		name string
		in   *string
		out  **durationpb.Duration
	}{{"interval", k.Interval, &out.Interval}, {"timeout", k.Timeout, &out.Timeout}, {"connectionIdleInterval", k.ConnectionIdleInterval, &out.ConnectionIdleInterval}} {
		d, err := optDuration(f.in)
		if err != nil {
			return nil, fmt.Errorf("connectionKeepalive.%s: %w", f.name, err)
		}
		*f.out = d
	}
	return out, nil
}

// preserveCaseHeaderFormat keeps the case of HTTP/1 header names as they
// were received, through Envoy's preserve_case stateful formatter: what
// kgateway writes for preserveHttp1HeaderCase, upstream (a
// BackendConfigPolicy's http1ProtocolOptions) and downstream (a
// ListenerPolicy's httpSettings) alike.
func preserveCaseHeaderFormat() *corev3.Http1ProtocolOptions_HeaderKeyFormat {
	return &corev3.Http1ProtocolOptions_HeaderKeyFormat{
		HeaderFormat: &corev3.Http1ProtocolOptions_HeaderKeyFormat_StatefulFormatter{StatefulFormatter: &corev3.TypedExtensionConfig{
			Name: "envoy.http.stateful_header_formatters.preserve_case", TypedConfig: pack(&headerfmtv3.PreserveCaseFormatterConfig{}),
		}},
	}
}

// quantityU32 is a quantity's value in bytes as Envoy's UInt32Value,
// kgateway's uint32(q.Value()); nil when unset.
func quantityU32(q *resource.Quantity) *wrapperspb.UInt32Value {
	if q == nil {
		return nil
	}
	return wrapperspb.UInt32(uint32(q.Value())) //nolint:gosec // the CRD bounds it to 65535–2147483647, as kgateway relies on
}

// camelToEnum turns a CRD enum value (RejectRequest) into Envoy's
// (REJECT_REQUEST).
func camelToEnum(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

type slowStart struct {
	Window           *string  `json:"window"`
	Aggression       *string  `json:"aggression"`
	MinWeightPercent *float64 `json:"minWeightPercent"`
}

type loadBalancerSpec struct {
	HealthyPanicThreshold *float64 `json:"healthyPanicThreshold"`
	UpdateMergeWindow     *string  `json:"updateMergeWindow"`
	LeastRequest          *struct {
		ChoiceCount *uint32    `json:"choiceCount"`
		SlowStart   *slowStart `json:"slowStart"`
	} `json:"leastRequest"`
	RoundRobin *struct {
		SlowStart *slowStart `json:"slowStart"`
	} `json:"roundRobin"`
	RingHash *struct {
		MinimumRingSize       *uint64      `json:"minimumRingSize"`
		MaximumRingSize       *uint64      `json:"maximumRingSize"`
		UseHostnameForHashing *bool        `json:"useHostnameForHashing"`
		HashPolicies          []hashPolicy `json:"hashPolicies"`
	} `json:"ringHash"`
	Maglev *struct {
		UseHostnameForHashing *bool        `json:"useHostnameForHashing"`
		HashPolicies          []hashPolicy `json:"hashPolicies"`
	} `json:"maglev"`
	Random                          *struct{} `json:"random"`
	LocalityType                    *string   `json:"localityType"`
	CloseConnectionsOnHostSetChange *bool     `json:"closeConnectionsOnHostSetChange"`
	ZoneAware                       *struct {
		PreferLocal *struct {
			MinEndpointsThreshold *uint64  `json:"minEndpointsThreshold"`
			RoutingEnabled        *float64 `json:"routingEnabled"`
			Force                 *struct {
				MinEndpointsInZoneThreshold *uint32 `json:"minEndpointsInZoneThreshold"`
			} `json:"force"`
		} `json:"preferLocal"`
	} `json:"zoneAware"`
}

// loadBalancer: one load-balancing policy extension. kgateway moves
// locality weighting from the cluster's common LB config into the policy
// (or replaces it by zone-aware routing), and names the slow-start
// aggression's runtime key after the policy.
func loadBalancer(v any, c *clusterv3.Cluster, ids []string) error {
	var lb loadBalancerSpec
	if err := strict(v, &lb); err != nil {
		return err
	}
	common, err := commonLbConfig(lb)
	if err != nil {
		return err
	}
	c.CommonLbConfig = common
	locality := &lbcommonv3.LocalityLbConfig{LocalityConfigSpecifier: &lbcommonv3.LocalityLbConfig_LocalityWeightedLbConfig_{
		LocalityWeightedLbConfig: &lbcommonv3.LocalityLbConfig_LocalityWeightedLbConfig{}}}
	if z := lb.ZoneAware; z != nil && z.PreferLocal != nil {
		zc := &lbcommonv3.LocalityLbConfig_ZoneAwareLbConfig{MinClusterSize: wrapperspb.UInt64(6), RoutingEnabled: &typev3.Percent{Value: 100}}
		if p := z.PreferLocal.MinEndpointsThreshold; p != nil {
			zc.MinClusterSize = wrapperspb.UInt64(*p)
		}
		if p := z.PreferLocal.RoutingEnabled; p != nil {
			zc.RoutingEnabled = &typev3.Percent{Value: *p}
		}
		if f := z.PreferLocal.Force; f != nil {
			// kgateway's zoneAwareForceIR: at least one endpoint in the
			// zone when the threshold is not given (the CRD's default too)
			minSize := wrapperspb.UInt32(1)
			if f.MinEndpointsInZoneThreshold != nil {
				minSize = u32(f.MinEndpointsInZoneThreshold)
			}
			zc.ForceLocalZone = &lbcommonv3.LocalityLbConfig_ZoneAwareLbConfig_ForceLocalZone{MinSize: minSize}
		}
		locality = &lbcommonv3.LocalityLbConfig{LocalityConfigSpecifier: &lbcommonv3.LocalityLbConfig_ZoneAwareLbConfig_{ZoneAwareLbConfig: zc}}
	}
	var name string
	var cfg proto.Message
	switch {
	case lb.LeastRequest != nil:
		// choiceCount: the CRD's default, 2, stored by the API server
		// before kgateway writes it
		m := &leastrequestv3.LeastRequest{ChoiceCount: u32Or(lb.LeastRequest.ChoiceCount, 2), LocalityLbConfig: locality}
		s, err := slowStartConfig(lb.LeastRequest.SlowStart, ids)
		if err != nil {
			return err
		}
		m.SlowStartConfig = s
		name, cfg = "envoy.load_balancing_policies.least_request", m
	case lb.RoundRobin != nil:
		m := &roundrobinv3.RoundRobin{LocalityLbConfig: locality}
		s, err := slowStartConfig(lb.RoundRobin.SlowStart, ids)
		if err != nil {
			return err
		}
		m.SlowStartConfig = s
		name, cfg = "envoy.load_balancing_policies.round_robin", m
	case lb.RingHash != nil:
		m := &ringhashv3.RingHash{}
		if p := lb.RingHash.MinimumRingSize; p != nil {
			m.MinimumRingSize = wrapperspb.UInt64(*p)
		}
		if p := lb.RingHash.MaximumRingSize; p != nil {
			m.MaximumRingSize = wrapperspb.UInt64(*p)
		}
		hc, err := consistentHashing(lb.RingHash.UseHostnameForHashing, lb.RingHash.HashPolicies)
		if err != nil {
			return err
		}
		m.ConsistentHashingLbConfig = hc
		m.LocalityWeightedLbConfig = hashLocality(lb.LocalityType)
		name, cfg = "envoy.load_balancing_policies.ring_hash", m
	case lb.Maglev != nil:
		m := &maglevv3.Maglev{}
		hc, err := consistentHashing(lb.Maglev.UseHostnameForHashing, lb.Maglev.HashPolicies)
		if err != nil {
			return err
		}
		m.ConsistentHashingLbConfig = hc
		m.LocalityWeightedLbConfig = hashLocality(lb.LocalityType)
		name, cfg = "envoy.load_balancing_policies.maglev", m
	case lb.Random != nil:
		name, cfg = "envoy.load_balancing_policies.random", &randomv3.Random{LocalityLbConfig: locality}
	default:
		return nil // only common settings
	}
	c.LoadBalancingPolicy = &clusterv3.LoadBalancingPolicy{Policies: []*clusterv3.LoadBalancingPolicy_Policy{{
		TypedExtensionConfig: &corev3.TypedExtensionConfig{Name: name, TypedConfig: pack(cfg)},
	}}}
	return nil
}

// commonLbConfig is the cluster's common load-balancing settings, always
// written (empty when the policy sets none), as kgateway's
// translateLoadBalancerConfig starts from an empty one: the panic
// threshold as a percentage (0 is kept: Envoy then never disregards
// health), the merge window as a duration (0s applies changes at once).
func commonLbConfig(lb loadBalancerSpec) (*clusterv3.Cluster_CommonLbConfig, error) {
	common := &clusterv3.Cluster_CommonLbConfig{}
	if p := lb.HealthyPanicThreshold; p != nil {
		common.HealthyPanicThreshold = &typev3.Percent{Value: *p}
	}
	if w := lb.UpdateMergeWindow; w != nil {
		d, err := parseDuration(*w)
		if err != nil {
			return nil, fmt.Errorf("updateMergeWindow: %w", err)
		}
		common.UpdateMergeWindow = d
	}
	if lb.CloseConnectionsOnHostSetChange != nil {
		common.CloseConnectionsOnHostSetChange = *lb.CloseConnectionsOnHostSetChange
	}
	return common, nil
}

// hashLocality is a hashing balancer's locality weighting: kgateway
// gives leastRequest, roundRobin and random locality weighting whether or
// not localityType is set (its one value, WeightedLb, is that default),
// but ring hash and Maglev only when it is set (kgateway's
// buildRingHashPolicy and buildMaglevPolicy in backendconfigpolicy/lb.go).
func hashLocality(localityType *string) *lbcommonv3.LocalityLbConfig_LocalityWeightedLbConfig {
	if localityType == nil {
		return nil
	}
	return &lbcommonv3.LocalityLbConfig_LocalityWeightedLbConfig{}
}

// hashPolicy is one input of a consistent hash: a request header, a
// cookie (which Envoy sets when absent), or the client's address.
type hashPolicy struct {
	Header *struct {
		Name string `json:"name"`
	} `json:"header"`
	Cookie *struct {
		Name     string  `json:"name"`
		Path     *string `json:"path"`
		TTL      *string `json:"ttl"`
		Secure   *bool   `json:"secure"`
		HTTPOnly *bool   `json:"httpOnly"`
		SameSite *string `json:"sameSite"`
	} `json:"cookie"`
	SourceIP *struct{} `json:"sourceIP"`
	Terminal *bool     `json:"terminal"`
}

// consistentHashing is the hashing of a ring hash or Maglev balancer;
// nil when the policy sets none of it.
func consistentHashing(useHostname *bool, hps []hashPolicy) (*lbcommonv3.ConsistentHashingLbConfig, error) {
	if useHostname == nil && len(hps) == 0 {
		return nil, nil
	}
	out := &lbcommonv3.ConsistentHashingLbConfig{UseHostnameForHashing: useHostname != nil && *useHostname}
	for i, hp := range hps {
		p, err := routeHashPolicy(hp)
		if err != nil {
			return nil, fmt.Errorf("hashPolicies[%d]: %w", i, err)
		}
		out.HashPolicy = append(out.HashPolicy, p)
	}
	return out, nil
}

// routeHashPolicy: the cookie's attributes go in kgateway's order,
// Secure, HttpOnly, SameSite.
func routeHashPolicy(hp hashPolicy) (*routev3.RouteAction_HashPolicy, error) {
	out := &routev3.RouteAction_HashPolicy{Terminal: hp.Terminal != nil && *hp.Terminal}
	switch {
	case hp.Header != nil:
		out.PolicySpecifier = &routev3.RouteAction_HashPolicy_Header_{Header: &routev3.RouteAction_HashPolicy_Header{HeaderName: hp.Header.Name}}
	case hp.Cookie != nil:
		c := &routev3.RouteAction_HashPolicy_Cookie{Name: hp.Cookie.Name}
		if hp.Cookie.Path != nil {
			c.Path = *hp.Cookie.Path
		}
		if hp.Cookie.TTL != nil {
			d, err := parseDuration(*hp.Cookie.TTL)
			if err != nil {
				return nil, fmt.Errorf("cookie.ttl: %w", err)
			}
			c.Ttl = d
		}
		attr := func(name, value string) {
			c.Attributes = append(c.Attributes, &routev3.RouteAction_HashPolicy_CookieAttribute{Name: name, Value: value})
		}
		if hp.Cookie.Secure != nil && *hp.Cookie.Secure {
			attr("Secure", "true")
		}
		if hp.Cookie.HTTPOnly != nil && *hp.Cookie.HTTPOnly {
			attr("HttpOnly", "true")
		}
		if hp.Cookie.SameSite != nil {
			attr("SameSite", *hp.Cookie.SameSite)
		}
		out.PolicySpecifier = &routev3.RouteAction_HashPolicy_Cookie_{Cookie: c}
	case hp.SourceIP != nil:
		out.PolicySpecifier = &routev3.RouteAction_HashPolicy_ConnectionProperties_{ConnectionProperties: &routev3.RouteAction_HashPolicy_ConnectionProperties{SourceIp: true}}
	default:
		return nil, fmt.Errorf("set one of header, cookie or sourceIP")
	}
	return out, nil
}

// slowStartConfig; the aggression is a runtime value keyed
// <policy>.<namespace>.slowStart.aggression, as kgateway keys it.
func slowStartConfig(s *slowStart, ids []string) (*lbcommonv3.SlowStartConfig, error) {
	if s == nil {
		return nil, nil
	}
	out := &lbcommonv3.SlowStartConfig{}
	var err error
	if out.SlowStartWindow, err = optDuration(s.Window); err != nil {
		return nil, err
	}
	if s.Aggression != nil {
		var f float64
		if _, err := fmt.Sscanf(*s.Aggression, "%g", &f); err != nil {
			return nil, fmt.Errorf("slowStart.aggression %q is not a number", *s.Aggression)
		}
		key := "slowStart.aggression"
		if len(ids) > 0 {
			if parts := strings.Split(ids[0], "/"); len(parts) == 4 {
				key = parts[3] + "." + parts[2] + "." + key
			}
		}
		out.Aggression = &corev3.RuntimeDouble{DefaultValue: f, RuntimeKey: key}
	}
	if s.MinWeightPercent != nil {
		out.MinWeightPercent = &typev3.Percent{Value: *s.MinWeightPercent}
	}
	return out, nil
}

func healthCheck(v any, c *clusterv3.Cluster) error {
	var h struct {
		Timeout            *string `json:"timeout"`
		Interval           *string `json:"interval"`
		UnhealthyThreshold *uint32 `json:"unhealthyThreshold"`
		HealthyThreshold   *uint32 `json:"healthyThreshold"`
		HTTP               *struct {
			Host   *string `json:"host"`
			Path   string  `json:"path"`
			Method *string `json:"method"`
		} `json:"http"`
		GRPC *struct {
			ServiceName *string `json:"serviceName"`
			Authority   *string `json:"authority"`
		} `json:"grpc"`
	}
	if err := strict(v, &h); err != nil {
		return err
	}
	hc := &corev3.HealthCheck{UnhealthyThreshold: u32(h.UnhealthyThreshold), HealthyThreshold: u32(h.HealthyThreshold)}
	var err error
	if hc.Timeout, err = optDuration(h.Timeout); err != nil {
		return err
	}
	if hc.Interval, err = optDuration(h.Interval); err != nil {
		return err
	}
	switch {
	case h.HTTP != nil:
		hh := &corev3.HealthCheck_HttpHealthCheck{Path: h.HTTP.Path}
		if h.HTTP.Host != nil {
			hh.Host = *h.HTTP.Host
		}
		if h.HTTP.Method != nil {
			m, ok := corev3.RequestMethod_value[*h.HTTP.Method]
			if !ok {
				return fmt.Errorf("healthCheck.http.method %q is not an HTTP method", *h.HTTP.Method)
			}
			hh.Method = corev3.RequestMethod(m)
		}
		hc.HealthChecker = &corev3.HealthCheck_HttpHealthCheck_{HttpHealthCheck: hh}
	case h.GRPC != nil:
		g := &corev3.HealthCheck_GrpcHealthCheck{}
		if h.GRPC.ServiceName != nil {
			g.ServiceName = *h.GRPC.ServiceName
		}
		if h.GRPC.Authority != nil {
			g.Authority = *h.GRPC.Authority
		}
		hc.HealthChecker = &corev3.HealthCheck_GrpcHealthCheck_{GrpcHealthCheck: g}
	default:
		return fmt.Errorf("healthCheck needs http or grpc")
	}
	c.HealthChecks = []*corev3.HealthCheck{hc}
	return nil
}

// outlierDetection, with the CRD's defaults (the API server stores them,
// kgateway writes them): the interval (10s), the base ejection time (30s),
// consecutive 5xx (5) and the maximum ejection percentage (10).
func outlierDetection(v any, c *clusterv3.Cluster) error {
	var o struct {
		Interval                               *string `json:"interval"`
		BaseEjectionTime                       *string `json:"baseEjectionTime"`
		Consecutive5xx                         *uint32 `json:"consecutive5xx"`
		MaxEjectionPercent                     *uint32 `json:"maxEjectionPercent"`
		SplitExternalLocalOriginErrors         *bool   `json:"splitExternalLocalOriginErrors"`
		ConsecutiveLocalOriginFailure          *uint32 `json:"consecutiveLocalOriginFailure"`
		EnforcingConsecutiveLocalOriginFailure *uint32 `json:"enforcingConsecutiveLocalOriginFailure"`
		EnforcingConsecutive5xx                *uint32 `json:"enforcingConsecutive5xx"`
		ConsecutiveGatewayFailure              *uint32 `json:"consecutiveGatewayFailure"`
		EnforcingConsecutiveGatewayFailure     *uint32 `json:"enforcingConsecutiveGatewayFailure"`
	}
	if err := strict(v, &o); err != nil {
		return err
	}
	od := &clusterv3.OutlierDetection{
		Interval: durationpb.New(10 * time.Second), BaseEjectionTime: durationpb.New(30 * time.Second), Consecutive_5Xx: wrapperspb.UInt32(5),
		MaxEjectionPercent: u32Or(o.MaxEjectionPercent, 10), ConsecutiveLocalOriginFailure: u32(o.ConsecutiveLocalOriginFailure),
		EnforcingConsecutiveLocalOriginFailure: u32(o.EnforcingConsecutiveLocalOriginFailure), EnforcingConsecutive_5Xx: u32(o.EnforcingConsecutive5xx),
		ConsecutiveGatewayFailure: u32(o.ConsecutiveGatewayFailure), EnforcingConsecutiveGatewayFailure: u32(o.EnforcingConsecutiveGatewayFailure),
	}
	if o.SplitExternalLocalOriginErrors != nil {
		od.SplitExternalLocalOriginErrors = *o.SplitExternalLocalOriginErrors
	}
	if o.Consecutive5xx != nil {
		od.Consecutive_5Xx = wrapperspb.UInt32(*o.Consecutive5xx)
	}
	var err error
	if o.Interval != nil {
		if od.Interval, err = parseDuration(*o.Interval); err != nil {
			return err
		}
	}
	if o.BaseEjectionTime != nil {
		if od.BaseEjectionTime, err = parseDuration(*o.BaseEjectionTime); err != nil {
			return err
		}
	}
	c.OutlierDetection = od
	return nil
}

func circuitBreakers(v any, c *clusterv3.Cluster) error {
	var o struct {
		MaxConnections     *uint32 `json:"maxConnections"`
		MaxPendingRequests *uint32 `json:"maxPendingRequests"`
		MaxRequests        *uint32 `json:"maxRequests"`
		MaxRetries         *uint32 `json:"maxRetries"`
		TrackRemaining     *bool   `json:"trackRemaining"`
	}
	if err := strict(v, &o); err != nil {
		return err
	}
	t := &clusterv3.CircuitBreakers_Thresholds{MaxConnections: u32(o.MaxConnections), MaxPendingRequests: u32(o.MaxPendingRequests),
		MaxRequests: u32(o.MaxRequests), MaxRetries: u32(o.MaxRetries)}
	if o.TrackRemaining != nil {
		t.TrackRemaining = *o.TrackRemaining
	}
	c.CircuitBreakers = &clusterv3.CircuitBreakers{Thresholds: []*clusterv3.CircuitBreakers_Thresholds{t}}
	return nil
}

// SystemCASecret is the SDS name of the system's CA bundle, as kgateway
// names it.
const SystemCASecret = "SYSTEM_CA_CERT"

// upstreamTLS is kgateway's translateTLSConfig. The sources are read as
// the status check reads them (readTLSSources): a Secret's client
// certificate is referenced by SDS and its CA read from where the Secret
// is mounted (gwpol never reads Secret data into the config), each
// written only when the Secret holds it (a Secret that holds only a
// ca.crt validates the backend and presents no certificate); the files
// are paths on the proxy, written as file names as kgateway's
// FileDataSource writes them (the client certificate chain in the form
// CleanedSslKeyPair leaves it); the system CA by kgateway's SDS name, a
// well-known CA set other than System as none (kgateway logs it);
// insecureSkipVerify validates nothing and reads no source.
func upstreamTLS(v any, c *clusterv3.Cluster, ns string, m *model.Model) error {
	var o struct {
		tlsSpec
		SNI                *string  `json:"sni"`
		AllowRenegotiation *bool    `json:"allowRenegotiation"`
		AlpnProtocols      []string `json:"alpnProtocols"`
	}
	if err := strict(v, &o); err != nil {
		return err
	}
	ctx := &tlsv3.UpstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{AlpnProtocols: o.AlpnProtocols}}
	params, err := tlsParams(o.Parameters)
	if err != nil {
		return err
	}
	ctx.CommonTlsContext.TlsParams = params
	if o.SNI != nil {
		ctx.Sni = *o.SNI
	}
	if o.AllowRenegotiation != nil {
		ctx.AllowRenegotiation = *o.AllowRenegotiation
	}
	sans := SubjectAltNames(o.VerifySubjectAltNames)
	common := ctx.CommonTlsContext
	src := readTLSSources(o.tlsSpec, m, ns)
	switch {
	case isTrue(o.InsecureSkipVerify):
		common.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: &tlsv3.CertificateValidationContext{}}
	case o.WellKnownCACertificates != nil:
		if *o.WellKnownCACertificates == "System" {
			common.ValidationContextType = SystemCA(sans)
		}
	case o.SecretRef != nil:
		if src.clientCertificate(o.tlsSpec) {
			common.TlsCertificateSdsSecretConfigs = []*tlsv3.SdsSecretConfig{{Name: policy.SecretSDSName(ns, o.SecretRef.Name), SdsConfig: ads()}}
		}
		if src.trustedCA() {
			common.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: &tlsv3.CertificateValidationContext{
				MatchTypedSubjectAltNames: sans,
				TrustedCa:                 &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: policy.SecretFile(ns, o.SecretRef.Name, "ca.crt")}},
			}}
		}
	case o.Files != nil:
		if src.clientCertificate(o.tlsSpec) {
			chain := deref(o.Files.TLSCertificate)
			if cleaned, err := secret.CleanedChainPEM([]byte(chain)); err == nil {
				chain = cleaned
			} // else the status check refuses the pair
			common.TlsCertificates = []*tlsv3.TlsCertificate{{CertificateChain: fileSource(chain), PrivateKey: fileSource(deref(o.Files.TLSKey))}}
		}
		if src.trustedCA() {
			common.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: &tlsv3.CertificateValidationContext{
				MatchTypedSubjectAltNames: sans, TrustedCa: fileSource(deref(o.Files.RootCA))}}
		}
	}
	c.TransportSocket = &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: pack(ctx)}}
	return nil
}

// fileSource is a data source read from a file on the proxy.
func fileSource(name string) *corev3.DataSource {
	return &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: name}}
}

// envModel is the input's model, nil outside a pass (a renderer called
// with no Env).
func envModel(env *policy.Env) *model.Model {
	if env == nil {
		return nil
	}
	return env.Model
}

// tlsParams: versions "1.0" … "1.3", and the cipher suites, ECDH curves
// and signature algorithms as written (Envoy's TLS library judges them;
// see checkTLS).
func tlsParams(p *tlsParameters) (*tlsv3.TlsParameters, error) {
	if p == nil {
		return nil, nil
	}
	out := &tlsv3.TlsParameters{CipherSuites: p.CipherSuites, EcdhCurves: p.EcdhCurves, SignatureAlgorithms: p.SignatureAlgorithms}
	var err error
	if out.TlsMinimumProtocolVersion, err = tlsProtocol(p.MinVersion); err != nil {
		return nil, err
	}
	if out.TlsMaximumProtocolVersion, err = tlsProtocol(p.MaxVersion); err != nil {
		return nil, err
	}
	return out, nil
}

func tlsProtocol(v *string) (tlsv3.TlsParameters_TlsProtocol, error) {
	if v == nil {
		return tlsv3.TlsParameters_TLS_AUTO, nil
	}
	switch *v {
	case "1.0":
		return tlsv3.TlsParameters_TLSv1_0, nil
	case "1.1":
		return tlsv3.TlsParameters_TLSv1_1, nil
	case "1.2":
		return tlsv3.TlsParameters_TLSv1_2, nil
	case "1.3":
		return tlsv3.TlsParameters_TLSv1_3, nil
	case "AUTO":
		return tlsv3.TlsParameters_TLS_AUTO, nil
	}
	return 0, fmt.Errorf("tls version %q is not 1.0, 1.1, 1.2, 1.3 or AUTO", *v)
}

// SubjectAltNames are DNS SAN matchers, exact, in order.
func SubjectAltNames(names []string) []*tlsv3.SubjectAltNameMatcher {
	var out []*tlsv3.SubjectAltNameMatcher
	for _, n := range names {
		out = append(out, &tlsv3.SubjectAltNameMatcher{SanType: tlsv3.SubjectAltNameMatcher_DNS,
			Matcher: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: n}}})
	}
	return out
}

// SystemCA validates against the system CA bundle (SDS SYSTEM_CA_CERT)
// and the SANs, as kgateway writes it.
func SystemCA(sans []*tlsv3.SubjectAltNameMatcher) *tlsv3.CommonTlsContext_CombinedValidationContext {
	return &tlsv3.CommonTlsContext_CombinedValidationContext{CombinedValidationContext: &tlsv3.CommonTlsContext_CombinedCertificateValidationContext{
		DefaultValidationContext:         &tlsv3.CertificateValidationContext{MatchTypedSubjectAltNames: sans},
		ValidationContextSdsSecretConfig: &tlsv3.SdsSecretConfig{Name: SystemCASecret},
	}}
}

func ads() *corev3.ConfigSource {
	return &corev3.ConfigSource{ResourceApiVersion: corev3.ApiVersion_V3, ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}}
}

// ProxyProtocolSocket is the name of the upstream PROXY protocol
// transport socket; it wraps the cluster's other socket.
const ProxyProtocolSocket = "envoy.transport_sockets.upstream_proxy_protocol"

// proxyProtocol: a PROXY protocol socket with no inner socket yet; the
// renderer wraps the cluster's own (TLS, or raw buffer) in it.
func proxyProtocol(v any, c *clusterv3.Cluster) error {
	var o struct {
		Version *string `json:"version"`
	}
	if err := strict(v, &o); err != nil {
		return err
	}
	cfg := &corev3.ProxyProtocolConfig{}
	if o.Version != nil {
		n, ok := corev3.ProxyProtocolConfig_Version_value[*o.Version]
		if !ok {
			return fmt.Errorf("upstreamProxyProtocol.version %q is not V1 or V2", *o.Version)
		}
		cfg.Version = corev3.ProxyProtocolConfig_Version(n)
	}
	c.TransportSocket = &corev3.TransportSocket{Name: ProxyProtocolSocket, ConfigType: &corev3.TransportSocket_TypedConfig{
		TypedConfig: pack(&proxyprotocolv3.ProxyProtocolUpstreamTransport{Config: cfg})}}
	return nil
}

// DNSClusterType is the cluster type whose resolution the dns field
// tunes (kgateway's static Backends).
const DNSClusterType = "envoy.clusters.dns"

// dnsSetting tunes one part of a DNS cluster's resolution (a field
// dns.X: each part is its own merge key, as kgateway merges them); the
// renderer applies it to a cluster of that type only (a Service's EDS
// cluster resolves nothing), merging the parts of several policies.
func dnsSetting(key string, v any, c *clusterv3.Cluster) error {
	d := &dnsclusterv3.DnsCluster{}
	var err error
	switch key {
	case "dns.refreshRate", "dns.jitter":
		var s string
		if err = strict(v, &s); err != nil {
			return err
		}
		var dur *durationpb.Duration
		if dur, err = optDuration(&s); err != nil {
			return err
		}
		if key == "dns.refreshRate" {
			d.DnsRefreshRate = dur
		} else {
			d.DnsJitter = dur
		}
	case "dns.respectTTL":
		if err = strict(v, &d.RespectDnsTtl); err != nil {
			return err
		}
	}
	c.ClusterDiscoveryType = &clusterv3.Cluster_ClusterType{ClusterType: &clusterv3.Cluster_CustomClusterType{Name: DNSClusterType, TypedConfig: pack(d)}}
	return nil
}
