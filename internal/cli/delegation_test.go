package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestDelegationToNothingFailsClosed (issue 16): a delegating backendRef
// that selects no route it can serve — none exists, the parent itself, a
// child that names other parents, a child with no rule within the parent's
// match — answers 500 on the parent's match instead of
// falling through, sets ResolvedRefs=False, and explain says why.
func TestDelegationToNothingFailsClosed(t *testing.T) {
	in := []string{"-f", "testdata/lint/_base.yaml", "-f", "testdata/lint/GWP211.yaml"}
	out, stderr, code := run(t, append([]string{"render", "--type", "route", "-o", "json"}, in...)...)
	if code != ExitOK {
		t.Fatalf("render: exit %d: %s", code, stderr)
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	got := directResponses(doc, "direct_response", "path_separated_prefix")
	want := []string{"/ghost 500", "/other 500", "/self 500", "/stray 500"}
	if diff := cmp.Diff(want, slices.Compact(got)); diff != "" {
		t.Errorf("500 routes (-want +got):\n%s", diff)
	}
	out, _, _ = run(t, append([]string{"status", "-o", "json"}, in...)...)
	if !strings.Contains(out, `gateway.networking.k8s.io/HTTPRoute/app/ghost: unresolved reference`) || !strings.Contains(out, `"BackendNotFound"`) {
		t.Errorf("status has no ResolvedRefs=False/BackendNotFound for the parent:\n%.2000s", out)
	}
	out, _, _ = run(t, append([]string{"explain", "httproute/app/parent"}, in...)...)
	for _, why := range []string{"no HTTPRoute app/ghost", "it selects only the parent HTTPRoute/app/parent itself", "HTTPRoute/app/loyal does not accept"} {
		if !strings.Contains(out, "answers 500 to every request: GWP211: its backendRef delegates to no route: "+why) {
			t.Errorf("explain does not say the rule answers 500 because %q:\n%s", why, out)
		}
	}
}

// TestDelegationUnresolvedConformance compares gwpol with kgateway's
// delegation-unresolved_ref golden: the same matches answer 500, and the
// routes report the same unresolved references.
func TestDelegationUnresolvedConformance(t *testing.T) {
	dir := "../../../shared/conformance/kgateway/more/delegation-unresolved_ref"
	golden, err := os.ReadFile(filepath.Join(dir, "output.yaml"))
	if err != nil {
		t.Skipf("conformance data absent (%v): not compared", err)
	}
	var want any
	if err := yaml.Unmarshal(golden, &want); err != nil {
		t.Fatal(err)
	}
	input := filepath.Join("../shared/conformance/kgateway/more/delegation-unresolved_ref", "input.yaml")
	out, stderr, code := run(t, "render", "-f", input, "--type", "route", "-o", "json")
	if code != ExitOK {
		t.Fatalf("render: exit %d: %s", code, stderr)
	}
	var got any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(directResponses(want, "directResponse", "pathSeparatedPrefix"), directResponses(got, "direct_response", "path_separated_prefix")); diff != "" {
		t.Errorf("direct responses (-kgateway +gwpol):\n%s", diff)
	}
	out, _, _ = run(t, "status", "-f", input, "-o", "json")
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(unresolved(want), unresolved(got)); diff != "" {
		t.Errorf("unresolved references (-kgateway +gwpol):\n%s", diff)
	}
}

// directResponses lists "path status" for every route object (found
// anywhere in v) answering with a direct response, sorted.
func directResponses(v any, drKey, pathKey string) []string {
	var out []string
	walk(v, func(m map[string]any) {
		dr, ok := m[drKey].(map[string]any)
		if !ok {
			return
		}
		match, _ := m["match"].(map[string]any)
		path, _ := match[pathKey].(string)
		status, _ := dr["status"].(float64)
		out = append(out, path+" "+strings.TrimSuffix(strings.TrimSuffix(jsonNumber(status), ".0"), ".00"))
	})
	slices.Sort(out)
	return out
}

// unresolved lists the messages of ResolvedRefs=False conditions, sorted.
func unresolved(v any) []string {
	var out []string
	walk(v, func(m map[string]any) {
		if m["type"] == "ResolvedRefs" && m["status"] == "False" {
			msg, _ := m["message"].(string)
			reason, _ := m["reason"].(string)
			out = append(out, reason+": "+msg)
		}
	})
	slices.Sort(out)
	return slices.Compact(out)
}

func walk(v any, visit func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		visit(x)
		for _, k := range slices.Sorted(mapsKeys(x)) {
			walk(x[k], visit)
		}
	case []any:
		for _, e := range x {
			walk(e, visit)
		}
	}
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}
