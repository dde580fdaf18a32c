package kgateway

import (
	"fmt"
	"slices"

	mutationrulesv3 "github.com/envoyproxy/go-control-plane/envoy/config/common/mutation_rules/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	headermutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/header_mutation/v3"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/model"
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
	// Mutations are left out when neither direction has one, as kgateway's
	// constructHeaderModifiers leaves them (an empty headerModifiers, or
	// request and response without entries, enables the filter on the
	// resource with nothing to do — and overrides a less specific policy's).
	var mutations *headermutationv3.Mutations
	if req, resp := r.mutations(v.Request), r.mutations(v.Response); len(req) > 0 || len(resp) > 0 {
		mutations = &headermutationv3.Mutations{RequestMutations: req, ResponseMutations: resp}
	}
	// The chain's filter carries no mutations of its own (they are per
	// route); kgateway types that empty config as HeaderMutationPerRoute.
	var chain proto.Message = &headermutationv3.HeaderMutation{}
	if r.env.Target == "kgateway" {
		chain = &headermutationv3.HeaderMutationPerRoute{}
	}
	return []policy.Fragment{{
		Capability:           "header_mutation",
		Filter:               &policy.HTTPFilter{Name: name, Order: orderHeaderMutation, Typed: chain},
		TypedPerFilterConfig: map[string]proto.Message{name: &headermutationv3.HeaderMutationPerRoute{Mutations: mutations}},
	}}, nil
}

// mutations: set overwrites, add appends, remove removes. A value from a
// Secret is never read; it is written as a placeholder naming the Secret.
func (r *fieldRenderer) mutations(f *HTTPHeaderFilter) []*mutationrulesv3.HeaderMutation {
	if f == nil {
		return nil
	}
	var out []*mutationrulesv3.HeaderMutation
	add := func(hs []HTTPHeader, action corev3.HeaderValueOption_HeaderAppendAction) {
		for _, h := range hs {
			for _, kv := range r.headerValues(h) {
				out = append(out, &mutationrulesv3.HeaderMutation{Action: &mutationrulesv3.HeaderMutation_Append{Append: &corev3.HeaderValueOption{
					Header: &corev3.HeaderValue{Key: kv[0], Value: kv[1]}, AppendAction: action}}})
			}
		}
	}
	add(f.Add, corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD)
	add(f.Set, corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD)
	for _, h := range f.Remove {
		out = append(out, &mutationrulesv3.HeaderMutation{Action: &mutationrulesv3.HeaderMutation_Remove{Remove: h}})
	}
	return out
}

// headerSecretsResolve is kgateway's resolution of the Secrets a header
// filter's set and add entries read (pluginutils ConvertHeaderFilter, as
// ListenerPolicy local replies call it: local_reply_converter.go:
// translateLocalReplyBodyMapper), whose error makes the setting fail: the
// Secret must exist (one in another namespace with a ReferenceGrant from
// fromKind in the policy's namespace) and hold the key the entry names
// (its key, else its header name; with neither every entry is a header).
// A Secret whose data is not in the input is not read.
func (r *fieldRenderer) headerSecretsResolve(f *HTTPHeaderFilter, fromKind string) error {
	if f == nil || r.env == nil || r.env.Model == nil {
		return nil
	}
	from := r.ns(0)
	for _, h := range append(slices.Clone(f.Set), f.Add...) {
		if h.SecretRef == nil {
			continue
		}
		ns := from
		if h.SecretRef.Namespace != nil && *h.SecretRef.Namespace != "" {
			ns = *h.SecretRef.Namespace
		}
		name := h.SecretRef.Name
		sec := r.env.Model.Secret(ns, name)
		switch {
		case sec == nil:
			return fmt.Errorf("secretRef: Secret %s/%s not found", ns, name)
		case !r.env.Model.GrantAllowsBy(grants(r.env.Config), Group, fromKind, from, model.ObjectRefTo{Kind: "Secret", Namespace: ns, Name: name}):
			return fmt.Errorf("secretRef: Secret %s/%s is in another namespace and no ReferenceGrant in %s allows a %s in %s to read it (missing reference grant)", ns, name, ns, fromKind, from)
		}
		key := ""
		switch {
		case h.SecretRef.Key != nil:
			key = *h.SecretRef.Key
		case h.Name != nil:
			key = *h.Name
		}
		if key == "" || sec.Assumed || len(sec.Keys) == 0 || sec.HasKey(key) {
			continue
		}
		header := "header value(s)"
		if h.Name != nil {
			header = fmt.Sprintf("header '%s'", *h.Name)
		}
		return fmt.Errorf("failed to resolve %s: secret %s/%s does not contain key %q", header, ns, name, key)
	}
	return nil
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
