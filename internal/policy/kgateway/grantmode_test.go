package kgateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestReferenceGrantModeOff: under referenceGrantMode Off kgateway's
// RefGrantIndex.ReferenceAllowed allows every reference before looking at
// a grant, so no reference into another namespace needs one — not only a
// route's backendRef, but a listener's certificate Secret, a
// TrafficPolicy's Secret by name and by label selector, a
// GatewayExtension's backend and a ListenerPolicy collector; Permissive
// (the default) and Strict need a grant for each. Without a grant the
// shapes differ only by the mode.
func TestReferenceGrantModeOff(t *testing.T) {
	const docs = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: https, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert, namespace: vault}]}, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: vault}
type: kubernetes.io/tls
---
apiVersion: v1
kind: Secret
metadata: {name: htpasswd, namespace: vault, labels: {team: pay}}
stringData: {.htpasswd: "alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", alice: k-123}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: other}
spec: {ports: [{port: 80}, {port: 9000}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{backendRefs: [{name: svc, namespace: other, port: 80}]}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: ext, namespace: shop}
spec:
  type: ExtAuth
  extAuth:
    grpcService:
      backendRef: {name: svc, namespace: other, port: 9000}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: basic, namespace: shop}
spec:
  basicAuth:
    secretRef: {name: htpasswd, namespace: vault}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: keys, namespace: shop}
spec:
  apiKeyAuth:
    secretSelector: {matchLabels: {team: pay}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: authz, namespace: shop}
spec:
  extAuth:
    extensionRef: {name: ext}
`
	refused := map[string]string{"basic": "spec.basicAuth.secretRef", "keys": "spec.apiKeyAuth.secretSelector", "authz": "spec.extAuth.extensionRef",
		"certificate": "False/RefNotPermitted", "backendRef": "False/RefNotPermitted"}
	allowed := map[string]string{"basic": "", "keys": "", "authz": "", "certificate": "True/ResolvedRefs", "backendRef": "True/ResolvedRefs"}
	for _, tt := range []struct {
		name, mode string
		want       map[string]string
	}{
		{"mode Off", "Off", allowed}, {"mode off, any case", "off", allowed},
		{"mode Permissive", "Permissive", refused}, {"mode Strict", "Strict", refused}, {"mode unset: Permissive", "", refused},
	} {
		mode, want := tt.mode, tt.want
		t.Run(tt.name, func(t *testing.T) {
			cfg := policy.Config{}
			if mode != "" {
				cfg = cfg.WithSetting(ReferenceGrantMode.Key, mode)
			}
			objs, err := manifest.Parse("inline.yaml", []byte(docs), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: Group, Kind: KindGatewayExtension}: true, {Group: Group, Kind: KindTrafficPolicy}: true}})
			env := &policy.Env{Model: m, Config: cfg}
			got := map[string]string{}
			for _, o := range objs {
				if o.Kind != KindTrafficPolicy {
					continue
				}
				var fields []string
				for _, d := range (Kind{}).Decode(o, env).Invalid {
					fields = append(fields, d.Field)
				}
				got[o.Name] = strings.Join(fields, "; ")
			}
			reg := policy.NewRegistry()
			reg.AddFamilies(Family)
			g := topology.Build(m, reg.TopologyOptions(cfg, Controller.Name))
			l := g.Gateways[0].Listeners[0]
			c := findCond(l.Conditions, "ResolvedRefs")
			got["certificate"] = string(c.Status) + "/" + c.Reason
			rt := g.Route("HTTPRoute", "shop", "r")
			c = findCond(topology.RouteParentConditions(rt, rt.Parents[0]), "ResolvedRefs")
			got["backendRef"] = string(c.Status) + "/" + c.Reason
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %q, want %q", k, got[k], w)
				}
			}
		})
	}
}
