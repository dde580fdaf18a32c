package status

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition is a status condition as printed (no timestamps, so output is
// reproducible).
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Report is the whole status output.
type Report struct {
	// GatewayClasses are the conditions a controller writes on the
	// GatewayClasses that name it, where gwpol follows its own verdict
	// on them (topology.ClassVerdict); omitted when there is none.
	GatewayClasses []GatewayClass `json:"gatewayClasses,omitempty"`
	Gateways       []Gateway      `json:"gateways"`
	// ListenerSets are the ListenerSets' own conditions (their listeners
	// are under their Gateway); omitted when the input has none.
	ListenerSets []ListenerSet `json:"listenerSets,omitempty"`
	Routes       []Route       `json:"routes"`
	Policies     []Policy      `json:"policies"`
	// Objects are the own conditions a controller writes on objects that
	// are neither Gateways, routes nor policies (a backend object's
	// Accepted), by its rules (policy.Family.ObjectVerdicts); omitted
	// when it writes none.
	Objects []Object `json:"objects,omitempty"`
}

// GatewayClass is the status a controller writes on a GatewayClass.
type GatewayClass struct {
	Name           string      `json:"name"`
	ControllerName string      `json:"controllerName"`
	Conditions     []Condition `json:"conditions"`
}

// gatewayClassStatuses are the controllers' verdicts on the input's
// GatewayClasses (topology.Graph.Classes), by class name.
func gatewayClassStatuses(g *topology.Graph) []GatewayClass {
	var out []GatewayClass
	for _, name := range g.ClassNames() {
		v := g.Classes[name]
		out = append(out, GatewayClass{Name: name, ControllerName: v.Controller, Conditions: conv(v.Conditions)})
	}
	return out
}

// Object is the status a controller writes on an object of its own API
// group that is neither a route nor a policy.
type Object struct {
	Group      string      `json:"group"`
	Kind       string      `json:"kind"`
	Namespace  string      `json:"namespace,omitempty"`
	Name       string      `json:"name"`
	Conditions []Condition `json:"conditions"`
}

// ListenerSet status.
type ListenerSet struct {
	// Kind is the set's kind when it is not the v1 ListenerSet (the
	// experimental XListenerSet); empty for the v1 kind.
	Kind       string      `json:"kind,omitempty"`
	Namespace  string      `json:"namespace"`
	Name       string      `json:"name"`
	Conditions []Condition `json:"conditions"`
}

// Gateway status.
type Gateway struct {
	Namespace  string      `json:"namespace"`
	Name       string      `json:"name"`
	Conditions []Condition `json:"conditions"`
	Listeners  []Listener  `json:"listeners"`
}

// Listener status.
type Listener struct {
	Name           string      `json:"name"`
	ListenerSet    string      `json:"listenerSet,omitempty"` // ns/name when from a ListenerSet (Kind/ns/name from another kind of set)
	AttachedRoutes int         `json:"attachedRoutes"`
	Conditions     []Condition `json:"conditions"`
}

// Route status.
type Route struct {
	Kind      string        `json:"kind"`
	Namespace string        `json:"namespace"`
	Name      string        `json:"name"`
	Parents   []RouteParent `json:"parents"`
}

// ParentRef as printed.
type ParentRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// Namespace is empty where the route's parentRef gives none and its
	// controller writes it as written (policy.Controller.ParentRefsAsWritten)
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name"`
	SectionName string `json:"sectionName,omitempty"`
	Port        int32  `json:"port,omitempty"`
}

// RouteParent is one parentRef's status.
type RouteParent struct {
	ParentRef      ParentRef   `json:"parentRef"`
	ControllerName string      `json:"controllerName"`
	Conditions     []Condition `json:"conditions"`
	// ResolvedNamespace is the namespace of the parent the reference
	// names, the route's where ParentRef gives none (not printed).
	ResolvedNamespace string `json:"-"`
}

// Policy status.
type Policy struct {
	Group     string     `json:"group"`
	Kind      string     `json:"kind"`
	Namespace string     `json:"namespace"`
	Name      string     `json:"name"`
	Ancestors []Ancestor `json:"ancestors"`
	// Conditions are the object's own conditions, for kinds whose
	// controller writes them there (policy.ObjectStatuser).
	Conditions []Condition `json:"conditions,omitempty"`
}

// AncestorRef names an ancestor.
type AncestorRef struct {
	Group       string `json:"group"`
	Kind        string `json:"kind"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name"`
	SectionName string `json:"sectionName,omitempty"`
	Port        int32  `json:"port,omitempty"`
}

// String is Kind/ns/name[#section][:port].
func (a AncestorRef) String() string {
	s := a.Kind + "/" + a.Name
	if a.Namespace != "" {
		s = a.Kind + "/" + a.Namespace + "/" + a.Name
	}
	if a.SectionName != "" {
		s += "#" + a.SectionName
	}
	if a.Port != 0 {
		s += ":" + strconv.Itoa(int(a.Port))
	}
	return s
}

// Ancestor is one ancestor's policy status.
type Ancestor struct {
	AncestorRef AncestorRef `json:"ancestorRef"`
	// ResolvedNamespace is the namespace of the object the reference
	// names, which a reference written without one leaves out of
	// AncestorRef; views that select ancestors by their object read it.
	ResolvedNamespace string      `json:"-"`
	ControllerName    string      `json:"controllerName"`
	Conditions        []Condition `json:"conditions"`
}

// Options for Compute.
type Options struct {
	// ControllerName is the controller status reports for.
	ControllerName string
}

// summaryInView reports whether a policy whose targets are all missing
// gets the synthetic StatusSummary ancestor: the controller that answers
// for its kind must be in view (the input has no GatewayClass, or one
// naming it). A family's controller answers for the family's kinds, and
// a family without a controller of its own reports through this stage
// always; any other kind (the Gateway API's own) is the reporting
// controller's. An input whose GatewayClasses all name other controllers
// has no status from it (a controller that writes a BackendTLSPolicy's
// status only through the backends it covers writes none when the
// target is not there).
func summaryInView(r *merge.Result, p *policy.Policy, reporting string) bool {
	if f := r.Registry.FamilyOf(p.Kind); f != nil {
		reporting = f.Controller.Name
	} else if p.Kind.GroupKind().Group != model.GatewayGroup {
		return true // a family without a controller of its own
	}
	_, inView := r.Graph.Controller(nil, reporting)
	return inView
}

// Summary is the synthetic ancestor of the policies that attach nowhere,
// in the API group of the controller status reports for
// (policy.Controller.SummaryGroup).
func Summary(r *merge.Result, controller string) AncestorRef {
	c, ok := r.Registry.Controller(controller)
	if !ok || c.SummaryGroup == "" {
		c = r.Registry.DefaultController()
	}
	return AncestorRef{Group: c.SummaryGroup, Kind: "StatusSummary", Name: "StatusSummary"}
}

func conv(cs []metav1.Condition) []Condition {
	out := make([]Condition, len(cs))
	for i, c := range cs {
		out[i] = Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message}
	}
	return out
}

// Compute builds the report.
func Compute(r *merge.Result, opt Options) *Report {
	if opt.ControllerName == "" {
		opt.ControllerName = r.Registry.DefaultController().Name
	}
	extra := func(ctrl string) bool { c, _ := r.Registry.Controller(ctrl); return c.ExtraConditions }
	rep := &Report{Gateways: []Gateway{}, Routes: []Route{}, Policies: []Policy{}}
	g := r.Graph
	for _, gw := range g.Gateways {
		conds := topology.GatewayConditions(g, gw)
		if _, managed := g.Controller(gw, opt.ControllerName); !managed {
			// No controller in view: Pending, and no listener claims
			// the routes whose parents it is not ours to report.
			rep.Gateways = append(rep.Gateways, Gateway{Namespace: gw.Namespace, Name: gw.Name, Conditions: conv(conds), Listeners: []Listener{}})
			continue
		}
		if gw.Refused.Reason != "" {
			// its controller refused the whole Gateway: Accepted False
			// alone, and no listener status (nothing of it is translated)
			rep.Gateways = append(rep.Gateways, Gateway{Namespace: gw.Namespace, Name: gw.Name, Conditions: conv(conds), Listeners: []Listener{}})
			continue
		}
		ownConds := extra(gatewayController(g, gw, opt.ControllerName))
		if ownConds {
			conds = append(conds, topology.GatewayResolvedRefs(gw))
			if topology.InsecureFrontend(gw) {
				conds = append(conds, metav1.Condition{Type: "InsecureFrontendValidationMode", Status: metav1.ConditionTrue, Reason: "ConfigurationChanged",
					Message: "Gateway frontend validation is configured to allow insecure fallback"})
			}
		}
		if ownConds {
			conds = replaced(conds, "GatewayReplaced", gatewayReplacedBy(r, gw))
		}
		out := Gateway{Namespace: gw.Namespace, Name: gw.Name, Conditions: conv(conds), Listeners: []Listener{}}
		for _, l := range gw.Listeners {
			if gw.NoListenerStatus {
				break // its controller writes none
			}
			lc := l.Conditions // the verdict of the listener's controller
			if ownConds {
				lc = replaced(lc, "ListenerReplaced", listenerReplacedBy(r, l))
			}
			ls := Listener{Name: string(l.Name), AttachedRoutes: len(l.Routes), Conditions: conv(lc)}
			if l.Set != nil {
				ls.ListenerSet = setName(l.Set.ListenerSet)
			}
			out.Listeners = append(out.Listeners, ls)
		}
		rep.Gateways = append(rep.Gateways, out)
	}
	for _, ms := range g.Model.ListenerSets {
		if s := g.ListenerSetOf(ms.GroupKind(), ms.Namespace, ms.Name); s != nil {
			rep.ListenerSets = append(rep.ListenerSets, ListenerSet{Kind: otherSetKind(ms), Namespace: s.Namespace, Name: s.Name, Conditions: conv(topology.ListenerSetConditions(s))})
		}
	}
	refused := topology.StreamRefusals(g)
	var statusers []policy.RouteStatuser
	for _, k := range r.Registry.Kinds() {
		if rs, ok := k.(policy.RouteStatuser); ok {
			statusers = append(statusers, rs)
		}
	}
	for _, rt := range g.Routes {
		out := Route{Kind: rt.Kind, Namespace: rt.Meta.Namespace, Name: rt.Meta.Name, Parents: []RouteParent{}}
		for _, p := range rt.Parents {
			if _, managed := g.Controller(parentGateway(p), opt.ControllerName); !managed {
				continue // another controller's Gateway: not ours to report
			}
			if p.Unwatched {
				continue // its controller does not read routes of this kind
			}
			ctrl := parentController(g, p, opt.ControllerName)
			ref := parentRefOf(r.Registry, ctrl, rt, p)
			if cs, ok := ownRouteStatus(statusers, rt, p); ok {
				out.Parents = append(out.Parents, RouteParent{ParentRef: ref, ControllerName: ctrl, Conditions: cs, ResolvedNamespace: string(*p.Ref.Namespace)})
				continue
			}
			var conds []metav1.Condition
			v := r.Attach.Verdicts[rt][ctrl]
			if v != nil && slices.Contains(v.Unreported, p.Index) {
				continue // the controller writes no status for this parent
			}
			if v != nil {
				cp := p
				if q, ok := v.SharedStatus[p.Index]; ok && parentAt(rt, q) != nil {
					cp = parentAt(rt, q)
				}
				conds = verdictConditions(rt, cp, v)
			} else {
				conds = topology.RouteParentConditions(rt, p)
				if c, _ := r.Registry.Controller(ctrl); c.ExtraConditions && c.ProgrammedCondition != "" {
					conds = append(conds, programmedCondition(r, rt, p, c))
				}
				conds = append(conds, overRoute(r.Registry, ctrl, conds, ruleConditions(r, rt, ctrl, extra(ctrl)))...)
				if rf, ok := refused[rt]; ok && gatewayController(g, rf.Gateway, opt.ControllerName) == ctrl {
					conds = append(conds, metav1.Condition{Type: "Accepted", Status: metav1.ConditionFalse, Reason: rf.Reason, Message: rf.Message})
				}
			}
			out.Parents = append(out.Parents, RouteParent{ParentRef: ref, ControllerName: ctrl, Conditions: conv(mergeConds(conds)), ResolvedNamespace: string(*p.Ref.Namespace)})
		}
		rep.Routes = append(rep.Routes, out)
	}
	rep.Policies = append(rep.Policies, Policies(r, opt)...)
	rep.Objects = objectStatuses(r.Attach.Objects)
	rep.GatewayClasses = gatewayClassStatuses(g)
	return rep
}

// Policies are the policies' statuses of the report (Report.Policies),
// one for each of r.Policies.Policies, in that order: every controller's
// ancestors of each. Compute and lint (GWP309) read them from here.
func Policies(r *merge.Result, opt Options) []Policy {
	if opt.ControllerName == "" {
		opt.ControllerName = r.Registry.DefaultController().Name
	}
	out := make([]Policy, 0, len(r.Policies.Policies))
	idx := usesIndex(r)
	own := ownStatuses(r)
	for _, p := range r.Policies.Policies {
		if as, ok := own[p]; ok {
			out = append(out, kindStatus(r.Graph, p, as, opt))
			continue
		}
		st := policyStatus(r, p, idx[p], opt)
		if fa := r.Attach.ForeignAncestors[p]; fa != nil {
			st = withForeign(st, p, fa, r.Registry.AncestorReport(p.Kind))
		}
		out = append(out, st)
	}
	return out
}

// ownRouteStatus are the conditions a controller writes on the parent p
// of rt by rules of its own (policy.RouteStatuser: a controller that
// writes a route's status its own way), which replace the Gateway API's
// and the broken rules'.
func ownRouteStatus(statusers []policy.RouteStatuser, rt *topology.Route, p *topology.Parent) ([]Condition, bool) {
	for _, rs := range statusers {
		if cs, ok := rs.RouteConditions(rt, p); ok {
			return written(cs), true
		}
	}
	return nil, false
}

// objectStatuses are the verdicts attach keeps on the objects whose
// controller writes a status of their own (policy.Family.ObjectVerdicts),
// in object order.
func objectStatuses(vs []policy.ObjectVerdict) []Object {
	var out []Object
	for _, v := range vs {
		if len(v.Conditions) == 0 {
			continue // a verdict the controller writes nothing of (policy.ObjectVerdict.Dropped)
		}
		o := Object{Group: v.Object.Group, Kind: v.Object.Kind, Namespace: v.Object.Namespace, Name: v.Object.Name, Conditions: []Condition{}}
		for _, c := range v.Conditions {
			o.Conditions = append(o.Conditions, Condition(c))
		}
		out = append(out, o)
	}
	return out
}

// gatewayReplacedBy names the invalid policies that replace a Gateway's
// configuration: on the whole Gateway, and on a whole ListenerSet attached
// to it, both reported on the Gateway by a controller with conditions of
// its own (policy.Controller.ExtraConditions). Which policies are invalid
// already depends on the validation mode (Strict adds the errors only
// Envoy's validation finds), as render's replacements do.
func gatewayReplacedBy(r *merge.Result, gw *topology.Gateway) string {
	gp := r.Gateway(gw)
	if gp == nil {
		return ""
	}
	whys := []string{invalidAt(gp.Whole, merge.LevelGateway)}
	for _, lp := range gp.Listeners {
		if lp.Listener.Set != nil {
			whys = append(whys, invalidAt(lp.Own, merge.LevelListenerSet))
		}
	}
	return joinDistinct(whys)
}

// listenerReplacedBy names the invalid policies that replace a listener's
// configuration: its own (sectionName), and for an HTTP listener its whole
// ListenerSet's: a set-wide policy configures the virtual hosts of the
// set's HTTP listeners (merge.ListenerPoints), while each HTTPS listener's
// own route configuration takes only its own policies and the Gateway's.
func listenerReplacedBy(r *merge.Result, l *topology.Listener) string {
	lp := r.Listener(l)
	if lp == nil {
		return ""
	}
	whys := []string{invalidAt(lp.Own, merge.LevelListener)}
	if l.Protocol == "HTTP" {
		whys = append(whys, invalidAt(lp.Own, merge.LevelListenerSet))
	}
	return joinDistinct(whys)
}

// joinDistinct joins the non-empty, distinct strings in order.
func joinDistinct(ss []string) string {
	var out []string
	for _, s := range ss {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return strings.Join(out, "; ")
}

// invalidAt names the invalid policies of one level merging at points,
// "" when there are none.
func invalidAt(pts merge.Points, lvl merge.Level) string {
	var out []string
	seen := map[*policy.Policy]bool{}
	for _, pt := range pts {
		for _, c := range pt.Invalid {
			if c.Level == lvl && !seen[c.Policy] {
				seen[c.Policy] = true
				out = append(out, c.Policy.ID()+": "+messages(c.Policy.Invalid))
			}
		}
	}
	return strings.Join(out, "; ")
}

// replaced turns Accepted False with the reason when why is not "".
func replaced(cs []metav1.Condition, reason, why string) []metav1.Condition {
	if why == "" {
		return cs
	}
	out := slices.Clone(cs)
	for i := range out {
		if out[i].Type == "Accepted" {
			out[i].Status, out[i].Reason, out[i].Message = metav1.ConditionFalse, reason, why
		}
	}
	return out
}

// ownStatuses are the ancestor statuses of the kinds that decide their
// policies' status themselves (policy.Family.AncestorStatuses), as attach kept
// them: every policy of such a kind is in the result, with no ancestors
// when it reaches nothing.
func ownStatuses(r *merge.Result) map[*policy.Policy][]policy.AncestorStatus {
	return r.Attach.Ancestors
}

// kindStatus prints the ancestors a kind decided for p, each written by
// the controller of its Gateway's class, sorted and capped as the kind
// caps them.
func kindStatus(g *topology.Graph, p *policy.Policy, as []policy.AncestorStatus, opt Options) Policy {
	gk := p.Kind.GroupKind()
	out := Policy{Group: gk.Group, Kind: gk.Kind, Namespace: p.Obj.Namespace, Name: p.Obj.Name, Ancestors: []Ancestor{}}
	for _, a := range as {
		ref, ns := kindAncestorRef(a)
		out.Ancestors = append(out.Ancestors, Ancestor{AncestorRef: ref, ResolvedNamespace: ns, ControllerName: gatewayController(g, a.Gateway, opt.ControllerName), Conditions: conv(a.Conditions)})
	}
	slices.SortFunc(out.Ancestors, func(a, b Ancestor) int { return cmp.Compare(a.AncestorRef.String(), b.AncestorRef.String()) })
	if max := p.Kind.Spec().MaxAncestors; max > 0 && len(out.Ancestors) > max {
		out.Ancestors = out.Ancestors[:max]
	}
	return out
}

// withForeign replaces, in a policy's status that follows merge, the
// ancestors of each controller that decides the policy's status itself
// (attach.Result.ForeignAncestors, by controllerName) by those it
// decided; other controllers' stay. Sorted as kindStatus; past the
// kind's cap the list is cut as the policy's reporting controller cuts it
// when it writes (capAncestors): policyStatus left it whole, so no
// controller's entries were cut before they were replaced.
func withForeign(st Policy, p *policy.Policy, fa map[string][]policy.AncestorStatus, rep policy.AncestorReport) Policy {
	st.Ancestors = slices.DeleteFunc(st.Ancestors, func(a Ancestor) bool { _, decided := fa[a.ControllerName]; return decided })
	for _, ctrl := range slices.Sorted(maps.Keys(fa)) {
		for _, a := range fa[ctrl] {
			ref, ns := kindAncestorRef(a)
			st.Ancestors = append(st.Ancestors, Ancestor{AncestorRef: ref, ResolvedNamespace: ns, ControllerName: ctrl, Conditions: conv(a.Conditions)})
		}
	}
	slices.SortFunc(st.Ancestors, func(a, b Ancestor) int { return cmp.Compare(a.AncestorRef.String(), b.AncestorRef.String()) })
	st.Ancestors = capAncestors(st.Ancestors, p.Kind.Spec().MaxAncestors, rep)
	return st
}

// capAncestors keeps, of ancestors sorted as printed, the first max in
// the order the reporting controller writes them (rep.KeepByName), still
// sorted as printed; none is cut when max is 0.
func capAncestors(as []Ancestor, max int, rep policy.AncestorReport) []Ancestor {
	if max <= 0 || len(as) <= max {
		return as
	}
	if !rep.KeepByName {
		return as[:max]
	}
	byName := slices.Clone(as)
	slices.SortStableFunc(byName, func(a, b Ancestor) int { return cmp.Compare(writtenKey(a.AncestorRef), writtenKey(b.AncestorRef)) })
	type entry struct {
		ref  AncestorRef
		ctrl string
	}
	// counted, not marked: two equal entries, one inside the cut and one
	// past it, keep one, so never more than max remain
	kept := map[entry]int{}
	for _, a := range byName[:max] {
		kept[entry{a.AncestorRef, a.ControllerName}]++
	}
	return slices.DeleteFunc(as, func(a Ancestor) bool {
		e := entry{a.AncestorRef, a.ControllerName}
		if kept[e] == 0 {
			return true
		}
		kept[e]--
		return false
	})
}

// writtenKey is an ancestor as policy.AncestorReport.KeepByName orders it.
func writtenKey(a AncestorRef) string {
	return fmt.Sprintf("%s/%s/%s/%s/%d.%s", a.Group, a.Kind, a.Name, a.SectionName, a.Port, a.Namespace)
}

// mergeConds keeps one condition per type, the later one winning (rule
// conditions refine the topology's).
func mergeConds(cs []metav1.Condition) []metav1.Condition {
	var out []metav1.Condition
	for _, c := range cs {
		if i := slices.IndexFunc(out, func(o metav1.Condition) bool { return o.Type == c.Type }); i >= 0 {
			if c.Status == metav1.ConditionFalse || out[i].Status == metav1.ConditionTrue {
				out[i] = c
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

// programmedCondition is the route condition of type typ a controller
// adds to the standard ones (policy.Controller.ProgrammedCondition):
// whether every rule was translated as written —
// False/RouteRuleReplaced when a rule is replaced by a direct response
// (replacedBecause), False/RouteRuleDropped when the controller's rule
// check leaves it out (topology.RuleProblem), else True/Programmed. A
// rule's problem is the one of its copy served under p (a delegated
// child's may come from that parent: topology.Graph.ProblemUnder), the
// one that holds on p's Gateway.
func programmedCondition(r *merge.Result, rt *topology.Route, p *topology.Parent, c policy.Controller) metav1.Condition {
	typ := c.ProgrammedCondition
	var msgs []string
	reason := ""
	for i, rule := range rt.Rules {
		problem := r.Graph.ProblemUnder(rule, p)
		switch why := replacedBecause(r, rule, problem, c); {
		case why != "":
			msgs = append(msgs, fmt.Sprintf("Replaced Rule (%d): %s", i, why))
			reason = cmp.Or(reason, "RouteRuleReplaced")
		case problem != nil && problem.Dropped:
			msgs = append(msgs, fmt.Sprintf("Dropped Rule (%d): %s", i, problem.Message))
			reason = cmp.Or(reason, "RouteRuleDropped")
		}
	}
	if len(msgs) > 0 {
		return metav1.Condition{Type: typ, Status: metav1.ConditionFalse, Reason: reason, Message: strings.Join(msgs, "; ")}
	}
	return metav1.Condition{Type: typ, Status: metav1.ConditionTrue, Reason: "Programmed", Message: "Successfully programmed Route"}
}

// replacedBecause says why a rule is replaced under controller c, "" when
// it is not: a rule its controller cannot translate (topology.RuleProblem,
// found by the family's rule check: policy.Family.CheckRule), an invalid
// policy among the rule's own candidates, a reference broken by a kind
// that has no route conditions of its own (policy.Family.BrokenReasons)
// or, under a controller to which such a kind is a policy not found
// (policy.Controller.UnknownFilterReplaces), one it does not resolve, or
// nothing giving it an action, when the controller replaces such a rule
// (policy.Controller.NoActionReason).
func replacedBecause(r *merge.Result, rule *topology.Rule, problem *topology.RuleProblem, c policy.Controller) string {
	noAction := c.NoActionReason
	if problem != nil && !problem.Dropped {
		return problem.Message
	}
	if rp := r.Rule(rule); rp != nil && !rp.Delegating {
		for _, path := range rp.Served() { // a delegated rule: any parent path's copy
			for _, pt := range path.Own {
				for _, c := range pt.Invalid {
					if !ownReasons(r.Registry, c.Policy.Kind) {
						return c.Policy.ID() + ": " + messages(c.Policy.Invalid)
					}
				}
			}
		}
	}
	for _, b := range r.Attach.BrokenUnder(rule, c.Name) {
		if b.Kind != nil && !ownReasons(r.Registry, b.Kind) || b.Kind == nil && c.UnknownFilterReplaces {
			return b.Reason
		}
	}
	if noAction != "" && r.NoAction(rule) {
		return noAction
	}
	return ""
}

// ownReasons reports whether a kind's controller writes route conditions
// of its own for the rules it breaks (policy.Family.BrokenReasons).
func ownReasons(reg *policy.Registry, k policy.Kind) bool {
	f := reg.FamilyOf(k)
	return f != nil && f.BrokenReasons != nil
}

// ruleConditions reports rules broken by their policy references: some
// broken → PartiallyInvalid, all → Accepted False, and ResolvedRefs False
// where a reference did not resolve. The reasons are the broken kind's
// controller's (policy.Family.BrokenReasons); for a kind the route's
// controller does not know, that controller's
// (policy.Controller.UnknownFilterReasons), else UnsupportedValue and
// InvalidKind. Under a controller with conditions of its own
// (policy.Controller.ExtraConditions: ownConditions) a
// kind without reasons of its own replaces the rule instead
// (programmedCondition).
func ruleConditions(r *merge.Result, rt *topology.Route, ctrl string, ownConditions bool) []metav1.Condition {
	broken := 0
	var msgs, resolvedMsgs []string
	reason, resolved := "", ""
	c, _ := r.Registry.Controller(ctrl)
	for _, rule := range rt.Rules {
		b := r.Attach.BrokenUnder(rule, ctrl)
		if ownConditions {
			// what the controller reports as a replaced rule instead
			// (replacedBecause)
			b = slices.DeleteFunc(slices.Clone(b), func(x attach.Broken) bool {
				return x.Kind != nil && !ownReasons(r.Registry, x.Kind) || x.Kind == nil && c.UnknownFilterReplaces
			})
		}
		if len(b) == 0 {
			continue
		}
		broken++
		first := reportedBreak(r.Registry, b, ctrl)
		msg := fmt.Sprintf("rule %s: %s", rule.Section(), first.Reason)
		msgs = append(msgs, msg)
		why, refs := brokenReasons(r.Registry, first, ctrl)
		if reason == "" {
			reason = why
		}
		if refs != "" {
			if resolved == "" {
				resolved = refs
			}
			resolvedMsgs = append(resolvedMsgs, msg)
		}
	}
	clears := false
	if c, ok := r.Registry.Controller(ctrl); ok && c.ClearsPartiallyInvalid {
		clears = writtenPartiallyInvalid(rt.Src)
	}
	if broken == 0 {
		if clears {
			return []metav1.Condition{{Type: "PartiallyInvalid", Status: metav1.ConditionFalse, Reason: "AllRulesValid", Message: "No route rule is rejected by a route policy"}}
		}
		return nil
	}
	msg := strings.Join(msgs, "; ")
	var out []metav1.Condition
	if broken == len(rt.Rules) {
		out = append(out, metav1.Condition{Type: "Accepted", Status: metav1.ConditionFalse, Reason: reason, Message: msg})
		if clears {
			out = append(out, metav1.Condition{Type: "PartiallyInvalid", Status: metav1.ConditionFalse, Reason: "AllRulesInvalid", Message: msg})
		}
	} else {
		out = append(out, metav1.Condition{Type: "PartiallyInvalid", Status: metav1.ConditionTrue, Reason: reason, Message: msg})
	}
	if resolved != "" {
		out = append(out, metav1.Condition{Type: "ResolvedRefs", Status: metav1.ConditionFalse, Reason: resolved, Message: strings.Join(resolvedMsgs, "; ")})
	}
	return out
}

// writtenPartiallyInvalid reports whether a route's status as written in
// the input (kubectl output carries it) has a PartiallyInvalid condition
// on any of its parents, whatever its status.
func writtenPartiallyInvalid(o *manifest.Object) bool {
	if o == nil {
		return false
	}
	for i := 0; o.Has(fmt.Sprintf("status.parents[%d]", i)); i++ {
		for j := 0; o.Has(fmt.Sprintf("status.parents[%d].conditions[%d]", i, j)); j++ {
			if t, _ := o.Scalar(fmt.Sprintf("status.parents[%d].conditions[%d].type", i, j)); t == "PartiallyInvalid" {
				return true
			}
		}
	}
	return false
}

// parentController is the controller that writes a route's status for one
// parent: the controllerName of the parent Gateway's class when the input
// has the class (each Gateway's routes are its own controller's to
// report), else
// the configured one.
func parentController(g *topology.Graph, p *topology.Parent, def string) string {
	if p == nil {
		return def
	}
	return gatewayController(g, parentGateway(p), def)
}

// parentGateway is the Gateway whose controller reports a parent: the
// one it attached to or, for a ListenerSet that Gateway declined, that
// Gateway.
func parentGateway(p *topology.Parent) *topology.Gateway {
	if p.Gateway == nil {
		return p.Declined
	}
	return p.Gateway
}

// otherSetKind is a listener set's kind when it is not the v1 ListenerSet,
// "" for the v1 kind (whose reports name no kind, as before there was
// another).
func otherSetKind(s *model.ListenerSet) string {
	if gk := s.GroupKind(); gk != model.ListenerSetKind {
		return gk.Kind
	}
	return ""
}

// setName names a listener set in a listener's report: ns/name, with its
// kind in front when it is not the v1 ListenerSet.
func setName(s *model.ListenerSet) string {
	if k := otherSetKind(s); k != "" {
		return k + "/" + s.Namespace + "/" + s.Name
	}
	return s.Namespace + "/" + s.Name
}

// ancestorController is the controller of the Gateway an ancestor is (or,
// for a ListenerSet, is attached to), def when the input does not tell.
func ancestorController(g *topology.Graph, a AncestorRef, def string) string {
	switch {
	case a.Kind == "Gateway":
		return gatewayController(g, g.Gateway(a.Namespace, a.Name), def)
	case topology.IsListenerSetKind(a.Group, a.Kind):
		if set := g.ListenerSetOf(model.GroupKind{Group: a.Group, Kind: a.Kind}, a.Namespace, a.Name); set != nil {
			return gatewayController(g, set.Parent, def)
		}
	}
	return def
}

// gatewayController is the controller of gw (topology.Graph.Controller),
// def when the input does not tell.
func gatewayController(g *topology.Graph, gw *topology.Gateway, def string) string {
	if name, _ := g.Controller(gw, def); name != "" {
		return name
	}
	return def
}

// overRoute are the broken rules' conditions rc that apply over the
// route's own conds: all of them, or, under a controller that replaces
// only a True condition (policy.Controller.RuleConditionsOverTrue), those
// whose type the route does not already have False.
func overRoute(reg *policy.Registry, ctrl string, conds, rc []metav1.Condition) []metav1.Condition {
	if c, ok := reg.Controller(ctrl); !ok || !c.RuleConditionsOverTrue {
		return rc
	}
	return slices.DeleteFunc(rc, func(x metav1.Condition) bool {
		return slices.ContainsFunc(conds, func(o metav1.Condition) bool { return o.Type == x.Type && o.Status == metav1.ConditionFalse })
	})
}

// reportedBreak is the problem of a broken rule whose conditions the
// route's controller ctrl writes: the first of the lowest rank
// (policy.Controller.BrokenRank), else the first found.
func reportedBreak(reg *policy.Registry, b []attach.Broken, ctrl string) attach.Broken {
	c, ok := reg.Controller(ctrl)
	if !ok || c.BrokenRank == nil {
		return b[0]
	}
	best, rank := 0, c.BrokenRank(policy.BrokenRule{Kind: b[0].Kind, Code: b[0].Code, Reason: b[0].Reason})
	for i := 1; i < len(b); i++ {
		if n := c.BrokenRank(policy.BrokenRule{Kind: b[i].Kind, Code: b[i].Code, Reason: b[i].Reason}); n < rank {
			best, rank = i, n
		}
	}
	return b[best]
}

// brokenReasons are the reasons the broken kind's controller writes for b,
// or, for a kind gwpol does not know, those the route's controller ctrl
// gives an unknown ExtensionRef.
func brokenReasons(reg *policy.Registry, b attach.Broken, ctrl string) (reason, resolvedRefs string) {
	if f := reg.FamilyOf(b.Kind); f != nil && f.BrokenReasons != nil {
		return f.BrokenReasons(b.Code, b.Field)
	}
	if c, ok := reg.Controller(ctrl); ok && b.Kind == nil && c.UnknownFilterReasons != nil {
		return c.UnknownFilterReasons()
	}
	return "UnsupportedValue", "InvalidKind"
}

// usage is how a policy fared at one merge point under one ancestor.
type usage int

const (
	// usedPending: only a backendRef filter references the policy, which
	// its controller applies per backend (when the kind does:
	// policy.KindSpec.BackendRefFilter) while a kind reporting the
	// Attached condition (policy.KindSpec.Attached) reports only its
	// acceptance (Attached False, Pending); any other use at the same
	// ancestor says more.
	usedPending usage = iota
	usedAttached
	usedMerged
	usedOverridden
)

// refCount classifies a policy at one point for the Attached condition of
// the kinds that report it (policy.KindSpec.Attached, whose declaration
// says whose counting it is): listed under every field of the merged
// result → Attached, some → Merged, none → Overridden. No origins at all →
// Attached. It reads the policies' merge as the controller reports it
// (merge.Point.Reported), where a field a route rule's own value took
// does not count as lost.
func refCount(pt *merge.Point, p *policy.Policy) usage {
	if len(pt.Reported) == 0 {
		return usedAttached
	}
	n := 0
	for _, f := range pt.Reported {
		for _, c := range f.Contributors {
			if c.Policy == p {
				n++
				break
			}
		}
	}
	switch {
	case n == len(pt.Reported):
		return usedAttached
	case n > 0:
		return usedMerged
	}
	return usedOverridden
}

// policyStatus builds one policy's ancestors and conditions.
func policyStatus(r *merge.Result, p *policy.Policy, us []use, opt Options) Policy {
	gk := p.Kind.GroupKind()
	out := Policy{Group: gk.Group, Kind: gk.Kind, Namespace: p.Obj.Namespace, Name: p.Obj.Name, Ancestors: []Ancestor{}}
	if os, ok := p.Kind.(policy.ObjectStatuser); ok {
		for _, c := range os.ObjectConditions(p) {
			out.Conditions = append(out.Conditions, Condition(c))
		}
	}
	worst := map[AncestorRef]usage{}
	// winner is, per ancestor where the policy is used only as the loser
	// of a backend one policy wins, the policy that won it.
	winner := map[AncestorRef]*policy.Policy{}
	usedHere := map[AncestorRef]bool{}
	for _, u := range us {
		if cur, ok := worst[u.anc]; !ok || u.use > cur {
			worst[u.anc] = u.use
		}
		if u.by != nil && winner[u.anc] == nil {
			winner[u.anc] = u.by
		}
		if u.use != usedOverridden {
			usedHere[u.anc] = true
		}
	}
	if len(worst) == 0 {
		if r.Attach.Resolved[p] > 0 || len(r.Attach.Unresolved[p]) == 0 {
			return out // attached to targets with no ancestor, or not referenced at all
		}
		if !summaryInView(r, p, opt.ControllerName) {
			return out
		}
		msg := strings.Join(r.Attach.Unresolved[p], "; ")
		conds := []Condition{{Type: "Accepted", Status: "False", Reason: "TargetNotFound", Message: msg}}
		if p.Kind.Spec().Attached {
			conds = append(conds, Condition{Type: "Attached", Status: "False", Reason: "TargetNotFound", Message: msg})
		}
		out.Ancestors = append(out.Ancestors, Ancestor{AncestorRef: Summary(r, opt.ControllerName), ControllerName: opt.ControllerName, Conditions: conds})
		return out
	}
	accepted := acceptedCondition(p)
	cw, own := p.Kind.(policy.ConditionWriter)
	for anc, u := range worst {
		if own {
			ctrl := reportingController(r, anc, opt.ControllerName)
			conds := cw.PolicyConditions(p, u == usedOverridden)
			if judged := p.Judgements[ctrl]; judged.Conditions != nil {
				conds = judgedConditions(judged.Conditions, u == usedOverridden)
				if by := winner[anc]; by != nil && !usedHere[anc] && judged.Conflicted != nil {
					conds = judged.Conflicted(by)
				}
			}
			out.Ancestors = append(out.Ancestors, Ancestor{AncestorRef: anc, ControllerName: ctrl, Conditions: written(conds)})
			continue
		}
		conds := []Condition{accepted}
		if p.Kind.Spec().Attached {
			conds = append(conds, attachedCondition(p, u))
		}
		out.Ancestors = append(out.Ancestors, Ancestor{AncestorRef: anc, ControllerName: ancestorController(r.Graph, anc, opt.ControllerName), Conditions: conds})
	}
	slices.SortFunc(out.Ancestors, func(a, b Ancestor) int { return cmp.Compare(a.AncestorRef.String(), b.AncestorRef.String()) })
	if r.Attach.ForeignAncestors[p] == nil { // else withForeign cuts the list it completes
		out.Ancestors = capAncestors(out.Ancestors, p.Kind.Spec().MaxAncestors, r.Registry.AncestorReport(p.Kind))
	}
	return out
}

// reportingController is the controller that reports a policy against
// anc: its Gateway's (or ListenerSet's Gateway's), or, for a policy that
// calls a backend (a BackendTLSPolicy's ancestor), that policy's family's.
func reportingController(r *merge.Result, anc AncestorRef, def string) string {
	if anc.Kind == "Gateway" || topology.IsListenerSetKind(anc.Group, anc.Kind) {
		return ancestorController(r.Graph, anc, def)
	}
	if k, ok := r.Registry.Lookup(model.GroupKind{Group: anc.Group, Kind: anc.Kind}); ok {
		if f := r.Registry.FamilyOf(k); f != nil && f.Controller != nil {
			return f.Controller.Name
		}
	}
	return def
}

// judgedConditions are a controller's own verdict on a policy
// (policy.Family.ForeignJudges); where the policy lost its target to
// an earlier one (lost), Accepted says Conflicted, whatever else is wrong.
func judgedConditions(judged []policy.Condition, lost bool) []policy.Condition {
	out := slices.Clone(judged)
	if !lost {
		return out
	}
	conflicted := policy.Condition{Type: "Accepted", Status: "False", Reason: "Conflicted", Message: "Policy conflicts with an earlier policy of its kind on the same target."}
	if j := slices.IndexFunc(out, func(c policy.Condition) bool { return c.Type == "Accepted" }); j >= 0 {
		out[j] = conflicted
	} else {
		out = append(out, conflicted)
	}
	return out
}

func written(cs []policy.Condition) []Condition {
	out := make([]Condition, len(cs))
	for i, c := range cs {
		out[i] = Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
	}
	return out
}

func acceptedCondition(p *policy.Policy) Condition {
	switch {
	case !p.IsValid():
		return Condition{Type: "Accepted", Status: "False", Reason: "Invalid", Message: messages(p.Invalid)}
	case len(p.Warnings) > 0:
		return Condition{Type: "Accepted", Status: "True", Reason: "PartiallyValid", Message: messages(p.Warnings)}
	}
	return Condition{Type: "Accepted", Status: "True", Reason: "Valid", Message: "Policy accepted"}
}

func attachedCondition(p *policy.Policy, u usage) Condition {
	switch {
	case !p.IsValid():
		return Condition{Type: "Attached", Status: "False", Reason: "Pending", Message: "Policy is not attached: it is not accepted"}
	case u == usedPending:
		return Condition{Type: "Attached", Status: "False", Reason: "Pending", Message: "Policy is not attached: only backendRef filters reference it, which the controller applies per backend without reporting an attachment"}
	case u == usedOverridden:
		return Condition{Type: "Attached", Status: "False", Reason: "Overridden", Message: "Overridden due to conflict with higher priority policy in target(s)"}
	case u == usedMerged:
		return Condition{Type: "Attached", Status: "True", Reason: "Merged", Message: "Merged with other policies in target(s) and attached"}
	}
	if p.NoEffect() {
		// The controller says Attached; the message says what that means.
		return Condition{Type: "Attached", Status: "True", Reason: "Attached", Message: "Attached to all targets, but it sets no field that takes effect: no effect"}
	}
	return Condition{Type: "Attached", Status: "True", Reason: "Attached", Message: "Attached to all targets"}
}

func messages(ds []diag.Diagnostic) string {
	var ms []string
	for _, d := range ds {
		ms = append(ms, d.Message)
	}
	return strings.Join(ms, "; ")
}

// use is one (ancestor, usage) pair for a policy.
type use struct {
	anc AncestorRef
	use usage
	// by is the policy that took the target, where the use is
	// usedOverridden on a backend one policy wins.
	by *policy.Policy
}

// parentAt is rt's parent of parentRef index i, nil when there is none.
func parentAt(rt *topology.Route, i int) *topology.Parent {
	for _, p := range rt.Parents {
		if p.Index == i {
			return p
		}
	}
	return nil
}

// parentRefOf is the reference a route's status names parent p by, as
// its controller writes it: group and kind defaulted, as an API server
// admits them, the namespace too unless the controller writes the
// parentRef as written (policy.Controller.ParentRefsAsWritten) and the
// route gives none.
func parentRefOf(reg *policy.Registry, ctrl string, rt *topology.Route, p *topology.Parent) ParentRef {
	ref := ParentRef{Group: string(*p.Ref.Group), Kind: string(*p.Ref.Kind), Namespace: string(*p.Ref.Namespace), Name: string(p.Ref.Name)}
	if c, _ := reg.Controller(ctrl); c.ParentRefsAsWritten && p.Index < len(rt.ParentRefs) {
		if ns := rt.ParentRefs[p.Index].Namespace; ns == nil || *ns == "" {
			ref.Namespace = ""
		}
	}
	if p.Ref.SectionName != nil {
		ref.SectionName = string(*p.Ref.SectionName)
	}
	if p.Ref.Port != nil {
		ref.Port = int32(*p.Ref.Port)
	}
	return ref
}

func ancestorOf(k model.Key) AncestorRef {
	return AncestorRef{Group: k.Group, Kind: k.Kind, Namespace: k.Namespace, Name: k.Name}
}

// kindAncestorRef is the reference a kind decided, as its controller
// writes it — without a namespace where it was written without one
// (policy.AncestorStatus.Unqualified) —, and the namespace it resolves to.
func kindAncestorRef(a policy.AncestorStatus) (AncestorRef, string) {
	ref := ancestorOf(a.Ancestor)
	ref.SectionName, ref.Port = a.Section, a.Port
	if a.Unqualified {
		ref.Namespace = ""
	}
	return ref, a.Ancestor.Namespace
}

// usesIndex lists, for every policy, each merge point that holds it (valid
// or not) with the ancestors status is reported against, as the policy's
// controller reports them (policy.Registry.AncestorReport: the owner of
// the listener through which each Envoy resource is reached, or the
// Gateway). One pass over all points; no per-policy scans.
func usesIndex(r *merge.Result) map[*policy.Policy][]use {
	idx := map[*policy.Policy][]use{}
	reports := map[policy.Kind]policy.AncestorReport{}
	reportOf := func(k policy.Kind) policy.AncestorReport {
		rep, ok := reports[k]
		if !ok {
			rep = r.Registry.AncestorReport(k)
			reports[k] = rep
		}
		return rep
	}
	// takes reports whether a route's point pt takes part where the
	// route is served through its ancestor a (merge.Result.LeftOutOn: a
	// route served by Gateways of several controllers is reported, for
	// each family's policies its targetRefs attach, against its own
	// controller's Gateways only).
	all := func(AncestorRef, *merge.Point) bool { return true }
	takes := all
	if r.Attach.Mixed() {
		takes = func(a AncestorRef, pt *merge.Point) bool { return !r.LeftOutOn(pt, ancestorGateway(r.Graph, a)) }
	}
	record := func(pts merge.Points, ancestors *ancestorsBy, keep func(AncestorRef, *merge.Point) bool, backend ...policy.TargetKey) {
		for _, pt := range pts {
			for _, c := range pt.Invalid {
				for _, a := range ancestors.of(reportOf(c.Policy.Kind)) {
					if keep(a, pt) {
						idx[c.Policy] = append(idx[c.Policy], use{anc: a, use: usedAttached})
					}
				}
			}
			for _, c := range pt.Candidates {
				u := refCount(pt, c.Policy)
				var by *policy.Policy
				if len(backend) > 0 && pt.Kind.Spec().OneWins {
					// one policy wins the backend target: the verdict
					// merge recorded says which lost (Conflicted)
					u = usedAttached
					if rj := r.Attach.Rejection(c.Policy, backend[0]); rj != nil {
						u, by = usedOverridden, rj.By
					}
				}
				for _, a := range ancestors.of(reportOf(c.Policy.Kind)) {
					if !keep(a, pt) {
						continue
					}
					au, aby := u, by
					if len(backend) > 0 && pt.Kind.Spec().OneWins {
						// a Gateway whose controller ranks the backend's
						// policies otherwise (merge.Result.WinnerOn)
						if w, ok := r.WinnerOn(pt, ancestorGateway(r.Graph, a)); ok {
							au, aby = usedAttached, nil
							if w != c.Policy {
								au, aby = usedOverridden, w
							}
						}
					}
					idx[c.Policy] = append(idx[c.Policy], use{anc: a, use: au, by: aby})
				}
			}
		}
	}
	for _, gp := range r.Gateways {
		record(gp.Whole, newAncestorsBy(func(rep policy.AncestorReport) []AncestorRef { return gatewayAncestors(gp.Gateway, rep) }), all)
		for _, lp := range gp.Listeners {
			record(lp.Own, newAncestorsBy(func(rep policy.AncestorReport) []AncestorRef {
				return []AncestorRef{listenerAncestor(lp.Listener, rep)}
			}), all)
		}
	}
	var users map[model.Key][]AncestorRef
	for _, bp := range r.Backends {
		for _, port := range backendPorts(bp) {
			for _, pt := range bp.ForPort(port) {
				// a policy on a backend reports against the backend
				// itself, or against the Gateways whose routes use it
				anc := []AncestorRef{ancestorOf(bp.Key)}
				if pt.Kind.Spec().GatewayAncestors {
					if users == nil {
						users = backendUsers(r.Graph)
						addBackendCallers(users, r)
					}
					anc = users[bp.Key]
				}
				// a Gateway whose controller does not read the kind
				// builds the backend's clusters without it and reports
				// nothing of it (merge.Result.BackendOn)
				record(merge.Points{pt}, fixedAncestors(anc), takes, policy.TargetKey{Backend: bp.Key, Port: port})
			}
		}
	}
	for p, rts := range r.Attach.OnBackendRef {
		for _, rt := range rts {
			for _, a := range RouteAncestors(rt, reportOf(p.Kind)) {
				idx[p] = append(idx[p], use{anc: a, use: usedPending})
			}
		}
	}
	for _, rp := range r.Routes {
		anc := newAncestorsBy(func(rep policy.AncestorReport) []AncestorRef { return RouteAncestors(rp.Route, rep) })
		for _, rule := range rp.Rules {
			if rule.Delegating { // a delegating rule is no Envoy resource
				continue
			}
			if len(rule.Paths) == 0 {
				record(rule.Own, anc, takes)
				continue
			}
			// A delegated rule: each parent path's copy with the policies
			// its own parents pass down, reported against the listeners
			// that path serves it on where the controller reports so
			// (policy.AncestorReport.PerDelegationPath).
			for _, path := range rule.Paths {
				record(path.Own, newAncestorsBy(func(rep policy.AncestorReport) []AncestorRef {
					if !rep.PerDelegationPath {
						return anc.of(rep)
					}
					return pathAncestors(rp.Route, path, anc.of(rep), rep)
				}), takes)
			}
		}
	}
	return idx
}

// ancestorGateway is the Gateway of a route's ancestor: the Gateway
// itself, or a ListenerSet's; nil for any other.
func ancestorGateway(g *topology.Graph, a AncestorRef) *topology.Gateway {
	switch {
	case a.Kind == "Gateway":
		return g.Gateway(a.Namespace, a.Name)
	case topology.IsListenerSetKind(a.Group, a.Kind):
		if s := g.ListenerSetOf(model.GroupKind{Group: a.Group, Kind: a.Kind}, a.Namespace, a.Name); s != nil {
			return s.Parent
		}
	}
	return nil
}

// ancestorsBy are the ancestors of one merge point as a way of reporting
// them gives them, worked out again only when a policy of the point asks
// for another way than the last (nearly always there is one).
type ancestorsBy struct {
	build func(policy.AncestorReport) []AncestorRef
	done  bool
	rep   policy.AncestorReport
	as    []AncestorRef
}

func newAncestorsBy(build func(policy.AncestorReport) []AncestorRef) *ancestorsBy {
	return &ancestorsBy{build: build}
}

// fixedAncestors are ancestors that do not depend on the way of reporting.
func fixedAncestors(as []AncestorRef) *ancestorsBy {
	return &ancestorsBy{done: true, as: as, build: func(policy.AncestorReport) []AncestorRef { return as }}
}

func (a *ancestorsBy) of(rep policy.AncestorReport) []AncestorRef {
	if !a.done || a.rep != rep {
		a.as, a.rep, a.done = a.build(rep), rep, true
	}
	return a.as
}

// listenerAncestor is what a policy on l's resources is reported against:
// l's owner (policy.AncestorReport.ListenerOwners), else its Gateway.
func listenerAncestor(l *topology.Listener, rep policy.AncestorReport) AncestorRef {
	if rep.ListenerOwners {
		return ancestorOf(l.Ancestor())
	}
	return ancestorOf(l.Gateway.Key())
}

// parentAncestor is the ancestor of a route's parentRef p through l: l's
// (listenerAncestor), with p's sectionName where the controller keeps it
// (policy.AncestorReport.SectionName).
func parentAncestor(p *topology.Parent, l *topology.Listener, rep policy.AncestorReport) AncestorRef {
	a := listenerAncestor(l, rep)
	if rep.SectionName && p.Ref.SectionName != nil {
		a.SectionName = string(*p.Ref.SectionName)
	}
	return a
}

// pathAncestors are the ancestors of a delegated route reached along one
// parent path: those of its parentRefs through the path's nearest parent
// rule (its own parentRefs for a path without parents); all of the
// route's when none matches.
func pathAncestors(rt *topology.Route, path *merge.RulePath, all []AncestorRef, rep policy.AncestorReport) []AncestorRef {
	var out []AncestorRef
	for _, p := range rt.Parents {
		if len(path.Via) == 0 && p.Delegation != nil || len(path.Via) > 0 && (p.Delegation == nil || p.Delegation.Rule != path.Via[0]) {
			continue
		}
		for _, l := range p.Listeners {
			if a := parentAncestor(p, l, rep); !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// backendPorts are the targets of a backend's merges: the whole object
// (""), and each port a policy names, in port-name order.
func backendPorts(bp *merge.BackendPoints) []string {
	return append([]string{""}, slices.Sorted(maps.Keys(bp.Ports))...)
}

// backendUsers indexes, per backend object, the Gateways whose attached
// routes reference it, in graph order. One pass over the routes.
func backendUsers(g *topology.Graph) map[model.Key][]AncestorRef {
	out := map[model.Key][]AncestorRef{}
	for k, gws := range g.BackendGateways() {
		for _, gw := range gws {
			out[k] = append(out[k], ancestorOf(gw.Key()))
		}
	}
	return out
}

// addBackendCallers adds, per backend object, the policies that call it
// (policy.BackendCaller), after the Gateways: those with a target found,
// which their controller translates (a controller may report a
// BackendTLSPolicy against a calling policy only while it translates
// that policy for a target). One pass over the policies.
func addBackendCallers(users map[model.Key][]AncestorRef, r *merge.Result) {
	for _, p := range r.Policies.Policies {
		bc, ok := p.Kind.(policy.BackendCaller)
		if !ok || r.Attach.Resolved[p] == 0 {
			continue
		}
		a := ancestorOf(model.KeyOf(p.Obj))
		for _, k := range bc.CalledBackends(p) {
			if !slices.Contains(users[k], a) {
				users[k] = append(users[k], a)
			}
		}
	}
}

// gatewayAncestors: a whole-Gateway policy configures the Gateway's own
// listeners and those of every ListenerSet attached to it, and reports
// against each owner (policy.AncestorReport.ListenerOwners), else against
// the Gateway.
func gatewayAncestors(gw *topology.Gateway, rep policy.AncestorReport) []AncestorRef {
	if !rep.ListenerOwners {
		return []AncestorRef{ancestorOf(gw.Key())}
	}
	var out []AncestorRef
	own := false
	for _, l := range gw.Listeners {
		a := ancestorOf(l.Ancestor())
		own = own || l.Set == nil
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	if !own {
		out = append([]AncestorRef{ancestorOf(gw.Key())}, out...)
	}
	return out
}

// RouteAncestors are the Gateways (or ListenerSets) a route is attached
// through, as rep reports them (policy.AncestorReport).
func RouteAncestors(rt *topology.Route, rep policy.AncestorReport) []AncestorRef {
	var out []AncestorRef
	for _, p := range rt.Parents {
		for _, l := range p.Listeners {
			if a := parentAncestor(p, l, rep); !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// AncestorCounts is, per policy, the number of distinct ancestors it
// reaches before the kind's cap.
func AncestorCounts(r *merge.Result) map[*policy.Policy]int {
	out := map[*policy.Policy]int{}
	for p, us := range usesIndex(r) {
		seen := map[AncestorRef]bool{}
		for _, u := range us {
			seen[u.anc] = true
		}
		out[p] = len(seen)
	}
	return out
}
