package explain

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// PolicyReport answers a policy author's question: where does this policy
// apply, and does each of its fields take effect there?
type PolicyReport struct {
	Policy   string `json:"policy"`
	Accepted bool   `json:"accepted"`
	// PartlyApplied: the policy is not accepted, yet its kind leaves out
	// only the settings that fail (Problems names them) and the others
	// take part in the merge (policy.KindSpec.InvalidKeepsValidFields),
	// or it fails open: applies without the parts that fail
	// (policy.Policy.FailOpen).
	PartlyApplied bool `json:"partlyApplied,omitempty"`
	// NotApplied: the policy is valid, but its controller applies it on
	// none of the targets it reaches (each target's NotApplied says why).
	NotApplied bool `json:"notApplied,omitempty"`
	// Targets are every merge point the policy reached, in graph order.
	Targets []PolicyTarget `json:"targets"`
	// Problems are the findings that keep it from a target (not found, not
	// permitted), make a rule it reaches fail closed, or make it invalid.
	Problems []string `json:"problems,omitempty"`
}

// PolicyTarget is one merge point the policy reached.
type PolicyTarget struct {
	Target Ref `json:"target"`
	// Via is how it got there: ExtensionRef, SectionName, TargetRef, or
	// Inherited (from a delegating parent route, named by From).
	Via   string `json:"via"`
	Path  string `json:"path,omitempty"`
	Level string `json:"level"`
	From  string `json:"from,omitempty"`
	// DelegatedBy is the parent path of a delegated rule's copy, nearest
	// first (see Target.DelegatedBy): each path merges apart.
	DelegatedBy []string `json:"delegatedBy,omitempty"`
	// Invalid: the policy is attached here but not accepted, so it takes
	// no part in the merge (unless it fails open: PolicyReport.PartlyApplied).
	Invalid bool `json:"invalid,omitempty"`
	// NotApplied is the controller's verdict when it does not apply the
	// policy here (status's reason and message): none of its fields take
	// part, and Fields is empty.
	NotApplied *NotApplied `json:"notApplied,omitempty"`
	// Listener narrows NotApplied to the route as served through one
	// listener (ns/gateway/name): the controller refuses the policy
	// there only (policy.TargetKey.On), and applies it on the others.
	Listener string `json:"listener,omitempty"`
	// NotOn are the Gateways the target is served on, or that route to
	// it (a backend), where the policy takes no part, as render decided:
	// their controller does not read its kind (merge.Result.NotOn), or
	// refuses the policy where the other controllers using it accept it
	// (merge.Result.RefusedOn). The fields are those of the others.
	NotOn  []NotOn       `json:"notOn,omitempty"`
	Fields []PolicyField `json:"fields"`
}

// NotOn is a Gateway where a policy takes no part on a target it
// reaches, and why.
type NotOn struct {
	Gateway string `json:"gateway"` // NAMESPACE/NAME
	Why     string `json:"why"`
}

// NotApplied is why a controller does not apply a policy on a target:
// the verdict (Conflicted, Overridden, Invalid), the reason and message
// status writes, and the policy that has the target instead.
type NotApplied struct {
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
	By      string `json:"by,omitempty"`
	// Why says what put By first (level, creation time, input order).
	Why string `json:"why,omitempty"`
}

// notApplied is a rejection as explain shows it.
func notApplied(rj *policy.Rejection) *NotApplied {
	out := &NotApplied{Verdict: rj.Verdict, Reason: rj.Reason, Message: rj.Message, Why: rj.Why}
	if rj.By != nil {
		out.By = rj.By.ID()
	}
	return out
}

// PolicyField is the outcome of one of the policy's fields at one target.
type PolicyField struct {
	Field string `json:"field"`
	// Outcome is won, merged (one contributor of several), lost, or not
	// in effect (policy.Policy.OutOfEffect: Reason says why).
	Outcome string `json:"outcome"`
	// Owner, Rule and Reason say who beat it and why, when it lost.
	Owner  string `json:"owner,omitempty"`
	Rule   string `json:"rule,omitempty"`
	Reason string `json:"reason,omitempty"`
	// ShadowedAt are the rules or listeners below this target where a more
	// specific level hides the value.
	ShadowedAt []Shadow `json:"shadowedAt,omitempty"`
	// OverriddenAt are the rules where a field of another family's kind
	// writes one of this field's Envoy paths and wins it
	// (merge.PathOverride): the field takes no part there. By names the
	// winner's policy, Path the path.
	OverriddenAt []Shadow `json:"overriddenAt,omitempty"`
}

// Shadow is one place a more specific level hides a field.
type Shadow struct {
	Target string `json:"target"`
	By     string `json:"by"`
	// Path is the Envoy path another family's field won there
	// (OverriddenAt only).
	Path string `json:"path,omitempty"`
}

// Policy explains one policy across every target it reached. It walks the
// merge IR only, so it serves every registered kind alike.
func Policy(r *merge.Result, p *policy.Policy) PolicyReport {
	rep := PolicyReport{Policy: p.ID(), Accepted: p.IsValid(), Targets: []PolicyTarget{}}
	rep.PartlyApplied = !rep.Accepted && (p.Kind.Spec().InvalidKeepsValidFields || p.FailOpen)
	type fieldRef struct {
		f      *merge.Field
		ti, fi int
	}
	var refs []fieldRef
	var backendGateways map[model.Key][]*topology.Gateway // routing to each backend, when the input mixes controllers
	add := func(ref Ref, pts merge.Points, gws func() []*topology.Gateway, via ...string) {
		t, fs, ok := policyTarget(ref, pts.Of(p.Kind), p)
		if !ok {
			return
		}
		if r.Attach.Mixed() || len(r.Attach.RefusedBy[p]) > 0 {
			stranger := r.NotOn(pts.Of(p.Kind), gws())
			for _, gw := range gws() {
				name := gw.Namespace + "/" + gw.Name
				if slices.Contains(stranger, gw) {
					t.NotOn = append(t.NotOn, NotOn{Gateway: name, Why: "its controller does not read " + p.Kind.GroupKind().Kind})
				} else if len(r.RefusedOn(p, gw)) > 0 {
					t.NotOn = append(t.NotOn, NotOn{Gateway: name, Why: "its controller " + r.Graph.ControllerOf(gw) + " refuses the policy, which the other controllers using it apply (its problems say why)"})
				}
			}
		}
		if rj := backendVerdict(r, p, ref); rj != nil && t.NotApplied == nil {
			// its controller does not apply it on this backend target
			// (a BackendTLSPolicy another one wins): what it sets there
			// is not in effect, as status says
			t.NotApplied, t.Fields, fs = notApplied(rj), []PolicyField{}, nil
		}
		t.DelegatedBy = via
		for i, f := range fs {
			refs = append(refs, fieldRef{f, len(rep.Targets), i})
		}
		rep.Targets = append(rep.Targets, t)
	}
	none := func() []*topology.Gateway { return nil } // a Gateway's or listener's policy is its own
	for _, gp := range r.Gateways {
		add(Ref{Group: gatewayGroup, Kind: "Gateway", Namespace: gp.Gateway.Namespace, Name: gp.Gateway.Name}, gp.Whole, none)
		for _, lp := range gp.Listeners {
			add(listenerRef(lp.Listener), lp.Own, none)
		}
	}
	for _, rp := range r.Routes {
		serving := func() []*topology.Gateway { return merge.ServingGateways(rp.Route) }
		for _, rule := range rp.Rules {
			if rule.Delegating {
				continue
			}
			if len(rule.Paths) == 0 {
				n := len(rep.Targets)
				add(ruleRef(rp.Route, rule.Rule), rule.Own, serving)
				notForwarded(r, p, rule.Rule, nil, rep.Targets[n:])
				continue
			}
			for _, path := range rule.Paths {
				var via []string
				if len(rule.Paths) > 1 {
					via = viaText(r, path.Via) // named when there is a choice
				}
				n := len(rep.Targets)
				add(ruleRef(rp.Route, rule.Rule), path.Own, serving, via...)
				notForwarded(r, p, rule.Rule, path, rep.Targets[n:])
			}
		}
	}
	for _, bp := range r.Backends {
		k := bp.Key
		routing := func() []*topology.Gateway {
			if backendGateways == nil {
				backendGateways = r.Graph.BackendGateways()
			}
			return backendGateways[k]
		}
		add(Ref{Group: k.Group, Kind: k.Kind, Namespace: k.Namespace, Name: k.Name}, bp.Own, routing)
		for _, port := range slices.Sorted(maps.Keys(bp.Ports)) {
			add(Ref{Group: k.Group, Kind: k.Kind, Namespace: k.Namespace, Name: k.Name, Section: port}, bp.Ports[port], routing)
		}
	}
	// Indexed once rep.Targets stops growing, so the pointers stay valid.
	byField := map[*merge.Field]*PolicyField{}
	for _, x := range refs {
		byField[x.f] = &rep.Targets[x.ti].Fields[x.fi]
	}
	markShadows(r, p, byField)
	rep.Targets = append(rep.Targets, unmergedVerdicts(r, p, rep.Targets)...)
	if rep.Accepted && len(rep.Targets) > 0 && !slices.ContainsFunc(rep.Targets, func(t PolicyTarget) bool { return t.NotApplied == nil }) {
		// its controller applies it nowhere (status: Accepted False)
		rep.Accepted, rep.NotApplied = false, true
	}
	for _, d := range slices.Concat(p.Invalid, r.Attach.Diagnostics) {
		line := d.Code + ": " + d.Message
		if d.Object == p.Ref() && !slices.Contains(rep.Problems, line) {
			rep.Problems = append(rep.Problems, line)
		}
	}
	return rep
}

// markShadows records, on the policy's winning fields, every rule or
// listener view where a more specific level hides them.
func markShadows(r *merge.Result, p *policy.Policy, byField map[*merge.Field]*PolicyField) {
	if len(byField) == 0 {
		return
	}
	mark := func(desc string, es []merge.EffectiveField) {
		for _, e := range es {
			if o := e.OverriddenBy; o != nil && e.Field.Owner.Policy == p {
				// the policy's field here; a kind overriding whole hands a
				// copy of it (merge.EffectiveField.Field), found by key,
				// owner and level
				for f, pf := range byField {
					if f == e.Field || f.Key == e.Key && f.Owner.Policy == p && f.Owner.Level == e.Field.Owner.Level && byField[e.Field] == nil {
						pf.OverriddenAt = append(pf.OverriddenAt, Shadow{Target: desc, By: o.Field.Owner.Policy.ID(), Path: string(o.Path)})
					}
				}
			}
			for _, s := range e.Shadowed {
				pf, ok := byField[s]
				if ok && slices.ContainsFunc(s.Contributors, func(c *merge.Candidate) bool { return c.Policy == p }) {
					pf.ShadowedAt = append(pf.ShadowedAt, Shadow{Target: desc, By: e.Field.Owner.Policy.ID()})
				}
			}
		}
	}
	for _, gp := range r.Gateways {
		for _, lp := range gp.Listeners {
			mark("listener "+lp.Listener.ID(), r.Effective(nil, lp.Listener))
		}
	}
	for _, rp := range r.Routes {
		for _, rule := range rp.Rules {
			if rule.Delegating {
				continue
			}
			for _, parent := range rp.Route.Parents {
				for _, l := range parent.Listeners {
					ref := ruleRef(rp.Route, rule.Rule)
					for _, path := range rule.PathsThrough(parent) {
						mark(ref.Kind+" "+ref.Namespace+"/"+ref.Name+" rule "+ref.Section+" on listener "+l.ID(), r.EffectiveOn(rule.Rule, path, l))
					}
				}
			}
		}
	}
}

const gatewayGroup = "gateway.networking.k8s.io"

func listenerRef(l *topology.Listener) Ref {
	ref := Ref{Group: gatewayGroup, Kind: "Gateway", Namespace: l.Gateway.Namespace, Name: l.Gateway.Name, Section: string(l.Name)}
	if l.Set != nil {
		ref = setRef(l.Set)
		ref.Section = string(l.Name)
	}
	return ref
}

// setRef names a listener set by its own group and kind (the v1
// ListenerSet, or the experimental XListenerSet).
func setRef(s *topology.ListenerSet) Ref {
	k := s.Key()
	return Ref{Group: k.Group, Kind: k.Kind, Namespace: s.Namespace, Name: s.Name}
}

func ruleRef(rt *topology.Route, rule *topology.Rule) Ref {
	return Ref{Group: gatewayGroup, Kind: rt.Kind, Namespace: rt.Meta.Namespace, Name: rt.Meta.Name, Section: rule.Section()}
}

// policyTarget is the policy's part in one point, if it is a candidate.
func policyTarget(ref Ref, pt *merge.Point, p *policy.Policy) (PolicyTarget, []*merge.Field, bool) {
	if pt == nil {
		return PolicyTarget{}, nil, false
	}
	c := candidateOf(pt, p)
	if c == nil {
		return PolicyTarget{}, nil, false
	}
	t := PolicyTarget{Target: ref, Via: string(c.Via), Path: c.Path, Level: string(c.Level), From: c.Parent, Fields: []PolicyField{}}
	if c.Parent != "" {
		t.Via = "Inherited"
	}
	if c.Rejected != nil {
		t.NotApplied = notApplied(c.Rejected)
		return t, nil, true
	}
	if !p.Applies() && !p.Kind.Spec().InvalidKeepsValidFields {
		t.Invalid = true
		return t, nil, true
	}
	var fs []*merge.Field
	for _, f := range pt.Fields {
		if _, ok := p.Values[f.Key]; !ok {
			continue
		}
		t.Fields = append(t.Fields, fieldOutcome(f, c))
		fs = append(fs, f)
	}
	for _, key := range slices.Sorted(maps.Keys(p.OutOfEffect)) {
		t.Fields = append(t.Fields, PolicyField{Field: key, Outcome: "not in effect", Reason: p.OutOfEffect[key]})
	}
	return t, fs, true
}

// notForwarded marks the policy's fields on a rule target (ts: the one
// add appended, if any) that merge's verdict leaves off the rule's routes
// (merge.ForwardingVerdict.NotApplied: the rule does not forward and the
// field configures forwarding routes only) as not in effect, as the
// rule's own view says.
func notForwarded(r *merge.Result, p *policy.Policy, rule *topology.Rule, path *merge.RulePath, ts []PolicyTarget) {
	for ti := range ts {
		for i := range ts[ti].Fields {
			f := &ts[ti].Fields[i]
			if f.Outcome != "won" && f.Outcome != "merged" {
				continue
			}
			if v := r.FieldForwardingOn(p.Kind, f.Field, rule, path); v.NotApplied() {
				f.Outcome, f.Owner = "not in effect", ""
				f.Reason = fmt.Sprintf("the rule answers with %s, so it has no route action", v.Answer)
			}
		}
	}
}

func candidateOf(pt *merge.Point, p *policy.Policy) *merge.Candidate {
	if pt == nil {
		return nil
	}
	for _, c := range slices.Concat(pt.Candidates, pt.Invalid, pt.Rejected) {
		if c.Policy == p {
			return c
		}
	}
	return nil
}

func fieldOutcome(f *merge.Field, c *merge.Candidate) PolicyField {
	out := PolicyField{Field: f.Key, Outcome: "won"}
	switch {
	case f.Owner == c:
		if len(f.Contributors) > 1 {
			out.Outcome = "merged"
		}
	case slices.Contains(f.Contributors, c):
		out.Outcome, out.Owner = "merged", f.Owner.Policy.ID()
	default:
		d := merge.DecideField(f, c)
		out.Outcome, out.Owner, out.Rule, out.Reason = "lost", f.Owner.Policy.ID(), string(d.Rule), d.Detail
	}
	return out
}

// backendVerdict is the verdict on p at a backend target (the object,
// or one of its ports: Section), nil when it applies there or ref is no
// backend.
func backendVerdict(r *merge.Result, p *policy.Policy, ref Ref) *policy.Rejection {
	if ref.Group == gatewayGroup {
		return nil
	}
	key := policy.TargetKey{Backend: model.Key{Group: ref.Group, Kind: ref.Kind, Namespace: ref.Namespace, Name: ref.Name}, Port: ref.Section}
	return r.Attach.Rejection(p, key)
}

// unmergedVerdicts are the targets p's controller does not apply it on
// that no merge point above shows (a Gateway's policy a listener's
// replaces there; a target of a kind no merge point stands for, such as a
// TCPRoute): the verdict as attach keeps it (merge.Result.Verdicts).
func unmergedVerdicts(r *merge.Result, p *policy.Policy, listed []PolicyTarget) []PolicyTarget {
	var out []PolicyTarget
	for _, v := range r.Verdicts(p) {
		c := wholeCandidate(r, p)
		if c == nil { // it reaches no merge point: its own target's level
			c = &merge.Candidate{Via: attach.ViaTargetRef, Level: merge.LevelGateway}
			switch {
			case v.Target.Rule != nil:
				c.Level = merge.LevelRule
			case v.Route != nil:
				c.Level = merge.LevelRoute
			case v.Target.Listener != nil:
				c.Level = merge.LevelListener
			case v.Target.Set != nil:
				c.Level = merge.LevelListenerSet
			}
		}
		var refs []Ref
		t := v.Target
		switch {
		case t.Gateway != nil:
			refs = []Ref{{Group: gatewayGroup, Kind: "Gateway", Namespace: t.Gateway.Namespace, Name: t.Gateway.Name}}
		case t.Listener != nil:
			refs = []Ref{listenerRef(t.Listener)}
		case t.Set != nil:
			refs = []Ref{setRef(t.Set)}
		case v.Route != nil && t.Rule != nil:
			refs = []Ref{ruleRef(v.Route, t.Rule)}
		case v.Route != nil:
			for _, rule := range v.Route.Rules {
				refs = append(refs, ruleRef(v.Route, rule))
			}
		}
		on := ""
		if t.On != nil {
			on = t.On.ID()
		}
		for _, ref := range refs {
			if slices.ContainsFunc(listed, func(pt PolicyTarget) bool { return pt.Target == ref && pt.NotApplied != nil && pt.Listener == on }) {
				continue
			}
			out = append(out, PolicyTarget{Target: ref, Via: string(c.Via), Path: c.Path, Level: string(c.Level), NotApplied: notApplied(v.Rejection), Listener: on, Fields: []PolicyField{}})
		}
	}
	return out
}

// wholeCandidate is p as it reached its Gateway or ListenerSet (for a
// listener it is rejected on, which it reached through them).
func wholeCandidate(r *merge.Result, p *policy.Policy) *merge.Candidate {
	for _, gp := range r.Gateways {
		if c := candidateOf(gp.Whole.Of(p.Kind), p); c != nil {
			return c
		}
		for _, lp := range gp.Listeners {
			if c := candidateOf(lp.Own.Of(p.Kind), p); c != nil {
				return c
			}
		}
	}
	return nil
}
