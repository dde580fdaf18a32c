package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/graph"
	"github.com/gwpol/gwpol/internal/lint"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
	"github.com/gwpol/gwpol/internal/topology"
)

// One verdict, every view. A policy's controller decides once, in
// attach, on which targets it does not apply a policy it reaches
// (attach.Result.Rejected: Conflicted, Overridden, Invalid), and every
// view reads that verdict. TestVerdictProperty holds them together over
// every corpus — kgateway's cases and more, Envoy Gateway's cases,
// HAPTIC's, WSO2's, and every input under testdata — with no allow-list:
// for every policy not applied on a target,
//
//   - status marks it so: an ancestor entry over the target carries the
//     verdict's reason (and every Conflicted entry status writes is such
//     a verdict);
//   - render has none of its fields there: no merge metadata of the
//     target's Envoy resources names it, nor does explain's view of the
//     target list it as a contributor;
//   - explain says "not applied" with status's reason, in the policy's
//     view and in the target's notes;
//   - lint never names it as a winner (and names a Conflicted one,
//     GWP301);
//   - graph marks it: a red dashed edge to the target, or to its Gateway.
//
// The other half of the property, that for every applied field explain's
// owner is render's metadata, is TestExplainAgreesWithRender, over the
// same corpora (verdictCorpus).

// corpusInput is one input of the verdict corpus.
type corpusInput struct {
	name   string
	set    *manifest.Set
	cfg    *Config
	family string // kgateway, envoygateway, haptic, wso2, testdata
}

// verdictCorpus lists every corpus input: the conformance cases of each
// family (when ../shared is there) and every input under testdata.
func verdictCorpus(t *testing.T) []corpusInput {
	t.Helper()
	var out []corpusInput
	std := func() *Config {
		return &Config{Namespace: "default"}
	}
	load := func(paths ...string) *manifest.Set {
		set, err := manifest.Load(paths, manifest.Options{})
		if err != nil || set.Unreadable() {
			return nil
		}
		return set
	}
	kgw, _ := filepath.Glob(filepath.Join(conformanceDir, "*"))
	more, _ := filepath.Glob(filepath.Join(conformanceDir, "..", "more", "*"))
	for _, dir := range append(kgw, more...) {
		set, cfg, _, _, err := readCase(dir)
		if err != nil || set.Unreadable() {
			continue
		}
		out = append(out, corpusInput{"kgateway " + filepath.Base(dir), set, cfg, "kgateway"})
	}
	eg, _ := filepath.Glob(filepath.Join(egConformanceDir, "*"))
	for _, dir := range eg {
		if set := load(filepath.Join(dir, "input.yaml")); set != nil {
			out = append(out, corpusInput{"envoygateway " + filepath.Base(dir), set, egCaseConfig(t, dir), "envoygateway"})
		}
	}
	hp, _ := filepath.Glob(filepath.Join(hapticConformanceDir, "*"))
	for _, dir := range hp {
		var cs hapticCase
		if err := readJSONFile(filepath.Join(dir, "case.json"), &cs); err != nil {
			continue
		}
		if set := load(filepath.Join(dir, "input.yaml")); set != nil {
			cfg := std()
			cfg.ControllerName, cfg.Settings = "haproxy-haptic.org/controller", map[string]any{"haptic": hapticConfig(cs.ChartValues)}
			out = append(out, corpusInput{"haptic " + filepath.Base(dir), set, cfg, "haptic"})
		}
	}
	ws, _ := filepath.Glob(filepath.Join(wso2CasesDir, "*"))
	for _, dir := range ws {
		if set := load(filepath.Join(dir, "input.yaml")); set != nil {
			out = append(out, corpusInput{"wso2 " + filepath.Base(dir), set, std(), "wso2"})
		}
	}
	if len(kgw)+len(eg)+len(hp)+len(ws) == 0 {
		t.Logf("conformance corpora not found beside the repository; checking testdata only")
	}
	// testdata: the examples, and every one-feature and lint fixture over
	// its base.
	for _, p := range []string{"examples", "examples-envoygateway", "mixed", "haptic", "wso2", "diff"} {
		if set := load(filepath.Join(repoDir, "testdata", p)); set != nil {
			out = append(out, corpusInput{"testdata/" + p, set, std(), "testdata"})
		}
	}
	render, _ := filepath.Glob(filepath.Join(repoDir, "testdata/render/*/*/input.yaml"))
	explained, _ := filepath.Glob(filepath.Join(repoDir, "testdata/explain/*/input.yaml"))
	for _, in := range slices.Concat(render, explained) {
		if set := load(filepath.Join(repoDir, "testdata/base/platform.yaml"), in); set != nil {
			out = append(out, corpusInput{strings.TrimPrefix(filepath.ToSlash(in), repoDir+"/"), set, std(), "testdata"})
		}
	}
	multi, _ := filepath.Glob(filepath.Join(repoDir, "testdata/render/*/input.yaml"))
	for _, in := range multi {
		if set := load(in); set != nil {
			out = append(out, corpusInput{strings.TrimPrefix(filepath.ToSlash(in), repoDir+"/"), set, std(), "testdata"})
		}
	}
	lints, _ := filepath.Glob(filepath.Join(repoDir, "testdata/lint/[A-Za-z]*.yaml"))
	for _, in := range lints {
		if set := load(filepath.Join(repoDir, "testdata/lint/_base.yaml"), in); set != nil {
			out = append(out, corpusInput{strings.TrimPrefix(filepath.ToSlash(in), repoDir+"/"), set, std(), "testdata"})
		}
	}
	return out
}

// repoDir is the repository root, from this package.
const repoDir = "../.."

func TestVerdictProperty(t *testing.T) {
	corpus := verdictCorpus(t)
	inputs := map[string]int{}
	checked := map[string]int{}
	for _, in := range corpus {
		inputs[in.family]++
		c := families.Compile(in.set, in.cfg)
		out, err := renderPlatform(c, inferredTarget, false, nil)
		if err != nil {
			continue // an input render refuses has nothing to compare
		}
		checkVerdictInput(t, in.name, c, out, checked)
	}
	var fams []string
	total := 0
	for _, f := range []string{"kgateway", "envoygateway", "haptic", "wso2", "testdata"} {
		fams = append(fams, fmt.Sprintf("%s %d", f, inputs[f]))
		total += inputs[f]
	}
	msg := fmt.Sprintf("verdict property: %d inputs (%s); %d policies not applied on %d targets (%d Conflicted, %d Overridden, %d Invalid) agree in status, render, explain, lint and graph",
		total, strings.Join(fams, ", "), checked["policies"], checked["targets"], checked[policy.VerdictConflicted], checked[policy.VerdictOverridden], checked["Invalid"])
	t.Log(msg)
	fmt.Println(msg)
	if checked[policy.VerdictConflicted] == 0 || checked[policy.VerdictOverridden] == 0 {
		t.Errorf("the corpus no longer exercises every verdict: %s", msg)
	}
}

// checkVerdictInput checks every rejection of one compiled input.
func checkVerdictInput(t *testing.T, name string, c *pipeline.Compiled, out *envoy.Output, checked map[string]int) {
	t.Helper()
	r := c.Result
	rep := status.Compute(r, status.Options{ControllerName: c.Config.ControllerName})
	lintRep := lint.Run(&lint.Input{Result: r, Stage: c.Diagnostics(), Extra: out.Diagnostics}, lint.Config{})
	dot := graph.DOT(r, graph.Options{})
	checkConflictedStatuses(t, name, r, rep)
	for _, p := range r.Policies.Policies {
		rejected := r.Attach.Rejected[p]
		if len(rejected) == 0 {
			continue
		}
		checked["policies"]++
		where := name + ": " + p.ID()
		pr := explain.Policy(r, p)
		for tk, rj := range rejected {
			checked["targets"]++
			checked[rj.Verdict]++
			at := where + " on " + targetText(tk)
			if !statusSays(r, rep, p, tk, rj) && !statusApart(r, p) {
				t.Errorf("%s: not applied (%s), but no status entry over the target says %s", at, rj, rj.Reason)
			}
			if ids := renderedAt(r, out, tk); ids[p.ID()] {
				t.Errorf("%s: not applied (%s), but render's metadata there names it", at, rj)
			}
			if !slices.ContainsFunc(pr.Targets, func(pt explain.PolicyTarget) bool {
				return pt.NotApplied != nil && pt.NotApplied.Reason == rj.Reason && len(pt.Fields) == 0
			}) {
				t.Errorf("%s: not applied (%s), but explain of the policy does not say so: %+v", at, rj, pr.Targets)
			}
			for _, view := range targetViews(r, tk) {
				if !slices.ContainsFunc(view.Notes, func(n string) bool {
					return strings.HasPrefix(n, "not applied: "+p.Describe()+" ") && strings.Contains(n, "("+rj.Reason+": ")
				}) {
					t.Errorf("%s: not applied (%s), but explain of %s does not say so: %q", at, rj, view.Target, view.Notes)
				}
				for _, f := range view.Fields {
					if f.Owner == p.Describe() || slices.Contains(f.Contributors, p.Describe()) || slices.ContainsFunc(slices.Concat(f.Overridden, f.Shadowed), func(s string) bool { return strings.Contains(s, p.Describe()) }) {
						t.Errorf("%s: not applied (%s), but explain of %s lists it on %s (an owner, contributor or loser)", at, rj, view.Target, f.Field)
					}
				}
			}
			if !graphMarks(dot, p, rj, tk) {
				t.Errorf("%s: not applied (%s), but graph draws no red dashed %q edge from it", at, rj, strings.ToLower(rj.Verdict))
			}
		}
		for _, d := range lintRep.Diagnostics {
			for _, win := range []string{"won by " + p.ID(), "(" + p.ID() + " wins)", "taken by " + p.ID() + ")"} {
				if strings.Contains(d.Message, win) && !appliesSomewhere(r, p) {
					t.Errorf("%s: applied nowhere, but lint names it a winner: %s %s", where, d.Code, d.Message)
				}
			}
		}
		if conflictedEverywhere(rejected) && !slices.ContainsFunc(lintRep.Diagnostics, func(d diag.Diagnostic) bool {
			return d.Code == lint.PolicyOverridden.Code && strings.Contains(d.Message, p.ID()+" is conflicted")
		}) {
			t.Errorf("%s: Conflicted, but lint does not name it (GWP301)", where)
		}
	}
}

// checkConflictedStatuses: every Conflicted entry status writes for a
// policy is a verdict the IR carries (status never decides one alone):
// its controller's rejection (Envoy Gateway), or the one merge records
// on a backend (the Gateway API's BackendTLSPolicy, policy.KindSpec.OneWins).
func checkConflictedStatuses(t *testing.T, name string, r *merge.Result, rep *status.Report) {
	t.Helper()
	byID := map[string]*policy.Policy{}
	for _, p := range r.Policies.Policies {
		byID[p.Kind.GroupKind().Group+"/"+p.Kind.GroupKind().Kind+"/"+p.Obj.Namespace+"/"+p.Obj.Name] = p
	}
	for _, sp := range rep.Policies {
		p := byID[sp.Group+"/"+sp.Kind+"/"+sp.Namespace+"/"+sp.Name]
		if p == nil {
			continue
		}
		for _, a := range sp.Ancestors {
			for _, cnd := range a.Conditions {
				if cnd.Type == "Accepted" && cnd.Reason == "Conflicted" && !statusApart(r, p) &&
					!slices.ContainsFunc(rejections(r, p), func(rj *policy.Rejection) bool { return rj.Reason == "Conflicted" }) {
					t.Errorf("%s: status says %s is Conflicted at %s, but the IR has no such verdict", name, p.ID(), a.AncestorRef)
				}
			}
		}
	}
}

// statusApart: p's status on some controller's ancestors is that
// controller's own decision (policy.Family.ForeignStatuses, kept in attach:
// attach.Result.ForeignAncestors), which by the controller's design
// differs from what its data plane does, and the IR says so — a GWP401
// warning on p (the controller's status Conflicted where no backend
// follows it, or Accepted where a backend takes another policy). Status
// then writes what that controller writes, decided once in attach, and
// lint tells the user both.
func statusApart(r *merge.Result, p *policy.Policy) bool {
	if len(r.Attach.ForeignAncestors[p]) == 0 {
		return false
	}
	return slices.ContainsFunc(r.Attach.Diagnostics, func(d diag.Diagnostic) bool {
		return d.Object == p.Ref() && d.Code == policy.LintPolicyInvalid.Code && d.Severity == diag.Warning && strings.Contains(d.Message, "status")
	})
}

func rejections(r *merge.Result, p *policy.Policy) []*policy.Rejection {
	var out []*policy.Rejection
	for _, rj := range r.Attach.Rejected[p] {
		out = append(out, rj)
	}
	return out
}

func conflictedEverywhere(rejected map[policy.TargetKey]*policy.Rejection) bool {
	for _, rj := range rejected {
		if rj.Verdict != policy.VerdictConflicted {
			return false
		}
	}
	return true
}

// appliesSomewhere: p is a candidate at some merge point.
func appliesSomewhere(r *merge.Result, p *policy.Policy) bool {
	found := false
	r.EachPoint(func(_ merge.Target, pts merge.Points) {
		for _, pt := range pts {
			if slices.ContainsFunc(pt.Candidates, func(c *merge.Candidate) bool { return c.Policy == p }) {
				found = true
			}
		}
	})
	return found
}

func targetText(tk policy.TargetKey) string {
	if on := tk.On; on != nil {
		tk.On = nil
		return targetText(tk) + " on listener " + on.ID()
	}
	switch {
	case tk.Gateway != nil:
		return "Gateway " + tk.Gateway.Namespace + "/" + tk.Gateway.Name
	case tk.Set != nil:
		return "ListenerSet " + tk.Set.Namespace + "/" + tk.Set.Name
	case tk.Listener != nil:
		return "listener " + tk.Listener.ID()
	case tk.Route != nil:
		return tk.Route.Kind + " " + tk.Route.Meta.Namespace + "/" + tk.Route.Meta.Name
	case tk.Rule != nil:
		return "rule " + tk.Rule.Section()
	case tk.Backend.Name != "":
		return tk.Backend.Kind + " " + tk.Backend.Namespace + "/" + tk.Backend.Name + " port " + tk.Port
	}
	return "?"
}

// gatewaysOf are the Gateways (and the listeners of each) a target's
// configuration reaches.
func listenersOf(tk policy.TargetKey) []*topology.Listener {
	switch {
	case tk.Gateway != nil:
		return tk.Gateway.Listeners
	case tk.Set != nil && tk.Set.Parent != nil:
		var out []*topology.Listener
		for _, l := range tk.Set.Parent.Listeners {
			if l.Set == tk.Set {
				out = append(out, l)
			}
		}
		return out
	case tk.Listener != nil:
		return []*topology.Listener{tk.Listener}
	}
	return nil
}

// rulesOf are a route target's rules, and their route.
func rulesOf(r *merge.Result, tk policy.TargetKey) (*topology.Route, []*topology.Rule) {
	switch {
	case tk.Route != nil:
		return tk.Route, tk.Route.Rules
	case tk.Rule != nil:
		for _, rp := range r.Routes {
			if slices.Contains(rp.Route.Rules, tk.Rule) {
				return rp.Route, []*topology.Rule{tk.Rule}
			}
		}
	}
	return nil, nil
}

// statusSays: an ancestor entry of p over the target carries the
// verdict's reason.
func statusSays(r *merge.Result, rep *status.Report, p *policy.Policy, tk policy.TargetKey, rj *policy.Rejection) bool {
	gk := p.Kind.GroupKind()
	var gateways []string
	for _, l := range listenersOf(tk) {
		gateways = append(gateways, l.Ancestor().Name, l.Gateway.Name)
	}
	if tk.Gateway != nil {
		gateways = append(gateways, tk.Gateway.Name)
	}
	if rt, _ := rulesOf(r, tk); rt != nil {
		for _, pa := range rt.Parents {
			gateways = append(gateways, string(pa.Ref.Name))
		}
	}
	for _, sp := range rep.Policies {
		if sp.Group != gk.Group || sp.Kind != gk.Kind || sp.Namespace != p.Obj.Namespace || sp.Name != p.Obj.Name {
			continue
		}
		for _, a := range sp.Ancestors {
			if slices.ContainsFunc(a.Conditions, func(c status.Condition) bool { return c.Type == "Aggregated" }) {
				return true // the controller cut the list: the entry may be among those left out
			}
			// a backend's policy reports against the Gateways whose routes
			// use the backend: any of them
			if tk.Backend.Name == "" && !slices.Contains(gateways, a.AncestorRef.Name) {
				continue
			}
			if slices.ContainsFunc(a.Conditions, func(c status.Condition) bool { return c.Reason == rj.Reason }) {
				return true
			}
		}
	}
	return false
}

// renderedAt are the policy IDs merge metadata names on the Envoy
// resources of a target: a route's (and its rules' clusters'), or a
// Gateway's or listener's Listener, RouteConfiguration and virtual hosts.
func renderedAt(r *merge.Result, out *envoy.Output, tk policy.TargetKey) map[string]bool {
	ids := map[string]bool{}
	add := func(md *corev3.Metadata) {
		for _, st := range md.GetFilterMetadata() {
			for _, v := range st.GetFields() {
				for _, x := range v.GetListValue().GetValues() {
					ids[x.GetStringValue()] = true
				}
			}
		}
	}
	if rt, rules := rulesOf(r, tk); rt != nil {
		names := map[string]bool{}
		for _, rule := range rules {
			for _, pa := range rt.Parents {
				for _, l := range throughListeners(pa.Listeners, tk) {
					for _, n := range out.RouteNames(rule, l) {
						names[n] = true
					}
				}
			}
		}
		for _, g := range out.Gateways {
			for _, rc := range g.RouteConfigurations {
				for _, vh := range rc.VirtualHosts {
					for _, route := range vh.Routes {
						if names[route.Name] {
							add(route.Metadata)
						}
					}
				}
			}
		}
		return ids
	}
	ls := listenersOf(tk)
	if len(ls) == 0 {
		return ids
	}
	gw := ls[0].Gateway
	ports := map[uint32]bool{}
	for _, l := range ls {
		shared := slices.ContainsFunc(gw.Listeners, func(o *topology.Listener) bool { return o != l && o.Port == l.Port })
		if tk.Listener == nil || !shared {
			ports[uint32(l.Port)] = true
		}
	}
	for _, g := range out.Gateways {
		if g.Namespace != gw.Namespace || g.Name != gw.Name {
			continue
		}
		names := map[string]bool{}
		for _, el := range g.Listeners {
			if ports[el.GetAddress().GetSocketAddress().GetPortValue()] {
				add(el.Metadata)
				names[el.Name] = true
			}
		}
		for _, rc := range g.RouteConfigurations {
			if tk.Listener == nil || names[rc.Name] { // a port's HTTP listeners' RouteConfiguration is named after it
				add(rc.Metadata)
			}
		}
	}
	return ids
}

// targetViews are explain's views of a target: each rule on each
// listener serving it, or each listener a Gateway-side target covers.
func targetViews(r *merge.Result, tk policy.TargetKey) []explain.Target {
	var out []explain.Target
	if rt, rules := rulesOf(r, tk); rt != nil {
		for _, rule := range rules {
			for _, pa := range rt.Parents {
				for _, l := range throughListeners(pa.Listeners, tk) {
					if rp := r.Rule(rule); rp != nil && !rp.Delegating {
						out = append(out, explain.Rule(r, rt, rule, l, explain.Options{}))
					}
				}
			}
		}
		return out
	}
	for _, l := range listenersOf(tk) {
		out = append(out, explain.Listener(r, l, explain.Options{}))
	}
	return out
}

// throughListeners are the listeners of ls a route target's verdict
// holds on: all of them, or the one it is narrowed to (TargetKey.On).
func throughListeners(ls []*topology.Listener, tk policy.TargetKey) []*topology.Listener {
	if tk.On == nil {
		return ls
	}
	if slices.Contains(ls, tk.On) {
		return []*topology.Listener{tk.On}
	}
	return nil
}

// graphMarks: the DOT output has a red dashed edge from p labelled with
// the verdict — or, for a backend target (graph draws no backend), p's
// node says it is not applied, with the verdict's reason.
func graphMarks(dot string, p *policy.Policy, rj *policy.Rejection, tk policy.TargetKey) bool {
	if tk.Backend.Name != "" {
		return strings.Contains(dot, fmt.Sprintf("%q [label=", "p_"+p.ID())) && strings.Contains(dot, "not applied ("+rj.Reason+")")
	}
	from := fmt.Sprintf("%q -> ", "p_"+p.ID())
	attrs := fmt.Sprintf("[label=%q, style=dashed, color=red", strings.ToLower(rj.Verdict))
	for _, line := range strings.Split(dot, "\n") {
		if strings.Contains(line, from) && strings.Contains(line, attrs) {
			return true
		}
	}
	return false
}
