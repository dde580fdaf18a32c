package envoygateway

import (
	"encoding/json"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	credentialinjectorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/credential_injector/v3"
	genericv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/injected_credentials/generic/v3"
)

// TestRenderCredentialInjection: a filter per HTTPRouteFilter, off in the
// chain and on per route, injecting the credential Envoy Gateway serves
// over SDS under the filter's name.
func TestRenderCredentialInjection(t *testing.T) {
	who := policyName{kind: "httproutefilter", namespace: "app", name: "token"}
	const name = "envoy.filters.http.credential_injector/httproutefilter/app/token"
	for _, tc := range []struct {
		name, in   string
		header     string
		overwrite  bool
		capability string
		err        bool
	}{
		{name: "defaults", in: `{"credential":{"valueRef":{"name":"s"}}}`},
		{name: "header and overwrite", in: `{"header":"x-token","overwrite":true,"credential":{"valueRef":{"name":"s"}}}`, header: "x-token", overwrite: true},
		{name: "no Secret", in: `{"credential":{}}`, err: true},
		{name: "unknown key", in: `{"credential":{"valueRef":{"name":"s"}},"later":1}`, capability: "envoygateway.HTTPRouteFilter.credentialInjection.later"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := renderCredentialInjection(json.RawMessage(tc.in), who)
			if tc.err {
				if err == nil {
					t.Fatalf("got %v, want an error", frags)
				}
				return
			}
			if err != nil || len(frags) != 1 {
				t.Fatalf("got %v, %v", frags, err)
			}
			f := frags[0]
			if tc.capability != "" {
				if f.Capability != tc.capability {
					t.Errorf("capability %q, want %q", f.Capability, tc.capability)
				}
				return
			}
			if f.Capability != "credential_injector" || f.Filter == nil || f.Filter.Name != name || f.Filter.Enabled {
				t.Fatalf("fragment %+v, want the filter %s off in the chain", f, name)
			}
			ci, ok := f.Filter.Typed.(*credentialinjectorv3.CredentialInjector)
			if !ok {
				t.Fatalf("filter config %T", f.Filter.Typed)
			}
			var g genericv3.Generic
			if err := ci.GetCredential().GetTypedConfig().UnmarshalTo(&g); err != nil {
				t.Fatal(err)
			}
			if g.GetCredential().GetName() != "credential_injector/credential/httproutefilter/app/token" || g.GetCredential().GetSdsConfig().GetAds() == nil {
				t.Errorf("credential %v, want the SDS secret named after the filter", g.GetCredential())
			}
			if g.GetHeader() != tc.header || ci.GetOverwrite() != tc.overwrite {
				t.Errorf("header %q overwrite %v, want %q %v", g.GetHeader(), ci.GetOverwrite(), tc.header, tc.overwrite)
			}
			if _, ok := f.TypedPerFilterConfig[name].(*routev3.FilterConfig); !ok {
				t.Errorf("per-route config %v, want a FilterConfig turning the filter on", f.TypedPerFilterConfig)
			}
		})
	}
}
