package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifSchema is the OASIS SARIF 2.1.0 schema, vendored (see its README).
const sarifSchema = "../../testdata/sarif/sarif-2.1.0-rtm.5.json"

func validateSARIF(t *testing.T, log []byte) {
	t.Helper()
	if err := checkSARIF(log); err != nil {
		t.Fatalf("SARIF output fails the 2.1.0 schema: %v", err)
	}
	// The schema must bite: the same log with a level SARIF does not
	// define is rejected.
	if err := checkSARIF(bytes.Replace(log, []byte(`"level": "error"`), []byte(`"level": "fatal"`), 1)); err == nil {
		t.Fatal("the schema accepted level \"fatal\"; is it the SARIF schema?")
	}
}

func checkSARIF(log []byte) error {
	sch, err := jsonschema.NewCompiler().Compile(sarifSchema)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}

// TestSARIFForCodeScanning: the log validates against the SARIF 2.1.0
// schema and carries what code-scanning UIs show: rule help links, the
// tool's version, relative percent-encoded artifact URIs, and suppressed
// findings marked as such (by the annotation: inSource; by the config:
// external).
func TestSARIFForCodeScanning(t *testing.T) {
	dir, err := os.MkdirTemp("../..", "sarif-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	doc := `apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata:
  name: orphan
  namespace: shop
  annotations:
    gwpol.dev/ignore: GWP201
spec:
  targetRefs:
  - group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: nowhere
  timeouts:
    request: 5s
`
	if err := os.WriteFile(filepath.Join(dir, "my policies.yaml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "gwpol.yaml")
	if err := os.WriteFile(cfg, []byte("lint:\n  ignore:\n  - code: GWP303\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel := filepath.Base(dir)
	out, errOut, code := run(t, "lint", "-f", "testdata/examples", "-f", rel, "--config", cfg, "-o", "sarif")
	if code != ExitFindings {
		t.Fatalf("exit %d (stderr %q), want 1", code, errOut)
	}
	validateSARIF(t, []byte(out))
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Version string `json:"version"`
					Rules   []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					Physical struct {
						Artifact struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Suppressions []struct {
					Kind string `json:"kind"`
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil {
		t.Fatal(err)
	}
	r := log.Runs[0]
	if r.Tool.Driver.Version == "" {
		t.Error("driver.version is empty")
	}
	for _, rule := range r.Tool.Driver.Rules {
		if rule.HelpURI != ruleHelpURI(rule.ID) || !strings.HasSuffix(rule.HelpURI, "#"+strings.ToLower(rule.ID)) {
			t.Errorf("rule %s helpUri %q", rule.ID, rule.HelpURI)
		}
	}
	kinds := map[string]string{}
	for _, res := range r.Results {
		a := res.Locations[0].Physical.Artifact
		if a.URIBaseID != srcRoot || strings.HasPrefix(a.URI, "/") || strings.Contains(a.URI, " ") {
			t.Errorf("%s: artifact %+v is not a relative percent-encoded URI under %s", res.RuleID, a, srcRoot)
		}
		if strings.Contains(a.URI, "my%20policies.yaml") {
			kinds["encoded"] = "yes"
		}
		for _, s := range res.Suppressions {
			kinds[res.RuleID] = s.Kind
		}
	}
	if kinds["GWP201"] != "inSource" || kinds["GWP303"] != "external" || kinds["encoded"] != "yes" {
		t.Errorf("suppressions/encoding = %v, want GWP201 inSource, GWP303 external, my%%20policies.yaml encoded", kinds)
	}
}
