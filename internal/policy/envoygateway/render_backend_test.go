package envoygateway

import (
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	dfpclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dynamic_forward_proxy/v3"
	rbachttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
)

// TestBackendCluster: a DynamicResolver Backend is a dynamic forward proxy
// cluster (with TLS for wellKnownCACertificates System) and brings the
// loopback RBAC filter; insecureSkipVerify false is that TLS, and other
// tls settings are unsupported; other Backend
// types keep the plain cluster (no build).
func TestBackendCluster(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		dfp, tls   bool
		err        diag.Kind
	}{
		{"dynamic resolver", "{type: DynamicResolver}", true, false, ""},
		{"with system CAs", "{type: DynamicResolver, tls: {wellKnownCACertificates: System}}", true, true, ""},
		{"other tls settings", "{type: DynamicResolver, tls: {caCertificateRefs: [{name: ca}]}}", false, false, diag.Unsupported},
		// insecureSkipVerify false is the verification rendered, as Envoy
		// Gateway reads it (left to the CRD's default too:
		// TestUnrenderedJudgesWhatIsWritten).
		{"verified, written", "{type: DynamicResolver, tls: {wellKnownCACertificates: System, insecureSkipVerify: false}}", true, true, ""},
		{"not verified", "{type: DynamicResolver, tls: {wellKnownCACertificates: System, insecureSkipVerify: true}}", false, false, diag.Unsupported},
		{"FQDN", "{type: Endpoints, endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]}", false, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("b.yaml", []byte("apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: app}\nspec: "+tc.spec+"\n"), manifest.Limits{})
			if err != nil || len(objs) != 1 {
				t.Fatalf("parse: %v", err)
			}
			build, err := backendTrafficPolicy.BackendCluster(objs[0], "backend_app_b_0", nil)
			if tc.err != "" {
				if diag.KindOf(err) != tc.err {
					t.Fatalf("got %v, %v; want a %s error", build, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !tc.dfp {
				if build != nil {
					t.Errorf("got %+v; want no build", build)
				}
				return
			}
			c, ok := build.Cluster.(*clusterv3.Cluster)
			if !ok || c.GetClusterType().GetName() != "envoy.clusters.dynamic_forward_proxy" || c.Name != "backend_app_b_0" {
				t.Fatalf("cluster %v", build.Cluster)
			}
			if got := c.GetTransportSocket() != nil; got != tc.tls {
				t.Errorf("TLS %v, want %v", got, tc.tls)
			}
			if build.Filter == nil || build.Filter.Name != dfpLoopbackFilter || !build.Filter.Enabled || build.PerRoute == nil {
				t.Errorf("filter %+v, per route set %v", build.Filter, build.PerRoute != nil)
			}
		})
	}
}

// TestLoopbackDeny: the loopback RBAC checks the header the route takes
// the host from, else :authority; a literal host needs none.
func TestLoopbackDeny(t *testing.T) {
	for _, tc := range []struct {
		name   string
		action *routev3.RouteAction
		header string // "" when no config
	}{
		{"request host", &routev3.RouteAction{}, ":authority"},
		{"host from a header", &routev3.RouteAction{HostRewriteSpecifier: &routev3.RouteAction_HostRewriteHeader{HostRewriteHeader: "x-host"}}, "x-host"},
		{"literal host", &routev3.RouteAction{HostRewriteSpecifier: &routev3.RouteAction_HostRewriteLiteral{HostRewriteLiteral: "a.example.com"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfgs := loopbackDeny(tc.action)
			if tc.header == "" {
				if len(cfgs) != 0 {
					t.Errorf("got %v; want none", cfgs)
				}
				return
			}
			pr, ok := cfgs[dfpLoopbackFilter].(*rbachttpv3.RBACPerRoute)
			ms := pr.GetRbac().GetMatcher().GetMatcherList().GetMatchers()
			if !ok || len(ms) != 1 || len(ms[0].GetPredicate().GetOrMatcher().GetPredicate()) != len(loopbackHosts) {
				t.Fatalf("got %v", cfgs)
			}
			in := &matcherv3.HttpRequestHeaderMatchInput{}
			if err := ms[0].GetPredicate().GetOrMatcher().GetPredicate()[0].GetSinglePredicate().GetInput().GetTypedConfig().UnmarshalTo(in); err != nil || in.HeaderName != tc.header {
				t.Errorf("header %q (%v), want %q", in.HeaderName, err, tc.header)
			}
		})
	}
}

// TestDNSOnDynamicResolver: spec.dns tunes a dynamic forward proxy
// cluster's DNS cache as Envoy Gateway's buildDFPDNSCacheConfig does (the
// cache named after the family, refresh rate and policy), and only such a
// cluster (ClusterOfType); a DNS cluster takes the DnsCluster settings.
func TestDNSOnDynamicResolver(t *testing.T) {
	for _, tt := range []struct {
		spec, cache string
		family      clusterv3.Cluster_DnsLookupFamily
	}{
		{`{"dnsRefreshRate":"1s","lookupFamily":"IPv4AndIPv6"}`, "envoy-gateway-dfp-cache-all-1000ms-app/dns", clusterv3.Cluster_ALL},
		{`{"respectDnsTtl":true}`, "envoy-gateway-dfp-cache-v4_preferred-30000ms-app/dns", clusterv3.Cluster_V4_PREFERRED},
		{`{"dnsRefreshRate":"0s","lookupFamily":"IPv4"}`, "envoy-gateway-dfp-cache-v4_only-30000ms-app/dns", clusterv3.Cluster_V4_ONLY},
	} {
		frags, err := renderDNS(typedValue[*egv1a1.DNS](t, tt.spec), policyName{kind: "backendtrafficpolicy", namespace: "app", name: "dns"})
		if err != nil || len(frags) != 1 {
			t.Fatalf("%s: %v, %d fragments", tt.spec, err, len(frags))
		}
		c, ok := frags[0].ClusterOfType.(*clusterv3.Cluster)
		if !ok || c.GetClusterType().GetName() != dfpClusterType || c.DnsLookupFamily != tt.family {
			t.Fatalf("%s: cluster of type %v", tt.spec, frags[0].ClusterOfType)
		}
		var cfg dfpclusterv3.ClusterConfig
		if err := c.GetClusterType().GetTypedConfig().UnmarshalTo(&cfg); err != nil {
			t.Fatal(err)
		}
		if got := cfg.GetDnsCacheConfig(); got.GetName() != tt.cache || got.GetDnsLookupFamily() != tt.family {
			t.Errorf("%s: cache %v, want %s", tt.spec, got, tt.cache)
		}
		if frags[0].Cluster.(*clusterv3.Cluster).GetClusterType().GetName() != "envoy.cluster.dns" {
			t.Errorf("%s: no DnsCluster settings for DNS clusters", tt.spec)
		}
	}
}
