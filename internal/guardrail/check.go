package guardrail

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// Target is one place guardrails are checked: a route rule as served on
// a listener (along one parent path when it is delegated), or, with
// Route nil, a listener's own effective view.
type Target struct {
	Route    *topology.Route
	Rule     *topology.Rule
	Path     *merge.RulePath
	Listener *topology.Listener
	// Backend is set, alone, for a backend object's merge (a Service's
	// cluster settings), on one of its ports when Port names one.
	Backend *merge.BackendPoints
	Port    string
}

// Desc names the target in messages.
func (t Target) Desc() string {
	if t.Backend != nil {
		s := t.Backend.Key.Kind + " " + t.Backend.Key.Namespace + "/" + t.Backend.Key.Name
		if t.Port != "" {
			s += " port " + t.Port
		}
		return s
	}
	if t.Route == nil {
		return "listener " + t.Listener.ID()
	}
	s := t.Route.Kind + " " + t.Route.Meta.Namespace + "/" + t.Route.Meta.Name + " rule " + t.Rule.Section()
	if t.Listener != nil {
		s += " (listener " + t.Listener.ID() + ")"
	}
	return s
}

// Finding is one guardrail's outcome at one target: on a field in effect
// there (Key), or on the target as a whole (Key "": a required field
// that is missing, a field a more specific policy hides).
type Finding struct {
	Rule *Rule
	// Kind is the policy kind of the effective field (nil with Key "").
	Kind policy.Kind
	// Field is the guardrail's field name the finding is about.
	Field string
	// Key is the effective field it was checked on; "" for none.
	Key   string
	Holds bool
	// Detail says what holds, or what violates the rule and what would
	// satisfy it.
	Detail string

	diag  *diag.Diagnostic // a violation's finding, for lint
	place string           // where, for the finding's message
}

// Code is the lint code of the finding's rule.
func (f Finding) Code() string { return f.Rule.Type.code() }

// Check evaluates rules at one target, whose effective fields es are the
// merge IR's (merge.Result.EffectiveOn): every guardrail in scope there,
// for every field in effect it names, and every require.
func Check(r *merge.Result, rules []Rule, t Target, es []merge.EffectiveField) []Finding {
	return check(&values{holds: true}, rules, t, es)
}

// values are the field values decoded to JSON data, by result and
// contributor: a Gateway's or listener's result is the same on every
// route rule it reaches, so it is decoded once per run.
type values struct {
	m map[valueKey]any
	// holds: report the guardrails that hold too (explain); lint wants
	// the violations only.
	holds bool
}

type valueKey struct {
	f *merge.Field
	i int
}

// data is the JSON data of a result's i-th value.
func (c *values) data(f *merge.Field, i int) any {
	k := valueKey{f, i}
	if v, ok := c.m[k]; ok {
		return v
	}
	if c.m == nil {
		c.m = map[valueKey]any{}
	}
	v := decode(f.Values[i])
	c.m[k] = v
	return v
}

func check(c *values, rules []Rule, t Target, es []merge.EffectiveField) []Finding {
	var out []Finding
	for i := range rules {
		g := &rules[i]
		if !g.inScope(t) {
			continue
		}
		switch g.Type {
		case SetOnlyBy:
			out = append(out, g.setOnlyBy(c, es)...)
		case Bounds, OneOf:
			out = append(out, g.values(c, es)...)
		case Require:
			if t.Route != nil && (t.Route.Kind == "HTTPRoute" || t.Route.Kind == "GRPCRoute") {
				out = append(out, g.require(c, t, es)...)
			}
		}
	}
	return out
}

// inScope reports whether the rule applies at t: a backend object is in
// scope of a rule that names no Gateway and no route namespace (the
// clusters it configures serve whatever routes use it).
func (g *Rule) inScope(t Target) bool {
	if t.Backend != nil {
		return len(g.Gateways) == 0 && len(g.RouteNamespaces) == 0
	}
	if len(g.Gateways) > 0 {
		if t.Listener == nil || !slices.Contains(g.Gateways, t.Listener.Gateway.Namespace+"/"+t.Listener.Gateway.Name) {
			return false
		}
	}
	if len(g.RouteNamespaces) > 0 && (t.Route == nil || !slices.Contains(g.RouteNamespaces, t.Route.Meta.Namespace)) {
		return false
	}
	return true
}

// inEffect are the results of an effective field that apply: the
// deciding one and those beside it.
func inEffect(e merge.EffectiveField) []*merge.Field {
	return append([]*merge.Field{e.Field}, e.Beside...)
}

// allows reports whether setOnlyBy lets p set the fields: its namespace
// or the policy itself is listed (a route rule's own fields count as its
// route's).
func (g *Rule) allows(p *policy.Policy) bool {
	if slices.Contains(g.Namespaces, p.Obj.Namespace) {
		return true
	}
	id := strings.Split(p.ID(), "/") // group/kind/namespace/name
	if len(id) < 4 {
		return false
	}
	id = id[len(id)-4:]
	for _, ref := range g.Policies {
		parts := strings.Split(ref, "/")
		if len(parts) == 4 && parts[0] != id[0] {
			continue
		}
		parts = parts[len(parts)-3:]
		if strings.EqualFold(parts[0], id[1]) && parts[1] == id[2] && parts[2] == id[3] {
			return true
		}
	}
	return false
}

// allowed names who setOnlyBy lets set the fields.
func (g *Rule) allowed() string {
	var parts []string
	if len(g.Namespaces) == 1 {
		parts = append(parts, "policies in namespace "+g.Namespaces[0])
	} else if len(g.Namespaces) > 1 {
		parts = append(parts, "policies in namespaces "+strings.Join(g.Namespaces, ", "))
	}
	parts = append(parts, g.Policies...)
	return strings.Join(parts, " or ")
}

// said is the platform's message, quoted, for a finding.
func (g *Rule) said() string {
	if g.Message == "" {
		return ""
	}
	return fmt.Sprintf(" (the platform team: %q)", g.Message)
}

// violation builds a finding's diagnostic about the policy p's value at
// path (falling back to the field key's path where the sub-field has no
// position).
func (g *Rule) violation(p *policy.Policy, key, path, format string, args ...any) *diag.Diagnostic {
	at := path // the nearest part of it the object has, when none is there whole
	for _, try := range positionsOf(path, p.FieldPath(key)) {
		if p.Obj.Lookup(try) != nil {
			at = try
			break
		}
	}
	d := p.Diag(g.Type.code(), g.Severity, at, format, args...)
	return &d
}

// positionsOf are the paths to try, in order, for the position of a
// value's part: the path itself; the path with a list its value nests
// under its own spec field's name folded into it (a value of
// spec.policies holding policies[1] is at spec.policies[1]); each of that
// path's parents down to the field's own path.
func positionsOf(path, field string) []string {
	out := []string{path}
	folded := path
	if rest, ok := strings.CutPrefix(path, field+"."); ok {
		last := field[strings.LastIndexByte(field, '.')+1:]
		if strings.HasPrefix(rest, last+"[") {
			folded = field + rest[len(last):]
			out = append(out, folded)
		}
	}
	for p := folded; len(p) > len(field); {
		i := strings.LastIndexAny(p, ".[")
		if i <= 0 {
			break
		}
		p = p[:i]
		out = append(out, p)
	}
	return append(out, field)
}

func (g *Rule) setOnlyBy(c *values, es []merge.EffectiveField) []Finding {
	var out []Finding
	hidden := map[string]bool{}
	for _, e := range es {
		for _, name := range g.Fields {
			sub, ok := match(name, e.Key)
			if !ok {
				continue
			}
			var bad []Finding
			var by []string
			for _, f := range inEffect(e) {
				for i, cand := range f.Contributors {
					if i >= len(f.Values) {
						break
					}
					ns := nodes(c.data(f, i), sub)
					if len(ns) == 0 {
						continue
					}
					p := cand.Policy
					if g.allows(p) {
						by = append(by, p.Describe())
						continue
					}
					what := "sets " + name
					if disables(e.Kind, f.Key, f.Values[i]) {
						what = "switches " + name + " off"
					}
					detail := fmt.Sprintf("%s %s here; only %s may set it", p.Describe(), what, g.allowed())
					d := g.violation(p, f.Key, p.FieldPath(f.Key)+ns[0].path, "guardrail %q: %s %s on "+where+"; only %s may set %s%s. To satisfy it, remove %s from %s and let the platform's value apply, or have the platform team set it",
						g.Name, p.Describe(), what, g.allowed(), name, g.said(), f.Key, p.Describe())
					bad = append(bad, Finding{Rule: g, Field: name, Key: e.Key, Kind: e.Kind, Detail: detail + g.said(), diag: d})
				}
			}
			out = append(out, bad...)
			if len(bad) == 0 && len(by) > 0 && c.holds {
				out = append(out, Finding{Rule: g, Field: name, Key: e.Key, Kind: e.Kind, Holds: true, Detail: "set by " + strings.Join(slices.Compact(by), ", ") + ", which may set it"})
			}
		}
		// A more specific policy that does not set the field but hides
		// an allowed policy's value of it (a kind that overrides whole).
		hider := hiderOf(e, es)
		if hider == nil || g.allows(hider) {
			continue
		}
		for _, s := range e.Shadowed {
			if _, sets := hider.Values[s.Key]; sets || hidden[s.Key] {
				continue
			}
			for _, name := range g.Fields {
				if _, ok := match(name, s.Key); !ok || !slices.ContainsFunc(s.Contributors, func(c *merge.Candidate) bool { return g.allows(c.Policy) }) {
					continue
				}
				hidden[s.Key] = true
				owner := s.Owner.Policy.Describe()
				detail := fmt.Sprintf("%s replaces %s here whole, so its %s does not apply; only %s may decide %s", hider.Describe(), owner, s.Key, g.allowed(), name)
				path := "spec"
				if len(hider.Targets) > 0 && hider.Targets[0].Path != "" {
					path = hider.Targets[0].Path
				}
				d := g.violation(hider, "", path, "guardrail %q: %s replaces %s whole on "+where+" (its kind overrides a less specific policy whole), so the %s set by %s does not apply there; only %s may decide %s%s. To satisfy it, make %s merge into %s instead of replacing it, or remove it",
					g.Name, hider.Describe(), owner, s.Key, owner, g.allowed(), name, g.said(), hider.Describe(), owner)
				out = append(out, Finding{Rule: g, Field: name, Detail: detail + g.said(), diag: d})
				break
			}
		}
	}
	return out
}

// hiderOf is the policy that hides e's Shadowed results: the owner, or,
// when another level's policy hides them (ShadowedBy), that level's.
func hiderOf(e merge.EffectiveField, es []merge.EffectiveField) *policy.Policy {
	if len(e.Shadowed) == 0 {
		return nil
	}
	if e.ShadowedBy == "" {
		if e.Field.Owner.IsBuiltIn() {
			return nil
		}
		return e.Field.Owner.Policy
	}
	for _, o := range es {
		if o.Kind == e.Kind && o.Field.Owner.Level == e.ShadowedBy && !o.Field.Owner.IsBuiltIn() {
			return o.Field.Owner.Policy
		}
	}
	return nil
}

// disables asks the kind whether a value switches its feature off.
func disables(k policy.Kind, key string, v any) bool {
	d, ok := k.(policy.Disabler)
	return ok && d.Disables(key, v)
}

// values checks max/min and oneOf on every scalar under the named
// field, in each value in effect.
func (g *Rule) values(c *values, es []merge.EffectiveField) []Finding {
	var out []Finding
	for _, e := range es {
		for _, name := range g.Fields {
			sub, ok := match(name, e.Key)
			if !ok {
				continue
			}
			checked, bad := 0, 0
			for _, f := range inEffect(e) {
				for i, cand := range f.Contributors {
					if i >= len(f.Values) {
						break
					}
					for _, l := range scalars(nodes(c.data(f, i), sub)) {
						problem, applies := g.judge(l.value)
						if !applies {
							continue
						}
						checked++
						if problem == "" {
							continue
						}
						bad++
						p := cand.Policy
						field := f.Key + l.path
						d := g.violation(p, f.Key, p.FieldPath(f.Key)+l.path, "guardrail %q: %s is %s in %s, in effect on "+where+"; %s%s. To satisfy it, %s",
							g.Name, field, text(l.value), p.Describe(), problem, g.said(), g.remedy(field))
						out = append(out, Finding{Rule: g, Field: name, Key: e.Key, Kind: e.Kind,
							Detail: fmt.Sprintf("%s is %s in %s; %s", field, text(l.value), p.Describe(), problem) + g.said(), diag: d})
					}
				}
			}
			if checked > 0 && bad == 0 && c.holds {
				out = append(out, Finding{Rule: g, Field: name, Key: e.Key, Kind: e.Kind, Holds: true, Detail: g.bounds()})
			}
		}
	}
	return out
}

// judge says what is wrong with a scalar ("" when nothing), and whether
// the rule applies to it at all (a number against a duration bound does
// not).
func (g *Rule) judge(v any) (problem string, applies bool) {
	if g.Type == OneOf {
		if slices.Contains(g.OneOf, text(v)) {
			return "", true
		}
		return "the platform allows only " + strings.Join(g.OneOf, ", "), true
	}
	if g.Max != nil {
		c, ok := g.Max.compare(v)
		if !ok {
			return "", false
		}
		if c > 0 {
			return "the platform allows at most " + g.Max.Text, true
		}
		applies = true
	}
	if g.Min != nil {
		c, ok := g.Min.compare(v)
		if !ok {
			return "", applies
		}
		if c < 0 {
			return "the platform allows no less than " + g.Min.Text, true
		}
		applies = true
	}
	return "", applies
}

// bounds says what the rule allows.
func (g *Rule) bounds() string {
	if g.Type == OneOf {
		return "one of " + strings.Join(g.OneOf, ", ")
	}
	var parts []string
	if g.Min != nil {
		parts = append(parts, "at least "+g.Min.Text)
	}
	if g.Max != nil {
		parts = append(parts, "at most "+g.Max.Text)
	}
	return "within bounds: " + strings.Join(parts, " and ")
}

// remedy is what would satisfy a bound or oneOf.
func (g *Rule) remedy(field string) string {
	switch {
	case g.Type == OneOf:
		return "set " + field + " to one of " + strings.Join(g.OneOf, ", ")
	case g.Max != nil && g.Min != nil:
		return fmt.Sprintf("set %s between %s and %s", field, g.Min.Text, g.Max.Text)
	case g.Max != nil:
		return fmt.Sprintf("set %s to %s or less", field, g.Max.Text)
	default:
		return fmt.Sprintf("set %s to %s or more", field, g.Min.Text)
	}
}

// require checks that each required field is in effect on a route rule
// with a value that does not switch it off.
func (g *Rule) require(c *values, t Target, es []merge.EffectiveField) []Finding {
	var out []Finding
	for _, name := range g.Fields {
		var have, off *merge.EffectiveField
		var cleared, hiddenBy string
		for _, e := range es {
			sub, ok := match(name, e.Key)
			if !ok {
				continue
			}
			for _, f := range inEffect(e) {
				for i, cand := range f.Contributors {
					if i >= len(f.Values) || len(nodes(c.data(f, i), sub)) == 0 {
						continue
					}
					if disables(e.Kind, f.Key, f.Values[i]) {
						off = &e
						cleared = fmt.Sprintf("%s switches %s off", cand.Policy.Describe(), f.Key)
						if len(e.Shadowed) > 0 {
							cleared += ", clearing the " + e.Shadowed[0].Key + " of " + e.Shadowed[0].Owner.Policy.Describe()
						}
						continue
					}
					have = &e
				}
			}
			if have != nil {
				break
			}
		}
		if have != nil && !c.holds {
			continue
		}
		if have != nil {
			out = append(out, Finding{Rule: g, Field: name, Key: have.Key, Kind: have.Kind, Holds: true, Detail: "in effect, from " + have.Field.Owner.Policy.Describe()})
			continue
		}
		for _, e := range es {
			if h := hiderOf(e, es); h != nil && hiddenBy == "" {
				for _, s := range e.Shadowed {
					if _, ok := match(name, s.Key); ok {
						hiddenBy = fmt.Sprintf("%s replaces %s whole, hiding its %s", h.Describe(), s.Owner.Policy.Describe(), s.Key)
						break
					}
				}
			}
		}
		why := "nothing sets it at any level"
		switch {
		case cleared != "":
			why = cleared
		case hiddenBy != "":
			why = hiddenBy
		}
		src := t.Route.Src
		d := diag.Diagnostic{Code: LintGuardrailRequired.Code, Severity: g.Severity, Object: t.Route.Key().Ref(), Field: t.Rule.Path, Pos: src.FieldPos(t.Rule.Path),
			Message: fmt.Sprintf("guardrail %q: %s %s/%s rule %s has no %s in effect on "+where+": %s%s. To satisfy it, attach a policy that sets %s to the route or rule, or let the Gateway's apply",
				g.Name, t.Route.Kind, t.Route.Meta.Namespace, t.Route.Meta.Name, t.Rule.Section(), name, why, g.said(), name)}
		place := "no listener"
		if t.Listener != nil {
			place = "listener " + t.Listener.ID()
		}
		f := Finding{Rule: g, Field: name, Detail: fmt.Sprintf("required %s is missing: %s", name, why) + g.said(), diag: &d, place: place}
		if cleared != "" {
			f.Key, f.Kind = off.Key, off.Kind // the row of the value that switches it off
		}
		out = append(out, f)
	}
	return out
}

// backendFields are a backend merge's results as effective fields: one
// level, nothing shadowed (a port's own policies come first in its merge).
func backendFields(pts merge.Points) []merge.EffectiveField {
	var out []merge.EffectiveField
	for _, pt := range pts {
		for _, f := range pt.Fields {
			out = append(out, merge.EffectiveField{Kind: pt.Kind, Key: f.Key, Field: f})
		}
	}
	return out
}

// where marks the place in a violation's message that Evaluate fills
// with the targets where it occurs (never a format verb: messages carry
// the user's words).
const where = "\x00"

// Evaluate checks rules at every listener and every served route rule
// of r and returns the violations as lint findings, each once per rule,
// object and field, naming every target where it occurs.
func Evaluate(r *merge.Result, rules []Rule) []diag.Diagnostic {
	if len(rules) == 0 || r == nil {
		return nil
	}
	type key struct{ code, rule, object, field, msg string }
	byKey := map[key]*diag.Diagnostic{}
	targets := map[key][]string{}
	var order []key
	add := func(t Target, fs []Finding) {
		for _, f := range fs {
			if f.Holds || f.diag == nil {
				continue
			}
			k := key{f.diag.Code, f.Rule.Name, f.diag.Object.String(), f.diag.Field, f.diag.Message}
			if _, ok := byKey[k]; !ok {
				byKey[k] = f.diag
				order = append(order, k)
			}
			d := f.place
			if d == "" {
				d = t.Desc()
			}
			if !slices.Contains(targets[k], d) {
				targets[k] = append(targets[k], d)
			}
		}
	}
	c := &values{}
	for _, gw := range r.Graph.Gateways {
		for _, l := range gw.Listeners {
			t := Target{Listener: l}
			add(t, check(c, rules, t, r.Effective(nil, l)))
		}
	}
	for _, rp := range r.Routes {
		for _, rule := range rp.Rules {
			if rule.Delegating || !rp.Route.Served(rule.Rule) {
				continue // no Envoy route of its own, or none at all
			}
			for _, parent := range rp.Route.Parents {
				for _, l := range parent.Listeners {
					if _, out := r.LeftOut(rp.Route, rule.Rule, l.Gateway); out {
						continue // not programmed there: nothing of it is in effect
					}
					for _, path := range rule.PathsThrough(parent) {
						if p := r.ProblemOf(rule.Rule, path, l.Gateway); p != nil && p.Dropped {
							continue // left out along that path: no Envoy route
						}
						t := Target{Route: rp.Route, Rule: rule.Rule, Path: path, Listener: l}
						add(t, check(c, rules, t, r.EffectiveOn(rule.Rule, path, l)))
					}
				}
			}
		}
	}
	for _, bp := range r.Backends {
		t := Target{Backend: bp}
		add(t, check(c, rules, t, backendFields(bp.Own)))
		for _, port := range slices.Sorted(maps.Keys(bp.Ports)) {
			t := Target{Backend: bp, Port: port}
			add(t, check(c, rules, t, backendFields(bp.Ports[port])))
		}
	}
	out := make([]diag.Diagnostic, 0, len(order))
	for _, k := range order {
		d := *byKey[k]
		d.Message = strings.Replace(d.Message, where, places(targets[k]), 1)
		out = append(out, d)
	}
	return diag.Sort(out)
}

// places names the targets of a finding, the first few in full.
func places(ts []string) string {
	const shown = 3
	if len(ts) <= shown {
		return strings.Join(ts, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(ts[:shown], "; "), len(ts)-shown)
}
