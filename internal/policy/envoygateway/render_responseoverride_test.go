package envoygateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	customresponsev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/custom_response/v3"
	localresponsev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/custom_response/local_response_policy/v3"
	redirectpolicyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/custom_response/redirect_policy/v3"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// responseOverrideModel holds ConfigMaps in namespace app: one with
// response.body among other keys, one with a single other key.
func responseOverrideModel(t *testing.T) *model.Model {
	t.Helper()
	const docs = `apiVersion: v1
kind: ConfigMap
metadata: {name: with-body, namespace: app}
data: {other: x, response.body: y}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: one-key, namespace: app}
data: {page.html: x}
`
	objs, err := manifest.Parse("cm.yaml", []byte(docs), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return model.Build(&manifest.Set{Objects: objs}, model.Options{})
}

// TestRenderResponseOverride: the entries become the matchers of one
// custom_response filter, named after the policy — after the merged
// result's most specific policy where there is a merge — enabled on the
// route; a ConfigMap body is a placeholder naming the key Envoy Gateway
// reads, in the namespace of the policy that set it; parts not rendered
// yet are unsupported, malformed entries errors.
func TestRenderResponseOverride(t *testing.T) {
	m := responseOverrideModel(t)
	own := policyName{kind: "backendtrafficpolicy", namespace: "app", name: "errors"}
	merged := own
	merged.merged = &policyName{kind: "backendtrafficpolicy", namespace: "web", name: "route-policy"}
	for _, tc := range []struct {
		name, value string
		who         policyName
		filter      string // "" when nothing renders
		actions     []string
		capability  string // an unsupported part
		err         string
	}{
		{name: "inline body", value: `[{"match":{"statusCodes":[{"value":404}]},"response":{"body":{"inline":"gone"},"statusCode":410}}]`, who: own,
			filter: "envoy.filters.http.custom_response/backendtrafficpolicy/app/errors", actions: []string{"backendtrafficpolicy/app/errors/responseoverride/rule/0 body=gone status=410"}},
		{name: "ConfigMap with response.body", value: `[{"match":{"statusCodes":[{"value":500}]},"response":{"body":{"type":"ValueRef","valueRef":{"kind":"ConfigMap","name":"with-body"}}}}]`, who: own,
			filter: "envoy.filters.http.custom_response/backendtrafficpolicy/app/errors", actions: []string{"backendtrafficpolicy/app/errors/responseoverride/rule/0 body=${configmap:app/with-body#response.body}"}},
		{name: "ConfigMap with one other key", value: `[{"match":{"statusCodes":[{"value":500}]},"response":{"body":{"type":"ValueRef","valueRef":{"kind":"ConfigMap","name":"one-key"}}}}]`, who: own,
			filter: "envoy.filters.http.custom_response/backendtrafficpolicy/app/errors", actions: []string{"backendtrafficpolicy/app/errors/responseoverride/rule/0 body=${configmap:app/one-key#page.html}"}},
		{name: "merged: named after the route's policy, the body read where it was set", value: `[{"match":{"statusCodes":[{"value":500}]},"response":{"body":{"type":"ValueRef","valueRef":{"kind":"ConfigMap","name":"one-key"}}}},{"match":{"statusCodes":[{"value":200}]},"redirect":{"hostname":"x.example.com"}}]`, who: merged,
			filter: "envoy.filters.http.custom_response/backendtrafficpolicy/web/route-policy", actions: []string{
				"backendtrafficpolicy/web/route-policy/responseoverride/rule/0 body=${configmap:app/one-key#page.html}",
				"backendtrafficpolicy/web/route-policy/responseoverride/rule/1 redirect=x.example.com status=302"}},
		{name: "empty list", value: `[]`, who: own},
		{name: "header removal", value: `[{"match":{"statusCodes":[{"value":404}]},"response":{"header":{"remove":["server"]}}}]`, who: own,
			capability: "envoygateway.BackendTrafficPolicy.responseOverride.response.header.remove"},
		{name: "prefix path redirect", value: `[{"match":{"statusCodes":[{"value":404}]},"redirect":{"path":{"type":"ReplacePrefixMatch","replacePrefixMatch":"/x"}}}]`, who: own,
			capability: "envoygateway.BackendTrafficPolicy.responseOverride.redirect.path.ReplacePrefixMatch"},
		{name: "no match criteria", value: `[{"match":{},"response":{"statusCode":500}}]`, who: own, err: "at least one of statusCodes or responseHeaders"},
		{name: "neither response nor redirect", value: `[{"match":{"statusCodes":[{"value":404}]}}]`, who: own, err: "exactly one of response or redirect"},
		{name: "range without its range", value: `[{"match":{"statusCodes":[{"type":"Range"}]},"response":{"statusCode":500}}]`, who: own, err: "range must be set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw3(renderResponseOverride)(json.RawMessage(tc.value), tc.who, m)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, %v; want the error %q", frags, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.capability != "" {
				if len(frags) != 1 || frags[0].Capability != tc.capability || frags[0].Filter != nil {
					t.Fatalf("got %+v; want only the unsupported capability %s", frags, tc.capability)
				}
				return
			}
			if tc.filter == "" {
				if len(frags) != 0 {
					t.Fatalf("got %+v; want nothing", frags)
				}
				return
			}
			if len(frags) != 1 || frags[0].Filter == nil || frags[0].Filter.Name != tc.filter || frags[0].Capability != "custom_response" {
				t.Fatalf("got %+v; want the filter %s", frags, tc.filter)
			}
			if fc, ok := frags[0].TypedPerFilterConfig[tc.filter].(*routev3.FilterConfig); !ok || fc.GetConfig() == nil || fc.GetDisabled() {
				t.Errorf("the route does not enable %s: %v", tc.filter, frags[0].TypedPerFilterConfig)
			}
			cr, ok := frags[0].Filter.Typed.(*customresponsev3.CustomResponse)
			if !ok || frags[0].Filter.Order >= orderFault || frags[0].Filter.Enabled {
				t.Fatalf("filter %+v: want a CustomResponse first in the chain, off there", frags[0].Filter)
			}
			var got []string
			for _, fm := range cr.GetCustomResponseMatcher().GetMatcherList().GetMatchers() {
				got = append(got, describeAction(t, fm.GetOnMatch().GetAction().GetName(), fm))
			}
			if strings.Join(got, "\n") != strings.Join(tc.actions, "\n") {
				t.Errorf("actions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.actions, "\n"))
			}
		})
	}
}

// describeAction is one matcher's action as "name body=… status=…" or
// "name redirect=host status=…".
func describeAction(t *testing.T, name string, fm *xdsmatcherv3.Matcher_MatcherList_FieldMatcher) string {
	t.Helper()
	a := fm.GetOnMatch().GetAction().GetTypedConfig()
	lr := &localresponsev3.LocalResponsePolicy{}
	if a.MessageIs(lr) {
		if err := a.UnmarshalTo(lr); err != nil {
			t.Fatal(err)
		}
		s := name
		//lint:ignore SA1019 the renderer writes text_format, as Envoy Gateway does
		if b := lr.GetBodyFormat().GetTextFormat(); b != "" {
			s += " body=" + b
		}
		if lr.StatusCode != nil {
			s += fmt.Sprintf(" status=%d", lr.GetStatusCode().GetValue())
		}
		return s
	}
	rp := &redirectpolicyv3.RedirectPolicy{}
	if err := a.UnmarshalTo(rp); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s redirect=%s status=%d", name, rp.GetRedirectAction().GetHostRedirect(), rp.GetStatusCode().GetValue())
}

// TestResponseOverrideConfigMapKeys: Envoy Gateway reads response.body,
// else any key of the ConfigMap: a ConfigMap without keys makes the policy
// invalid, several keys without response.body are a warning (which one
// Envoy Gateway takes is not defined), one key or response.body is fine.
func TestResponseOverrideConfigMapKeys(t *testing.T) {
	for _, tc := range []struct {
		data, want string // want: "", "invalid" or "warning"
	}{
		{"{response.body: x}", ""},
		{"{page.html: x}", ""},
		{"{response.body: x, other: y}", ""},
		{"{}", "invalid"},
		{"{a: x, b: y}", "warning"},
	} {
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: pages, namespace: app}\ndata: " + tc.data + "\n---\n" +
			"apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n" +
			"  responseOverride: [{match: {statusCodes: [{value: 500}]}, response: {body: {type: ValueRef, valueRef: {kind: ConfigMap, name: pages}}}}]\n"
		objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
		if err != nil || len(objs) != 2 {
			t.Fatalf("parse: %v", err)
		}
		p := backendTrafficPolicy.Decode(objs[1], &policy.Env{Model: model.Build(&manifest.Set{Objects: objs}, model.Options{})})
		got := ""
		if len(p.Invalid) > 0 {
			got = "invalid"
		}
		for _, f := range p.Findings {
			if f.Severity == diag.Warning && strings.Contains(f.Message, "configmap app/pages") {
				got += "warning"
			}
		}
		if got != tc.want {
			t.Errorf("data %s: got %q (invalid %v, findings %v), want %q", tc.data, got, p.Invalid, p.Findings, tc.want)
		}
	}
}
