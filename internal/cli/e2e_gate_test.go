package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyInputFails: a CI gate pointed at an empty directory, an empty
// file or empty stdin must not pass silently, in any output format.
func TestEmptyInputFails(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	emptyDir := filepath.Join(dir, "nothing")
	if err := os.Mkdir(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{empty, emptyDir} {
		for _, format := range []string{"text", "json", "sarif", "github"} {
			_, errOut, code := run(t, "lint", "-f", in, "-o", format)
			if code != ExitInput || !strings.Contains(errOut, "no Kubernetes objects found in "+in) {
				t.Errorf("lint -f %s -o %s: exit %d, stderr %q; want exit 3 naming the input", in, format, code, errOut)
			}
		}
		if _, errOut, code := run(t, "lint", "-f", in, "--allow-empty"); code != ExitOK {
			t.Errorf("lint -f %s --allow-empty: exit %d, stderr %q; want 0", in, code, errOut)
		}
	}
	cmd := exec.Command(gwpolBin, "status", "-f", "-")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInput || !strings.Contains(string(out), "no Kubernetes objects found in <stdin>") {
		t.Errorf("status -f - on empty stdin: %v, %q; want exit 3 naming <stdin>", err, out)
	}
}

// TestConfigTypoFails: a misspelled config key is a usage error naming
// the key, with the nearest valid one.
func TestConfigTypoFails(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "gwpol.yaml")
	if err := os.WriteFile(cfg, []byte("lint:\n  failOnn: warning\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "lint", "-f", "testdata/examples", "--config", cfg)
	if code != ExitUsage || !strings.Contains(errOut, `unknown key "lint.failOnn"; did you mean "lint.failOn"?`) {
		t.Errorf("exit %d, stderr %q; want exit 2 with a suggestion", code, errOut)
	}
}

// TestViewsReportCompileErrors: status and explain print on stderr the
// compile errors render prints (a duplicate object, one that did not
// decode), so no view is shaped silently.
func TestViewsReportCompileErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	doc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: broken\n  namespace: shop\nspec:\n  ports:\n  - port: eighty\n"
	if err := os.WriteFile(bad, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, renderErr, _ := run(t, "render", "-f", "testdata/examples", "-f", bad)
	var want []string
	for _, l := range strings.Split(renderErr, "\n") {
		if strings.HasPrefix(l, bad+":") {
			want = append(want, l)
		}
	}
	if len(want) == 0 {
		t.Fatalf("render printed nothing about %s:\n%s", bad, renderErr)
	}
	for _, args := range [][]string{{"status"}, {"explain", "gateway/infra/public"}} {
		_, errOut, code := run(t, append(args, "-f", "testdata/examples", "-f", bad)...)
		if code != ExitOK {
			t.Errorf("%v: exit %d", args, code)
		}
		for _, w := range want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks render's line %q:\n%s", args, w, errOut)
			}
		}
	}
}

// TestMixedRepository: a repository of mixed content (testdata/mixed/README.md)
// gives, in one run, one finding per problem at its line and column in
// every format, all with exit code 3 (part of the input is unreadable),
// and a SARIF log that is valid.
func TestMixedRepository(t *testing.T) {
	goldens.Start(t)
	for _, format := range []string{"text", "json", "sarif", "github"} {
		out, errOut, code := run(t, "lint", "-f", "testdata/mixed", "-o", format)
		if code != ExitInput {
			t.Errorf("-o %s: exit %d, want 3 (stderr %q)", format, code, errOut)
		}
		if !strings.Contains(errOut, "some input could not be read") {
			t.Errorf("-o %s: stderr %q does not say why the exit code is 3", format, errOut)
		}
		if format == "sarif" {
			validateSARIF(t, []byte(out))
		}
		ext := map[string]string{"text": "txt", "json": "json", "sarif": "sarif", "github": "github"}[format]
		golden(t, "mixed.lint."+ext, out)
	}
	// --exclude (and config exclude) keep paths out of the run.
	out, _, code := run(t, "lint", "-f", "testdata/mixed", "--exclude", "chart/**", "--exclude", "*.json", "--exclude", "tabs.yaml", "--exclude", "stream.yaml")
	if code != ExitFindings || strings.Contains(out, "chart/") || strings.Contains(out, "package.json") || strings.Contains(out, "GWP100") {
		t.Errorf("with --exclude: exit %d, want 1 and no excluded path:\n%s", code, out)
	}
}

// TestTargetFromPlatform: without --target, each Gateway renders (and is
// linted) with the target its GatewayClass's controller names; config
// render.target overrides the inference, and --target overrides both.
func TestTargetFromPlatform(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "platform.yaml")
	doc := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/other}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: kgw, namespace: infra}
spec:
  gatewayClassName: kgw
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: plain, namespace: infra}
spec:
  gatewayClassName: other
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec:
  parentRefs: [{name: kgw, namespace: infra}, {name: plain, namespace: infra}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: rewrite, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  transformation:
    request:
      set: [{name: x-shop, value: "yes"}]
`
	if err := os.WriteFile(in, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "gwpol.yaml")
	if err := os.WriteFile(cfg, []byte("render:\n  target: envoy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unsupported := func(args ...string) int {
		out, _, _ := run(t, append([]string{"lint", "-f", in, "-o", "json"}, args...)...)
		return strings.Count(out, "unsupported(required_capability: transformation)")
	}
	// Inferred: the kgateway Gateway can express it, the other cannot.
	if n := unsupported(); n != 1 {
		t.Errorf("inferred targets: %d GWP404 for transformation, want 1 (Gateway infra/plain only)", n)
	}
	out, _, code := run(t, "render", "-f", in, "-o", "json")
	if code != ExitOK || !strings.Contains(out, "dynamic_modules/simple_mutations") || !strings.Contains(out, "render target envoy") {
		t.Errorf("render with inferred targets: exit %d; want kgateway's transformation on infra/kgw and envoy's 503 on infra/plain", code)
	}
	if n := unsupported("--config", cfg); n != 1 {
		t.Errorf("config render.target envoy: %d GWP404, want 1", n)
	}
	if out, _, _ := run(t, "render", "-f", in, "-o", "json", "--config", cfg); strings.Contains(out, "dynamic_modules/simple_mutations") {
		t.Error("config render.target envoy: render still used kgateway's transformation filter")
	}
	if n := unsupported("--config", cfg, "--target", "kgateway"); n != 0 {
		t.Errorf("--target kgateway over the config: %d GWP404, want 0", n)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("render:\n  target: nginx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "lint", "-f", in, "--config", bad); code != ExitUsage || !strings.Contains(errOut, "render.target must be one of") {
		t.Errorf("render.target nginx: exit %d, %q", code, errOut)
	}
}

// TestGraphDrawsBackendPolicies: policies on Services (BackendConfigPolicy,
// BackendTLSPolicy) are drawn attached to their backend, never as
// "attached nowhere".
func TestGraphDrawsBackendPolicies(t *testing.T) {
	out, _, code := run(t, "graph", "-f", "testdata/examples")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, edge := range []string{
		`"p_gateway.kgateway.dev/BackendConfigPolicy/infra/ledger-cluster" -> "b_Service/infra/ledger"`,
		`"p_gateway.networking.k8s.io/BackendTLSPolicy/payments/checkout-tls" -> "b_Service/payments/checkout"`,
	} {
		if !strings.Contains(out, edge) {
			t.Errorf("graph lacks %s", edge)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if (strings.Contains(l, "BackendConfigPolicy") || strings.Contains(l, "BackendTLSPolicy")) && strings.Contains(l, "attached nowhere") {
			t.Errorf("a backend policy is drawn as attached nowhere: %s", l)
		}
	}
}
