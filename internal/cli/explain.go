package cli

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	"github.com/spf13/cobra"
)

type explainOptions struct {
	*globalOptions
	Target     string
	Output     string
	Field      string
	ShowValues bool
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
RULE is the rule's name or #N for the N-th rule (from 0). Kinds are
case-insensitive and accept plurals and short forms (gw, httproutes, hr).`,
		Example: `  gwpol explain httproute/shop/orders -f manifests/
  gwpol explain -n shop httproute/orders/#0 -f manifests/ --field cors --show-values
  gwpol explain gateway/infra/public/https -f manifests/ -o json`,
		Args: exactArgs(1, "one TARGET such as httproute/NS/NAME"),
		RunE: func(_ *cobra.Command, args []string) error {
			o.Target = args[0]
			if err := checkFormat(o.Output, "text", "json"); err != nil {
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
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("text", "json"))
	return cmd
}

var kindAliases = map[string]string{
	"gateway": "Gateway", "gateways": "Gateway", "gw": "Gateway", "gtw": "Gateway",
	"httproute": "HTTPRoute", "httproutes": "HTTPRoute", "hr": "HTTPRoute", "route": "HTTPRoute",
	"grpcroute": "GRPCRoute", "grpcroutes": "GRPCRoute", "gr": "GRPCRoute",
	"listenerset": "ListenerSet", "listenersets": "ListenerSet", "ls": "ListenerSet",
}

type targetSpec struct {
	Kind, Namespace, Name, Section string
}

func parseTarget(s, defaultNS string) (targetSpec, error) {
	parts := strings.Split(s, "/")
	kind, ok := kindAliases[strings.ToLower(parts[0])]
	if !ok {
		return targetSpec{}, usageError("unknown target kind %q; use gateway, httproute, grpcroute or listenerset", parts[0])
	}
	t := targetSpec{Kind: kind}
	switch {
	case len(parts) == 2:
		t.Namespace, t.Name = defaultNS, parts[1]
	case len(parts) == 3 && defaultNS != "":
		// With -n the target is KIND/NAME/SECTION, as kubectl users type it.
		t.Namespace, t.Name, t.Section = defaultNS, parts[1], parts[2]
	case len(parts) == 3:
		t.Namespace, t.Name = parts[1], parts[2]
	case len(parts) == 4:
		t.Namespace, t.Name, t.Section = parts[1], parts[2], parts[3]
	default:
		return targetSpec{}, usageError("target %q: want KIND/NAMESPACE/NAME[/SECTION]", s)
	}
	if t.Name == "" || t.Namespace == "" {
		return targetSpec{}, usageError("target %q: want KIND/NAMESPACE/NAME[/SECTION]", s)
	}
	return t, nil
}

func runExplain(o *explainOptions) error {
	c, err := o.compile()
	if err != nil {
		return err
	}
	if strings.HasPrefix(strings.ToLower(o.Target), "restapi/") || strings.HasPrefix(strings.ToLower(o.Target), "restapis/") {
		if explainRestAPIHook != nil {
			return explainRestAPIHook(o, c)
		}
		return usageError("restapi targets need the WSO2 policy kind")
	}
	ns := ""
	if o.Namespace != "" {
		ns = o.Namespace
	}
	t, err := parseTarget(o.Target, ns)
	if err != nil {
		return err
	}
	opt := explain.Options{Field: o.Field, ShowValues: o.ShowValues, RouteNames: explainRouteNames(c), Notes: explainNotes(c)}
	rep, err := explainTarget(c, t, opt)
	if err != nil {
		return err
	}
	if o.Output == "json" {
		return writeData(o.globalOptions, "", "json", rep)
	}
	var b bytes.Buffer
	writeExplainText(&b, rep, o.IO.Color())
	_, err = o.IO.Out.Write(b.Bytes())
	return err
}

var explainRestAPIHook = runExplainRestAPI

// explainNotes gathers kind-specific notes for a rule: runtime identities
// of one-policy-per-rule kinds (and the budget two rules share through one
// policy) and versioned-policy chains.
func explainNotes(c *Compiled) func(*topology.Route, *topology.Rule) []string {
	wso2Notes := explainWSO2Notes(c)
	users := map[*policy.Policy][]string{}
	for _, rp := range c.Result.Routes {
		for _, rule := range rp.Rules {
			for _, a := range c.Result.Attach.Rule[rule.Rule] {
				users[a.Policy] = append(users[a.Policy], rp.Route.Kind+" "+rp.Route.Meta.Namespace+"/"+rp.Route.Meta.Name+" rule "+rule.Rule.Section())
			}
		}
	}
	return func(rt *topology.Route, rule *topology.Rule) []string {
		var notes []string
		for _, a := range c.Result.Attach.Rule[rule] {
			id, ok := a.Policy.Kind.(policy.Identifier)
			if !ok {
				continue
			}
			notes = append(notes, fmt.Sprintf("runtime identity of this rule: %s; policy %s has identity %s",
				id.RuleIdentity(rt.Kind, rt.Meta.Namespace, rt.Meta.Name, rule.Index), a.Policy.ID(), id.PolicyIdentity(a.Policy)))
			if others := users[a.Policy]; len(others) > 1 {
				notes = append(notes, fmt.Sprintf("%s is shared by %d rules (%s); they share one rate-limit budget", a.Policy.ID(), len(others), strings.Join(others, ", ")))
			}
		}
		return append(notes, wso2Notes(rt, rule)...)
	}
}

func explainTarget(c *Compiled, t targetSpec, opt explain.Options) (*explain.Report, error) {
	g := c.Graph
	rep := &explain.Report{Targets: []explain.Target{}}
	switch t.Kind {
	case "Gateway":
		gw := g.Gateway(t.Namespace, t.Name)
		if gw == nil {
			return nil, notFound(t, gatewayNames(g))
		}
		for _, l := range gw.Listeners {
			if t.Section == "" || string(l.Name) == t.Section {
				rep.Targets = append(rep.Targets, explain.Listener(c.Result, l, opt))
			}
		}
		if len(rep.Targets) == 0 {
			return nil, notFound(t, listenerNames(gw))
		}
	case "ListenerSet":
		s := g.ListenerSet(t.Namespace, t.Name)
		if s == nil || s.Parent == nil {
			return nil, notFound(t, nil)
		}
		for _, l := range s.Parent.Listeners {
			if l.Set == s && (t.Section == "" || string(l.Name) == t.Section) {
				rep.Targets = append(rep.Targets, explain.Listener(c.Result, l, opt))
			}
		}
	default:
		rt := g.Route(t.Kind, t.Namespace, t.Name)
		if rt == nil {
			return nil, notFound(t, routeNames(g, t.Kind))
		}
		var listeners []*topology.Listener
		for _, p := range rt.Parents {
			listeners = append(listeners, p.Listeners...)
		}
		if len(listeners) == 0 {
			listeners = []*topology.Listener{nil}
		}
		found := false
		for _, rule := range rt.Rules {
			// #N names the N-th rule whether or not it has a name, as the
			// help says.
			if t.Section != "" && rule.Name != t.Section && "#"+strconv.Itoa(rule.Index) != t.Section {
				continue
			}
			found = true
			for _, l := range listeners {
				rep.Targets = append(rep.Targets, explain.Rule(c.Result, rt, rule, l, opt))
			}
		}
		if !found {
			var secs []string
			for _, rule := range rt.Rules {
				secs = append(secs, rule.Section())
			}
			return nil, notFound(t, secs)
		}
	}
	return rep, nil
}

func notFound(t targetSpec, candidates []string) error {
	what := t.Kind + " " + t.Namespace + "/" + t.Name
	key := t.Namespace + "/" + t.Name
	if t.Section != "" {
		what += " section " + t.Section
		key = t.Section
	}
	msg := what + " not found"
	if best := closest(key, candidates); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return diag.Errorf(diag.NotFound, "%s", msg)
}

func gatewayNames(g *topology.Graph) []string {
	var out []string
	for _, gw := range g.Gateways {
		out = append(out, gw.Namespace+"/"+gw.Name)
	}
	return out
}

func listenerNames(gw *topology.Gateway) []string {
	var out []string
	for _, l := range gw.Listeners {
		out = append(out, string(l.Name))
	}
	return out
}

func routeNames(g *topology.Graph, kind string) []string {
	var out []string
	for _, r := range g.Routes {
		if r.Kind == kind {
			out = append(out, r.Meta.Namespace+"/"+r.Meta.Name)
		}
	}
	return out
}

// closest returns the candidate nearest to s by edit distance, when near
// enough to be a plausible typo.
func closest(s string, candidates []string) string {
	best, bestD := "", len(s)/2+2
	for _, c := range candidates {
		if d := levenshtein(s, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

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

func writeExplainText(w io.Writer, rep *explain.Report, color bool) {
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
		if t.Listener != "" {
			title += " (on listener " + t.Listener + ")"
		}
		fmt.Fprintln(w, head.Render(title))
		for _, r := range t.EnvoyRoutes {
			fmt.Fprintln(w, "  envoy route: "+r)
		}
		for _, n := range t.Notes {
			fmt.Fprintln(w, "  note: "+n)
		}
		if len(t.Fields) == 0 {
			fmt.Fprintln(w, "  no policy fields in effect")
			continue
		}
		// Two columns, details stacked, so a rule reads well at 80 columns.
		tb := table.New().Border(lipgloss.NormalBorder()).Headers("FIELD", "OWNER AND HOW IT WON")
		if !color {
			tb = tb.BorderStyle(lipgloss.NewStyle())
		}
		for _, f := range t.Fields {
			level := f.Level
			if f.Inherited {
				level += ", inherited"
			}
			lines := []string{fmt.Sprintf("%s (%s)", shortID(f.Owner), level), "strategy: " + f.Strategy}
			if len(f.Contributors) > 1 {
				lines = append(lines, "contributors: "+strings.ReplaceAll(shortIDs(f.Contributors), "\n", ", "))
			}
			if len(f.Overridden) > 0 {
				lines = append(lines, "lost: "+strings.ReplaceAll(shortIDs(f.Overridden), "\n", ", "))
			}
			if len(f.Shadowed) > 0 {
				lines = append(lines, "shadows: "+strings.ReplaceAll(shortIDs(f.Shadowed), "\n", ", "))
			}
			if len(f.Value) > 0 {
				lines = append(lines, "value: "+truncate(string(f.Value), 56))
			}
			tb = tb.Row(f.Field, strings.Join(lines, "\n"))
		}
		fmt.Fprintln(w, tb.Render())
	}
}

func sectionWord(kind string) string {
	if kind == "Gateway" || kind == "ListenerSet" {
		return "listener"
	}
	return "rule"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
