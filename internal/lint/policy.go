package lint

import (
	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
)

// noEffect reports valid policies that attach somewhere and set nothing,
// and policies whose mergeType merges into nothing (whole.go).
func noEffect(in *Input) []diag.Diagnostic {
	return append(setsNothing(in), mergedIntoNothing(in)...)
}

// setsNothing reports valid policies that attach somewhere and set nothing.
func setsNothing(in *Input) []diag.Diagnostic {
	attached := attachedPolicies(in.Result)
	var out []diag.Diagnostic
	for _, p := range in.Result.Policies.Policies {
		if !attached[p] || !p.NoEffect() {
			continue
		}
		d := p.Diag(PolicyNoEffect.Code, 0, "spec", "%s attaches but sets no field that takes effect (only targetRefs, unknown or empty fields): it changes nothing; set a field or remove the policy", p.ID())
		d.Pos = p.Obj.KeyPos("spec")
		out = append(out, d)
	}
	return out
}

// attachedPolicies are the policies with at least one attachment.
func attachedPolicies(r *merge.Result) map[*policy.Policy]bool {
	out := map[*policy.Policy]bool{}
	a := r.Attach
	for _, atts := range a.Gateway {
		mark(out, atts)
	}
	for _, atts := range a.ListenerSet {
		mark(out, atts)
	}
	for _, atts := range a.Listener {
		mark(out, atts)
	}
	for _, atts := range a.Route {
		mark(out, atts)
	}
	for _, atts := range a.Rule {
		mark(out, atts)
	}
	return out
}

func mark(out map[*policy.Policy]bool, atts []*attach.Attachment) {
	for _, at := range atts {
		out[at.Policy] = true
	}
}
