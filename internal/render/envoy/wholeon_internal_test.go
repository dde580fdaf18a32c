package envoy

import (
	"testing"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// wholeOnKind is a policy kind of no family, for wholeOn's policies.
type wholeOnKind struct{}

func (wholeOnKind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: "test.example", Kind: "Whole"}
}
func (wholeOnKind) Spec() policy.KindSpec { return policy.KindSpec{} }
func (wholeOnKind) Decode(*manifest.Object, *policy.Env) *policy.Policy {
	return nil
}

// TestWholeOnDropsTheFailureOfDroppedFields: on a port none of whose
// listeners applies a whole-Gateway policy (appliedOn), the policy's
// fields leave the port's scope and so does their failure — the port's
// routes answer 503 only for a field still kept there, with that field's
// body. Shapes: the failing field dropped alone, beside a kept failing
// field, beside a kept valid one, and kept itself on a port that applies it.
func TestWholeOnDropsTheFailureOfDroppedFields(t *testing.T) {
	pol := func(name string) *policy.Policy {
		return &policy.Policy{Kind: wholeOnKind{}, Obj: &manifest.Object{Name: name, Namespace: "infra"}}
	}
	claimed, open := &topology.Listener{Index: 0}, &topology.Listener{Index: 1}
	whole, other := pol("whole"), pol("other")
	rejected := &attach.Result{}
	rejected.Reject(whole, policy.TargetKey{Listener: claimed}, &policy.Rejection{Verdict: policy.VerdictOverridden, Reason: "Overridden"})
	field := func(p *policy.Policy, key, body string) *rendered {
		return &rendered{kindKey: "k#" + key, field: key, failBody: body, contributors: []*policy.Policy{p}}
	}
	for _, tc := range []struct {
		name   string
		fields []*rendered
		on     *topology.Listener
		want   string
		nKept  int
	}{
		{"the failing field dropped alone: no failure", []*rendered{field(whole, "x", "x fails")}, claimed, "", 0},
		{"beside a kept valid field: no failure", []*rendered{field(whole, "x", "x fails"), field(other, "y", "")}, claimed, "", 1},
		{"beside a kept failing field: the kept one's body", []*rendered{field(whole, "x", "x fails"), field(other, "y", "y fails")}, claimed, "y fails", 1},
		{"kept on a port that applies it: its body", []*rendered{field(whole, "x", "x fails"), field(other, "y", "")}, open, "x fails", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &scoped{fields: tc.fields}
			for _, f := range tc.fields {
				if f.failBody != "" {
					s.failBody = f.failBody
					break
				}
			}
			gb := &gatewayBuild{builder: &builder{res: &merge.Result{Attach: rejected}}, whole: s}
			got := gb.wholeOn([]*topology.Listener{tc.on})
			if got.failBody != tc.want || len(got.fields) != tc.nKept {
				t.Errorf("failBody %q with %d fields, want %q with %d", got.failBody, len(got.fields), tc.want, tc.nKept)
			}
			if got.replaced() != (tc.want != "") {
				t.Errorf("replaced %v, want %v", got.replaced(), tc.want != "")
			}
		})
	}
}
