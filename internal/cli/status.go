package cli

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/status"
	"github.com/gwpol/gwpol/internal/topology"
	"github.com/spf13/cobra"
)

type statusOptions struct {
	*globalOptions
	Output   string
	Out      string
	Gateways []string
	Routes   []string
}

func newStatusCmd(g *globalOptions, run func(*statusOptions) error) *cobra.Command {
	o := &statusOptions{globalOptions: g}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Print the status a controller would write for gateways, routes and policies",
		Long: `status computes, without a cluster, the conditions a controller would write:
Gateway and listener conditions (with attached route counts), every route
parentRef's Accepted/ResolvedRefs with the Gateway API reason, and for every
policy, per ancestor, Accepted (Valid, PartiallyValid, Invalid,
TargetNotFound) and Attached (Attached, Merged, Overridden, Pending).

-o summary prints one line per Gateway, listener, route and policy with its
key conditions (a condition that holds by its type's name; one that does
not as Type=False(Reason)). --gateway and --route (repeatable) scope the
output to those objects, the routes and policies that reach them.`,
		Example: `  gwpol status -f testdata/examples -o summary
  gwpol status -f testdata/examples --gateway infra/public
  gwpol status -f testdata/examples --route httproute/shop/orders -o summary
  gwpol status -f manifests/ -o json | jq '.routes[] | select(.parents[].conditions[].status=="False")'`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			if err := checkFormat(o.Output, "yaml", "json", "summary"); err != nil {
				return err
			}
			if run != nil {
				return run(o)
			}
			return runStatus(o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.Output, "output", "o", "yaml", "output format: yaml, json or summary (one line per object)")
	f.StringVar(&o.Out, "out", "", "write to this file (atomically) instead of stdout")
	f.BoolVar(&g.OutFollowSymlinks, "out-follow-symlinks", false, outFollowHelp)
	f.StringArrayVar(&o.Gateways, "gateway", nil, "only this Gateway (NAMESPACE/NAME, or NAME with -n), its routes and the policies that reach them; repeatable")
	f.StringArrayVar(&o.Routes, "route", nil, "only this route (KIND/NAMESPACE/NAME, or KIND/NAME with -n), its Gateways and the policies that reach it; repeatable")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletions("yaml", "json", "summary"))
	_ = cmd.RegisterFlagCompletionFunc("gateway", g.fromInputs(gatewayRefs))
	_ = cmd.RegisterFlagCompletionFunc("route", g.fromInputs(routeRefs))
	return cmd
}

func runStatus(o *statusOptions) error {
	c, err := o.compile()
	if err != nil {
		return err
	}
	return o.report(c)
}

// report writes the status of compiled inputs (every view of status; the
// fuzz targets call it so, on one compile).
func (o *statusOptions) report(c *pipeline.Compiled) error {
	sc, err := o.scope(c)
	if err != nil {
		return lookupResult(c, err)
	}
	printDiagnostics(o.IO.ErrOut, c.Errors())
	rep := status.Compute(c.Result, status.Options{ControllerName: c.Config.ControllerName})
	rep = sc.apply(rep)
	if o.Output == "summary" {
		var b strings.Builder
		writeStatusSummary(&b, rep, o.IO.Width)
		return firstErr(writeOut(o.globalOptions, o.Out, []byte(b.String())), inputResult(c))
	}
	return firstErr(writeData(o.globalOptions, o.Out, o.Output, rep), inputResult(c))
}

// statusScope is what --gateway and --route keep: Gateways and routes by
// "NS/NAME" and "Kind/NS/NAME", and the policies (by ID) that take part in
// a merge on them.
type statusScope struct {
	scoped   bool
	gateways map[string]bool
	// asked are the --gateway ones: every policy with an ancestor there
	// is kept (a route's parents add to gateways, not to asked).
	asked    map[string]bool
	routes   map[string]bool
	policies map[string]bool
	// graph finds a ListenerSet's Gateway, for a route's parents.
	graph *topology.Graph
}

// scope resolves the scoping flags; a name not in the input is an error
// naming the nearest one.
func (o *statusOptions) scope(c *pipeline.Compiled) (statusScope, error) {
	sc := statusScope{scoped: len(o.Gateways)+len(o.Routes) > 0, graph: c.Graph, gateways: map[string]bool{}, asked: map[string]bool{}, routes: map[string]bool{}, policies: map[string]bool{}}
	if !sc.scoped {
		return sc, nil
	}
	addPoints := func(pts merge.Points) {
		for _, pt := range pts {
			for _, cand := range slices.Concat(pt.Candidates, pt.Invalid) {
				sc.policies[cand.Policy.ID()] = true
			}
		}
	}
	// addRoute adds a route and the policies of its merge, as served on
	// gw (nil: on every Gateway): a route served by Gateways of several
	// controllers takes each family's policies on its own controller's
	// Gateways only (merge.Result.OnGateway), so --gateway keeps those
	// its Gateway takes.
	addRoute := func(rp *merge.RoutePoints, gw *topology.Gateway) {
		rt := rp.Route
		sc.routes[rt.Kind+"/"+rt.Meta.Namespace+"/"+rt.Meta.Name] = true
		for _, rule := range rp.Rules {
			addPoints(c.Result.OnGateway(rule.Own, gw))
		}
	}
	for _, ref := range o.Gateways {
		ns, name, qualified := strings.Cut(ref, "/")
		if !qualified {
			ns, name = c.Config.Namespace, ref
		}
		if c.Graph.Gateway(ns, name) == nil {
			return sc, explain.Absent(c.Model, explain.TargetSpec{Kind: "Gateway", Namespace: ns, Name: name}, explain.GatewayNames(c.Graph))
		}
		sc.gateways[ns+"/"+name], sc.asked[ns+"/"+name] = true, true
		for _, gp := range c.Result.Gateways {
			if gp.Gateway.Namespace == ns && gp.Gateway.Name == name {
				addPoints(gp.Whole)
				for _, lp := range gp.Listeners {
					addPoints(lp.Own)
				}
			}
		}
		for _, rp := range c.Result.Routes {
			for _, p := range rp.Route.Parents {
				if p.Gateway != nil && p.Gateway.Namespace == ns && p.Gateway.Name == name {
					addRoute(rp, p.Gateway)
					break
				}
			}
		}
	}
	for _, ref := range o.Routes {
		t, err := explain.ParseTarget(ref, o.Namespace)
		if err != nil {
			return sc, err
		}
		rt := c.Graph.Route(t.Kind, t.Namespace, t.Name)
		if rt == nil {
			return sc, explain.Absent(c.Model, t, explain.RouteNames(c.Graph, t.Kind))
		}
		for _, rp := range c.Result.Routes {
			if rp.Route == rt {
				addRoute(rp, nil)
			}
		}
		sc.routes[rt.Kind+"/"+rt.Meta.Namespace+"/"+rt.Meta.Name] = true
		// The Gateway and listener policies of the listeners serving it
		// reach it too.
		for _, p := range rt.Parents {
			if p.Gateway == nil {
				continue
			}
			sc.gateways[p.Gateway.Namespace+"/"+p.Gateway.Name] = true
			for _, gp := range c.Result.Gateways {
				if gp.Gateway != p.Gateway || len(p.Listeners) == 0 {
					continue
				}
				addPoints(gp.Whole)
				for _, lp := range gp.Listeners {
					if slices.Contains(p.Listeners, lp.Listener) {
						addPoints(lp.Own)
					}
				}
			}
		}
	}
	return sc, nil
}

// apply keeps the report's entries in scope. A kept route shows only its
// parents on scoped Gateways when --gateway scoped it; a kept policy only
// its ancestors among the scoped Gateways when it has any there.
func (sc statusScope) apply(rep *status.Report) *status.Report {
	if !sc.scoped {
		return rep
	}
	out := &status.Report{Gateways: []status.Gateway{}, Routes: []status.Route{}, Policies: []status.Policy{}}
	for _, g := range rep.Gateways {
		if sc.gateways[g.Namespace+"/"+g.Name] {
			out.Gateways = append(out.Gateways, g)
		}
	}
	onScopedGateway := func(kind, group, ns, name string) bool {
		return kind == "Gateway" && (group == "" || group == "gateway.networking.k8s.io") && sc.asked[ns+"/"+name]
	}
	// an ancestor written without a namespace is selected by the one it
	// resolves to
	ancestorOnScoped := func(a status.Ancestor) bool {
		ref := a.AncestorRef
		if ref.Namespace == "" {
			ref.Namespace = a.ResolvedNamespace
		}
		return onScopedGateway(ref.Kind, ref.Group, ref.Namespace, ref.Name)
	}
	for _, r := range rep.Routes {
		if !sc.routes[r.Kind+"/"+r.Namespace+"/"+r.Name] {
			continue
		}
		if len(sc.asked) > 0 {
			// its parents on other Gateways are not the asked ones' (a
			// route served by Gateways of several controllers is each
			// one's on its own terms); parents of other kinds stay
			r.Parents = slices.DeleteFunc(slices.Clone(r.Parents), func(p status.RouteParent) bool {
				ref := p.ParentRef
				ref.Namespace = cmp.Or(ref.Namespace, p.ResolvedNamespace) // one written without resolves to the route's
				switch {
				case topology.IsListenerSetKind(ref.Group, ref.Kind) || ref.Group == "" && ref.Kind == "ListenerSet":
					ls := sc.graph.ListenerSetOf(model.GroupKind{Group: cmp.Or(ref.Group, model.GatewayGroup), Kind: ref.Kind}, ref.Namespace, ref.Name)
					return ls != nil && ls.Parent != nil && !sc.asked[ls.Parent.Namespace+"/"+ls.Parent.Name]
				case ref.Group != "" && ref.Group != "gateway.networking.k8s.io":
					return false
				case ref.Kind == "Gateway":
					return !sc.asked[ref.Namespace+"/"+ref.Name]
				}
				return false
			})
		}
		out.Routes = append(out.Routes, r)
	}
	for _, p := range rep.Policies {
		if !sc.policies[p.Group+"/"+p.Kind+"/"+p.Namespace+"/"+p.Name] && !slices.ContainsFunc(p.Ancestors, ancestorOnScoped) {
			continue
		}
		if slices.ContainsFunc(p.Ancestors, ancestorOnScoped) {
			p.Ancestors = slices.DeleteFunc(slices.Clone(p.Ancestors), func(a status.Ancestor) bool { return !ancestorOnScoped(a) })
		}
		out.Policies = append(out.Policies, p)
	}
	return out
}

// writeStatusSummary prints one line per GatewayClass with a controller's
// verdict, Gateway, listener (under its
// Gateway), route, policy and object with a status of its own (an Envoy
// Gateway Backend), with its key conditions; lines wrap at the
// terminal's width (0: never).
func writeStatusSummary(w io.Writer, rep *status.Report, width int) {
	// Names and sections are validated before they reach a status, but
	// the line is escaped as every other view's (inert) all the same.
	line := func(s string) { fmt.Fprintln(w, fitLine(inert.String(s), width, "      ")) }
	for _, c := range rep.GatewayClasses {
		line(fmt.Sprintf("GatewayClass %s (%s): %s", c.Name, c.ControllerName, conditionsSummary(c.Conditions)))
	}
	for _, g := range rep.Gateways {
		line(fmt.Sprintf("Gateway %s/%s: %s", g.Namespace, g.Name, conditionsSummary(g.Conditions)))
		for _, l := range g.Listeners {
			from := ""
			if l.ListenerSet != "" {
				from = " (ListenerSet " + l.ListenerSet + ")"
				if kind, rest, ok := strings.Cut(l.ListenerSet, "/"); ok && strings.Contains(rest, "/") {
					from = " (" + kind + " " + rest + ")" // a set of another kind: Kind/ns/name
				}
			}
			line(fmt.Sprintf("  listener %s%s: %d route(s); %s", l.Name, from, l.AttachedRoutes, conditionsSummary(l.Conditions)))
		}
	}
	for _, s := range rep.ListenerSets {
		line(fmt.Sprintf("%s %s/%s: %s", cmp.Or(s.Kind, "ListenerSet"), s.Namespace, s.Name, conditionsSummary(s.Conditions)))
	}
	for _, r := range rep.Routes {
		var parents []string
		for _, p := range r.Parents {
			// the summary names the parent's namespace always: a
			// reference written without one resolves to the route's
			// (the YAML and JSON keep it as the controller writes it)
			ref := p.ParentRef
			name := ref.Kind + " " + cmp.Or(ref.Namespace, p.ResolvedNamespace) + "/" + ref.Name
			if ref.SectionName != "" {
				name += "#" + ref.SectionName
			}
			parents = append(parents, name+": "+conditionsSummary(p.Conditions))
		}
		if len(parents) == 0 {
			parents = []string{"no parent"}
		}
		line(fmt.Sprintf("%s %s/%s → %s", r.Kind, r.Namespace, r.Name, strings.Join(parents, "; ")))
	}
	for _, p := range rep.Policies {
		var parts []string
		if len(p.Conditions) > 0 {
			parts = append(parts, conditionsSummary(p.Conditions))
		}
		for _, a := range p.Ancestors {
			parts = append(parts, a.AncestorRef.String()+": "+conditionsSummary(a.Conditions))
		}
		if len(parts) == 0 {
			parts = []string{"no ancestor"}
		}
		line(fmt.Sprintf("%s %s/%s → %s", p.Kind, p.Namespace, p.Name, strings.Join(parts, "; ")))
	}
	for _, o := range rep.Objects {
		line(fmt.Sprintf("%s %s/%s: %s", o.Kind, o.Namespace, o.Name, conditionsSummary(o.Conditions)))
	}
}

// negativeConditions hold when False: they are shown only when True.
var negativeConditions = map[string]bool{"Conflicted": true, "PartiallyInvalid": true}

// conditionsSummary is "Accepted Programmed" for conditions that hold and
// "ResolvedRefs=False(BackendNotFound)" for those that do not.
func conditionsSummary(cs []status.Condition) string {
	var out []string
	for _, c := range cs {
		good := c.Status == "True"
		if negativeConditions[c.Type] {
			if c.Status == "False" {
				continue
			}
			good = false
		}
		if good {
			out = append(out, c.Type)
			continue
		}
		out = append(out, fmt.Sprintf("%s=%s(%s)", c.Type, c.Status, c.Reason))
	}
	if len(out) == 0 {
		return "no conditions"
	}
	return strings.Join(out, " ")
}
