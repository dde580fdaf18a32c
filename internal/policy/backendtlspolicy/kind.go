package backendtlspolicy

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// KindName is the policy kind, in the Gateway API group.
const KindName = "BackendTLSPolicy"

// Kind is the BackendTLSPolicy kind.
type Kind struct{}

// The hooks of the policy-kind contract (internal/policy/kind.go) that
// BackendTLSPolicy implements.
var (
	_ policy.Kind            = Kind{}
	_ policy.ConditionWriter = Kind{}
	_ policy.Untranslator    = Kind{}
)

// New returns the kind.
func New() Kind { return Kind{} }

// GroupKind implements policy.Kind.
func (Kind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: model.GatewayGroup, Kind: KindName}
}

// validationKey is the one merge key: a backend's TLS validation comes
// whole from one policy, the oldest (the Gateway API's conflict rule).
const validationKey = "validation"

var spec = policy.KindSpec{
	ConfigKey:         "backendTLSPolicy",
	MetadataKey:       "merge." + model.GatewayGroup + "/" + KindName,
	MetadataKeyCompat: "merge." + KindName + "." + model.GatewayGroup,
	Fields:            []policy.FieldSpec{{Key: validationKey, SpecPath: "spec.validation", Default: policy.AugmentedShallow, Cluster: policy.ClusterTransportSocket, Writes: []string{"cluster.transport_socket"}}},
	TargetKinds:       []policy.TargetKind{policy.TargetService, "Backend", "ServiceImport"},
	MaxAncestors:      16,
	Precedence:        true,
	GatewayAncestors:  true,
	OneWins:           true,
}

// Spec implements policy.Kind.
func (Kind) Spec() policy.KindSpec { return spec }

// BackendTLSPolicy is the object as gwpol reads it.
type BackendTLSPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec `json:"spec"`
}

// Spec is the policy's spec.
type Spec struct {
	TargetRefs []TargetRef `json:"targetRefs"`
	Validation Validation  `json:"validation"`
	Options    any         `json:"options,omitempty"`
}

// TargetRef names a backend in the policy's namespace; sectionName a port.
type TargetRef struct {
	Group       string  `json:"group"`
	Kind        string  `json:"kind"`
	Name        string  `json:"name"`
	SectionName *string `json:"sectionName,omitempty"`
}

// Validation is how the backend's certificate is checked.
type Validation struct {
	CACertificateRefs       []ObjectRef `json:"caCertificateRefs,omitempty"`
	WellKnownCACertificates *string     `json:"wellKnownCACertificates,omitempty"`
	Hostname                string      `json:"hostname"`
	SubjectAltNames         []any       `json:"subjectAltNames,omitempty"`
}

// ObjectRef is a local object reference (a CA certificate ConfigMap).
type ObjectRef struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// Decode implements policy.Kind.
func (k Kind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	var btp BackendTLSPolicy
	if !p.DecodeObject(&btp, env.Config) {
		return p
	}
	p.Created = btp.CreationTimestamp.Time
	for i, t := range btp.Spec.TargetRefs {
		r := policy.TargetRef{Group: t.Group, Kind: t.Kind, Name: t.Name, Path: fmt.Sprintf("spec.targetRefs[%d]", i)}
		if t.SectionName != nil {
			r.Section = *t.SectionName
		}
		p.Targets = append(p.Targets, r)
	}
	p.Values[validationKey] = &btp.Spec.Validation
	// kgateway reads the first CA certificate reference only
	// (buildTranslateFunc: CACertificateRefs[0]), so a later one that does
	// not resolve refuses nothing; Envoy Gateway, which reads them all,
	// judges them itself (ForeignJudges).
	// wellKnownCACertificates System is read before any reference.
	wk := btp.Spec.Validation.WellKnownCACertificates
	if refs := btp.Spec.Validation.CACertificateRefs; (wk == nil || *wk != "System") && len(refs) > 0 {
		if bad := caProblem(env.Model, o.Namespace, refs[0]); bad != nil {
			p.Data = bad
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.validation.caCertificateRefs[0]", "%s", bad.msg))
		}
	}
	return p
}

// unresolved is the kind-private state: why the CA reference does not
// resolve, with the ResolvedRefs reason kgateway gives it.
type unresolved struct{ reason, msg string }

// caProblem says why a CA certificate reference does not resolve, nil when
// it does. kgateway's buildTranslateFunc switches on the kind alone (the
// group is not read; no kind is a ConfigMap): a ConfigMap or a Secret in
// the policy's namespace (a LocalObjectReference; the Secret without a
// ReferenceGrant as it is local) whose ca.crt holds PEM certificates
// (sslutils.GetCACertFromConfigMap / GetCACertFromSecret; not checked when
// the object's data is not in the input); any other kind is InvalidKind.
func caProblem(m *model.Model, ns string, ref ObjectRef) *unresolved {
	const badRef = "InvalidCACertificateRef"
	switch ref.Kind {
	case "ConfigMap", "":
		cm := m.ConfigMap(ns, ref.Name)
		if cm == nil {
			return &unresolved{badRef, fmt.Sprintf("invalid CA certificate ref ConfigMap/%s: ConfigMap not found: %s/%s", ref.Name, ns, ref.Name)}
		}
		if err := cm.CAProblem(); err != nil {
			return &unresolved{badRef, fmt.Sprintf("invalid CA certificate ref ConfigMap/%s: %v", ref.Name, err)}
		}
	case "Secret":
		sec := m.Secret(ns, ref.Name)
		if sec == nil {
			return &unresolved{badRef, fmt.Sprintf("invalid CA certificate ref Secret/%s: Secret not found: %s/%s", ref.Name, ns, ref.Name)}
		}
		if err := sec.CAProblem(); err != nil {
			return &unresolved{badRef, fmt.Sprintf("invalid CA certificate ref Secret/%s: %v", ref.Name, err)}
		}
	default:
		// helpers.go: InvalidKindError, the group named when it has one.
		msg := fmt.Sprintf("unsupported certificate reference kind %q", ref.Kind)
		if ref.Group != "" {
			msg += fmt.Sprintf(" in group %q", ref.Group)
		}
		return &unresolved{"InvalidKind", msg}
	}
	return nil
}

// PolicyConditions implements policy.ConditionWriter with the Gateway
// API's BackendTLSPolicy conditions.
func (Kind) PolicyConditions(p *policy.Policy, lost bool) []policy.Condition {
	if bad, _ := p.Data.(*unresolved); bad != nil {
		return []policy.Condition{
			{Type: "ResolvedRefs", Status: "False", Reason: bad.reason, Message: bad.msg},
			{Type: "Accepted", Status: "False", Reason: "NoValidCACertificate", Message: bad.msg},
		}
	}
	resolved := policy.Condition{Type: "ResolvedRefs", Status: "True", Reason: "ResolvedRefs", Message: "Resolved all references"}
	if !p.IsValid() {
		var ms []string
		for _, d := range p.Invalid {
			ms = append(ms, d.Message)
		}
		return []policy.Condition{resolved, {Type: "Accepted", Status: "False", Reason: "Invalid", Message: strings.Join(ms, "; ")}}
	}
	if lost {
		return []policy.Condition{resolved, {Type: "Accepted", Status: "False", Reason: "Conflicted", Message: "Policy conflicts with higher priority policy"}}
	}
	return []policy.Condition{resolved, {Type: "Accepted", Status: "True", Reason: "Accepted", Message: "Policy accepted"}}
}
