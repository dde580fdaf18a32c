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
// shell completions to completions/ and a man page per command to man/.
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
	if err := updateReadme(filepath.Join(dir, "README.md")); err != nil {
		return err
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
	out := map[string][]byte{}
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
		out[name] = b.Bytes()
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(root)
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

// updateReadme writes the rule table between the README's markers.
func updateReadme(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	const start, end = "<!-- rules:start -->\n", "<!-- rules:end -->"
	s := string(data)
	i, j := strings.Index(s, start), strings.Index(s, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s: rule table markers not found", path)
	}
	s = s[:i+len(start)] + RulesTable() + s[j:]
	return os.WriteFile(path, []byte(s), 0o644)
}
