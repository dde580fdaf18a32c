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
		{[]string{"--gateway", "public"}, true},
		{[]string{"--gateway", "infra/public/http"}, false},
		{[]string{"--route", "httproute/shop/orders", "--route", "hr/shop/cart/#0"}, true},
		{[]string{"--bootstrap", "--type", "route"}, false},
	}
	for _, c := range cases {
		ios, _, _ := Test("", false)
		var got *renderOptions
		cmd := newRenderCmd(&globalOptions{IO: ios}, func(o *renderOptions) error { got = o; return nil })
		// Never nil: cobra would read the test binary's own flags.
		cmd.SetArgs(append([]string{}, c.args...))
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
	// The deployment config turns on the HAPTIC switches the examples'
	// WAF policy needs, so the finding is the target's, not the chart
	// default's; --target envoy renders the HAPTIC Gateway's routes for
	// upstream Envoy too, which has no WAF filter.
	stdout, stderr, code := run(t, "render", "-f", "testdata/examples", "-o", "json", "--config", "testdata/haptic-deployment.gwpol.yaml", "--target", "envoy")
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
	if want := "testdata/examples/90-mistakes.yaml:32:11: error GWP101: Service broken-port: spec.ports[0].port must be a number, not string\n"; !strings.Contains(stderr, want) {
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

// TestRenderScoping: --route keeps one route's Envoy routes with the
// listeners and clusters they need; --gateway takes NAME with -n and
// suggests near names; several Gateways' bootstraps go one per file into
// an --out directory, and never into one stream.
func TestRenderScoping(t *testing.T) {
	goldens.Start(t)
	ex := "testdata/examples"
	out, stderr, code := run(t, "render", "-f", ex, "--route", "httproute/shop/orders/create")
	if code != ExitOK {
		t.Fatalf("--route: exit %d: %s", code, stderr)
	}
	golden(t, "render-route-orders-create.yaml", out)
	for _, want := range []struct{ route, note string }{
		{"httproute/sandbox/playground", "note: HTTPRoute sandbox/playground rule borrowed answers 500 to every request: backendRef Service shop/orders: RefNotPermitted"},
		{"httproute/sandbox/playground-haproxy", "note: HTTPRoute sandbox/playground-haproxy rule misplaced answers 503 to every request: GWP207"},
	} {
		_, stderr, _ = run(t, "render", "-f", ex, "--route", want.route, "--type", "route")
		if !strings.Contains(stderr, want.note) {
			t.Errorf("stderr lacks %q:\n%s", want.note, stderr)
		}
	}
	if strings.Contains(stderr, "note: HTTPRoute shop/") {
		t.Errorf("--route reported rules outside its scope:\n%s", stderr)
	}
	if _, stderr, code := run(t, "render", "-f", ex, "--route", "httproute/shop/order"); code != ExitUsage || !strings.Contains(stderr, `did you mean "shop/orders"`) {
		t.Errorf("unknown --route: exit %d, stderr %q", code, stderr)
	}
	named, _, code := run(t, "render", "-f", ex, "-n", "infra", "--gateway", "public", "--type", "listener")
	qualified, _, _ := run(t, "render", "-f", ex, "--gateway", "infra/public", "--type", "listener")
	if code != ExitOK || named != qualified {
		t.Errorf("--gateway NAME with -n: exit %d, differs from NS/NAME: %v", code, named != qualified)
	}
	if _, stderr, code := run(t, "render", "-f", ex, "-n", "infra", "--gateway", "publc"); code != ExitUsage || !strings.Contains(stderr, `did you mean "infra/public"`) {
		t.Errorf("near --gateway: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := run(t, "render", "-f", ex, "--bootstrap"); code != ExitUsage || !strings.Contains(stderr, "--out DIRECTORY") {
		t.Errorf("several bootstraps to stdout: exit %d, stderr %q", code, stderr)
	}
	dir := t.TempDir()
	if _, stderr, code := run(t, "render", "-f", ex, "--bootstrap", "--out", dir); code != ExitOK {
		t.Fatalf("--bootstrap --out DIR: exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 3 {
		t.Fatalf("want one bootstrap per Gateway, got %v", files)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "bootstrap-"+filepath.Base(f), string(b))
	}
}
