// Package graph draws the topology and policy attachment as a DOT or
// Mermaid diagram: Gateways → listeners → routes → rules, the policies
// attached at each level, and "overrides" edges from each field's owner to
// the policies that lost it. It is a view: it reads the merge IR only.
//
// graph imports merge and the stages before it.
package graph

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
)

// node and edge are the format-independent drawing.
type node struct{ id, label, shape string }
type edge struct {
	from, to, label string
	dashed          bool
}

type drawing struct {
	nodes     []node
	edges     []edge
	seen      map[string]bool
	seenEdges map[edge]bool
}

func (d *drawing) node(id, label, shape string) string {
	if !d.seen[id] {
		d.seen[id] = true
		d.nodes = append(d.nodes, node{id, label, shape})
	}
	return id
}

func (d *drawing) edge(from, to, label string, dashed bool) {
	e := edge{from, to, label, dashed}
	if !d.seenEdges[e] {
		d.seenEdges[e] = true
		d.edges = append(d.edges, e)
	}
}

// build walks the IR once.
func build(r *merge.Result) *drawing {
	d := &drawing{seen: map[string]bool{}, seenEdges: map[edge]bool{}}
	pol := func(p *policy.Policy) string {
		if b := p.BuiltIn; b != nil { // a route rule's own fields, winning over policies
			return d.node("p_"+p.ID()+"#"+b.Rule, b.Route.Kind+"\n"+p.Obj.Namespace+"/"+p.Obj.Name+"\nrule "+b.Rule+" (built-in)", "note")
		}
		return d.node("p_"+p.ID(), p.Kind.GroupKind().Kind+"\n"+p.Obj.Namespace+"/"+p.Obj.Name, "note")
	}
	attachAll := func(target string, pts merge.Points) {
		for _, pt := range pts {
			for _, c := range slices.Concat(pt.Candidates, pt.Invalid) {
				if c.Level == merge.LevelGateway && !strings.HasPrefix(target, "gw_") {
					continue // drawn once, on the Gateway
				}
				d.edge(pol(c.Policy), target, string(c.Via), true)
			}
			for _, f := range pt.Fields {
				for _, l := range f.Losers {
					d.edge(pol(f.Owner.Policy), pol(l.Policy), "overrides "+f.Key, false)
				}
			}
		}
	}
	for _, gp := range r.Gateways {
		gw := gp.Gateway
		g := d.node("gw_"+gw.Namespace+"/"+gw.Name, "Gateway\n"+gw.Namespace+"/"+gw.Name, "box")
		attachAll(g, gp.Whole)
		for _, lp := range gp.Listeners {
			l := d.node("l_"+lp.Listener.ID(), fmt.Sprintf("listener %s\n%s :%d", lp.Listener.Name, lp.Listener.Protocol, lp.Listener.Port), "box")
			d.edge(g, l, "", false)
			attachAll(l, lp.Own)
		}
	}
	for _, rp := range r.Routes {
		rt := rp.Route
		rid := d.node("r_"+rt.Kind+"/"+rt.Meta.Namespace+"/"+rt.Meta.Name, rt.Kind+"\n"+rt.Meta.Namespace+"/"+rt.Meta.Name, "ellipse")
		for _, p := range rt.Parents {
			for _, l := range p.Listeners {
				d.edge("l_"+l.ID(), rid, "", false)
			}
			if p.Delegation != nil {
				parent := p.Delegation.Parent
				d.edge("rule_"+parent.Kind+"/"+parent.Meta.Namespace+"/"+parent.Meta.Name+"/"+p.Delegation.Rule.Section(), rid, "delegates", false)
			}
		}
		for _, rule := range rp.Rules {
			id := d.node("rule_"+rt.Kind+"/"+rt.Meta.Namespace+"/"+rt.Meta.Name+"/"+rule.Rule.Section(), "rule "+rule.Rule.Section(), "ellipse")
			d.edge(rid, id, "", false)
			attachAll(id, rule.Own)
		}
	}
	return d
}

// DOT renders the diagram for Graphviz.
func DOT(r *merge.Result) string {
	d := build(r)
	var b strings.Builder
	b.WriteString("digraph gwpol {\n  rankdir=LR;\n  node [fontsize=10];\n")
	for _, n := range d.nodes {
		fmt.Fprintf(&b, "  %q [label=%q, shape=%s];\n", n.id, n.label, n.shape)
	}
	for _, e := range d.edges {
		attrs := []string{}
		if e.label != "" {
			attrs = append(attrs, fmt.Sprintf("label=%q", e.label))
		}
		if e.dashed {
			attrs = append(attrs, "style=dashed")
		}
		if strings.HasPrefix(e.label, "overrides") {
			attrs = append(attrs, "color=red")
		}
		fmt.Fprintf(&b, "  %q -> %q [%s];\n", e.from, e.to, strings.Join(attrs, ", "))
	}
	b.WriteString("}\n")
	return b.String()
}

// Mermaid renders the diagram as a Mermaid flowchart.
func Mermaid(r *merge.Result) string {
	d := build(r)
	ids := map[string]string{}
	for i, n := range d.nodes {
		ids[n.id] = fmt.Sprintf("n%d", i)
	}
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	for _, n := range d.nodes {
		label := strings.ReplaceAll(n.label, "\n", "<br/>")
		open, close := "[", "]"
		switch n.shape {
		case "ellipse":
			open, close = "(", ")"
		case "note":
			open, close = "[/", "/]"
		}
		fmt.Fprintf(&b, "  %s%s\"%s\"%s\n", ids[n.id], open, label, close)
	}
	for _, e := range d.edges {
		from, to := ids[e.from], ids[e.to]
		if from == "" || to == "" {
			continue
		}
		arrow := "-->"
		if e.dashed {
			arrow = "-.->"
		}
		if e.label != "" {
			fmt.Fprintf(&b, "  %s %s|%s| %s\n", from, arrow, e.label, to)
		} else {
			fmt.Fprintf(&b, "  %s %s %s\n", from, arrow, to)
		}
	}
	return b.String()
}
