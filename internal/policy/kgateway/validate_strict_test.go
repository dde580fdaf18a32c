package kgateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestStrictEnvoyChecks: in kgateway's Strict validation mode a policy
// whose Envoy config Envoy would reject is invalid — a CSRF origin regex
// that does not compile, an HTTP authorization path prefix without a
// leading "/" — naming the field; in Standard mode it is not.
func TestStrictEnvoyChecks(t *testing.T) {
	const input = `
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: authz, namespace: default}
spec:
  type: ExtAuth
  extAuth:
    httpService:
      backendRef: {name: authz, port: 8080}
      pathPrefix: "check"
---
apiVersion: v1
kind: Service
metadata: {name: authz, namespace: default}
spec:
  ports: [{port: 8080}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: csrf, namespace: default}
spec:
  csrf:
    additionalOrigins: [{exact: "https://ok.example.com"}, {safeRegex: "["}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: authz, namespace: default}
spec:
  extAuth:
    extensionRef: {name: authz}
`
	objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: Group, Kind: KindGatewayExtension}: true, {Group: Group, Kind: KindTrafficPolicy}: true}})
	want := map[string]string{"csrf": "spec.csrf.additionalOrigins[1].safeRegex", "authz": "spec.extAuth.extensionRef"}
	for _, mode := range []string{"Strict", "Standard"} {
		env := &policy.Env{Model: m, Config: policy.Config{ValidationMode: mode}}
		for _, o := range objs {
			if o.Kind != KindTrafficPolicy {
				continue
			}
			p := Kind{}.Decode(o, env)
			var fields []string
			for _, d := range p.Invalid {
				fields = append(fields, d.Field)
			}
			got := strings.Join(fields, ",")
			switch {
			case mode == "Strict" && !strings.Contains(got, want[o.Name]):
				t.Errorf("%s: %s invalid at %q, want %s", mode, o.Name, got, want[o.Name])
			case mode == "Standard" && got != "":
				t.Errorf("%s: %s invalid at %q, want valid", mode, o.Name, got)
			}
		}
	}
}
