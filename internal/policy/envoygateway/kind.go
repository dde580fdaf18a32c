//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group is Envoy Gateway's API group.
const Group = "gateway.envoyproxy.io"

// ControllerName is the controllerName of Envoy Gateway's GatewayClasses
// (its default).
const ControllerName = "gateway.envoyproxy.io/gatewayclass-controller"

// Kind is one of Envoy Gateway's policy kinds; the four differ only in the
// values of these fields (see the file of each). There is one value of
// each, used by pointer, so kinds compare by identity.
type Kind struct {
	name string
	// plural names the kind in Envoy Gateway's status messages.
	plural string
	// fields are the spec fields the kind has, in Envoy Gateway's order.
	fields []string
	// writes are, per field, the Envoy paths it sets
	// (policy.FieldSpec.Writes; policy.WritesNothing where gwpol renders
	// none of it).
	writes map[string][]string
	// targets are the kinds targetRefs may name.
	targets []policy.TargetKind
	// mergeable: the kind has spec.mergeType (route policies may merge
	// into the Gateway's instead of overriding it).
	mergeable bool
	// bySection: an override is reported by listener sections
	// (ClientTrafficPolicy), not by routes.
	bySection bool
	// gatewayListenerByKey: a conflict on a Gateway listener names the
	// Gateway by namespace/name (resolveBTPolicyGatewayTargetRef's key),
	// not by its name alone as the SecurityPolicy and EnvoyExtensionPolicy
	// resolvers do.
	gatewayListenerByKey bool
	// extensionRef: rules name it in an ExtensionRef filter
	// (HTTPRouteFilter) rather than it naming targets.
	extensionRef bool

	specOnce sync.Once
	spec     policy.KindSpec
}

// The hooks of the policy-kind contract (internal/policy/kind.go) that
// Envoy Gateway's kinds implement.
var (
	_ policy.Kind            = (*Kind)(nil)
	_ policy.Auxiliary       = (*Kind)(nil)
	_ policy.BackendProvider = (*Kind)(nil)
	_ policy.Renderer        = (*Kind)(nil)
	_ policy.WholeOverrider  = (*Kind)(nil)
)

// backend is Envoy Gateway's Backend, a backendRef kind of its API group
// (FQDN, IP or Unix socket endpoints) that routes may name.
var backend = model.GroupKind{Group: Group, Kind: "Backend"}

// AuxiliaryKinds implements policy.Auxiliary: Backends and ServiceImports
// are kept in the model so that backendRefs to them resolve, EnvoyProxies
// for the settings of a Gateway's data plane, EndpointSlices for whether
// a mirrored Service has endpoints, EnvoyPatchPolicies to say they are not
// applied (UntranslatedFields).
func (k *Kind) AuxiliaryKinds() []model.GroupKind {
	return []model.GroupKind{backend, serviceImport, envoyProxy, model.EndpointSliceKind, envoyPatchPolicy}
}

// BackendKinds implements policy.BackendProvider: Envoy Gateway's Backend
// and the multi-cluster ServiceImport, which routes and BackendTLSPolicies
// may name.
func (k *Kind) BackendKinds() []model.GroupKind { return []model.GroupKind{backend, serviceImport} }

// All lists the kinds for policy.NewRegistry: the four policy kinds, then
// the HTTPRouteFilter that route rules reference.
func All() []policy.Kind {
	return []policy.Kind{BackendTrafficPolicy(), SecurityPolicy(), ClientTrafficPolicy(), EnvoyExtensionPolicy(), HTTPRouteFilter()}
}

// GroupKind implements policy.Kind.
func (k *Kind) GroupKind() model.GroupKind { return model.GroupKind{Group: Group, Kind: k.name} }

// Spec implements policy.Kind. It is built once per kind: render asks for
// it per route.
func (k *Kind) Spec() policy.KindSpec {
	k.specOnce.Do(func() { k.spec = k.buildSpec() })
	return k.spec
}

func (k *Kind) buildSpec() policy.KindSpec {
	s := policy.KindSpec{
		ConfigKey:    k.name,
		MetadataKey:  "merge." + Group + "/" + k.name,
		TargetKinds:  k.targets,
		ExtensionRef: k.extensionRef,
		// Envoy Gateway truncates to 16 ancestors and says so (Aggregated,
		// see statusRun.truncate).
		MaxAncestors: maxAncestors,
	}
	for _, f := range k.fields {
		fs := policy.FieldSpec{Key: f, SpecPath: "spec." + f, Default: policy.OverridableShallow, Writes: k.writes[f]}
		if k.extensionRef && f == "credentialInjection" {
			// Envoy Gateway injects for that backend only
			// (renderCredentialInjection's BackendCluster).
			fs.PerBackend = true
			fs.PerBackendNote = "in effect for this backend only: an upstream credential_injector filter in a cluster of the backendRef's own, as Envoy Gateway builds one per filtered backendRef"
		}
		s.Fields = append(s.Fields, fs)
	}
	if k.extensionRef {
		// A backendRef may name an HTTPRouteFilter too (Envoy Gateway's
		// validateBackendRefFilters); of it Envoy Gateway takes only the
		// credential injection (route.go: applyHTTPFiltersContextToDestinationFilters
		// also copies a URL rewrite, whose hostname alone the weighted
		// cluster reads — and an HTTPRouteFilter's urlRewrite has none).
		s.BackendRefFilter = true
		s.BackendRefNote = "Envoy Gateway takes only the credential injection of an HTTPRouteFilter named from a backendRef, and leaves its directResponse and urlRewrite out"
	}
	return s
}

// data is the kind-private decoded state (policy.Policy.Data).
type data struct {
	// spec is the decoded spec: a pointer to the kind's type in Envoy
	// Gateway's API (typed.go). decodeFailed: a value did not fit its
	// type (the policy is Invalid; spec holds the rest); misfit are the
	// spec fields (spec.rateLimit) such values are in.
	spec         any
	decodeFailed bool
	misfit       map[string]bool
	// mergeType is spec.mergeType as written; merges: it is written at
	// all (Envoy Gateway takes its merge branch on any value, "" too).
	mergeType string
	merges    bool
	// deprecated are Envoy Gateway's DeprecatedField warnings.
	deprecated []string
	// warning is another Warning condition Envoy Gateway writes (reason,
	// message), when there is no deprecation to report.
	warning [2]string
	// http3ClientValidation: a ClientTrafficPolicy setting HTTP/3 and
	// client certificate validation, which Envoy Gateway warns about per
	// target, naming its HTTPS listeners (statusRun.http3Warning).
	http3ClientValidation bool
	// httpOnly and tlsOnly are a ClientTrafficPolicy's findings of the
	// settings Envoy Gateway builds only on an HTTP listener, and only on
	// one that terminates TLS, common those of the settings it builds on
	// every listener it has an HTTP or TCP IR listener for
	// (refineListenerScope).
	httpOnly, tlsOnly, common []diag.Diagnostic
	// claims are the listeners the input's ClientTrafficPolicies claim
	// before one on a whole Gateway or ListenerSet is translated
	// (ctpClaims; the one index of the pass, shared).
	claims map[listenerClaim]bool
	// namespaces are the targetSelectors' namespace selectors, by the
	// selector's path (policy.TargetRef.Path).
	namespaces map[string]*egv1a1.TargetSelectorNamespaces
	// geo is the geolocation check's finding among Invalid
	// (checkGeoLocations, refineGeo), nil when there is none.
	geo *diag.Diagnostic
	// refused: a validator refused the policy on some of its route
	// targets, where Envoy Gateway translates none of it
	// (securitypolicy_checks.go: refuseOn).
	refused bool
	// refusals are those refusals by route class: true for TCPRoutes
	// (validateSecurityPolicyForTCP), false for HTTPRoutes and
	// GRPCRoutes (validateSecurityPolicy).
	refusals map[bool]*diag.Diagnostic
	// partial: the policy is translated on another target all the same
	// (a Gateway, listener, ListenerSet, or a route the other validator
	// passes), so its refusals are no errors of the policy's (Invalid):
	// they are reported on their routes' targets only.
	partial bool
	// unbuilt are the route targets that reach none of Envoy Gateway's
	// Gateways where others do (RefineWithGraph): there its per-parent
	// builders never run, and unbuiltInvalid are the findings left.
	unbuilt        map[model.Key]bool
	unbuiltInvalid []diag.Diagnostic
	// keys are the spec keys as written, by field, where they differ
	// from the field's name in case (holdValues).
	keys map[string]string
}

// Decode implements policy.Kind. The spec is decoded once, into Envoy
// Gateway's own type (typed.go); targeting, checks and renderers read
// that.
func (k *Kind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	d := &data{}
	p.Data = d
	var meta struct {
		CreationTimestamp metav1.Time `json:"creationTimestamp"`
	}
	if err := o.DecodeField("metadata", &meta); err == nil {
		p.Created = meta.CreationTimestamp.Time // Envoy Gateway's processing order: older first
	}
	spec, decodeErrs, nested, folded := k.decodeSpec(p)
	d.spec, d.decodeFailed = spec.Addr().Interface(), len(decodeErrs) > 0
	for _, e := range decodeErrs {
		if d.misfit == nil {
			d.misfit = map[string]bool{}
		}
		d.misfit[topField(e.Field)] = true
	}
	k.holdValues(p, spec, folded)
	p.Findings = append(p.Findings, policy.UnknownFieldFindings(o, append(k.unknownFields(o), nested...), env.Config.LenientFields)...)
	t, mergeType := targetingOf(spec)
	p.Targets = targets(t)
	if k == clientTrafficPolicy {
		d.claims = ctpClaims(env)
	}
	for i, sel := range t.TargetSelectors {
		if sel.Namespaces != nil {
			if d.namespaces == nil {
				d.namespaces = map[string]*egv1a1.TargetSelectorNamespaces{}
			}
			d.namespaces[fmt.Sprintf("spec.targetSelectors[%d]", i)] = sel.Namespaces
		}
	}
	if bt, ok := d.spec.(*egv1a1.BackendTrafficPolicySpec); ok {
		compressionOutOfEffect(p, d, bt)
	}
	if t.TargetRef != nil {
		d.deprecated = append(d.deprecated, "spec.targetRef is deprecated, use spec.targetRefs instead")
		p.Findings = append(p.Findings, p.Diag(model.LintDeprecatedVersion.Code, diag.Warning, "spec.targetRef", "spec.targetRef is deprecated, use spec.targetRefs instead"))
		if len(t.TargetRefs) > 0 {
			// targets: GetTargetRefs reads targetRef alone
			p.Findings = append(p.Findings, p.Diag(model.LintDeprecatedVersion.Code, diag.Warning, "spec.targetRefs",
				"spec.targetRefs is not read: spec.targetRef is set too, and Envoy Gateway reads only spec.targetRef; move it into spec.targetRefs"))
		}
	}
	if mergeType != nil && k.mergeable {
		// Any value is admitted (the CRD has no enum): one Envoy
		// Gateway cannot merge with fails only where it merges into a
		// parent policy (utils.Merge; statusRun.mergeOnListener).
		d.mergeType, d.merges = string(*mergeType), true
	}
	k.validateReferences(p, d.spec, env)
	k.checkValues(p, env)
	if sp, ok := d.spec.(*egv1a1.SecurityPolicySpec); ok && (!d.refused || d.partial) {
		checkGeoLocations(p, sp, env.Model)
	}
	eep, isEEP := d.spec.(*egv1a1.EnvoyExtensionPolicySpec)
	if isEEP {
		checkDynamicModules(p, eep, env.Model)
		checkLuaSyntax(p, eep, env.Model, env.Config)
	}
	// A value of the wrong type is reported where no check of Envoy
	// Gateway's has said more about that field already.
	for _, e := range decodeErrs {
		if !reportedUnder(p.Invalid, topField(e.Field)) {
			p.Invalid = append(p.Invalid, e)
		}
	}
	if isEEP {
		markFailOpen(p, eep)
	}
	if sp, ok := d.spec.(*egv1a1.SecurityPolicySpec); ok {
		extAuthFailsOpen(p, d, sp)
	}
	placeAtWrittenKeys(p, d.keys)
	return p
}

var _ policy.NamespaceSelecting = (*Kind)(nil)

// SelectsIn implements policy.NamespaceSelecting: a targetSelector with
// namespaces from All, or from a Selector that matches the namespace's
// labels, may pick ns/name in another namespace where a ReferenceGrant
// there lets the policy's kind refer to it (helpers.go:
// targetNamespaceMatches, isCrossNamespaceReferencePermitted). A
// namespace selector that cannot be read selects no namespace.
func (k *Kind) SelectsIn(p *policy.Policy, t policy.TargetRef, m *model.Model, ns, name string) bool {
	sel := decoded(p).namespaces[t.Path]
	if sel == nil {
		return false
	}
	switch string(sel.From) {
	case "All":
	case "Selector":
		if sel.Selector == nil {
			return false
		}
		nsSel, err := metav1.LabelSelectorAsSelector(sel.Selector)
		if err != nil || !nsSel.Matches(m.NamespaceLabels(ns)) {
			return false
		}
	default:
		return false
	}
	return m.GrantAllows(Group, k.name, p.Obj.Namespace, model.ObjectRefTo{Group: model.GatewayGroup, Kind: t.Kind, Namespace: ns, Name: name})
}

// topField is the spec field a path is in: spec.timeout for
// spec.timeout.tcp.connectTimeout.
func topField(path string) string {
	rest, ok := strings.CutPrefix(path, "spec.")
	if !ok {
		return path
	}
	if i := strings.IndexAny(rest, ".["); i >= 0 {
		rest = rest[:i]
	}
	return "spec." + rest
}

// reportedUnder reports whether a finding is at field or below it.
func reportedUnder(ds []diag.Diagnostic, field string) bool {
	return slices.ContainsFunc(ds, func(d diag.Diagnostic) bool {
		return d.Field == field || strings.HasPrefix(d.Field, field+".") || strings.HasPrefix(d.Field, field+"[")
	})
}

// targetingOf is what the spec says about attachment: its target
// references and its mergeType (nil for HTTPRouteFilter, which has
// neither).
func targetingOf(spec reflect.Value) (egv1a1.PolicyTargetReferences, *egv1a1.MergeType) {
	var t egv1a1.PolicyTargetReferences
	var mt *egv1a1.MergeType
	if f := spec.FieldByName("PolicyTargetReferences"); f.IsValid() {
		t, _ = f.Interface().(egv1a1.PolicyTargetReferences)
	}
	if f := spec.FieldByName("MergeType"); f.IsValid() {
		mt, _ = f.Interface().(*egv1a1.MergeType)
	}
	return t, mt
}

// compressionOutOfEffect reports BackendTrafficPolicy's deprecated
// spec.compression (Envoy Gateway's DeprecatedField warning, which names it
// before spec.targetRef) and, where spec.compressor holds entries too,
// takes it out of the policy's values: Envoy Gateway's buildCompression
// reads spec.compression only when spec.compressor is empty, so render
// must not build it and explain must not show it in effect.
func compressionOutOfEffect(p *policy.Policy, d *data, spec *egv1a1.BackendTrafficPolicySpec) {
	if _, ok := p.Values["compression"]; !ok || len(spec.Compression) == 0 {
		// deprecatedFieldsUsedInBackendTrafficPolicy: an empty list is
		// no use of the field (len > 0), and buildCompression reads
		// nothing from it
		return
	}
	const msg = "spec.compression is deprecated, use spec.compressor instead"
	d.deprecated = append(d.deprecated, msg)
	if len(spec.Compressor) == 0 {
		p.Findings = append(p.Findings, p.Diag(model.LintDeprecatedVersion.Code, diag.Warning, "spec.compression", msg))
		return
	}
	const why = "spec.compressor is set too, and Envoy Gateway uses only spec.compressor"
	delete(p.Values, "compression")
	p.OutOfEffect = map[string]string{"compression": why}
	p.Findings = append(p.Findings, p.Diag(model.LintDeprecatedVersion.Code, diag.Warning, "spec.compression",
		"%s; it is not in effect here: %s", msg, why))
}

// targets lists targetRef, targetRefs and targetSelectors in that order.
func targets(t egv1a1.PolicyTargetReferences) []policy.TargetRef {
	var out []policy.TargetRef
	ref := func(r gwapiv1.LocalPolicyTargetReferenceWithSectionName, path string) policy.TargetRef {
		tr := policy.TargetRef{Group: string(r.Group), Kind: string(r.Kind), Name: string(r.Name), Path: path}
		if r.SectionName != nil {
			tr.Section = string(*r.SectionName)
		}
		return tr
	}
	// GetTargetRefs: the deprecated targetRef, when set, is the only
	// one; targetRefs beside it (the CRD admits both where targetSelectors
	// are set) are not read.
	if t.TargetRef != nil {
		out = append(out, ref(*t.TargetRef, "spec.targetRef"))
	} else {
		for i, r := range t.TargetRefs {
			out = append(out, ref(r, fmt.Sprintf("spec.targetRefs[%d]", i)))
		}
	}
	for i, s := range t.TargetSelectors {
		sel := s.MatchLabels
		if sel == nil {
			sel = map[string]string{}
		}
		group := ""
		if s.Group != nil {
			group = string(*s.Group)
		}
		if group == "" {
			group = model.GatewayGroup // the CRD's default for a selector's group
		}
		out = append(out, policy.TargetRef{Group: group, Kind: string(s.Kind), Selector: sel, Expressions: s.MatchExpressions, EmptySelectsAll: true, Path: fmt.Sprintf("spec.targetSelectors[%d]", i)})
	}
	return out
}

// decoded is p's private state; a policy of another kind has none.
func decoded(p *policy.Policy) *data {
	if d, ok := p.Data.(*data); ok {
		return d
	}
	return &data{}
}

// ancestorStatuses are the family's AncestorStatuses: Envoy Gateway's
// status run over the policies of one of its kinds.
func ancestorStatuses(ps []*policy.Policy, g *topology.Graph, stranger func(*topology.Gateway) bool) policy.Decisions {
	if len(ps) == 0 {
		return policy.Decisions{}
	}
	k, ok := ps[0].Kind.(*Kind)
	if !ok {
		return policy.Decisions{}
	}
	return newStatusRun(k, g, stranger).run(ps)
}

// targetingKeys are the spec keys every kind reads for attachment rather
// than as fields.
var targetingKeys = []string{"targetRef", "targetRefs", "targetSelectors", "mergeType"}

// unknownFields are the spec keys the kind does not define (a typo, or a
// field of a newer Envoy Gateway): reported, never silently dropped.
func (k *Kind) unknownFields(o *manifest.Object) []manifest.UnknownField {
	known := slices.Concat(k.fields, targetingKeys)
	slices.Sort(known)
	var out []manifest.UnknownField
	for _, key := range slices.Sorted(slices.Values(o.Keys("spec"))) {
		if !slices.Contains(known, key) {
			path := "spec." + key
			out = append(out, manifest.UnknownField{Path: path, Pos: o.FieldPos(path), Known: known})
		}
	}
	return out
}

// Controller is Envoy Gateway, the controller of this family's kinds.
var Controller = policy.Controller{Name: ControllerName, Title: "Envoy Gateway", RenderTarget: Target.Name, Groups: []string{Group},
	// A route's status parentRef is the spec's as written, its namespace
	// left out where the route's is (contexts.go: GetRouteParentContext,
	// RouteParentStatus{ParentRef: forParentRef}).
	ParentRefsAsWritten: true,
	// Envoy Gateway applies these on a backendRef (a URLRewrite's
	// hostname only) and refuses the backendRef for any other type
	// (route_backends.go: backendRefFiltersProblem).
	BackendRefFilters: []string{"RequestHeaderModifier", "ResponseHeaderModifier", "URLRewrite"}, BackendRefFiltersRefused: true,
	// Each HTTPS listener gets a filter chain and RouteConfiguration of
	// its own (xds/translator/translator.go:
	// processHTTPListenerXdsTranslation), where a ClientTrafficPolicy
	// or BackendTrafficPolicy on the listener and one on the whole
	// Gateway meet; HTTP listeners on a port share one.
	GatewayMergeProtocols: []string{"HTTPS"},
	TLSOptions:            tlsOptions,
	// The provider clears a policy's status before translation
	// (provider/kubernetes/controller.go: processBackendTLSPolicies and
	// its siblings, `Status = gwapiv1.PolicyStatus{}`), and the status
	// updater writes the translator's status in place of the object's
	// (provider/kubernetes/status.go: the BackendTLSPolicy subscriber's
	// mutator, `Status: *valCopy`): other controllers' ancestors do not
	// survive its write.
	ReplacesPolicyStatus: true,
	// A route rule's cluster is named after the rule alone
	// (gatewayapi route.go: irRouteDestinationName), and the xDS
	// translator adds a cluster once per name: addXdsCluster returns
	// early when findXdsCluster finds it, for every processXdsCluster
	// of the IR's HTTP listeners in order (xds translator translator.go:
	// processHTTPListenerXdsTranslation → addRouteToRouteConfig). The
	// rule's route on the first listener serving it shapes the cluster
	// every route of the rule sends to — with mergeBackends, every route
	// whose policies below the Gateway write clusters; the others send
	// to the backend's merged cluster (gatewayapi route.go:
	// routeDestinationForListener, hasClusterSettingsBelowGateway).
	RuleClusterOnce: ruleClusterMode,
	ListenerOrder:   listenerOrder,
	// A rule's ExtensionRef must name an HTTPRouteFilter or a kind the
	// extension manager registers (helpers.go: ValidateHTTPRouteFilter,
	// "unknown kind G/K"; filters.go: processInvalidHTTPFilter answers the
	// rule 500, Accepted False, UnsupportedValue): another family's
	// policy kind is unknown to it and applies to nothing there (its route
	// validation words the condition: extensionRefProblem).
	OwnKindsOnly: true}

// tlsOptions is Envoy Gateway's reading of an HTTPS listener's
// tls.options (policy.Controller.TLSOptions): none — its translator reads
// no option key, so an option neither configures the listener nor
// refuses it (its status says Programmed) — and the ALPN protocols its
// xDS translator offers where nothing sets them (listener.go:
// buildALPNProtocols).
func tlsOptions(*topology.Listener) (topology.TLSOptions, error) {
	return topology.TLSOptions{ALPN: []string{"h2", "http/1.1"}}, nil
}

// Family is Envoy Gateway's family for internal/families to register: its
// controller, render target and deployment settings (its kinds are All's).
var Family = policy.Family{Name: "Envoy Gateway", Controller: &Controller, Target: &Target, Settings: Settings,
	ValidateRoute: validateRoute, CheckRule: checkRule, Listeners: judgeListeners, ConflictsInVerdict: true, StreamRoutes: streamRoutes, AncestorStatuses: ancestorStatuses,
	// helpers.go: computeHosts removes from the hostnames a route serves on
	// a listener the other same-port listeners' own hostnames.
	ExclusiveListenerHostnames: true,
	// validate.go: validateBackendRefGroup admits these groups, and
	// validateBackendRefKind and processDestination go by the kind alone.
	BackendGroups:  []string{"", serviceImport.Group, Group},
	ObjectVerdicts: objectVerdicts,
	Gateway:        gatewayVerdict,
	// processProxyObservability: a telemetry backend that does not
	// resolve leaves the Gateway translated but not accepted.
	GatewayReport: gatewayReport,
	// listenerset.go: processListenerSet, ProcessListenerSetStatus.
	ListenerSetConditions: listenerSetConditions,
	ForeignJudges:         map[model.GroupKind]func(*policy.Policy, *policy.Env) policy.Judgement{backendTLSPolicy: judgeBackendTLSPolicy},
	// It reports a BackendTLSPolicy against the parentRefs and calling
	// policies whose destinations it governs, Conflicted only beside an
	// earlier one with the same target key (backendtls_status.go).
	ForeignStatuses: map[model.GroupKind]policy.ForeignDecider{backendTLSPolicy: backendTLSStatuses},
	RuleNotes: map[string]string{
		topology.LintRuleNotProgrammed.Name: "On an Envoy Gateway Gateway the rule is Envoy Gateway's translator's to judge: a match or filter it cannot translate (an invalid header value, redirect scheme, rewrite, regular expression, unknown ExtensionRef kind, a mirror beside a direct response…) drops the rule (Accepted False, or PartiallyInvalid \"Dropped Rule(s)\"), and a backendRef or filter reference it cannot use (missing Service or port, ExternalName Service, Unix-socket, loopback or single-label Backend address, a filter a backendRef may not carry) answers 500 (ResolvedRefs False), with Envoy Gateway's reasons.",
		"policy-no-effect":                  "The mergeType is Envoy Gateway's.",
	}}
