package lint_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/lint"
)

// declaredRule is a diag.Rule composite literal at package level.
type declaredRule struct {
	pos        token.Position
	pkg, name  string // the package and variable holding it
	code, rule string // its Code and Name
}

// codeLiteral is a string literal that is, or starts with, a lint code
// (what `grep '"GWP[0-9]'` finds). A code named inside prose — a help
// text's "(GWP404, …)", explain's "(GWP209)" — documents the rule, as a
// comment does; it does not make a finding.
var codeLiteral = regexp.MustCompile("^[\"`]GWP[0-9]")

// TestCodesOnlyInRuleDeclarations keeps lint codes values: in the Go
// source under internal/ (tests aside), a string starting with "GWPnnn"
// appears only as the Code of a package-level `var X = diag.Rule{…}`; every finding and
// every message takes its code from such a value. Each rule variable is
// named after its rule (Lint + the Name in CamelCase; lint's own without
// the prefix), and lint's registry lists exactly the rules declared.
func TestCodesOnlyInRuleDeclarations(t *testing.T) {
	var declared []declaredRule
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		allowed := map[*ast.BasicLit]bool{}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, v := range vs.Values {
					if r, lit, ok := ruleLiteral(f.Name.Name, v); ok && i < len(vs.Names) {
						allowed[lit] = true
						r.pos, r.pkg, r.name = fset.Position(lit.Pos()), f.Name.Name, vs.Names[i].Name
						declared = append(declared, r)
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && codeLiteral.MatchString(lit.Value) && !allowed[lit] {
				t.Errorf("%s: lint code in %s; take it from the rule's value (diag.Rule declared at package level, e.g. policy.LintPolicyInvalid.Code)",
					fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(declared) == 0 {
		t.Fatal("no diag.Rule declarations found under internal/")
	}
	registry := map[string]lint.Rule{}
	for _, r := range lint.Rules(families.Registry()) {
		registry[r.Code] = r
	}
	codes := map[string]declaredRule{}
	for _, d := range declared {
		if prev, dup := codes[d.code]; dup {
			t.Errorf("%s: %s is declared again (first at %s); a code is never reused", d.pos, d.code, prev.pos)
		}
		codes[d.code] = d
		want := "Lint" + strings.ReplaceAll(d.rule, "-", "")
		if d.pkg == "lint" {
			want = strings.TrimPrefix(want, "Lint")
		}
		if !strings.EqualFold(d.name, want) {
			t.Errorf("%s: the rule %s (%s) is held by %s; name it %s (in CamelCase), so it is found by its name", d.pos, d.code, d.rule, d.name, want)
		}
		if r, ok := registry[d.code]; !ok || r.Name != d.rule {
			t.Errorf("%s: %s (%s) is not in lint's registry: list it in its package's LintRules (or its kind's)", d.pos, d.code, d.rule)
		}
	}
	for code := range registry {
		if _, ok := codes[code]; !ok {
			t.Errorf("%s is in lint's registry but declared nowhere under internal/", code)
		}
	}
}

// ruleLiteral reads a diag.Rule{…} composite literal (Rule{…} inside
// package diag) and the literal holding its Code.
func ruleLiteral(pkg string, e ast.Expr) (declaredRule, *ast.BasicLit, bool) {
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return declaredRule{}, nil, false
	}
	switch typ := cl.Type.(type) {
	case *ast.SelectorExpr:
		if x, ok := typ.X.(*ast.Ident); !ok || x.Name != "diag" || typ.Sel.Name != "Rule" {
			return declaredRule{}, nil, false
		}
	case *ast.Ident:
		if pkg != "diag" || typ.Name != "Rule" {
			return declaredRule{}, nil, false
		}
	default:
		return declaredRule{}, nil, false
	}
	var r declaredRule
	var codeLit *ast.BasicLit
	for _, el := range cl.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, _ := kv.Key.(*ast.Ident)
		lit, _ := kv.Value.(*ast.BasicLit)
		if key == nil || lit == nil || lit.Kind != token.STRING {
			continue
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			continue
		}
		switch key.Name {
		case "Code":
			r.code, codeLit = s, lit
		case "Name":
			r.rule = s
		}
	}
	return r, codeLit, codeLit != nil
}
