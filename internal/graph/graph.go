package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// Options scope the drawing: Gateways by "NAMESPACE/NAME", routes by
// "KIND/NAMESPACE/NAME" (KIND as in the objects), policies by policy ID.
// An empty Options draws everything.
type Options struct {
	Gateways []string
	Routes   []string
	Policies []string
}

func (o Options) scoped() bool { return len(o.Gateways)+len(o.Routes)+len(o.Policies) > 0 }

// node and edge are the format-independent drawing.
type node struct {
	id, label, shape string
	// cluster is the namespace the node is drawn in; gateway, for a
	// Gateway's listeners, the Gateway's own cluster inside it.
	namespace, gateway string
	// problem: the node is drawn red and dashed (its label says why).
	problem bool
	policy  bool
}

type edge struct {
	from, to, label string
	dashed, red     bool
}

type drawing struct {
	nodes     []*node
	byID      map[string]*node
	edges     []edge
	seenEdges map[edge]bool
}

func (d *drawing) node(n *node) string {
	if d.byID[n.id] == nil {
		n.label = labelText(n.label)
		n.namespace, n.gateway = inert.String(n.namespace), inert.String(n.gateway)
		d.byID[n.id] = n
		d.nodes = append(d.nodes, n)
	}
	return n.id
}

func (d *drawing) edge(e edge) {
	e.label = labelText(e.label)
	if !d.seenEdges[e] {
		d.seenEdges[e] = true
		d.edges = append(d.edges, e)
	}
}

// labelText is a label with every line escaped (inert.String): names
// from the input reach DOT and Mermaid, and whoever reads them in a
// terminal, without a control character or a bidi override raw. The
// label's own line breaks stay.
func labelText(label string) string {
	lines := strings.Split(label, "\n")
	for i, l := range lines {
		lines[i] = inert.String(l)
	}
	return strings.Join(lines, "\n")
}

// mermaidText is label text inside Mermaid's quotes: a quote written as
// Mermaid's entity, so a name cannot end the label early.
func mermaidText(s string) string { return strings.ReplaceAll(s, `"`, "#quot;") }

// viaLabel keeps attachment labels short so node names dominate.
var viaLabel = map[attach.Via]string{attach.ViaExtensionRef: "filter", attach.ViaSection: "section", attach.ViaTargetRef: "ref"}

// policyUse tallies how a policy fared over every merge point.
type policyUse struct {
	candidate, won, lost bool
	// rejected is the verdict of a target its controller does not apply
	// it on (merge.Candidate.Rejected), the last one met.
	rejected *policy.Rejection
}

// build walks the IR once.
func build(r *merge.Result) *drawing {
	d := &drawing{byID: map[string]*node{}, seenEdges: map[edge]bool{}}
	uses := map[*policy.Policy]*policyUse{}
	use := func(p *policy.Policy) *policyUse {
		if uses[p] == nil {
			uses[p] = &policyUse{}
		}
		return uses[p]
	}
	pol := func(p *policy.Policy) string {
		if b := p.BuiltIn; b != nil { // a route rule's own fields, winning over policies
			return d.node(&node{id: "b_" + b.Route.Kind + "/" + p.Obj.Namespace + "/" + p.Obj.Name + "#" + b.Rule,
				label: b.Route.Kind + "\n" + p.Obj.Namespace + "/" + p.Obj.Name + "\nrule " + b.Rule + " (built-in)", shape: "note", namespace: p.Obj.Namespace})
		}
		return "p_" + p.ID()
	}
	// attachAll draws the policies of a target's merge (pts); gws are
	// the Gateways it is served on or routed to from (a route's, a
	// backend's): an edge says on which of them the policy takes no part
	// (merge.Result.NotOn).
	attachAll := func(target string, pts merge.Points, gws []*topology.Gateway) {
		for _, pt := range pts {
			notOn := ""
			if gs := r.NotOn(pt, gws); len(gs) > 0 {
				names := make([]string, len(gs))
				for i, gw := range gs {
					names[i] = gw.Namespace + "/" + gw.Name
				}
				notOn = ", not on " + strings.Join(names, ", ")
			}
			for _, c := range slices.Concat(pt.Candidates, pt.Invalid) {
				use(c.Policy).candidate = true
				if c.Level == merge.LevelGateway && !strings.HasPrefix(target, "gw_") {
					continue // drawn once, on the Gateway
				}
				label := viaLabel[c.Via]
				if c.Parent != "" {
					label = "inherited"
				}
				if !c.IsBuiltIn() {
					label += notOn
				}
				d.edge(edge{from: pol(c.Policy), to: target, label: label, dashed: true})
			}
			for _, f := range pt.Fields {
				for _, c := range f.Contributors {
					use(c.Policy).won = true
				}
				for _, l := range f.Losers {
					use(l.Policy).lost = true
					d.edge(edge{from: pol(f.Owner.Policy), to: pol(l.Policy), label: f.Key, red: true})
				}
			}
		}
	}
	for _, gp := range r.Gateways {
		gw := gp.Gateway
		gwKey := gw.Namespace + "/" + gw.Name
		g := d.node(&node{id: "gw_" + gwKey, label: "Gateway\n" + gwKey, shape: "box", namespace: gw.Namespace, gateway: gwKey})
		attachAll(g, gp.Whole, nil)
		for _, lp := range gp.Listeners {
			l := d.node(&node{id: "l_" + lp.Listener.ID(), label: fmt.Sprintf("listener %s\n%s :%d", lp.Listener.Name, lp.Listener.Protocol, lp.Listener.Port),
				shape: "box", namespace: gw.Namespace, gateway: gwKey})
			d.edge(edge{from: g, to: l})
			attachAll(l, lp.Own, nil)
		}
	}
	// Backends (Services, Backend objects) with policies of their own
	// (BackendConfigPolicy, BackendTLSPolicy): drawn so those policies are
	// seen attached where they are.
	var routing map[model.Key][]*topology.Gateway // the Gateways routing to each backend, when the input mixes controllers
	if len(r.Backends) > 0 && r.Attach.Mixed() {
		routing = r.Graph.BackendGateways()
	}
	for _, bp := range r.Backends {
		k := bp.Key
		b := d.node(&node{id: "b_" + k.Kind + "/" + k.Namespace + "/" + k.Name, label: k.Kind + "\n" + k.Namespace + "/" + k.Name,
			shape: "cylinder", namespace: k.Namespace})
		attachAll(b, bp.Own, routing[k])
	}
	for _, rp := range r.Routes {
		rt := rp.Route
		rid := d.node(&node{id: "r_" + rt.Kind + "/" + rt.Meta.Namespace + "/" + rt.Meta.Name, label: rt.Kind + "\n" + rt.Meta.Namespace + "/" + rt.Meta.Name,
			shape: "ellipse", namespace: rt.Meta.Namespace})
		for _, p := range rt.Parents {
			for _, l := range p.Listeners {
				d.edge(edge{from: "l_" + l.ID(), to: rid})
			}
			if p.Delegation != nil {
				parent := p.Delegation.Parent
				d.edge(edge{from: "rule_" + parent.Kind + "/" + parent.Meta.Namespace + "/" + parent.Meta.Name + "/" + p.Delegation.Rule.Section(), to: rid, label: "delegates"})
			}
		}
		var serving []*topology.Gateway
		if r.Attach.Mixed() {
			serving = merge.ServingGateways(rt)
		}
		for _, rule := range rp.Rules {
			n := &node{id: "rule_" + rt.Kind + "/" + rt.Meta.Namespace + "/" + rt.Meta.Name + "/" + rule.Rule.Section(), label: "rule " + rule.Rule.Section(),
				shape: "ellipse", namespace: rt.Meta.Namespace}
			if fs, ok := fixedStatus(r, rt, rule.Rule); ok {
				n.label += fmt.Sprintf("\nanswers %d", fs.Status)
				n.problem = true
			}
			id := d.node(n)
			d.edge(edge{from: rid, to: id})
			attachAll(id, rule.Own, serving)
		}
	}
	// The targets each policy's controller does not apply it on (the
	// verdict attach keeps): a red dashed edge labelled with the verdict.
	for _, p := range r.Policies.Policies {
		for _, v := range r.Verdicts(p) {
			use(p).rejected = v.Rejection // a backend target is drawn as no node
			if to := verdictTarget(v); d.byID[to] != nil {
				d.edge(edge{from: pol(p), to: to, label: strings.ToLower(v.Rejection.Verdict), dashed: true, red: true})
			}
		}
	}
	for _, p := range r.Policies.Policies {
		n := &node{id: pol(p), label: p.Kind.GroupKind().Kind + "\n" + p.Obj.Namespace + "/" + p.Obj.Name, shape: "note", namespace: p.Obj.Namespace, policy: true}
		if why := problem(r, p, use(p)); why != "" {
			n.label += "\n" + why
			n.problem = true
		}
		d.node(n)
	}
	return d
}

// verdictTarget is the node a verdict's target is drawn as (a
// ListenerSet's, its Gateway).
func verdictTarget(v merge.Verdict) string {
	t := v.Target
	switch {
	case t.Gateway != nil:
		return "gw_" + t.Gateway.Namespace + "/" + t.Gateway.Name
	case t.Listener != nil:
		return "l_" + t.Listener.ID()
	case t.Set != nil && t.Set.Parent != nil:
		return "gw_" + t.Set.Parent.Namespace + "/" + t.Set.Parent.Name
	case v.Route != nil && t.Rule != nil:
		return "rule_" + v.Route.Kind + "/" + v.Route.Meta.Namespace + "/" + v.Route.Meta.Name + "/" + t.Rule.Section()
	case v.Route != nil:
		return "r_" + v.Route.Kind + "/" + v.Route.Meta.Namespace + "/" + v.Route.Meta.Name
	}
	return ""
}

// problem is why a policy does not take effect, or "".
func problem(r *merge.Result, p *policy.Policy, u *policyUse) string {
	code := func(ds []string) string {
		if len(ds) == 0 {
			return ""
		}
		return " (" + strings.Join(slices.Compact(ds), ", ") + ")"
	}
	var codes []string
	for _, d := range slices.Concat(p.Invalid, r.Attach.Diagnostics) {
		if d.Object == p.Ref() {
			codes = append(codes, d.Code)
		}
	}
	slices.Sort(codes)
	switch {
	case !p.IsValid():
		return "invalid" + code(codes)
	case (!u.candidate || !u.won) && u.rejected != nil:
		return "not applied (" + u.rejected.Reason + ")"
	case !u.candidate:
		return "attached nowhere" + code(codes)
	case u.lost && !u.won:
		return "overridden everywhere"
	}
	return ""
}

// scope keeps what the options select: the chosen Gateways, routes and
// policies' targets, the topology that leads to them, and the policies
// attached there.
func (d *drawing) scope(o Options) {
	if !o.scoped() {
		return
	}
	keep := map[string]bool{}
	up := map[string][]string{}   // topology edges reversed
	down := map[string][]string{} // topology edges
	for _, e := range d.edges {
		if !e.dashed && !e.red {
			up[e.to] = append(up[e.to], e.from)
			down[e.from] = append(down[e.from], e.to)
		}
	}
	var walk func(id string, next map[string][]string)
	walk = func(id string, next map[string][]string) {
		if keep[id] {
			return
		}
		keep[id] = true
		for _, n := range next[id] {
			walk(n, next)
		}
	}
	anchor := func(id string) {
		if d.byID[id] == nil {
			return
		}
		delete(keep, id)
		walk(id, down)
		delete(keep, id)
		walk(id, up)
	}
	for _, g := range o.Gateways {
		anchor("gw_" + g)
	}
	for _, rt := range o.Routes {
		anchor("r_" + rt)
	}
	for _, p := range o.Policies {
		for _, e := range d.edges {
			if e.dashed && e.from == "p_"+p {
				anchor(e.to)
			}
		}
		keep["p_"+p] = true
	}
	for _, e := range d.edges {
		if e.dashed && keep[e.to] {
			keep[e.from] = true
		}
	}
	d.nodes = slices.DeleteFunc(d.nodes, func(n *node) bool { return !keep[n.id] })
	d.edges = slices.DeleteFunc(d.edges, func(e edge) bool { return !keep[e.from] || !keep[e.to] })
}

// DOT renders the diagram for Graphviz: one cluster per namespace, one per
// Gateway inside its namespace's.
func DOT(r *merge.Result, o Options) string {
	d := build(r)
	d.scope(o)
	var b strings.Builder
	b.WriteString("digraph gwpol {\n  rankdir=LR;\n  newrank=true;\n  node [fontsize=11];\n  edge [fontsize=8, fontcolor=gray30];\n")
	for i, ns := range d.namespaces() {
		fmt.Fprintf(&b, "  subgraph \"cluster_ns_%d\" {\n    label=%q;\n    style=rounded;\n    color=gray60;\n", i, "namespace "+ns)
		gws := map[string][]*node{}
		var gwOrder []string
		for _, n := range d.nodes {
			if n.namespace != ns {
				continue
			}
			if n.gateway == "" {
				b.WriteString("    " + dotNode(n) + "\n")
				continue
			}
			if gws[n.gateway] == nil {
				gwOrder = append(gwOrder, n.gateway)
			}
			gws[n.gateway] = append(gws[n.gateway], n)
		}
		for j, g := range gwOrder {
			fmt.Fprintf(&b, "    subgraph \"cluster_ns_%d_gw_%d\" {\n      label=%q;\n      style=filled;\n      fillcolor=aliceblue;\n", i, j, "Gateway "+g)
			for _, n := range gws[g] {
				b.WriteString("      " + dotNode(n) + "\n")
			}
			b.WriteString("    }\n")
		}
		b.WriteString("  }\n")
	}
	for _, e := range d.edges {
		var attrs []string
		if e.label != "" {
			attrs = append(attrs, fmt.Sprintf("label=%q", e.label))
		}
		if e.dashed {
			attrs = append(attrs, "style=dashed")
		}
		if e.red {
			attrs = append(attrs, "color=red", "fontcolor=red")
		}
		fmt.Fprintf(&b, "  %q -> %q [%s];\n", e.from, e.to, strings.Join(attrs, ", "))
	}
	b.WriteString("}\n")
	return b.String()
}

func dotNode(n *node) string {
	attrs := fmt.Sprintf("label=%q, shape=%s", n.label, n.shape)
	if n.problem {
		attrs += ", color=red, fontcolor=red, style=dashed"
	}
	return fmt.Sprintf("%q [%s];", n.id, attrs)
}

// namespaces lists the namespaces of the drawn nodes, sorted.
func (d *drawing) namespaces() []string {
	var out []string
	for _, n := range d.nodes {
		out = append(out, n.namespace)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Mermaid renders the diagram as a Mermaid flowchart, one subgraph per
// namespace.
func Mermaid(r *merge.Result, o Options) string {
	d := build(r)
	d.scope(o)
	ids := map[string]string{}
	for i, n := range d.nodes {
		ids[n.id] = fmt.Sprintf("n%d", i)
	}
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	var problems []string
	for i, ns := range d.namespaces() {
		fmt.Fprintf(&b, "  subgraph ns%d[\"namespace %s\"]\n", i, mermaidText(ns))
		for _, n := range d.nodes {
			if n.namespace != ns {
				continue
			}
			label := strings.ReplaceAll(mermaidText(n.label), "\n", "<br/>")
			open, close := "[", "]"
			switch n.shape {
			case "ellipse":
				open, close = "(", ")"
			case "note":
				open, close = "[/", "/]"
			}
			fmt.Fprintf(&b, "    %s%s\"%s\"%s\n", ids[n.id], open, label, close)
			if n.problem {
				problems = append(problems, ids[n.id])
			}
		}
		b.WriteString("  end\n")
	}
	var red []string
	links := 0 // Mermaid numbers the links drawn, for linkStyle
	for _, e := range d.edges {
		from, to := ids[e.from], ids[e.to]
		if from == "" || to == "" {
			continue
		}
		links++
		arrow := "-->"
		if e.dashed {
			arrow = "-.->"
		}
		if e.label != "" {
			fmt.Fprintf(&b, "  %s %s|%s| %s\n", from, arrow, mermaidText(e.label), to)
		} else {
			fmt.Fprintf(&b, "  %s %s %s\n", from, arrow, to)
		}
		if e.red {
			red = append(red, fmt.Sprint(links-1))
		}
	}
	if len(problems) > 0 {
		b.WriteString("  classDef problem stroke:#d00,color:#d00,stroke-dasharray:5 5\n")
		fmt.Fprintf(&b, "  class %s problem\n", strings.Join(problems, ","))
	}
	if len(red) > 0 {
		fmt.Fprintf(&b, "  linkStyle %s stroke:#d00\n", strings.Join(red, ","))
	}
	return b.String()
}

// fixedStatus is the status a rule answers every request with, as the
// first Gateway serving it that answers one does it (the controller
// managing a Gateway may answer the rule itself, or refuse its backends);
// a rule served nowhere as merge.Result.FixedStatus says.
func fixedStatus(r *merge.Result, rt *topology.Route, rule *topology.Rule) (merge.FixedStatus, bool) {
	served := false
	for _, p := range rt.Parents {
		for _, l := range p.Listeners {
			served = true
			if fs, ok := r.FixedStatusOn(rt, rule, l.Gateway); ok {
				return fs, true
			}
		}
	}
	if served {
		return merge.FixedStatus{}, false
	}
	return r.FixedStatus(rule)
}
