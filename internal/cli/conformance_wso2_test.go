package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// wso2CasesDir holds WSO2 API Platform's gateway integration scenarios,
// beside the repository (../shared/conformance/wso2/README.md).
const wso2CasesDir = "../../../shared/conformance/wso2/cases"

// wso2Case is the part of a case's case.json and expected.json the
// comparison reads.
type wso2Case struct {
	Definitions    string `json:"definitions"`
	EngineManifest string `json:"engineManifest"`
}

type wso2Expected struct {
	Accepted bool `json:"accepted"`
}

// divergenceSection reads one "# NAME" section of
// testdata/conformance-divergences.txt: the "case: reason" lines between
// that heading and the next one-word heading. Each conformance set keeps
// its own section, so two sets can never excuse each other's cases; the
// lines before the first heading are section "".
func divergenceSection(t *testing.T, section string) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open("../../testdata/conformance-divergences.txt")
	if err != nil {
		return out
	}
	defer f.Close()
	in := section == ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if head, ok := strings.CutPrefix(line, "# "); ok && !strings.ContainsAny(head, " :") {
			in = head == section
			continue
		}
		if !in || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, ":")
		out[strings.TrimSpace(name)] = strings.TrimSpace(reason)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// errorFindings runs lint on one case the way the WSO2 README says users
// run it and returns its error findings as "CODE FIELD: MESSAGE".
func errorFindings(t *testing.T, dir string, c wso2Case) []string {
	t.Helper()
	rep, _ := lintWSO2(t, "-f", filepath.Join(dir, "input.yaml"),
		"--policy-definitions", filepath.Join(dir, c.Definitions),
		"--engine-manifest", filepath.Join(dir, c.EngineManifest), "--fail-on", "none")
	var out []string
	for _, d := range rep.Diagnostics {
		if d.Severity == "error" {
			out = append(out, fmt.Sprintf("%s %s: %s", d.Code, d.Field, d.Message))
		}
	}
	return out
}

// TestConformanceWSO2 compares lint with the outcome WSO2's own
// integration tests assert for each scenario: accepted ⇔ no error
// finding, rejected ⇔ at least one. A case that disagrees fails unless
// testdata/conformance-divergences.txt lists it (section "# wso2") with
// its reason; a listed case that agrees fails too, so the list stays true.
func TestConformanceWSO2(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(wso2CasesDir, "*"))
	if len(dirs) == 0 {
		t.Skipf("WSO2 conformance cases not found at %s (they live in ../shared beside the repository); skipping", wso2CasesDir)
	}
	div := divergenceSection(t, "wso2")
	agree := 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		var c wso2Case
		readJSON(t, filepath.Join(dir, "case.json"), &c)
		var exp wso2Expected
		readJSON(t, filepath.Join(dir, "expected.json"), &exp)
		errs := errorFindings(t, dir, c)
		agrees := exp.Accepted == (len(errs) == 0)
		if agrees {
			agree++
		}
		reason, listed := div[name]
		switch {
		case agrees && listed:
			t.Errorf("%s agrees now; remove it from testdata/conformance-divergences.txt (listed: %s)", name, reason)
		case !agrees && !listed && exp.Accepted:
			t.Errorf("%s: accepted upstream, gwpol reports errors:\n  %s", name, strings.Join(errs, "\n  "))
		case !agrees && !listed:
			t.Errorf("%s: rejected upstream, gwpol reports no error", name)
		}
	}
	t.Logf("wso2: %d/%d scenarios agree", agree, len(dirs))
	fmt.Printf("wso2: %d/%d scenarios agree\n", agree, len(dirs))
}
