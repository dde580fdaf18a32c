package policy

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sync"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
)

// Family is one controller family as internal/families lists it
// (Registry.AddFamilies): what the family declares beside its kinds — its
// controller, its render target, its deployment settings — and the steps
// of its own the pipeline runs for it, which generic code calls without
// knowing whose they are. A family package exports its Family; one whose
// kinds carry per-compile data (WSO2's policy definitions) builds it per
// compile.
type Family struct {
	// Name is the family's name in messages ("kgateway").
	Name string
	// Controller is the controller the family emulates, nil when gwpol
	// reports no status as a controller of its own (WSO2's operator).
	Controller *Controller
	// Target is the render target of the controller's data plane, nil
	// when it has none of its own.
	Target *Target
	// Settings are the controller's deployment settings.
	Settings []Setting
	// GatewayClass is the verdict of the controller the family emulates
	// on a GatewayClass that names it, under cfg
	// (topology.Options.Classes): the conditions it writes there, and
	// whether it refuses the class (then nothing reconciles the class's
	// Gateways). Nil, or a nil verdict: the controller writes nothing of
	// its own there, and the class's Gateways are its.
	GatewayClass func(gc *model.GatewayClass, cfg Config) *topology.ClassVerdict
	// ListLimits are the maxItems of the lists of the family's kinds (and
	// of the other kinds of its API group it reads), from its CRDs where
	// gwpol does not ship them: the model refuses an object with a longer
	// list, as the API server would (model.Options.ListLimits).
	ListLimits map[model.GroupKind][]manifest.ListBound
	// Enums are the enums and union discriminators of those CRDs the
	// family's code does not check itself: the model refuses an object
	// with another value, as the API server would (model.Options.Enums).
	Enums map[model.GroupKind][]model.FieldEnum
	// Delegation is the controller's route delegation
	// (topology.DelegationRules): which backendRefs of an HTTPRoute rule
	// hand its traffic to other HTTPRoutes and which routes they select,
	// which rules of a child a parent match keeps and with which matches,
	// which children it refuses, and the status of a delegation that
	// reaches no child (one that selects nothing, or closes a cycle).
	// Topology applies the default controller's family's to every
	// HTTPRoute, else the first registered family's that declares them
	// (Registry.Delegation), as it reads the default's keys; merge folds
	// the parents' policies into each flattened child rule by the kinds'
	// policy.Inheritor. Unset (Select nil): the controller delegates
	// nothing.
	Delegation topology.DelegationRules
	// Wildcards are, by kind, the reference name the controller reads as
	// every object of that kind in the reference's namespace rather than
	// as one object's name (a backendRef delegating to every HTTPRoute of
	// a namespace): the model holds such a reference to no name rule
	// (model.Options.Wildcards). Nil: the controller has none.
	Wildcards map[model.GroupKind]string
	// CheckDeployment reports what the controller refuses in its own
	// deployment settings, whichever policies use them (HAPTIC's trusted
	// WAF catalogs); pos positions a config key (nil: unpositioned). Nil:
	// nothing to check.
	CheckDeployment func(m *model.Model, cfg Config, pos func(path string) diag.Position) []diag.Diagnostic
	// Deployment are what the controller's deployment settings change in
	// the generic stages (DeploymentTraits); each unset trait changes
	// nothing.
	Deployment DeploymentTraits
	// RuleNotes are, by rule name (diag.Rule.Name), what the family's controller does of
	// its own about a finding a generic stage makes (a key it reads, a
	// port it reserves), one or more sentences naming it: lint appends
	// them to the rule's documentation (lint.Rules), so the catalogue
	// says it while the stage's rule names no controller.
	RuleNotes map[string]string
	// CheckConfig refuses deployment settings of the family's that are
	// malformed (not of the shape the family reads): the configuration
	// is then an input error, since a setting half read would give wrong
	// answers (WSO2's system policies). Nil: nothing to refuse.
	CheckConfig func(cfg Config) error
	// Finish runs once attach and merge are done, for what the controller
	// adds on its own to what the manifests say (the WSO2 gateway
	// operator's system policies and the policies it generates from route
	// filters, and the routes it rejects whole): it reads the attachments,
	// may mark rules broken (Attachments.Break: the views ask merge for a
	// rule's fixed status when they show it) and returns its findings.
	// Nil: no such step.
	Finish func(in FinishInput) []diag.Diagnostic
	// SkippedChecks name the family's checks that could not run for lack
	// of an input beyond the manifests (WSO2's policy definitions and
	// engine build), for lint's summary; none when the policies and
	// config use nothing those checks read. Nil: the family has no such
	// checks.
	SkippedChecks func(ps []*Policy, cfg Config) []string
	// ValidateRoute is the controller's validation of a route with a
	// parent on one of its Gateways by rules of its own (Envoy Gateway's
	// translator: each rule's filters, matches and backendRefs, with its
	// own reasons and messages). attach calls it for every such route
	// when a GatewayClass in the input names the controller; status
	// writes its verdict for those parents in place of the Gateway API
	// checks topology makes, and its findings are lint's. Nil: those
	// checks stand.
	ValidateRoute func(rt *topology.Route, env *Env, set *Set) *RouteVerdict
	// ObjectVerdicts are the controller's verdicts on the objects of its
	// API group that are neither policies nor routes yet carry a status
	// of their own (Envoy Gateway's Backend: Accepted), by its
	// translator's rules. attach calls it once, when a Gateway of the
	// input is the controller's, with the Env its route validation reads,
	// so that a backendRef's verdict and the object's own come from one
	// decision; status writes the conditions and lint reports the
	// findings. A verdict may also be on a backend object of another
	// group whose clusters the controller leaves out without a condition
	// (ObjectVerdict.Dropped: a Service kgateway cannot read an annotation
	// of). Nil: the controller writes no such status.
	ObjectVerdicts func(env *Env, set *Set) []ObjectVerdict
	// CheckRule is the controller's check of one route rule before any
	// policy applies (topology.RuleCheck): the problem of a rule it cannot
	// translate as written under cfg (its validation mode), which it
	// replaces with a direct response or leaves out; it may record what
	// the controller reads off the route for the rule (a redirect status
	// annotation: topology.Rule.RedirectStatus). Topology stores the
	// problem, status reports it (Controller.ProgrammedCondition), merge
	// answers the replaced rule 500 and render leaves a dropped one out.
	// It runs on every route rule, whichever Gateways serve it, as the
	// keys of Controller.Topology are read, but its problems hold on the
	// controller's Gateways only (topology.Graph.ProblemOn; a Gateway
	// whose class is not in the input, or whose controller has no check
	// of its own, takes the first registered check's). Nil: no such
	// checks; the family must have a Controller for it to run.
	CheckRule func(rt *topology.Route, rule *topology.Rule, cfg Config) *topology.RuleProblem
	// Gateway is the controller's verdict on one of its Gateways as a
	// whole, before it translates any of it (topology.Controller.Gateway):
	// a refusal (Accepted False with its reason) leaves nothing of the
	// Gateway translated, which status, render, explain and lint read
	// from topology.Gateway.Refused; the findings are lint's. Nil: every
	// Gateway is accepted.
	Gateway func(m *model.Model, gw *model.Gateway) (topology.Refusal, []diag.Diagnostic)
	// GatewayReport is what the controller's status reporter writes on
	// one of its Gateways over the conditions translation gives it,
	// without refusing anything of it (topology.Controller.Reported):
	// each condition replaces the Gateway's own of its type, which status
	// and explain read from topology.Gateway.Reported; render serves the
	// Gateway as before; the findings are lint's. A condition with no
	// Status withdraws the Gateway's own of its type (the reporter writes
	// none). env holds the model, the deployment's settings and the
	// backends' policies (Env.BackendPolicies). Nil: none.
	GatewayReport func(env *Env, gw *model.Gateway) ([]metav1.Condition, []diag.Diagnostic)
	// Listeners is the controller's verdict on the listeners of one of its
	// Gateways by rules of its own (topology.Controller.Listeners): it
	// replaces each listener's Conditions and Unserved, which topology set
	// as the Gateway API says, and returns its findings. Status reports the
	// verdict and render serves by it. Nil: the Gateway API's stand.
	Listeners func(g *topology.Graph, gw *topology.Gateway, cfg Config) []diag.Diagnostic
	// StreamRoutes is which routes attached to a TCP or TLS listener of
	// one of its Gateways the controller programs, each as a filter chain
	// (topology.StreamRouteRule): render builds those, lint reports the
	// others (GWP213) and explain says why. A Gateway whose family
	// declares none takes the default controller's family's (Registry.
	// TopologyOptions), as it takes its topology keys. Unset: the default's.
	StreamRoutes topology.StreamRouteRule
	// Conflicts marks the listeners of one of its Gateways that share a
	// port in a way the controller refuses, by rules of its own
	// (topology.Controller.Conflicts), in place of the Gateway API's. Nil:
	// the Gateway API's.
	Conflicts func(gw *topology.Gateway)
	// ConflictsInVerdict: the controller decides which listeners of its
	// Gateways conflict in its listener verdict (Listeners), which sets
	// topology.Listener.Conflicted and ConflictReason beside the
	// conditions it writes, once routes attached — routes attach to a
	// conflicted listener and count there, and nothing is served through
	// it (topology.Controller.ConflictsInVerdict). Conflicts is then
	// unused.
	ConflictsInVerdict bool
	// BackendGroups are the API groups in which the controller reads a
	// backendRef by its kind alone (topology.Controller.BackendGroups).
	BackendGroups []string
	// ExclusiveListenerHostnames: the controller serves a hostname that
	// is a listener's own on that listener alone of its port: a route
	// hostname equal to it does not attach to the port's other listeners
	// (topology.Controller.ExclusiveListenerHostnames).
	ExclusiveListenerHostnames bool
	// AdmissionFirst: the controller names why a parentRef attaches to no
	// listener by asking first whether any listener of the parent admits
	// the route at all (topology.Controller.AdmissionFirst).
	AdmissionFirst bool
	// NoListenersNotValid: the controller refuses a Gateway with no
	// listener at all (topology.Controller.NoListenersNotValid).
	NoListenersNotValid bool
	// ListenerSetConditions are the conditions the controller writes on
	// a ListenerSet naming one of its Gateways
	// (topology.Controller.ListenerSetConditions). Nil: the Gateway
	// API's.
	ListenerSetConditions func(s *topology.ListenerSet) []metav1.Condition
	// UnwatchedRoutes says why the controller, under the deployment cfg,
	// does not read routes of a kind at all ("" when it reads them):
	// such a route attaches to none of its Gateways and takes no status
	// from it (topology.Controller.Unwatched). Nil: it reads every kind.
	UnwatchedRoutes func(kind string, cfg Config) string
	// UnreadListenerSets says why the controller, under the deployment
	// cfg, does not read listener sets of a kind other than the v1
	// ListenerSet ("" when it reads them): such a set attaches to none of
	// its Gateways (topology.Controller.UnreadListenerSets). Nil: it reads
	// the v1 kind alone.
	UnreadListenerSets func(gk model.GroupKind, cfg Config) string
	// Grants is how the controller matches a ReferenceGrant's groups
	// against a reference (model.GrantRule; topology.Controller.Grants):
	// topology judges its Gateways' and routes' references by it, and the
	// family's own checks of its policies' references read the same
	// value. Zero: groups compared as written.
	Grants model.GrantRule
	// AncestorStatuses decide the status of the policies of one of the
	// family's kinds by the controller's own rules rather than from merge
	// origins: Envoy Gateway decides Conflicted, Overridden and Merged
	// across all the policies of one kind, in its processing order,
	// before any field is merged. attach calls it once per kind with
	// every policy of that kind (ps) and keeps the decisions
	// (attach.Result.Ancestors, Rejected): merge leaves the rejected
	// policies out of their targets, and status prints the ancestors as
	// decided. stranger reports whether a Gateway does not take the
	// kind at all (Registry.StrangerOn: another registered controller's
	// Gateway), which the controller never sees: no target there, no
	// ancestor. Nil: status follows merge.
	AncestorStatuses func(ps []*Policy, g *topology.Graph, stranger func(*topology.Gateway) bool) Decisions
	// ForeignJudges judge, by the controller's own rules, the policies
	// of kinds it does not own (by GroupKind) whose status it writes on
	// its Gateways' ancestors (Envoy Gateway: a Gateway API
	// BackendTLSPolicy's CA certificates, getCaCertsFromCARefs).
	// Registry.Decode keeps each policy's verdict on it
	// (Policy.Judgements, by controller name); attach makes the verdict
	// of the controllers that use the policy its Invalid, which merge,
	// lint and explain read, and status writes each controller's
	// conditions for the ancestors it reports, in place of the kind's own
	// (ConditionWriter). Nil: the kind's own everywhere.
	ForeignJudges map[model.GroupKind]func(p *Policy, env *Env) Judgement
	// ForeignStatuses decide, by the controller's own rules, the status
	// it writes for the policies of a kind it does not own (by
	// GroupKind) whose ancestors and conflicts it decides itself (Envoy
	// Gateway: a Gateway API BackendTLSPolicy is reported against each
	// route parentRef, or calling policy, whose destination to a backend
	// port it governs, and is Conflicted only beside an earlier policy
	// with the same target key). attach calls each once per kind after
	// every policy is attached (ForeignDecider) and keeps the decisions:
	// the ancestors apart, by controller (attach.Result.ForeignAncestors)
	// — status prints them in place of those it would report for that
	// controller by merge, beside other controllers' —, the rejections
	// with the controllers' others (merge leaves those policies out of
	// their targets, and every view reads the verdict). Nil: the
	// policies' status follows merge on the controller's ancestors too.
	ForeignStatuses map[model.GroupKind]ForeignDecider
	// Ancestors is how the controller reports the ancestors of the
	// family's policies whose status follows merge (no AncestorStatuses).
	// Nil: the default controller's family's (Registry.AncestorReport).
	Ancestors *AncestorReport
	// BrokenReasons are the reasons of the route conditions the
	// controller writes of its own for a rule that a reference to one of
	// the family's policies breaks with the diagnostic code on the
	// policy field (HAPTIC: ResolvedRefs False only for an unresolved
	// reference — PolicyNotFound, RefNotPermitted — and
	// IncompatibleFilters for two policies on a rule): reason for
	// Accepted False and PartiallyInvalid, and resolvedRefs for
	// ResolvedRefs False ("" when the rule's references resolved, so
	// ResolvedRefs is not set False). Nil: the controller writes none of
	// its own (status says UnsupportedValue and InvalidKind, or, under a
	// controller with conditions of its own, replaces the rule).
	BrokenReasons func(code, field string) (reason, resolvedRefs string)
}

// FinishInput is what a family's Finish step reads.
type FinishInput struct {
	Model    *model.Model
	Graph    *topology.Graph
	Attached Attachments
	Config   Config
	// ConfigPos positions a config key in the config file (nil:
	// unpositioned).
	ConfigPos func(path string) diag.Position
}

// Attachments are attach's result as a family's step reads it
// (attach.Result implements them).
type Attachments interface {
	// OnRoute are the policies attached to the route as a whole, in
	// attachment order.
	OnRoute(rt *topology.Route) []*Policy
	// OnRule are the policies attached to one rule of it, in attachment
	// order.
	OnRule(rule *topology.Rule) []RuleAttachment
	// Break marks a rule as made unusable by a kind's policies: it
	// answers 500, and status, render and explain say why.
	Break(rule *topology.Rule, b BrokenRule)
}

// RuleAttachment is one policy attached to a rule.
type RuleAttachment struct {
	Policy *Policy
	// ExtensionRef: the rule references it in an ExtensionRef filter.
	ExtensionRef bool
}

// BrokenRule is why a kind's policies make a rule unusable.
type BrokenRule struct {
	Kind         Kind
	Code, Reason string
}

// AddFamilies registers the families the pipeline lists: their
// controllers, render targets and settings, and their steps (Families).
func (r *Registry) AddFamilies(fs ...Family) {
	for _, f := range fs {
		if f.Controller != nil {
			r.AddControllers(*f.Controller)
		}
		if f.Target != nil {
			r.AddTargets(*f.Target)
		}
		r.AddSettings(f.Settings...)
		r.families = append(r.families, f)
		if f.Controller == nil {
			continue
		}
		if r.familyOfGroup == nil {
			r.familyOfGroup = map[string]int{}
		}
		for _, g := range f.Controller.Groups {
			r.familyOfGroup[g] = len(r.families) - 1
		}
	}
}

// TopologyOptions are topology's options for an input compiled under cfg:
// the registered kinds' backend kinds, the families' keys and settings,
// and each controller's own rules (TopologyControllers), with controller
// the controllerName of a Gateway whose class the input does not name.
func (r *Registry) TopologyOptions(cfg Config, controller string) topology.Options {
	if controller == "" {
		controller = r.DefaultController().Name
	}
	return topology.Options{BackendKinds: r.BackendKinds(), PortlessBackendKinds: r.PortlessBackendKinds(), Keys: r.TopologyKeys(), WeightedRoutePrecedence: r.WeightedRoutePrecedence(cfg),
		ExtensionBackends: r.ExtensionBackends(cfg), Controllers: r.TopologyControllers(cfg), Controller: controller, RuleChecks: r.RuleChecks(cfg),
		TLSOptions: r.TLSOptionParser(), StreamRoutes: r.StreamRoutes(), Delegation: r.Delegation(), Classes: r.ClassJudge(cfg)}
}

// ClassJudge is the families' verdicts on GatewayClasses under cfg
// (Family.GatewayClass, topology.Options.Classes): the first family's
// that has one; nil when no family judges classes.
func (r *Registry) ClassJudge(cfg Config) topology.ClassJudge {
	var judges []func(*model.GatewayClass, Config) *topology.ClassVerdict
	for _, f := range r.Families() {
		if f.GatewayClass != nil {
			judges = append(judges, f.GatewayClass)
		}
	}
	if len(judges) == 0 {
		return nil
	}
	return func(gc *model.GatewayClass) *topology.ClassVerdict {
		for _, j := range judges {
			if v := j(gc, cfg); v != nil {
				return v
			}
		}
		return nil
	}
}

// Delegation is the route delegation topology applies
// (topology.Options.Delegation): the default controller's family's, else
// the first registered family's that declares one; unset when none does.
func (r *Registry) Delegation() topology.DelegationRules {
	var first topology.DelegationRules
	for _, f := range r.Families() {
		if f.Delegation.Select == nil {
			continue
		}
		if f.Controller != nil && f.Controller.Default {
			return f.Delegation
		}
		if first.Select == nil {
			first = f.Delegation
		}
	}
	return first
}

// RuleChecks are the controllers' checks of each route rule under cfg
// (Family.CheckRule, topology.Options.RuleChecks), in registration order,
// each judging rules for its family's controller's Gateways.
func (r *Registry) RuleChecks(cfg Config) []topology.RuleCheck {
	var out []topology.RuleCheck
	for _, f := range r.Families() {
		if check := f.CheckRule; check != nil && f.Controller != nil {
			out = append(out, topology.RuleCheck{Controller: f.Controller.Name,
				Check: func(rt *topology.Route, rule *topology.Rule) *topology.RuleProblem { return check(rt, rule, cfg) }})
		}
	}
	return out
}

// TopologyControllers are what topology applies of each registered
// controller's own rules (topology.Options.Controllers), by
// controllerName: its title, and its family's listener verdict under cfg.
func (r *Registry) TopologyControllers(cfg Config) map[string]topology.Controller {
	out := map[string]topology.Controller{}
	for _, c := range r.Controllers() {
		out[c.Name] = topology.Controller{Title: c.Title, TLSOptions: c.TLSOptions}
	}
	for _, f := range r.Families() {
		if f.Controller == nil || f.Listeners == nil {
			continue
		}
		judge := f.Listeners
		tc := out[f.Controller.Name]
		tc.Listeners = func(g *topology.Graph, gw *topology.Gateway) []diag.Diagnostic { return judge(g, gw, cfg) }
		out[f.Controller.Name] = tc
	}
	for _, f := range r.Families() {
		if f.Controller == nil {
			continue
		}
		tc := out[f.Controller.Name]
		if f.StreamRoutes.Served != nil {
			tc.StreamRoutes = f.StreamRoutes
		}
		tc.Conflicts = f.Conflicts
		tc.ConflictsInVerdict = f.ConflictsInVerdict
		tc.BackendGroups = f.BackendGroups
		tc.ExclusiveListenerHostnames = f.ExclusiveListenerHostnames
		tc.AdmissionFirst = f.AdmissionFirst
		tc.Grants = f.GrantsUnder(cfg)
		tc.NoListenersNotValid = f.NoListenersNotValid
		tc.ListenerSetConditions = f.ListenerSetConditions
		if unwatched := f.UnwatchedRoutes; unwatched != nil {
			tc.Unwatched = func(kind string) string { return unwatched(kind, cfg) }
		}
		if unread := f.UnreadListenerSets; unread != nil {
			tc.UnreadListenerSets = func(gk model.GroupKind) string { return unread(gk, cfg) }
		}
		tc.Gateway = f.Gateway
		if report := f.GatewayReport; report != nil {
			envOf := r.envUnder(cfg)
			tc.Reported = func(m *model.Model, gw *model.Gateway) ([]metav1.Condition, []diag.Diagnostic) {
				return report(envOf(m), gw)
			}
		}
		out[f.Controller.Name] = tc
	}
	return out
}

// envUnder returns the Env of a model under cfg, its backends' policies
// prepared (PrepareBackendPolicies), made once per model: a controller's
// verdict on each Gateway reads the same one.
func (r *Registry) envUnder(cfg Config) func(m *model.Model) *Env {
	var mu sync.Mutex
	var last *Env
	return func(m *model.Model) *Env {
		mu.Lock()
		defer mu.Unlock()
		if last == nil || last.Model != m {
			last = &Env{Model: m, Config: cfg}
			r.PrepareBackendPolicies(last)
		}
		return last
	}
}

// StreamRoutes is the stream route rule of a Gateway whose controller's
// family declares none (topology.Options.StreamRoutes): the default
// controller's family's, else the first registered family's that declares
// one; unset when none does.
func (r *Registry) StreamRoutes() topology.StreamRouteRule {
	var first topology.StreamRouteRule
	for _, f := range r.Families() {
		if f.StreamRoutes.Served == nil {
			continue
		}
		if f.Controller != nil && f.Controller.Default {
			return f.StreamRoutes
		}
		if first.Served == nil {
			first = f.StreamRoutes
		}
	}
	return first
}

// RuleNotes are the families' notes on generic rules (Family.RuleNotes),
// by rule name, in registration order.
func (r *Registry) RuleNotes() map[string][]string {
	out := map[string][]string{}
	for _, f := range r.Families() {
		for code, note := range f.RuleNotes {
			out[code] = append(out[code], note)
		}
	}
	return out
}

// FamilyOf is the registered family whose controller defines kind k (its
// API group, Controller.Groups): the one whose steps answer for the
// kind's policies. Nil when none does (Gateway API's own kinds, and those
// of a family without a controller of its own).
func (r *Registry) FamilyOf(k Kind) *Family {
	if r == nil || k == nil {
		return nil
	}
	i, ok := r.familyOfGroup[k.GroupKind().Group]
	if !ok {
		return nil
	}
	return &r.families[i]
}

// Families are the registered families, in registration order.
func (r *Registry) Families() []Family {
	if r == nil {
		return nil
	}
	return r.families
}

// Enums are the families' Enums (model.Options.Enums).
func (r *Registry) Enums() map[model.GroupKind][]model.FieldEnum {
	out := map[model.GroupKind][]model.FieldEnum{}
	for _, f := range r.Families() {
		for gk, es := range f.Enums {
			out[gk] = append(out[gk], es...)
		}
	}
	return out
}

// Wildcards are the families' Wildcards (model.Options.Wildcards); of two
// families naming a kind's wildcard, the first registered's.
func (r *Registry) Wildcards() map[model.GroupKind]string {
	out := map[model.GroupKind]string{}
	for _, f := range r.Families() {
		for gk, w := range f.Wildcards {
			if _, ok := out[gk]; !ok {
				out[gk] = w
			}
		}
	}
	return out
}

// ListBounds are the families' ListLimits made into trees, one walk of an
// object each (model.Options.ListLimits).
func (r *Registry) ListBounds() map[model.GroupKind]*manifest.ListBounds {
	out := map[model.GroupKind]*manifest.ListBounds{}
	for _, f := range r.Families() {
		for gk, ls := range f.ListLimits {
			out[gk] = manifest.NewListBounds(ls)
		}
	}
	return out
}
