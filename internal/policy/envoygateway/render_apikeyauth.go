package envoygateway

import (
	apikeyauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/api_key_auth/v3"
	"google.golang.org/protobuf/proto"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// apiKeyAuthFilter is the one api_key_auth filter of Envoy Gateway's
// chain, whichever policies use it (xds translator api_key_auth.go: the
// filter is named after its type, not after a policy), enabled per route
// by the route's own configuration.
const apiKeyAuthFilter = "envoy.filters.http.api_key_auth"

// renderAPIKeyAuth is Envoy Gateway's API key authentication (gatewayapi
// securitypolicy.go: buildAPIKeyAuth; xds translator api_key_auth.go):
// the api_key_auth filter, disabled in the chain, and on the route the
// credentials, where the key is read (each header, query parameter and
// cookie of extractFrom, in that order per entry) and, where
// forwardClientIDHeader or sanitize asks, the client ID forwarded and
// the key hidden from the upstream. The credentials are the data keys of
// the credentialRefs Secrets, each a client ID, in the refs' order and
// each Secret's keys sorted, a client already listed skipped. Envoy
// Gateway inlines each client's API key; gwpol never reads Secret data,
// so the key is the Secret's placeholder (policy.SecretPlaceholder),
// naming where it comes from. A Secret whose keys the input does not
// hold (assumed to exist, without keys) leaves the clients unknown: that
// value is unsupported, with the reason.
func renderAPIKeyAuth(a *egv1a1.APIKeyAuth, who policyName, m *model.Model) ([]policy.Fragment, error) {
	if a == nil {
		a = &egv1a1.APIKeyAuth{}
	}
	per := &apikeyauthv3.ApiKeyAuthPerRoute{}
	seen := map[string]bool{}
	for _, r := range a.CredentialRefs {
		ns := who.namespace
		if r.Namespace != nil && *r.Namespace != "" {
			ns = string(*r.Namespace)
		}
		var s *model.Opaque
		if m != nil {
			s = m.Secret(ns, string(r.Name))
		}
		if s == nil || s.Assumed && len(s.Keys) == 0 {
			return []policy.Fragment{{Capability: "envoygateway.SecurityPolicy.apiKeyAuth.credentialRefs", Reason: unrenderable["SecurityPolicy.apiKeyAuth.credentialRefs"]}}, nil
		}
		for _, client := range s.Keys {
			if seen[client] {
				continue
			}
			seen[client] = true
			per.Credentials = append(per.Credentials, &apikeyauthv3.Credential{Client: client, Key: policy.SecretPlaceholder(ns, s.Name, client)})
		}
	}
	for _, e := range a.ExtractFrom {
		if e == nil {
			continue
		}
		for _, h := range e.Headers {
			per.KeySources = append(per.KeySources, &apikeyauthv3.KeySource{Header: h})
		}
		for _, q := range e.Params {
			per.KeySources = append(per.KeySources, &apikeyauthv3.KeySource{Query: q})
		}
		for _, c := range e.Cookies {
			per.KeySources = append(per.KeySources, &apikeyauthv3.KeySource{Cookie: c})
		}
	}
	header, sanitize := deref(a.ForwardClientIDHeader), a.Sanitize != nil && *a.Sanitize
	if header != "" || sanitize {
		per.Forwarding = &apikeyauthv3.Forwarding{Header: header, HideCredentials: sanitize}
	}
	chain := &apikeyauthv3.ApiKeyAuth{Credentials: per.Credentials, KeySources: per.KeySources, Forwarding: per.Forwarding}
	return []policy.Fragment{{
		Capability:           "api_key_auth",
		Filter:               &policy.HTTPFilter{Name: apiKeyAuthFilter, Order: orderAPIKeyAuth, Typed: chain},
		TypedPerFilterConfig: map[string]proto.Message{apiKeyAuthFilter: per},
	}}, nil
}
