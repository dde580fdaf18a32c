package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
)

// mdBlock is one fenced block of a Markdown file.
type mdBlock struct {
	lang, text, section string
}

// mdBlocks reads the fenced blocks of a Markdown document, each with the
// "## " section it is in.
func mdBlocks(doc string) []mdBlock {
	var out []mdBlock
	var cur *mdBlock
	section := ""
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &mdBlock{lang: strings.TrimPrefix(line, "```"), section: section}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	return out
}

var docFinding = regexp.MustCompile(`^(\d+):\d+ +(error|warning|info) +(GWP\d{3}) (.*)$`)

// TestGuardrailsDoc: every YAML example in docs/guardrails.md is valid —
// a config (it has guardrails:) loads as the CLI loads it, manifests
// parse without a problem — and each worked example, linted with its
// config, makes exactly the guardrail findings its output block shows.
func TestGuardrailsDoc(t *testing.T) {
	data, err := os.ReadFile("../../docs/guardrails.md")
	if err != nil {
		t.Fatal(err)
	}
	type example struct{ config, manifests, output string }
	examples := map[string]*example{}
	var order []string
	for i, b := range mdBlocks(string(data)) {
		dir := t.TempDir()
		switch b.lang {
		case "yaml":
			if strings.HasPrefix(b.text, "guardrails:") || strings.Contains(b.text, "\nguardrails:") {
				f := filepath.Join(dir, "gwpol.yaml")
				if err := os.WriteFile(f, []byte(b.text), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, _, err := loadConfig(f); err != nil {
					t.Errorf("block %d (%s): config does not load: %v", i, b.section, err)
				}
				if e := examples[b.section]; e != nil {
					e.config = f
				} else {
					examples[b.section] = &example{config: f}
					order = append(order, b.section)
				}
				continue
			}
			f := filepath.Join(dir, "platform.yaml")
			if err := os.WriteFile(f, []byte(b.text), 0o644); err != nil {
				t.Fatal(err)
			}
			set, err := manifest.Load([]string{f}, manifest.Options{})
			if err != nil || len(set.Problems) > 0 || len(set.Objects) == 0 {
				t.Errorf("block %d (%s): manifests do not load: %v %v", i, b.section, err, set.Problems)
			}
			if e := examples[b.section]; e != nil {
				e.manifests = f
			}
		case "text":
			if e := examples[b.section]; e != nil {
				e.output = b.text
			}
		}
	}
	var worked []string
	for _, s := range order {
		if !strings.HasPrefix(s, "Worked example: ") {
			continue
		}
		worked = append(worked, strings.TrimPrefix(s, "Worked example: "))
		e := examples[s]
		if e.manifests == "" || e.output == "" {
			t.Errorf("%s: a worked example needs a config, manifests and the output", s)
			continue
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSpace(e.output), "\n") {
			m := docFinding.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("%s: output line %q is not LINE:COL SEVERITY CODE MESSAGE", s, l)
				continue
			}
			want = append(want, m[1]+" "+m[3]+" "+m[4])
		}
		var got []string
		for _, f := range guardrailFindings(t, e.config, e.manifests) {
			got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.Code, f.Message))
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: lint makes\n%s\nthe document shows\n%s", s, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	for _, fam := range []string{"kgateway", "Envoy Gateway", "HAPTIC", "WSO2"} {
		if !slices.Contains(worked, fam) {
			t.Errorf("docs/guardrails.md has no worked example for %s", fam)
		}
	}
}
