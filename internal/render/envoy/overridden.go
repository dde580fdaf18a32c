package envoy

import (
	"maps"
	"slices"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"google.golang.org/protobuf/proto"
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

func (vb *vhostBuild) without(s *scoped, skip []string) *scoped {
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
	if s.metadata != nil && !vb.opt.MergeKeyCompat {
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
