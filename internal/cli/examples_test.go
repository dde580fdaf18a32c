package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// examplePaths stand in for the placeholder paths of the help examples:
// every manifest path is the examples directory, and files the examples
// write go to a temporary directory.
func examplePaths(tmp string) map[string]string {
	const ex = "testdata/examples"
	return map[string]string{
		"manifests/": ex, "manifests": ex, "/tmp/main/manifests": ex, "old.yaml": ex, "new.yaml": ex,
		"envoy.yaml": filepath.Join(tmp, "envoy.yaml"),
	}
}

// TestHelpExamplesRun (issue 16) runs every gwpol line of every command's
// help examples, as written, against testdata/examples: each must run
// (exit 0, or 1 where the example reports findings or changes), never end
// in a usage, input or internal error. What follows a pipe or a
// redirection is the shell's, not gwpol's, and is left out.
func TestHelpExamplesRun(t *testing.T) {
	ios, _, _ := Test("", false)
	paths := examplePaths(t.TempDir())
	n := 0
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if !strings.HasPrefix(line, "gwpol ") {
				continue // another program's step (git worktree add)
			}
			if i := strings.IndexAny(line, "|>"); i >= 0 {
				line = strings.TrimSpace(line[:i])
			}
			args := strings.Fields(line)[1:]
			for i, a := range args {
				if p, ok := paths[a]; ok {
					args[i] = p
				}
			}
			n++
			t.Run(c.CommandPath()+": "+line, func(t *testing.T) {
				_, stderr, code := run(t, args...)
				if code != ExitOK && code != ExitFindings {
					t.Errorf("%q: exit %d: %s", strings.Join(args, " "), code, stderr)
				}
			})
		}
		for _, sub := range c.Commands() {
			visit(sub)
		}
	}
	visit(NewRootCmd(ios))
	if n < 10 {
		t.Errorf("only %d examples found; the walk over the help is broken", n)
	}
}
