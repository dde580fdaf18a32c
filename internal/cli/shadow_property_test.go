package cli

import (
	"testing"

	"github.com/gwpol/gwpol/internal/families"
)

// TestMayShadowOnCoversEveryShadowedField holds merge.Result.MayShadowOn,
// the cheap test lint's shadowed-field rule makes before building a
// rule's effective view, to that view over every corpus input: wherever
// EffectiveOn has a field that is not inherited and hides another
// level's, MayShadowOn says it may, and so does MayShadowFrom, its
// answer once the routed points are known.
func TestMayShadowOnCoversEveryShadowedField(t *testing.T) {
	shadowing, skipped, skippedFrom := 0, 0, 0
	for _, in := range verdictCorpus(t) {
		c := families.Compile(in.set, in.cfg)
		r := c.Result
		if r == nil {
			continue
		}
		for _, rp := range r.Routes {
			for _, parent := range rp.Route.Parents {
				for _, l := range parent.Listeners {
					for _, rule := range rp.Rules {
						for _, path := range rule.PathsThrough(parent) {
							may := r.MayShadowOn(rule.Rule, path, l)
							if !may {
								skipped++
							}
							routed := r.RoutedOn(rule.Rule, path, l)
							mayFrom := r.MayShadowFrom(rule.Rule, path, l, routed)
							if may && !mayFrom {
								skippedFrom++
							}
							for _, e := range r.EffectiveFrom(rule.Rule, path, l, routed) {
								if e.Inherited || len(e.Shadowed) == 0 {
									continue
								}
								shadowing++
								if !may {
									t.Errorf("%s: %s rule %s on listener %s: %s is shadowed there but MayShadowOn says no", in.name, rp.Route.Meta.Name, rule.Rule.Section(), l.ID(), e.Key)
								}
								if !mayFrom {
									t.Errorf("%s: %s rule %s on listener %s: %s is shadowed there but MayShadowFrom says no", in.name, rp.Route.Meta.Name, rule.Rule.Section(), l.ID(), e.Key)
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d shadowing fields, %d rule views skipped, %d more once routed", shadowing, skipped, skippedFrom)
	if shadowing == 0 || skipped == 0 || skippedFrom == 0 {
		t.Errorf("the corpus no longer exercises both answers (%d shadowing fields, %d rule views skipped, %d more once routed)", shadowing, skipped, skippedFrom)
	}
}
