package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsFresh fails when completions/, man/ or the README's rule list no
// longer match the command tree; run `go generate ./...` to refresh.
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
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), RulesTable()) {
		t.Errorf("README.md's lint rule table is stale; run `go generate ./...`")
	}
}
