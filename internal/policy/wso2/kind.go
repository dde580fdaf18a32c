package wso2

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policyversion"
	"github.com/gwpol/gwpol/internal/topology"
)

// FieldChain is the kind's one mergeable field: the policy chain.
const FieldChain = "chain"

// Kinds are the two WSO2 kinds, sharing what their references resolve
// against: the gateway-controller's policy definitions and the policy
// engine's build manifest. Either may be nil (not given): without
// definitions only the form of a version is checked (GWP501), without an
// engine manifest GWP504 and GWP505 are skipped.
type Kinds struct {
	Definitions *policyversion.Definitions
	Engine      *policyversion.EngineManifest

	apiPolicy *APIPolicyKind
	restAPI   *RestAPIKind
	others    []*APIKind
	// found is what the compile found that explain shows (SetFound).
	found Found
	// routeStatus is the operator's verdict on each route it reconciles
	// (operatorRoutes), which status reads (RouteConditions).
	routeStatus map[*topology.Route]*routeVerdict
	// opNotes are, per rule of a route the operator builds an API from,
	// the operations it builds and what the gateway-controller serves of
	// them (operatorRoutes), which explain shows (RuleNotes).
	opNotes map[*topology.Rule][]string
}

// New returns the WSO2 kinds resolving against defs and engine (either may
// be nil).
func New(defs *policyversion.Definitions, engine *policyversion.EngineManifest) *Kinds {
	ks := &Kinds{Definitions: defs, Engine: engine}
	ks.apiPolicy = &APIPolicyKind{ks: ks}
	ks.restAPI = &RestAPIKind{ks: ks}
	for _, k := range []string{KindLlmProvider, KindLlmProxy, KindMcp} {
		ks.others = append(ks.others, &APIKind{ks: ks, kind: k, resolved: true})
	}
	ks.others = append(ks.others, &APIKind{ks: ks, kind: KindWebSubAPI})
	return ks
}

// All lists the kinds for policy.NewRegistry: APIPolicy, RestApi, then the
// other API kinds with policy references.
func (ks *Kinds) All() []policy.Kind {
	out := []policy.Kind{ks.apiPolicy, ks.restAPI}
	for _, k := range ks.others {
		out = append(out, k)
	}
	return out
}

// APIPolicy is the APIPolicy kind.
func (ks *Kinds) APIPolicy() *APIPolicyKind { return ks.apiPolicy }

// RestAPI is the RestApi kind.
func (ks *Kinds) RestAPI() *RestAPIKind { return ks.restAPI }

// Owns reports whether p is a policy of one of these kinds.
func (ks *Kinds) Owns(p *policy.Policy) bool {
	return ks != nil && p != nil && slices.Contains(ks.All(), p.Kind)
}

func metadataKey(kind string) string { return "merge." + Group + "/" + kind }

func kindSpec(kind string, targets []policy.TargetKind, extRef bool) policy.KindSpec {
	return policy.KindSpec{
		ConfigKey:   "wso2",
		MetadataKey: metadataKey(kind), MetadataKeyCompat: "merge." + kind + "." + Group,
		Fields: []policy.FieldSpec{{Key: FieldChain, SpecPath: "spec.policies", Default: policy.Additive,
			Writes: []string{"http_filter.envoy.filters.http.ext_proc/*", "typed_per_filter_config.envoy.filters.http.ext_proc/*", "metadata.filter_metadata." + metadataKey(kind), "clusters.*"}}},
		// The Gateway API caps policy status at 16 ancestors.
		TargetKinds: targets, ExtensionRef: extRef, MaxAncestors: 16,
	}
}

var (
	apiPolicySpec = kindSpec(KindAPIPolicy, []policy.TargetKind{policy.TargetHTTPRoute}, true)
	restAPISpec   = kindSpec(KindRestAPI, nil, false)
)

// APIPolicyKind is gateway.api-platform.wso2.com APIPolicy.
type APIPolicyKind struct{ ks *Kinds }

// RestAPIKind is gateway.api-platform.wso2.com RestApi. It attaches to
// nothing: a RestApi is an API of its own, and its chains are read by
// explain (and lint) rather than merged onto Gateway API routes.
type RestAPIKind struct{ ks *Kinds }

// The hooks of the policy-kind contract (internal/policy/kind.go) that
// APIPolicy and RestApi implement.
var (
	_ policy.Kind            = (*APIPolicyKind)(nil)
	_ policy.Renderer        = (*APIPolicyKind)(nil)
	_ policy.RuleNoter       = (*APIPolicyKind)(nil)
	_ policy.Kind            = (*RestAPIKind)(nil)
	_ policy.ObjectStatuser  = (*RestAPIKind)(nil)
	_ policy.ObjectExplainer = (*RestAPIKind)(nil)
	_ policy.Standalone      = (*RestAPIKind)(nil)
)

// GroupKind implements policy.Kind.
func (*APIPolicyKind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: Group, Kind: KindAPIPolicy}
}

// Spec implements policy.Kind.
func (*APIPolicyKind) Spec() policy.KindSpec { return apiPolicySpec }

// GroupKind implements policy.Kind.
func (*RestAPIKind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: Group, Kind: KindRestAPI}
}

// Spec implements policy.Kind.
func (*RestAPIKind) Spec() policy.KindSpec { return restAPISpec }

// served are the API versions of each kind the operator's CRDs serve
// (kubernetes/gateway-operator/config/crd/bases): v1 is the storage
// version, v1alpha1 is still served and not marked deprecated, so neither
// gets a GWP104.
var served = map[string][]string{
	KindAPIPolicy:   {"v1", "v1alpha1"},
	KindRestAPI:     {"v1", "v1alpha1"},
	KindLlmProvider: {"v1", "v1alpha1"},
	KindLlmProxy:    {"v1", "v1alpha1"},
	KindMcp:         {"v1", "v1alpha1"},
	KindWebSubAPI:   {"v1", "v1alpha1"},
}

// checkVersion reports an apiVersion gwpol does not read (the object is
// unusable): GWP111, as for every kind.
func checkVersion(p *policy.Policy) bool {
	o := p.Obj
	if slices.Contains(served[o.Kind], o.Version) {
		return true
	}
	p.Invalid = append(p.Invalid, p.Diag(model.LintVersionNotServed.Code, diag.Error, "apiVersion", "%s %s is not a version the WSO2 operator serves (%s); use %s/v1",
		o.Kind, o.APIVersion, strings.Join(served[o.Kind], ", "), Group))
	return false
}

func unknownFields(p *policy.Policy, us []manifest.UnknownField, cfg policy.Config) {
	p.Findings = append(p.Findings, policy.UnknownFieldFindings(p.Obj, us, cfg.LenientFields)...)
}

// Decode implements policy.Kind.
func (k *APIPolicyKind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	if !checkVersion(p) {
		return p
	}
	var ap APIPolicy
	if !p.DecodeObject(&ap, env.Config) {
		return p
	}
	p.Data = &ap
	p.Created = ap.CreationTimestamp.Time
	level := LevelRule
	if t := ap.Spec.TargetRef; t != nil {
		level = LevelAPI
		g := t.Group
		if g == "" {
			g = model.GatewayGroup
		}
		kind := t.Kind
		if kind == "" {
			kind = string(policy.TargetHTTPRoute)
		}
		switch ns := strings.TrimSpace(t.Namespace); {
		case t.Name == "":
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.targetRef", "spec.targetRef needs the name of the HTTPRoute the policies apply to"))
		case !targetRefNamespaceOK(t, o.Namespace):
			p.Invalid = append(p.Invalid, p.Diag(policy.LintTargetNotFound.Code, diag.Error, "spec.targetRef.namespace",
				"spec.targetRef names HTTPRoute %s/%s, but the operator applies an APIPolicy only to HTTPRoutes in its own namespace (%s); it applies to no route; move the APIPolicy to %s", ns, t.Name, o.Namespace, ns))
		default:
			p.Targets = []policy.TargetRef{{Group: g, Kind: kind, Name: t.Name, Path: "spec.targetRef"}}
		}
	}
	if len(ap.Spec.Policies) == 0 {
		p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec", "spec.policies must list at least one policy reference {name, version}"))
		return p
	}
	ch := &Chain{Level: level, Source: p.ID()}
	for i, r := range ap.Spec.Policies {
		ch.Refs = append(ch.Refs, k.ks.reference(p, fmt.Sprintf("spec.policies[%d]", i), r))
	}
	if level == LevelAPI {
		duplicateNames(p, ch)
	}
	p.Values[FieldChain] = ch
	return p
}

// RestAPI is a decoded RestApi with its chains (the Data of its policy).
type RestAPI struct {
	Spec RestAPISpec
	// API is the API-level chain (spec.policies); Operations have their own.
	API        *Chain
	Operations []OperationChain
	// Upstream is spec.upstream.main.url, when set.
	Upstream string
}

// OperationChain is one operation with its operation-level chain.
// Method and Path come from the match form when the operation uses it;
// PathType (Exact, PathPrefix) and Headers only from there.
type OperationChain struct {
	Method, Path string
	PathType     string
	Headers      []string
	Index        int
	Chain        *Chain
}

// Decode implements policy.Kind.
func (k *RestAPIKind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	if !checkVersion(p) {
		return p
	}
	var ra RestApi
	if err := o.Decode(&ra); err != nil {
		p.ReportDecodeErrors([]error{err})
		return p
	}
	refsType := reflect.TypeFor[[]PolicyRef]()
	unknownFields(p, o.UnknownFieldsAt("spec.policies", refsType), env.Config)
	for i := range ra.Spec.Operations {
		unknownFields(p, o.UnknownFieldsAt(fmt.Sprintf("spec.operations[%d].policies", i), refsType), env.Config)
	}
	checkArtifactID(p)
	checkRestAPI(p, ra.Spec)
	api := &RestAPI{Spec: ra.Spec, API: &Chain{Level: LevelAPI, Source: p.ID()}, Upstream: upstreamURL(o)}
	for i, r := range ra.Spec.Policies {
		api.API.Refs = append(api.API.Refs, k.ks.reference(p, fmt.Sprintf("spec.policies[%d]", i), r))
	}
	duplicateNames(p, api.API)
	for i, op := range ra.Spec.Operations {
		oc := OperationChain{Method: op.Method, Path: op.Path, Index: i, Chain: &Chain{Level: LevelOperation, Source: p.ID()}}
		if m := op.Match; m != nil {
			oc.Method, oc.Path, oc.PathType, oc.Headers = m.Method, m.Path.Value, m.Path.Type, m.Matches()
		}
		for j, r := range op.Policies {
			oc.Chain.Refs = append(oc.Chain.Refs, k.ks.reference(p, fmt.Sprintf("spec.operations[%d].policies[%d]", i, j), r))
		}
		api.Operations = append(api.Operations, oc)
	}
	p.Data = api
	if len(api.API.Refs) > 0 {
		p.Values[FieldChain] = api.API
	}
	return p
}

// duplicateNames reports API-level references that share a name. The
// gateway-controller keys the API-level policies by name while it builds
// each operation's chain (DerivePolicyFromAPIConfig), so the last entry of
// a name replaces the earlier ones, and the chain runs that last entry once
// for every time the name is listed: the earlier params never take effect.
func duplicateNames(p *policy.Policy, ch *Chain) {
	last := map[string]*Reference{}
	count := map[string]int{}
	for _, r := range ch.Refs {
		last[r.Name] = r
		count[r.Name]++
	}
	for _, r := range ch.Refs {
		l := last[r.Name]
		if l == r || r.Name == "" {
			continue
		}
		p.Findings = append(p.Findings, diag.Diagnostic{Code: LintDuplicateAPIPolicy.Code, Severity: diag.Warning, Object: p.Ref(), Field: r.Path + ".name", Pos: p.Obj.FieldPos(r.Path + ".name"),
			Message: fmt.Sprintf("API-level policy %s is listed %d times; the gateway-controller keys API-level policies by name, so %s.params and executionCondition replace this entry's, and that entry runs %d times in every operation's chain; fix: list %s once at API level (or move the variants to operations)",
				r.Name, count[r.Name], l.Path, count[r.Name], r.Name)})
		r.Problems = append(r.Problems, LintDuplicateAPIPolicy.Code)
	}
}

func upstreamURL(o *manifest.Object) string {
	if n := o.Lookup("spec.upstream.main.url"); n != nil {
		return n.Value
	}
	return ""
}

// RestAPIOf returns the decoded RestApi of a policy, when it is one that
// decoded.
func RestAPIOf(p *policy.Policy) (*RestAPI, bool) {
	if p == nil {
		return nil, false
	}
	a, ok := p.Data.(*RestAPI)
	return a, ok
}

// ChainOf returns an APIPolicy's (or RestApi's API-level) chain.
func ChainOf(p *policy.Policy) (*Chain, bool) {
	if p == nil {
		return nil, false
	}
	c, ok := p.Values[FieldChain].(*Chain)
	return c, ok
}
