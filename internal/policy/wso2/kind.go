package wso2

import (
	"fmt"
	"reflect"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/version"
)

// FieldChain is the kind's one mergeable field: the policy chain.
const FieldChain = "chain"

// Kinds are the two WSO2 kinds, sharing what their references resolve
// against: the gateway-controller's policy definitions and the policy
// engine's build manifest. Either may be nil (not given): without
// definitions only the form of a version is checked (GWP501), without an
// engine manifest GWP504 and GWP505 are skipped.
type Kinds struct {
	Definitions *version.Definitions
	Engine      *version.EngineManifest

	apiPolicy *APIPolicyKind
	restAPI   *RestAPIKind
}

// New returns the WSO2 kinds resolving against defs and engine (either may
// be nil).
func New(defs *version.Definitions, engine *version.EngineManifest) *Kinds {
	ks := &Kinds{Definitions: defs, Engine: engine}
	ks.apiPolicy = &APIPolicyKind{ks: ks}
	ks.restAPI = &RestAPIKind{ks: ks}
	return ks
}

// All lists the kinds for policy.NewRegistry: APIPolicy, then RestApi.
func (ks *Kinds) All() []policy.Kind { return []policy.Kind{ks.apiPolicy, ks.restAPI} }

// APIPolicy is the APIPolicy kind.
func (ks *Kinds) APIPolicy() *APIPolicyKind { return ks.apiPolicy }

// RestAPI is the RestApi kind.
func (ks *Kinds) RestAPI() *RestAPIKind { return ks.restAPI }

// Owns reports whether p is a policy of one of these kinds.
func (ks *Kinds) Owns(p *policy.Policy) bool {
	return ks != nil && p != nil && (p.Kind == policy.Kind(ks.apiPolicy) || p.Kind == policy.Kind(ks.restAPI))
}

func metadataKey(kind string) string { return "merge." + Group + "/" + kind }

func kindSpec(kind string, targets []policy.TargetKind, extRef bool) policy.KindSpec {
	return policy.KindSpec{
		ConfigKey:   "wso2",
		MetadataKey: metadataKey(kind), MetadataKeyCompat: "merge." + kind + "." + Group,
		Fields: []policy.FieldSpec{{Key: FieldChain, SpecPath: "spec.policies", Default: policy.Additive}},
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

var (
	_ policy.Kind     = (*APIPolicyKind)(nil)
	_ policy.Renderer = (*APIPolicyKind)(nil)
	_ policy.Kind     = (*RestAPIKind)(nil)
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

// served are the API versions gwpol reads; false marks a deprecated one.
var served = map[string]map[string]bool{
	KindAPIPolicy: {"v1alpha1": true},
	KindRestAPI:   {"v1": true, "v1alpha1": false},
}

// checkVersion reports an apiVersion gwpol does not read (the object is
// unusable) or a deprecated one.
func checkVersion(p *policy.Policy) bool {
	o := p.Obj
	current, ok := served[o.Kind][o.Version]
	switch {
	case !ok:
		latest := "v1alpha1"
		if o.Kind == KindRestAPI {
			latest = "v1"
		}
		p.Invalid = append(p.Invalid, p.Diag("GWP104", diag.Error, "apiVersion", "%s %s is not a version gwpol reads; use %s/%s", o.Kind, o.APIVersion, Group, latest))
		return false
	case !current:
		p.Findings = append(p.Findings, p.Diag("GWP104", diag.Warning, "apiVersion", "%s %s is deprecated; change apiVersion to %s/v1", o.Kind, o.APIVersion, Group))
	}
	return true
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
		if t.Name == "" {
			p.Invalid = append(p.Invalid, p.Diag("GWP401", diag.Error, "spec.targetRef", "spec.targetRef needs the name of the HTTPRoute the policies apply to"))
		} else {
			p.Targets = []policy.TargetRef{{Group: g, Kind: kind, Name: t.Name, Path: "spec.targetRef"}}
		}
	}
	if len(ap.Spec.Policies) == 0 {
		p.Invalid = append(p.Invalid, p.Diag("GWP401", diag.Error, "spec", "spec.policies must list at least one policy reference {name, version}"))
		return p
	}
	ch := &Chain{Level: level, Source: p.ID()}
	for i, r := range ap.Spec.Policies {
		ch.Refs = append(ch.Refs, k.ks.reference(p, fmt.Sprintf("spec.policies[%d]", i), r))
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
type OperationChain struct {
	Method, Path string
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
	api := &RestAPI{Spec: ra.Spec, API: &Chain{Level: LevelAPI, Source: p.ID()}, Upstream: upstreamURL(o)}
	for i, r := range ra.Spec.Policies {
		api.API.Refs = append(api.API.Refs, k.ks.reference(p, fmt.Sprintf("spec.policies[%d]", i), r))
	}
	for i, op := range ra.Spec.Operations {
		oc := OperationChain{Method: op.Method, Path: op.Path, Index: i, Chain: &Chain{Level: LevelOperation, Source: p.ID()}}
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
