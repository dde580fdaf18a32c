package families

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/envoygateway"
	"github.com/gwpol/gwpol/internal/policy/kgateway"
)

// hooks are the interfaces of the policy-kind contract
// (internal/policy/kind.go) that a kind implements.
var hooks = []reflect.Type{
	reflect.TypeFor[policy.Kind](),
	reflect.TypeFor[policy.Auxiliary](),
	reflect.TypeFor[policy.Untranslator](),
	reflect.TypeFor[policy.BackendProvider](),
	reflect.TypeFor[policy.RuleChecker](),
	reflect.TypeFor[policy.NamespaceSelecting](),
	reflect.TypeFor[policy.DeepConflicter](),
	reflect.TypeFor[policy.Inheritor](),
	reflect.TypeFor[policy.RuleFielder](),
	reflect.TypeFor[policy.TargetRuleFielder](),
	reflect.TypeFor[policy.Instancer](),
	reflect.TypeFor[policy.DeepResetter](),
	reflect.TypeFor[policy.WholeOverrider](),
	reflect.TypeFor[policy.StreamListenerConfigurer](),
	reflect.TypeFor[policy.InvalidKeeper](),
	reflect.TypeFor[policy.PortScoper](),
	reflect.TypeFor[policy.Renderer](),
	reflect.TypeFor[policy.ConditionWriter](),
	reflect.TypeFor[policy.ObjectStatuser](),
	reflect.TypeFor[policy.RouteStatuser](),
	reflect.TypeFor[policy.GraphRefiner](),
	reflect.TypeFor[policy.Identifier](),
	reflect.TypeFor[policy.RuleNoter](),
	reflect.TypeFor[policy.ObjectExplainer](),
	reflect.TypeFor[policy.Standalone](),
	reflect.TypeFor[policy.LintRuleOwner](),
	reflect.TypeFor[policy.Answerer](),
	reflect.TypeFor[policy.BackendClusterer](),
	reflect.TypeFor[policy.BackendDescriber](),
	reflect.TypeFor[policy.PortlessBackends](),
	reflect.TypeFor[policy.BackendAppProtocoler](),
	reflect.TypeFor[policy.BackendCaller](),
	reflect.TypeFor[policy.BackendReferrer](),
	reflect.TypeFor[policy.Disabler](),
	reflect.TypeFor[policy.Enabler](),
	reflect.TypeFor[policy.ValueTyper](),
	reflect.TypeFor[policy.ClusterSetter](),
}

// notHooks are the contract's interfaces that no kind implements: what a
// hook returns.
var notHooks = []string{"ObjectView"}

// TestContractListsEveryHook: hooks above are the interfaces kind.go
// declares, and kind.go's opening comment names each with who calls it.
func TestContractListsEveryHook(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../policy/kind.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			if ts, ok := s.(*ast.TypeSpec); ok {
				if _, ok := ts.Type.(*ast.InterfaceType); ok && !slices.Contains(notHooks, ts.Name.Name) {
					declared = append(declared, ts.Name.Name)
				}
			}
		}
	}
	var listed []string
	for _, h := range hooks {
		listed = append(listed, h.Name())
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Errorf("kind.go declares hooks %v; this test knows %v: add the new one to hooks (or notHooks)", declared, listed)
	}
	var header string
	for _, cg := range f.Comments {
		if cg.Pos() < f.Package || cg.End() < f.Decls[0].Pos() {
			header += cg.Text()
		}
	}
	for _, name := range declared {
		found := false
		for _, line := range strings.Split(header, "\n") {
			if first, rest, ok := strings.Cut(strings.TrimSpace(line), " "); ok && first == name && strings.Contains(rest, ": ") {
				found = true
			}
		}
		if !found {
			t.Errorf("kind.go's opening comment does not list %s with who calls it (\"%s   CALLER: what for\")", name, name)
		}
	}
}

// TestKindsAssertTheirHooks: every registered kind asserts each hook it
// implements with a `var _ policy.X = …` line in its package, and no kind
// has a hook's method with another signature (which would silently turn
// the hook off).
func TestKindsAssertTheirHooks(t *testing.T) {
	asserted := map[string]map[string]bool{} // package path → "Type Hook"
	seen := map[reflect.Type]bool{}
	for _, k := range Registry().Kinds() {
		typ := reflect.TypeOf(k)
		if seen[typ] {
			continue // another kind of the same type (WSO2's API kinds)
		}
		seen[typ] = true
		named := typ
		if named.Kind() == reflect.Pointer {
			named = named.Elem()
		}
		pkg := named.PkgPath()
		if asserted[pkg] == nil {
			asserted[pkg] = assertions(t, filepath.Join("../..", strings.TrimPrefix(pkg, "github.com/gwpol/gwpol/")))
		}
		for _, h := range hooks {
			if typ.Implements(h) {
				if !asserted[pkg][named.Name()+" "+h.Name()] {
					t.Errorf("%s.%s implements policy.%s without a `var _ policy.%s = …` assertion", pkg, named.Name(), h.Name(), h.Name())
				}
				continue
			}
			for i := range h.NumMethod() {
				if m := h.Method(i); hasMethod(typ, m.Name) {
					t.Errorf("%s.%s has %s but not policy.%s's signature %s: the hook is off", pkg, named.Name(), m.Name, h.Name(), m.Type)
				}
			}
		}
	}
}

func hasMethod(typ reflect.Type, name string) bool {
	if _, ok := typ.MethodByName(name); ok {
		return true
	}
	if typ.Kind() != reflect.Pointer {
		_, ok := reflect.PointerTo(typ).MethodByName(name)
		return ok
	}
	return false
}

// assertions reads the `var _ policy.X = T{}` and `= (*T)(nil)` lines of
// the non-test files in dir, as "T X".
func assertions(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs, ok := s.(*ast.ValueSpec)
				if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "_" || len(vs.Values) != 1 {
					continue
				}
				sel, ok := vs.Type.(*ast.SelectorExpr)
				if !ok {
					continue
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "policy" {
					continue
				}
				if name := assertedType(vs.Values[0]); name != "" {
					out[name+" "+sel.Sel.Name] = true
				}
			}
		}
	}
	return out
}

// assertedType is T of T{} or (*T)(nil).
func assertedType(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.CompositeLit:
		if id, ok := v.Type.(*ast.Ident); ok {
			return id.Name
		}
	case *ast.CallExpr:
		if p, ok := v.Fun.(*ast.ParenExpr); ok {
			if st, ok := p.X.(*ast.StarExpr); ok {
				if id, ok := st.X.(*ast.Ident); ok {
					return id.Name
				}
			}
		}
	}
	return ""
}

// TestGrantRules: each registered controller carries its family's
// ReferenceGrant rule into topology (policy.Family.Grants,
// topology.Controller.Grants): kgateway reads a group written "core" as
// the core group (RefGrantIndex's emptyIfCore); Envoy Gateway compares
// groups as written (isCrossNamespaceReferencePermitted), as does every
// other family.
func TestGrantRules(t *testing.T) {
	ctrls := Registry().TopologyControllers(policy.Config{})
	if len(ctrls) < 2 {
		t.Fatalf("controllers: %d", len(ctrls))
	}
	for name, c := range ctrls {
		if want := name == kgateway.ControllerName; c.Grants.CoreAlias != want {
			t.Errorf("%s: CoreAlias = %v, want %v", name, c.Grants.CoreAlias, want)
		}
	}
	if _, ok := ctrls[envoygateway.ControllerName]; !ok {
		t.Errorf("Envoy Gateway's controller %s not registered", envoygateway.ControllerName)
	}
}
