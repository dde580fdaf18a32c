package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAssumeExist: objects kept outside the repository. Without
// assumeExist the missing certificate Secret (GWP216) and backend Service
// (GWP217) are findings and render answers 500; with the kinds declared,
// by flag or by config, the references resolve in lint, status and render.
func TestAssumeExist(t *testing.T) {
	const in = "testdata/assume/platform.yaml"
	codes := func(args ...string) []string {
		t.Helper()
		out, stderr, _ := run(t, append([]string{"lint", "-f", in, "-o", "json", "--fail-on", "none"}, args...)...)
		var rep jsonReport
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("lint -o json: %v\n%s%s", err, out, stderr)
		}
		var got []string
		for _, d := range rep.Diagnostics {
			got = append(got, d.Code)
		}
		return got
	}
	if got := codes(); !slices.Contains(got, "GWP216") || !slices.Contains(got, "GWP217") {
		t.Errorf("without assumeExist: codes %v, want GWP216 and GWP217", got)
	}
	if got := codes("--assume-exist", "Secret", "--assume-exist", "service"); len(got) != 0 {
		t.Errorf("--assume-exist Secret --assume-exist service: codes %v, want none", got)
	}
	if got := codes("--assume-exist", "Secret"); slices.Contains(got, "GWP216") || !slices.Contains(got, "GWP217") {
		t.Errorf("--assume-exist Secret: codes %v, want GWP217 only", got)
	}

	cfg := filepath.Join(t.TempDir(), "gwpol.yaml")
	if err := os.WriteFile(cfg, []byte("assumeExist: [Secret, Service]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := codes("--config", cfg); len(got) != 0 {
		t.Errorf("config assumeExist: codes %v, want none", got)
	}
	render, _, code := run(t, "render", "-f", in, "--config", cfg, "--type", "route")
	if code != 0 || strings.Contains(render, "blackhole-cluster") || !strings.Contains(render, "kube_shop_storefront_8080") {
		t.Errorf("render with assumeExist (exit %d) does not forward to the assumed Service:\n%s", code, render)
	}
	status, _, _ := run(t, "status", "-f", in, "--config", cfg, "-o", "json")
	if strings.Contains(status, "BackendNotFound") || strings.Contains(status, "InvalidCertificateRef") {
		t.Errorf("status with assumeExist still reports a missing object:\n%s", status)
	}

	_, stderr, code := run(t, "lint", "-f", in, "--assume-exist", "Secrets")
	if code != ExitUsage || !strings.Contains(stderr, `"Secrets" is not a kind gwpol can assume`) || !strings.Contains(stderr, "did you mean Secret?") {
		t.Errorf("--assume-exist Secrets: exit %d, stderr %q; want a usage error with a suggestion", code, stderr)
	}
}
