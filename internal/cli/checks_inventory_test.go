package cli

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// inventoryRow is one row of a controller's check inventory
// (docs/controllers/*-checks.md): its id, source and the test cell.
type inventoryRow struct {
	line          int
	id, src, test string
}

// inventoryRowID is a row's id: a letter and a number (C1, T12).
var inventoryRowID = regexp.MustCompile(`^[A-Z][0-9]+[a-z]?$`)

// inventoryRows reads the table rows of an inventory whose first cell is
// an id.
func inventoryRows(doc string) []inventoryRow {
	var out []inventoryRow
	for i, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		if len(cells) < 3 || !inventoryRowID.MatchString(cells[0]) {
			continue
		}
		out = append(out, inventoryRow{line: i + 1, id: cells[0], src: cells[2], test: cells[len(cells)-1]})
	}
	return out
}

// testFuncs maps each top-level test function of the repository to the
// text of the file that declares it.
func testFuncs(t *testing.T, root string) map[string]string {
	t.Helper()
	decl := regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]*)\(t \*testing\.T\)`)
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEnvoyGatewayChecksInventory: every row of the Envoy Gateway check
// inventory names where the check is in Envoy Gateway's source and a gwpol
// test that exists (for a subtest, the parent test, declared in a file that
// holds the subtest's name as a string), or, for a check gwpol cannot make
// offline, a case of the divergence list.
func TestEnvoyGatewayChecksInventory(t *testing.T) {
	checkInventory(t, "../../docs/controllers/envoygateway-checks.md", "../../testdata/eg-divergences.txt")
}

// TestKgatewayChecksInventory: the same for kgateway's translator, whose
// divergence cases are those of testdata/conformance-divergences.txt.
func TestKgatewayChecksInventory(t *testing.T) {
	checkInventory(t, "../../docs/controllers/kgateway-checks.md", "../../testdata/conformance-divergences.txt")
}

// TestHAPTICChecksInventory: the same for HAPTIC's chart templates.
func TestHAPTICChecksInventory(t *testing.T) {
	checkInventory(t, "../../docs/controllers/haptic-checks.md", "")
}

// TestWSO2ChecksInventory: the same for WSO2's gateway-controller.
func TestWSO2ChecksInventory(t *testing.T) {
	checkInventory(t, "../../docs/controllers/wso2-checks.md", "")
}

// checkInventory fails on every row of the inventory doc that names no
// existing test (or, when divFile is given, no case listed there).
func checkInventory(t *testing.T, doc, divFile string) {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	divergences := map[string]bool{}
	if divFile != "" {
		div, err := os.ReadFile(divFile)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(div), "\n") {
			if name, _, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
				divergences[name] = true
			}
		}
	}
	for _, problem := range inventoryProblems(doc, string(b), testFuncs(t, "../.."), divergences, filepath.Base(divFile)) {
		t.Error(problem)
	}
}

// inventorySource is a row's source: a Go file or a chart template file
// (HAPTIC's are YAML), read at the pinned commit or at the one its
// @revision names, then the function, macro or snippet.
var inventorySource = regexp.MustCompile(`\.(go|yaml)(@[0-9a-f]{7,40})?: \S`)

// inventoryProblems checks the rows of an inventory against the test
// functions (name → text of their file) and the divergence cases.
func inventoryProblems(doc, text string, tests map[string]string, divergences map[string]bool, divFile string) []string {
	var out []string
	rows := inventoryRows(text)
	if len(rows) == 0 {
		return []string{doc + ": no rows"}
	}
	seen := map[string]int{}
	testCell := regexp.MustCompile("^`([^`]+)`$")
	divCell := regexp.MustCompile("^divergence: `([^`]+)`$")
	for _, r := range rows {
		at := doc + ":" + strconv.Itoa(r.line) + ": " + r.id
		if prev, dup := seen[r.id]; dup {
			out = append(out, fmt.Sprintf("%s: id used already on line %d", at, prev))
		}
		seen[r.id] = r.line
		if !inventorySource.MatchString(r.src) {
			out = append(out, fmt.Sprintf("%s: source %q names no file: function", at, r.src))
		}
		if m := divCell.FindStringSubmatch(r.test); m != nil {
			if !divergences[m[1]] {
				out = append(out, fmt.Sprintf("%s: divergence %q is not in %s", at, m[1], divFile))
			}
			continue
		}
		m := testCell.FindStringSubmatch(r.test)
		if m == nil {
			out = append(out, fmt.Sprintf("%s: names no test (want `TestName`, `TestName/subtest` or divergence: `case`), got %q", at, r.test))
			continue
		}
		parent, sub, hasSub := strings.Cut(m[1], "/")
		src, ok := tests[parent]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: no test function %s in the repository", at, parent))
		case hasSub && !strings.Contains(src, `"`+sub+`"`):
			out = append(out, fmt.Sprintf("%s: the file of %s has no subtest named %q", at, parent, sub))
		}
	}
	return out
}

// TestInventoryProblems: the inventory check refuses a row naming a test
// that does not exist, a subtest its parent's file does not name, no test,
// an unknown divergence, a duplicate id and a source without a function;
// a row whose id has a letter (A7b, added after A7) is a row too, and a
// source may name the revision it was read at.
func TestInventoryProblems(t *testing.T) {
	const doc = `| # | check | source | gwpol | test |
|---|---|---|---|---|
| A1 | ok | x.go: f | r | ` + "`TestReal/sub`" + ` |
| A2 | ok | x.go: f | r | divergence: ` + "`known-case`" + ` |
| A3 | bad | x.go: f | r | ` + "`TestMissing`" + ` |
| A4 | bad | x.go: f | r | ` + "`TestReal/nosuch`" + ` |
| A5 | bad | x.go: f | r | not yet |
| A6 | bad | x.go: f | r | divergence: ` + "`unknown-case`" + ` |
| A1 | bad | nowhere | r | ` + "`TestReal`" + ` |
| A7b | ok | x.yaml@0123abc: m | r | ` + "`TestReal`" + ` |
| A7c | bad | x.yaml@0123abc: m | r | ` + "`TestMissing`" + ` |
`
	tests := map[string]string{"TestReal": `t.Run("sub", …)`}
	got := inventoryProblems("d.md", doc, tests, map[string]bool{"known-case": true}, "div.txt")
	want := []string{
		"d.md:5: A3: no test function TestMissing",
		`d.md:6: A4: the file of TestReal has no subtest named "nosuch"`,
		"d.md:7: A5: names no test",
		`d.md:8: A6: divergence "unknown-case" is not in`,
		"d.md:9: A1: id used already on line 3",
		`d.md:9: A1: source "nowhere" names no file: function`,
		"d.md:11: A7c: no test function TestMissing",
	}
	if len(got) != len(want) {
		t.Fatalf("problems =\n%s\nwant %d", strings.Join(got, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want it to start %q", i, got[i], want[i])
		}
	}
}
