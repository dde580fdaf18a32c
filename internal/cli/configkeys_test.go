package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// TestGenericPackagesHoldNoConfigKey: a controller's deployment setting is
// its family's — a policy.Setting declared in the family's package, read
// through the registry — never a key the generic packages hold. No string
// literal or struct tag of a generic package is a registered setting's
// key; and every key of the configuration file (pipeline.Config) is gwpol's
// own (genericConfigKeys).
func TestGenericPackagesHoldNoConfigKey(t *testing.T) {
	reg := families.Registry()
	var keys []string
	for _, s := range reg.Settings() {
		keys = append(keys, strings.ToLower(s.Key))
	}
	if len(keys) == 0 {
		t.Fatal("no family declares a setting")
	}
	for _, file := range genericSources(t) {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			for _, v := range append([]string{s}, tagValues(s)...) {
				if slices.Contains(keys, strings.ToLower(v)) {
					t.Errorf("%s holds %q, a family's deployment setting: read it through the registry (policy.Setting)", file, v)
				}
			}
			return true
		})
	}
	typ := reflect.TypeFor[pipeline.Config]()
	for i := range typ.NumField() {
		key := typ.Field(i).Tag.Get("mapstructure")
		if key == "" || key == "-" {
			continue
		}
		if !slices.Contains(genericConfigKeys, key) {
			t.Errorf("pipeline.Config has the key %s, which is not gwpol's own (genericConfigKeys): a controller's setting is its family's policy.Setting", key)
		}
	}
}

// tagValues are the values of a struct tag's keys (`mapstructure:"x"`
// gives x); none when s is not a tag.
func tagValues(s string) []string {
	var out []string
	for _, k := range []string{"mapstructure", "json", "yaml"} {
		if v, ok := reflect.StructTag(s).Lookup(k); ok {
			out = append(out, strings.Split(v, ",")[0])
		}
	}
	return out
}

// genericConfigKeys are the configuration keys that are gwpol's own: what
// to read and how (namespace, maxFileSize, strictFields, crds, exclude,
// assumeExist), which controller status reports for, the inputs beyond the
// manifests, and the lint, render and guardrails sections.
var genericConfigKeys = []string{"namespace", "controllerName", "maxFileSize", "strictFields", "policyDefinitions", "crds",
	"engineManifest", "lint", "render", "exclude", "assumeExist", "guardrails"}
