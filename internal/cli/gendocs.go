package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// newGenDocsCmd is the hidden command behind `go generate ./...`: it writes
// shell completions to completions/, a man page per command to man/ and
// the lint rule catalogue to docs/lint-rules.md.
func newGenDocsCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "__gendocs ROOT",
		Hidden: true,
		Args:   exactArgs(1, "the repository root"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return GenerateDocs(cmd.Root(), args[0])
		},
	}
}

// GenerateDocs writes completions and man pages for the tree under dir.
func GenerateDocs(root *cobra.Command, dir string) error {
	files, err := RenderDocs(root)
	if err != nil {
		return err
	}
	for _, sub := range []string{"completions", "man"} {
		old, _ := filepath.Glob(filepath.Join(dir, sub, "*"))
		for _, f := range old {
			if _, keep := files[mustRel(dir, f)]; !keep {
				_ = os.Remove(f) // orphans from renamed commands
			}
		}
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func mustRel(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return filepath.ToSlash(r)
}

// RenderDocs renders completions and man pages in memory, keyed by their
// path relative to the repository root; the staleness test compares these
// with the committed files.
func RenderDocs(root *cobra.Command) (map[string][]byte, error) {
	root.DisableAutoGenTag = true
	// cobra adds these lazily on Execute; add them now so the pages are
	// the same whether generated from the binary or from a test.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	out := map[string][]byte{"docs/lint-rules.md": []byte(RulesDoc())}
	gens := map[string]func(*bytes.Buffer) error{
		"completions/gwpol.bash": func(b *bytes.Buffer) error { return root.GenBashCompletionV2(b, true) },
		"completions/gwpol.zsh":  func(b *bytes.Buffer) error { return root.GenZshCompletion(b) },
		"completions/gwpol.fish": func(b *bytes.Buffer) error { return root.GenFishCompletion(b, true) },
		"completions/gwpol.ps1":  func(b *bytes.Buffer) error { return root.GenPowerShellCompletionWithDesc(b) },
	}
	for name, gen := range gens {
		var b bytes.Buffer
		if err := gen(&b); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = b.Bytes()
	}
	manDate := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) // fixed: regenerating must not change the files
	header := &doc.GenManHeader{Title: "GWPOL", Section: "1", Source: "gwpol", Manual: "gwpol manual", Date: &manDate}
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if c.Hidden || (!c.IsAvailableCommand() && c != root) {
			return nil
		}
		c.DisableAutoGenTag = true
		var b bytes.Buffer
		if err := doc.GenMan(c, header, &b); err != nil {
			return err
		}
		name := "man/" + joinDash(c.CommandPath()) + ".1"
		out[name] = manSections(b.Bytes())
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(root)
}

// manExitStatus is every page's EXIT STATUS section: the codes are the
// same for every command and every output format.
const manExitStatus = `.SH EXIT STATUS
.TP
.B 0
Success: no lint finding at or above --fail-on; no change for diff --exit-code.
.TP
.B 1
lint: findings at or above --fail-on; diff --exit-code: the effective policy changed.
.TP
.B 2
Usage error: a bad flag, argument, config key or value, or an unknown target (with the nearest valid one).
.TP
.B 3
Input unreadable or unparseable (FILE:LINE:COL), or no Kubernetes object in it (--allow-empty accepts that). lint still writes its whole report, in every format.
.TP
.B 4
Internal error (a bug in gwpol; please report it).
`

// manSections gives a generated page the sections cobra does not write:
// EXAMPLES (cobra calls it EXAMPLE) and EXIT STATUS, before SEE ALSO.
func manSections(page []byte) []byte {
	s := strings.Replace(string(page), ".SH EXAMPLE\n", ".SH EXAMPLES\n", 1)
	if i := strings.Index(s, ".SH SEE ALSO"); i >= 0 {
		return []byte(s[:i] + manExitStatus + s[i:])
	}
	return []byte(s + manExitStatus)
}

func joinDash(path string) string {
	b := []byte(path)
	for i := range b {
		if b[i] == ' ' {
			b[i] = '-'
		}
	}
	return string(b)
}
