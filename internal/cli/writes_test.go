package cli

import (
	"maps"
	"slices"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/policy"
)

// fragmentWrites are the Envoy paths one fragment sets, in the notation
// of policy.FieldSpec.Writes (its per-route fragments built for site).
func fragmentWrites(fr policy.Fragment, site policy.RouteSite) []string {
	set := map[string]bool{}
	fields := func(prefix string, m, want proto.Message) {
		if m == nil {
			return
		}
		proto.Merge(want, m)
		want.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
			set[prefix+string(fd.Name())] = true
			return true
		})
	}
	fields("route.", fr.TypedRouteAction, &routev3.RouteAction{})
	fields("", fr.TypedRoute, &routev3.Route{})
	if r, ok := fr.TypedRoute.(*routev3.Route); ok && r.Metadata != nil {
		delete(set, "metadata")
		for k := range r.Metadata.FilterMetadata {
			set["metadata.filter_metadata."+k] = true
		}
	}
	fields("vhost.", fr.TypedVirtualHost, &routev3.VirtualHost{})
	if fr.TypedMirrorPolicy != nil {
		set["route.request_mirror_policies"] = true
	}
	for name := range fr.TypedPerFilterConfig {
		set["typed_per_filter_config."+name] = true
	}
	if fr.Filter != nil {
		set["http_filter."+fr.Filter.Name] = true
	}
	fields("hcm.", fr.HCM, &hcmv3.HttpConnectionManager{})
	fields("listener.", fr.Listener, &listenerv3.Listener{})
	fields("chain.", fr.FilterChain, &listenerv3.FilterChain{})
	fields("tls.", fr.DownstreamTLS, &tlsv3.DownstreamTlsContext{})
	fields("tcp_proxy.", fr.TCPProxy, &tcpproxyv3.TcpProxy{})
	fields("cluster.", fr.Cluster, &clusterv3.Cluster{})
	fields("cluster.", fr.ClusterOfType, &clusterv3.Cluster{})
	fields("backend_cluster.", fr.BackendCluster, &clusterv3.Cluster{})
	for _, p := range fr.Unset {
		set[p] = true
	}
	for _, m := range fr.NetworkFilters {
		if f, ok := m.(*listenerv3.Filter); ok {
			set["network_filter."+f.Name] = true
		}
	}
	for _, m := range fr.TypedClusters {
		if c, ok := m.(*clusterv3.Cluster); ok {
			set["clusters."+c.Name] = true
		}
	}
	if fr.PerRoute != nil {
		if frs, err := fr.PerRoute(site); err == nil {
			for _, f := range frs {
				for _, p := range fragmentWrites(f, site) {
					set[p] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// TestFieldWritesDeclared: every path a field renders, over every corpus
// of the verdict property, for every render target, at every scope its
// kind renders at, is one its FieldSpec.Writes declares — so that merge,
// which judges two kinds writing one Envoy path from the declarations
// (merge.PathOverride), sees every path render writes.
func TestFieldWritesDeclared(t *testing.T) {
	site := policy.RouteSite{Kind: "HTTPRoute", Namespace: "ns", Name: "n", Match: -1, Hostname: "*"}
	seen, fields := map[string]bool{}, map[string]bool{}
	for _, in := range verdictCorpus(t) {
		c := families.Compile(in.set, in.cfg)
		for _, target := range c.Result.Registry.TargetNames() {
			env := &policy.Env{Model: c.Graph.Model, Config: c.Config.PolicyConfig(), Target: target}
			for _, p := range c.Result.Policies.Policies {
				r, ok := p.Kind.(policy.Renderer)
				if !ok {
					continue
				}
				for key, v := range p.Values {
					declared := p.Kind.Spec().FieldWrites(key)
					for _, sc := range []policy.Scope{policy.ScopeRoute, policy.ScopeVirtualHost, policy.ScopeRouteConfig, policy.ScopeListener, policy.ScopeCluster} {
						frags, err := r.RenderField(policy.FieldInput{Key: key, Strategy: policy.AugmentedShallow, Values: []any{v},
							Contributors: []string{p.ID()}, Namespaces: []string{p.Obj.Namespace}, Scope: sc}, env)
						if err != nil {
							continue
						}
						fields[p.Kind.GroupKind().Kind+"#"+key] = true
						for _, fr := range frags {
							for _, w := range fragmentWrites(fr, site) {
								id := p.Kind.GroupKind().Kind + "#" + key + " " + w
								if seen[id] {
									continue
								}
								seen[id] = true
								// a declaration may name the sub-fields of a message
								// the fragment sets (hcm.common_http_protocol_options.idle_timeout),
								// or a message whose sub-field it clears
								if !slices.ContainsFunc(declared, func(d policy.EnvoyPath) bool {
									return d.Matches(w) || strings.HasPrefix(string(d), w+".") || strings.HasPrefix(w, string(d)+".")
								}) {
									t.Errorf("%s: %s field %s renders %s, which its FieldSpec.Writes %v does not declare", in.name, p.Kind.GroupKind().Kind, key, w, declared)
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d rendered paths of %d fields checked against their declarations", len(seen), len(fields))
}
