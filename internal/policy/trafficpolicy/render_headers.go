package trafficpolicy

import (
	"fmt"

	"slices"

	"github.com/gwpol/gwpol/internal/policy"
)

// headerModifiers: header mutations per resource through the
// header_mutation filter (values from Secrets stay placeholders).
func (r *fieldRenderer) headerModifiers() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*HeaderModifiers)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.extensions.filters.http.header_mutation"
	mutations := obj{}
	if m := r.mutations(v.Request); len(m) > 0 {
		mutations["request_mutations"] = m
	}
	if m := r.mutations(v.Response); len(m) > 0 {
		mutations["response_mutations"] = m
	}
	// The chain's filter carries no mutations of its own (they are per
	// route); kgateway types that empty config as HeaderMutationPerRoute.
	chainType := "envoy.extensions.filters.http.header_mutation.v3.HeaderMutation"
	if r.env.Target == "kgateway" {
		chainType = "envoy.extensions.filters.http.header_mutation.v3.HeaderMutationPerRoute"
	}
	return []policy.Fragment{fragment("header_mutation", name, orderHeaderMutation,
		obj{"@type": typeURL(chainType)},
		obj{"@type": typeURL("envoy.extensions.filters.http.header_mutation.v3.HeaderMutationPerRoute"), "mutations": mutations})}, nil
}

// mutations: set overwrites, add appends, remove removes. A value from a
// Secret is never read; it is written as a placeholder naming the Secret.
func (r *fieldRenderer) mutations(f *HTTPHeaderFilter) []any {
	if f == nil {
		return nil
	}
	var out []any
	add := func(hs []HTTPHeader, action string) {
		for _, h := range hs {
			for _, kv := range r.headerValues(h) {
				a := obj{"header": obj{"key": kv[0], "value": kv[1]}}
				if action != "" {
					a["append_action"] = action
				}
				out = append(out, obj{"append": a})
			}
		}
	}
	add(f.Add, "")
	add(f.Set, "OVERWRITE_IF_EXISTS_OR_ADD")
	for _, h := range f.Remove {
		out = append(out, obj{"remove": h})
	}
	return out
}

// headerValues expands one header: inline, or from a Secret (one key, or
// every key of the Secret when neither name nor key is given).
func (r *fieldRenderer) headerValues(h HTTPHeader) [][2]string {
	if h.SecretRef == nil {
		if h.Name == nil {
			return nil
		}
		val := ""
		if h.Value != nil {
			val = *h.Value
		}
		return [][2]string{{*h.Name, val}}
	}
	ns := r.ns(0)
	if h.SecretRef.Namespace != nil && *h.SecretRef.Namespace != "" {
		ns = *h.SecretRef.Namespace
	}
	sec := h.SecretRef.Name
	switch {
	case h.Name != nil && h.SecretRef.Key != nil:
		return [][2]string{{*h.Name, policy.SecretPlaceholder(ns, sec, *h.SecretRef.Key)}}
	case h.Name != nil:
		return [][2]string{{*h.Name, policy.SecretPlaceholder(ns, sec, *h.Name)}}
	case h.SecretRef.Key != nil:
		return [][2]string{{*h.SecretRef.Key, policy.SecretPlaceholder(ns, sec, *h.SecretRef.Key)}}
	}
	var out [][2]string
	if s := r.env.Model.Secret(ns, sec); s != nil {
		keys := slices.Clone(s.Keys)
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, [2]string{k, policy.SecretPlaceholder(ns, sec, k)})
		}
	}
	return out
}
