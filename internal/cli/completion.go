package cli

import (
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/spf13/cobra"
)

// completeFunc is cobra's completion callback for arguments and flags.
type completeFunc = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

// fromInputs completes from the -f inputs already on the command line:
// it compiles them (reading no stdin) and offers the names list finds
// that start with what was typed, but those holding a character inert
// escapes. No inputs, or unreadable ones, give no
// suggestions rather than an error the shell would print.
func (g *globalOptions) fromInputs(list func(*pipeline.Compiled, string) []string) completeFunc {
	return func(cmd *cobra.Command, _ []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
		none := cobra.ShellCompDirectiveNoFileComp
		if len(g.Files) == 0 || slices.Contains(g.Files, "-") || g.init(cmd) != nil {
			return nil, none
		}
		c, err := g.compile()
		if err != nil {
			return nil, none
		}
		var out []cobra.Completion
		for _, s := range list(c, g.Namespace) {
			// A name the shell would print with a control character or a
			// bidi override in it is not offered: it cannot be typed
			// back, and printed raw it would rewrite the terminal.
			if strings.HasPrefix(s, typed) && !slices.Contains(out, s) && inert.String(s) == s {
				out = append(out, s)
			}
		}
		return out, none
	}
}

// withKindWords completes a TARGET's kind first: before the first "/" it
// offers every kind the command takes (the target kinds and every
// registered policy kind, so completion names them all), then the objects
// of the inputs.
func withKindWords(kinds []string, objects completeFunc) completeFunc {
	return func(cmd *cobra.Command, args []string, typed string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if strings.Contains(typed, "/") {
			return objects(cmd, args, typed)
		}
		var out []cobra.Completion
		for _, k := range kinds {
			if strings.HasPrefix(k+"/", strings.ToLower(typed)) {
				out = append(out, k+"/")
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}

// targetKindWords are the kinds explain takes as TARGET, lower case.
func targetKindWords() []string {
	out := []string{"gateway", "listenerset", "httproute", "grpcroute", "tcproute", "tlsroute", "udproute", "service", "backend"}
	for _, k := range families.Registry().Kinds() {
		out = append(out, strings.ToLower(k.GroupKind().Kind))
	}
	return out
}

// policyKindList are the registered policy kinds, lower case.
func policyKindList() []string {
	var out []string
	for _, k := range families.Registry().Kinds() {
		out = append(out, strings.ToLower(k.GroupKind().Kind))
	}
	return out
}

// explainTargets are every TARGET explain accepts in these inputs: Gateways
// and their listeners, routes and their rules, and policies, as
// KIND/NS/NAME[/SECTION] (KIND/NAME[/SECTION] in the -n namespace).
func explainTargets(c *pipeline.Compiled, ns string) []string {
	var out []string
	add := func(kind, objNS, name string, sections ...string) {
		base := strings.ToLower(kind) + "/" + objNS + "/" + name
		if ns != "" {
			if objNS != ns {
				return
			}
			base = strings.ToLower(kind) + "/" + name
		}
		out = append(out, base)
		for _, s := range sections {
			out = append(out, base+"/"+s)
		}
	}
	for _, gw := range c.Graph.Gateways {
		add("gateway", gw.Namespace, gw.Name, explain.ListenerNames(gw)...)
	}
	for _, rt := range c.Graph.Routes {
		var secs []string
		for _, rule := range rt.Rules {
			secs = append(secs, rule.Section())
		}
		add(rt.Kind, rt.Meta.Namespace, rt.Meta.Name, secs...)
	}
	for _, p := range c.Policies.Policies {
		add(p.Kind.GroupKind().Kind, p.Obj.Namespace, p.Obj.Name)
	}
	for _, bp := range c.Result.Backends { // the backends policies configure
		add(bp.Key.Kind, bp.Key.Namespace, bp.Key.Name)
	}
	return out
}

// gatewayRefs are the Gateways as --gateway takes them: NS/NAME.
func gatewayRefs(c *pipeline.Compiled, _ string) []string { return explain.GatewayNames(c.Graph) }

// routeRefs are the routes as --route takes them: KIND/NS/NAME
// (KIND/NAME in the -n namespace).
func routeRefs(c *pipeline.Compiled, ns string) []string {
	var out []string
	for _, rt := range c.Graph.Routes {
		switch {
		case ns == "":
			out = append(out, strings.ToLower(rt.Kind)+"/"+rt.Meta.Namespace+"/"+rt.Meta.Name)
		case rt.Meta.Namespace == ns:
			out = append(out, strings.ToLower(rt.Kind)+"/"+rt.Meta.Name)
		}
	}
	return out
}

// policyRefs are the policies as --policy takes them: POLICYKIND/NS/NAME.
func policyRefs(c *pipeline.Compiled, _ string) []string {
	var out []string
	for _, p := range c.Policies.Policies {
		out = append(out, strings.ToLower(p.Kind.GroupKind().Kind)+"/"+p.Obj.Namespace+"/"+p.Obj.Name)
	}
	return out
}
