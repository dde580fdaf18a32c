package kgateway

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DirectResponse's kind name (its group is Group).
const (
	DirectResponseKindName = "DirectResponse"
	// fieldKey is the one merge key: the answer.
	fieldKey = "directResponse"
)

// DirectResponseKind is the DirectResponse kind.
type DirectResponseKind struct{}

// The hooks of the policy-kind contract (internal/policy/kind.go) that
// DirectResponse implements.
var (
	_ policy.Kind     = DirectResponseKind{}
	_ policy.Renderer = DirectResponseKind{}
	_ policy.Answerer = DirectResponseKind{}
)

// Answer implements policy.Answerer: the rule answers with the status.
func (DirectResponseKind) Answer(key string, v any) (int, bool) {
	s, ok := v.(*DirectResponseSpec)
	if key != fieldKey || !ok {
		return 0, false
	}
	return int(s.Status), true
}

// NewDirectResponse returns the kind.
func NewDirectResponse() DirectResponseKind { return DirectResponseKind{} }

// GroupKind implements policy.Kind.
func (DirectResponseKind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: Group, Kind: DirectResponseKindName}
}

// directResponseSpec: attached only by ExtensionRef. kgateway answers a rule with two
// of them as an invalid one (500) and reports both attached: the rule is
// broken (SingleAnswer) and the answer merges deep, so that neither
// policy loses it.
var directResponseSpec = policy.KindSpec{
	ConfigKey:        "directResponse",
	MetadataKey:      "merge." + Group + "/" + DirectResponseKindName,
	Fields:           []policy.FieldSpec{{Key: fieldKey, SpecPath: "spec", Deep: true, Default: policy.AugmentedDeep, Writes: []string{"direct_response"}}},
	ExtensionRef:     true,
	SingleAnswer:     true,
	Attached:         true,
	MaxAncestors:     16,
	Precedence:       true,
	NoCompatMetadata: true,
}

// Spec implements policy.Kind.
func (DirectResponseKind) Spec() policy.KindSpec { return directResponseSpec }

// DirectResponse is the object as gwpol reads it.
type DirectResponse struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              DirectResponseSpec `json:"spec"`
}

// DirectResponseSpec is the answer: a status and either a plain body or a formatted one
// (Envoy's substitution format, with an optional content type).
type DirectResponseSpec struct {
	Status     uint32      `json:"status"`
	Body       *string     `json:"body,omitempty"`
	BodyFormat *BodyFormat `json:"bodyFormat,omitempty"`
}

// BodyFormat is a body built per request: a text format string or a JSON
// format object (exactly one, the CRD's rule), with an optional content
// type.
type BodyFormat struct {
	Text        *string        `json:"text,omitempty"`
	JSON        map[string]any `json:"json,omitempty"`
	ContentType *string        `json:"contentType,omitempty"`
}

// Decode implements policy.Kind.
func (k DirectResponseKind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
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
