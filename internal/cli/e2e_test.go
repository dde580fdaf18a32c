package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	goldenfile "github.com/gwpol/gwpol/internal/golden"
	yaml "go.yaml.in/yaml/v3"
)

// goldens is testdata/golden: every file in it is checked by one of these
// tests, so a golden no test writes any more is an orphan (-update removes
// it).
var goldens = goldenfile.Own([]string{"../../testdata/golden"}, nil,
	"TestGoldenE2E", "TestRenderScoping", "TestExplainFitsTerminal", "TestMixedRepository", "TestStatusSummaryAndScope")

// gwpolBin is built once for the end-to-end tests.
var gwpolBin string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "gwpol-e2e")
	if err != nil {
		panic(err)
	}
	gwpolBin = filepath.Join(dir, "gwpol")
	if runtime.GOOS == "windows" {
		gwpolBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", gwpolBin, "../../cmd/gwpol")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building gwpol: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run executes the built binary in the repository root.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runEnv(t, nil, args...)
}

// runEnv is run with extra environment variables.
func runEnv(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(gwpolBin, args...)
	cmd.Dir = "../.."
	cmd.Env = append(append(os.Environ(), "NO_COLOR=1"), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code
}

// golden checks got against testdata/golden/NAME (-update rewrites it).
// The test calling it must be one of the owners of goldens and have
// called goldens.Start.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldens.Check(t, filepath.Join("../../testdata/golden", name), []byte(got))
}

// TestGoldenE2E runs the binary on the example platform and compares every
// output with its golden file, including the exit code.
func TestGoldenE2E(t *testing.T) {
	goldens.Start(t)
	ex := "testdata/examples"
	// The HAPTIC features the examples' HAProxyRoutePolicies show need
	// their chart switches on (the chart's defaults have them off, which
	// lint.txt shows); the goldens about those features run with them on.
	hapticDeployment := "testdata/haptic-deployment.gwpol.yaml"
	const (
		base          = "testdata/base/platform.yaml"
		ctpConflicted = "testdata/render/clienttrafficpolicy/conflicted/input.yaml"
		btpConflicted = "testdata/render/backendtrafficpolicy/conflicted/input.yaml"
	)
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"status.json", []string{"status", "-f", ex, "-o", "json"}, 0},
		{"status.yaml", []string{"status", "-f", ex}, 0},
		{"lint.txt", []string{"lint", "-f", ex}, 1},
		{"lint.json", []string{"lint", "-f", ex, "-o", "json"}, 1},
		{"lint.sarif", []string{"lint", "-f", ex, "-o", "sarif"}, 1},
		{"lint.github", []string{"lint", "-f", ex, "-o", "github"}, 1},
		{"lint-failon-none.json", []string{"lint", "-f", ex, "-o", "json", "--fail-on", "none"}, 0},
		{"explain-orders.txt", []string{"explain", "httproute/shop/orders", "-f", ex}, 0},
		{"explain-orders.json", []string{"explain", "httproute/shop/orders", "-f", ex, "-o", "json", "--show-values"}, 0},
		{"explain-storefront-assets.txt", []string{"explain", "-n", "shop", "httproute/storefront/assets", "-f", ex}, 0},
		{"explain-gateway-https.json", []string{"explain", "gateway/infra/public/https", "-f", ex, "-o", "json"}, 0},
		{"explain-deep-merge.txt", []string{"explain", "httproute/app/api", "-f", "testdata/explain/deep-merge.yaml"}, 0},
		{"explain-delegated-child.txt", []string{"explain", "httproute/docs/docs-v1", "-f", ex}, 0},
		{"explain-delegated-child.json", []string{"explain", "httproute/docs/docs-v1/v1", "-f", ex, "-o", "json"}, 0},
		{"explain-haproxy-rule.txt", []string{"explain", "httproute/api/accounts/profile", "-f", ex, "--config", hapticDeployment}, 0},
		// waf is HAPTIC's: under kgateway render answers 503, and explain says so.
		{"explain-unsupported-by-target.txt", []string{"explain", "httproute/api/accounts/signup", "-f", ex, "--target", "kgateway", "--config", hapticDeployment}, 0},
		{"explain-decide.txt", []string{"explain", "httproute/app/api", "-f", "testdata/explain/decide.yaml"}, 0},
		{"explain-decide.json", []string{"explain", "httproute/app/api", "-f", "testdata/explain/decide.yaml", "-o", "json"}, 0},
		{"explain-policy.txt", []string{"explain", "trafficpolicy/infra/edge-defaults", "-f", ex}, 0},
		{"explain-policy.json", []string{"explain", "trafficpolicies/infra/edge-defaults", "-f", ex, "-o", "json"}, 0},
		{"explain-policy-lost.txt", []string{"explain", "-n", "shop", "trafficpolicy/orders-retry-b", "-f", ex}, 0},
		{"explain-policy-haproxy.txt", []string{"explain", "haproxyroutepolicy/api/short-cache", "-f", ex, "--config", hapticDeployment}, 0},
		{"explain-policy-inherited.txt", []string{"explain", "trafficpolicy/infra/docs-platform", "-f", ex}, 0},
		{"explain-policy-unreached.txt", []string{"explain", "trafficpolicy/payments/refunds-timeout", "-f", ex}, 0},
		{"explain-fixed-status.txt", []string{"explain", "httproute/sandbox/playground/borrowed", "-f", ex}, 0},
		{"explain-service-ledger.txt", []string{"explain", "service/infra/ledger", "-f", ex}, 0},
		{"explain-service-checkout.json", []string{"explain", "svc/payments/checkout", "-f", ex, "-o", "json", "--field", "validation"}, 0},
		{"explain-field-prefix.txt", []string{"explain", "httproute/shop/orders/create", "-f", ex, "--field", "rateLimit"}, 0},
		{"diff.txt", []string{"diff", "testdata/diff/old.yaml", "testdata/diff/new.yaml"}, 0},
		{"diff.json", []string{"diff", "testdata/diff/old.yaml", "testdata/diff/new.yaml", "-o", "json", "--exit-code"}, 1},
		{"diff-leaf.txt", []string{"diff", "testdata/diff/leaf-old.yaml", "testdata/diff/leaf-new.yaml", "--exit-code"}, 1},
		{"diff-leaf.json", []string{"diff", "testdata/diff/leaf-old.yaml", "testdata/diff/leaf-new.yaml", "-o", "json"}, 0},
		{"diff-none.txt", []string{"diff", "testdata/diff/old.yaml", "testdata/diff/old.yaml", "--exit-code"}, 0},
		{"graph.dot", []string{"graph", "-f", "testdata/diff/new.yaml"}, 0},
		{"graph.mmd", []string{"graph", "-f", "testdata/diff/new.yaml", "-o", "mermaid"}, 0},
		{"graph-route-orders.dot", []string{"graph", "-f", ex, "--route", "httproute/shop/orders"}, 0},
		{"graph-sandbox.mmd", []string{"graph", "-f", ex, "-n", "sandbox", "--route", "httproute/playground", "--policy", "trafficpolicy/sandbox/wrong-section", "-o", "mermaid"}, 0},
		{"graph-policy.dot", []string{"graph", "-f", ex, "--policy", "trafficpolicy/infra/https-timeouts"}, 0},
		{"render-public-routes.yaml", []string{"render", "-f", ex, "--gateway", "infra/public", "--type", "route"}, 0},
		// One verdict, every view: a Conflicted policy (and a Gateway's
		// one a listener's replaces) as status, lint and graph show it;
		// render and explain are the fixtures' own goldens.
		{"status-clienttrafficpolicy-conflicted.yaml", []string{"status", "-f", base, "-f", ctpConflicted}, 0},
		{"lint-clienttrafficpolicy-conflicted.txt", []string{"lint", "-f", base, "-f", ctpConflicted}, 0},
		{"graph-clienttrafficpolicy-conflicted.dot", []string{"graph", "-f", base, "-f", ctpConflicted}, 0},
		{"status-backendtrafficpolicy-conflicted.yaml", []string{"status", "-f", base, "-f", btpConflicted}, 0},
		{"lint-backendtrafficpolicy-conflicted.txt", []string{"lint", "-f", base, "-f", btpConflicted}, 0},
		{"graph-backendtrafficpolicy-conflicted.dot", []string{"graph", "-f", base, "-f", btpConflicted}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := run(t, c.args...)
			if code != c.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, c.code, errOut)
			}
			golden(t, c.name, out)
		})
	}
}

// TestExplainBackendNotFound: a Service or port not in the input is a
// usage error naming the nearest one.
func TestExplainBackendNotFound(t *testing.T) {
	for _, tc := range []struct{ target, want string }{
		{"service/infra/ledgr", `Service infra/ledgr not found; did you mean "infra/ledger"?`},
		{"service/infra/ledger:9091", `Service infra/ledger section 9091 not found; did you mean "9090"?`},
		{"backend/infra/ledger", `Backend infra/ledger not found`},
	} {
		_, errOut, code := run(t, "explain", tc.target, "-f", "testdata/examples")
		if code != ExitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.target, code, errOut, ExitUsage, tc.want)
		}
	}
}

// TestExplainInUnreadableInput: when part of the input could not be read,
// an object explain does not find may be in that part: the answer is
// exit 3 with the file's position, not "not found" (exit 2).
func TestExplainInUnreadableInput(t *testing.T) {
	for _, target := range []string{"service/infra/web", "httproute/infra/web", "trafficpolicy/infra/p"} {
		_, errOut, code := run(t, "explain", target, "-f", "testdata/bad/malformed.yaml")
		if code != ExitInput || !fileLineCol.MatchString(errOut) || !strings.Contains(errOut, "could not be read") {
			t.Errorf("%s: exit %d, stderr %q; want %d, FILE:LINE:COL and the unreadable input named", target, code, errOut, ExitInput)
		}
	}
}

// TestExitCodesSameInEveryFormat: lint's exit code never depends on -o.
func TestExitCodesSameInEveryFormat(t *testing.T) {
	for _, failOn := range []string{"error", "warning", "info", "none"} {
		var codes []int
		for _, format := range []string{"text", "json", "sarif", "github"} {
			_, _, code := run(t, "lint", "-f", "testdata/examples", "-o", format, "--fail-on", failOn)
			codes = append(codes, code)
		}
		for _, c := range codes[1:] {
			if c != codes[0] {
				t.Errorf("--fail-on %s: exit codes differ across formats: %v", failOn, codes)
			}
		}
	}
}

var fileLineCol = regexp.MustCompile(`testdata/bad/malformed\.yaml:\d+:\d+: `)

func TestBadInput(t *testing.T) {
	_, errOut, code := run(t, "status", "-f", "testdata/bad/malformed.yaml")
	if code != ExitInput || !fileLineCol.MatchString(errOut) {
		t.Errorf("malformed: exit %d, stderr %q; want 3 and FILE:LINE:COL", code, errOut)
	}
	start := time.Now()
	_, errOut, code = run(t, "status", "-f", "testdata/bad/billion-laughs.yaml")
	if code != ExitInput || !strings.Contains(errOut, "alias") {
		t.Errorf("billion laughs: exit %d, stderr %q", code, errOut)
	}
	t.Logf("billion laughs rejected in %v", time.Since(start))
	_, errOut, code = run(t, "status", "-f", "testdata/does-not-exist")
	if code != ExitInput || !strings.Contains(errOut, "testdata/does-not-exist") {
		t.Errorf("missing path: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = run(t, "explain", "httproute/shop/order", "-f", "testdata/examples")
	if code != ExitUsage || !strings.Contains(errOut, `did you mean "shop/orders"`) {
		t.Errorf("unknown target: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = run(t, "explain", "httproute/shop/orders", "-f", "testdata/examples", "--field", "retyr")
	if code != ExitUsage || !strings.Contains(errOut, `did you mean "retry"`) {
		t.Errorf("unknown field: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = run(t, "explain", "trafficpolicy/shop/orders-retry", "-f", "testdata/examples")
	if code != ExitUsage || !strings.Contains(errOut, `did you mean "shop/orders-retry-a"`) {
		t.Errorf("unknown policy: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = run(t, "graph", "-f", "testdata/examples", "--gateway", "infra/publik")
	if code != ExitUsage || !strings.Contains(errOut, `did you mean "infra/public"`) {
		t.Errorf("graph unknown gateway: exit %d, stderr %q", code, errOut)
	}
	_, _, code = run(t, "lint", "--fail-on", "sometimes", "-f", "testdata/examples")
	if code != ExitUsage {
		t.Errorf("bad flag value: exit %d, want 2", code)
	}
	_, _, code = run(t, "status")
	if code != ExitUsage {
		t.Errorf("no input: exit %d, want 2", code)
	}
}

// TestShuffleDeterminism: the same objects in any order give the same bytes.
func TestShuffleDeterminism(t *testing.T) {
	var docs []string
	files, _ := filepath.Glob("../../testdata/examples/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
			if strings.TrimSpace(d) != "" {
				docs = append(docs, d)
			}
		}
	}
	var first map[string]string
	for i := 0; i < 20; i++ {
		perm := applyOrderKept(docs, shuffled(len(docs), int64(i)))
		var b strings.Builder
		for _, j := range perm {
			b.WriteString("---\n" + docs[j] + "\n")
		}
		outs := map[string]string{}
		for _, args := range [][]string{{"status", "-o", "json"}, {"lint", "-o", "json", "--fail-on", "none"}, {"explain", "httproute/shop/orders", "-o", "json"}} {
			ios, out, _ := Test(b.String(), false)
			Main(append(args, "-f", "-"), ios)
			outs[strings.Join(args, " ")] = withoutPositions(out.String())
		}
		if first == nil {
			first = outs
			continue
		}
		for k, v := range outs {
			if diff := cmp.Diff(first[k], v); diff != "" {
				t.Fatalf("shuffle %d changed the output of %s:\n%s", i, k, diff)
			}
		}
	}
}

// applyOrderKept puts the documents that define one object back in their
// input order within the places the shuffle gave them: of two different
// definitions the one applied last wins, so their order is input, not
// noise.
func applyOrderKept(docs []string, perm []int) []int {
	key := func(d string) string {
		var o struct {
			Kind     string `yaml:"kind"`
			Metadata struct{ Name, Namespace string }
		}
		if yaml.Unmarshal([]byte(d), &o) != nil {
			return d
		}
		return o.Kind + "/" + o.Metadata.Namespace + "/" + o.Metadata.Name
	}
	byKey := map[string][]int{} // places in perm, in perm order
	for at, j := range perm {
		k := key(docs[j])
		byKey[k] = append(byKey[k], at)
	}
	out := slices.Clone(perm)
	for _, places := range byKey {
		idx := make([]int, len(places))
		for i, at := range places {
			idx[i] = perm[at]
		}
		slices.Sort(idx)
		for i, at := range places {
			out[at] = idx[i]
		}
	}
	return out
}

func shuffled(n int, seed int64) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	x := uint64(seed)*6364136223846793005 + 1442695040888963407
	for i := n - 1; i > 0; i-- {
		x = x*6364136223846793005 + 1442695040888963407
		j := int(x>>33) % (i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

var positionFields = regexp.MustCompile(`(?m)^\s*"(file|line|column)": .*\n`)

// withoutPositions drops file/line/column lines, which legitimately move
// when documents are reordered, and sorts what is left.
func withoutPositions(s string) string {
	s = regexp.MustCompile(`<stdin>:\d+(:\d+)?`).ReplaceAllString(s, "<stdin>")
	lines := strings.Split(positionFields.ReplaceAllString(s, ""), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// TestOutFileAtomic: --out writes a complete, ordinary file, and a failed
// run leaves no file and no temporary behind.
func TestOutFileAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "status.json")
	if _, errOut, code := run(t, "status", "-f", "testdata/examples", "-o", "json", "--out", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	st, err := os.Stat(out)
	if err != nil || st.Mode().Perm() != 0o644 || st.Size() == 0 {
		t.Fatalf("output file: %v, %v", st, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if _, _, code := run(t, "status", "-f", "testdata/bad/does-not-exist.yaml", "--out", bad); code != ExitInput {
		t.Fatalf("missing input: exit %d", code)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("a failed run left files behind: %v", entries)
	}
	// Input that is partly unreadable still gets its output, complete,
	// and exit code 3.
	partial := filepath.Join(dir, "partial.json")
	if _, _, code := run(t, "status", "-f", "testdata/examples", "-f", "testdata/bad/malformed.yaml", "-o", "json", "--out", partial); code != ExitInput {
		t.Fatalf("partly malformed input: exit %d, want 3", code)
	}
	if data, err := os.ReadFile(partial); err != nil || !json.Valid(data) {
		t.Errorf("partial output: %v (valid JSON: %v)", err, json.Valid(data))
	}
}

// TestOtherToolsFilesSkipped: a directory with a kubebuilder
// kustomization.yaml beside the manifests is read by every command; the
// kustomization is a GWP107 info finding in lint (the file holds no
// Kubernetes object), never an abort (it was exit 3, "object has no kind").
func TestOtherToolsFilesSkipped(t *testing.T) {
	for _, cmd := range []string{"lint", "status", "render", "explain"} {
		args := []string{cmd, "-f", "testdata/kustomize"}
		if cmd == "explain" {
			args = []string{cmd, "httproute/shop/orders", "-f", "testdata/kustomize"}
		}
		out, errOut, code := run(t, args...)
		if code != ExitOK || out == "" {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want 0 and output", cmd, code, len(out), errOut)
		}
	}
	out, _, _ := run(t, "lint", "-f", "testdata/kustomize", "-o", "json")
	var rep lintJSON
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range rep.Diagnostics {
		got = append(got, fmt.Sprintf("%s %s %s:%d:%d", d.Code, d.Severity, d.File, d.Line, d.Column))
	}
	want := []string{"GWP107 info " + filepath.Join("testdata", "kustomize", "config", "default", "kustomization.yaml") + ":1:1"}
	if !slices.Equal(got, want) {
		t.Errorf("lint findings = %v, want %v", got, want)
	}
}

// TestOutMissingDirectory: --out into a directory that does not exist is
// exit 3 naming the path, with no temporary file name and no usage text.
func TestOutMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "envoy.yaml")
	_, errOut, code := run(t, "render", "-f", "testdata/examples", "--out", path)
	if code != ExitInput || !strings.Contains(errOut, "cannot write "+path+": directory "+filepath.Dir(path)+" does not exist") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if strings.Contains(errOut, ".tmp-") || strings.Contains(errOut, "--help") {
		t.Errorf("stderr leaks the temporary file or usage text: %q", errOut)
	}
}

// TestGraphRendersWithGraphviz: Graphviz accepts the whole example's DOT,
// clusters and all. Skipped where dot is not installed (CI need not have it).
func TestGraphRendersWithGraphviz(t *testing.T) {
	dot, err := exec.LookPath("dot")
	if err != nil {
		t.Skip("Graphviz dot not installed")
	}
	out, errOut, code := run(t, "graph", "-f", "testdata/examples")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	cmd := exec.Command(dot, "-Tsvg")
	cmd.Stdin = strings.NewReader(out)
	svg, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(svg), "<svg") || strings.Contains(string(svg), "Warning") {
		t.Errorf("dot: %v\n%.500s", err, svg)
	}
}
