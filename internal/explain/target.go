package explain

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// kindAliases are the words a TARGET's KIND may be, in lower case: the
// kind, its plural and its short forms.
var kindAliases = map[string]string{
	"gateway": "Gateway", "gateways": "Gateway", "gw": "Gateway", "gtw": "Gateway",
	"httproute": "HTTPRoute", "httproutes": "HTTPRoute", "hr": "HTTPRoute", "route": "HTTPRoute",
	"grpcroute": "GRPCRoute", "grpcroutes": "GRPCRoute", "gr": "GRPCRoute",
	"listenerset": "ListenerSet", "listenersets": "ListenerSet", "ls": "ListenerSet",
	"xlistenerset": "XListenerSet", "xlistenersets": "XListenerSet",
	"tcproute": "TCPRoute", "tcproutes": "TCPRoute",
	"tlsroute": "TLSRoute", "tlsroutes": "TLSRoute",
	"udproute": "UDPRoute", "udproutes": "UDPRoute",
	"service": "Service", "services": "Service", "svc": "Service",
	"backend": "Backend", "backends": "Backend",
}

// TargetSpec is a parsed TARGET: a Gateway (Section: a listener), a
// ListenerSet, a route (Section: a rule's name or #N), a Service
// (Section: a port's number or name) or a Backend.
type TargetSpec struct {
	Kind, Namespace, Name, Section string
}

// ParseTarget reads KIND/NAMESPACE/NAME[/SECTION], or KIND/NAME[/SECTION]
// when defaultNS (the -n namespace) is set. KIND is case-insensitive and
// may be a plural or short form. A malformed TARGET is a usage error.
func ParseTarget(s, defaultNS string) (TargetSpec, error) {
	parts := strings.Split(s, "/")
	kind, ok := kindAliases[strings.ToLower(parts[0])]
	if !ok {
		return TargetSpec{}, diag.Errorf(diag.Usage, "unknown target kind %q; use gateway, httproute, grpcroute, tcproute, tlsroute, udproute, listenerset, service or backend", parts[0])
	}
	t := TargetSpec{Kind: kind}
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
		return TargetSpec{}, diag.Errorf(diag.Usage, "target %q: want KIND/NAMESPACE/NAME[/SECTION]", s)
	}
	if t.Kind == "Service" && t.Section == "" {
		// a Service's port: service/NS/NAME:PORT
		t.Name, t.Section, _ = strings.Cut(t.Name, ":")
	}
	if t.Name == "" || t.Namespace == "" {
		if len(parts) == 2 {
			return TargetSpec{}, diag.Errorf(diag.Usage, "target %q names no namespace: give %s/NAMESPACE/%s, or -n NAMESPACE", s, parts[0], parts[1])
		}
		return TargetSpec{}, diag.Errorf(diag.Usage, "target %q: want KIND/NAMESPACE/NAME[/SECTION]", s)
	}
	return t, nil
}

// Explain explains a Gateway (each listener, or the one its Section
// names), a ListenerSet's listeners, or a route's rules (each on every
// listener serving it). A target not in the input is a not-found error
// naming the nearest one. Without opt.Notes a rule gets the notes of
// Notes(r).
func Explain(r *merge.Result, t TargetSpec, opt Options) (*Report, error) {
	if opt.Notes == nil {
		opt.Notes = Notes(r)
	}
	g := r.Graph
	rep := &Report{Targets: []Target{}}
	switch t.Kind {
	case "Gateway":
		gw := g.Gateway(t.Namespace, t.Name)
		if gw == nil {
			return nil, Absent(g.Model, t, GatewayNames(g))
		}
		for _, l := range gw.Listeners {
			if t.Section == "" || string(l.Name) == t.Section {
				rep.Targets = append(rep.Targets, Listener(r, l, opt))
			}
		}
		if len(rep.Targets) == 0 && gw.Refused.Reason != "" {
			// its controller refused it whole (topology.Gateway.Refused):
			// nothing of it is translated, so it has no listener to show
			return nil, diag.Errorf(diag.NotFound, "Gateway %s/%s has nothing to explain: its controller translates nothing of it (%s: %s), so no listener, route or policy is served there",
				gw.Namespace, gw.Name, gw.Refused.Reason, gw.Refused.Message)
		}
		if len(rep.Targets) == 0 {
			return nil, Absent(g.Model, t, ListenerNames(gw))
		}
	case "Service", "Backend":
		return explainBackend(r, t, opt)
	case "ListenerSet", "XListenerSet":
		s := g.ListenerSetOf(setKind(t.Kind), t.Namespace, t.Name)
		if s == nil || s.Parent == nil {
			return nil, Absent(g.Model, t, nil)
		}
		for _, l := range s.Parent.Listeners {
			if l.Set == s && (t.Section == "" || string(l.Name) == t.Section) {
				rep.Targets = append(rep.Targets, Listener(r, l, opt))
			}
		}
	default:
		rt := g.Route(t.Kind, t.Namespace, t.Name)
		if rt == nil {
			return nil, Absent(g.Model, t, RouteNames(g, t.Kind))
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
			if rp := r.Rule(rule); rp != nil && len(rp.Paths) > 0 {
				// A delegated rule: one view per parent path, on the
				// listeners of the path's root.
				for _, path := range rp.Paths {
					for _, l := range pathListeners(r, rt, path) {
						rep.Targets = append(rep.Targets, RuleOn(r, rt, rule, path, l, opt))
					}
				}
				continue
			}
			for _, l := range listeners {
				rep.Targets = append(rep.Targets, Rule(r, rt, rule, l, opt))
			}
		}
		if !found {
			var secs []string
			for _, rule := range rt.Rules {
				secs = append(secs, rule.Section())
			}
			return nil, Absent(g.Model, t, secs)
		}
	}
	return rep, nil
}

// NotFound is the not-found error for a target, with the nearest of
// candidates (NAMESPACE/NAME, or the sections when t names one) when one
// is near enough to be a typo.
func NotFound(t TargetSpec, candidates []string) error {
	return Absent(nil, t, candidates)
}

// Absent is NotFound, saying why when m holds an object of the target's
// name that it left out because the API server refuses it (Model.Refused).
func Absent(m *model.Model, t TargetSpec, candidates []string) error {
	if t.Section == "" && m != nil {
		if k, why, ok := m.RefusedNamed(t.Kind, t.Namespace, t.Name); ok {
			return refusedError(k, why)
		}
	}
	what := t.Kind + " " + t.Namespace + "/" + t.Name
	key := t.Namespace + "/" + t.Name
	if t.Section != "" {
		what += " section " + t.Section
		key = t.Section
	}
	msg := what + " not found"
	var elsewhere []string // the same name in other namespaces
	if t.Section == "" {
		for _, c := range candidates {
			if ns, name, ok := strings.Cut(c, "/"); ok && name == t.Name && ns != t.Namespace {
				elsewhere = append(elsewhere, ns)
			}
		}
	}
	switch {
	case len(elsewhere) > 0:
		msg = fmt.Sprintf("%s %s not found in namespace %s; it is in namespace %s: add -n %s (or name it %s/%s/%s)",
			t.Kind, t.Name, t.Namespace, strings.Join(elsewhere, ", "), elsewhere[0], strings.ToLower(t.Kind), elsewhere[0], t.Name)
	default:
		if best := diag.Nearest(key, candidates); best != "" {
			msg += fmt.Sprintf("; did you mean %q?", best)
		}
	}
	return diag.Errorf(diag.NotFound, "%s", msg)
}

// GatewayNames are the Gateways of g as NAMESPACE/NAME.
func GatewayNames(g *topology.Graph) []string {
	var out []string
	for _, gw := range g.Gateways {
		out = append(out, gw.Namespace+"/"+gw.Name)
	}
	return out
}

// ListenerNames are the names of gw's listeners.
func ListenerNames(gw *topology.Gateway) []string {
	var out []string
	for _, l := range gw.Listeners {
		out = append(out, string(l.Name))
	}
	return out
}

// RouteNames are the routes of one kind in g as NAMESPACE/NAME.
func RouteNames(g *topology.Graph, kind string) []string {
	var out []string
	for _, r := range g.Routes {
		if r.Kind == kind {
			out = append(out, r.Meta.Namespace+"/"+r.Meta.Name)
		}
	}
	return out
}

// CheckField refuses a --field that selects no field of any registered
// kind (a usage error with the nearest field): a typo must not read as
// "nothing in effect".
func CheckField(want string, reg *policy.Registry) error {
	if want == "" {
		return nil
	}
	var names []string
	for _, k := range reg.Kinds() {
		for _, fs := range k.Spec().Fields {
			if MatchField(fs.Key, want) || (fs.Family && (strings.HasPrefix(want, fs.Key) || fs.Key == want+"[")) {
				return nil
			}
			names = append(names, fs.Key)
			if top, _, nested := strings.Cut(fs.Key, "."); nested {
				names = append(names, top)
			}
		}
	}
	msg := fmt.Sprintf("unknown field %q", want)
	if best := diag.Nearest(want, names); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return diag.Errorf(diag.Usage, "%s", msg)
}

// pathListeners are the listeners a parent path serves a delegated rule
// on: those its root route (the farthest parent's, or the rule's own route
// for a path without parents) is attached to through its own parentRefs.
func pathListeners(r *merge.Result, rt *topology.Route, path *merge.RulePath) []*topology.Listener {
	root := rt
	if n := len(path.Via); n > 0 {
		if rp := r.Rule(path.Via[n-1]); rp != nil {
			root = rp.Route
		}
	}
	var out []*topology.Listener
	for _, p := range root.Parents {
		if p.Delegation != nil {
			continue
		}
		for _, l := range p.Listeners {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	if len(out) == 0 {
		out = []*topology.Listener{nil}
	}
	return out
}

// refusedError says that the input's object k is left out because the
// API server refuses it, with the first finding that says why.
func refusedError(k model.Key, why []diag.Diagnostic) error {
	reason := "see its findings"
	if len(why) > 0 {
		reason = why[0].Pos.String() + ": " + why[0].Message
		if len(why) > 1 {
			reason += fmt.Sprintf(" (and %d more)", len(why)-1)
		}
	}
	return diag.Errorf(diag.NotFound, "%s %s/%s is in the input but the API server refuses it, so a cluster never holds it and gwpol leaves it out: %s", k.Kind, k.Namespace, k.Name, reason)
}

// setKind is the group and kind of a listener set a TARGET's KIND names:
// XListenerSet the experimental channel's, any other the v1 ListenerSet.
func setKind(kind string) model.GroupKind {
	if kind == model.XListenerSetKind.Kind {
		return model.XListenerSetKind
	}
	return model.ListenerSetKind
}
