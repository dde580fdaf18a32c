package envoygateway

import (
	"encoding/json"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
)

// TestServiceClusterParts: a service's backendSettings shape its cluster
// as Envoy Gateway's applyTraffic does, each setting by the renderer of
// the BackendTrafficPolicy field of its name, as for a cluster no route
// owns: a consistent hash's hash policy and the longest stream go in the
// cluster's HTTP protocol options, the request timeout and the retry are
// no cluster's, and a setting render cannot express is named under the
// backendSettings.
func TestServiceClusterParts(t *testing.T) {
	for _, tt := range []struct {
		name, settings string
		// want: what the parts' clusters hold, merged by proto.Merge
		// (protojson of the cluster with its HTTP protocol options
		// decoded into opts)
		check      func(t *testing.T, c *clusterv3.Cluster, opts *upstreamhttpv3.HttpProtocolOptions)
		capability string
	}{
		{name: "nothing", settings: `{}`, check: func(t *testing.T, c *clusterv3.Cluster, _ *upstreamhttpv3.HttpProtocolOptions) {
			if !proto.Equal(c, &clusterv3.Cluster{}) {
				t.Errorf("cluster %v; want nothing", c)
			}
		}},
		{name: "the request timeout is no cluster's, the longest stream is", settings: `{"timeout":{"http":{"requestTimeout":"3s","maxStreamDuration":"7s","connectionIdleTimeout":"5s"}}}`,
			check: func(t *testing.T, _ *clusterv3.Cluster, o *upstreamhttpv3.HttpProtocolOptions) {
				common := o.GetCommonHttpProtocolOptions()
				if common.GetMaxStreamDuration().AsDuration().Seconds() != 7 || common.GetIdleTimeout().AsDuration().Seconds() != 5 {
					t.Errorf("common HTTP options %v; want the idle timeout and the longest stream", common)
				}
			}},
		{name: "a consistent hash hashes in the cluster's options", settings: `{"loadBalancer":{"type":"ConsistentHash","consistentHash":{"type":"SourceIP"}}}`,
			check: func(t *testing.T, c *clusterv3.Cluster, o *upstreamhttpv3.HttpProtocolOptions) {
				if len(o.GetHashPolicy()) != 1 || !o.GetHashPolicy()[0].GetConnectionProperties().GetSourceIp() {
					t.Errorf("hash policy %v; want the source IP", o.GetHashPolicy())
				}
				if c.GetLoadBalancingPolicy().GetPolicies()[0].GetTypedExtensionConfig().GetName() != "envoy.load_balancing_policies.maglev" {
					t.Errorf("load balancing %v; want Maglev", c.GetLoadBalancingPolicy())
				}
			}},
		{name: "a circuit breaker's requests per connection and its thresholds", settings: `{"circuitBreaker":{"maxConnections":7,"maxRequestsPerConnection":1},"connection":{"bufferLimit":"1Mi"},"tcpKeepalive":{"probes":4}}`,
			check: func(t *testing.T, c *clusterv3.Cluster, o *upstreamhttpv3.HttpProtocolOptions) {
				th := c.GetCircuitBreakers().GetThresholds()
				if len(th) != 1 || th[0].GetMaxConnections().GetValue() != 7 || th[0].GetMaxRetries().GetValue() != circuitBreakerDefault {
					t.Errorf("thresholds %v; want 7 connections, the other limits 1024", th)
				}
				if o.GetCommonHttpProtocolOptions().GetMaxRequestsPerConnection().GetValue() != 1 {
					t.Errorf("options %v; want one request per connection", o)
				}
				if c.GetPerConnectionBufferLimitBytes().GetValue() != 1<<20 || c.GetUpstreamConnectionOptions().GetTcpKeepalive().GetKeepaliveProbes().GetValue() != 4 {
					t.Errorf("cluster %v; want the buffer limit and the keepalive", c)
				}
			}},
		{name: "a hash source not rendered yet", settings: `{"loadBalancer":{"type":"ConsistentHash","consistentHash":{"type":"QueryParams","queryParams":[{"name":"q"}]}}}`,
			capability: "loadBalancer.consistentHash.QueryParams"},
		{name: "the retry is the caller's", settings: `{"retry":{"numRetries":3}}`, check: func(t *testing.T, c *clusterv3.Cluster, _ *upstreamhttpv3.HttpProtocolOptions) {
			if !proto.Equal(c, &clusterv3.Cluster{}) {
				t.Errorf("cluster %v; want nothing", c)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var cs egv1a1.ClusterSettings
			if err := json.Unmarshal([]byte(tt.settings), &cs); err != nil {
				t.Fatal(err)
			}
			parts, capability, err := serviceClusterParts(&cs, writtenAt{}, policyName{})
			if err != nil {
				t.Fatal(err)
			}
			if capability != tt.capability {
				t.Fatalf("capability %q; want %q", capability, tt.capability)
			}
			if tt.check == nil {
				return
			}
			c := &clusterv3.Cluster{}
			opts := &upstreamhttpv3.HttpProtocolOptions{}
			for _, p := range parts {
				pc, _ := p.Cluster.(*clusterv3.Cluster)
				if pc == nil {
					continue
				}
				if a := pc.GetTypedExtensionProtocolOptions()[httpProtocolOptionsKey]; a != nil {
					o := &upstreamhttpv3.HttpProtocolOptions{}
					if err := a.UnmarshalTo(o); err != nil {
						t.Fatal(err)
					}
					proto.Merge(opts, o)
					pc = proto.Clone(pc).(*clusterv3.Cluster)
					pc.TypedExtensionProtocolOptions = nil
				}
				proto.Merge(c, pc)
			}
			tt.check(t, c, opts)
		})
	}
}

// TestRoutingTypeAnyValue: a routingType Envoy Gateway does not name
// (the CRD has no enum; IsServiceRouting falls back to the EnvoyProxy's
// for it) renders to nothing, as Service and Endpoint do: no error, so
// the routes it reaches forward.
func TestRoutingTypeAnyValue(t *testing.T) {
	for _, v := range []string{"Service", "Endpoint", "", "other"} {
		rt := egv1a1.RoutingType(v)
		if frags, err := renderRoutingType(&rt, policyName{}); err != nil || len(frags) != 0 {
			t.Errorf("routingType %q: %v, %v; want nothing", v, frags, err)
		}
	}
}
