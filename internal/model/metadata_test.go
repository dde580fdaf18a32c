package model

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
)

// TestMetadataProblemsAgreeWithTheLibrary: metadataProblems answers "no
// problem" without ValidateObjectMeta when the name and namespace pass
// their rules; on every name and namespace here, for each name rule and
// both scopes, its answer is the library's.
func TestMetadataProblemsAgreeWithTheLibrary(t *testing.T) {
	names := []string{"", "a", "web-1", "web.example", "Web", "1abc", "-a", "a-", "a..b", "a/b", "a_b", "x.", ".x",
		strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a.", 126) + "a", strings.Repeat("a", 254), "gw\n", "é"}
	kinds := []GroupKind{{Group: CoreGroup, Kind: "Service"}, {Group: CoreGroup, Kind: "Namespace"}, {Group: CoreGroup, Kind: "Secret"},
		{Group: GatewayGroup, Kind: "HTTPRoute"}, {Group: "gateway.kgateway.dev", Kind: "TrafficPolicy"}}
	checked := 0
	for _, gk := range kinds {
		for _, namespaced := range []bool{true, false} {
			for _, name := range names {
				for _, ns := range names {
					if !namespaced && ns != "" {
						continue // a cluster-scoped object's namespace is not checked
					}
					o := &manifest.Object{Name: name, Namespace: ns}
					want := ns
					if namespaced && want == "" {
						want = "default"
					}
					got, lib := metadataProblems(o, gk, namespaced), objectMetaProblems(name, want, gk, namespaced)
					if len(got) == 0 && len(lib) == 0 {
						checked++
						continue
					}
					if !reflect.DeepEqual(got, lib) {
						t.Errorf("%v namespaced=%v name %q namespace %q: %v, library %v", gk, namespaced, name, ns, got, lib)
					}
					checked++
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d cases", checked)
	}
}
