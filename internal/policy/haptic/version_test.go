package haptic_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestUnwatchedVersion: HAPTIC watches HAProxyRoutePolicies at
// haproxy-haptic.org/v1alpha1 alone (gateway-policies/_index.yaml@a7ac8a15:
// watchedResources), so an object of another version is one it never
// reads: a rule naming it fails closed as for a missing policy,
// ResolvedRefs False/PolicyNotFound — and a rule beside it naming a
// v1alpha1 policy of the same route is served. Before, gwpol read any
// version of the kind and served the rule under it.
func TestUnwatchedVersion(t *testing.T) {
	policyAt := func(version, name string) string {
		return "---\napiVersion: haproxy-haptic.org/" + version + "\nkind: HAProxyRoutePolicy\nmetadata: {name: " + name + ", namespace: shop}\nspec: {rateLimit: {requests: 10}}\n"
	}
	pol := func(name string) string { return ref("haproxy-haptic.org", "HAProxyRoutePolicy", name) }
	for _, tc := range []struct {
		name  string
		rules []string
		extra string
		want  [3]string // Accepted, ResolvedRefs, PartiallyInvalid as routeConditions gives them
	}{
		{"a v1 policy: not found", []string{rule([]string{pol("later")})}, policyAt("v1", "later"),
			[3]string{"False/UnsupportedValue", "False/PolicyNotFound", ""}},
		{"a v1beta1 policy beside a v1alpha1 one: that rule alone fails", []string{rule([]string{pol("beta")}), rule([]string{pol("ok")})}, policyAt("v1beta1", "beta"),
			[3]string{"True/", "False/PolicyNotFound", "True/UnsupportedValue"}},
		{"the watched version: served", []string{rule([]string{pol("alpha")})}, policyAt("v1alpha1", "alpha"),
			[3]string{"True/", "True/", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := referenceBase
			for _, r := range tc.rules {
				in += r
			}
			in += tc.extra
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
				t.Fatal(err)
			}
			got := routeConditions(t, file)
			if g := [3]string{got["Accepted"], got["ResolvedRefs"], got["PartiallyInvalid"]}; g != tc.want {
				t.Errorf("route conditions %v, want %v", g, tc.want)
			}
		})
	}
}
