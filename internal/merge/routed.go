package merge

import (
	"slices"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// Routed is, for the kinds that override whole (policy.WholeOverrider),
// the policy in effect on a route rule served through a listener (l may
// be nil for a rule attached nowhere): per level, from the most specific
// (rule, route, listener, ListenerSet, Gateway), the first policy in the
// kind's processing order; the most specific level's policy replaces the
// less specific ones unless it is a route's or a rule's policy that
// merges (its fields then carry both values, most specific first, and its
// merge strategy) — and it merges only with the closest policy on the
// Gateway's side (listener, ListenerSet, Gateway), never with another
// route-side one: a rule's merging policy skips its route's, which it
// hides (a WholeOverrider merges a route policy with its parent's only). An
// invalid policy at the most specific level that has any leaves the point
// with Invalid and no fields but those the controller keeps of it
// (policy.InvalidKeeper): the rule fails rather than falling back to a
// less specific policy. Kinds without the hook are not in the result.
func (r *Result) Routed(rule *topology.Rule, l *topology.Listener) Points {
	return r.RoutedOn(rule, nil, l)
}

// RoutedOn is Routed for a delegated rule as served along one parent path
// (nil: its Own merge).
func (r *Result) RoutedOn(rule *topology.Rule, path *RulePath, l *topology.Listener) Points {
	lv := r.levels(rule, path, l)
	var out Points
	// A rule's levels hold a few candidates per kind: slices reused
	// across kinds, not maps per kind (this runs for every route a
	// render or lint serves).
	var valid, invalid []*Candidate
	for _, k := range r.Registry.Kinds() {
		wo, ok := k.(policy.WholeOverrider)
		if !ok || !wo.OverridesWhole() {
			continue
		}
		valid, invalid = valid[:0], invalid[:0]
		for _, pts := range lv {
			pt := pts.Of(k)
			if pt == nil {
				continue
			}
			for _, c := range pt.Candidates {
				if c.IsBuiltIn() || holds(valid, c.Policy) || holds(invalid, c.Policy) {
					continue
				}
				switch rj := r.onListener(c, rule, l); {
				case rj == nil:
					valid = append(valid, c)
				case rj.Verdict == policy.VerdictInvalid:
					invalid = append(invalid, c) // invalid on this listener only
				}
				// any other verdict: not applied through l, as if absent
			}
			for _, c := range pt.Invalid {
				if !holds(valid, c.Policy) && !holds(invalid, c.Policy) {
					invalid = append(invalid, c)
				}
			}
		}
		pt := r.routedPoint(k, wo, valid, invalid)
		if own := ruleOwnFields(lv, k); len(own) > 0 && (pt == nil || pt.Invalid == nil) {
			pt = overlayOwn(pt, k, own)
		}
		if pt != nil {
			out = append(out, pt)
		}
	}
	return out
}

// onListener is the controller's verdict on a route's or a rule's
// candidate as the rule is served through l (policy.TargetKey.On): a
// policy it builds again per listener and refuses on some listeners
// only. nil when there is none.
func (r *Result) onListener(c *Candidate, rule *topology.Rule, l *topology.Listener) *policy.Rejection {
	if l == nil || r.Attach == nil || len(r.Attach.Rejected[c.Policy]) == 0 {
		return nil
	}
	switch c.Level {
	case LevelRule:
		return r.Attach.Rejection(c.Policy, policy.TargetKey{Rule: rule, On: l})
	case LevelRoute:
		if rt := r.routeOf(rule); rt != nil {
			return r.Attach.Rejection(c.Policy, policy.TargetKey{Route: rt, On: l})
		}
	}
	return nil
}

// holds reports whether one of cs is p's.
func holds(cs []*Candidate, p *policy.Policy) bool {
	for _, c := range cs {
		if c.Policy == p {
			return true
		}
	}
	return false
}

// atLevel are the candidates of cs at lvl, in their order (a new slice).
func atLevel(cs []*Candidate, lvl Level) []*Candidate {
	var out []*Candidate
	for _, c := range cs {
		if c.Level == lvl {
			out = append(out, c)
		}
	}
	return out
}

// ruleOwnFields are the values the rule sets itself in its Gateway API
// spec for kind k (policy.RuleFielder), from its own merge point.
func ruleOwnFields(lv []Points, k policy.Kind) []*Field {
	if len(lv) == 0 {
		return nil
	}
	if pt := lv[0].Of(k); pt != nil {
		return pt.Rule
	}
	return nil
}

// overlayOwn lays the rule's own values over the policy in effect: each
// replaces the policy's value of its field whole (a WholeOverrider's
// controller takes a route filter's setting over a policy's), and the policy's contributors
// to that field lose. The rule's candidate joins the point's, so that
// what renders it tells the rule's values apart.
func overlayOwn(pt *Point, k policy.Kind, own []*Field) *Point {
	if pt == nil {
		pt = &Point{Kind: k}
	} else {
		cp := *pt
		cp.Fields = slices.Clone(pt.Fields)
		cp.Candidates = slices.Clone(pt.Candidates)
		pt = &cp
	}
	for _, o := range own {
		f := *o
		if i := slices.IndexFunc(pt.Fields, func(p *Field) bool { return p.Key == o.Key }); i >= 0 {
			f.Losers = slices.Concat(f.Losers, pt.Fields[i].Contributors)
			pt.Fields = slices.Delete(pt.Fields, i, i+1)
		}
		pt.Fields = append(pt.Fields, &f)
		if !slices.Contains(pt.Candidates, o.Owner) {
			// first: the rule's own values are the most specific in effect
			pt.Candidates = append([]*Candidate{o.Owner}, pt.Candidates...)
		}
	}
	return pt
}

// keptWhenInvalid are the fields of the first of the invalid policies
// (in processing order) whose configuration the controller keeps on the
// rules the policy fails (policy.InvalidKeeper); nil for other kinds.
func keptWhenInvalid(k policy.Kind, wo policy.WholeOverrider, invalid []*Candidate) []*Field {
	ik, ok := k.(policy.InvalidKeeper)
	if !ok || len(invalid) == 0 {
		return nil
	}
	first := slices.MinFunc(invalid, func(a, b *Candidate) int { return wo.ProcessingOrder(a.Policy, b.Policy) })
	kept := ik.KeptWhenInvalid(first.Policy)
	var out []*Field
	for _, fs := range k.Spec().Fields {
		v, ok := first.Policy.Values[fs.Key]
		if !ok || !slices.Contains(kept, fs.Key) {
			continue
		}
		out = append(out, &Field{Key: fs.Key, Strategy: policy.OverridableShallow, Contributors: []*Candidate{first}, Values: []any{v}, Owner: first})
	}
	return out
}

// routedKey is what a routed point is combined from: the kind and its
// candidates, valid ones first. Candidates are the levels' own (shared
// by every rule a level's point reaches), so equal keys combine to the
// same point.
type routedKey struct {
	kind       policy.Kind
	valid, all uint8
	cands      [routedKeyCands]*Candidate
}

// routedKeyCands bounds the candidates a key holds; a rule reached by
// more (several policies of one kind on each level) is combined afresh.
const routedKeyCands = 6

// routedPoint is combinePoint's point for the candidates, once per
// distinct kind and candidates: it is read, never changed, by whoever
// asks (overlayOwn copies it before laying a rule's values over it).
func (r *Result) routedPoint(k policy.Kind, wo policy.WholeOverrider, valid, invalid []*Candidate) *Point {
	n := len(valid) + len(invalid)
	if n == 0 {
		return nil
	}
	if n > routedKeyCands {
		return combinePoint(k, wo, valid, invalid)
	}
	key := routedKey{kind: k, valid: uint8(len(valid)), all: uint8(n)}
	copy(key.cands[:], valid)
	copy(key.cands[len(valid):], invalid)
	r.routedMu.Lock()
	pt, ok := r.routed[key]
	r.routedMu.Unlock()
	if ok {
		return pt
	}
	pt = combinePoint(k, wo, valid, invalid)
	r.routedMu.Lock()
	defer r.routedMu.Unlock()
	if prev, ok := r.routed[key]; ok {
		return prev // combined concurrently; keep one
	}
	if r.routed == nil {
		r.routed = map[routedKey]*Point{}
	}
	r.routed[key] = pt
	return pt
}

// combinePoint combines one kind's candidates (valid and invalid, each in
// the order the levels gave them) by level (see Routed).
func combinePoint(k policy.Kind, wo policy.WholeOverrider, valid, invalid []*Candidate) *Point {
	var levels []Level
	for _, cs := range [][]*Candidate{valid, invalid} {
		for _, c := range cs {
			if !slices.Contains(levels, c.Level) {
				levels = append(levels, c.Level)
			}
		}
	}
	if len(levels) == 0 {
		return nil
	}
	slices.SortFunc(levels, func(a, b Level) int { return specificity[b] - specificity[a] })
	pt := &Point{Kind: k}
	var chain []*Candidate
	for _, lvl := range levels {
		gatewaySide := specificity[lvl] <= specificity[LevelListener]
		if len(chain) > 0 && !gatewaySide {
			continue // a merging route-side policy skips to the Gateway's side
		}
		cs := atLevel(valid, lvl)
		if len(cs) == 0 {
			// The most specific policy is unusable, or a route-side
			// policy merges into a Gateway-side level whose policies are
			// all invalid: the merged result is invalid too (Envoy
			// Gateway reports the merging policy Invalid on that listener
			// and answers 500 on the rule).
			if inv := atLevel(invalid, lvl); len(chain) == 0 || len(inv) > 0 {
				pt.Invalid = inv
				pt.Fields = keptWhenInvalid(k, wo, pt.Invalid)
				return pt
			}
			break
		}
		first := slices.MinFunc(cs, func(a, b *Candidate) int { return wo.ProcessingOrder(a.Policy, b.Policy) })
		chain = append(chain, first)
		if gatewaySide || wo.MergesInto(first.Policy) == "" {
			break // a Gateway-side policy merges into nothing
		}
	}
	pt.Candidates = chain
	if len(chain) > 1 {
		pt.Whole = chain[0].Policy.ID()
	}
	strategy := wo.MergesInto(chain[0].Policy)
	for _, fs := range k.Spec().Fields {
		var f *Field // made for the fields a candidate sets: a kind has dozens, a policy a few
		for _, c := range chain {
			if v, ok := c.Policy.Values[fs.Key]; ok {
				if f == nil {
					f = &Field{Key: fs.Key, Strategy: policy.OverridableShallow}
				}
				f.Contributors = append(f.Contributors, c)
				f.Values = append(f.Values, v)
			}
		}
		if f == nil {
			continue
		}
		if len(f.Contributors) > 1 && wo.ReplacedOnMerge(fs.Key) {
			f.Contributors, f.Values = f.Contributors[:1], f.Values[:1]
		}
		f.Owner = f.Contributors[0]
		if len(f.Contributors) > 1 {
			f.Strategy = strategy
		}
		pt.Fields = append(pt.Fields, f)
	}
	pt.Reported = pt.Fields
	return pt
}
