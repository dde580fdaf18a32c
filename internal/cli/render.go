package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/trace"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/topology"
)

type renderOptions struct {
	*globalOptions
	Output    string
	Type      string
	Gateway   string
	Routes    []string
	Bootstrap bool
	Out       string
	Target    string
	MergeKey  string
}

func newRenderCmd(g *globalOptions, run func(*renderOptions) error) *cobra.Command {
	o := &renderOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "render",
		Short: "Render the Envoy xDS config (listeners, routes, clusters) of every Gateway",
		Long: `render builds, per Gateway, the Envoy resources a kgateway-style control plane
would program: one Listener per port, RouteConfigurations with a virtual host
per hostname and the routes in Gateway API precedence order, and Clusters per
backend. Merged policy fields configure HTTP filters per route, virtual host
or route configuration, and each resource carries merge.<group>/<kind>
filter_metadata naming, per field, the policies that produced it.

A field the render target cannot express is reported (GWP404,
unsupported(required_capability: X)) and the routes it applies to answer 503:
nothing is dropped silently or half-applied. Every resource passes Envoy's
validation rules; Secrets are referenced by SDS name, never inlined.`,
		Example: `  gwpol render -f testdata/examples
  gwpol render -f manifests/ --gateway infra/public --type route -o json
  gwpol render -f manifests/ --target kgateway --merge-key kgateway
  gwpol render -f manifests/ --gateway infra/public --bootstrap --out envoy.yaml`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkFormat(o.Output, "yaml", "json"); err != nil {
				return err
			}
			o.Target = askedTarget(o.Target, cmd.Flags().Changed("target"), o.config)
			if err := checkChoice("--type", o.Type, "listener", "route", "cluster", "all"); err != nil {
				return err
			}
			if err := checkChoice("--target", o.Target, targetChoices()...); err != nil {
				return err
			}
			if err := checkChoice("--merge-key", o.MergeKey, "gwpol", "kgateway"); err != nil {
				return err
			}
			if strings.Count(o.Gateway, "/") > 1 {
				return usageError("--gateway must be NAMESPACE/NAME or NAME (with -n), not %q", o.Gateway)
			}
			if o.Bootstrap && o.Type != "all" {
				return usageError("--bootstrap writes complete bootstraps; it cannot be combined with --type %s", o.Type)
			}
			if run != nil {
				return run(o)
			}
			return runRender(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml or json")
	f.StringVar(&o.Type, "type", "all", "resources to print: listener, route, cluster or all")
	f.StringVar(&o.Gateway, "gateway", "", "render only this Gateway: NAMESPACE/NAME, or NAME in the -n namespace")
	f.StringArrayVar(&o.Routes, "route", nil, "render only the Envoy routes of this route, KIND/NAMESPACE/NAME[/RULE] (KIND/NAME[/RULE] with -n), with the listeners and clusters they need; repeatable")
	f.BoolVar(&o.Bootstrap, "bootstrap", false, "print one complete static Envoy bootstrap per Gateway (admin on 127.0.0.1:19000)")
	f.StringVar(&o.Out, "out", "", "write to this file (atomically) instead of stdout; with --bootstrap, a directory gets one NAMESPACE-NAME file per Gateway")
	f.BoolVar(&g.OutFollowSymlinks, "out-follow-symlinks", false, outFollowHelp)
	f.StringVar(&o.Target, "target", inferredTarget, targetFlagHelp)
	f.StringVar(&o.MergeKey, "merge-key", "gwpol", "metadata key style: gwpol (merge.<group>/<kind>) or kgateway (merge.<kind>.<group>)")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("yaml", "json"))
	_ = cmd.RegisterFlagCompletionFunc("type", fixedCompletions("listener", "route", "cluster", "all"))
	_ = cmd.RegisterFlagCompletionFunc("target", fixedCompletions(targetChoices()...))
	_ = cmd.RegisterFlagCompletionFunc("merge-key", fixedCompletions("gwpol", "kgateway"))
	_ = cmd.RegisterFlagCompletionFunc("gateway", g.fromInputs(gatewayRefs))
	_ = cmd.RegisterFlagCompletionFunc("route", g.fromInputs(routeRefs))
	return cmd
}

func checkChoice(flag, got string, allowed ...string) error {
	for _, a := range allowed {
		if got == a {
			return nil
		}
	}
	return usageError("%s must be one of %v, not %q", flag, allowed, got)
}

// renderCompiled renders a compiled input for a target.
func renderCompiled(c *pipeline.Compiled, target string, kgatewayKey bool, gateways ...string) (*envoy.Output, error) {
	return renderCompiledWith(c, target, kgatewayKey, nil, gateways...)
}

// renderCompiledWith is renderCompiled handing each Gateway's resources
// to each (when not nil) instead of collecting them
// (envoy.Options.EachGateway).
func renderCompiledWith(c *pipeline.Compiled, target string, kgatewayKey bool, each func(*envoy.Gateway) error, gateways ...string) (*envoy.Output, error) {
	return envoy.Render(c.Result, envoy.Options{
		Target:         target,
		MergeKeyCompat: kgatewayKey,
		EachGateway:    each,
		Gateways:       gateways,
		// Config turns on the route source metadata a registered
		// controller declares, under every target: it only adds route
		// metadata for access logs to read (policy.Registry.RouteSource).
		Config: c.Config.PolicyConfig(),
	})
}

func runRender(o *renderOptions) error {
	o.config.ReleaseTrees = true // render reads the compiled result, not the trees
	c, err := o.compile()
	if err != nil {
		return err
	}
	return o.render(c)
}

// render writes the Envoy config of compiled inputs (every view of
// render; the fuzz targets call it so, on one compile).
func (o *renderOptions) render(c *pipeline.Compiled) error {
	defer trace.StartRegion(context.Background(), "render").End()
	gws, err := o.selectedGateways(c)
	if err != nil {
		return err
	}
	scope, err := o.selectedRules(c)
	if err != nil {
		return err
	}
	fixed := fixedStatusLines(c, gws, scope, len(o.Routes) > 0)
	// Compile errors shape the config as much as render's own: they go to
	// stderr with them, in one sorted list.
	report := c.Errors()
	inputErr := inputResult(c) // taken now: c must not stay live below
	noGateways := noGatewaysNote(c)
	kgatewayKey := o.MergeKey == "kgateway"
	notes := func(out *envoy.Output) {
		printDiagnostics(o.IO.ErrOut, append(report, out.Diagnostics...))
		if noGateways != "" {
			fmt.Fprintln(o.IO.ErrOut, inert.String(noGateways))
		}
		for _, gw := range out.Unmanaged {
			why := "its GatewayClass is not among the input's, so no controller there programs it"
			if ns, name, ok := strings.Cut(gw, "/"); ok {
				if v := c.Graph.ClassRefusal(c.Graph.Gateway(ns, name)); v != nil {
					why = fmt.Sprintf("its controller %s does not accept its GatewayClass (%s), so nothing reconciles it", v.Controller, v.Why)
				}
			}
			fmt.Fprintf(o.IO.ErrOut, "note: Gateway %s is not rendered: %s (status reports none of its routes' parents)\n", inert.String(gw), inert.String(why))
		}
		for _, l := range fixed {
			io.WriteString(o.IO.ErrOut, inert.String(l)+"\n")
		}
	}
	if !o.Bootstrap && len(o.Routes) == 0 && renderStreams(c, o.Target, gws) {
		// Each Gateway is written out as soon as it is built and let go:
		// the platform's xDS is never held whole. What rendering found
		// follows the output.
		var out *envoy.Output
		err := writeOutWith(o.globalOptions, o.Out, func(w io.Writer) error {
			// as below: bidi and C1 controls as \u escapes, each
			// resource escaped as it is written
			s := envoy.NewInertStream(w, o.Output, envoy.ResourceType(o.Type))
			var err error
			if out, err = renderPlatformWith(c, o.Target, kgatewayKey, gws, s.Gateway); err != nil {
				s.Abort()
				return err
			}
			return s.Close()
		})
		if out != nil {
			notes(out)
		}
		return firstErr(err, inputErr)
	}
	out, err := renderPlatform(c, o.Target, kgatewayKey, gws)
	if err != nil {
		return err
	}
	if len(o.Routes) > 0 {
		out = out.Scope(scope)
	}
	// From here on only the xDS is needed: dropping the route index lets
	// the collector reclaim the model and what is left of the parsed input
	// while the output is written.
	out = out.Resources()
	notes(out)
	if !o.Bootstrap {
		return firstErr(writeOutWith(o.globalOptions, o.Out, func(w io.Writer) error {
			if o.Output == "json" {
				// protojson's escapes, and bidi and C1 controls as \u
				// escapes: the same JSON, inert in a terminal.
				jw := inert.NewJSONWriter(w)
				return firstErr(out.WriteJSON(jw, envoy.ResourceType(o.Type)), jw.Close())
			}
			return out.WriteYAML(w, envoy.ResourceType(o.Type))
		}), inputErr)
	}
	return firstErr(o.writeBootstraps(out), inputErr)
}

// writeBootstraps writes one bootstrap, to stdout or --out, or one file
// per Gateway into an --out directory: envoy -c loads one bootstrap per
// file, so several never go into one stream.
func (o *renderOptions) writeBootstraps(out *envoy.Output) error {
	dir := o.Out != "" && (strings.HasSuffix(o.Out, "/") || isDir(o.Out))
	if len(out.Gateways) > 1 && !dir {
		return usageError("--bootstrap renders %d Gateways and envoy -c loads one bootstrap per file: give --out DIRECTORY for one file per Gateway, or --gateway to pick one", len(out.Gateways))
	}
	if !dir {
		data, err := out.MarshalBootstraps(o.Output)
		if err != nil {
			return err
		}
		return writeOut(o.globalOptions, o.Out, o.inertJSON(data))
	}
	root, err := os.OpenRoot(o.Out)
	if err != nil {
		return outError(o.Out, o.Out, err)
	}
	defer root.Close()
	written := map[string]string{} // file name → the Gateway written to it
	for _, g := range out.Gateways {
		name, err := bootstrapFileName(g.Namespace, g.Name, o.Output)
		if err != nil {
			return err
		}
		id := g.Namespace + "/" + g.Name
		if other, dup := written[name]; dup {
			return diag.Errorf(diag.Invalid, "--out %s: Gateways %s and %s both map to the file %s; give --gateway to write one of them", o.Out, other, id, name)
		}
		written[name] = id
		data, err := (&envoy.Output{Target: out.Target, Gateways: []*envoy.Gateway{g}}).MarshalBootstraps(o.Output)
		if err != nil {
			return err
		}
		data = o.inertJSON(data)
		if err := writeDerived(o.globalOptions, root, o.Out, name, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}

// bootstrapFileName is NAMESPACE-NAME.EXT, the file of one Gateway's
// bootstrap in an --out directory. The parts are checked again here as
// the API server checks them (the model refuses objects with other
// names), so the file name is one plain path component whatever the
// input held.
func bootstrapFileName(namespace, name, ext string) (string, error) {
	if msgs := validation.IsDNS1123Label(namespace); len(msgs) > 0 {
		return "", diag.Errorf(diag.Invalid, "refusing to name an --out file after namespace %q: %s", namespace, strings.Join(msgs, "; "))
	}
	if msgs := validation.IsDNS1123Subdomain(name); len(msgs) > 0 {
		return "", diag.Errorf(diag.Invalid, "refusing to name an --out file after Gateway %q: %s", name, strings.Join(msgs, "; "))
	}
	return namespace + "-" + name + "." + ext, nil
}

// inertJSON is JSON output with bidi and C1 controls as \u escapes (the
// same JSON, inert in a terminal); YAML output escapes them itself.
func (o *renderOptions) inertJSON(data []byte) []byte {
	if o.Output != "json" {
		return data
	}
	return inert.JSON(data)
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// selectedGateways resolves --gateway: NAME takes the -n (or config)
// namespace; a Gateway not in the input is a usage error naming the
// nearest one.
func (o *renderOptions) selectedGateways(c *pipeline.Compiled) ([]string, error) {
	if o.Gateway == "" {
		return nil, nil
	}
	ns, name, qualified := strings.Cut(o.Gateway, "/")
	if !qualified {
		ns, name = c.Config.Namespace, o.Gateway
	}
	if c.Graph.Gateway(ns, name) == nil {
		return nil, explain.Absent(c.Model, explain.TargetSpec{Kind: "Gateway", Namespace: ns, Name: name}, explain.GatewayNames(c.Graph))
	}
	return []string{ns + "/" + name}, nil
}

// selectedRules resolves --route to the rules it names, each with every
// listener serving it.
func (o *renderOptions) selectedRules(c *pipeline.Compiled) ([]envoy.RuleOn, error) {
	var out []envoy.RuleOn
	for _, ref := range o.Routes {
		t, err := explain.ParseTarget(ref, o.Namespace)
		if err != nil {
			return nil, err
		}
		if t.Kind != "HTTPRoute" && t.Kind != "GRPCRoute" {
			return nil, usageError("--route %q: want an HTTPRoute or GRPCRoute, not a %s", ref, t.Kind)
		}
		rt := c.Graph.Route(t.Kind, t.Namespace, t.Name)
		if rt == nil {
			return nil, explain.Absent(c.Model, t, explain.RouteNames(c.Graph, t.Kind))
		}
		found := false
		for _, rule := range rt.Rules {
			if t.Section != "" && rule.Name != t.Section && rule.Section() != t.Section {
				continue
			}
			found = true
			for _, p := range rt.Parents {
				for _, l := range p.Listeners {
					out = append(out, envoy.RuleOn{Rule: rule, Listener: l})
				}
			}
		}
		if !found {
			var secs []string
			for _, rule := range rt.Rules {
				secs = append(secs, rule.Section())
			}
			return nil, explain.Absent(c.Model, t, secs)
		}
	}
	return out, nil
}

// fixedStatusLines name every rendered rule that answers a fixed status
// instead of forwarding, and why, so a 500 is never a surprise: the rules
// of the selected Gateways (all when none is), or only the --route ones.
func fixedStatusLines(c *pipeline.Compiled, gateways []string, scope []envoy.RuleOn, scoped bool) []string {
	inScope := map[*topology.Rule]bool{}
	for _, r := range scope {
		inScope[r.Rule] = true
	}
	// Each route's lines are its own (merge's answers are safe to ask
	// in parallel, as render asks them): in parallel, taken in route
	// order.
	routes := c.Result.Routes
	lines := make([][]string, len(routes))
	parallel.Chunks(len(routes), 64, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			lines[i] = routeFixedStatusLines(c, routes[i], gateways, inScope, scoped)
		}
	})
	return slices.Concat(lines...)
}

// routeFixedStatusLines are fixedStatusLines' lines of one route.
func routeFixedStatusLines(c *pipeline.Compiled, rp *merge.RoutePoints, gateways []string, inScope map[*topology.Rule]bool, scoped bool) []string {
	var out []string
	for _, rule := range rp.Rules {
		if scoped && !inScope[rule.Rule] {
			continue
		}
		seen := map[string]bool{}
		// as each Gateway serving it answers (the controller managing
		// one may answer the rule itself, or refuse its backends)
		for _, gw := range servingGateways(c, rp.Route, gateways) {
			fs, ok := c.Result.FixedStatusOn(rp.Route, rule.Rule, gw)
			if !ok {
				continue
			}
			for _, why := range fs.Reasons {
				l := fmt.Sprintf("note: %s %s/%s rule %s answers %d to every request: %s",
					rp.Route.Kind, rp.Route.Meta.Namespace, rp.Route.Meta.Name, rule.Rule.Section(), fs.Status, why)
				if !seen[l] {
					seen[l] = true
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// servingGateways are the Gateways among those selected (any when the
// list is empty) with a listener serving the route, in parent order;
// Gateways no controller in the input manages are not rendered.
func servingGateways(c *pipeline.Compiled, rt *topology.Route, gateways []string) []*topology.Gateway {
	var out []*topology.Gateway
	for _, p := range rt.Parents {
		for _, l := range p.Listeners {
			gw := l.Gateway
			if len(gateways) > 0 && !slices.Contains(gateways, gw.Namespace+"/"+gw.Name) || slices.Contains(out, gw) {
				continue
			}
			if _, managed := c.Result.Graph.Controller(gw, ""); managed {
				out = append(out, gw)
			}
		}
	}
	return out
}

// noGatewaysNote says why render has nothing to emit when the input holds
// no Gateway: Envoy config is built per Gateway, and objects of
// policy.Standalone kinds (APIs of the WSO2 gateway-controller: RestApi
// and the others) are served without one; each such kind says by what.
// "" when there are Gateways.
func noGatewaysNote(c *pipeline.Compiled) string {
	if len(c.Graph.Gateways) > 0 {
		return ""
	}
	counts := map[string]map[string]int{} // what serves them → kind → objects
	for _, p := range c.Policies.Policies {
		if s, ok := p.Kind.(policy.Standalone); ok {
			if counts[s.ServedBy()] == nil {
				counts[s.ServedBy()] = map[string]int{}
			}
			counts[s.ServedBy()][p.Obj.Kind]++
		}
	}
	note := "gwpol: the input has no Gateway, so there is no Envoy configuration to render (gateways: [])"
	for _, servedBy := range slices.Sorted(maps.Keys(counts)) {
		var kinds []string
		for _, k := range slices.Sorted(maps.Keys(counts[servedBy])) {
			kinds = append(kinds, fmt.Sprintf("%d %s", counts[servedBy][k], k))
		}
		note += "; " + strings.Join(kinds, ", ") + ": " + servedBy
	}
	return note
}

// printDiagnostics writes findings to stderr, one plain line each.
func printDiagnostics(w io.Writer, ds []diag.Diagnostic) {
	for _, d := range diag.Sort(ds) {
		io.WriteString(w, formatDiagLine(d)+"\n")
	}
}

// formatDiagLine is one diagnostic as a plain stderr line.
func formatDiagLine(d diag.Diagnostic) string {
	pos := d.Pos.String()
	if pos == "" {
		pos = d.Object.String()
	}
	return inert.String(pos + ": " + d.Severity.String() + " " + d.Code + ": " + d.Message)
}

// The render stage feeds lint its capability findings (GWP404) for a
// target, and explain the Envoy route names of a rule: rendering every
// Gateway is how both are found.
// lintExtra gathers the findings render makes (GWP404, unsupported
// capabilities of the target) for the lint report.
func lintExtra(c *pipeline.Compiled, target string) ([]diag.Diagnostic, error) {
	// each Gateway's resources are let go as soon as they are built
	out, err := renderPlatformWith(c, target, false, nil, func(*envoy.Gateway) error { return nil })
	if err != nil {
		return nil, err
	}
	return out.Diagnostics, nil
}

// explainRender gives explain what render makes of each rule — the Envoy
// route names, and the routes that answer a fixed status for a reason
// only render knows (a capability the target lacks, a field that cannot
// be rendered) — rendering only the Gateways explain asks about, each
// once, with the target render would use (asked: --target or config,
// else inferred per Gateway); and, for a backend's cluster, the Gateways
// that leave it out for such a reason (every Gateway rendered once, when
// a backend is explained).
func explainRender(c *pipeline.Compiled, asked string) (names func(*topology.Rule, *merge.RulePath, *topology.Listener) []string, answers func(*topology.Rule, *merge.RulePath, *topology.Listener) []explain.Answer, leftOut func(string) []explain.LeftOut) {
	rendered := map[*topology.Gateway]*envoy.Output{}
	outputFor := func(l *topology.Listener) *envoy.Output {
		out, ok := rendered[l.Gateway]
		if !ok {
			out, _ = renderPlatform(c, asked, false, []string{l.Gateway.Namespace + "/" + l.Gateway.Name})
			rendered[l.Gateway] = out
		}
		return out
	}
	names = func(rule *topology.Rule, path *merge.RulePath, l *topology.Listener) []string {
		if out := outputFor(l); out != nil {
			return out.RouteNamesOn(rule, path, l)
		}
		return nil
	}
	answers = func(rule *topology.Rule, path *merge.RulePath, l *topology.Listener) []explain.Answer {
		return fixedAnswers(outputFor(l), rule, path, l)
	}
	var whole *envoy.Output // every Gateway, for a backend's clusters
	tried := false          // rendered once, even when that fails (whole nil): not again per port
	leftOut = func(cluster string) []explain.LeftOut {
		if !tried {
			whole, _ = renderPlatform(c, asked, false, nil)
			tried = true
		}
		if whole == nil {
			return nil
		}
		var out []explain.LeftOut
		for _, g := range whole.Gateways {
			if why, ok := g.ClusterLeftOut(cluster); ok {
				out = append(out, explain.LeftOut{Gateway: g.Namespace + "/" + g.Name, Why: why})
			}
		}
		return out
	}
	return names, answers, leftOut
}

// fixedAnswers are the Envoy routes of a rule on a listener that answer a
// fixed status, as explain reports them. A route replaced for an invalid
// policy is left out: explain says so from the merge result already.
func fixedAnswers(out *envoy.Output, rule *topology.Rule, path *merge.RulePath, l *topology.Listener) []explain.Answer {
	if out == nil {
		return nil
	}
	var fixed []explain.Answer
	for _, a := range out.AnswersOn(rule, path, l) {
		if a.Status != 0 && a.Body != out.InvalidBody(l.Gateway) {
			fixed = append(fixed, explain.Answer{Route: a.Route, Status: a.Status, Body: a.Body})
		}
	}
	return fixed
}
