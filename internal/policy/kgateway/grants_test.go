package kgateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestGrantsCoreGroup: kgateway reads a ReferenceGrant's group written
// "core" as the core group (Grants, RefGrantIndex's emptyIfCore), for the
// references its policies check themselves — a TrafficPolicy's Secret
// (basicAuth, apiKeyAuth by name and by selector), a GatewayExtension's
// backend Service — as topology does for its Gateways and routes; a grant
// naming another kind or source still refuses.
func TestGrantsCoreGroup(t *testing.T) {
	if !Family.Grants.CoreAlias || Family.Grants != Grants {
		t.Fatalf("Family.Grants = %+v, want kgateway's Grants", Family.Grants)
	}
	const common = `
apiVersion: v1
kind: Secret
metadata: {name: htpasswd, namespace: vault, labels: {team: pay}}
stringData: {.htpasswd: "alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=", alice: k-123}
---
apiVersion: v1
kind: Service
metadata: {name: authz, namespace: auth}
spec: {ports: [{port: 9000}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: ext, namespace: gw-ext}
spec:
  type: ExtAuth
  extAuth:
    grpcService:
      backendRef: {name: authz, namespace: auth, port: 9000}
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
metadata: {name: authz, namespace: gw-ext}
spec:
  extAuth:
    extensionRef: {name: ext}
`
	grant := func(name, ns, fromKind, fromNS, toGroup, toKind string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: ReferenceGrant\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n  from: [{group: gateway.kgateway.dev, kind: " + fromKind + ", namespace: " + fromNS + "}]\n  to: [{group: " + toGroup + ", kind: " + toKind + "}]\n"
	}
	tests := []struct {
		name   string
		grants string
		want   map[string]string // policy → an invalid field's path ("" valid)
	}{
		{"grants written core", grant("s", "vault", "TrafficPolicy", "shop", "core", "Secret") + grant("b", "auth", "GatewayExtension", "gw-ext", "core", "Service"),
			map[string]string{"basic": "", "keys": "", "authz": ""}},
		{"grants written empty", grant("s", "vault", "TrafficPolicy", "shop", `""`, "Secret") + grant("b", "auth", "GatewayExtension", "gw-ext", `""`, "Service"),
			map[string]string{"basic": "", "keys": "", "authz": ""}},
		{"core, another kind", grant("s", "vault", "TrafficPolicy", "shop", "core", "ConfigMap") + grant("b", "auth", "GatewayExtension", "gw-ext", "core", "Secret"),
			map[string]string{"basic": "spec.basicAuth.secretRef", "keys": "spec.apiKeyAuth.secretSelector", "authz": "spec.extAuth.extensionRef"}},
		{"core, another source", grant("s", "vault", "TrafficPolicy", "elsewhere", "core", "Secret") + grant("b", "auth", "TrafficPolicy", "gw-ext", "core", "Service"),
			map[string]string{"basic": "spec.basicAuth.secretRef", "keys": "spec.apiKeyAuth.secretSelector", "authz": "spec.extAuth.extensionRef"}},
		{"no grant", "", map[string]string{"basic": "spec.basicAuth.secretRef", "keys": "spec.apiKeyAuth.secretSelector", "authz": "spec.extAuth.extensionRef"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Parse("inline.yaml", []byte(common+tt.grants), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: Group, Kind: KindGatewayExtension}: true, {Group: Group, Kind: KindTrafficPolicy}: true}})
			env := &policy.Env{Model: m, Config: policy.Config{}}
			for _, o := range objs {
				if o.Kind != KindTrafficPolicy {
					continue
				}
				p := Kind{}.Decode(o, env)
				var fields []string
				for _, d := range p.Invalid {
					fields = append(fields, d.Field+": "+d.Message)
				}
				got := strings.Join(fields, "; ")
				if want := tt.want[o.Name]; (want == "") != (got == "") || !strings.Contains(got, want) {
					t.Errorf("%s: invalid %q, want %q", o.Name, got, want)
				}
			}
		})
	}
}
