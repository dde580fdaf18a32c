package directresponse

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group and kind names.
const (
	Group    = "gateway.kgateway.dev"
	KindName = "DirectResponse"
	// fieldKey is the one merge key: the answer.
	fieldKey = "directResponse"
)

// Kind is the DirectResponse kind.
type Kind struct{}

// The hooks of the policy-kind contract (internal/policy/kind.go) that
// DirectResponse implements.
var (
	_ policy.Kind     = Kind{}
	_ policy.Renderer = Kind{}
	_ policy.Answerer = Kind{}
)

// Answer implements policy.Answerer: the rule answers with the status.
func (Kind) Answer(key string, v any) (int, bool) {
	s, ok := v.(*Spec)
	if key != fieldKey || !ok {
		return 0, false
	}
	return int(s.Status), true
}

// New returns the kind.
func New() Kind { return Kind{} }

// GroupKind implements policy.Kind.
func (Kind) GroupKind() model.GroupKind { return model.GroupKind{Group: Group, Kind: KindName} }

// spec: attached only by ExtensionRef. kgateway answers a rule with two
// of them as an invalid one (500) and reports both attached: the rule is
// broken (SingleAnswer) and the answer merges deep, so that neither
// policy loses it.
var spec = policy.KindSpec{
	ConfigKey:        "directResponse",
	MetadataKey:      "merge." + Group + "/" + KindName,
	Fields:           []policy.FieldSpec{{Key: fieldKey, SpecPath: "spec", Deep: true, Default: policy.AugmentedDeep}},
	ExtensionRef:     true,
	SingleAnswer:     true,
	Attached:         true,
	MaxAncestors:     16,
	Precedence:       true,
	NoCompatMetadata: true,
}

// Spec implements policy.Kind.
func (Kind) Spec() policy.KindSpec { return spec }

// DirectResponse is the object as gwpol reads it.
type DirectResponse struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec"`
}

// Spec is the answer: a status and either a plain body or a formatted one
// (Envoy's substitution format, with an optional content type).
type Spec struct {
	Status     uint32      `json:"status"`
	Body       *string     `json:"body,omitempty"`
	BodyFormat *BodyFormat `json:"bodyFormat,omitempty"`
}

// BodyFormat is a body built per request.
type BodyFormat struct {
	Text        string  `json:"text"`
	ContentType *string `json:"contentType,omitempty"`
}

// Decode implements policy.Kind.
func (k Kind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	var dr DirectResponse
	if !p.DecodeObject(&dr, env.Config) {
		return p
	}
	p.Data = &dr
	p.Created = dr.CreationTimestamp.Time
	if dr.Spec.Status < 200 || dr.Spec.Status > 599 {
		p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.status", "spec.status %d is not an HTTP status (200-599)", dr.Spec.Status))
	}
	if dr.Spec.Body != nil && dr.Spec.BodyFormat != nil {
		p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.bodyFormat", "spec.body and spec.bodyFormat are exclusive"))
	}
	p.Values[fieldKey] = &dr.Spec
	return p
}
