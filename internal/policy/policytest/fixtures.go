package policytest

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

// FixturesCover keeps "one fixture per feature" true for a kind: each of
// its fields must have a one-feature render fixture under dir (the kind's
// directory under testdata/render), a directory named for the field's
// spec path without "spec." and strip (e.g. rateLimit.local), or for a
// prefix of it. And every fixture directory must name a field, or a
// prefix of one, optionally followed by "-variant" (extAuth-http), so
// that a misspelt directory is found.
func FixturesCover(t *testing.T, k policy.Kind, dir, strip string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("the one-feature fixtures of %s: %v", k.GroupKind().Kind, err)
	}
	var fixtures []string
	for _, e := range entries {
		if e.IsDir() {
			fixtures = append(fixtures, e.Name())
		}
	}
	var paths []string
	for _, f := range k.Spec().Fields {
		p := strings.TrimPrefix(strings.TrimPrefix(f.SpecPath, "spec."), strip)
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	covers := func(fixture, path string) bool {
		return fixture == path || strings.HasPrefix(path, fixture+".")
	}
	for _, p := range paths {
		if !slices.ContainsFunc(fixtures, func(f string) bool { return covers(f, p) }) {
			t.Errorf("%s field %s has no fixture: add %s/%s/input.yaml and run go test ./internal/cli -run TestFeatureFixtures -update", k.GroupKind().Kind, p, dir, p)
		}
	}
	for _, f := range fixtures {
		name, _, _ := strings.Cut(f, "-")
		if !slices.ContainsFunc(paths, func(p string) bool { return covers(name, p) || strings.HasPrefix(name, p+".") }) {
			t.Errorf("%s/%s names no %s field (want a spec path such as %s, optionally with a -variant suffix)", dir, f, k.GroupKind().Kind, paths[0])
		}
	}
}
