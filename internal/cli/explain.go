package cli

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/spf13/cobra"
)

type explainOptions struct {
	*globalOptions
	Target string
	// RenderTarget is --target: the render target whose Envoy routes
	// explain names and whose fixed answers it reports.
	RenderTarget string
	Output       string
	Field        string
	ShowValues   bool
}

func newExplainCmd(g *globalOptions, run func(*explainOptions) error) *cobra.Command {
	o := &explainOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "explain TARGET",
		Short: "Show which policy owns each field on a gateway, listener, route or rule, and why",
		Long: `explain shows, for one target, every policy field in effect: the policy
that owns it, the level it came from (rule, route, listener, gateway), the
merge strategy that decided it, every contributor (deep merge), the policies
whose value lost, and gateway-level values a route policy shadows.

TARGET is KIND/NAMESPACE/NAME[/SECTION] or, with -n, KIND/NAME[/SECTION]:
  gateway/NS/NAME[/LISTENER]     httproute/NS/NAME[/RULE]     grpcroute/NS/NAME[/RULE]
  tcproute/NS/NAME[/RULE]        tlsroute/NS/NAME[/RULE]      udproute/NS/NAME[/RULE]
  listenerset/NS/NAME[/LISTENER] service/NS/NAME[:PORT]       backend/NS/NAME
  xlistenerset/NS/NAME[/LISTENER] (the experimental channel's, where the controller reads it)
RULE is the rule's name or #N for the N-th rule (from 0). Kinds are
case-insensitive and accept plurals and short forms (gw, httproutes, hr, svc).

For a Service (each port, or the one PORT names by number or name) or a
Backend, explain shows the Envoy cluster built for it and every cluster
setting a backend policy can configure: the policy that owns it (a port's
own policies, by sectionName, before the whole Service's), which policies
lost and why, where a later kind's setting replaces another's (a
BackendTLSPolicy's TLS replaces a BackendConfigPolicy's), and what no
policy sets — the Backend's own spec, or the cluster's default.

TARGET may also be a policy, POLICYKIND/NAMESPACE/NAME (` + policyKindWords() + `):
explain then lists every target the policy reached and how (targetRef,
sectionName, ExtensionRef, inherited from a delegating parent route), each
of its fields there (won, merged, lost to whom and why, or not in effect
and why; the rules and listeners where a more specific level shadows it),
and the problems that kept it from a target.

Each loser is named with the rule that decided against it: level (a more
specific level wins), attachment (ExtensionRef beats sectionName beats a
whole-target targetRef), weight (the policy's own), age (older wins), name
(only the names decided: GWP303) or order (kinds without precedence keep
attachment order). When the values call several extensions (kgateway's
extAuth, extProc, oauth2), "filters run" (JSON filterOrder) gives the order
of their Envoy filters and the extension's weight that decided it; that
weight never decides a merge.
--field selects a field and everything under it (rateLimit covers
rateLimit.local); an unknown field is a usage error.

Merge strategies (text output names one only when it is not the field's
default; JSON always does):
` + strategyHelp,
		Example: `  gwpol explain httproute/shop/orders -f manifests/
  gwpol explain trafficpolicy/infra/edge-defaults -f manifests/
  gwpol explain -n shop httproute/orders/#0 -f manifests/ --field cors --show-values
  gwpol explain gateway/infra/public/https -f manifests/ -o json
  gwpol explain service/shop/orders:8080 -f manifests/`,
		Args:              exactArgs(1, "one TARGET such as httproute/NS/NAME"),
		ValidArgsFunction: withKindWords(targetKindWords(), g.fromInputs(explainTargets)),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Target = args[0]
			if err := checkFormat(o.Output, "text", "json"); err != nil {
				return err
			}
			o.RenderTarget = askedTarget(o.RenderTarget, cmd.Flags().Changed("target"), o.config)
			if err := checkChoice("--target", o.RenderTarget, targetChoices()...); err != nil {
				return err
			}
			if run != nil {
				return run(o)
			}
			return runExplain(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "text", "output format: text or json")
	f.StringVar(&o.Field, "field", "", "show only this field (e.g. cors, rateLimit.local)")
	f.BoolVar(&o.ShowValues, "show-values", false, "add the winning value of each field (Secret data is never read)")
	f.StringVar(&o.RenderTarget, "target", inferredTarget, "the Envoy routes and fixed answers shown are those of this "+targetFlagHelp)
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("text", "json"))
	_ = cmd.RegisterFlagCompletionFunc("target", fixedCompletions(targetChoices()...))
	return cmd
}

// strategyHelp defines each merge strategy in one sentence; docs/explain.md's
// "Merge strategies" section says the same.
const strategyHelp = `  AugmentedShallow    the first policy in precedence order that sets the field owns it whole (the usual default)
  OverridableShallow  the last policy in precedence order that sets the field owns it whole
  AugmentedDeep       every setter's value merges, lists concatenated in precedence order
  OverridableDeep     every setter's value merges, the last in precedence order first
  Additive            every setter contributes, less specific levels first; nothing is overridden
  Exclusive           at most one policy may attach, so nothing merges`

func runExplain(o *explainOptions) error {
	c, err := o.compile()
	if err != nil {
		return err
	}
	return o.explain(c)
}

// explain writes the view of o.Target on compiled inputs (every view of
// explain; the fuzz targets call it so, on one compile).
func (o *explainOptions) explain(c *pipeline.Compiled) error {
	reg := c.Result.Registry
	if err := explain.CheckField(o.Field, reg); err != nil {
		return err
	}
	printDiagnostics(o.IO.ErrOut, c.Errors())
	if k, ok := explain.PolicyKindOf(o.Target, reg); ok {
		if ox, ok := k.(policy.ObjectExplainer); ok {
			return firstErr(lookupResult(c, explainObject(o, c, ox)), inputResult(c))
		}
		return firstErr(lookupResult(c, explainPolicy(o, c)), inputResult(c))
	}
	t, err := explain.ParseTarget(o.Target, o.Namespace)
	if err != nil {
		return err
	}
	names, answers, leftOut := explainRender(c, o.RenderTarget)
	opt := explain.Options{Field: o.Field, ShowValues: o.ShowValues, RouteNames: names, Answers: answers, ClusterLeftOut: leftOut, Guardrails: c.Config.Guardrails}
	rep, err := explain.Explain(c.Result, t, opt)
	if err != nil {
		return lookupResult(c, err)
	}
	if o.Output == "json" {
		return firstErr(writeData(o.globalOptions, "", "json", rep), inputResult(c))
	}
	var b bytes.Buffer
	writeExplainText(&b, rep, o.IO.Color(), o.IO.Width)
	_, err = o.IO.Out.Write(b.Bytes())
	return firstErr(err, inputResult(c))
}

// closest returns the candidate nearest to s by edit distance, when near
// enough to be a plausible typo.
func closest(s string, candidates []string) string { return diag.Nearest(s, candidates) }

// shortID drops the policy group for table cells: TrafficPolicy/ns/name.
func shortID(id string) string {
	if i := strings.Index(id, "/"); i >= 0 && strings.Contains(id[:i], ".") {
		return id[i+1:]
	}
	return id
}

func shortIDs(ids []string) string {
	var out []string
	for _, id := range ids {
		out = append(out, shortID(id))
	}
	if len(out) == 0 {
		return "-"
	}
	return strings.Join(out, "\n")
}

func writeExplainText(w io.Writer, rep *explain.Report, color bool, width int) {
	head := lipgloss.NewStyle()
	if color {
		head = head.Bold(true).Foreground(lipgloss.Color("12"))
	}
	for i, t := range rep.Targets {
		if i > 0 {
			fmt.Fprintln(w)
		}
		title := fmt.Sprintf("%s %s/%s", t.Target.Kind, t.Target.Namespace, t.Target.Name)
		if t.Target.Section != "" {
			title += " " + sectionWord(t.Target.Kind) + " " + t.Target.Section
		}
		switch {
		case t.Listener != "" && len(t.DelegatedBy) > 0:
			title += " (on listener " + t.Listener + ", delegated by " + strings.Join(t.DelegatedBy, " via ") + ")"
		case t.Listener != "":
			title += " (on listener " + t.Listener + ")"
		case len(t.DelegatedBy) > 0:
			title += " (delegated by " + strings.Join(t.DelegatedBy, " via ") + ")"
		}
		// Styled line by line: lipgloss pads a multi-line block to one width.
		for _, l := range strings.Split(fitLine(inert.String(title), width, "  "), "\n") {
			fmt.Fprintln(w, head.Render(l))
		}
		for _, r := range t.EnvoyRoutes {
			fmt.Fprintln(w, fitLine("  envoy route: "+inert.String(r), width, "    "))
		}
		if t.Cluster != "" {
			fmt.Fprintln(w, fitLine("  envoy cluster: "+inert.String(t.Cluster), width, "    "))
		}
		for _, n := range t.Notes {
			fmt.Fprintln(w, fitLine("  note: "+inert.String(n), width, "    "))
		}
		for _, g := range t.Guardrails {
			fmt.Fprintln(w, fitLine("  "+inert.String(guardLine(g)), width, "    "))
		}
		if len(t.Fields) == 0 {
			fmt.Fprintln(w, "  no policy fields in effect")
		} else {
			writeFieldRows(w, t.Fields, color, width)
		}
		for _, b := range t.BackendRefs {
			fmt.Fprintln(w, fitLine(fmt.Sprintf("  backendRefs[%d] (%s), by its filters:", b.Index, inert.String(b.Backend)), width, "    "))
			writeFieldRows(w, b.Fields, color, width)
		}
	}
}

// clusterFromLine says whose settings of a field are on the cluster a
// route sends to, when the rule's route on another listener shaped it.
func clusterFromLine(c *explain.ClusterFrom) string {
	one := "the rule's one cluster is its route's on listener " + c.Listener
	switch {
	case c.Only:
		return "on the cluster only: " + one
	case c.Owner == "":
		return "not on the cluster: " + one + " (without this field)"
	}
	return "not on the cluster: " + one + " (this field of " + shortID(c.Owner) + ")"
}

// writeFieldRows writes fields in two columns, details stacked, so a rule
// reads well at 80 columns.
func writeFieldRows(w io.Writer, fields []explain.Field, color bool, width int) {
	{
		var rows []fieldRow
		for _, f := range fields {
			level := f.Level
			if f.Inherited {
				level += ", inherited"
			}
			lines := []string{fmt.Sprintf("%s (%s)", shortID(f.Owner), level)}
			if o := f.OverriddenBy; o != nil {
				lines = append(lines, fmt.Sprintf("not in effect: overridden on %s by %s field %s of %s (%s: %s)",
					o.Path, o.PolicyKind[strings.LastIndex(o.PolicyKind, "/")+1:], o.Field, shortID(o.Owner), o.Rule, o.Reason))
			}
			if c := f.ClusterFrom; c != nil {
				lines = append(lines, clusterFromLine(c))
			}
			for _, c := range f.OnClusters {
				lines = append(lines, fmt.Sprintf("not on the cluster of %s: overridden on %s by %s field %s of %s (%s: %s)",
					c.Backend, c.Path, c.PolicyKind[strings.LastIndex(c.PolicyKind, "/")+1:], c.Field, shortID(c.Owner), c.Rule, c.Reason))
			}
			if !f.DefaultStrategy {
				lines = append(lines, "strategy: "+f.Strategy)
			}
			if len(f.Contributors) > 1 {
				lines = append(lines, "contributors: "+strings.ReplaceAll(shortIDs(f.Contributors), "\n", ", "))
			}
			lines = append(lines, decisionLines(f)...)
			for _, id := range f.ReplacedBy {
				lines = append(lines, "replaced on the cluster by "+shortID(id))
			}
			lines = append(lines, f.Notes...)
			if len(f.AlsoInEffect) > 0 {
				lines = append(lines, "also in effect: "+strings.ReplaceAll(shortIDs(f.AlsoInEffect), "\n", ", "))
			}
			if len(f.FilterOrder) > 0 {
				lines = append(lines, filterOrderLine(f.FilterOrder))
			}
			for _, g := range f.Guardrails {
				lines = append(lines, guardLine(g))
			}
			switch {
			case len(f.Value) > 0 && f.CRDDefault:
				lines = append(lines, "value: "+string(f.Value)+" (CRD default)")
			case len(f.Value) > 0:
				lines = append(lines, "value: "+string(f.Value))
			case f.CRDDefault:
				lines = append(lines, "value: the CRD default (its object does not write the field)")
			}
			if !f.CRDDefault {
				for _, d := range f.Defaults {
					lines = append(lines, d.Path+": "+string(d.Value)+" (CRD default)")
				}
			}
			rows = append(rows, fieldRow{Key: f.Field, Lines: lines})
		}
		writeRows(w, [2]string{"FIELD", "OWNER AND HOW IT WON"}, rows, color, width)
	}
}

// guardLine says whether a guardrail holds, naming it and its code.
func guardLine(g explain.Guard) string {
	if g.Holds {
		return fmt.Sprintf("guardrail %q holds: %s", g.Name, g.Detail)
	}
	return fmt.Sprintf("guardrail %q VIOLATED (%s): %s", g.Name, g.Code, g.Detail)
}

// decisionLines say, per loser, what beat it: "beats X: weight 5 …" for
// a policy overridden at the same level, "shadows X: …" for a less
// specific level.
func decisionLines(f explain.Field) []string {
	var out []string
	for _, d := range f.Decisions {
		verb := "beats"
		if slices.Contains(f.Shadowed, d.Loser) {
			verb = "shadows"
		}
		out = append(out, fmt.Sprintf("%s %s: %s", verb, shortID(d.Loser), d.Reason))
	}
	return out
}

// filterOrderLine says in which order the extensions' filters run and
// which weight decided each step: the extension's, never the policy's.
func filterOrderLine(steps []explain.FilterStep) string {
	var parts []string
	for _, st := range steps {
		part := fmt.Sprintf("%s (weight %d, %s)", st.Object, st.Weight, st.Source)
		if st.Rule == "name" {
			part = fmt.Sprintf("%s (same weight %d; by name)", st.Object, st.Weight)
		}
		parts = append(parts, part)
	}
	return "filters run: " + strings.Join(parts, ", then ")
}

func sectionWord(kind string) string {
	switch kind {
	case "Gateway", "ListenerSet", "XListenerSet":
		return "listener"
	case "Service":
		return "port"
	}
	return "rule"
}
