package wso2

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policyversion"
	"github.com/gwpol/gwpol/internal/topology"
)

// This file is what the WSO2 gateway operator and gateway-controller do
// beyond the manifests, as the family's Finish step (policy.Family): the
// system policies of the deployment, and the HTTPRoutes the operator
// rejects whole — those it cannot build one API from (httproute.go) and
// those the gateway-controller refuses for an invalid policy.

// Family is the WSO2 family with these kinds, for internal/families to
// register: its Finish step records what explain shows (Found), naming
// the policy definitions directory and engine build file loaded (each
// "" when not given).
func (ks *Kinds) Family(definitionsDir, engineFile string) policy.Family {
	return policy.Family{Name: "WSO2", Settings: []policy.Setting{Section}, Finish: func(in policy.FinishInput) []diag.Diagnostic {
		sysChain, sys := ks.System(in.Config, in.ConfigPos)
		settings, _ := ParseSettings(in.Config) // CheckConfig refused a malformed one
		if settings.GatewayClassNames == nil {
			settings.GatewayClassNames = DefaultGatewayClassNames
		}
		routeDiags := ks.operatorRoutes(in.Graph, in.Attached, settings.GatewayClassNames, sysChain)
		found := Found{System: sysChain}
		if ks.Definitions != nil {
			found.DefinitionsDir = definitionsDir
		}
		if ks.Engine != nil {
			found.EngineFile = engineFile
		}
		ks.SetFound(found)
		return append(sys, routeDiags...)
	}, SkippedChecks: ks.skippedChecks, CheckConfig: checkConfig, GatewayClass: gatewayClassVerdict}
}

// checkConfig refuses a malformed wso2: section (policy.Family.CheckConfig).
func checkConfig(cfg policy.Config) error {
	if _, err := SystemPolicies(cfg); err != nil {
		return err
	}
	_, err := ParseSettings(cfg)
	return err
}

// uses reports whether the input has WSO2 policy references at all (an
// APIPolicy, a RestApi, or configured system policies).
func (ks *Kinds) uses(ps []*policy.Policy, cfg policy.Config) bool {
	if sps, _ := SystemPolicies(cfg); len(sps) > 0 {
		return true
	}
	return slices.ContainsFunc(ps, ks.Owns)
}

// skippedChecks names the version checks that could not run for lack of
// policy definitions or an engine manifest; nil when the input has no
// WSO2 policy references.
func (ks *Kinds) skippedChecks(ps []*policy.Policy, cfg policy.Config) []string {
	if !ks.uses(ps, cfg) {
		return nil
	}
	var out []string
	if ks.Definitions == nil {
		codes := []string{policyversion.LintNoDefinitionForMajor.Code, policyversion.LintAmbiguousMajor.Code, policyversion.LintParamsSchema.Code}
		if ks.Engine != nil {
			codes = append(codes, policyversion.LintEngineDrift.Code)
		}
		out = append(out, strings.Join(codes, ", ")+": no policy definitions (--policy-definitions DIR or config policyDefinitions); only the form of policy versions was checked")
	}
	if ks.Engine == nil {
		out = append(out, policyversion.LintEngineDrift.Code+", "+policyversion.LintEngineMissingMajor.Code+": no engine build manifest (--engine-manifest FILE or config engineManifest)")
	}
	return out
}

// Section is the wso2: section of .gwpol.yaml as the family declares it
// (a map setting), which ParseSettings reads and checks: the
// gateway-controller's own configuration that changes what gwpol emulates
// (analytics, policyEngine, with the controller's defaults), and gwpol's
// systemPolicies, policyEngineCluster and policyEngineAddress.
var Section = policy.Setting{Key: "wso2", Default: map[string]any{},
	Doc: "the WSO2 gateway-controller's deployment: analytics.enabled (default false: true starts every chain with the " + AnalyticsPolicyName + " " + AnalyticsPolicyVersion + " system policy) and analytics.allowPayloads (its allow_payloads, default false); " +
		"policyEngine (its router.policy_engine: mode uds, or tcp to host policy-engine port 9001; timeoutMs and messageTimeoutMs 60000; failureModeAllow false; allowModeOverride true), which the rendered ext_proc filter and cluster follow; " +
		"gatewayClassNames (the gateway operator's gateway_api.gateway_class_names: the names of the GatewayClasses whose Gateways and HTTPRoutes it reconciles, default [" + strings.Join(DefaultGatewayClassNames, ", ") + "]); " +
		"systemPolicies (further {name, version, params} every chain starts with, for engine builds that add system policies), policyEngineCluster (the cluster's name in the rendered config) and policyEngineAddress (HOST:PORT, the older spelling of policyEngine in tcp mode)",
	Source: "gateway/gateway-controller/pkg/config/config.go: defaultConfig (analytics, router.policy_engine); pkg/utils/system_policies.go: InjectSystemPolicies; pkg/xds/translator.go: createExtProcFilter, createPolicyEngineCluster; kubernetes/gateway-operator/internal/config/config.go: gateway_class_names, ManagedGatewayClass",
	Check: func(v any) error {
		values := map[string]any{}
		if m, ok := stringMap(v); ok {
			for k, val := range m {
				values["wso2."+k] = val
			}
		}
		_, err := ParseSettings(policy.Config{Values: values})
		return err
	}}

// operatorRoutes judges each HTTPRoute the WSO2 gateway operator serves
// as the operator does at the pinned commit (1c84e11c): it builds one API
// from the route (BuildAPIConfigFromHTTPRoute), generating no policy of
// its own — the route's filters other than APIPolicy ExtensionRefs are not
// translated — and refuses the whole route when it cannot (buildRefusal);
// the gateway-controller then rejects the whole API when one policy is
// invalid. A route is the operator's when a parent Gateway's class is one
// it manages (managed: its name among names, whatever its
// controllerName), or when an APIPolicy attaches to it.
func (ks *Kinds) operatorRoutes(g *topology.Graph, att policy.Attachments, names []string, system *Chain) []diag.Diagnostic {
	managed := func(gw *topology.Gateway) bool {
		return gw != nil && slices.Contains(names, string(gw.Spec.GatewayClassName))
	}
	var diags []diag.Diagnostic
	ks.routeStatus, ks.opNotes = nil, nil
	for _, rt := range g.Routes {
		if rt.Kind == "HTTPRoute" && pendingParent(managed, rt) != nil {
			// its one Gateway is never registered: the operator writes
			// GatewayPending and builds nothing (httproute_controller.go:
			// Reconcile, before BuildAPIConfigFromHTTPRoute)
			ks.record(rt, managed, routeVerdict{pending: true})
			continue
		}
		if rt.Kind != "HTTPRoute" || !ks.served(managed, rt, att) {
			continue
		}
		diags = append(diags, ks.crossDuplicates(rt, att)...)
		var rejected []diag.Diagnostic
		if !otherController(managed, rt) {
			if r := ks.buildRefusal(rt, att); r != nil {
				diags = append(diags, ks.refuseRoute(rt, att, r))
				ks.record(rt, managed, routeVerdict{refused: r})
				continue
			}
			ops := operations(rt)
			rejected = apiProblems(rt, ops)
			diags = append(diags, rejected...)
			differs, notes := servedDiffers(rt, ops)
			diags = append(diags, differs...)
			for rule, ns := range notes {
				if ks.opNotes == nil {
					ks.opNotes = map[*topology.Rule][]string{}
				}
				ks.opNotes[rule] = ns
			}
		}
		for _, p := range att.OnRoute(rt) {
			if ks.Owns(p) && !p.IsValid() {
				rejected = append(rejected, p.Invalid[0])
			}
		}
		for _, rule := range rt.Rules {
			rejected = append(rejected, ks.invalidExtensionRefs(att, rule)...)
		}
		diags = append(diags, ks.rejectRoute(rt, att, rejected)...)
		v := routeVerdict{}
		if len(rejected) > 0 {
			v.rejected = deploymentFailed(rejected)
		} else {
			ks.engineLacks(rt, att, system)
		}
		ks.record(rt, managed, v)
	}
	return diags
}

// deploymentFailed is the message of the operator's Accepted False
// (DeploymentFailed) on a route whose API the gateway-controller refuses:
// the controller answers 400 with its validation errors (rest_api_handler:
// "Configuration validation failed"), which the operator quotes
// (gatewayclient: "gateway returned status 400: BODY"); gwpol words the
// errors as its findings do, the first of them.
func deploymentFailed(problems []diag.Diagnostic) string {
	first := problems[0]
	more := ""
	if len(problems) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(problems)-1)
	}
	return fmt.Sprintf("gateway returned status 400: Configuration validation failed: %s %s: %s%s", first.Code, first.Field, first.Message, more)
}

// crossDuplicates reports an API-level policy name that two APIPolicies
// targeting one route both list: the operator concatenates the API-level
// APIPolicies of a route (in name order) into one list, and the
// gateway-controller keys that list by name, so only the last entry of the
// name runs — once per listing (LintDuplicateAPIPolicy; duplicates within
// one object are reported when it is decoded).
func (ks *Kinds) crossDuplicates(rt *topology.Route, att policy.Attachments) []diag.Diagnostic {
	var pols []*policy.Policy
	for _, p := range att.OnRoute(rt) {
		if ks.Owns(p) && p.IsValid() && !slices.Contains(pols, p) {
			pols = append(pols, p)
		}
	}
	slices.SortFunc(pols, func(a, b *policy.Policy) int { return strings.Compare(a.Obj.Name, b.Obj.Name) })
	type listing struct {
		p *policy.Policy
		r *Reference
	}
	byName := map[string][]listing{}
	var names []string
	for _, p := range pols {
		ch, ok := ChainOf(p)
		if !ok {
			continue
		}
		for _, r := range ch.Refs {
			if len(byName[r.Name]) == 0 {
				names = append(names, r.Name)
			}
			byName[r.Name] = append(byName[r.Name], listing{p, r})
		}
	}
	var out []diag.Diagnostic
	for _, name := range names {
		ls := byName[name]
		last := ls[len(ls)-1]
		for _, l := range ls[:len(ls)-1] {
			if l.p == last.p || slices.Contains(l.r.Problems, LintDuplicateAPIPolicy.Code) {
				continue // within one object: reported at decode
			}
			out = append(out, diag.Diagnostic{Code: LintDuplicateAPIPolicy.Code, Severity: diag.Warning, Object: l.p.Ref(), Field: l.r.Path + ".name", Pos: l.p.Obj.FieldPos(l.r.Path + ".name"),
				Message: fmt.Sprintf("API-level policy %s of %s %s/%s is listed again by APIPolicy %s/%s (%s), which also targets it; the operator joins a route's API-level APIPolicies in name order and the gateway-controller keys them by name, so the last entry's params run %d times and this entry's never do; fix: list %s in one APIPolicy per route",
					name, rt.Kind, rt.Meta.Namespace, rt.Meta.Name, last.p.Obj.Namespace, last.p.Obj.Name, last.r.Path, len(ls), name)})
		}
	}
	return out
}

// invalidExtensionRefs are the problems of the invalid APIPolicies a rule
// references by ExtensionRef.
func (ks *Kinds) invalidExtensionRefs(att policy.Attachments, rule *topology.Rule) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, a := range att.OnRule(rule) {
		if a.ExtensionRef && ks.Owns(a.Policy) && !a.Policy.IsValid() {
			out = append(out, a.Policy.Invalid[0])
		}
	}
	return out
}

// rejectRoute fails every rule of a route when one rule's policies are
// invalid: the operator compiles the whole HTTPRoute into one API for the
// gateway-controller, which validates it as one and rejects all of it, so
// no rule is served — not only the one with the bad policy. The rules
// answer 500 in render, like any rule with an invalid policy.
func (ks *Kinds) rejectRoute(rt *topology.Route, att policy.Attachments, problems []diag.Diagnostic) []diag.Diagnostic {
	if len(problems) == 0 {
		return nil
	}
	first := problems[0]
	reason := fmt.Sprintf("the WSO2 gateway operator rejects %s %s/%s as a whole: %s %s: %s", rt.Kind, rt.Meta.Namespace, rt.Meta.Name, first.Code, first.Field, first.Message)
	for _, rule := range rt.Rules {
		att.Break(rule, policy.BrokenRule{Kind: ks.APIPolicy(), Code: LintRouteRejected.Code, Reason: reason})
	}
	return []diag.Diagnostic{{Code: LintRouteRejected.Code, Severity: diag.Error, Object: rt.Key().Ref(), Field: "spec.rules", Pos: rt.Src.FieldPos("spec.rules"),
		Message: fmt.Sprintf("the WSO2 gateway operator compiles %s %s/%s into one API, and the gateway-controller rejects all of it when one policy is invalid (%d problem(s), first %s at %s): none of its %d rule(s) is served; fix the policy problems reported on the route and its APIPolicies",
			rt.Kind, rt.Meta.Namespace, rt.Meta.Name, len(problems), first.Code, first.Pos, len(rt.Rules))}}
}

// engineLacks fails each rule of a deployed route whose chain names a
// policy the policy engine was not built with (GWP505): the
// gateway-controller accepts the API and the operator reports it
// deployed, but the engine cannot build that route's chain (registry.go:
// GetInstance, "policy not found: name:vN"), skips it
// (xdsclient/handler.go: "Failed to build policy chain for route,
// skipping"), and answers each request of the route 500 with
// {"error":"Internal Server Error"} (kernel/extproc.go: "Policy chain not
// found for route, returning 500"). A rule's chain is the system
// policies, the route's APIPolicies (API level: every rule) and those the
// rule references (its own), as RuleChain; a rule no APIPolicy applies to
// has none. The route's status stays the operator's (RouteConditions).
func (ks *Kinds) engineLacks(rt *topology.Route, att policy.Attachments, system *Chain) {
	missing := func(ch *Chain) *Reference {
		if ch == nil {
			return nil
		}
		for _, r := range ch.Refs {
			if slices.Contains(r.Problems, policyversion.LintEngineMissingMajor.Code) {
				return r
			}
		}
		return nil
	}
	chainOf := func(p *policy.Policy) *Chain {
		if !ks.Owns(p) || !p.IsValid() {
			return nil
		}
		ch, _ := ChainOf(p)
		return ch
	}
	var api []*policy.Policy
	for _, p := range att.OnRoute(rt) {
		if chainOf(p) != nil && !slices.Contains(api, p) {
			api = append(api, p)
		}
	}
	for _, rule := range rt.Rules {
		var own []*policy.Policy
		for _, a := range att.OnRule(rule) {
			if a.ExtensionRef && chainOf(a.Policy) != nil {
				own = append(own, a.Policy)
			}
		}
		if len(api)+len(own) == 0 {
			continue // no chain: the engine runs nothing for it
		}
		r, by := missing(system), "config wso2.systemPolicies"
		for _, p := range slices.Concat(api, own) {
			if r != nil {
				break
			}
			r, by = missing(chainOf(p)), "APIPolicy "+p.Obj.Namespace+"/"+p.Obj.Name
		}
		if r == nil {
			continue
		}
		att.Break(rule, policy.BrokenRule{Kind: ks.APIPolicy(), Code: policyversion.LintEngineMissingMajor.Code,
			Reason: fmt.Sprintf("the policy engine was not built with %s (listed by %s at %s): it cannot build this rule's policy chain, skips it, and answers the rule's requests 500 (the route is still deployed and accepted)", r.Identity(), by, r.Path)})
	}
}

// otherController reports whether the route has a parent Gateway in the
// input and none of them is of a class the operator manages: the operator
// skips such a route (Reconcile: ManagedGatewayClass), so what it cannot
// build from it is no concern there, APIPolicy attached or not (that
// attachment is another family's question).
func otherController(managed func(*topology.Gateway) bool, rt *topology.Route) bool {
	known := false
	for _, p := range rt.Parents {
		if p.Gateway == nil {
			continue
		}
		if managed(p.Gateway) {
			return false
		}
		known = true
	}
	return known
}

// pendingParent is the parent of rt on a Gateway of a class the operator
// manages that it never registers (gatewayPending refused it), when that
// Gateway is the route's one Gateway parentRef (parentGatewayRefs: with
// more, the operator refuses the route first); nil otherwise.
func pendingParent(managed func(*topology.Gateway) bool, rt *topology.Route) *topology.Parent {
	var gateways []*topology.Parent
	for _, p := range rt.Parents {
		if string(*p.Ref.Group) == model.GatewayGroup && string(*p.Ref.Kind) == "Gateway" {
			gateways = append(gateways, p)
		}
	}
	if len(gateways) != 1 {
		return nil
	}
	if p := gateways[0]; p.Gateway == nil && p.Declined != nil && p.Declined.Refused.Reason != "" && managed(p.Declined) {
		return p
	}
	return nil
}

// served reports whether the operator serves the route (see
// operatorRoutes).
func (ks *Kinds) served(managed func(*topology.Gateway) bool, rt *topology.Route, att policy.Attachments) bool {
	for _, p := range rt.Parents {
		if managed(p.Gateway) {
			return true
		}
	}
	if slices.ContainsFunc(att.OnRoute(rt), ks.Owns) {
		return true
	}
	for _, rule := range rt.Rules {
		if slices.ContainsFunc(att.OnRule(rule), func(a policy.RuleAttachment) bool { return ks.Owns(a.Policy) }) {
			return true
		}
	}
	return false
}

// gatewayClassVerdict is the gateway operator's verdict on a GatewayClass
// whose controllerName is its own (k8s_gatewayclass_controller.go:
// Reconcile at the pin): Accepted True when the class's name is one it
// manages (config.go: ManagedGatewayClass, wso2.gatewayClassNames), else
// Accepted False/Unsupported — and then its Gateway reconciler skips the
// class's Gateways as well (k8s_gateway_controller.go: Reconcile, "skip
// Gateway: class not managed by operator"), as its HTTPRoute reconciler
// skips their routes, so nothing serves them. A class naming another
// controller gets nothing from it (nil).
// managedGateway is what the operator at the pin writes on a Gateway of a
// class it manages once its Helm release is installed and its Deployments
// are ready (k8s_gateway_controller.go@1c84e11c: syncGateway,
// evaluateGatewayDeploymentsReady; patchGatewayStatus sets each condition
// with meta.SetStatusCondition): Accepted True/Accepted "Gateway accepted"
// and Programmed True/Programmed "Gateway resources reconciled
// successfully". It reads the listeners only for the router's ports
// (applyListenerOverlayToValues: the first HTTP and HTTPS listener) and
// writes no listener status. A Gateway whose annotations keep it from
// being installed never gets there (gatewayPending).
var managedGateway = topology.GatewayReport{NoListenerStatus: true, Pending: gatewayPending, Conditions: []metav1.Condition{
	{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", Message: "Gateway accepted"},
	{Type: "Programmed", Status: metav1.ConditionTrue, Reason: "Programmed", Message: "Gateway resources reconciled successfully"},
}}

func gatewayClassVerdict(gc *model.GatewayClass, cfg policy.Config) *topology.ClassVerdict {
	if string(gc.Spec.ControllerName) != OperatorControllerName {
		return nil
	}
	settings, _ := ParseSettings(cfg) // CheckConfig refused a malformed one
	names := settings.GatewayClassNames
	if names == nil {
		names = DefaultGatewayClassNames
	}
	if gc.Name != "" && slices.Contains(names, gc.Name) {
		return &topology.ClassVerdict{Controller: OperatorControllerName, Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted",
			Message: fmt.Sprintf("GatewayClass %q is managed by this operator (listed in gateway class allowlist).", gc.Name)}},
			Gateway: managedGateway}
	}
	return &topology.ClassVerdict{Controller: OperatorControllerName, Refused: true,
		Why: fmt.Sprintf("its name is not among the operator's gateway class names, config wso2.%s: %s", ConfigKeyGatewayClassNames, strings.Join(names, ", ")),
		Conditions: []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionFalse, Reason: "Unsupported",
			Message: fmt.Sprintf("GatewayClass name %q is not in the operator gateway class allowlist (gatewayApi.managedGatewayClassNames / GATEWAY_API_GATEWAY_CLASS_NAMES).", gc.Name)}}}
}
