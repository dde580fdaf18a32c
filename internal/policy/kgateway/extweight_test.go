package kgateway_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/kgateway"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/topology"
)

// weightBase is a Gateway with one route, the services the extensions
// call, and two extensions per family: z-heavy with weight 10 and
// a-light with weight -10 (the annotation for ext_authz and oauth2,
// filterStage.weight for ext_proc). Their names sort the other way round,
// so only the weight can put z-heavy first.
const weightBase = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: ext, namespace: infra}
spec: {ports: [{port: 9000}]}
---
apiVersion: v1
kind: Secret
metadata: {name: client, namespace: infra}
data: {client-secret: c2VjcmV0}
`

// extensions are the two GatewayExtensions of a family.
func extensions(family string) string {
	var b strings.Builder
	for _, e := range []struct {
		name   string
		weight int
	}{{"z-heavy", 10}, {"a-light", -10}} {
		ann, spec := fmt.Sprintf(`{kgateway.dev/policy-weight: "%d"}`, e.weight), ""
		switch family {
		case "extAuth":
			spec = "{extAuth: {grpcService: {backendRef: {name: ext, port: 9000}}}}"
		case "extProc":
			ann = "{}"
			spec = fmt.Sprintf("{extProc: {grpcService: {backendRef: {name: ext, port: 9000}}, filterStage: {stage: AuthZ, predicate: After, weight: %d}}}", e.weight)
		case "oauth2":
			spec = "{oauth2: {backendRef: {name: ext, port: 9000}, tokenEndpoint: 'https://idp.example.com/token', authorizationEndpoint: 'https://idp.example.com/auth', credentials: {clientID: gw, clientSecretRef: {name: client}}}}"
		}
		fmt.Fprintf(&b, "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: %s, namespace: infra, annotations: %s}\nspec: %s\n", e.name, ann, spec)
	}
	return b.String()
}

// tp is a TrafficPolicy with a policy weight, calling one extension.
type tp struct {
	name   string
	route  bool // targets the HTTPRoute, else the Gateway
	weight int
	ext    string
}

func (p tp) yaml(family string) string {
	target := "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}"
	if p.route {
		target = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}"
	}
	return fmt.Sprintf("---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: %s, namespace: infra, annotations: {kgateway.dev/policy-weight: \"%d\"}}\nspec:\n  targetRefs: [%s]\n  %s: {extensionRef: {name: %s}}\n",
		p.name, p.weight, target, family, p.ext)
}

// TestExtensionWeightOrdersFiltersNotMerging: where the policies'
// kgateway.dev/policy-weight and the GatewayExtensions' weights disagree,
// the policy weight decides which policy wins a field at a merge point
// (the merge owner, explain's decision, the merge metadata), and the
// extension weight decides the order the extensions' filters run in, as
// kgateway's translator does (merge order: the policies' PrecedenceWeight;
// HttpFilters: the extension's, for ext_authz, ext_proc and oauth2).
func TestExtensionWeightOrdersFiltersNotMerging(t *testing.T) {
	heavyFirst := func(prefix string) []string { return []string{prefix + "infra/z-heavy", prefix + "infra/a-light"} }
	tests := []struct {
		name, family, key, filterPrefix string
		deep                            bool
		policies                        []tp
		wantOwner                       string   // at the Gateway
		wantOrigins                     []string // the Gateway's merge metadata for the field
		wantFilters                     []string
	}{
		{
			name: "extAuth shallow: the heavier policy wins the Gateway, the heavier extension runs first", family: "extAuth", key: "extAuth", filterPrefix: "ext_auth/",
			policies:    []tp{{"a-calls-light", false, 5, "a-light"}, {"b-calls-zheavy", false, 0, "z-heavy"}, {"route-calls-zheavy", true, 0, "z-heavy"}},
			wantOwner:   "a-calls-light",
			wantOrigins: []string{"gateway.kgateway.dev/TrafficPolicy/infra/a-calls-light"},
			wantFilters: heavyFirst("ext_auth/"),
		},
		{
			name: "extAuth deep merge: both contribute in policy order, filters run by extension weight", family: "extAuth", key: "extAuth", filterPrefix: "ext_auth/", deep: true,
			policies:    []tp{{"a-calls-light", false, 5, "a-light"}, {"b-calls-zheavy", false, 0, "z-heavy"}},
			wantOwner:   "a-calls-light",
			wantOrigins: []string{"gateway.kgateway.dev/TrafficPolicy/infra/a-calls-light", "gateway.kgateway.dev/TrafficPolicy/infra/b-calls-zheavy"},
			wantFilters: heavyFirst("ext_auth/"),
		},
		{
			name: "extProc deep merge: filterStage.weight orders the filters", family: "extProc", key: "extProc", filterPrefix: "ext_proc/", deep: true,
			policies:    []tp{{"a-calls-light", false, 5, "a-light"}, {"b-calls-zheavy", false, 0, "z-heavy"}},
			wantOwner:   "a-calls-light",
			wantOrigins: []string{"gateway.kgateway.dev/TrafficPolicy/infra/a-calls-light", "gateway.kgateway.dev/TrafficPolicy/infra/b-calls-zheavy"},
			wantFilters: heavyFirst("ext_proc/"),
		},
		{
			name: "oauth2 shallow: the heavier policy wins, a route's heavier extension runs first", family: "oauth2", key: "oidc", filterPrefix: "envoy.filters.http.oauth2/",
			policies:    []tp{{"a-calls-light", false, 5, "a-light"}, {"b-calls-zheavy", false, 0, "z-heavy"}, {"route-calls-zheavy", true, 0, "z-heavy"}},
			wantOwner:   "a-calls-light",
			wantOrigins: []string{"gateway.kgateway.dev/TrafficPolicy/infra/a-calls-light"},
			wantFilters: heavyFirst("envoy.filters.http.oauth2/"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := weightBase + extensions(tt.family)
			for _, p := range tt.policies {
				input += p.yaml(tt.family)
			}
			cfg := policy.Config{ReferenceGrantMode: "Permissive", ValidationMode: "Standard"}
			if tt.deep {
				cfg.PolicyMerge = map[string]string{"trafficPolicy." + tt.key: "DeepMerge"}
			}
			res := compileInline(t, input, cfg)
			gw := res.Gateways[0]
			f := gw.Whole.Of(kgateway.New()).Field(tt.key)
			if f == nil || f.Owner.Policy.Obj.Name != tt.wantOwner {
				t.Fatalf("Gateway %s: %+v, want owner %s", tt.key, f, tt.wantOwner)
			}
			checkDecisions(t, res, gw.Gateway.Listeners[0], tt.key)
			for _, target := range []string{"envoy", "kgateway"} {
				out, err := envoy.Render(res, envoy.Options{Target: target, Config: cfg})
				if err != nil || len(out.Diagnostics) > 0 || len(out.Gateways) != 1 {
					t.Fatalf("%s: render: %v %v", target, err, out.Diagnostics)
				}
				g := out.Gateways[0]
				if got := origins(t, g, tt.key); !slices.Equal(got, tt.wantOrigins) {
					t.Errorf("%s: merge metadata %s = %v, want %v", target, tt.key, got, tt.wantOrigins)
				}
				if got := filterNames(t, g, tt.filterPrefix); !slices.Equal(got, tt.wantFilters) {
					t.Errorf("%s: filters %v, want %v", target, got, tt.wantFilters)
				}
			}
		})
	}
}

// checkDecisions: explain names the policy weight as what decided a
// loser, and the extensions' weights as what did not; when several
// extensions run, filterOrder puts the heavier extension first and says
// its weight decided.
func checkDecisions(t *testing.T, res *merge.Result, l *topology.Listener, key string) {
	t.Helper()
	for _, f := range explain.Listener(res, l, explain.Options{Field: key}).Fields {
		for _, d := range f.Decisions {
			if d.Rule != "weight" || !strings.Contains(d.Reason, "policy weight 5 (annotation kgateway.dev/policy-weight on TrafficPolicy infra/a-calls-light)") ||
				!strings.Contains(d.Reason, "GatewayExtension infra/z-heavy") {
				t.Errorf("decision against %s: %s %q, want the policy weight deciding and the extension weights named as not deciding", d.Loser, d.Rule, d.Reason)
			}
		}
		if len(f.FilterOrder) == 0 {
			continue
		}
		if first, second := f.FilterOrder[0], f.FilterOrder[1]; first.Object != "GatewayExtension infra/z-heavy" || first.Weight != 10 || second.Rule != "weight" {
			t.Errorf("filterOrder %+v, want GatewayExtension infra/z-heavy (weight 10) first, the next by weight", f.FilterOrder)
		}
	}
}

func compileInline(t *testing.T, input string, cfg policy.Config) *merge.Result {
	t.Helper()
	objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	reg := families.Registry()
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: reg.GroupKinds()})
	g := topology.Build(m, topology.Options{BackendKinds: reg.BackendKinds(), Keys: reg.TopologyKeys()})
	pols := reg.Decode(&policy.Env{Model: m, Config: cfg})
	for _, p := range pols.Policies {
		if !p.IsValid() {
			t.Fatalf("%s invalid: %v", p.ID(), p.Invalid)
		}
	}
	return merge.Compute(g, reg, pols, attach.Attach(g, reg, pols, cfg), cfg)
}

// origins is the Gateway-level merge metadata of a field: on the
// RouteConfiguration, where kgateway writes whole-Gateway policies'.
func origins(t *testing.T, g *envoy.Gateway, key string) []string {
	t.Helper()
	var out []string
	for _, rc := range g.RouteConfigurations {
		for _, md := range rc.GetMetadata().GetFilterMetadata() {
			for _, v := range md.GetFields()[key].GetListValue().GetValues() {
				out = append(out, v.GetStringValue())
			}
		}
	}
	return out
}

// filterNames are the listener's HTTP filters with a prefix, in chain order.
func filterNames(t *testing.T, g *envoy.Gateway, prefix string) []string {
	t.Helper()
	var out []string
	for _, f := range g.Listeners[0].GetFilterChains()[0].GetFilters() {
		hcm := &hcmv3.HttpConnectionManager{}
		if tc := f.GetTypedConfig(); tc == nil || !tc.MessageIs(hcm) {
			continue
		} else if err := tc.UnmarshalTo(hcm); err != nil {
			t.Fatal(err)
		}
		for _, hf := range hcm.GetHttpFilters() {
			if strings.HasPrefix(hf.GetName(), prefix) {
				out = append(out, hf.GetName())
			}
		}
	}
	return out
}
