package envoygateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestHTTPRouteFilterChecks has one subtest per check of Envoy Gateway's
// processExtensionRefHTTPFilter (and the rewrite checks it shares with
// processURLRewriteFilter); docs/controllers/envoygateway-checks.md names
// them. Each case is a rule's filters, the HTTPRouteFilters (and other
// objects) beside it, and the verdict: summary() and the message.
func TestHTTPRouteFilterChecks(t *testing.T) {
	hrf := func(name, spec string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: HTTPRouteFilter\nmetadata: {name: " + name + ", namespace: default}\nspec: " + spec + "\n"
	}
	ext := func(names ...string) string {
		var fs []string
		for _, n := range names {
			fs = append(fs, "{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: "+n+"}}")
		}
		return strings.Join(fs, ", ")
	}
	core := func(rw string) string { return "{type: URLRewrite, urlRewrite: " + rw + "}" }
	objects := hrf("m1", "{matches: [{path: {value: /a}}]}") + hrf("m2", "{matches: [{path: {value: /b}}]}") +
		hrf("rx", "{urlRewrite: {path: {type: ReplaceRegexMatch, replaceRegexMatch: {pattern: '^/a', substitution: /b}}}}") +
		hrf("rx-empty", "{urlRewrite: {path: {type: ReplaceRegexMatch}}}") +
		hrf("rx-bad", "{urlRewrite: {path: {type: ReplaceRegexMatch, replaceRegexMatch: {pattern: '(', substitution: /b}}}}") +
		hrf("host-header", "{urlRewrite: {hostname: {type: Header, header: x-host}}}") +
		hrf("host-header-missing", "{urlRewrite: {hostname: {type: Header}}}") +
		hrf("host-backend", "{urlRewrite: {hostname: {type: Backend}}}") +
		hrf("host-regex-missing", "{urlRewrite: {hostname: {type: PathRegex, pathRegex: {pattern: '^/(.*)'}}}}") +
		hrf("host-regex-bad", "{urlRewrite: {hostname: {type: PathRegex, pathRegex: {pattern: '(', substitution: x}}}}") +
		hrf("body-missing", "{directResponse: {statusCode: 503, body: {type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: nope}}}}") +
		hrf("body-empty", "{directResponse: {statusCode: 503, body: {type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: empty}}}}") +
		hrf("body-ok", "{directResponse: {statusCode: 503, body: {type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: page}}}}") +
		hrf("cred-grant", "{credentialInjection: {credential: {valueRef: {name: token, namespace: other}}}}") +
		hrf("cred-group", "{credentialInjection: {credential: {valueRef: {group: example.com, name: token}}}}") +
		hrf("cred-key", "{credentialInjection: {credential: {valueRef: {name: other-key}}}}") +
		hrf("cred-ok", "{credentialInjection: {credential: {valueRef: {name: token}}}}") +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: empty, namespace: default}\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: page, namespace: default}\ndata: {page.html: x}\n" +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: token, namespace: default}\ndata: {credential: eA==}\n" +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: other-key, namespace: default}\ndata: {token: eA==}\n"
	const drop = "drop 0 UnsupportedValue"
	tests := []struct {
		name, filters, want, message string
	}{
		{"matches-one", ext("m1"), "", ""},
		{"matches-two", ext("m1", "m2"), drop, "Only one HTTPRouteFilter with matches is supported per HTTPRouteRule."},
		{"regex-path", ext("rx"), "", ""},
		{"regex-path-empty", ext("rx-empty"), drop, "ReplaceRegexMatch Pattern must be set when rewrite path type is \"ReplaceRegexMatch\"."},
		{"regex-path-invalid", ext("rx-bad"), drop, "ReplaceRegexMatch must be a valid RE2 regular expression."},
		{"host-header", ext("host-header"), "", ""},
		{"host-header-missing", ext("host-header-missing"), drop, "Header must be set when rewrite path type is \"Header\"."},
		{"host-pathregex-missing", ext("host-regex-missing"), drop, "PathRegex Pattern and Substitution must be set when rewrite hostname type is \"PathRegex\"."},
		{"host-pathregex-invalid", ext("host-regex-bad"), drop, "PathRegex must be a valid RE2 regular expression."},
		{"two-extension-rewrites", ext("rx", "host-header"), drop, "Cannot configure multiple urlRewrite filters for a single HTTPRouteRule."},
		{"extension-path-then-core-host", ext("rx") + ", " + core("{hostname: a.example.com}"), "", ""},
		{"extension-path-then-core-path", ext("rx") + ", " + core("{path: {type: ReplaceFullPath, replaceFullPath: /x}}"), drop, "Cannot configure multiple urlRewrite filters for a single HTTPRouteRule."},
		{"core-path-then-extension-host", core("{path: {type: ReplaceFullPath, replaceFullPath: /x}}") + ", " + ext("host-backend"), "", ""},
		{"core-host-then-extension-host", core("{hostname: a.example.com}") + ", " + ext("host-backend"), drop, "Cannot configure multiple urlRewrite filters for a single HTTPRouteRule."},
		{"two-core-rewrites", core("{hostname: a.example.com}") + ", " + core("{path: {type: ReplaceFullPath, replaceFullPath: /x}}"), drop, "Cannot configure multiple urlRewrite filters for a single HTTPRouteRule."},
		{"direct-response-body-missing", ext("body-missing"), drop, "Invalid filter HTTPRouteFilter: can't find the referenced configmap default/nope."},
		{"direct-response-body-empty", ext("body-empty"), drop, "Invalid filter HTTPRouteFilter: can't find the key response.body in the referenced configmap default/empty."},
		{"direct-response-body", ext("body-ok"), "", ""},
		{"credential-grant", ext("cred-grant"), drop, "Invalid filter HTTPRouteFilter: ref to Secret other/token not permitted by any ReferenceGrant."},
		{"credential-group", ext("cred-group"), drop, "Invalid filter HTTPRouteFilter: secret ref group must be unspecified/empty."},
		{"credential-key", ext("cred-key"), drop, "Invalid filter HTTPRouteFilter: credential key credential not found in secret default/other-key."},
		{"credential", ext("cred-ok"), "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := objects + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: default}\nspec:\n  rules:\n  - filters: [" + tc.filters + "]\n"
			objs, err := manifest.Parse("f.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			reg := policy.NewRegistry(All()...)
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
			g := topology.Build(m, topology.Options{BackendKinds: reg.BackendKinds()})
			env := &policy.Env{Model: m}
			rt := g.Route("HTTPRoute", "default", "r")
			if rt == nil {
				t.Fatalf("route not built: %v", m.Diagnostics)
			}
			v := Family.ValidateRoute(rt, env, reg.Decode(env))
			got, message := summary(v), ""
			for _, d := range v.Dropped {
				message = d.Message
			}
			if got != tc.want || !strings.HasSuffix(message, tc.message) {
				t.Errorf("got %q %q, want %q %q", got, message, tc.want, tc.message)
			}
		})
	}
}
