package families

import (
	"github.com/gwpol/gwpol/internal/pipeline"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

// TestListLimitsOneSource: a list over its CRD's maxItems is reported
// once, by one source. Without a CRD for the kind (kgateway's
// TrafficPolicy, whose CRD gwpol does not ship) model's hand-written
// limit refuses it (GWP101) and leaves the policy out; with the CRD in the
// input the schema stage reports it in the CRD's words (GWP110, at the
// same field) and the hand-written limit is not applied — the policy is
// compiled, as any object the schema stage reports is. The Gateway API's
// lists are always the schema stage's (gwpol ships their CRDs): an
// HTTPRoute with 33 parentRefs is one GWP110 at spec.parentRefs. Loaded
// whole and with Predecode alike.
func TestListLimitsOneSource(t *testing.T) {
	var refs, parents strings.Builder
	for range 17 {
		refs.WriteString("  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n")
	}
	for range 33 {
		parents.WriteString("  - {name: gw}\n")
	}
	policy := "apiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n  targetRefs:\n" + refs.String()
	// A stand-in for kgateway's CRD: the part of its schema this needs.
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: trafficpolicies.gateway.kgateway.dev}
spec:
  group: gateway.kgateway.dev
  names: {kind: TrafficPolicy, plural: trafficpolicies}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              targetRefs:
                type: array
                maxItems: 16
                items: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
`
	route := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n  parentRefs:\n" + parents.String()
	tp := model.GroupKind{Group: "gateway.kgateway.dev", Kind: "TrafficPolicy"}
	for _, c := range []struct {
		name, in, want string
		kept           bool
	}{
		{"TrafficPolicy without its CRD", policy, "GWP101 spec.targetRefs", false},
		{"TrafficPolicy with its CRD", crd + policy, "GWP110 spec.targetRefs", true},
		{"HTTPRoute", route, "GWP110 spec.parentRefs", true},
	} {
		for _, early := range []bool{false, true} {
			cfg := &pipeline.Config{}
			opt := manifest.Options{}
			if early {
				opt.Each = Predecode(cfg)
			}
			in := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(in, []byte(c.in), 0o600); err != nil {
				t.Fatal(err)
			}
			set, err := manifest.Load([]string{in}, opt)
			if err != nil {
				t.Fatal(err)
			}
			comp := Compile(set, cfg)
			var got []string
			for _, d := range comp.Diagnostics() {
				if d.Code == "GWP101" || d.Code == "GWP110" {
					got = append(got, d.Code+" "+d.Field)
				}
			}
			kept := len(comp.Model.OfKind(tp)) == 1 || len(comp.Model.Routes) == 1
			if strings.Join(got, "; ") != c.want || kept != c.kept {
				t.Errorf("%s (predecoded %v): %v, object kept %v; want %s, kept %v", c.name, early, got, kept, c.want, c.kept)
			}
		}
	}
}
