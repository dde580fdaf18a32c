package explain

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/topology"
)

// Ref names a target.
type Ref struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Section   string `json:"section,omitempty"`
}

// Field is one field in effect.
type Field struct {
	PolicyKind   string          `json:"policyKind"`
	Field        string          `json:"field"`
	Owner        string          `json:"owner"`
	Level        string          `json:"level"`
	Strategy     string          `json:"strategy"`
	Contributors []string        `json:"contributors"`
	Overridden   []string        `json:"overridden"`
	Inherited    bool            `json:"inherited"`
	Shadowed     []string        `json:"shadowed,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
}

// Target is one explained target.
type Target struct {
	Target Ref `json:"target"`
	// Listener the effective view is for (a route can be served by several).
	Listener    string   `json:"listener,omitempty"`
	EnvoyRoutes []string `json:"envoyRoutes"`
	Fields      []Field  `json:"fields"`
	Notes       []string `json:"notes,omitempty"`
}

// Report is the explain output.
type Report struct {
	Targets []Target `json:"targets"`
}

// Options narrow the output.
type Options struct {
	Field      string
	ShowValues bool
	// RouteNames returns the Envoy route names a rule produced on a listener.
	RouteNames func(*topology.Rule, *topology.Listener) []string
	// Notes returns kind-specific notes for a rule (e.g. runtime identity).
	Notes func(*topology.Route, *topology.Rule) []string
}

// Listener explains a listener's own effective view.
func Listener(r *merge.Result, l *topology.Listener, opt Options) Target {
	owner := Ref{Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: l.Gateway.Namespace, Name: l.Gateway.Name, Section: string(l.Name)}
	if l.Set != nil {
		owner.Kind, owner.Namespace, owner.Name = "ListenerSet", l.Set.Namespace, l.Set.Name
	}
	return Target{Target: owner, EnvoyRoutes: []string{}, Fields: fields(r.Effective(nil, l), opt)}
}

// Rule explains a route rule as served on one listener (nil: attached nowhere).
func Rule(r *merge.Result, rt *topology.Route, rule *topology.Rule, l *topology.Listener, opt Options) Target {
	t := Target{Target: Ref{Group: "gateway.networking.k8s.io", Kind: rt.Kind, Namespace: rt.Meta.Namespace, Name: rt.Meta.Name, Section: rule.Section()},
		EnvoyRoutes: []string{}, Fields: fields(r.Effective(rule, l), opt)}
	if l != nil {
		t.Listener = l.ID()
		if opt.RouteNames != nil {
			t.EnvoyRoutes = append(t.EnvoyRoutes, opt.RouteNames(rule, l)...)
		}
	} else {
		t.Notes = append(t.Notes, "the route is attached to no listener; only its own policies are shown")
	}
	if !rt.Served(rule) {
		t.Notes = append(t.Notes, "not served: its match falls outside the delegating parent's (GWP209); no Envoy route carries these fields")
	}
	for _, b := range rule.Backends {
		if b.Why != "" {
			t.Notes = append(t.Notes, "answers 500: its backendRef delegates to no route (GWP211): "+b.Why)
		}
	}
	if b := r.Attach.Broken[rule]; len(b) > 0 {
		for _, x := range b {
			t.Notes = append(t.Notes, "fails closed: "+x.Reason)
		}
	}
	if opt.Notes != nil {
		t.Notes = append(t.Notes, opt.Notes(rt, rule)...)
	}
	return t
}

func ids(cs []*merge.Candidate) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Policy.ID())
	}
	return out
}

func fields(es []merge.EffectiveField, opt Options) []Field {
	out := []Field{}
	for _, e := range es {
		if opt.Field != "" && e.Key != opt.Field {
			continue
		}
		gk := e.Kind.GroupKind()
		level := string(e.Level())
		if e.Field.Owner.Parent != "" {
			level += " " + e.Field.Owner.Parent
		}
		f := Field{PolicyKind: gk.Group + "/" + gk.Kind, Field: e.Key, Owner: e.Field.Owner.Policy.ID(), Level: level,
			Strategy: string(e.Field.Strategy), Contributors: ids(e.Field.Contributors), Overridden: ids(e.Field.Losers), Inherited: e.Inherited}
		for _, s := range e.Shadowed {
			for _, id := range ids(s.Contributors) {
				if !slices.Contains(f.Shadowed, id) {
					f.Shadowed = append(f.Shadowed, id)
				}
			}
		}
		if opt.ShowValues {
			v := any(e.Field.Values[0])
			if len(e.Field.Values) > 1 {
				v = e.Field.Values
			}
			if b, err := json.Marshal(v); err == nil {
				f.Value = b
			} else {
				f.Value = json.RawMessage(fmt.Sprintf("%q", err.Error()))
			}
		}
		out = append(out, f)
	}
	return out
}
