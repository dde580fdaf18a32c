package cli

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/policy"
)

// stageOrder is the pipeline; a package may import only stages before it.
// Every package under internal/ is in it but test helpers
// (TestImportsFollowPipeline fails on one that is not, so a new package
// is placed on purpose).
// internal/inert (escaping input strings for output), internal/parallel,
// internal/render/xdsjson (protobuf to JSON and YAML; its YAML escapes
// what inert does) and internal/secret (Secret values and what may be
// said of them) are helpers below every stage, importing none of gwpol's
// but inert;
// internal/linttest (lint fixtures' want comments, for tests) only diag. internal/policy covers the contract and every kind package
// under it. internal/pipeline runs the stages with the families it is
// given, so it comes after all of them; internal/families names the
// families and kinds and gives them to it, before cli alone: no stage or
// view compiles through either, and only a command (package main)
// imports cli. internal/benchgen generates benchmark inputs; its floor
// command runs the CLI.
var stageOrder = []string{
	"internal/inert", "internal/parallel", "internal/render/xdsjson", "internal/secret",
	"internal/diag", "internal/linttest", "internal/manifest", "internal/schema", "internal/model", "internal/policyversion", "internal/topology",
	"internal/policy", "internal/attach", "internal/merge", "internal/status", "internal/guardrail",
	"internal/render/envoy", "internal/explain", "internal/lint", "internal/diff", "internal/graph",
	"internal/pipeline", "internal/families", "internal/cli", "internal/benchgen",
}

func stageOf(pkg string) int {
	best, idx := -1, -1
	for i, s := range stageOrder {
		if (strings.HasSuffix(pkg, "/"+s) || strings.Contains(pkg, "/"+s+"/")) && len(s) > best {
			best, idx = len(s), i
		}
	}
	return idx
}

// TestImportsFollowPipeline keeps STYLE rule 1 true: imports go down the
// pipeline only; go-control-plane only in render/envoy and in a policy
// kind's own render files (render*.go under internal/policy/<kind>/);
// cobra, viper and lipgloss only in cli; cli only in a command. A policy
// kind package (internal/policy/<kind>) is imported only by the kind
// packages and by internal/families, which lists the families and kinds:
// nothing else — cli least of all — names a kind; every stage, view and
// command reaches a kind through the hooks of internal/policy/kind.go.
func TestImportsFollowPipeline(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath, Dir, Name string
			Imports               []string
			GoFiles               []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		from := stageOf(p.ImportPath)
		// A test helper (it imports testing: policytest, golden files…)
		// serves tests only and may stand outside the stages.
		if strings.Contains(p.ImportPath, "/internal/") && from < 0 && !slices.Contains(p.Imports, "testing") {
			t.Errorf("%s is in no stage: add it to stageOrder where the pipeline puts it", p.ImportPath)
		}
		views := map[string]bool{"internal/render/envoy": true, "internal/explain": true, "internal/lint": true}
		for _, imp := range p.Imports {
			if strings.HasSuffix(imp, "/internal/cli") && p.Name != "main" {
				t.Errorf("%s imports %s: only a command (package main) may", p.ImportPath, imp)
			}
			if kindPkg(imp) && !strings.Contains(p.ImportPath, "/internal/policy/") && !strings.HasSuffix(p.ImportPath, "/internal/families") {
				t.Errorf("%s imports %s: only internal/families (the list of families) and kind packages may name a policy kind", p.ImportPath, imp)
			}
			if strings.HasPrefix(imp, "github.com/gwpol/gwpol/internal/") && from >= 0 {
				to := stageOf(imp)
				sameKindPkg := strings.Contains(p.ImportPath, "/internal/policy/") && strings.HasSuffix(imp, "/internal/policy")
				// A stage's sub-package (benchgen/floor) may use the stage's own package.
				within := strings.HasPrefix(p.ImportPath, imp+"/")
				if to > from || (to == from && !sameKindPkg && !within && imp != p.ImportPath && stageOrder[to] != "internal/policy") ||
					(views[stageOrder[max(from, 0)]] && views[stageOrder[max(to, 0)]] && to != from) {
					t.Errorf("%s imports %s: against the pipeline", p.ImportPath, imp)
				}
			}
			if strings.HasPrefix(imp, "github.com/envoyproxy/go-control-plane") && !strings.Contains(p.ImportPath, "/internal/render/envoy") {
				if strings.Contains(p.ImportPath, "/internal/policy/") {
					for _, f := range filesImporting(t, p.Dir, p.GoFiles, imp) {
						if !strings.HasPrefix(f, "render") {
							t.Errorf("%s/%s imports %s: only a kind's render files may", p.ImportPath, f, imp)
						}
					}
					continue
				}
				t.Errorf("%s imports %s: only internal/render/envoy and a kind's render files may", p.ImportPath, imp)
			}
			for _, ui := range []string{"github.com/spf13/cobra", "github.com/spf13/viper", "github.com/charmbracelet/lipgloss"} {
				if strings.HasPrefix(imp, ui) && !strings.Contains(p.ImportPath, "/internal/cli") {
					t.Errorf("%s imports %s: only internal/cli may", p.ImportPath, imp)
				}
			}
		}
	}
}

// kindPkg reports whether path is a package under internal/policy/: a
// policy kind, or a helper of the kinds' tests (policytest).
func kindPkg(path string) bool {
	return strings.HasPrefix(path, "github.com/gwpol/gwpol/internal/policy/")
}

// filesImporting lists the files of a package that import path.
func filesImporting(t *testing.T, dir string, files []string, path string) []string {
	var out []string
	for _, name := range files {
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, is := range f.Imports {
			if p, err := strconv.Unquote(is.Path.Value); err == nil && p == path {
				out = append(out, name)
			}
		}
	}
	return out
}

// genericSources are the non-test Go files of the generic packages: what
// the tests that keep controller behaviour out of them read (a test
// exercises its package with a family's inputs, and may say whose).
func genericSources(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pkg := range genericPackages {
		files, err := filepath.Glob(filepath.Join(repoDir, pkg, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if !strings.HasSuffix(file, "_test.go") {
				out = append(out, file)
			}
		}
	}
	return out
}

// genericPackages are the stages and views that serve every controller
// family alike (DESIGN, "Controller families"): they reach a family only
// through internal/policy's contract, never by its name.
var genericPackages = []string{"internal/model", "internal/topology", "internal/attach", "internal/merge", "internal/status",
	"internal/render/envoy", "internal/explain", "internal/lint", "internal/diff", "internal/graph", "internal/pipeline"}

// TestGenericPackagesNameNoController: no generic package holds a
// registered controller's controllerName, compares a render target's
// name ("is this kgateway?"), or holds a key-like string (no whitespace)
// under a family's API group or domain — an annotation, label, option key
// or API group such as kgateway.dev/route-weight; what a controller does
// differently is its family's policy.Controller and kinds' hooks. (Importing a family is
// TestImportsFollowPipeline's: only internal/families, which lists them.)
func TestGenericPackagesNameNoController(t *testing.T) {
	reg := families.Registry()
	names := reg.TargetNames()
	var controllers []string
	for _, name := range []string{"kgateway.dev/kgateway", "gateway.envoyproxy.io/gatewayclass-controller", "haproxy-haptic.org/controller"} {
		if _, ok := reg.Controller(name); !ok {
			t.Fatalf("%s is not a registered controller: keep this list to the families'", name)
		}
		controllers = append(controllers, name)
	}
	// The families' own vocabulary: their API groups, and the domains their
	// annotation and label keys live under (kgateway.dev/route-weight,
	// delegation.kgateway.dev/label). A key-like string literal (no
	// whitespace: prose in a rule's documentation may name a controller)
	// holding one is a family's, and belongs in its package.
	domains := familyDomains(t, reg)
	for _, file := range genericSources(t) {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING {
					for _, c := range controllers {
						if strings.Contains(s, c) {
							t.Errorf("%s names the controller %s: read it from its family (policy.Controller)", file, c)
						}
					}
					if !strings.ContainsAny(s, " \t\n") {
						for _, d := range domains {
							if s == d || strings.HasSuffix(s, "."+d) || strings.Contains(s, d+"/") || strings.Contains(s, "."+d+"/") {
								t.Errorf("%s holds %q, a controller family's key (API group, annotation or label under %s): declare it in the family's package", file, s, d)
								break
							}
						}
					}
				}
			case *ast.BinaryExpr:
				if x.Op != token.EQL && x.Op != token.NEQ {
					return true
				}
				for _, side := range []ast.Expr{x.X, x.Y} {
					if lit, ok := side.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil && slices.Contains(names, s) {
							t.Errorf("%s compares with the target name %q: give the target (or the family's controller) a trait instead", file, s)
						}
					}
				}
			}
			return true
		})
	}
}

// familyDomains are the API groups of the registered families' kinds
// (policy.Controller.Groups, and the groups of kinds no registered
// controller owns but the Gateway API's) and the domains under them
// (gateway.kgateway.dev → kgateway.dev: kgateway's annotations).
func familyDomains(t *testing.T, reg *policy.Registry) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	add := func(g string) {
		for _, d := range []string{g, strings.TrimPrefix(g, "gateway.")} {
			if d != "" && !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	for _, k := range reg.Kinds() {
		if g := k.GroupKind().Group; g != "gateway.networking.k8s.io" && g != "" {
			add(g)
		}
	}
	if len(out) == 0 {
		t.Fatal("no family API group registered")
	}
	slices.Sort(out)
	return out
}

// TestGenericPackagesDeclareNoFamily: a generic package declares nothing
// named after a controller family — no file, function, type, method,
// field, variable, constant or parameter whose name holds a family's word
// (case-insensitively): a registered controller's title (spaces left
// out: "envoygateway"), a registered render target's name but upstream
// Envoy's, or the name of a family's package that is not a kind's name
// (wso2; a kind's name such as directresponse, whose Envoy
// counterparts — a direct response — generic code may well declare).
// Test files may say whose inputs they exercise the package with.
// What is named after a family is that family's and belongs in its
// package; the generic code reaches it through the contract. Uses of a
// family package's names (wso2.New in the registry) are not declarations,
// and prose in comments and rule documentation may name a controller.
// familyNamed lists what is left, with why; it only shrinks.
func TestGenericPackagesDeclareNoFamily(t *testing.T) {
	words := familyWords(t, families.Registry())
	named := func(name string) string {
		low := strings.ToLower(name)
		for _, w := range words {
			if strings.Contains(low, w) {
				return w
			}
		}
		return ""
	}
	left := map[string]bool{}
	report := func(rel, what, name string) {
		key := rel + ": " + name
		if _, ok := familyNamed[key]; ok {
			left[key] = true
			return
		}
		t.Errorf("%s declares %s %s, named after the family %q: move it into the family's package (or name what it is, not whose)", rel, what, name, named(name))
	}
	for _, file := range genericSources(t) {
		rel, _ := filepath.Rel(repoDir, file)
		rel = filepath.ToSlash(rel)
		if named(strings.TrimSuffix(filepath.Base(file), ".go")) != "" {
			report(rel, "the file", filepath.Base(file))
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for what, id := range declaredNames(f) {
			if named(id.Name) != "" {
				report(rel, what.kind, id.Name)
			}
		}
	}
	for key := range familyNamed {
		if !left[key] {
			t.Errorf("%s is declared no more: remove it from familyNamed", key)
		}
	}
}

// familyNamed are the declarations of generic packages still named after
// a family ("file: name"), with why they are not in the family yet. The
// list only shrinks.
var familyNamed = map[string]string{}

// declared is one declaration of declaredNames.
type declared struct {
	kind string
	pos  token.Pos
}

// declaredNames are the names a file declares: functions and methods,
// types, variables and constants (package-level and local, := included),
// struct fields and interface methods, parameters and results, range
// variables and labels.
func declaredNames(f *ast.File) map[declared]*ast.Ident {
	out := map[declared]*ast.Ident{}
	add := func(kind string, ids ...*ast.Ident) {
		for _, id := range ids {
			if id != nil && id.Name != "_" {
				out[declared{kind, id.Pos()}] = id
			}
		}
	}
	fields := func(kind string, fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, fd := range fl.List {
			add(kind, fd.Names...)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			add("the function", x.Name)
			fields("the receiver", x.Recv)
		case *ast.FuncType:
			fields("the parameter", x.Params)
			fields("the result", x.Results)
		case *ast.TypeSpec:
			add("the type", x.Name)
		case *ast.ValueSpec:
			add("the variable or constant", x.Names...)
		case *ast.StructType:
			fields("the field", x.Fields)
		case *ast.InterfaceType:
			fields("the method", x.Methods)
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, e := range x.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						add("the variable", id)
					}
				}
			}
		case *ast.RangeStmt:
			if x.Tok == token.DEFINE {
				for _, e := range []ast.Expr{x.Key, x.Value} {
					if id, ok := e.(*ast.Ident); ok {
						add("the variable", id)
					}
				}
			}
		case *ast.LabeledStmt:
			add("the label", x.Label)
		}
		return true
	})
	return out
}

// familyWords are the words that name a family (TestGenericPackagesDeclareNoFamily).
func familyWords(t *testing.T, reg *policy.Registry) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		w = strings.ToLower(strings.ReplaceAll(w, " ", ""))
		if w != "" && !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, c := range reg.Controllers() {
		add(c.Title)
	}
	for _, name := range reg.TargetNames() {
		if name != policy.UpstreamTarget.Name {
			add(name)
		}
	}
	kinds := map[string]bool{}
	for _, k := range reg.Kinds() {
		kinds[strings.ToLower(k.GroupKind().Kind)] = true
	}
	for _, k := range reg.Kinds() {
		typ := reflect.TypeOf(k)
		for typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if pkg := filepath.Base(typ.PkgPath()); !kinds[pkg] {
			add(pkg)
		}
	}
	for _, w := range []string{"kgateway", "envoygateway", "haptic", "wso2"} {
		if !seen[w] {
			t.Fatalf("%s names no registered family any more: keep the words to the families'", w)
		}
	}
	slices.Sort(out)
	return out
}
