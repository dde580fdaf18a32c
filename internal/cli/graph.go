package cli

import (
	"strings"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/graph"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/spf13/cobra"
)

type graphOptions struct {
	*globalOptions
	Output   string
	Out      string
	Gateways []string
	Routes   []string
	Policies []string
}

func newGraphCmd(g *globalOptions, run func(*graphOptions) error) *cobra.Command {
	o := &graphOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Draw gateways, listeners, routes, rules and their policies (DOT or Mermaid)",
		Long: `graph draws the topology — Gateways, listeners, routes and rules — with
the policies attached at each level (dashed edges labelled ref, section,
filter or inherited) and red edges, labelled with the field, from each
field's owner to the policies that lost it. Each namespace is a cluster,
each Gateway a cluster inside it. Policies that do not take effect (invalid,
attached nowhere, overridden on every field) and rules that answer a fixed
status are drawn red and dashed with the reason.

--gateway, --route and --policy (each repeatable) scope the picture to
those objects, the topology leading to them and the policies attached there.`,
		Example: `  gwpol graph -f manifests/ | dot -Tsvg > policies.svg
  gwpol graph -f manifests/ --gateway infra/public -o mermaid
  gwpol graph -f manifests/ --route httproute/shop/orders --policy trafficpolicy/shop/orders-cors`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			if err := checkFormat(o.Output, "dot", "mermaid"); err != nil {
				return err
			}
			if run != nil {
				return run(o)
			}
			return runGraph(o)
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "dot", "output format: dot or mermaid")
	cmd.Flags().StringVar(&o.Out, "out", "", "write to this file (atomically) instead of stdout")
	cmd.Flags().BoolVar(&g.OutFollowSymlinks, "out-follow-symlinks", false, outFollowHelp)
	cmd.Flags().StringArrayVar(&o.Gateways, "gateway", nil, "draw only this Gateway (NAMESPACE/NAME, or NAME with -n) and what it serves; repeatable")
	cmd.Flags().StringArrayVar(&o.Routes, "route", nil, "draw only this route (KIND/NAMESPACE/NAME, or KIND/NAME with -n) and its Gateways; repeatable")
	cmd.Flags().StringArrayVar(&o.Policies, "policy", nil, "draw only this policy (POLICYKIND/NAMESPACE/NAME) and the targets it reaches; repeatable")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("dot", "mermaid"))
	_ = cmd.RegisterFlagCompletionFunc("gateway", g.fromInputs(gatewayRefs))
	_ = cmd.RegisterFlagCompletionFunc("route", g.fromInputs(routeRefs))
	_ = cmd.RegisterFlagCompletionFunc("policy", withKindWords(policyKindList(), g.fromInputs(policyRefs)))
	return cmd
}

func runGraph(o *graphOptions) error {
	c, err := o.compile()
	if err != nil {
		return err
	}
	return o.draw(c)
}

// draw writes the picture of compiled inputs (every view of graph; the
// fuzz targets call it so, on one compile).
func (o *graphOptions) draw(c *pipeline.Compiled) error {
	scope, err := o.scope(c)
	if err != nil {
		return err
	}
	printDiagnostics(o.IO.ErrOut, c.Errors())
	text := graph.DOT(c.Result, scope)
	if o.Output == "mermaid" {
		text = graph.Mermaid(c.Result, scope)
	}
	return firstErr(writeOut(o.globalOptions, o.Out, []byte(text)), inputResult(c))
}

// scope resolves the scoping flags against the inputs; a name that is not
// there is an error with the nearest one, never an empty picture.
func (o *graphOptions) scope(c *pipeline.Compiled) (graph.Options, error) {
	var opt graph.Options
	for _, g := range o.Gateways {
		ns, name, qualified := strings.Cut(g, "/")
		if !qualified {
			ns, name = c.Config.Namespace, g
		}
		if c.Graph.Gateway(ns, name) == nil {
			return opt, explain.Absent(c.Model, explain.TargetSpec{Kind: "Gateway", Namespace: ns, Name: name}, explain.GatewayNames(c.Graph))
		}
		opt.Gateways = append(opt.Gateways, ns+"/"+name)
	}
	for _, ref := range o.Routes {
		t, err := explain.ParseTarget(ref, o.Namespace)
		if err != nil {
			return opt, err
		}
		if c.Graph.Route(t.Kind, t.Namespace, t.Name) == nil {
			return opt, explain.Absent(c.Model, t, explain.RouteNames(c.Graph, t.Kind))
		}
		opt.Routes = append(opt.Routes, t.Kind+"/"+t.Namespace+"/"+t.Name)
	}
	for _, ref := range o.Policies {
		p, err := explain.LookupPolicy(c.Model, c.Result.Registry, c.Policies, ref, o.Namespace)
		if err != nil {
			return opt, err
		}
		opt.Policies = append(opt.Policies, p.ID())
	}
	return opt, nil
}
