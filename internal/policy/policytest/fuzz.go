// Package policytest holds what the policy kinds' tests share: the fuzz
// harness every kind's decoder runs under, and the check that each of a
// kind's fields has a one-feature render fixture. It is no stage of the
// pipeline: tests of the policy stage import it, and it imports policy,
// model, manifest and diag.
package policytest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// FuzzFile is the file name fuzzed documents are parsed as.
const FuzzFile = "fuzz.yaml"

// AddSeeds adds every file matching the globs (relative to the calling
// package) to the corpus.
func AddSeeds(f *testing.F, globs ...string) {
	for _, g := range globs {
		paths, _ := filepath.Glob(g)
		for _, p := range paths {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
}

// FuzzDecode runs each kind's decoder on every object of that kind in
// arbitrary YAML (several kinds share a target when one package holds
// them): it may find the policy invalid but must not panic, must
// return a policy, and every finding must name a position in the input
// and say something. Both validation modes are tried, since Strict checks
// more.
func FuzzDecode(f *testing.F, kinds ...policy.Kind) {
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Parse(FuzzFile, data, manifest.Limits{MaxDepth: 32, MaxAliasNodes: 1000})
		if err != nil {
			return // unparseable input is the manifest fuzzers' concern
		}
		set := &manifest.Set{Objects: objs}
		reg := policy.NewRegistry(kinds...)
		m := model.Build(set, model.Options{Extra: reg.GroupKinds()})
		for _, mode := range []string{"Standard", "Strict"} {
			// Strict runs with a deployment's optional services too (Envoy
			// Gateway's rate limit service), so that the checks they
			// enable run.
			env := &policy.Env{Model: m, Config: policy.Config{Values: map[string]any{
				"validationMode": mode, "referenceGrantMode": "Strict", "envoyGateway.rateLimit.enabled": mode == "Strict"}}}
			// Through the registry, as the pipeline decodes: the hooks
			// it hands every decoder (Env.BackendPolicies) are set.
			reg.Decode(env)
			for _, k := range kinds {
				decodeAll(t, k, objs, env)
			}
		}
	})
}

// decodeAll decodes every object of k's kind and checks the result.
func decodeAll(t *testing.T, k policy.Kind, objs []*manifest.Object, env *policy.Env) {
	gk := k.GroupKind()
	for _, o := range objs {
		if o.Group != gk.Group || o.Kind != gk.Kind {
			continue
		}
		p := k.Decode(o, env)
		if p == nil {
			t.Fatalf("%s: Decode returned no policy", o.Ref())
		}
		for _, list := range [][]diag.Diagnostic{p.Invalid, p.Warnings, p.Findings} {
			for _, d := range list {
				if d.Pos.File != FuzzFile || d.Pos.Line < 1 || d.Pos.Col < 1 || d.Message == "" {
					t.Fatalf("%s: finding without a position or message: %+v", o.Ref(), d)
				}
			}
		}
	}
}
