package diff

import (
	"slices"

	"github.com/gwpol/gwpol/internal/merge"
)

// Kinds of object a topology change names (Change.Object).
const (
	ObjectGateway  = "gateway"
	ObjectListener = "listener"
	ObjectRoute    = "route"
	ObjectRule     = "rule"
)

// object is one Gateway, listener, route or rule, and the object it
// belongs to (empty for Gateways and routes).
type object struct {
	kind, parent string
}

// objects lists a result's Gateways, listeners, routes and rules by name.
func objects(r *merge.Result) map[string]object {
	out := map[string]object{}
	for _, gw := range r.Graph.Gateways {
		name := "Gateway/" + gw.Namespace + "/" + gw.Name
		out[name] = object{kind: ObjectGateway}
		for _, l := range gw.Listeners {
			out[name+"/"+string(l.Name)] = object{kind: ObjectListener, parent: name}
		}
	}
	for _, rt := range r.Graph.Routes {
		name := rt.Kind + "/" + rt.Meta.Namespace + "/" + rt.Meta.Name
		out[name] = object{kind: ObjectRoute}
		for _, rule := range rt.Rules {
			out[name+"/"+rule.Section()] = object{kind: ObjectRule, parent: name}
		}
	}
	return out
}

// objectChanges reports the Gateways, listeners, routes and rules added or
// removed; a listener or rule is not repeated under its own Gateway or
// route when that is added or removed too.
func objectChanges(old, new *merge.Result) []Change {
	a, b := objects(old), objects(new)
	var out []Change
	diffSide := func(from, to map[string]object, kind string) {
		for name, o := range from {
			if _, ok := to[name]; ok {
				continue
			}
			if _, parentGone := to[o.parent]; o.parent != "" && !parentGone {
				continue
			}
			out = append(out, Change{Target: name, Object: o.kind, Kind: kind})
		}
	}
	diffSide(a, b, "removed")
	diffSide(b, a, "added")
	slices.SortFunc(out, compareChanges)
	return out
}
