package cli

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// TestBackendTLSPolicyJudgedByItsUsers: a BackendTLSPolicy is judged by
// the controllers that use it (policy.Family.ForeignJudges, settled once in
// attach), and lint, status and render say the same — per Gateway when the
// controllers disagree: each applies it by its own verdict
// (attach.Result.RefusedBy, merge.Result.BackendOn). In the first three
// fixtures its CA ConfigMap holds only tls.crt, which Envoy Gateway reads
// and kgateway refuses; in mixed-second-ref its second CA reference names
// no ConfigMap, which kgateway never reads (the first one only) and Envoy
// Gateway refuses. Before, a policy the users disagreed on was refused on
// every Gateway.
func TestBackendTLSPolicyJudgedByItsUsers(t *testing.T) {
	const egName, kgName = "gateway.envoyproxy.io/gatewayclass-controller", "kgateway.dev/kgateway"
	const egCA, kgCA = "${configmap:default/ca#tls.crt}", "${configmap:default/ca#ca.crt}"
	for _, tc := range []struct {
		fixture string
		lint    string            // "" when lint finds nothing; else a part of the GWP401 message
		status  map[string]string // Gateway → controllerName and Accepted reason
		tls     map[string]string // Gateway → the CA its rendered clusters trust, "" when none does
	}{
		{fixture: "envoygateway", status: map[string]string{"eg-gw": egName + " Accepted"}, tls: map[string]string{"eg-gw": egCA}},
		{fixture: "kgateway", lint: "GWP401  invalid CA certificate ref ConfigMap/ca", status: map[string]string{"kg-gw": kgName + " NoValidCACertificate"}, tls: map[string]string{"kg-gw": ""}},
		{fixture: "mixed", lint: "GWP401  kgateway.dev/kgateway refuses it (other controllers using it accept it",
			status: map[string]string{"eg-gw": egName + " Accepted", "kg-gw": kgName + " NoValidCACertificate"}, tls: map[string]string{"eg-gw": egCA, "kg-gw": ""}},
		{fixture: "mixed-second-ref", lint: "GWP401  gateway.envoyproxy.io/gatewayclass-controller refuses it (other controllers using it accept it",
			status: map[string]string{"eg-gw": egName + " NoValidCACertificate", "kg-gw": kgName + " Accepted"}, tls: map[string]string{"eg-gw": "", "kg-gw": kgCA}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			in := "testdata/backendtls-judged/" + tc.fixture + ".yaml"
			out, errOut, code := run(t, "lint", "-f", in)
			if tc.lint == "" && (code != 0 || strings.Contains(out, "GWP401")) {
				t.Errorf("lint: exit %d, want 0 and no GWP401:\n%s%s", code, out, errOut)
			}
			if tc.lint != "" && (code != 1 || !strings.Contains(out, tc.lint)) {
				t.Errorf("lint: exit %d, want 1 with %q:\n%s%s", code, tc.lint, out, errOut)
			}
			if got := btpAncestors(t, in); !maps.Equal(got, tc.status) {
				t.Errorf("status: %v, want %v", got, tc.status)
			}
			for gw, want := range tc.tls {
				rendered, _, _ := run(t, "render", "-f", in, "-o", "json", "--gateway", "default/"+gw)
				if got := renderedCA(rendered); got != want {
					t.Errorf("render %s: CA %q, want %q", gw, got, want)
				}
			}
		})
	}
}

// btpAncestors are the BackendTLSPolicy's ancestors in status: Gateway →
// controllerName and the Accepted condition's reason.
func btpAncestors(t *testing.T, in string) map[string]string {
	t.Helper()
	out, errOut, code := run(t, "status", "-f", in, "-o", "json")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	var rep struct {
		Policies []struct {
			Kind      string
			Ancestors []struct {
				AncestorRef    struct{ Name string } `json:"ancestorRef"`
				ControllerName string                `json:"controllerName"`
				Conditions     []struct{ Type, Reason string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, p := range rep.Policies {
		if p.Kind != "BackendTLSPolicy" {
			continue
		}
		for _, a := range p.Ancestors {
			for _, c := range a.Conditions {
				if c.Type == "Accepted" {
					got[a.AncestorRef.Name] = a.ControllerName + " " + c.Reason
				}
			}
		}
	}
	return got
}

// renderedCA is the trusted CA of the first cluster with one, "" when none.
func renderedCA(out string) string {
	const key = `"trusted_ca":{"inline_string":"`
	compact := strings.Join(strings.Fields(out), "")
	i := strings.Index(compact, key)
	if i < 0 {
		return ""
	}
	rest := compact[i+len(key):]
	return rest[:strings.IndexByte(rest, '"')]
}
