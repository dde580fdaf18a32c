package cli

import (
	"strings"
	"testing"
)

// TestDiffReadsPolicyVersions: diff compiles both sides with the WSO2
// policy definitions and engine build the config or flags name, as every
// other command does, so a definitions directory that does not parse is an
// input error naming its file and position (exit 3), not silently ignored
// (before, diff compiled without them and said "no changes", exit 0).
func TestDiffReadsPolicyVersions(t *testing.T) {
	for _, tc := range []struct {
		name string
		defs string
		code int
		want string
	}{
		{"definitions that parse", "testdata/wso2/defs", 0, "no changes"},
		{"definitions that do not parse", "testdata/wso2/defs-broken", 3, "testdata/wso2/defs-broken/policy-definition.yaml:6:5: invalid YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, "diff", "testdata/diff/old.yaml", "testdata/diff/old.yaml",
				"--policy-definitions", tc.defs, "--engine-manifest", "testdata/wso2/build-manifest.yaml")
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("exit %d, want %d; output does not say %q:\n%s%s", code, tc.code, tc.want, out, errOut)
			}
		})
	}
}
