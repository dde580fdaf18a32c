package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRenderFlags checks flag parsing alone (the run function is stubbed).
func TestRenderFlags(t *testing.T) {
	cases := []struct {
		args []string
		ok   bool
	}{
		{nil, true},
		{[]string{"-o", "json", "--type", "route", "--gateway", "infra/public", "--target", "kgateway", "--merge-key", "kgateway"}, true},
		{[]string{"--bootstrap", "--gateway", "infra/public"}, true},
		{[]string{"-o", "xml"}, false},
		{[]string{"--type", "endpoints"}, false},
		{[]string{"--target", "nginx"}, false},
		{[]string{"--merge-key", "istio"}, false},
		{[]string{"--gateway", "public"}, false},
		{[]string{"--bootstrap", "--type", "route"}, false},
	}
	for _, c := range cases {
		ios, _, _ := Test("", false)
		var got *renderOptions
		cmd := newRenderCmd(&globalOptions{IO: ios}, func(o *renderOptions) error { got = o; return nil })
		cmd.SetArgs(c.args)
		cmd.SetOut(ios.Out)
		cmd.SetErr(ios.ErrOut)
		err := cmd.Execute()
		if (err == nil) != c.ok {
			t.Errorf("%v: err = %v, want ok=%v", c.args, err, c.ok)
		}
		if err != nil && exitCode(err) != ExitUsage {
			t.Errorf("%v: exit code %d, want %d", c.args, exitCode(err), ExitUsage)
		}
		if c.ok && got == nil {
			t.Errorf("%v: run not called", c.args)
		}
	}
}

// TestRenderCommand runs render end to end on the examples: JSON of the
// documented shape, an atomic --out, GWP404 on stderr for the upstream
// target, and a usage error for an unknown Gateway.
func TestRenderCommand(t *testing.T) {
	stdout, stderr, code := run(t, "render", "-f", "testdata/examples", "-o", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Gateways []struct {
			Gateway             struct{ Namespace, Name string } `json:"gateway"`
			Listeners           []json.RawMessage                `json:"listeners"`
			RouteConfigurations []json.RawMessage                `json:"routeConfigurations"`
			Clusters            []json.RawMessage                `json:"clusters"`
		} `json:"gateways"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Gateways) == 0 || len(doc.Gateways[0].Listeners) == 0 || len(doc.Gateways[0].RouteConfigurations) == 0 {
		t.Fatalf("unexpected output shape: %.300s", stdout)
	}
	if !strings.Contains(stderr, "GWP404") {
		t.Errorf("stderr lacks the GWP404 finding for the upstream target: %s", stderr)
	}
	// An object left out of the config because it did not decode is
	// named on stderr with its position, never dropped silently; warnings
	// stay lint's.
	if want := "testdata/examples/90-mistakes.yaml:31:11: error GWP101: Service broken-port: spec.ports[0].port must be a number, not string\n"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if strings.Contains(stderr, " warning ") {
		t.Errorf("render printed warnings, lint's business:\n%s", stderr)
	}
	out := filepath.Join(t.TempDir(), "envoy.yaml")
	if _, stderr, code := run(t, "render", "-f", "testdata/examples", "--gateway", "infra/public", "--bootstrap", "--out", out); code != ExitOK {
		t.Fatalf("--bootstrap --out: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "static_resources:") || !strings.Contains(string(b), "port_value: 19000") {
		t.Errorf("bootstrap file: %v %.200s", err, b)
	}
	if _, _, code := run(t, "render", "-f", "testdata/examples", "--gateway", "infra/nope"); code != ExitUsage {
		t.Errorf("unknown gateway: exit %d, want %d", code, ExitUsage)
	}
}
