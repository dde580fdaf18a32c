package families

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	envoygateway "github.com/envoyproxy/gateway"
	yaml "go.yaml.in/yaml/v3"
)

// TestNoCRDDefaultMakesAWriter: merge counts a policy as setting a field
// when the policy holds it (policy.Policy.Values; explain's owner, lint's
// GWP3xx findings), and the families hold what the object as stored
// sets — the controllers read the stored object, defaults included, as
// set. So a CRD default at a field merge enumerates (or on its way there)
// would make every policy of the kind a writer of that field, winning or
// conflicting over the policies that write it. None of the CRDs gwpol
// reads does that: their defaults lie below fields a user writes, inside
// that user's value (explain marks them, "(CRD default)"). This test
// fails when a CRD gains one, so that what its controller makes of it is
// read from source then. The CRDs: the ones gwpol ships (Envoy Gateway's
// module) and kgateway's and WSO2's pinned ones (../shared, when present;
// given by --crds).
func TestNoCRDDefaultMakesAWriter(t *testing.T) {
	docs := bytes.Split(envoygateway.GatewayCRDs, []byte("\n---"))
	for _, dir := range []string{"../../../shared/conformance/kgateway/crds", "../../../shared/conformance/wso2/crds"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, b)
		}
	}
	type crd struct {
		Spec struct {
			Group string `yaml:"group"`
			Names struct {
				Kind string `yaml:"kind"`
			} `yaml:"names"`
			Versions []struct {
				Name   string `yaml:"name"`
				Schema struct {
					OpenAPIV3Schema map[string]any `yaml:"openAPIV3Schema"`
				} `yaml:"schema"`
			} `yaml:"versions"`
		} `yaml:"spec"`
	}
	schemas := map[string][]map[string]any{} // group/kind → each version's schema
	for _, d := range docs {
		var c crd
		if yaml.Unmarshal(d, &c) != nil || c.Spec.Names.Kind == "" {
			continue
		}
		for _, v := range c.Spec.Versions {
			schemas[c.Spec.Group+"/"+c.Spec.Names.Kind] = append(schemas[c.Spec.Group+"/"+c.Spec.Names.Kind], v.Schema.OpenAPIV3Schema)
		}
	}
	checked := 0
	for _, k := range Registry().Kinds() {
		gk := k.GroupKind()
		for _, s := range schemas[gk.Group+"/"+gk.Kind] {
			for _, f := range k.Spec().Fields {
				node, path := s, ""
				for _, step := range strings.Split(f.SpecPath, ".") {
					props, _ := node["properties"].(map[string]any)
					next, ok := props[step].(map[string]any)
					if !ok {
						break
					}
					node, path = next, strings.TrimPrefix(path+"."+step, ".")
					if _, ok := node["default"]; ok && path != "spec" {
						t.Errorf("%s: the CRD defaults %s, on the way to field %s: every policy of the kind would hold it", gk.Kind, path, f.Key)
					}
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no field checked")
	}
	t.Logf("%d kind fields checked against their CRDs' defaults", checked)
}
