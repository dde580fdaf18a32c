package merge

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// testKind is a policy kind with two shallow fields, one deep-capable
// field and one that deep-merges by default but conflicts on "deny".
type testKind struct{}

func (testKind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: "test.gwpol.dev", Kind: "TestPolicy"}
}
func (testKind) Spec() policy.KindSpec {
	return policy.KindSpec{ConfigKey: "testPolicy", Fields: []policy.FieldSpec{
		{Key: "a", Default: policy.AugmentedShallow},
		{Key: "b", Default: policy.AugmentedShallow},
		{Key: "list", Deep: true, Default: policy.AugmentedShallow},
		{Key: "acl", Deep: true, Default: policy.AugmentedDeep},
	}}
}
func (testKind) Decode(*manifest.Object, *policy.Env) *policy.Policy { return nil }
func (testKind) DeepConflict(key string, a, b any) bool {
	return key == "acl" && (a == "deny" || b == "deny")
}

// testMerge is the test family's deployment setting that gives testKind's
// deep-capable fields a strategy by name (DeepMerge, ShallowMerge), as a
// controller's deployment may (policy.DeploymentTraits.FieldStrategy).
var testMerge = policy.Setting{Key: "testMerge", Default: map[string]any{}}

// testRegistry registers testKind with its family.
var testRegistry = func() *policy.Registry {
	reg := policy.NewRegistry(testKind{})
	reg.AddFamilies(policy.Family{Name: "test", Settings: []policy.Setting{testMerge},
		Controller: &policy.Controller{Name: "test.gwpol.dev/controller", Groups: []string{"test.gwpol.dev"}},
		Deployment: policy.DeploymentTraits{FieldStrategy: func(cfg policy.Config, _ policy.Kind, field string) (policy.Strategy, bool) {
			switch testMerge.Section(cfg)[field] {
			case "DeepMerge":
				return policy.AugmentedDeep, true
			case "ShallowMerge":
				return policy.AugmentedShallow, true
			}
			return "", false
		}}})
	return reg
}()

func pol(name string, weight int32, age int, values map[string]any) *policy.Policy {
	p := &policy.Policy{Kind: testKind{}, Obj: &manifest.Object{Namespace: "ns", Name: name}, Weight: weight, Values: values}
	if age > 0 {
		p.Created = time.Unix(int64(age), 0)
	}
	return p
}

func cands(ps ...*policy.Policy) []*Candidate {
	var out []*Candidate
	for _, p := range ps {
		out = append(out, &Candidate{Policy: p, Via: attach.ViaTargetRef, Level: LevelRoute})
	}
	return out
}

func names(cs []*Candidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Policy.Obj.Name)
	}
	return out
}

type fieldWant struct {
	Strategy     policy.Strategy
	Contributors []string
	Losers       []string
}

func TestMergeLevel(t *testing.T) {
	p1 := pol("p1", 0, 1, map[string]any{"a": 1, "list": "x1", "acl": "allow"})
	p2 := pol("p2", 0, 2, map[string]any{"a": 2, "b": 2, "list": "x2", "acl": "allow"})
	p3 := pol("p3", 0, 3, map[string]any{"acl": "deny"})
	tests := []struct {
		name string
		in   []*Candidate
		cfg  policy.Config
		want map[string]fieldWant
	}{
		{"first setter wins shallow fields, later ones fill the rest",
			cands(p1, p2), policy.Config{},
			map[string]fieldWant{
				"a":    {policy.AugmentedShallow, []string{"p1"}, []string{"p2"}},
				"b":    {policy.AugmentedShallow, []string{"p2"}, []string{}},
				"list": {policy.AugmentedShallow, []string{"p1"}, []string{"p2"}},
				"acl":  {policy.AugmentedDeep, []string{"p1", "p2"}, []string{}},
			}},
		{"configured deep merge concatenates, higher priority first",
			cands(p1, p2), policy.Config{}.WithSetting(testMerge.Key, map[string]any{"list": "DeepMerge"}),
			map[string]fieldWant{
				"a":    {policy.AugmentedShallow, []string{"p1"}, []string{"p2"}},
				"b":    {policy.AugmentedShallow, []string{"p2"}, []string{}},
				"list": {policy.AugmentedDeep, []string{"p1", "p2"}, []string{}},
				"acl":  {policy.AugmentedDeep, []string{"p1", "p2"}, []string{}},
			}},
		{"ShallowMerge turns off a default deep merge",
			cands(p1, p2), policy.Config{}.WithSetting(testMerge.Key, map[string]any{"acl": "ShallowMerge"}),
			map[string]fieldWant{
				"a":    {policy.AugmentedShallow, []string{"p1"}, []string{"p2"}},
				"b":    {policy.AugmentedShallow, []string{"p2"}, []string{}},
				"list": {policy.AugmentedShallow, []string{"p1"}, []string{"p2"}},
				"acl":  {policy.AugmentedShallow, []string{"p1"}, []string{"p2"}},
			}},
		{"the deployment's strategy is for deep-capable fields only",
			cands(p1, p2), policy.Config{}.WithSetting(testMerge.Key, map[string]any{"a": "DeepMerge"}),
			map[string]fieldWant{
				"a":    {policy.AugmentedShallow, []string{"p1"}, []string{"p2"}},
				"b":    {policy.AugmentedShallow, []string{"p2"}, []string{}},
				"list": {policy.AugmentedShallow, []string{"p1"}, []string{"p2"}},
				"acl":  {policy.AugmentedDeep, []string{"p1", "p2"}, []string{}},
			}},
		{"a deep-merge conflict falls back to shallow",
			cands(p3, p1), policy.Config{},
			map[string]fieldWant{
				"a":    {policy.AugmentedShallow, []string{"p1"}, []string{}},
				"list": {policy.AugmentedShallow, []string{"p1"}, []string{}},
				"acl":  {policy.AugmentedShallow, []string{"p3"}, []string{"p1"}},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pt := mergeLevel(testRegistry, testKind{}, tt.in, tt.cfg)
			got := map[string]fieldWant{}
			for _, f := range pt.Fields {
				got[f.Key] = fieldWant{f.Strategy, names(f.Contributors), names(f.Losers)}
				if f.Owner != f.Contributors[0] || len(f.Values) != len(f.Contributors) {
					t.Errorf("%s: owner/values inconsistent with contributors", f.Key)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCombineStrategies(t *testing.T) {
	hi, mid, lo := pol("hi", 0, 0, map[string]any{"a": 1}), pol("mid", 0, 0, map[string]any{"a": 2}), pol("lo", 0, 0, map[string]any{"a": 3})
	tests := []struct {
		s                    policy.Strategy
		contributors, losers []string
	}{
		{policy.AugmentedShallow, []string{"hi"}, []string{"mid", "lo"}},
		{policy.OverridableShallow, []string{"lo"}, []string{"hi", "mid"}},
		{policy.AugmentedDeep, []string{"hi", "mid", "lo"}, []string{}},
		{policy.OverridableDeep, []string{"lo", "mid", "hi"}, []string{}},
	}
	for _, tt := range tests {
		f := combine(testKind{}, "a", tt.s, cands(hi, mid, lo))
		if diff := cmp.Diff([]any{tt.contributors, tt.losers}, []any{names(f.Contributors), names(f.Losers)}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.s, diff)
		}
	}
}

func TestTiesOnlyWhenNameDecides(t *testing.T) {
	a, b := pol("a", 0, 0, map[string]any{"a": 1}), pol("b", 0, 0, map[string]any{"a": 2})
	if pt := mergeLevel(testRegistry, testKind{}, cands(a, b), policy.Config{}); len(pt.Ties) != 1 || pt.Ties[0].Fields[0] != "a" {
		t.Errorf("undated equal-weight policies sharing a field: ties = %+v, want one on field a", pt.Ties)
	}
	older := pol("b", 0, 1, map[string]any{"a": 2})
	if pt := mergeLevel(testRegistry, testKind{}, cands(older, a), policy.Config{}); len(pt.Ties) != 0 {
		t.Errorf("a dated policy orders before an undated one; no tie expected, got %+v", pt.Ties)
	}
	heavy := pol("z", 5, 0, map[string]any{"a": 2})
	if pt := mergeLevel(testRegistry, testKind{}, cands(heavy, a), policy.Config{}); len(pt.Ties) != 0 {
		t.Errorf("weight decides; no tie expected, got %+v", pt.Ties)
	}
}

func TestFoldAcrossDelegation(t *testing.T) {
	child := mergeLevel(testRegistry, testKind{}, cands(pol("child", 0, 0, map[string]any{"a": 1, "list": "c"})), policy.Config{})
	parent := mergeLevel(testRegistry, testKind{}, cands(pol("parent", 0, 0, map[string]any{"a": 2, "b": 2, "list": "p"})), policy.Config{})
	tests := []struct {
		s    policy.Strategy
		want map[string]fieldWant
	}{
		{policy.AugmentedShallow, map[string]fieldWant{ // ShallowMergePreferChild
			"a": {policy.AugmentedShallow, []string{"child"}, []string{"parent"}}, "b": {policy.AugmentedShallow, []string{"parent"}, []string{}},
			"list": {policy.AugmentedShallow, []string{"child"}, []string{"parent"}}}},
		{policy.OverridableShallow, map[string]fieldWant{ // ShallowMergePreferParent
			"a": {policy.OverridableShallow, []string{"parent"}, []string{"child"}}, "b": {policy.AugmentedShallow, []string{"parent"}, []string{}},
			"list": {policy.OverridableShallow, []string{"parent"}, []string{"child"}}}},
		{policy.AugmentedDeep, map[string]fieldWant{ // DeepMergePreferChild
			"a": {policy.AugmentedShallow, []string{"child"}, []string{"parent"}}, "b": {policy.AugmentedShallow, []string{"parent"}, []string{}},
			"list": {policy.AugmentedDeep, []string{"child", "parent"}, []string{}}}},
		{policy.OverridableDeep, map[string]fieldWant{ // DeepMergePreferParent
			"a": {policy.OverridableShallow, []string{"parent"}, []string{"child"}}, "b": {policy.AugmentedShallow, []string{"parent"}, []string{}},
			"list": {policy.OverridableDeep, []string{"parent", "child"}, []string{}}}},
	}
	for _, tt := range tests {
		pt := fold(testKind{}, child, parent, tt.s)
		got := map[string]fieldWant{}
		for _, f := range pt.Fields {
			got[f.Key] = fieldWant{f.Strategy, names(f.Contributors), names(f.Losers)}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.s, diff)
		}
		if len(pt.Candidates) != 2 {
			t.Errorf("%s: candidates from both levels expected, got %d", tt.s, len(pt.Candidates))
		}
	}
}

// TestRuleFieldsWinAcrossDelegation: a rule's own value beats every
// policy at every level; between a child's and its parent's own values
// the parent route's inherit strategy decides, as between policies.
func TestRuleFieldsWinAcrossDelegation(t *testing.T) {
	own := func(name string, v any) *Field {
		c := &Candidate{Policy: &policy.Policy{Kind: testKind{}, Obj: &manifest.Object{Namespace: "ns", Name: name}, BuiltIn: &policy.BuiltIn{}}, Level: LevelRule}
		return &Field{Key: "a", Strategy: policy.AugmentedShallow, Owner: c, Contributors: []*Candidate{c}, Values: []any{v}}
	}
	point := func(pol *policy.Policy, rule *Field) *Point {
		pt := mergeLevel(testRegistry, testKind{}, cands(pol), policy.Config{})
		if rule != nil {
			pt.Rule = []*Field{rule}
		}
		pt.layer()
		return pt
	}
	tests := []struct {
		name         string
		child, par   *Point
		s            policy.Strategy
		contributors []string
		losers       []string
	}{
		{"the parent rule's own value beats the child's policy",
			point(pol("child", 0, 0, map[string]any{"a": 1}), nil), point(pol("parent", 0, 0, map[string]any{}), own("parent-rule", 2)),
			policy.AugmentedShallow, []string{"parent-rule"}, []string{"child"}},
		{"prefer child: the child's own value beats the parent's",
			point(pol("child", 0, 0, map[string]any{}), own("child-rule", 1)), point(pol("parent", 0, 0, map[string]any{"a": 3}), own("parent-rule", 2)),
			policy.AugmentedShallow, []string{"child-rule"}, []string{"parent-rule", "parent"}},
		{"prefer parent: the parent's own value beats the child's",
			point(pol("child", 0, 0, map[string]any{"a": 1}), own("child-rule", 1)), point(pol("parent", 0, 0, map[string]any{}), own("parent-rule", 2)),
			policy.OverridableShallow, []string{"parent-rule"}, []string{"child-rule", "child"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fold(testKind{}, tt.child, tt.par, tt.s).Field("a")
			if f == nil {
				t.Fatal("field a missing after fold")
			}
			if diff := cmp.Diff([]any{tt.contributors, tt.losers}, []any{names(f.Contributors), names(f.Losers)}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// instanceKind is testKind whose "acl" values each configure the instance
// their string names ("" none).
type instanceKind struct{ testKind }

func (instanceKind) Instance(_ string, v any, _ string) string { s, _ := v.(string); return s }

// TestOncePerInstance: a deep merge takes each named instance from the
// first value merged for it, at one level (combine) and when a delegating
// parent's result folds into a child's (foldField, either deep direction):
// the later value for a taken instance is a loser; values naming none
// always merge.
func TestOncePerInstance(t *testing.T) {
	k := instanceKind{}
	c := func(name, inst string) *Candidate {
		return &Candidate{Policy: &policy.Policy{Kind: k, Obj: &manifest.Object{Namespace: "ns", Name: name}, Values: map[string]any{"acl": inst}}, Level: LevelRoute}
	}
	a, b, x, none := c("a", "p"), c("b", "p"), c("x", "q"), c("none", "")
	f := combine(k, "acl", policy.AugmentedDeep, []*Candidate{a, x, b, none})
	if diff := cmp.Diff([]any{[]string{"a", "x", "none"}, []string{"b"}}, []any{names(f.Contributors), names(f.Losers)}); diff != "" {
		t.Errorf("one level (-want +got):\n%s", diff)
	}
	child := combine(k, "acl", policy.AugmentedDeep, []*Candidate{a})
	parent := combine(k, "acl", policy.AugmentedDeep, []*Candidate{b, x})
	for _, tt := range []struct {
		s            policy.Strategy
		contributors []string
	}{
		{policy.AugmentedDeep, []string{"a", "x"}},
		{policy.OverridableDeep, []string{"x", "a"}},
	} {
		f := foldField(k, child, parent, tt.s)
		if diff := cmp.Diff([]any{tt.contributors, []string{"b"}}, []any{names(f.Contributors), names(f.Losers)}); diff != "" {
			t.Errorf("%s fold (-want +got):\n%s", tt.s, diff)
		}
		if len(f.Values) != len(f.Contributors) {
			t.Errorf("%s fold: %d values for %d contributors", tt.s, len(f.Values), len(f.Contributors))
		}
	}
}

// TestTiesOncePerInstance: two policies ordered by name alone that a deep
// merge keeps both of are no tie; when it drops one for an instance the
// other took, their names decided which (GWP303).
func TestTiesOncePerInstance(t *testing.T) {
	k := instanceKind{}
	c := func(name, inst string) *Candidate {
		return &Candidate{Policy: &policy.Policy{Kind: k, Obj: &manifest.Object{Namespace: "ns", Name: name}, Values: map[string]any{"acl": inst}}, Via: attach.ViaTargetRef, Level: LevelRoute}
	}
	for _, tt := range []struct {
		name     string
		a, b     *Candidate
		wantTies int
	}{
		{"other instances: both merged, no tie", c("a", "p"), c("b", "q"), 0},
		{"one instance: the name kept a, a tie", c("a", "p"), c("b", "p"), 1},
	} {
		pt := &Point{Kind: k, Candidates: []*Candidate{tt.a, tt.b}}
		pt.Fields = []*Field{combine(k, "acl", policy.AugmentedDeep, pt.Candidates)}
		if got := len(ties(pt)); got != tt.wantTies {
			t.Errorf("%s: %d ties, want %d", tt.name, got, tt.wantTies)
		}
	}
}
