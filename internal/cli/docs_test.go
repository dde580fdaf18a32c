package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestDocsFresh fails when completions/, man/ or docs/lint-rules.md no
// longer match the command tree and the rule registry; run `go generate
// ./...` to refresh.
func TestDocsFresh(t *testing.T) {
	ios, _, _ := Test("", false)
	files, err := RenderDocs(NewRootCmd(ios))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", name))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s is stale or missing; run `go generate ./...`", name)
		}
	}
}

// TestHelpNamesEveryKind: `gwpol --help`, man gwpol and explain's TARGET
// completion name every kind gwpol reads — the Gateway API's, core's and
// every registered policy kind with the kinds it reads — from the
// registrations, so a new kind cannot be left out of them; and every man
// page has EXAMPLES and EXIT STATUS sections.
func TestHelpNamesEveryKind(t *testing.T) {
	ios, out, _ := Test("", false)
	root := NewRootCmd(ios)
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile("../../man/gwpol.1")
	if err != nil {
		t.Fatal(err)
	}
	ios2, comp, _ := Test("", false)
	root2 := NewRootCmd(ios2)
	root2.SetArgs([]string{"__complete", "explain", ""})
	if err := root2.Execute(); err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, g := range supportedKinds() {
		all = append(all, g.Policies...)
		all = append(all, g.Others...)
		for _, k := range g.Policies {
			if !strings.Contains(comp.String(), strings.ToLower(k)+"/\n") {
				t.Errorf("explain TARGET completion does not offer %s/", strings.ToLower(k))
			}
		}
	}
	for _, k := range slices.Concat(all, []string{"TrafficPolicy", "BackendTrafficPolicy", "SecurityPolicy", "ClientTrafficPolicy", "EnvoyExtensionPolicy",
		"ListenerPolicy", "BackendConfigPolicy", "DirectResponse", "BackendTLSPolicy", "HAProxyRoutePolicy", "APIPolicy", "RestApi", "HTTPRoute", "TLSRoute"}) {
		if !regexp.MustCompile(`\b` + k + `\b`).MatchString(out.String()) {
			t.Errorf("gwpol --help does not name %s", k)
		}
		if !regexp.MustCompile(`\b` + k + `\b`).Match(man) {
			t.Errorf("man gwpol does not name %s", k)
		}
	}
	pages, _ := filepath.Glob("../../man/*.1")
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		for _, sec := range []string{".SH EXAMPLES\n", ".SH EXIT STATUS\n"} {
			if !strings.Contains(string(b), sec) {
				t.Errorf("%s has no %s section", filepath.Base(p), strings.TrimSpace(sec[4:]))
			}
		}
	}
}

// TestListRulesFormats: --list-rules is a plain table by default (no
// Markdown, no HTML anchors; on a terminal its lines fit the width) and
// Markdown with -o markdown.
func TestListRulesFormats(t *testing.T) {
	list := func(terminal bool, width int, args ...string) string {
		ios, out, errOut := Test("", terminal)
		ios.Width = width
		root := NewRootCmd(ios)
		root.SetArgs(append([]string{"lint", "--list-rules"}, args...))
		if err := root.Execute(); err != nil {
			t.Fatalf("%v: %s", err, errOut)
		}
		return out.String()
	}
	plain := list(true, 80)
	if strings.Contains(plain, "|") || strings.Contains(plain, "<a") || !strings.HasPrefix(plain, "CODE") {
		t.Errorf("--list-rules on a terminal is not a plain table:\n%s", plain)
	}
	for _, l := range strings.Split(plain, "\n") {
		if len(l) > 80 {
			t.Errorf("line wider than 80 columns: %q", l)
		}
	}
	for _, r := range lintRules() {
		if !strings.Contains(plain, r.Code+" ") {
			t.Errorf("--list-rules lacks %s", r.Code)
		}
	}
	if md := list(false, 0, "-o", "markdown"); md != RulesTable() || !strings.HasPrefix(md, "| code |") {
		t.Errorf("--list-rules -o markdown is not the Markdown table")
	}
}
