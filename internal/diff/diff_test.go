package diff_test

import (
	"os"
	"testing"

	"github.com/gwpol/gwpol/internal/diff"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/pipeline"
)

func compile(t *testing.T, path string) *merge.Result {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := manifest.Parse(path, data, manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"}).Result
}

func TestCompare(t *testing.T) {
	old, new := compile(t, "../../testdata/diff/old.yaml"), compile(t, "../../testdata/diff/new.yaml")
	if n := len(diff.Compare(old, old).Changes); n != 0 {
		t.Errorf("a set against itself: %d changes", n)
	}
	kinds := map[string]int{}
	for _, c := range diff.Compare(old, new).Changes {
		kinds[c.Kind]++
	}
	back := map[string]int{}
	for _, c := range diff.Compare(new, old).Changes {
		back[c.Kind]++
	}
	// Reversing the sides swaps added and removed and keeps changed.
	if kinds["added"] != back["removed"] || kinds["removed"] != back["added"] || kinds["changed"] != back["changed"] || kinds["added"] == 0 || kinds["changed"] == 0 {
		t.Errorf("old→new %v, new→old %v", kinds, back)
	}
}
