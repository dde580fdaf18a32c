package manifest

import (
	"reflect"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// unstructuredSeeds cover the scalar rules: quoted and bare numbers,
// floats, exponents, big integers, nulls, booleans, anchors and merge keys.
var unstructuredSeeds = []string{
	"apiVersion: v1\nkind: X\nspec: {a: 1, b: \"1\", c: 1.5, d: 1e3, e: 9223372036854775808, f: null, g: true, h: ~, i: -0, j: 0x10}\n",
	"apiVersion: v1\nkind: X\nbase: &b {x: [1, 2, {y: z}]}\nspec:\n  <<: *b\n  w: *b\n",
	"apiVersion: v1\nkind: X\nspec: {s: !!str 12, t: !!int \"7\", u: .inf, v: 2020-01-01}\n",
}

// TestUnstructuredIsUtilJSON: Unstructured is what k8s.io/apimachinery's
// util/json.Unmarshal makes of the object's JSON.
func TestUnstructuredIsUtilJSON(t *testing.T) {
	for _, src := range unstructuredSeeds {
		checkUnstructured(t, []byte(src))
	}
}

// FuzzUnstructured holds Unstructured to util/json.Unmarshal of JSON on
// any input Parse reads.
func FuzzUnstructured(f *testing.F) {
	for _, s := range unstructuredSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkUnstructured(t, data) })
}

func checkUnstructured(t *testing.T, data []byte) {
	objs, err := Parse("in.yaml", data, Limits{MaxFileBytes: 1 << 16, MaxDepth: 16, MaxAliasNodes: 1000})
	if err != nil {
		return
	}
	for _, o := range objs {
		js, jerr := o.JSON()
		u, uerr := o.Unstructured()
		if jerr != nil {
			if uerr == nil {
				t.Errorf("%s: JSON fails (%v), Unstructured does not", o, jerr)
			}
			continue
		}
		var want map[string]any
		if err := utiljson.Unmarshal(js, &want); err != nil {
			continue // a number util/json refuses (out of float64 range)
		}
		if uerr != nil {
			t.Errorf("%s: Unstructured: %v", o, uerr)
			continue
		}
		if !reflect.DeepEqual(u, want) {
			t.Errorf("%s:\n Unstructured %#v\n util/json    %#v", o, u, want)
		}
	}
}
