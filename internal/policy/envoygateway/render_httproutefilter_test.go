package envoygateway

import (
	"encoding/json"
	"fmt"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	credentialinjectorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/credential_injector/v3"
	genericv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/injected_credentials/generic/v3"
	"google.golang.org/protobuf/encoding/protojson"
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw2(renderCredentialInjection)(json.RawMessage(tc.in), who)
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

// TestRenderDirectResponse: an HTTPRouteFilter's directResponse answers
// the route itself, 200 unless it says, with an inline body as bytes or a
// ConfigMap body as a placeholder; Answer reports the same status (views
// and render agree), and only for HTTPRouteFilter's directResponse.
func TestRenderDirectResponse(t *testing.T) {
	m := responseOverrideModel(t)
	who := policyName{kind: "httproutefilter", namespace: "app", name: "f"}
	for _, tc := range []struct {
		name, value string
		status      uint32
		body        string // the inline bytes or string
		ctype       string
		capability  string
	}{
		{name: "defaults to 200", value: `{"body":{"inline":"ok"}}`, status: 200, body: "ok"},
		{name: "inline body and content type", value: `{"contentType":"text/plain","statusCode":404,"body":{"type":"Inline","inline":"blocked"}}`, status: 404, body: "blocked", ctype: "text/plain"},
		{name: "status and no body", value: `{"statusCode":404}`, status: 404},
		{name: "ConfigMap body", value: `{"statusCode":503,"body":{"type":"ValueRef","valueRef":{"kind":"ConfigMap","name":"one-key"}}}`, status: 503, body: "${configmap:app/one-key#page.html}"},
		{name: "header removal", value: `{"header":{"remove":["server"]}}`, capability: "envoygateway.HTTPRouteFilter.directResponse.header.remove"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw3(renderDirectResponse)(json.RawMessage(tc.value), who, m)
			if err != nil || len(frags) != 1 {
				t.Fatalf("got %v, %v", frags, err)
			}
			if tc.capability != "" {
				if frags[0].Capability != tc.capability || frags[0].TypedRoute != nil {
					t.Errorf("got %+v; want only the unsupported capability %s", frags[0], tc.capability)
				}
				return
			}
			r, ok := frags[0].TypedRoute.(*routev3.Route)
			dr := r.GetDirectResponse()
			if !ok || dr == nil {
				t.Fatalf("got %+v; want a direct response", frags[0])
			}
			src := dr.GetBodyFormat().GetTextFormatSource()
			if body := string(src.GetInlineBytes()) + src.GetInlineString(); dr.Status != tc.status || body != tc.body {
				t.Errorf("status %d body %q, want %d %q", dr.Status, body, tc.status, tc.body)
			}
			ctype := ""
			for _, h := range r.GetResponseHeadersToAdd() {
				if h.GetHeader().GetKey() == "Content-Type" {
					ctype = h.GetHeader().GetValue()
				}
			}
			if ctype != tc.ctype {
				t.Errorf("content type %q, want %q", ctype, tc.ctype)
			}
			if st, ok := httpRouteFilter.Answer("directResponse", json.RawMessage(tc.value)); !ok || uint32(st) != tc.status {
				t.Errorf("Answer: %d %v, want %d", st, ok, tc.status)
			}
		})
	}
	if _, ok := httpRouteFilter.Answer("urlRewrite", json.RawMessage(`{}`)); ok {
		t.Error("urlRewrite answers")
	}
	if _, ok := backendTrafficPolicy.Answer("directResponse", json.RawMessage(`{}`)); ok {
		t.Error("a BackendTrafficPolicy answers")
	}
}

// TestRenderURLRewrite: the host from a header or from the path (with
// x-forwarded-host unless turned off), the path by a regular expression;
// the backend's host is not rendered yet.
func TestRenderURLRewrite(t *testing.T) {
	for _, tc := range []struct {
		name, value, want, capability string
	}{
		{"host from a header", `{"hostname":{"type":"Header","header":"x-host"}}`, "header=x-host xfh=true", ""},
		{"without x-forwarded-host", `{"hostname":{"type":"Header","header":"x-host"},"appendXForwardedHost":false}`, "header=x-host xfh=false", ""},
		{"host from the path", `{"hostname":{"type":"PathRegex","pathRegex":{"pattern":"^/(.*)/","substitution":"\\1"}}}`, "pathregex=^/(.*)/ xfh=true", ""},
		{"path", `{"path":{"type":"ReplaceRegexMatch","replaceRegexMatch":{"pattern":"^/v1","substitution":"/v2"}}}`, "regex=^/v1 xfh=false", ""},
		{"backend host", `{"hostname":{"type":"Backend"}}`, "", "envoygateway.HTTPRouteFilter.urlRewrite.hostname.Backend"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw2(renderURLRewrite)(json.RawMessage(tc.value), policyName{})
			if err != nil || len(frags) != 1 {
				t.Fatalf("got %v, %v", frags, err)
			}
			if tc.capability != "" {
				if frags[0].Capability != tc.capability {
					t.Errorf("capability %q, want %q", frags[0].Capability, tc.capability)
				}
				return
			}
			ra, ok := frags[0].TypedRouteAction.(*routev3.RouteAction)
			if !ok {
				t.Fatalf("got %+v", frags[0])
			}
			got := ""
			switch {
			case ra.GetHostRewriteHeader() != "":
				got = "header=" + ra.GetHostRewriteHeader()
			case ra.GetHostRewritePathRegex() != nil:
				got = "pathregex=" + ra.GetHostRewritePathRegex().GetPattern().GetRegex()
			case ra.GetRegexRewrite() != nil:
				got = "regex=" + ra.GetRegexRewrite().GetPattern().GetRegex()
			}
			got += fmt.Sprintf(" xfh=%v", ra.AppendXForwardedHost)
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestRenderFilterMatches: an HTTPRouteFilter's one match puts its cookie
// matchers (exact, or a safe regex) on each of the rule's Envoy routes;
// several are reported as not rendered, with why.
func TestRenderFilterMatches(t *testing.T) {
	who := policyName{kind: "httproutefilter", namespace: "app", name: "session"}
	for _, tc := range []struct {
		name, in   string
		cookies    string
		capability string
	}{
		{name: "one match", in: `[{"cookies":[{"name":"session","value":"abc"},{"name":"v","type":"RegularExpression","value":"v[0-9]+"}]}]`,
			cookies: `[{"name":"session","stringMatch":{"exact":"abc"}},{"name":"v","stringMatch":{"safeRegex":{"regex":"v[0-9]+"}}}]`},
		{name: "several matches", in: `[{"cookies":[{"name":"a","value":"1"}]},{"cookies":[{"name":"b","value":"2"}]}]`,
			capability: "envoygateway.HTTPRouteFilter.matches.several"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw2(renderFilterMatches)(json.RawMessage(tc.in), who)
			if err != nil || len(frags) != 1 {
				t.Fatalf("got %v, %v", frags, err)
			}
			f := frags[0]
			if tc.capability != "" {
				if f.Capability != tc.capability || f.Reason == "" {
					t.Errorf("fragment %+v, want capability %q with a reason", f, tc.capability)
				}
				return
			}
			r, ok := f.TypedRoute.(*routev3.Route)
			if f.Capability != "route" || !ok {
				t.Fatalf("fragment %+v, want a route", f)
			}
			got, err := protojson.Marshal(r.GetMatch())
			if err != nil {
				t.Fatal(err)
			}
			var gotCookies struct {
				Cookies json.RawMessage `json:"cookies"`
			}
			if err := json.Unmarshal(got, &gotCookies); err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, gotCookies.Cookies, tc.cookies) {
				t.Errorf("cookies %s, want %s", gotCookies.Cookies, tc.cookies)
			}
		})
	}
}

func jsonEqual(t *testing.T, a json.RawMessage, b string) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		t.Fatalf("not JSON: %s / %s", a, b)
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}
