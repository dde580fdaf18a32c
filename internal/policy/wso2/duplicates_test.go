package wso2

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policyversion"
)

// TestAPILevelDuplicatesRunTheLast: the gateway-controller builds every
// operation's chain from a name-keyed map of the API-level policies
// (pkg/policy/builder.go: DerivePolicyFromAPIConfig, apiPolicies[p.Name],
// at 1c84e11c), so a name listed more than once at API level runs its
// last listing — its version, params and execution condition — at every
// place it is listed; operation and rule levels, and the system policies
// before them, run every reference as written. Effective is the one
// place render and explain read the chain from.
func TestAPILevelDuplicatesRunTheLast(t *testing.T) {
	defs := policyversion.NewDefinitions(
		policyversion.NewDefinition("set-headers", "v1.0.0", nil, diag.Position{}),
		policyversion.NewDefinition("set-headers", "v2.1.0", nil, diag.Position{}),
		policyversion.NewDefinition("cors", "v1.0.2", nil, diag.Position{}),
	)
	ref := func(name, version, params, path string) *Reference {
		return &Reference{Name: name, Version: version, Params: json.RawMessage(params), Path: path, Resolution: defs.Resolve(name, version)}
	}
	chain := func(level Level, source string, refs ...*Reference) *Chain {
		return &Chain{Level: level, Source: source, Refs: refs}
	}
	const rest, aa, zz = "RestApi/shop/orders", "APIPolicy/shop/aa", "APIPolicy/shop/zz"
	tests := []struct {
		name   string
		chains []*Chain
		// want: per entry, identity, definition, params, source and,
		// where another listing runs there, the one listed there.
		want []string
	}{
		{"one object lists a name twice: both run the last",
			[]*Chain{chain(LevelAPI, rest, ref("set-headers", "v1", `{"a":1}`, "spec.policies[0]"), ref("cors", "v1", `{}`, "spec.policies[1]"), ref("set-headers", "v1", `{"a":2}`, "spec.policies[2]"))},
			[]string{
				`set-headers:v1 v1.0.0 {"a":2} RestApi/shop/orders listed RestApi/shop/orders spec.policies[0] GWP510`,
				`cors:v1 v1.0.2 {} RestApi/shop/orders`,
				`set-headers:v1 v1.0.0 {"a":2} RestApi/shop/orders`,
			}},
		{"the last listing's version runs at the first's place",
			[]*Chain{chain(LevelAPI, rest, ref("set-headers", "v1", `{"a":1}`, "spec.policies[0]"), ref("set-headers", "v2", `{"a":2}`, "spec.policies[1]"))},
			[]string{
				`set-headers:v2 v2.1.0 {"a":2} RestApi/shop/orders listed RestApi/shop/orders spec.policies[0] GWP510`,
				`set-headers:v2 v2.1.0 {"a":2} RestApi/shop/orders`,
			}},
		{"two APIPolicies joined in name order: the later object's listing runs",
			[]*Chain{chain(LevelAPI, aa, ref("set-headers", "v1", `{"a":"aa"}`, "spec.policies[0]")), chain(LevelAPI, zz, ref("set-headers", "v1", `{"a":"zz"}`, "spec.policies[0]"))},
			[]string{
				`set-headers:v1 v1.0.0 {"a":"zz"} APIPolicy/shop/zz listed APIPolicy/shop/aa spec.policies[0] GWP510`,
				`set-headers:v1 v1.0.0 {"a":"zz"} APIPolicy/shop/zz`,
			}},
		{"operation-level duplicates run as written",
			[]*Chain{chain(LevelOperation, rest, ref("set-headers", "v1", `{"a":1}`, "spec.operations[0].policies[0]"), ref("set-headers", "v1", `{"a":2}`, "spec.operations[0].policies[1]"))},
			[]string{
				`set-headers:v1 v1.0.0 {"a":1} RestApi/shop/orders`,
				`set-headers:v1 v1.0.0 {"a":2} RestApi/shop/orders`,
			}},
		{"a name at API and at operation level: each runs its own",
			[]*Chain{chain(LevelOperation, rest, ref("set-headers", "v2", `{"op":1}`, "spec.operations[0].policies[0]")), chain(LevelAPI, rest, ref("set-headers", "v1", `{"api":1}`, "spec.policies[0]"))},
			[]string{
				`set-headers:v1 v1.0.0 {"api":1} RestApi/shop/orders`,
				`set-headers:v2 v2.1.0 {"op":1} RestApi/shop/orders`,
			}},
		{"a system policy of the name stays apart",
			[]*Chain{chain(LevelAPI, rest, ref("cors", "v1", `{"api":1}`, "spec.policies[0]")), chain(LevelSystem, SourceConfig, ref("cors", "v1", `{"sys":1}`, "wso2.systemPolicies[0]"))},
			[]string{
				`cors:v1 v1.0.2 {"sys":1} config`,
				`cors:v1 v1.0.2 {"api":1} RestApi/shop/orders`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range Effective(tc.chains...) {
				s := strings.Join([]string{e.Identity, e.Definition, string(e.Params), shortSource(e.Source)}, " ")
				if e.ListedBy != "" {
					s += " listed " + shortSource(e.ListedBy) + " " + e.ListedAt
				}
				if slices.Contains(e.Problems, LintDuplicateAPIPolicy.Code) {
					s += " " + LintDuplicateAPIPolicy.Code
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("chain (-want +got):\n%s", diff)
			}
		})
	}
}
