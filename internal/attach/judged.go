package attach

import (
	"maps"
	"slices"
	"sort"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// settleJudged decides, once, whether a policy that some controllers judge
// by their own rules (policy.Judgement, Family.ForeignJudges) is valid: by
// the verdicts of the controllers that use it — those of the Gateways
// whose routes reach a backend it targets, and those of the policies that
// call such a backend — each its own judgement where it has one, else the
// kind's own rule. The verdict becomes the policy's Invalid, which merge,
// lint and explain read, so a Gateway API BackendTLSPolicy only one
// controller uses is applied and reported by that controller's CA rule,
// as its status says. A policy no controller uses is judged by the
// configured one; one whose users all fail on the backends' own settings
// before they look for it (Judgement.Unreached) is judged by none. When the users disagree, each applies it by its own
// verdict: the policy's Invalid is the accepting controllers' (none), and
// RefusedBy holds the refusing ones with their findings (reported, each
// naming its controller), which merge reads for their Gateways' clusters
// of the backend (merge.Result.BackendOn). The notes of the controllers
// using it (policy.Judgement.Notes) are reported as they are.
func (r *Result) settleJudged(g *topology.Graph, reg *policy.Registry, set *policy.Set) {
	var judged []*policy.Policy
	for _, p := range set.Policies {
		if len(p.Judgements) > 0 {
			judged = append(judged, p)
		}
	}
	if len(judged) == 0 {
		return
	}
	users := r.backendControllers(g, reg, set)
	on := map[*policy.Policy][]model.Key{}
	for _, k := range r.BackendKeys {
		for _, a := range r.Backend[k] {
			if len(a.Policy.Judgements) > 0 && !slices.Contains(on[a.Policy], k) {
				on[a.Policy] = append(on[a.Policy], k)
			}
		}
	}
	for _, p := range judged {
		controllers := controllersUsing(p, on[p], users, g)
		if len(controllers) == 0 {
			// Its users never reach it: no controller judges it.
			p.Invalid = nil
			continue
		}
		var refused map[string][]diag.Diagnostic
		for _, c := range controllers {
			r.Diagnostics = append(r.Diagnostics, p.Judgements[c].Notes...)
		}
		p.Invalid, refused = settledInvalid(p, controllers)
		if len(refused) == 0 {
			continue
		}
		if r.RefusedBy == nil {
			r.RefusedBy = map[*policy.Policy]map[string][]diag.Diagnostic{}
		}
		r.RefusedBy[p] = refused
		for _, c := range slices.Sorted(maps.Keys(refused)) {
			r.Diagnostics = append(r.Diagnostics, refused[c]...)
		}
	}
}

// backendControllers are, per backend object, the controllers that build a
// destination to it: its Gateways' and its callers' (policy.BackendCaller).
func (r *Result) backendControllers(g *topology.Graph, reg *policy.Registry, set *policy.Set) map[model.Key][]string {
	out := map[model.Key][]string{}
	add := func(k model.Key, c string) {
		if c != "" && !slices.Contains(out[k], c) {
			out[k] = append(out[k], c)
		}
	}
	for k, gws := range g.BackendGateways() {
		for _, gw := range gws {
			add(k, g.ControllerOf(gw))
		}
	}
	for _, p := range set.Policies {
		bc, ok := p.Kind.(policy.BackendCaller)
		f := reg.FamilyOf(p.Kind)
		if !ok || f == nil || f.Controller == nil {
			continue
		}
		for _, k := range bc.CalledBackends(p) {
			add(k, f.Controller.Name)
		}
	}
	return out
}

// controllersUsing are the controllers that use p through the backends
// it is attached to, sorted: those building a destination to one that
// reaches p there (a controller whose judgement has the backend
// Unreached fails on the backend's own settings before it looks for p,
// and is no user through it). The configured controller when no
// controller uses the backends; none when every one that does never
// reaches p.
func controllersUsing(p *policy.Policy, backends []model.Key, users map[model.Key][]string, g *topology.Graph) []string {
	var out []string
	unreached := false
	for _, k := range backends {
		for _, c := range users[k] {
			if j, ok := p.Judgements[c]; ok && !j.Reaches(k) {
				unreached = true
				continue
			}
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 {
		if unreached {
			return nil
		}
		return []string{g.ControllerOf(nil)}
	}
	sort.Strings(out)
	return out
}

// settledInvalid is p's Invalid under the verdicts of controllers: each
// one's judgement where it has one, else the kind's own (p.Invalid as
// decoded). Agreeing verdicts stand as they are (both reasons when all
// refuse it). When they disagree the policy is valid (its Invalid none),
// and refused holds, per controller that refuses it, its findings, each
// saying whose it is: that controller does not apply it, the others do.
func settledInvalid(p *policy.Policy, controllers []string) (invalid []diag.Diagnostic, refused map[string][]diag.Diagnostic) {
	verdicts := make([][]diag.Diagnostic, len(controllers))
	n := 0
	for i, c := range controllers {
		verdicts[i] = p.Invalid
		if j, ok := p.Judgements[c]; ok && j.Conditions != nil {
			verdicts[i] = j.Invalid
		}
		if len(verdicts[i]) > 0 {
			n++
		}
	}
	if n == 0 || len(controllers) == 1 {
		return verdicts[0], nil
	}
	if n == len(controllers) {
		for _, v := range verdicts {
			for _, d := range v {
				if !slices.ContainsFunc(invalid, func(o diag.Diagnostic) bool { return o.Message == d.Message && o.Field == d.Field }) {
					invalid = append(invalid, d)
				}
			}
		}
		return invalid, nil
	}
	refused = map[string][]diag.Diagnostic{}
	for i, c := range controllers {
		for _, d := range verdicts[i] {
			d.Message = c + " refuses it (other controllers using it accept it and apply it on their Gateways; on " + c + "'s it is invalid): " + d.Message
			refused[c] = append(refused[c], d)
		}
	}
	return nil, refused
}
