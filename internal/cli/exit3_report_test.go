package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReportOnExit3: a directory holding only a Helm chart has no
// Kubernetes object, so lint exits 3 — and still writes a complete report
// in every format: a SARIF log that validates, names the skipped files
// (GWP107, GWP108) and says in a notification why the run failed; JSON
// likewise; GitHub commands with an ::error for the run. An input path
// that does not exist is the same.
func TestReportOnExit3(t *testing.T) {
	const dir = "testdata/helm-only"
	sarifOut, stderr, code := run(t, "lint", "-f", dir, "-o", "sarif")
	if code != ExitInput {
		t.Fatalf("exit %d, want 3; stderr: %s", code, stderr)
	}
	validateSARIF(t, []byte(sarifOut))
	var log struct {
		Runs []struct {
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct{ Message struct{ Text string } }
			}
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct{ ArtifactLocation struct{ URI string } }
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(sarifOut), &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("SARIF: %v", err)
	}
	r := log.Runs[0]
	got := map[string]string{}
	for _, res := range r.Results {
		got[res.RuleID] = res.Locations[0].PhysicalLocation.ArtifactLocation.URI
	}
	if got["GWP107"] != dir+"/chart/Chart.yaml" || got["GWP108"] != dir+"/chart/templates/service.yaml" {
		t.Errorf("SARIF results %v, want GWP107 at Chart.yaml and GWP108 at the template", got)
	}
	if len(r.Invocations) != 1 || r.Invocations[0].ExecutionSuccessful || len(r.Invocations[0].ToolExecutionNotifications) != 1 ||
		!strings.Contains(r.Invocations[0].ToolExecutionNotifications[0].Message.Text, "no Kubernetes objects found") {
		t.Errorf("SARIF invocations %+v, want one failed run with the reason", r.Invocations)
	}

	jsonOut, _, code := run(t, "lint", "-f", dir, "-o", "json")
	var rep jsonReport
	if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil || code != ExitInput {
		t.Fatalf("JSON (exit %d): %v\n%s", code, err, jsonOut)
	}
	if len(rep.Diagnostics) != 2 || len(rep.Notifications) != 1 || rep.Notifications[0].Level != "error" {
		t.Errorf("JSON report %+v, want the two findings and one notification", rep)
	}

	gh, _, code := run(t, "lint", "-f", dir, "-o", "github")
	if code != ExitInput || !strings.HasPrefix(gh, "::error title=gwpol::no Kubernetes objects found") || !strings.Contains(gh, "title=GWP108::") {
		t.Errorf("github (exit %d):\n%s", code, gh)
	}

	sarifOut, _, code = run(t, "lint", "-f", "testdata/no-such-dir", "-o", "sarif")
	if code != ExitInput {
		t.Fatalf("missing path: exit %d, want 3", code)
	}
	validateSARIF(t, []byte(sarifOut))
	if !strings.Contains(sarifOut, "no-such-dir") {
		t.Errorf("SARIF for a missing path does not name it:\n%s", sarifOut)
	}
}
