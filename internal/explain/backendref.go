package explain

import (
	"fmt"
	"strconv"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// BackendRef is what the policies a backendRef's ExtensionRef filters
// name set for that backend's share of a rule (merge.RulePoints.BackendRefs).
type BackendRef struct {
	// Index is the backendRef's index in the rule.
	Index int `json:"index"`
	// Backend names what it sends to ("Service infra/web port 80").
	Backend string `json:"backend"`
	// Fields are the policies' fields; Notes on each say whether the
	// controller applies it there and how it meets the rule's own.
	Fields []Field `json:"fields"`
}

// backendRefs explains the backendRefs of rule whose filters name
// policies; es are the rule's fields in effect, for what a backend's
// value meets there.
func backendRefs(r *merge.Result, rule *topology.Rule, es []merge.EffectiveField, opt Options) []BackendRef {
	rp := r.Rule(rule)
	if rp == nil || len(rp.BackendRefs) == 0 {
		return nil
	}
	forwarded := 0
	for _, b := range rule.Backends {
		if !(b.Group == "gateway.networking.k8s.io" && b.Kind == "HTTPRoute") {
			forwarded++
		}
	}
	var out []BackendRef
	for _, bp := range rp.BackendRefs {
		br := BackendRef{Index: bp.Index, Fields: []Field{}}
		if bp.Index < len(rule.Backends) {
			b := rule.Backends[bp.Index]
			br.Backend = fmt.Sprintf("%s %s/%s port %s", b.Kind, b.Namespace, b.Name, strconv.Itoa(int(b.Port)))
		}
		for _, pt := range bp.Own {
			gk := pt.Kind.GroupKind()
			for _, f := range pt.Fields {
				if !MatchField(f.Key, opt.Field) {
					continue
				}
				row := Field{PolicyKind: gk.Group + "/" + gk.Kind, Field: f.Key, Owner: f.Owner.Policy.Describe(), Level: string(merge.LevelBackendRef),
					Strategy: string(f.Strategy), Contributors: ids(f.Contributors), Overridden: ids(f.Losers), DefaultStrategy: true}
				for _, l := range f.Losers {
					d := merge.DecideField(f, l)
					row.Decisions = append(row.Decisions, Decision{Loser: l.Policy.ID(), Rule: string(d.Rule), Reason: d.Detail})
				}
				row.Notes = append(row.Notes, backendRefNote(pt.Kind, f.Key, es, forwarded))
				br.Fields = append(br.Fields, row)
			}
		}
		if len(br.Fields) > 0 {
			out = append(out, br)
		}
	}
	return out
}

// backendRefNote says what becomes of field key of kind k on a
// backendRef: left out (and why), or applied to that backend's share and
// how it meets the rule's own value of the field.
func backendRefNote(k policy.Kind, key string, es []merge.EffectiveField, forwarded int) string {
	var fs policy.FieldSpec
	for _, s := range k.Spec().Fields {
		if s.Key == key {
			fs = s
		}
	}
	switch {
	case fs.BackendRefUntranslated != "":
		return "applied by the controller for this backend, not translated offline (GWP406): " + fs.BackendRefUntranslated
	case !fs.PerBackend:
		return "left out for this backend (GWP218): " + k.Spec().BackendRefNote
	case fs.PerBackendNote != "":
		return fs.PerBackendNote
	}
	rule := ""
	for _, e := range es {
		if e.Kind == k && e.Key == key {
			rule = e.Field.Owner.Policy.Describe()
		}
	}
	switch {
	case rule == "" && forwarded > 1:
		return "in effect for this backend's share only: its weighted cluster's per-filter configuration"
	case rule == "":
		return "in effect for the rule's one backend: on the route's per-filter configuration"
	case forwarded > 1:
		return "in effect for this backend's share: its weighted cluster's per-filter configuration, which Envoy prefers to the rule's (" + rule + ")"
	}
	return "for the rule's one backend the route carries it, and where the rule's " + key + " (" + rule + ") configures the same filter the rule's wins (the backend's is written first and the route's over it)"
}
