package merge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// wholeKind overrides whole: its policies name their merge type in
// Values["mergeType"] and are processed in Obj.Seq order.
type wholeKind struct{ testKind }

func (wholeKind) OverridesWhole() bool { return true }
func (wholeKind) ProcessingOrder(a, b *policy.Policy) int {
	return a.Obj.Seq - b.Obj.Seq
}
func (wholeKind) MergesInto(p *policy.Policy) policy.Strategy {
	s, _ := p.Values["mergeType"].(string)
	return policy.Strategy(s)
}

// ReplacedOnMerge: field b is a list a merging policy replaces.
func (wholeKind) ReplacedOnMerge(key string) bool { return key == "b" }

var _ policy.WholeOverrider = wholeKind{}

func wholePol(name string, seq int, values map[string]any) *policy.Policy {
	return &policy.Policy{Kind: wholeKind{}, Obj: &manifest.Object{Namespace: "ns", Name: name, Seq: seq}, Values: values}
}

// routedResult is a Result with one rule served through one listener,
// with the given candidates at each level.
func routedResult(rule, listener, gateway []*Candidate, invalid []*Candidate) (*Result, *topology.Rule, *topology.Listener) {
	k := wholeKind{}
	gw := &topology.Gateway{}
	l := &topology.Listener{Gateway: gw}
	ru := &topology.Rule{}
	r := &Result{Registry: policy.NewRegistry(k),
		rules:     map[*topology.Rule]*RulePoints{ru: {Rule: ru, Own: Points{{Kind: k, Candidates: rule, Invalid: invalid}}}},
		listeners: map[*topology.Listener]*ListenerPoints{l: {Listener: l, Own: Points{{Kind: k, Candidates: listener}}}},
		gateways:  map[*topology.Gateway]*GatewayPoints{gw: {Gateway: gw, Whole: Points{{Kind: k, Candidates: gateway}}}},
	}
	return r, ru, l
}

func at(lvl Level, ps ...*policy.Policy) []*Candidate {
	var out []*Candidate
	for _, p := range ps {
		out = append(out, &Candidate{Policy: p, Level: lvl})
	}
	return out
}

// routedView is field → contributors (names) and strategy.
func routedView(pts Points) map[string][]string {
	out := map[string][]string{}
	for _, pt := range pts {
		for _, f := range pt.Fields {
			out[f.Key] = append(names(f.Contributors), string(f.Strategy))
		}
		for _, c := range pt.Invalid {
			out["invalid"] = append(out["invalid"], c.Policy.Obj.Name)
		}
	}
	return out
}

func TestRouted(t *testing.T) {
	gwPol := wholePol("gw", 1, map[string]any{"a": "gw-a", "b": "gw-b"})
	lsPol := wholePol("listener", 2, map[string]any{"b": "l-b"})
	route := wholePol("route", 3, map[string]any{"a": "route-a"})
	route2 := wholePol("route2", 4, map[string]any{"b": "route2-b"})
	merging := wholePol("merging", 3, map[string]any{"a": "m-a", "mergeType": "StrategicMerge"})
	broken := wholePol("broken", 5, map[string]any{"a": "x"})
	ruleMerging := wholePol("rule-merging", 2, map[string]any{"a": "rm-a", "mergeType": "StrategicMerge"})
	lsMerging := wholePol("listener-merging", 2, map[string]any{"b": "lm-b", "mergeType": "StrategicMerge"})
	tests := []struct {
		name                        string
		rule, listener, gw, invalid []*Candidate
		want                        map[string][]string
	}{
		{"the route's policy hides the Gateway's whole, fields it does not set too",
			at(LevelRoute, route), nil, at(LevelGateway, gwPol), nil,
			map[string][]string{"a": {"route", "OverridableShallow"}}},
		{"the listener's hides the Gateway's",
			nil, at(LevelListener, lsPol), at(LevelGateway, gwPol), nil,
			map[string][]string{"b": {"listener", "OverridableShallow"}}},
		{"without a more specific policy the Gateway's applies",
			nil, nil, at(LevelGateway, gwPol), nil,
			map[string][]string{"a": {"gw", "OverridableShallow"}, "b": {"gw", "OverridableShallow"}}},
		{"at one level the first in processing order takes the target; the other sets nothing",
			at(LevelRoute, route2, route), nil, at(LevelGateway, gwPol), nil,
			map[string][]string{"a": {"route", "OverridableShallow"}}},
		{"mergeType merges into the next level: both contribute, most specific first",
			at(LevelRoute, merging), at(LevelListener, lsPol), at(LevelGateway, gwPol), nil,
			map[string][]string{"a": {"merging", "OverridableShallow"}, "b": {"listener", "OverridableShallow"}}},
		{"a rule's merging policy skips its route's (which it hides) and merges with the Gateway side",
			append(at(LevelRule, ruleMerging), at(LevelRoute, route2)...), nil, at(LevelGateway, gwPol), nil,
			map[string][]string{"a": {"rule-merging", "gw", "StrategicMerge"}, "b": {"gw", "OverridableShallow"}}},
		{"a rule's merging policy with no policy on the Gateway side stands alone",
			append(at(LevelRule, ruleMerging), at(LevelRoute, route2)...), nil, nil, nil,
			map[string][]string{"a": {"rule-merging", "OverridableShallow"}}},
		{"a route's merging policy merges with the closest Gateway-side policy only",
			at(LevelRoute, merging), at(LevelListener, lsMerging), at(LevelGateway, gwPol), nil,
			map[string][]string{"a": {"merging", "OverridableShallow"}, "b": {"listener-merging", "OverridableShallow"}}},
		{"a listener's policy merges into nothing, mergeType or not",
			nil, at(LevelListener, lsMerging), at(LevelGateway, gwPol), nil,
			map[string][]string{"b": {"listener-merging", "OverridableShallow"}}},
		{"an invalid policy at the most specific level fails the rule, no fallback",
			nil, nil, at(LevelGateway, gwPol), at(LevelRoute, broken),
			map[string][]string{"invalid": {"broken"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, ru, l := routedResult(tc.rule, tc.listener, tc.gw, tc.invalid)
			if diff := cmp.Diff(tc.want, routedView(r.Routed(ru, l))); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	t.Run("fields both set merge with the route's merge type", func(t *testing.T) {
		m := wholePol("m", 3, map[string]any{"a": "m-a", "mergeType": "JSONMerge"})
		r, ru, l := routedResult(at(LevelRoute, m), nil, at(LevelGateway, gwPol), nil)
		got := routedView(r.Routed(ru, l))
		want := map[string][]string{"a": {"m", "gw", "JSONMerge"}, "b": {"gw", "OverridableShallow"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
	})
	t.Run("a field the merge replaces has the most specific value alone", func(t *testing.T) {
		m := wholePol("m", 3, map[string]any{"a": "m-a", "b": "m-b", "mergeType": "StrategicMerge"})
		r, ru, l := routedResult(at(LevelRoute, m), nil, at(LevelGateway, gwPol), nil)
		got := routedView(r.Routed(ru, l))
		want := map[string][]string{"a": {"m", "gw", "StrategicMerge"}, "b": {"m", "OverridableShallow"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-want +got)\n%s", diff)
		}
	})
}

// TestEffectiveWhole: for a kind that overrides whole, Effective on a rule
// is Routed's outcome; the policies it hides are shadowed under every
// field in effect, each of their fields named, and a policy of the same
// level that lost the target is a loser.
func TestEffectiveWhole(t *testing.T) {
	gwPol := wholePol("gw", 1, map[string]any{"a": "gw-a", "b": "gw-b"})
	route := wholePol("route", 2, map[string]any{"a": "route-a"})
	late := wholePol("late", 3, map[string]any{"b": "late-b"})
	r, ru, l := routedResult(at(LevelRoute, route, late), nil, at(LevelGateway, gwPol), nil)
	es := r.Effective(ru, l)
	if len(es) != 1 || es[0].Key != "a" || es[0].Inherited {
		t.Fatalf("want field a from the route policy alone, got %+v", es)
	}
	var shadowed []string
	for _, s := range es[0].Shadowed {
		shadowed = append(shadowed, s.Owner.Policy.Obj.Name+"."+s.Key)
	}
	if diff := cmp.Diff([]string{"gw.a", "gw.b"}, shadowed); diff != "" {
		t.Errorf("shadowed (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([]string{"late"}, names(es[0].Field.Losers)); diff != "" {
		t.Errorf("losers (-want +got)\n%s", diff)
	}

	merging := wholePol("merging", 2, map[string]any{"a": "m-a", "mergeType": "StrategicMerge"})
	r, ru, l = routedResult(at(LevelRoute, merging), nil, at(LevelGateway, gwPol), nil)
	got := map[string][]string{}
	for _, e := range r.Effective(ru, l) {
		got[e.Key] = append(names(e.Field.Contributors), string(e.Field.Strategy))
		if len(e.Shadowed) > 0 {
			t.Errorf("%s: a merge shadows nothing, got %d", e.Key, len(e.Shadowed))
		}
	}
	want := map[string][]string{"a": {"merging", "gw", "StrategicMerge"}, "b": {"gw", "OverridableShallow"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("merged fields (-want +got)\n%s", diff)
	}

	// Field b is replaced on merge: the merging policy's value alone is in
	// effect, and the Gateway's value of b is shadowed (under b only).
	replacing := wholePol("replacing", 2, map[string]any{"b": "r-b", "mergeType": "JSONMerge"})
	r, ru, l = routedResult(at(LevelRoute, replacing), nil, at(LevelGateway, gwPol), nil)
	shadows := map[string][]string{}
	for _, e := range r.Effective(ru, l) {
		for _, s := range e.Shadowed {
			shadows[e.Key] = append(shadows[e.Key], s.Owner.Policy.Obj.Name+"."+s.Key)
		}
	}
	if diff := cmp.Diff(map[string][]string{"b": {"gw.b"}}, shadows); diff != "" {
		t.Errorf("replaced on merge: shadowed (-want +got)\n%s", diff)
	}
}
