package diff

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/guardrail"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/status"
)

// Side is one side of a changed field.
type Side struct {
	Owner string          `json:"owner"`
	Level string          `json:"level"`
	Value json.RawMessage `json:"value,omitempty"`
}

// Change is one difference.
type Change struct {
	Target string `json:"target"` // e.g. httproute/shop/orders/create@infra/public/http
	// Field is the policy field ("KIND:key"), or "status" for policy
	// conditions; empty when a whole object (Object) was added or removed.
	Field string `json:"field,omitempty"`
	// Object is gateway, listener, route or rule when the change is that
	// object's addition or removal.
	Object string `json:"object,omitempty"`
	Kind   string `json:"change"` // added, removed, changed
	Old    *Side  `json:"old,omitempty"`
	New    *Side  `json:"new,omitempty"`
	// Leaves are the changed leaves of a changed value, by full path.
	Leaves []Leaf `json:"leaves,omitempty"`
}

// Report lists the changes, sorted by target and field.
type Report struct {
	Changes []Change `json:"changes"`
	// Guardrails are the guardrail findings (config guardrails:) the
	// change introduces, and those it resolves.
	Guardrails []GuardrailChange `json:"guardrails,omitempty"`
}

// GuardrailChange is a guardrail finding that new has and old has not
// (introduced), or the reverse (resolved); a finding is the same on both
// sides when its code, guardrail, object and field are.
type GuardrailChange struct {
	Change string `json:"change"` // introduced, resolved
	// The finding, in lint's JSON shape; its position is on the side
	// that has it (new for introduced, old for resolved).
	Code     string         `json:"code"`
	Severity string         `json:"severity"`
	Message  string         `json:"message"`
	Object   diag.ObjectRef `json:"object"`
	Field    string         `json:"field"`
	File     string         `json:"file"`
	Line     int            `json:"line"`
	Column   int            `json:"column"`
}

func guardrailChange(change string, d diag.Diagnostic) GuardrailChange {
	return GuardrailChange{Change: change, Code: d.Code, Severity: d.Severity.String(), Message: d.Message, Object: d.Object, Field: d.Field,
		File: d.Pos.File, Line: d.Pos.Line, Column: d.Pos.Col}
}

// Compare computes the changes from old to new, and the findings of
// guardrails the change introduces or resolves.
func Compare(old, new *merge.Result, guardrails ...guardrail.Rule) *Report {
	a, b := fields(old), fields(new)
	rep := &Report{Changes: []Change{}}
	for k, s := range a {
		n, ok := b[k]
		switch {
		case !ok:
			rep.Changes = append(rep.Changes, Change{Target: k.target, Field: k.field, Kind: "removed", Old: s})
		case s.Owner != n.Owner || s.Level != n.Level || !bytes.Equal(s.Value, n.Value):
			rep.Changes = append(rep.Changes, Change{Target: k.target, Field: k.field, Kind: "changed", Old: s, New: n,
				Leaves: leaves(fieldKey(k.field), s.Value, n.Value)})
		}
	}
	for k, n := range b {
		if _, ok := a[k]; !ok {
			rep.Changes = append(rep.Changes, Change{Target: k.target, Field: k.field, Kind: "added", New: n})
		}
	}
	rep.Changes = append(rep.Changes, statusChanges(old, new)...)
	rep.Changes = append(rep.Changes, objectChanges(old, new)...)
	slices.SortFunc(rep.Changes, compareChanges)
	rep.Guardrails = guardrailChanges(old, new, guardrails)
	return rep
}

// guardrailChanges compares the guardrail findings of the two sides.
func guardrailChanges(old, new *merge.Result, rules []guardrail.Rule) []GuardrailChange {
	if len(rules) == 0 {
		return nil
	}
	id := func(d diag.Diagnostic) string {
		return d.Code + "\x00" + d.Message[:strings.Index(d.Message+":", ":")] + "\x00" + d.Object.String() + "\x00" + d.Field
	}
	a, b := guardrail.Evaluate(old, rules), guardrail.Evaluate(new, rules)
	had, has := map[string]bool{}, map[string]bool{}
	for _, d := range a {
		had[id(d)] = true
	}
	for _, d := range b {
		has[id(d)] = true
	}
	var out []GuardrailChange
	for _, d := range b {
		if !had[id(d)] {
			out = append(out, guardrailChange("introduced", d))
		}
	}
	for _, d := range a {
		if !has[id(d)] {
			out = append(out, guardrailChange("resolved", d))
		}
	}
	return out
}

// compareChanges sorts by target, an object's own change first, then by
// field and kind of change.
func compareChanges(x, y Change) int {
	return cmp.Or(cmp.Compare(x.Target, y.Target), cmp.Compare(x.Field, y.Field), cmp.Compare(x.Kind, y.Kind))
}

// fieldKey drops the policy kind from a change's field: "G/K:cors" → "cors".
func fieldKey(field string) string {
	if i := strings.LastIndex(field, ":"); i >= 0 {
		return field[i+1:]
	}
	return field
}

type key struct{ target, field string }

// fields flattens the effective view of every listener and served rule.
func fields(r *merge.Result) map[key]*Side {
	out := map[key]*Side{}
	add := func(t explain.Target) {
		name := targetName(t)
		for _, f := range t.Fields {
			out[key{name, f.PolicyKind + ":" + f.Field}] = &Side{Owner: f.Owner, Level: f.Level, Value: f.Value}
		}
	}
	opt := explain.Options{ShowValues: true}
	for _, gw := range r.Graph.Gateways {
		for _, l := range gw.Listeners {
			add(explain.Listener(r, l, opt))
		}
	}
	for _, rt := range r.Graph.Routes {
		for _, rule := range rt.Rules {
			for _, p := range rt.Parents {
				for _, l := range p.Listeners {
					// a delegated rule: each parent path's copy through p
					for _, path := range r.Rule(rule).PathsThrough(p) {
						add(explain.RuleOn(r, rt, rule, path, l, opt))
					}
				}
			}
		}
	}
	return out
}

func targetName(t explain.Target) string {
	s := t.Target.Kind + "/" + t.Target.Namespace + "/" + t.Target.Name
	if t.Target.Section != "" {
		s += "/" + t.Target.Section
	}
	if t.Listener != "" {
		s += "@" + t.Listener
	}
	if len(t.DelegatedBy) > 0 {
		s += " delegated by " + strings.Join(t.DelegatedBy, " via ")
	}
	return s
}

// statusChanges compares each policy's conditions per ancestor.
func statusChanges(old, new *merge.Result) []Change {
	conds := func(r *merge.Result) map[key]*Side {
		out := map[key]*Side{}
		for _, p := range status.Compute(r, status.Options{}).Policies {
			for _, a := range p.Ancestors {
				var v []string
				for _, c := range a.Conditions {
					v = append(v, c.Type+"="+c.Status+"/"+c.Reason)
				}
				b, _ := json.Marshal(v)
				out[key{p.Kind + "/" + p.Namespace + "/" + p.Name + "@" + a.AncestorRef.String(), "status"}] = &Side{Value: b}
			}
		}
		return out
	}
	a, b := conds(old), conds(new)
	var out []Change
	for k, s := range a {
		n, ok := b[k]
		switch {
		case !ok:
			out = append(out, Change{Target: k.target, Field: k.field, Kind: "removed", Old: s})
		case !bytes.Equal(s.Value, n.Value):
			out = append(out, Change{Target: k.target, Field: k.field, Kind: "changed", Old: s, New: n, Leaves: leaves(k.field, s.Value, n.Value)})
		}
	}
	for k, n := range b {
		if _, ok := a[k]; !ok {
			out = append(out, Change{Target: k.target, Field: k.field, Kind: "added", New: n})
		}
	}
	return out
}
