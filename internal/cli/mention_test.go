package cli

import (
	"go/scanner"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
)

// TestGenericPackagesMentionNoFamily scans every non-test Go file of the
// generic packages token by token (go/scanner) and counts the
// identifiers, string literals and comments that hold a family's word: a
// registered controller's title (with or without its spaces: "Envoy
// Gateway", "envoygateway"), a render target's name but upstream
// Envoy's, a family package's name (familyWords). What a controller does
// differently is its family's (policy.Family, policy.Controller,
// policy.Target); generic code says it by the contract's name for it (a
// controller that ReplacesInvalidWhole…), never by whose it is.
// mentionsLeft lists the files that still do, with how many tokens and
// why; a file's count may only go down, and the entry must follow it.
func TestGenericPackagesMentionNoFamily(t *testing.T) {
	reg := families.Registry()
	words := familyWords(t, reg)
	for _, c := range reg.Controllers() {
		if w := strings.ToLower(c.Title); !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	got := map[string]int{}
	for _, file := range genericSources(t) {
		rel, _ := filepath.Rel(repoDir, file)
		rel = filepath.ToSlash(rel)
		if n := familyMentions(t, file, words); n > 0 {
			got[rel] = n
		}
	}
	for _, rel := range slices.Sorted(maps.Keys(got)) {
		left, listed := mentionsLeft[rel]
		switch {
		case !listed:
			t.Errorf("%s: %d identifiers, string literals or comments name a controller family (%s): say it by the family contract's name for it, or move the code into the family", rel, got[rel], strings.Join(words, ", "))
		case got[rel] > left.tokens:
			t.Errorf("%s: %d tokens name a controller family, more than the %d mentionsLeft allows: the list only shrinks", rel, got[rel], left.tokens)
		case got[rel] < left.tokens:
			t.Errorf("%s: %d tokens name a controller family, fewer than the %d mentionsLeft lists: lower its entry", rel, got[rel], left.tokens)
		}
	}
	for rel := range mentionsLeft {
		if got[rel] == 0 {
			t.Errorf("%s names no controller family any more: remove it from mentionsLeft", rel)
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

// mentionLeft is a file's count of tokens naming a family, and why they
// are still there.
type mentionLeft struct {
	tokens int
	why    string
}

// mentionsLeft are the files of generic packages whose identifiers,
// strings or comments still name a controller family
// (TestGenericPackagesMentionNoFamily), with why. It only shrinks.
var mentionsLeft = map[string]mentionLeft{
	"internal/attach/attach.go": {1, "kgateway's lenient resolution of a backendRef filter naming no policy (skipped, a warning), applied to every kind that takes backendRef filters; to move: a kind or controller trait"},
	"internal/merge/result.go":  {1, "merge points are kgateway's Envoy resources (an HTTPS listener's policies merge with its Gateway's as one group, IncludesGateway), which Envoy Gateway's listener-level verdicts rely on as well; to move: a controller trait for how listener and Gateway levels combine"},
	"internal/model/types.go":   {1, "the CA ConfigMap reading follows kgateway's sslutils"},
	"internal/topology/tls.go":  {1, "one unusable frontend CA leaves the listener unserved, as kgateway serves none of it (and Envoy Gateway's listener step refuses it too: validate.go, frontendTLSValidation.ValidateError), in the generic listener verdict while the Gateway API refuses the listener only when every CA is unusable; to move: the family's Listeners step"},
}
