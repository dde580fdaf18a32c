package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The guardrail fixtures' files, from the repository root.
const grDir = "testdata/guardrails/"

// guardLint runs gwpol lint -o json and returns the findings and the exit code.
func guardLint(t *testing.T, args ...string) ([]struct {
	Code, Severity, Message string
	File                    string
	Line                    int
}, int) {
	t.Helper()
	out, stderr, code := run(t, append([]string{"lint", "-o", "json"}, args...)...)
	var rep struct {
		Diagnostics []struct {
			Code, Severity, Message string
			File                    string
			Line                    int
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("lint -o json: %v\n%s\n%s", err, out, stderr)
	}
	return rep.Diagnostics, code
}

// TestGuardrailsE2E is the platform with the built binary: the
// infra namespace's Gateway-level TrafficPolicy sets ext-auth, a local
// rate limit and a 30s request timeout.
func TestGuardrailsE2E(t *testing.T) {
	platform := grDir + "kgateway/_platform.yaml"
	findings := func(t *testing.T, kase string, extra ...string) (map[string][]string, int) {
		t.Helper()
		ds, code := guardLint(t, append([]string{"--config", grDir + "kgateway/" + kase + "/gwpol.yaml", "-f", platform, "-f", grDir + "kgateway/" + kase + "/input.yaml"}, extra...)...)
		got := map[string][]string{}
		for _, d := range ds {
			if strings.HasPrefix(d.Code, "GWP6") {
				got[d.Code] = append(got[d.Code], filepath.Base(filepath.Dir(d.File))+"/"+filepath.Base(d.File)+":"+itoa(d.Line)+" "+d.Severity+" "+d.Message)
			}
		}
		return got, code
	}
	t.Run("route policy disabling ext-auth is an error at the field", func(t *testing.T) {
		got, code := findings(t, "set-only-by")
		if len(got["GWP601"]) != 1 || !strings.HasPrefix(got["GWP601"][0], "set-only-by/input.yaml:18 error") || code != 1 {
			t.Fatalf("GWP601 = %q (exit %d), want one error at input.yaml:18 (disable: {}), exit 1", got["GWP601"], code)
		}
		for _, want := range []string{`guardrail "platform-owns-ext-auth"`, "switches extAuth off", "only policies in namespace infra", "ask #platform for an exception", "To satisfy it"} {
			if !strings.Contains(got["GWP601"][0], want) {
				t.Errorf("GWP601 message lacks %q: %s", want, got["GWP601"][0])
			}
		}
	})
	t.Run("120s against max 60s is an error at the value, 30s is not", func(t *testing.T) {
		got, _ := findings(t, "bounds")
		var timeouts []string
		for _, f := range got["GWP602"] {
			if strings.Contains(f, `"request-timeout-cap"`) {
				timeouts = append(timeouts, f)
			}
		}
		if len(timeouts) != 1 || !strings.HasPrefix(timeouts[0], "bounds/input.yaml:20 error") || !strings.Contains(timeouts[0], "is 120s") {
			t.Fatalf("GWP602 of request-timeout-cap = %q, want one error at input.yaml:20 (request: 120s) and none for 30s", timeouts)
		}
	})
	t.Run("a route without a local rate limit is a warning naming the route", func(t *testing.T) {
		got, code := findings(t, "require")
		if len(got["GWP604"]) != 2 || code != 0 {
			t.Fatalf("GWP604 = %q (exit %d), want two warnings (bulk clears it, admin has none) and exit 0 under --fail-on error", got["GWP604"], code)
		}
		if !strings.Contains(got["GWP604"][0], "warning") || !strings.Contains(got["GWP604"][0], "HTTPRoute team/bulk rule #0") || !strings.Contains(got["GWP604"][0], "switches rateLimit.local off") {
			t.Errorf("GWP604 for the route clearing the inherited limit: %s", got["GWP604"][0])
		}
		if strings.Contains(strings.Join(got["GWP604"], "\n"), "team/shop") {
			t.Errorf("the route that inherits the platform's limit is reported: %q", got["GWP604"])
		}
		if _, code := findings(t, "require", "--fail-on", "warning"); code != 1 {
			t.Errorf("--fail-on warning: exit %d, want 1", code)
		}
	})
	t.Run("the platform's own policy raises nothing", func(t *testing.T) {
		for _, kase := range []string{"set-only-by", "bounds", "require", "one-of"} {
			ds, _ := guardLint(t, "--config", grDir+"kgateway/"+kase+"/gwpol.yaml", "-f", platform, "-f", grDir+"kgateway/"+kase+"/input.yaml")
			for _, d := range ds {
				if strings.HasPrefix(d.Code, "GWP6") && strings.HasSuffix(d.File, "_platform.yaml") {
					t.Errorf("%s: %s on the platform's own policy: %s", kase, d.Code, d.Message)
				}
			}
		}
	})
	t.Run("explain on the violating route names the guardrail", func(t *testing.T) {
		out, _, code := run(t, "explain", "httproute/team/checkout", "--config", grDir+"kgateway/set-only-by/gwpol.yaml", "-f", platform, "-f", grDir+"kgateway/set-only-by/input.yaml")
		if code != 0 || !strings.Contains(out, `guardrail "platform-owns-ext-auth" VIOLATED (GWP601)`) {
			t.Errorf("explain (exit %d):\n%s", code, out)
		}
		out, _, _ = run(t, "explain", "httproute/team/catalog", "--config", grDir+"kgateway/set-only-by/gwpol.yaml", "-f", platform, "-f", grDir+"kgateway/set-only-by/input.yaml")
		if !strings.Contains(out, `guardrail "platform-owns-ext-auth" holds`) {
			t.Errorf("explain on a route keeping the platform's ext-auth:\n%s", out)
		}
		out, _, _ = run(t, "explain", "httproute/team/bulk", "-o", "json", "--config", grDir+"kgateway/require/gwpol.yaml", "-f", platform, "-f", grDir+"kgateway/require/input.yaml")
		if !strings.Contains(out, `"code": "GWP604"`) || !strings.Contains(out, `"holds": false`) {
			t.Errorf("explain -o json on the route clearing its rate limit:\n%s", out)
		}
	})
	t.Run("an exception is an annotation on the object", func(t *testing.T) {
		data, err := os.ReadFile("../../" + grDir + "kgateway/set-only-by/input.yaml")
		if err != nil {
			t.Fatal(err)
		}
		in := filepath.Join(t.TempDir(), "input.yaml")
		annotated := strings.Replace(string(data), "metadata: {name: no-auth, namespace: team}", "metadata: {name: no-auth, namespace: team, annotations: {gwpol.dev/ignore: GWP601}}", 1)
		if err := os.WriteFile(in, []byte(annotated), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _, code := run(t, "lint", "--config", grDir+"kgateway/set-only-by/gwpol.yaml", "-f", platform, "-f", in)
		if code != 0 || strings.Contains(out, "GWP601") || !strings.Contains(out, "1 suppressed") {
			t.Errorf("annotated exception (exit %d):\n%s", code, out)
		}
	})
	t.Run("diff reports the guardrail findings a change introduces", func(t *testing.T) {
		old, new := t.TempDir(), t.TempDir()
		for dir, files := range map[string][]string{old: {platform}, new: {platform, grDir + "kgateway/set-only-by/input.yaml"}} {
			for _, f := range files {
				data, err := os.ReadFile("../../" + f)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		out, _, code := run(t, "diff", old, new, "--config", grDir+"kgateway/set-only-by/gwpol.yaml")
		if !strings.Contains(out, "+ error GWP601") || !strings.Contains(out, "1 guardrail finding(s) introduced, 0 resolved") || code != 0 {
			t.Errorf("diff (exit %d):\n%s", code, out)
		}
		out, _, _ = run(t, "diff", new, old, "--config", grDir+"kgateway/set-only-by/gwpol.yaml", "-o", "json")
		if !strings.Contains(out, `"change": "resolved"`) {
			t.Errorf("diff NEW OLD -o json names no resolved finding:\n%s", out)
		}
		if _, _, code := run(t, "diff", old, new, "--config", grDir+"kgateway/set-only-by/gwpol.yaml", "--exit-code"); code != 1 {
			t.Errorf("diff --exit-code: exit %d, want 1", code)
		}
	})
}

// TestGuardrailsOtherFamiliesE2E: the same rules on an Envoy Gateway and a
// HAPTIC platform, with the built binary.
func TestGuardrailsOtherFamiliesE2E(t *testing.T) {
	for _, tt := range []struct{ family, kase, code, where string }{
		{"envoygateway", "set-only-by", "GWP601", "input.yaml:19"},
		{"envoygateway", "bounds", "GWP602", "input.yaml:20"},
		{"envoygateway", "require", "GWP604", "input.yaml:11"},
		{"haptic", "set-only-by", "GWP601", "input.yaml:9"},
		{"haptic", "bounds", "GWP602", "input.yaml:8"},
		{"haptic", "require", "GWP604", "input.yaml:9"},
	} {
		ds, _ := guardLint(t, "--config", grDir+tt.family+"/"+tt.kase+"/gwpol.yaml", "-f", grDir+tt.family+"/_platform.yaml", "-f", grDir+tt.family+"/"+tt.kase+"/input.yaml")
		found := false
		for _, d := range ds {
			if d.Code == tt.code && filepath.Base(d.File)+":"+itoa(d.Line) == tt.where {
				found = true
			}
		}
		if !found {
			t.Errorf("%s/%s: no %s at %s; got %+v", tt.family, tt.kase, tt.code, tt.where, ds)
		}
	}
}

// TestGuardrailConfigErrorsE2E: a guardrails section gwpol cannot read
// is a usage error (exit 2) at its line, with the nearest name.
func TestGuardrailConfigErrorsE2E(t *testing.T) {
	for _, tt := range []struct{ name, config, want string }{
		{"misspelt field", "guardrails:\n- name: a\n  fields: [extAuht]\n  setOnlyBy: {namespaces: [infra]}\n", `unknown field "extAuht"; did you mean "extAuth"?`},
		{"misspelt sub-field", "guardrails:\n- name: a\n  fields: [timeouts.requst]\n  max: 60s\n", `did you mean "timeouts.request"?`},
		{"misspelt required field", "guardrails:\n- name: a\n  require: [rateLimt.local]\n", `did you mean "rateLimit.local"?`},
		{"unknown key", "guardrails:\n- name: a\n  fields: [extAuth]\n  setOnlyby: {namespaces: [infra]}\n", `unknown key "setOnlyby" in a guardrails entry; did you mean "setOnlyBy"?`},
		{"unknown setOnlyBy key", "guardrails:\n- name: a\n  fields: [extAuth]\n  setOnlyBy: {namespace: [infra]}\n", `did you mean "namespaces"?`},
		{"malformed bound", "guardrails:\n- name: a\n  fields: [timeouts.request]\n  max: sixty\n", `max: "sixty" is neither a number nor a duration`},
		{"min above max", "guardrails:\n- name: a\n  fields: [timeouts.request]\n  max: 10s\n  min: 1m\n", `max 10s is below min 1m`},
		{"two types", "guardrails:\n- name: a\n  fields: [extAuth]\n  setOnlyBy: {namespaces: [infra]}\n  oneOf: [x]\n", `a rule is one of setOnlyBy, max/min, oneOf or require`},
		{"bad severity", "guardrails:\n- name: a\n  require: [extAuth]\n  severity: fatal\n", `severity must be error, warning or info`},
		{"unknown policy kind", "guardrails:\n- name: a\n  fields: [extAuth]\n  setOnlyBy: {policies: [TraficPolicy/infra/p]}\n", `did you mean "TrafficPolicy"?`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "gwpol.yaml")
			if err := os.WriteFile(cfg, []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := run(t, "lint", "--config", cfg, "-f", grDir+"kgateway/_platform.yaml")
			if code != 2 || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "gwpol.yaml:") {
				t.Errorf("exit %d, stderr %q; want exit 2 with %q at a position", code, stderr, tt.want)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
