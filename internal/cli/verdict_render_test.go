package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/topology"
)

// verdictInput is one input the verdict property is checked on.
type verdictInput struct {
	name string
	set  *manifest.Set
	cfg  *Config
}

// verdictInputs are every Envoy Gateway case, the examples and the render
// fixture of route validity.
func verdictInputs(t *testing.T) []verdictInput {
	t.Helper()
	var out []verdictInput
	dirs, _ := filepath.Glob(filepath.Join(egConformanceDir, "*"))
	if len(dirs) == 0 {
		t.Logf("Envoy Gateway cases not found at %s; checking the examples only", egConformanceDir)
	}
	for _, dir := range dirs {
		set, err := manifest.Load([]string{filepath.Join(dir, "input.yaml")}, manifest.Options{})
		if err != nil || set.Unreadable() {
			continue
		}
		out = append(out, verdictInput{filepath.Base(dir), set, egCaseConfig(t, dir)})
	}
	for _, p := range []string{"../../testdata/examples", "../../testdata/examples-envoygateway", "../../testdata/render/envoygateway-route-validity/input.yaml"} {
		set, err := manifest.Load([]string{p}, manifest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := &Config{Namespace: "default"}
		// the example platforms' deployment (testdata/base/eg-extensions.gwpol.yaml)
		setSetting(t, cfg, "envoyGateway.extensionApis.enableLua", true)
		setSetting(t, cfg, "envoyGateway.enableBackend", true)
		out = append(out, verdictInput{p, set, cfg})
	}
	return out
}

// TestRouteVerdictAgreesWithRender holds render and explain to the route
// verdict of the controller managing each Gateway (status and lint read
// it already), for every rule on every listener of a managed Gateway,
// under the inferred target and envoygateway: a rule the verdict leaves
// out has no Envoy route, and explain says it is not programmed, with the
// verdict's reason; a rule it answers answers that status on every route,
// and explain says the same status; a rule none of whose backendRefs
// takes traffic (not resolved or refused) answers 500 unless it
// redirects; and each refused backendRef of a rule that still forwards
// has its share of the weight answered 500 — under envoygateway in
// invalid-backend-cluster, first, with the summed weight — which explain
// names with the verdict's reason.
func TestRouteVerdictAgreesWithRender(t *testing.T) {
	counts := map[string]int{}
	for _, in := range verdictInputs(t) {
		c := families.Compile(in.set, in.cfg)
		for _, target := range []string{inferredTarget, "envoygateway"} {
			out, err := renderPlatform(c, target, false, nil)
			if err != nil {
				t.Fatalf("%s: render %s: %v", in.name, target, err)
			}
			checkVerdicts(t, c, out, in.name+" "+target, target == "envoygateway", counts)
		}
	}
	msg := fmt.Sprintf("route verdicts: %d rules left out, %d answered, %d with no backend taking traffic, %d refused shares agree with render and explain",
		counts["left out"], counts["answered"], counts["no backend"], counts["share"])
	t.Log(msg)
	if counts["left out"] == 0 || counts["answered"] == 0 || counts["no backend"] == 0 || counts["share"] == 0 {
		t.Errorf("the inputs no longer exercise every outcome: %s", msg)
	}
}

func checkVerdicts(t *testing.T, c *pipeline.Compiled, out *envoy.Output, where string, eg bool, counts map[string]int) {
	t.Helper()
	routes := map[string]map[string]*routev3.Route{}
	for _, g := range out.Gateways {
		byName := map[string]*routev3.Route{}
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				for _, r := range vh.Routes {
					byName[r.Name] = r
				}
			}
		}
		routes[g.Namespace+"/"+g.Name] = byName
	}
	for _, rp := range c.Result.Routes {
		rt := rp.Route
		for _, rule := range rp.Rules {
			for _, l := range servingListeners(rt) {
				gw := l.Gateway
				byName, rendered := routes[gw.Namespace+"/"+gw.Name]
				v := c.Result.Verdict(rt, gw)
				if !rendered || v == nil {
					continue
				}
				at := fmt.Sprintf("%s: %s %s/%s rule %s on %s", where, rt.Kind, rt.Meta.Namespace, rt.Meta.Name, rule.Rule.Section(), l.ID())
				names := out.RouteNames(rule.Rule, l)
				view := explain.Rule(c.Result, rt, rule.Rule, l, answersFrom(out))
				if f, ok := v.Fate(rule.Rule.Index); ok {
					if f.Status == 0 {
						counts["left out"]++
						if len(names) > 0 {
							t.Errorf("%s: the verdict leaves the rule out (%s), but render has routes %v", at, f.Reason, names)
						}
						if !hasNote(view, "not programmed", f.Reason) {
							t.Errorf("%s: the verdict leaves the rule out (%s), but explain does not say so: %q", at, f.Reason, view.Notes)
						}
						continue
					}
					counts["answered"]++
					for _, n := range names {
						if st, _ := envoy.RouteAnswer(byName[n]); st != f.Status {
							t.Errorf("%s: the verdict answers %d (%s), but route %s answers %d", at, f.Status, f.Reason, n, st)
						}
					}
					if view.FixedStatus != f.Status || !hasNote(view, fmt.Sprintf("answers %d", f.Status), f.Reason) {
						t.Errorf("%s: the verdict answers %d (%s), but explain says %d: %q", at, f.Status, f.Reason, view.FixedStatus, view.Notes)
					}
					continue
				}
				checkShares(t, c, rt, rule.Rule, gw, names, byName, view, at, eg, counts)
			}
		}
	}
}

// checkShares checks a rule the verdict serves: its backendRefs that take
// no traffic, as render and explain treat them.
func checkShares(t *testing.T, c *pipeline.Compiled, rt *topology.Route, rule *topology.Rule, gw *topology.Gateway, names []string, byName map[string]*routev3.Route,
	view explain.Target, at string, eg bool, counts map[string]int) {
	t.Helper()
	var refused []string
	valid, invalid, refusals := 0, uint32(0), 0
	for i, b := range rule.Backends {
		rf, isRefused := c.Result.BackendRefused(rt, rule, i, gw)
		switch {
		case isRefused:
			refusals++
			refused = append(refused, rf.Reason)
			invalid += uint32(max(b.Weight, 0))
		case !b.Resolved:
			invalid += uint32(max(b.Weight, 0))
		case b.Weight > 0:
			valid++
		}
	}
	if refusals == 0 {
		return
	}
	for _, n := range names {
		r := byName[n]
		if r.GetRedirect() != nil {
			continue
		}
		status, _ := envoy.RouteAnswer(r)
		if valid == 0 {
			counts["no backend"]++
			if status != 500 && r.GetDirectResponse() == nil {
				t.Errorf("%s: no backendRef takes traffic (refused: %v), but route %s forwards", at, refused, n)
			}
			if view.FixedStatus != status {
				t.Errorf("%s: route %s answers %d, but explain says %d: %q", at, n, status, view.FixedStatus, view.Notes)
			}
			continue
		}
		ra := r.GetRoute()
		if ra == nil {
			continue // a policy answers the rule itself
		}
		counts["share"]++
		if eg && invalid > 0 {
			wcs := ra.GetWeightedClusters().GetClusters()
			share := c.Result.Registry.Targets()["envoygateway"].InvalidShare
			if len(wcs) == 0 || share == "" || wcs[0].GetName() != share || wcs[0].GetWeight().GetValue() != invalid {
				t.Errorf("%s: refused backendRefs (%v) weigh %d, but route %s does not send that share to %s first: %v", at, refused, invalid, n, share, wcs)
			}
		}
		for _, reason := range refused {
			if !hasNote(view, "is refused by", reason) {
				t.Errorf("%s: a backendRef is refused (%s), but explain does not name its share: %q", at, reason, view.Notes)
			}
		}
	}
}

// servingListeners are the listeners a route is attached to, once each.
func servingListeners(rt *topology.Route) []*topology.Listener {
	var out []*topology.Listener
	for _, p := range rt.Parents {
		for _, l := range p.Listeners {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// hasNote reports whether one of explain's notes holds every part.
func hasNote(v explain.Target, parts ...string) bool {
	return slices.ContainsFunc(v.Notes, func(n string) bool {
		for _, p := range parts {
			if !strings.Contains(n, p) {
				return false
			}
		}
		return true
	})
}
