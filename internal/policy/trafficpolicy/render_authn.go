package trafficpolicy

import (
	"fmt"

	"slices"

	"strings"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// basicAuth: htpasswd users per resource (a Secret's stay a placeholder),
// the chain's filter holding none of its own.
func (r *fieldRenderer) basicAuth() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*BasicAuthPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.basic_auth"
	filter := obj{"@type": typeURL("envoy.extensions.filters.http.basic_auth.v3.BasicAuth"), "users": obj{"inline_string": "#"}}
	per := obj{"@type": typeURL("envoy.extensions.filters.http.basic_auth.v3.BasicAuthPerRoute")}
	switch {
	case v.Disable != nil:
		off := disabledConfig()
		off["config"] = obj{} // as kgateway writes it
		return append([]policy.Fragment{fragment("basic_auth", name, orderBasicAuth, filter, off)},
			r.authMetadata("basic_auth", "basic_auth", orderBasicAuth+1, true)...), nil
	case len(v.Users) > 0:
		per["users"] = obj{"inline_string": strings.Join(v.Users, "\n")}
	case v.SecretRef != nil:
		ns := r.ns(0)
		if v.SecretRef.Namespace != nil && *v.SecretRef.Namespace != "" {
			ns = *v.SecretRef.Namespace
		}
		key := ".htpasswd"
		if v.SecretRef.Key != nil {
			key = *v.SecretRef.Key
		}
		per["users"] = obj{"inline_string": policy.SecretPlaceholder(ns, v.SecretRef.Name, key)}
	default:
		return nil, fmt.Errorf("basicAuth needs users, secretRef or disable")
	}
	return append([]policy.Fragment{fragment("basic_auth", name, orderBasicAuth, filter, per)},
		r.authMetadata("basic_auth", "basic_auth", orderBasicAuth+1, false)...), nil
}

// apiKeyAuth: the keys of the selected Secrets per resource, as
// placeholders; the key is hidden from the upstream unless forwarded.
func (r *fieldRenderer) apiKeyAuth() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*APIKeyAuth)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.api_key_auth"
	filter := obj{"@type": typeURL("envoy.extensions.filters.http.api_key_auth.v3.ApiKeyAuth")}
	if v.Disable != nil {
		return append([]policy.Fragment{fragment("api_key_auth", name, orderAPIKeyAuth, filter, disabledConfig())},
			r.authMetadata("api_key_auth", "api_key_auth", orderAPIKeyAuth+1, true)...), nil
	}
	var sources []any
	for _, s := range v.KeySources {
		src := obj{}
		if s.Header != nil {
			src["header"] = *s.Header
		}
		if s.Query != nil {
			src["query"] = *s.Query
		}
		if s.Cookie != nil {
			src["cookie"] = *s.Cookie
		}
		sources = append(sources, src)
	}
	if len(sources) == 0 {
		sources = []any{obj{"header": "api-key"}}
	}
	// Each Secret key is a client ID whose value is its API key; values are
	// never read, so they are placeholders naming the Secret.
	var creds []any
	add := func(s *model.Opaque) {
		keys := slices.Clone(s.Keys)
		slices.Sort(keys)
		for _, k := range keys {
			creds = append(creds, obj{"client": k, "key": policy.SecretPlaceholder(s.Namespace, s.Name, k)})
		}
	}
	switch {
	case v.SecretRef != nil:
		ns := r.ns(0)
		if v.SecretRef.Namespace != nil && *v.SecretRef.Namespace != "" {
			ns = string(*v.SecretRef.Namespace)
		}
		if s := r.env.Model.Secret(ns, string(v.SecretRef.Name)); s != nil {
			add(s)
		}
	case v.SecretSelector != nil:
		for _, s := range r.env.Model.Secrets {
			if matchLabels(v.SecretSelector.MatchLabels, s.Labels) {
				add(s)
			}
		}
	}
	if len(creds) == 0 {
		return nil, fmt.Errorf("apiKeyAuth: no credentials (no Secret with keys found)")
	}
	per := obj{"@type": typeURL("envoy.extensions.filters.http.api_key_auth.v3.ApiKeyAuthPerRoute"),
		"credentials": creds, "key_sources": sources}
	// The key is not forwarded upstream unless the policy asks
	// (kgateway's forwardCredential defaults to false).
	fw := obj{}
	if v.ClientIDHeader != nil {
		fw["header"] = *v.ClientIDHeader
	}
	if v.ForwardCredential == nil || !*v.ForwardCredential {
		fw["hide_credentials"] = true
	}
	per["forwarding"] = fw
	return append([]policy.Fragment{fragment("api_key_auth", name, orderAPIKeyAuth, filter, per)},
		r.authMetadata("api_key_auth", "api_key_auth", orderAPIKeyAuth+1, false)...), nil
}

// matchLabels: every label of a non-empty selector is on the object.
func matchLabels(sel, ls map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if ls[k] != v {
			return false
		}
	}
	return true
}
