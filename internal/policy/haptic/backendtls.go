package haptic

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// backendTLSPolicy is the Gateway API's BackendTLSPolicy, which HAPTIC
// reads by its own rule on the backends it builds (Family.ForeignJudges).
var backendTLSPolicy = model.GroupKind{Group: model.GatewayGroup, Kind: "BackendTLSPolicy"}

// HAPTIC's BackendTLSPolicy condition messages
// (gateway/73-status-policy.yaml@a7ac8a15:
// GenerateBackendTLSPolicyStatusPatch).
const (
	btlsResolved      = "All references resolved"
	btlsAccepted      = "Policy accepted"
	btlsInvalidKind   = "CACertificateRef points at an unsupported group / kind"
	btlsNoValidCA     = "No CACertificateRef resolves to a valid CA certificate (missing or malformed)"
	btlsNoCA          = "Validation must specify caCertificateRefs or wellKnownCACertificates"
	btlsConflictsWith = "Another BackendTLSPolicy already targets "
)

// usableCACertificate is how HAPTIC's data plane reads one CA certificate
// reference of a BackendTLSPolicy (gateway/30-backends.yaml@0c1a6446:
// util-generate-httproute-backends-gateway and its GRPCRoute sibling,
// caBundleParts): in the core group, a ConfigMap of the policy's
// namespace whose ca.crt is not empty, or a Secret there whose ca.crt is
// not empty — else its tls.crt, when that is not empty (`ok && caCrt !=
// ""`, then tls.crt: an empty ca.crt does not hide it, where the status
// says it does, readCACertificate). Any other group or kind is never
// usable; an object the input lacks but config assumes to exist is.
func usableCACertificate(m *model.Model, ns string, ref model.Key) (entry string, usable bool) {
	entry, usable, _ = readCACertificate(m, ns, ref, true)
	return entry, usable
}

// readCACertificate is how HAPTIC reads one CA certificate reference, with
// why it is not usable as a short phrase (empty for a group or kind HAPTIC
// does not read). dataPlane: as the backend's bundle takes it
// (usableCACertificate); else as the policy's status judges it
// (gateway/73-status-policy.yaml@a7ac8a15: GenerateBackendTLSPolicyStatusPatch's
// hasValid: a Secret's ca.crt when it has that entry, not empty, its
// tls.crt only when it has no ca.crt entry at all).
func readCACertificate(m *model.Model, ns string, ref model.Key, dataPlane bool) (entry string, usable bool, why string) {
	if ref.Group != "" && ref.Group != "core" {
		return "", false, ""
	}
	switch ref.Kind {
	case "ConfigMap":
		cm := m.ConfigMap(ns, ref.Name)
		if cm == nil {
			return "", false, fmt.Sprintf("ConfigMap %s/%s not found", ns, ref.Name)
		}
		if cm.Assumed || cm.Src == nil {
			return "ca.crt", true, ""
		}
		if v, ok := cm.Data("ca.crt"); ok && v.Len() > 0 {
			return "ca.crt", true, ""
		}
		return "", false, fmt.Sprintf("ConfigMap %s/%s has no ca.crt in data, or an empty one", ns, ref.Name)
	case "Secret":
		s := m.Secret(ns, ref.Name)
		if s == nil {
			return "", false, fmt.Sprintf("Secret %s/%s not found", ns, ref.Name)
		}
		if s.Assumed {
			return "ca.crt", true, ""
		}
		ca, hasCA := s.Value("ca.crt")
		if hasCA && ca.Len() > 0 {
			return "ca.crt", true, ""
		}
		if hasCA && !dataPlane {
			return "", false, fmt.Sprintf("Secret %s/%s has an empty ca.crt, behind which the status does not read tls.crt", ns, ref.Name)
		}
		if v, ok := s.Value("tls.crt"); ok && v.Len() > 0 {
			return "tls.crt", true, ""
		}
		return "", false, fmt.Sprintf("Secret %s/%s has neither ca.crt nor tls.crt", ns, ref.Name)
	}
	return "", false, ""
}

// judgeBackendTLSPolicy is HAPTIC's verdict on a BackendTLSPolicy its
// backends use (gateway/73-status-policy.yaml@a7ac8a15:
// GenerateBackendTLSPolicyStatusPatch; gateway/30-backends.yaml@0c1a6446:
// util-generate-httproute-backends-gateway): the backend trusts every CA
// reference that resolves, joined, and the policy is refused only when
// none does — ResolvedRefs False/InvalidKind when one of them is of a
// group or kind HAPTIC does not read, else InvalidCACertificateRef, and
// Accepted False/NoValidCACertificate; a validation with neither
// references nor wellKnownCACertificates is refused alike, and a
// wellKnownCACertificates other than System has ResolvedRefs False/Invalid
// while Accepted stays True. A refused policy's backend answers 503
// (btlsBroken: `http-request return status 503`), which the target's
// BlackholesInvalidBackendPolicy renders.
//
// The status and the backend read a Secret differently: behind an empty
// ca.crt the backend still trusts the Secret's tls.crt, which the status
// does not count. A policy the status refuses for that alone (no
// reference resolves for the status, one does for the backend) is
// reported refused, as HAPTIC writes it, but not Invalid: its backend
// forwards over TLS trusting what the data plane reads, as render shows,
// and a warning (Judgement.Notes) says the two differ.
func judgeBackendTLSPolicy(p *policy.Policy, env *policy.Env) policy.Judgement {
	var v struct {
		CACertificateRefs       []struct{ Group, Kind, Name string } `json:"caCertificateRefs"`
		WellKnownCACertificates string                               `json:"wellKnownCACertificates"`
	}
	raw, err := p.Obj.FieldJSON("spec.validation")
	if err != nil || json.Unmarshal(raw, &v) != nil {
		return policy.Judgement{} // the kind's decode reports it
	}
	accepted := policy.Condition{Type: "Accepted", Status: "True", Reason: "Accepted", Message: btlsAccepted}
	resolved := policy.Condition{Type: "ResolvedRefs", Status: "True", Reason: "ResolvedRefs", Message: btlsResolved}
	var refused, field string
	// whys: why each reference does not resolve for the status; served:
	// the references the backend trusts all the same (usableCACertificate)
	var whys, served []string
	switch {
	case len(v.CACertificateRefs) > 0:
		usable, otherKind := false, false
		for _, r := range v.CACertificateRefs {
			ref := model.Key{Group: r.Group, Kind: r.Kind, Namespace: p.Obj.Namespace, Name: r.Name}
			_, ok, why := readCACertificate(env.Model, p.Obj.Namespace, ref, false)
			if entry, built := usableCACertificate(env.Model, p.Obj.Namespace, ref); built && !ok {
				served = append(served, fmt.Sprintf("the %s of %s %s/%s", entry, r.Kind, p.Obj.Namespace, r.Name))
			}
			switch {
			case ok:
				usable = true
			case why == "":
				otherKind = true
				whys = append(whys, fmt.Sprintf("%s is not a core ConfigMap or Secret", refName(r.Group, r.Kind, r.Name)))
			default:
				whys = append(whys, why)
			}
		}
		if usable {
			break
		}
		resolved = policy.Condition{Type: "ResolvedRefs", Status: "False", Reason: "InvalidCACertificateRef", Message: btlsNoValidCA}
		if otherKind {
			resolved.Reason, resolved.Message = "InvalidKind", btlsInvalidKind
		}
		refused, field = resolved.Message, "spec.validation.caCertificateRefs"
	case v.WellKnownCACertificates != "":
		if v.WellKnownCACertificates != "System" {
			msg := "wellKnownCACertificates value " + v.WellKnownCACertificates + " is not recognised"
			resolved = policy.Condition{Type: "ResolvedRefs", Status: "False", Reason: "Invalid", Message: msg}
			refused, field = msg, "spec.validation.wellKnownCACertificates"
		}
	default:
		resolved = policy.Condition{Type: "ResolvedRefs", Status: "False", Reason: "InvalidCACertificateRef", Message: btlsNoCA}
		refused, field = btlsNoCA, "spec.validation"
	}
	var j policy.Judgement
	if refused == "" {
		j.Conditions = []policy.Condition{accepted, resolved}
		return j
	}
	if resolved.Reason != "Invalid" {
		accepted = policy.Condition{Type: "Accepted", Status: "False", Reason: "NoValidCACertificate", Message: refused}
	}
	j.Conditions = []policy.Condition{accepted, resolved}
	because := ""
	if len(whys) > 0 {
		because = " (" + strings.Join(whys, "; ") + ")"
	}
	if len(served) > 0 {
		j.Notes = []diag.Diagnostic{p.Diag(policy.LintPolicyInvalid.Code, diag.Warning, field,
			"HAPTIC's status refuses the policy: %s%s; yet its backend trusts %s and forwards over TLS (the data plane reads a Secret's tls.crt behind an empty ca.crt, the status does not) — drop the empty ca.crt entry so both agree",
			refused, because, strings.Join(served, ", "))}
		return j
	}
	j.Invalid = []diag.Diagnostic{p.Diag(policy.LintPolicyInvalid.Code, diag.Error, field, "%s%s; the backend answers 503", refused, because)}
	return j
}

// refName is a CA certificate reference as a message names it.
func refName(group, kind, name string) string {
	if group != "" {
		return kind + "." + group + "/" + name
	}
	return kind + "/" + name
}
