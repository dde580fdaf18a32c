package cli

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestRoutedPointsSharedByTheirRules holds merge.Result's routed points,
// combined once per kind and candidates and shared by every rule those
// candidates reach, to what each rule would get alone. Two results are
// merged from one compilation; one is asked rule by rule in graph order,
// the other in reverse order, so that a point two rules share is
// combined from a different rule's candidates in each. Every rule's
// routed points and effective view must read the same in both. Inputs:
// the verdict corpus and a generated Envoy Gateway platform (merging and
// overriding route policies, rule policies).
func TestRoutedPointsSharedByTheirRules(t *testing.T) {
	corpus := verdictCorpus(t)
	objs, err := manifest.Parse("platform.yaml", benchgen.PlatformEnvoyGateway(300), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	corpus = append(corpus, corpusInput{"generated envoygateway", &manifest.Set{Objects: objs}, &Config{Namespace: "default"}, "envoygateway"})
	views, shared := 0, 0
	for _, in := range corpus {
		c := families.Compile(in.set, in.cfg)
		if c.Result == nil || c.Result.Attach == nil {
			continue
		}
		r1 := c.Result
		r2 := merge.Compute(c.Graph, r1.Registry, c.Policies, r1.Attach, in.cfg.PolicyConfig())
		type ask struct {
			rule *topology.Rule
			path *merge.RulePath
			l    *topology.Listener
			desc string
		}
		var asks []ask
		for _, rp := range r1.Routes {
			for _, parent := range rp.Route.Parents {
				for _, l := range parent.Listeners {
					for _, rule := range rp.Rules {
						for _, path := range rule.PathsThrough(parent) {
							asks = append(asks, ask{rule.Rule, path, l, fmt.Sprintf("%s: %s rule %s on listener %s", in.name, rp.Route.Meta.Name, rule.Rule.Section(), l.ID())})
						}
					}
				}
			}
		}
		forward := make([]string, len(asks))
		seen := map[*merge.Point]bool{}
		for i, a := range asks {
			pts := r1.RoutedOn(a.rule, a.path, a.l)
			for _, pt := range pts {
				if seen[pt] {
					shared++
				}
				seen[pt] = true
			}
			forward[i] = routedText(pts) + effectiveText(r1.EffectiveFrom(a.rule, a.path, a.l, pts))
		}
		for i, a := range slices.Backward(asks) {
			pts := r2.RoutedOn(a.rule, a.path, a.l)
			if got := routedText(pts) + effectiveText(r2.EffectiveFrom(a.rule, a.path, a.l, pts)); got != forward[i] {
				t.Errorf("%s: asked last, the rule reads\n%s\nasked first\n%s", a.desc, got, forward[i])
			}
			views++
		}
	}
	t.Logf("%d rule views compared, %d routed points shared with an earlier rule", views, shared)
	if views == 0 || shared == 0 {
		t.Errorf("nothing exercised: %d rule views, %d shared points", views, shared)
	}
}

// routedText writes routed points out: kind, the merged policy, each
// candidate (policy, level, how and where it attached), the invalid ones
// and every field with its contributors, losers and values.
func routedText(pts merge.Points) string {
	var b strings.Builder
	for _, pt := range pts {
		fmt.Fprintf(&b, "%s whole=%s\n", pt.Kind.GroupKind(), pt.Whole)
		for _, c := range pt.Candidates {
			fmt.Fprintf(&b, "  candidate %s\n", candidateText(c))
		}
		for _, c := range pt.Invalid {
			fmt.Fprintf(&b, "  invalid %s\n", candidateText(c))
		}
		for _, f := range pt.Fields {
			b.WriteString(mergedFieldText(f))
		}
	}
	return b.String()
}

// effectiveText writes an effective view out as routedText writes points.
func effectiveText(view []merge.EffectiveField) string {
	var b strings.Builder
	for _, e := range view {
		fmt.Fprintf(&b, "effective %s %s inherited=%v whole=%s by=%s\n%s", e.Kind.GroupKind(), e.Key, e.Inherited, e.Whole, e.ShadowedBy, mergedFieldText(e.Field))
		for _, s := range e.Shadowed {
			b.WriteString("  shadowed " + mergedFieldText(s))
		}
		for _, s := range e.Beside {
			b.WriteString("  beside " + mergedFieldText(s))
		}
	}
	return b.String()
}

func mergedFieldText(f *merge.Field) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  field %s %s owner %s\n", f.Key, f.Strategy, candidateText(f.Owner))
	for i, c := range f.Contributors {
		fmt.Fprintf(&b, "    contributor %s value %s\n", candidateText(c), valueAt(f.Values, i))
	}
	for _, c := range f.Losers {
		fmt.Fprintf(&b, "    loser %s\n", candidateText(c))
	}
	return b.String()
}

// valueAt is a field's i-th value as JSON: the merges make values of
// their own, equal in content, not in address.
func valueAt(vals []any, i int) string {
	if i >= len(vals) {
		return "<none>"
	}
	b, err := json.Marshal(vals[i])
	if err != nil {
		return fmt.Sprintf("%T: %v", vals[i], err)
	}
	return string(b)
}

func candidateText(c *merge.Candidate) string {
	if c == nil {
		return "<none>"
	}
	return fmt.Sprintf("%s@%s via %s %q parent %q rejected %v", c.Policy.ID(), c.Level, c.Via, c.Path, c.Parent, c.Rejected)
}
