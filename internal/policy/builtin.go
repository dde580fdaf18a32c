package policy

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
)

// RuleField is one value a route rule sets itself.
type RuleField struct {
	Key   string
	Value any
	Path  string // where the rule sets it, e.g. spec.rules[0].retry
}

// BuiltIn marks the pseudo-policy that stands for a route rule's own
// Gateway API fields at a merge point. It is never in a Set and has no
// status.
type BuiltIn struct {
	Route model.GroupKind // the route's kind, e.g. gateway.networking.k8s.io/HTTPRoute
	Rule  string          // the rule's section (name or #N)
	Paths map[string]string
	// Pos are the positions of Paths, taken when the rule is read: render
	// releases a route's YAML tree before it reports on the route's own
	// fields.
	Pos map[string]diag.Position
}

// NewBuiltIn returns the pseudo-policy of kind k for a rule's own fields:
// its values are the rule's, its object (for positions) is the route.
func NewBuiltIn(k Kind, rt *model.Route, rule *model.Rule, fields []RuleField) *Policy {
	b := &BuiltIn{Route: model.GroupKind{Group: model.GatewayGroup, Kind: rt.Kind}, Rule: rule.Section(), Paths: map[string]string{}, Pos: map[string]diag.Position{}}
	p := &Policy{Kind: k, Obj: rt.Src, Values: map[string]any{}, BuiltIn: b}
	for _, f := range fields {
		p.Values[f.Key] = f.Value
		b.Paths[f.Key] = f.Path
		b.Pos[f.Path] = rt.Src.FieldPos(f.Path)
	}
	return p
}

// Describe names a policy for people: its ID, or for a rule's own fields
// "HTTPRoute NS/NAME rule R (built-in)".
func (p *Policy) Describe() string {
	if b := p.BuiltIn; b != nil {
		return b.Route.Kind + " " + p.Obj.Namespace + "/" + p.Obj.Name + " rule " + b.Rule + " (built-in)"
	}
	return p.ID()
}
