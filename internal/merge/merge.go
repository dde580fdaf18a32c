package merge

import (
	"slices"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/policy"
)

// Level is where in the hierarchy a policy attached.
type Level string

// Levels, most specific first.
const (
	LevelRule        Level = "rule"
	LevelRoute       Level = "route"
	LevelListener    Level = "listener"
	LevelListenerSet Level = "listenerset"
	LevelGateway     Level = "gateway"
	// LevelBackend: a policy on a backend object (Service, Backend).
	LevelBackend Level = "backend"
	// LevelParentRoute: a delegating parent route's rule or whole route,
	// inherited by a child route (Candidate.Parent names it).
	LevelParentRoute Level = "parent-route"
	// LevelBackendRef: a policy a backendRef's filter names; it
	// configures that backend's share of the rule (RulePoints.BackendRefs).
	LevelBackendRef Level = "backendref"
)

// specificity ranks levels from the least specific (0) up.
var specificity = map[Level]int{LevelGateway: 0, LevelListenerSet: 1, LevelListener: 2, LevelParentRoute: 3, LevelRoute: 4, LevelRule: 5, LevelBackendRef: 6}

// OnGateway reports whether the level is a Gateway's or one of its
// listeners' (a ListenerSet's), above every route.
func (l Level) OnGateway() bool {
	return l == LevelGateway || l == LevelListenerSet || l == LevelListener
}

// Candidate is a policy at a merge point.
type Candidate struct {
	Policy *policy.Policy
	Via    attach.Via
	Level  Level
	Path   string // the targetRef or filter that attached it
	// Parent names the delegating parent ("NS/NAME rule R") for
	// candidates inherited through route delegation.
	Parent string
	// Rejected is the controller's verdict when it does not apply the
	// policy at this target (attach.Result.Rejected); such a candidate is
	// in its point's Rejected list only.
	Rejected *policy.Rejection
	// Section is the port a backend candidate's targetRef names
	// (sectionName; "" for the whole object).
	Section string
	// Rank is, on a backend target whose controller ranks the kind's
	// policies itself (policy.Controller.BackendRank), the key it ranked
	// this candidate by; nil otherwise. Decide and the Conflicted verdict
	// name it.
	Rank *policy.BackendRankKey
}

// Field is the outcome for one field at one merge point.
type Field struct {
	Key      string
	Strategy policy.Strategy
	// Owner is the candidate whose value is in effect (the first
	// contributor under deep merge).
	Owner *Candidate
	// Contributors are every candidate whose value is in the result, in
	// merge order; for shallow strategies just the owner.
	Contributors []*Candidate
	// Losers set the field but are not in the result.
	Losers []*Candidate
	// Values are the contributors' values, in merge order.
	Values []any
}

// Tie is a pair of adjacent candidates whose order only their names decided,
// while both set a common field.
type Tie struct {
	First, Second *Candidate
	Fields        []string
}

// Point is the merge of one kind's policies at one target.
type Point struct {
	Kind policy.Kind
	// Candidates are the policies that apply (policy.Policy.Applies), in
	// precedence order, and the invalid ones of a kind whose invalid
	// policies keep their valid fields (policy.KindSpec.InvalidKeepsValidFields).
	Candidates []*Candidate
	// Invalid are attached policies that do not apply; they take no
	// part in the merge, but their targets may be replaced (the controller's validation mode).
	Invalid []*Candidate
	// Rejected are attached policies their controller does not apply at
	// this target (Candidate.Rejected says why: Conflicted, Overridden);
	// they take no part in the merge and replace nothing.
	Rejected []*Candidate
	// Fields are the outcome in effect, in the kind's field order: the
	// policies' merge (Reported) with the route rule's own values (Rule)
	// laid over it.
	Fields []*Field
	// Reported is the policies' merge alone: what the controller reports
	// (merge origins in status, the Attached condition of a kind that
	// reports it: policy.KindSpec.Attached), which does not know that a
	// route rule's own timeouts and retry win in the data plane.
	Reported []*Field
	// Rule are the route rule's own Gateway API values of the kind's
	// fields, each owned by a built-in candidate (policy.BuiltIn); they
	// take precedence over every policy.
	Rule []*Field
	Ties []Tie
	// Whole is, for a kind whose policies override whole
	// (policy.WholeOverrider), the ID of the most specific policy when it
	// merged with a less specific one: the controller names what it
	// builds from the merged result after it (policy.FieldInput.Whole).
	// Empty when one policy is in effect. Decided here, read by render
	// and explain.
	Whole string
}

// Field returns the result in effect for a key, or nil.
func (p *Point) Field(key string) *Field {
	if p == nil {
		return nil
	}
	return fieldOf(p.Fields, key)
}

func fieldOf(fs []*Field, key string) *Field {
	for _, f := range fs {
		if f.Key == key {
			return f
		}
	}
	return nil
}

// IsBuiltIn reports whether the candidate is a route rule's own fields
// rather than a policy.
func (c *Candidate) IsBuiltIn() bool { return c.Policy.BuiltIn != nil }

// Origins is the MergeOrigins map the controller reports: field → sorted
// IDs of the policies in the policies' merge (Reported). Empty when
// nothing merged.
func (p *Point) Origins() map[string][]string {
	if p == nil {
		return nil
	}
	return origins(p.Reported, func(*Candidate) bool { return true })
}

// InEffect is gwpol's own MergeOrigins: field → sorted IDs of the
// policies whose values are in effect (Fields), leaving out fields a route
// rule's own value took whole. RuleOrigins lists the rules' side.
func (p *Point) InEffect() map[string][]string {
	if p == nil {
		return nil
	}
	return origins(p.Fields, func(c *Candidate) bool { return !c.IsBuiltIn() })
}

// RuleOrigins is, for fields in effect that a route rule sets itself,
// field → the IDs of the routes (group/kind/namespace/name); nil when
// none.
func (p *Point) RuleOrigins() map[string][]string {
	if p == nil {
		return nil
	}
	return origins(p.Fields, (*Candidate).IsBuiltIn)
}

func origins(fs []*Field, keep func(*Candidate) bool) map[string][]string {
	var out map[string][]string
	for _, f := range fs {
		var ids []string
		for _, c := range f.Contributors {
			if keep(c) {
				ids = append(ids, c.Policy.ID())
			}
		}
		if len(ids) == 0 {
			continue
		}
		if out == nil {
			out = make(map[string][]string, len(fs))
		}
		out[f.Key] = policy.SortIDs(ids)
	}
	return out
}

// layer computes Fields: per field, a rule's own value laid over the
// policies' result through the kind's Overlay. The policies' setters lose
// unless part of their value remains.
func (p *Point) layer() {
	if len(p.Rule) == 0 {
		p.Fields = p.Reported
		return
	}
	rf, _ := p.Kind.(policy.RuleFielder)
	p.Fields = nil
	for _, fs := range p.Kind.Spec().Fields {
		own, pol := fieldOf(p.Rule, fs.Key), fieldOf(p.Reported, fs.Key)
		switch {
		case own == nil && pol == nil:
			continue
		case own == nil:
			p.Fields = append(p.Fields, pol)
			continue
		case pol == nil:
			p.Fields = append(p.Fields, own)
			continue
		}
		eff, remains := own.Values[0], false
		if rf != nil {
			eff, remains = rf.Overlay(fs.Key, own.Values[0], pol.Values[0])
		}
		f := &Field{Key: fs.Key, Strategy: own.Strategy, Owner: own.Owner, Contributors: []*Candidate{own.Owner}, Values: []any{eff},
			Losers: slices.Concat(own.Losers, pol.Losers)}
		if remains {
			f.Contributors = append(f.Contributors, pol.Owner)
			f.Values = append(f.Values, pol.Values[0])
			f.Losers = slices.Concat(f.Losers, pol.Contributors[1:])
		} else {
			f.Losers = slices.Concat(f.Losers, pol.Contributors)
		}
		p.Fields = append(p.Fields, f)
	}
}

// Has reports whether the policy is a candidate here.
func (p *Point) Has(pol *policy.Policy) bool {
	if p == nil {
		return false
	}
	for _, c := range p.Candidates {
		if c.Policy == pol {
			return true
		}
	}
	return false
}

// strategyFor picks a field's strategy at one level: the one the
// deployment gives it when it may merge deep and the kind's family sets
// one (policy.Registry.FieldStrategy), else the kind's default.
func strategyFor(reg *policy.Registry, k policy.Kind, f policy.FieldSpec, cfg policy.Config) policy.Strategy {
	if s, ok := reg.FieldStrategy(cfg, k, f); ok {
		return s
	}
	if f.Default == "" {
		return policy.AugmentedShallow
	}
	return f.Default
}

// mergeLevel merges the candidates of one hierarchy level in precedence
// order, each field by the strategy its kind declares for it
// (policy.FieldSpec, or the deployment's: strategyFor).
func mergeLevel(reg *policy.Registry, k policy.Kind, atts []*Candidate, cfg policy.Config) *Point {
	pt := &Point{Kind: k}
	keeps := k.Spec().InvalidKeepsValidFields
	for _, c := range atts {
		if keeps || c.Policy.Applies() {
			pt.Candidates = append(pt.Candidates, c)
		} else {
			pt.Invalid = append(pt.Invalid, c)
		}
	}
	values := make([]map[string]any, len(pt.Candidates))
	for i, c := range pt.Candidates {
		values[i] = c.Policy.Values
	}
	for _, fs := range k.Spec().FieldsFor(values...) {
		var setters []*Candidate
		for _, c := range pt.Candidates {
			if _, ok := c.Policy.Values[fs.Key]; ok {
				setters = append(setters, c)
			}
		}
		if len(setters) == 0 {
			continue
		}
		st := strategyFor(reg, k, fs, cfg)
		if st == policy.AugmentedDeep && conflicts(k, fs.Key, setters) {
			st = policy.AugmentedShallow
		}
		pt.Fields = append(pt.Fields, combine(k, fs.Key, st, setters))
	}
	pt.Fields = dropOwnParts(k, pt.Fields)
	pt.Ties = ties(pt)
	pt.Reported = pt.Fields
	return pt
}

// dropOwnParts leaves out the parts of a port's entry
// (policy.PortScoper.PortEntry) that the entry's owner owns: its entry
// holds them already, and its controller records only the parts other
// policies fill.
func dropOwnParts(k policy.Kind, fs []*Field) []*Field {
	ps, ok := k.(policy.PortScoper)
	if !ok {
		return fs
	}
	owners := map[string]*Candidate{}
	for _, f := range fs {
		owners[f.Key] = f.Owner
	}
	return slices.DeleteFunc(fs, func(f *Field) bool {
		entry := ps.PortEntry(f.Key)
		return entry != "" && owners[entry] == f.Owner
	})
}

// combine applies one strategy to the setters of a field (in precedence
// order, highest first).
func combine(k policy.Kind, key string, s policy.Strategy, setters []*Candidate) *Field {
	f := &Field{Key: key, Strategy: s}
	switch s {
	case policy.AugmentedDeep:
		f.Contributors, f.Losers = oncePerInstance(k, key, setters)
	case policy.Additive:
		// Parent first: less specific levels before more specific ones
		// (a route's policies before its rule's), each level in its own
		// order; nothing is overridden.
		f.Contributors = slices.Clone(setters)
		slices.SortStableFunc(f.Contributors, func(a, b *Candidate) int { return specificity[a.Level] - specificity[b.Level] })
	case policy.OverridableDeep:
		f.Contributors, f.Losers = oncePerInstance(k, key, setters)
		slices.Reverse(f.Contributors)
	case policy.OverridableShallow:
		f.Contributors = setters[len(setters)-1:]
		f.Losers = setters[:len(setters)-1]
	default: // AugmentedShallow, Exclusive
		f.Contributors = setters[:1]
		f.Losers = setters[1:]
	}
	f.Owner = f.Contributors[0]
	for _, c := range f.Contributors {
		f.Values = append(f.Values, c.Policy.Values[key])
	}
	return f
}

// ties finds adjacent candidates ordered only by name (RuleName) that
// compete for a field: in a cluster their creation times would decide,
// which a repository cannot control (lint's GWP303).
func ties(pt *Point) []Tie {
	var out []Tie
	for i := 0; i+1 < len(pt.Candidates); i++ {
		a, b := pt.Candidates[i], pt.Candidates[i+1]
		if a.Rank != nil && b.Rank != nil {
			if !a.Rank.At.Equal(b.Rank.At) { // ranked by the controller: its times decide, whatever the attachment
				continue
			}
		} else if a.Via != b.Via {
			continue
		} else if _, byName := policy.Precedes(a.Policy, b.Policy); !byName {
			continue
		}
		var common []string
		for _, f := range pt.Fields {
			if _, ok := a.Policy.Values[f.Key]; !ok {
				continue
			}
			if _, ok := b.Policy.Values[f.Key]; !ok {
				continue
			}
			// a deep or additive merge keeps both, unless a deep merge
			// dropped one for an instance the other took (oncePerInstance)
			if (f.Strategy != policy.AugmentedDeep && f.Strategy != policy.Additive) || slices.Contains(f.Losers, a) || slices.Contains(f.Losers, b) {
				common = append(common, f.Key)
			}
		}
		if len(common) > 0 {
			out = append(out, Tie{First: a, Second: b, Fields: common})
		}
	}
	return out
}

// conflicts reports whether a deep merge of the setters' values would
// conflict, so the field must fall back to shallow merging.
func conflicts(k policy.Kind, key string, setters []*Candidate) bool {
	dc, ok := k.(policy.DeepConflicter)
	if !ok {
		return false
	}
	for _, c := range setters[1:] {
		if dc.DeepConflict(key, setters[0].Policy.Values[key], c.Policy.Values[key]) {
			return true
		}
	}
	return false
}

// oncePerInstance is the deep merge's rule for fields whose values each
// configure one named instance (policy.Instancer): a value configuring an
// instance that a value merged before it configures is not merged — the
// first in merge order keeps the instance whole — and its policy loses the
// field. Values naming no instance (a disable) always merge.
func oncePerInstance(k policy.Kind, key string, cs []*Candidate) (kept, dropped []*Candidate) {
	values := make([]any, len(cs))
	for i, c := range cs {
		values[i] = c.Policy.Values[key]
	}
	f, _ := dropMergedInstances(k, &Field{Key: key}, &Field{Key: key, Contributors: cs, Values: values})
	return f.Contributors, f.Losers
}

// dropMergedInstances is oncePerInstance for a result merged after
// another (a delegating parent's after its child's): of later's values,
// those configuring an instance that merged or a value of later before it
// configures are left out, their candidates later's losers. A value that
// resets the field (policy.DeepResetter) makes the values of later kept
// before it losers too; reset says it did, so the caller drops merged's.
func dropMergedInstances(k policy.Kind, merged, later *Field) (out *Field, reset bool) {
	out = &Field{Key: later.Key, Strategy: later.Strategy, Losers: slices.Clone(later.Losers)}
	in, ok := k.(policy.Instancer)
	if !ok {
		out.Contributors, out.Values = slices.Clone(later.Contributors), slices.Clone(later.Values)
		return out, false
	}
	rs, _ := k.(policy.DeepResetter)
	seen := map[string]bool{}
	for i, v := range merged.Values {
		if x := in.Instance(later.Key, v, merged.Contributors[i].Policy.Obj.Namespace); x != "" {
			seen[x] = true
		}
	}
	for i, c := range later.Contributors {
		x := in.Instance(later.Key, later.Values[i], c.Policy.Obj.Namespace)
		if x != "" && seen[x] {
			out.Losers = append(out.Losers, c)
			continue
		}
		if x != "" {
			seen[x] = true
		}
		if rs != nil && rs.ResetsDeepMerge(later.Key, later.Values[i]) {
			out.Losers = append(out.Losers, out.Contributors...)
			out.Contributors, out.Values = nil, nil
			reset = true
		}
		out.Contributors = append(out.Contributors, c)
		out.Values = append(out.Values, later.Values[i])
	}
	return out, reset
}
