package envoy

import (
	"maps"
	"slices"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/topology"
)

// withoutOverridden are a route's scopes (its own, its virtual host's and
// its RouteConfiguration's, as the route reads them) without the fields
// merge says a field of another family's kind overrides on it
// (merge.Result.Overridden, merge.PathOverride): those take no part in
// the route — no route settings, per-filter configuration, mirror tuning,
// failure or merge metadata of theirs. skip lists them as kindKeys.
// Scopes holding none of them are returned as they are (they are
// shared); the others as copies for this route alone.
func (vb *vhostBuild) withoutOverridden(skip []string, scopes ...*scoped) []*scoped {
	out := make([]*scoped, len(scopes))
	for i, s := range scopes {
		out[i] = vb.without(s, skip)
	}
	return out
}

// without is s without the fields skip names (kindKeys): s itself when
// it holds none, else a copy.
func (b *builder) without(s *scoped, skip []string) *scoped {
	if s == nil || !slices.ContainsFunc(s.fields, func(f *rendered) bool { return slices.Contains(skip, f.kindKey) }) {
		return s
	}
	c := &scoped{invalid: s.invalid, metadata: s.metadata}
	var dropped []*rendered
	for _, f := range s.fields {
		if slices.Contains(skip, f.kindKey) {
			dropped = append(dropped, f)
			continue
		}
		c.fields = append(c.fields, f)
		if f.failBody != "" && c.failBody == "" {
			c.failBody = f.failBody
		}
	}
	// per-filter configuration: the scope's, less what the dropped
	// fields configure, which a kept field configuring the same filter
	// fills again
	if s.tpfc != nil {
		c.tpfc = maps.Clone(s.tpfc)
		for _, f := range dropped {
			for name := range f.perFilter {
				delete(c.tpfc, name)
			}
		}
		for _, f := range c.fields {
			for name, a := range f.perFilter {
				if _, ok := c.tpfc[name]; !ok {
					c.tpfc[name] = a
				}
			}
		}
		if len(c.tpfc) == 0 {
			c.tpfc = nil
		}
	}
	if s.metadata != nil && !b.opt.MergeKeyCompat {
		// gwpol's own keys say what is in effect; the compatible key
		// (the controller's MergeOrigins) is left as the controller reports it
		md := proto.Clone(s.metadata).(*corev3.Metadata)
		for _, f := range dropped {
			if st := md.FilterMetadata[f.metaKey]; st != nil {
				delete(st.Fields, f.field)
				if len(st.Fields) == 0 {
					delete(md.FilterMetadata, f.metaKey)
				}
			}
		}
		c.metadata = md
		if len(md.FilterMetadata) == 0 {
			c.metadata = nil
		}
	}
	return c
}

// onListeners is a scope of the resources built for the listeners ls
// (a listener's own, or the whole Gateway's on a port) without the
// fields merge finds overridden on them by a field of another family's
// kind on one of the listener's paths (merge.Result.OverriddenOnListener,
// merge.PathOverride): the loser takes no part in the connection
// manager, the Envoy listener, the chain, its TLS or the virtual hosts.
// A scope that several listeners share leaves out a field only where
// every one of them that applies it finds it overridden: the others
// still take it. s itself when nothing is left out.
func (gb *gatewayBuild) onListeners(s *scoped, ls ...*topology.Listener) *scoped {
	if s == nil || len(s.fields) == 0 || !gb.res.MultiFamily() {
		return s
	}
	var skip []string
	for _, f := range s.fields {
		if slices.Contains(skip, f.kindKey) {
			continue
		}
		lost, applied := 0, 0
		for _, l := range ls {
			if len(f.contributors) > 0 && gb.res.RejectedOn(f.contributors[0], l) != nil {
				continue // not applied there (appliedOn)
			}
			applied++
			if slices.Contains(gb.res.OverriddenOnListener(l), f.kindKey) {
				lost++
			}
		}
		if applied > 0 && lost == applied {
			skip = append(skip, f.kindKey)
		}
	}
	if len(skip) == 0 {
		return s
	}
	return gb.without(s, skip)
}
