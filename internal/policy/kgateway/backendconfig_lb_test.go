package kgateway

import (
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	dnsclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dns/v3"
	lbcommonv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/common/v3"
	leastrequestv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/least_request/v3"
	maglevv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/maglev/v3"
	ringhashv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/ring_hash/v3"
)

// TestHostnameHashingOnDNSOnly: a ring hash or Maglev balancer keeps
// useHostnameForHashing only on a cluster whose hosts come from DNS one
// endpoint each (STRICT_DNS, or the DNS cluster extension without
// allAddressesInSingleEndpoint); on any other cluster it is switched off
// and the rest of the hashing (its hash policies) stays.
func TestHostnameHashingOnDNSOnly(t *testing.T) {
	dnsExt := func(single bool) clusterv3.Cluster_ClusterType {
		return clusterv3.Cluster_ClusterType{ClusterType: &clusterv3.Cluster_CustomClusterType{
			Name: DNSClusterType, TypedConfig: pack(&dnsclusterv3.DnsCluster{AllAddressesInSingleEndpoint: single})}}
	}
	multi, single := dnsExt(false), dnsExt(true)
	for _, tc := range []struct {
		name      string
		discovery clusterv3.Cluster_Type
		ext       *clusterv3.Cluster_ClusterType
		keep      bool
	}{
		{name: "EDS", discovery: clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS}},
		{name: "STATIC", discovery: clusterv3.Cluster_Type{Type: clusterv3.Cluster_STATIC}},
		{name: "STRICT_DNS", discovery: clusterv3.Cluster_Type{Type: clusterv3.Cluster_STRICT_DNS}, keep: true},
		{name: "LOGICAL_DNS", discovery: clusterv3.Cluster_Type{Type: clusterv3.Cluster_LOGICAL_DNS}},
		{name: "dns extension, an endpoint per address", ext: &multi, keep: true},
		{name: "dns extension, all addresses in one endpoint", ext: &single},
	} {
		for _, balancer := range []string{"ringHash", "maglev"} {
			t.Run(tc.name+"/"+balancer, func(t *testing.T) {
				c := &clusterv3.Cluster{}
				if err := loadBalancer(map[string]any{balancer: map[string]any{
					"useHostnameForHashing": true,
					"hashPolicies":          []any{map[string]any{"header": map[string]any{"name": "x-user"}}},
				}}, c, nil); err != nil {
					t.Fatal(err)
				}
				if tc.ext != nil {
					c.ClusterDiscoveryType = tc.ext
				} else {
					d := tc.discovery
					c.ClusterDiscoveryType = &d
				}
				hostnameHashingOnDNSOnly(c)
				hc := hashing(t, c.GetLoadBalancingPolicy().GetPolicies()[0].GetTypedExtensionConfig())
				if hc.GetUseHostnameForHashing() != tc.keep {
					t.Errorf("useHostnameForHashing = %v, want %v", hc.GetUseHostnameForHashing(), tc.keep)
				}
				if len(hc.GetHashPolicy()) != 1 || hc.GetHashPolicy()[0].GetHeader().GetHeaderName() != "x-user" {
					t.Errorf("hash policies = %v, want the x-user header kept", hc.GetHashPolicy())
				}
			})
		}
	}
}

func hashing(t *testing.T, tc *corev3.TypedExtensionConfig) *lbcommonv3.ConsistentHashingLbConfig {
	t.Helper()
	m, err := tc.GetTypedConfig().UnmarshalNew()
	if err != nil {
		t.Fatal(err)
	}
	switch p := m.(type) {
	case *ringhashv3.RingHash:
		return p.GetConsistentHashingLbConfig()
	case *maglevv3.Maglev:
		return p.GetConsistentHashingLbConfig()
	}
	t.Fatalf("balancer %T hashes nothing", m)
	return nil
}

// TestCommonLbConfig: the common settings in their empty forms are kept
// (a 0% panic threshold, a 0s merge window), a merge window that is no
// duration is an error naming the field, and nothing set is an empty
// common_lb_config, as kgateway always writes one.
func TestCommonLbConfig(t *testing.T) {
	zero := 0.0
	win := "0s"
	c, err := commonLbConfig(loadBalancerSpec{HealthyPanicThreshold: &zero, UpdateMergeWindow: &win})
	if err != nil {
		t.Fatal(err)
	}
	if c.GetHealthyPanicThreshold() == nil || c.GetHealthyPanicThreshold().GetValue() != 0 {
		t.Errorf("healthy panic threshold = %v, want 0%%", c.GetHealthyPanicThreshold())
	}
	if c.GetUpdateMergeWindow() == nil || c.GetUpdateMergeWindow().AsDuration() != 0 {
		t.Errorf("update merge window = %v, want 0s", c.GetUpdateMergeWindow())
	}
	bad := "soon"
	if _, err := commonLbConfig(loadBalancerSpec{UpdateMergeWindow: &bad}); err == nil || err.Error() != `updateMergeWindow: "soon" is not a duration` {
		t.Errorf("error = %v, want the field named", err)
	}
	empty, err := commonLbConfig(loadBalancerSpec{})
	if err != nil || empty == nil || empty.GetHealthyPanicThreshold() != nil || empty.GetUpdateMergeWindow() != nil {
		t.Errorf("nothing set: %v, %v; want an empty config", empty, err)
	}
}

// TestBackendConfigCRDDefaults: what the BackendConfigPolicy CRD defaults
// (the API server stores it before kgateway reads the policy) is written
// when the policy leaves it out — a least-request balancer's choiceCount
// (2), outlier detection's interval, base ejection time, consecutive 5xx
// and maximum ejection percentage — and a value given replaces it.
func TestBackendConfigCRDDefaults(t *testing.T) {
	t.Run("leastRequest.choiceCount", func(t *testing.T) {
		for _, tc := range []struct {
			lr   map[string]any
			want uint32
		}{{map[string]any{}, 2}, {map[string]any{"choiceCount": 5}, 5}} {
			c := &clusterv3.Cluster{}
			if err := loadBalancer(map[string]any{"leastRequest": tc.lr}, c, nil); err != nil {
				t.Fatal(err)
			}
			lr := &leastrequestv3.LeastRequest{}
			if err := c.GetLoadBalancingPolicy().GetPolicies()[0].GetTypedExtensionConfig().GetTypedConfig().UnmarshalTo(lr); err != nil {
				t.Fatal(err)
			}
			if lr.GetChoiceCount().GetValue() != tc.want {
				t.Errorf("%v: choice_count %v, want %d", tc.lr, lr.GetChoiceCount(), tc.want)
			}
		}
	})
	t.Run("outlierDetection", func(t *testing.T) {
		for _, tc := range []struct {
			od                        map[string]any
			interval, ejection        time.Duration
			consecutive5xx, maxEjectP uint32
		}{
			{map[string]any{}, 10 * time.Second, 30 * time.Second, 5, 10},
			{map[string]any{"maxEjectionPercent": 0, "consecutive5xx": 0}, 10 * time.Second, 30 * time.Second, 0, 0},
			{map[string]any{"interval": "2s", "baseEjectionTime": "1m", "maxEjectionPercent": 55}, 2 * time.Second, time.Minute, 5, 55},
		} {
			c := &clusterv3.Cluster{}
			if err := outlierDetection(tc.od, c); err != nil {
				t.Fatal(err)
			}
			od := c.GetOutlierDetection()
			if od.GetInterval().AsDuration() != tc.interval || od.GetBaseEjectionTime().AsDuration() != tc.ejection ||
				od.GetConsecutive_5Xx().GetValue() != tc.consecutive5xx || od.GetMaxEjectionPercent() == nil || od.GetMaxEjectionPercent().GetValue() != tc.maxEjectP {
				t.Errorf("%v: outlier detection %v", tc.od, od)
			}
		}
	})
}
