package kgateway

import (
	"fmt"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	apikeyauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/api_key_auth/v3"
	basicauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/basic_auth/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

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
	// The chain's filter needs users of its own; "#" is an htpasswd
	// comment (no user), the real ones come per resource.
	fr := policy.Fragment{Capability: "basic_auth", Filter: &policy.HTTPFilter{Name: name, Order: orderBasicAuth,
		Typed: &basicauthv3.BasicAuth{Users: inlineSource("#")}}}
	var users string
	switch {
	case v.Disable != nil:
		off := disabledConfig()
		off.Config = &anypb.Any{} // as kgateway writes it
		fr.TypedPerFilterConfig = map[string]proto.Message{name: off}
		return append([]policy.Fragment{fr}, r.authMetadata("basic_auth", "basic_auth", orderAuthEnabled, true)...), nil
	case len(v.Users) > 0:
		// The entries kgateway keeps (validateAndFilterSHAUsers): trimmed,
		// without blank lines or comments, a repeated entry once.
		kept, _ := htpasswdUsers(v.Users)
		users = strings.Join(kept, "\n")
	case v.SecretRef != nil:
		ns := r.ns(0)
		if v.SecretRef.Namespace != nil && *v.SecretRef.Namespace != "" {
			ns = *v.SecretRef.Namespace
		}
		key := ".htpasswd"
		if v.SecretRef.Key != nil {
			key = *v.SecretRef.Key
		}
		users = policy.SecretPlaceholder(ns, v.SecretRef.Name, key)
	default:
		return nil, fmt.Errorf("basicAuth needs users, secretRef or disable")
	}
	fr.TypedPerFilterConfig = map[string]proto.Message{name: &basicauthv3.BasicAuthPerRoute{Users: inlineSource(users)}}
	return append([]policy.Fragment{fr}, r.authMetadata("basic_auth", "basic_auth", orderAuthEnabled, false)...), nil
}

// apiKeyAuth: the keys of the selected Secrets per resource, as
// placeholders; the key is hidden from the upstream unless forwarded.
func (r *fieldRenderer) apiKeyAuth() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*APIKeyAuth)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.api_key_auth"
	fr := policy.Fragment{Capability: "api_key_auth", Filter: &policy.HTTPFilter{Name: name, Order: orderAPIKeyAuth, Typed: &apikeyauthv3.ApiKeyAuth{}}}
	if v.Disable != nil {
		fr.TypedPerFilterConfig = map[string]proto.Message{name: disabledConfig()}
		return append([]policy.Fragment{fr}, r.authMetadata("api_key_auth", "api_key_auth", orderAuthEnabled, true)...), nil
	}
	per := &apikeyauthv3.ApiKeyAuthPerRoute{}
	for _, s := range v.KeySources {
		src := &apikeyauthv3.KeySource{}
		if s.Header != nil {
			src.Header = *s.Header
		}
		if s.Query != nil {
			src.Query = *s.Query
		}
		if s.Cookie != nil {
			src.Cookie = *s.Cookie
		}
		per.KeySources = append(per.KeySources, src)
	}
	if len(per.KeySources) == 0 {
		per.KeySources = []*apikeyauthv3.KeySource{{Header: "api-key"}}
	}
	// Each Secret key is a client ID whose value is its API key, in the
	// order and with the repeats dropped that kgateway writes them
	// (apiKeyCredentials, the validator's reading too); values are never
	// printed, so they are placeholders naming the Secret.
	var secs []*model.Opaque
	switch {
	case v.SecretRef != nil:
		ns := r.ns(0)
		if v.SecretRef.Namespace != nil && *v.SecretRef.Namespace != "" {
			ns = string(*v.SecretRef.Namespace)
		}
		if s := r.env.Model.Secret(ns, string(v.SecretRef.Name)); s != nil {
			secs = append(secs, s)
		}
	case v.SecretSelector != nil:
		secs, _ = selectedSecrets(r.env, r.ns(0), v.SecretSelector.MatchLabels)
	}
	creds, _, _ := apiKeyCredentials(secs)
	for _, c := range creds {
		per.Credentials = append(per.Credentials, &apikeyauthv3.Credential{Client: c.client, Key: policy.SecretPlaceholder(c.from.Namespace, c.from.Name, c.client)})
	}
	if len(per.Credentials) == 0 {
		return nil, fmt.Errorf("apiKeyAuth: no credentials (no Secret with keys found)")
	}
	// The key is not forwarded upstream unless the policy asks
	// (kgateway's forwardCredential defaults to false).
	per.Forwarding = &apikeyauthv3.Forwarding{HideCredentials: v.ForwardCredential == nil || !*v.ForwardCredential}
	if v.ClientIDHeader != nil {
		per.Forwarding.Header = *v.ClientIDHeader
	}
	fr.TypedPerFilterConfig = map[string]proto.Message{name: per}
	return append([]policy.Fragment{fr}, r.authMetadata("api_key_auth", "api_key_auth", orderAuthEnabled, false)...), nil
}

// inlineSource is a DataSource holding s.
func inlineSource(s string) *corev3.DataSource {
	return &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: s}}
}
