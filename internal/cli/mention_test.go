package cli

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
)

// TestGenericPackagesMentionNoFamily scans every non-test Go file of the
// generic packages token by token (go/scanner) and fails on an
// identifier, string literal or comment that holds a family's word: a
// registered controller's title (with or without its spaces: "Envoy
// Gateway", "envoygateway"), a render target's name but upstream
// Envoy's, a family package's name (familyWords). What a controller does
// differently is its family's (policy.Family, policy.Controller,
// policy.Target, a kind's policy.KindSpec); generic code says it by the
// contract's name for it (a controller that ReplacesInvalidWhole…), never
// by whose it is. No file is exempt.
func TestGenericPackagesMentionNoFamily(t *testing.T) {
	reg := families.Registry()
	words := familyWords(t, reg)
	for _, c := range reg.Controllers() {
		if w := strings.ToLower(c.Title); !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	for _, file := range genericSources(t) {
		if n := familyMentions(t, file, words); n > 0 {
			rel, _ := filepath.Rel(repoDir, file)
			t.Errorf("%s: %d identifiers, string literals or comments name a controller family (%s): say it by the family contract's name for it, or move the code into the family", filepath.ToSlash(rel), n, strings.Join(words, ", "))
		}
	}
}

// familyMentions counts the identifiers, string and character literals
// and comments of a Go file that hold one of words (lower case).
func familyMentions(t *testing.T, file string, words []string) int {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(file, -1, len(src)), src, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, scanner.ScanComments)
	n := 0
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return n
		}
		if tok != token.IDENT && tok != token.STRING && tok != token.CHAR && tok != token.COMMENT {
			continue
		}
		low := strings.ToLower(lit)
		if slices.ContainsFunc(words, func(w string) bool { return strings.Contains(low, w) }) {
			n++
		}
	}
}
