package envoy

import (
	"maps"
	"slices"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// listenerClusters is what the policies in effect on listener l set on
// the clusters of the HTTP routes it serves: the fields of the kinds
// that do not override whole (a route takes those from its listener as
// they are, not per route) whose Envoy paths include a cluster path
// (policy.EnvoyPath.OnCluster), rendered as the listener's connection
// manager renders them — at the virtual host of an HTTP listener (shared
// when other HTTP listeners of the Gateway share its port), at the
// RouteConfiguration of an HTTPS listener or of the whole Gateway — and
// kept where they make cluster settings. Built once per listener; nil
// when nothing there writes clusters. ruleClusters lays them under the
// route's own settings on the rule's cluster, from the listener that
// shaped it (merge.Result.RuleClusterFrom), as explain reads them
// (merge.EffectiveField.ClusterFrom).
func (gb *gatewayBuild) listenerClusters(l *topology.Listener) *scoped {
	if l == nil {
		return nil
	}
	gb.mu.Lock()
	s, ok := gb.lclusters[l]
	gb.mu.Unlock()
	if ok {
		return s
	}
	var fields []*rendered
	var md map[string]*structpb.Struct
	for _, e := range gb.res.Effective(nil, l) {
		if overridesWhole(e.Kind) || e.OverriddenBy != nil || e.Field == nil || !writesClusters(e.Kind, e.Key) {
			continue
		}
		r, ok := e.Kind.(policy.Renderer)
		if !ok {
			continue
		}
		sc, shared := policy.ScopeRouteConfig, false
		if lv := e.Field.Owner.Level; (lv == merge.LevelListener || lv == merge.LevelListenerSet) && l.Protocol != gwv1.HTTPSProtocolType {
			sc, shared = policy.ScopeVirtualHost, gb.sharesHTTPPort(l)
		}
		rf := gb.renderField(e.Kind, r, e.Field, sc, gb.gw, shared, "", false)
		if rf.cluster == nil && rf.ofType == nil && len(rf.finish) == 0 {
			continue
		}
		if rf.http10Host && gb.target.HTTP10DefaultHost != nil {
			// the listener's HTTP/1.0 default host, as on its connection
			// manager (http10DefaultHost)
			if host, ok := gb.target.HTTP10DefaultHost(l); ok && host != "" {
				cp := *rf
				cp.finish = append(slices.Clip(rf.finish), func(m proto.Message) { upstreamHTTP10Host(m, host) })
				rf = &cp
			}
		}
		fields = append(fields, rf)
		var ids []string
		for _, c := range e.Field.Contributors {
			if !c.IsBuiltIn() {
				ids = append(ids, c.Policy.ID())
			}
		}
		if len(ids) == 0 {
			continue
		}
		if md == nil {
			md = map[string]*structpb.Struct{}
		}
		key := gb.metadataKey(e.Kind)
		st := originsStruct(map[string][]string{e.Key: policy.SortIDs(ids)})
		if prev, ok := md[key]; ok {
			for k, v := range st.Fields {
				prev.Fields[k] = v
			}
		} else {
			md[key] = st
		}
	}
	if len(fields) > 0 {
		s = &scoped{fields: fields}
		if md != nil {
			s.metadata = &corev3.Metadata{FilterMetadata: md}
		}
	}
	gb.mu.Lock()
	defer gb.mu.Unlock()
	if prev, ok := gb.lclusters[l]; ok {
		return prev
	}
	gb.lclusters[l] = s
	return s
}

// sharesHTTPPort: another programmed HTTP listener of l's Gateway has
// l's port (they share one connection manager).
func (gb *gatewayBuild) sharesHTTPPort(l *topology.Listener) bool {
	for _, o := range gb.gw.Listeners {
		if o != l && o.Port == l.Port && o.Protocol == gwv1.HTTPProtocolType && o.Programmed() {
			return true
		}
	}
	return false
}

// writesClusters: the kind's field writes a cluster path.
func writesClusters(k policy.Kind, key string) bool {
	for _, p := range k.Spec().FieldWrites(key) {
		if p.OnCluster() {
			return true
		}
	}
	return false
}

// upstreamHTTP10Host gives the HTTP/1.1 options of a cluster's upstream
// protocol options that accept HTTP/1.0 the default host host (a field's
// policy.Fragment.HTTP10DefaultHost, on the clusters it writes as on the
// connection manager).
func upstreamHTTP10Host(m proto.Message, host string) {
	c, ok := m.(*clusterv3.Cluster)
	if !ok {
		return
	}
	a := c.GetTypedExtensionProtocolOptions()[httpProtocolOptionsKey]
	o := &upstreamhttpv3.HttpProtocolOptions{}
	if a == nil || a.UnmarshalTo(o) != nil {
		return
	}
	var h1 *corev3.Http1ProtocolOptions
	switch u := o.UpstreamProtocolOptions.(type) {
	case *upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_:
		h1 = u.ExplicitHttpConfig.GetHttpProtocolOptions()
	case *upstreamhttpv3.HttpProtocolOptions_UseDownstreamProtocolConfig:
		h1 = u.UseDownstreamProtocolConfig.GetHttpProtocolOptions()
	case *upstreamhttpv3.HttpProtocolOptions_AutoConfig:
		h1 = u.AutoConfig.GetHttpProtocolOptions()
	}
	if h1 == nil || !h1.AcceptHttp_10 {
		return
	}
	h1.DefaultHostForHttp_10 = host
	c.TypedExtensionProtocolOptions[httpProtocolOptionsKey] = mustAny(o)
}

// joinMetadata is the merge metadata of a and b together (either may be
// nil), b's entries over a's.
func joinMetadata(a, b *corev3.Metadata) *corev3.Metadata {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{}}
	for _, m := range []*corev3.Metadata{a, b} {
		for k, st := range m.GetFilterMetadata() {
			cur := out.FilterMetadata[k]
			if cur == nil {
				cur = &structpb.Struct{Fields: map[string]*structpb.Value{}}
				out.FilterMetadata[k] = cur
			}
			maps.Copy(cur.Fields, st.GetFields())
		}
	}
	return out
}
