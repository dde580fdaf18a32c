package envoygateway

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	csrfv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/csrf/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestRenderCSRF: the route's policy enforces all but the shadow
// fraction, which runs in shadow mode; origins lose their scheme.
func TestRenderCSRF(t *testing.T) {
	for _, tc := range []struct {
		name, in   string
		enforced   uint32
		shadow     bool
		origins    []string // exact, or "~regex"
		capability string
		err        bool
	}{
		{name: "default", in: `{}`, enforced: 100},
		{name: "shadow fraction", in: `{"shadowFraction":{"numerator":20}}`, enforced: 80, shadow: true},
		{name: "fraction with denominator", in: `{"shadowFraction":{"numerator":1,"denominator":4}}`, enforced: 75, shadow: true},
		{name: "origins", in: `{"additionalOrigins":["https://a.example","http://b.example:8080","https://*.c.example","*"]}`, enforced: 100,
			origins: []string{"a.example", "b.example:8080", `~.*\.c\.example`, "~.*"}},
		{name: "not a fraction", in: `{"shadowFraction":{"numerator":5,"denominator":4}}`, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw2(renderCSRF)(json.RawMessage(tc.in), policyName{})
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
			if f.Filter == nil || f.Filter.Name != csrfFilter || !f.Filter.Enabled {
				t.Fatalf("filter %+v, want %s on", f.Filter, csrfFilter)
			}
			if c, ok := f.Filter.Typed.(*csrfv3.CsrfPolicy); !ok || c.GetFilterEnabled().GetDefaultValue().GetNumerator() != 0 {
				t.Errorf("chain config %v, want 0 %% enforced", f.Filter.Typed)
			}
			per, ok := f.TypedPerFilterConfig[csrfFilter].(*csrfv3.CsrfPolicy)
			if !ok {
				t.Fatalf("per-route config %v", f.TypedPerFilterConfig)
			}
			if got := per.GetFilterEnabled().GetDefaultValue().GetNumerator(); got != tc.enforced {
				t.Errorf("enforced %d %%, want %d", got, tc.enforced)
			}
			if got := per.GetShadowEnabled() != nil; got != tc.shadow || (got && per.GetShadowEnabled().GetDefaultValue().GetNumerator() != 100) {
				t.Errorf("shadow %v, want %v at 100 %%", per.GetShadowEnabled(), tc.shadow)
			}
			var origins []string
			for _, o := range per.GetAdditionalOrigins() {
				if r := o.GetSafeRegex(); r != nil {
					origins = append(origins, "~"+r.GetRegex())
				} else {
					origins = append(origins, o.GetExact())
				}
			}
			if len(origins) != len(tc.origins) {
				t.Fatalf("origins %q, want %q", origins, tc.origins)
			}
			for i := range origins {
				if origins[i] != tc.origins[i] {
					t.Errorf("origin %d: %q, want %q", i, origins[i], tc.origins[i])
				}
			}
		})
	}
}

// extAuthBackends are the Backends TestRenderExtAuth's services name.
const extAuthBackends = `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: fqdn, namespace: default}
spec:
  endpoints: [{fqdn: {hostname: authz.example.com, port: 3000}}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: Backend
metadata: {name: uds, namespace: default}
spec:
  endpoints: [{unix: {path: /var/run/authz.sock}}]
`

// TestRenderExtAuth: the ext auth service is a filter named after the
// policy, enabled per route, calling the cluster gwpol gives its one
// backend (HTTP/2 for gRPC, with Envoy Gateway's window sizes) with Envoy
// Gateway's authority; several backends, and a backendRef's weight, are
// not rendered yet
// (unsupported).
func TestRenderExtAuth(t *testing.T) {
	objs, err := manifest.Parse("b.yaml", []byte(extAuthBackends), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	reg := policy.NewRegistry(All()...)
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
	who := policyName{kind: "securitypolicy", namespace: "default", name: "p"}
	const name = "envoy.filters.http.ext_authz/securitypolicy/default/p"
	for _, tc := range []struct {
		name, in          string
		cluster, endpoint string // endpoint: the gRPC authority or the HTTP URI
		http2             bool
		capability        string
	}{
		{name: "gRPC Service", in: `{"grpc":{"backendRef":{"name":"authz","port":9000}},"headersToExtAuth":["x-a"],"failOpen":true,"statusOnError":500}`,
			cluster: policy.ServiceCluster("default", "authz", 9000), endpoint: "authz.default:9000", http2: true},
		{name: "HTTP Service in another namespace", in: `{"http":{"backendRef":{"name":"authz","namespace":"auth","port":80},"path":"/check"}}`,
			cluster: policy.ServiceCluster("auth", "authz", 80), endpoint: "http://authz.auth:80/check"},
		{name: "gRPC FQDN Backend", in: `{"grpc":{"backendRefs":[{"group":"gateway.envoyproxy.io","kind":"Backend","name":"fqdn","port":3000}]}}`,
			cluster: "backend_default_fqdn_3000", endpoint: "authz.example.com:3000", http2: true},
		{name: "HTTP Unix socket Backend", in: `{"http":{"backendRef":{"group":"gateway.envoyproxy.io","kind":"Backend","name":"uds"}}}`,
			cluster: "backend_default_uds_0", endpoint: "http://uds.default"},
		{name: "one of backendRefs", in: `{"grpc":{"backendRefs":[{"name":"authz","port":9000}]}}`,
			cluster: policy.ServiceCluster("default", "authz", 9000), endpoint: "authz.default:9000", http2: true},
		// A weight written is not rendered (TestUnrenderedJudgesWhatIsWritten:
		// the CRD's default 1 is no weight the user wrote).
		{name: "a backendRef's weight", in: `{"http":{"backendRefs":[{"name":"authz","port":80,"weight":7}]}}`,
			capability: "envoygateway.SecurityPolicy.extAuth.http.backendRefs.weight"},
		{name: "several backends", in: `{"http":{"backendRefs":[{"name":"a","port":80},{"name":"b","port":80}]}}`,
			capability: "envoygateway.SecurityPolicy.extAuth.backend"},
		{name: "another kind", in: `{"http":{"backendRef":{"group":"example.com","kind":"Thing","name":"a"}}}`,
			capability: "envoygateway.SecurityPolicy.extAuth.backend"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw3(renderExtAuth)(json.RawMessage(tc.in), who, m)
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
			if f.Capability != "ext_authz" || f.Filter == nil || f.Filter.Name != name || f.TypedPerFilterConfig[name] == nil {
				t.Fatalf("fragment %+v", f)
			}
			cfg, ok := f.Filter.Typed.(*extauthzv3.ExtAuthz)
			if !ok {
				t.Fatalf("filter config %T", f.Filter.Typed)
			}
			endpoint, called := cfg.GetGrpcService().GetEnvoyGrpc().GetAuthority(), cfg.GetGrpcService().GetEnvoyGrpc().GetClusterName()
			if h := cfg.GetHttpService(); h != nil {
				endpoint, called = h.GetServerUri().GetUri(), h.GetServerUri().GetCluster()
			}
			if endpoint != tc.endpoint || called != tc.cluster {
				t.Errorf("calls %s through %s, want %s through %s", endpoint, called, tc.endpoint, tc.cluster)
			}
			if len(f.TypedClusters) != 1 {
				t.Fatalf("clusters %v, want one", f.TypedClusters)
			}
			c, ok := f.TypedClusters[0].(*clusterv3.Cluster)
			if !ok || c.GetName() != tc.cluster {
				t.Fatalf("cluster %v, want %s", f.TypedClusters[0], tc.cluster)
			}
			var h upstreamhttpv3.HttpProtocolOptions
			opts, has := c.GetTypedExtensionProtocolOptions()[httpProtocolOptionsKey]
			if has != tc.http2 {
				t.Fatalf("cluster %v: protocol options %v, want HTTP/2 %v", c, has, tc.http2)
			}
			if has {
				if err := opts.UnmarshalTo(&h); err != nil || h.GetExplicitHttpConfig().GetHttp2ProtocolOptions() == nil {
					t.Fatalf("cluster %v, want explicit HTTP/2 (%v)", c, err)
				}
				// Envoy Gateway's window sizes (buildHTTP2Settings' defaults).
				o := h.GetExplicitHttpConfig().GetHttp2ProtocolOptions()
				if o.GetInitialStreamWindowSize().GetValue() != 65536 || o.GetInitialConnectionWindowSize().GetValue() != 1048576 {
					t.Errorf("HTTP/2 options %v, want windows 65536 per stream, 1048576 per connection", o)
				}
			}
		})
	}
}

// TestUnrenderableReason: a field gwpol cannot render from the input
// alone asks for a capability no target has and says why, and what the
// user can do; other unrendered fields just name their capability.
func TestUnrenderableReason(t *testing.T) {
	for _, tc := range []struct {
		kind     *Kind
		key      string
		contains []string
	}{
		{securityPolicy, "apiKeyAuth", []string{"never reads Secret data", "egctl x translate", "gwpol.dev/ignore: GWP404"}},
		{securityPolicy, "oidc", nil},
	} {
		frags, err := tc.kind.RenderField(policy.FieldInput{Key: tc.key, Values: []any{json.RawMessage(`{}`)}}, &policy.Env{})
		if err != nil || len(frags) != 1 {
			t.Fatalf("%s: got %v, %v", tc.key, frags, err)
		}
		f := frags[0]
		if want := "envoygateway." + tc.kind.name + "." + tc.key; f.Capability != want {
			t.Errorf("%s: capability %q, want %q", tc.key, f.Capability, want)
		}
		if tc.contains == nil && f.Reason != "" {
			t.Errorf("%s: reason %q, want none", tc.key, f.Reason)
		}
		for _, s := range tc.contains {
			if !strings.Contains(f.Reason, s) {
				t.Errorf("%s: reason %q lacks %q", tc.key, f.Reason, s)
			}
		}
	}
}

// geoObjects are a Gateway whose class's EnvoyProxy configures a geoIP
// provider, with no client IP detection on its listener.
const geoObjects = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: geo, namespace: app}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyProxy
metadata: {name: geo, namespace: app}
spec:
  geoIP: {provider: {type: MaxMind, maxMind: {cityDbSource: {local: {path: /db/city.mmdb}}}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app}
spec:
  gatewayClassName: eg
  listeners: [{name: http, protocol: HTTP, port: 80}]
`

// TestKeptWhenInvalid: of an invalid SecurityPolicy, Envoy Gateway keeps
// the fields without a finding of their own — the authorization even
// when only the geolocation check failed — and nothing when a finding is
// outside the fields.
func TestKeptWhenInvalid(t *testing.T) {
	for _, tc := range []struct {
		name, spec, outside string
		kept                []string
	}{
		{name: "geolocation check", spec: "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  cors: {allowOrigins: [https://a.example]}\n" +
			"  authorization: {rules: [{action: Allow, principal: {clientIPGeoLocations: [{city: Paris}]}}]}\n", kept: []string{"cors", "authorization"}},
		{name: "a field of its own", spec: "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  cors: {allowOrigins: [https://a.example]}\n" +
			"  extAuth: {http: {backendRef: {name: missing, port: 80}}}\n", kept: []string{"cors"}},
		// No check of Envoy Gateway's finds fault outside the fields (an
		// unknown mergeType fails only where it merges, per listener):
		// the finding is made up.
		{name: "outside the fields", spec: "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  cors: {allowOrigins: [https://a.example]}\n", outside: "spec.targetRefs[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := geoObjects + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" + tc.spec
			objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			reg := policy.NewRegistry(All()...)
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
			p := SecurityPolicy().Decode(objs[len(objs)-1], &policy.Env{Model: m})
			if tc.outside != "" {
				p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, tc.outside, "made up"))
			}
			if len(p.Invalid) == 0 {
				t.Fatal("policy is valid; the case wants it invalid")
			}
			if got := SecurityPolicy().KeptWhenInvalid(p); !slices.Equal(got, tc.kept) {
				t.Errorf("kept %v, want %v (findings %v)", got, tc.kept, p.Invalid)
			}
		})
	}
	if got := BackendTrafficPolicy().KeptWhenInvalid(&policy.Policy{Values: map[string]any{"timeout": nil}}); got != nil {
		t.Errorf("BackendTrafficPolicy keeps %v, want nothing", got)
	}
}

// TestSecurityPolicyMergeNaming: where a route's SecurityPolicy merges
// (mergeType) with its Gateway's, Envoy Gateway (v1.9.0
// buildSecurityPolicyOwners) names a field's filter after the policy that
// set the field — the route's when it does, else the Gateway's — not after
// the merged result as BackendTrafficPolicy's responseOverride is (egctl's
// securitypolicy-with-merge: basic_auth/securitypolicy/<gateway policy>).
func TestSecurityPolicyMergeNaming(t *testing.T) {
	const gw, route = "gateway.envoyproxy.io/SecurityPolicy/infra/gw-auth", "gateway.envoyproxy.io/SecurityPolicy/app/route-auth"
	value := json.RawMessage(`{"users":{"name":"users"}}`)
	for _, tt := range []struct {
		contributors []string
		want         string
	}{
		{[]string{gw}, "envoy.filters.http.basic_auth/securitypolicy/infra/gw-auth"},
		{[]string{route, gw}, "envoy.filters.http.basic_auth/securitypolicy/app/route-auth"},
	} {
		values := make([]any, len(tt.contributors))
		for i := range values {
			values[i] = value
		}
		in := policy.FieldInput{Key: "basicAuth", Strategy: policy.StrategicMerge, Values: values, Contributors: tt.contributors, Whole: route}
		frags, err := SecurityPolicy().RenderField(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range frags {
			if f.Filter != nil {
				names = append(names, f.Filter.Name)
			}
		}
		if len(names) != 1 || names[0] != tt.want {
			t.Errorf("contributors %v: filters %q, want %q", tt.contributors, names, tt.want)
		}
	}
}

// TestEnvoyProxyOfClassNamespace: a GatewayClass's parametersRef without
// a namespace names the EnvoyProxy in "default", as Envoy Gateway reads
// it; with one, the EnvoyProxy there.
func TestEnvoyProxyOfClassNamespace(t *testing.T) {
	for _, tc := range []struct{ ref, want string }{
		{"{group: gateway.envoyproxy.io, kind: EnvoyProxy, name: geo}", "default"},
		{"{group: gateway.envoyproxy.io, kind: EnvoyProxy, name: geo, namespace: app}", "app"},
	} {
		doc := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n  parametersRef: " + tc.ref +
			"\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: app}\nspec:\n  gatewayClassName: eg\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n"
		objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default"})
		if len(m.Gateways) != 1 {
			t.Fatalf("%d Gateways, want 1", len(m.Gateways))
		}
		key, ok := classProxy(m.Gateways[0], m)
		if !ok || key.Namespace != tc.want || key.Name != "geo" {
			t.Errorf("parametersRef %s: EnvoyProxy %v (%v), want %s/geo", tc.ref, key, ok, tc.want)
		}
	}
}
