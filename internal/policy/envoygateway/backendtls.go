package envoygateway

import (
	"encoding/json"
	"fmt"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// The upstream TLS Envoy Gateway builds for a destination
// (backendtlspolicy.go: applyBackendTLSSetting), in its order: a
// Backend's own CA certificates and client certificate, then the
// BackendTLSPolicy governing the backend port. Route backends and the
// services a policy calls (ext_service.go) are built alike, so both ask
// here; a problem refuses the destination (a route's InvalidBackendTLS,
// a calling policy's Invalid).

// destinationTLSProblem is what applyBackendTLSSetting finds wrong with
// backend k's port (Envoy Gateway's error, "" when none). spec is the
// Backend's when k is one (nil otherwise, or when it does not decode).
func destinationTLSProblem(env *policy.Env, k model.Key, port int32, spec *egv1a1.BackendSpec) string {
	if spec != nil && spec.TLS != nil {
		if msg := backendOwnTLSProblem(env, k, spec); msg != "" {
			return msg
		}
	}
	governed := false
	for _, bp := range env.BackendPolicies(k, port) {
		if bp.Policy.Group != model.GatewayGroup || bp.Policy.Kind != "BackendTLSPolicy" {
			continue
		}
		governed = true
		if bp.WellKnown {
			continue
		}
		if msg := caCertsProblem(env, bp.Refs); msg != "" {
			return msg
		}
	}
	if !governed && spec != nil && spec.TLS != nil && !backendOwnCA(spec.TLS) {
		return noCACertificate
	}
	return ""
}

// noCACertificate is applyBackendTLSSetting's refusal of merged upstream
// TLS settings that verify the peer without a CA: a Backend's own TLS
// that neither skips verification nor trusts the system's nor lists CA
// certificates (tls: {}, or a wellKnownCACertificates other than System),
// with no BackendTLSPolicy on the port to give one. A route's Backend
// validation refuses most of these first (backendTLSProblem); a policy's
// backends are not validated so, and reach it.
const noCACertificate = "CACertificate must be specified when InsecureSkipVerify is false"

// backendOwnCA: a Backend's TLS settings give the merged settings a CA or
// skip verification (processServerValidationTLSSettings; its CA
// references resolved, which backendOwnTLSProblem checked first).
func backendOwnCA(tls *egv1a1.BackendTLSSettings) bool {
	skip := tls.InsecureSkipVerify != nil && *tls.InsecureSkipVerify
	system := tls.WellKnownCACertificates != nil && *tls.WellKnownCACertificates == "System"
	return skip || system || len(tls.CACertificateRefs) > 0
}

// backendOwnTLSProblem is processServerValidationTLSSettings and
// processClientTLSSettings for a Backend: its own CA certificates, unless
// it skips verification or trusts the system's; then its client
// certificate Secret, in the Backend's namespace (whatever the
// ReferenceGrants: processClientTLSSettings grants none; a route's Backend
// validation says so first, a policy's backends meet it here).
func backendOwnTLSProblem(env *policy.Env, k model.Key, spec *egv1a1.BackendSpec) string {
	tls := spec.TLS
	skip := tls.InsecureSkipVerify != nil && *tls.InsecureSkipVerify
	system := tls.WellKnownCACertificates != nil && *tls.WellKnownCACertificates == "System"
	if !skip && !system && len(tls.CACertificateRefs) > 0 {
		var refs []model.Key
		for _, ref := range tls.CACertificateRefs {
			refs = append(refs, model.Key{Group: string(ref.Group), Kind: string(ref.Kind), Namespace: k.Namespace, Name: string(ref.Name)})
		}
		if msg := caCertsProblem(env, refs); msg != "" {
			return msg
		}
	}
	if ref := clientCertificateRef(tls); ref != nil {
		if ref.Namespace != nil && *ref.Namespace != "" && string(*ref.Namespace) != k.Namespace {
			return fmt.Sprintf("ClientCertificateRef Secret is not located in the same namespace as Backend. Secret namespace: %s does not match Backend namespace: %s", *ref.Namespace, k.Namespace)
		}
		return clientCertificateProblem(env, k, string(ref.Name))
	}
	return ""
}

// clientCertificateProblem is processClientTLSSettings' Secret lookup:
// it exists, and an SDS reference Secret is allowed and well formed. Its
// message names the Secret in the owner's namespace, as Envoy Gateway's
// does.
func clientCertificateProblem(env *policy.Env, owner model.Key, name string) string {
	s := env.Model.Secret(owner.Namespace, name)
	switch {
	case s == nil:
		return fmt.Sprintf("failed to locate TLS secret for client auth: %s/%s specified in %s %s/%s", owner.Namespace, name, owner.Kind, owner.Namespace, owner.Name)
	case s.Assumed || secretType(s) != sdsSecretType:
		return ""
	case !EnableSDSSecretRef.Bool(env.Config):
		return sdsDisabled()
	}
	if err := sdsReference(s); err != nil {
		return fmt.Sprintf("invalid SDS reference secret: %v", err)
	}
	return ""
}

// sdsDisabled is Envoy Gateway's refusal of an SDS reference Secret when
// its deployment does not enable them, with the key that says it does.
func sdsDisabled() string {
	return "SDS Secret reference is not enabled in EnvoyGateway configuration (" + enables(EnableSDSSecretRef) + ")"
}

// caCertsProblem is getCaCertsFromCARefs over CA certificate references
// in their owner's namespace (a Backend's or a BackendTLSPolicy's: no
// ReferenceGrant applies). Each ConfigMap or Secret must exist and hold a
// CA — its ca.crt, else its tls.crt, else its only entry — or be an SDS
// reference (allowed, well formed, one, and not beside certificates);
// each ClusterTrustBundle must exist. References of other kinds are
// skipped, and none of a supported kind is an unsupported kind; CA
// entries that are all empty are no valid CA.
func caCertsProblem(env *policy.Env, refs []model.Key) string {
	return caCertsProblemGranted(env, refs, nil)
}

// caCertsProblemGranted is caCertsProblem where each reference is first
// checked by permitted (nil: none is), whose error ("" when it is
// permitted) stops there: getCaCertsFromCARefs for an owner whose
// references may name another namespace (a Gateway's frontend
// validation).
func caCertsProblemGranted(env *policy.Env, refs []model.Key, permitted func(model.Key) string) string {
	supported, sds, ca := false, false, 0
	for _, ref := range refs {
		if permitted != nil {
			if msg := permitted(ref); msg != "" {
				return msg
			}
		}
		switch ref.Kind {
		case "ConfigMap":
			supported = true
			cm := env.Model.ConfigMap(ref.Namespace, ref.Name)
			if cm == nil {
				return fmt.Sprintf("configmap %s not found in namespace %s", ref.Name, ref.Namespace)
			}
			n, ok := configMapCALen(cm)
			if !ok {
				return fmt.Sprintf("no ca found in configmap %s", ref.Name)
			}
			ca += n
		case "Secret":
			supported = true
			s := env.Model.Secret(ref.Namespace, ref.Name)
			if s == nil {
				return fmt.Sprintf("secret %s not found in namespace %s", ref.Name, ref.Namespace)
			}
			if !s.Assumed && secretType(s) == sdsSecretType {
				if msg := sdsCAProblem(env, s, sds); msg != "" {
					return msg
				}
				sds = true
				continue
			}
			n, ok := secretCALen(s)
			if !ok {
				return fmt.Sprintf("no ca found in secret %s", ref.Name)
			}
			ca += n
		case "ClusterTrustBundle":
			supported = true
			b := env.Model.ClusterTrustBundle(ref.Name)
			if b == nil {
				return fmt.Sprintf("cluster trust bundle %s not found", ref.Name)
			}
			if b.Assumed {
				ca++
			}
			ca += len(b.TrustBundle)
		}
	}
	switch {
	case sds && ca > 0:
		return "cannot mix SDS reference secrets with other CA certificate types"
	case sds:
		return ""
	case ca == 0 && !supported:
		return unsupportedCAKind + " in caCertificateRefs"
	case ca == 0:
		return noValidCA
	}
	return ""
}

// noValidCA is ErrNoValidCACertificate.
const noValidCA = "no valid CA certificate found in referenced resources"

// unsupportedCAKind is ErrInvalidCACertificateKind: no reference of a
// kind getCaCertsFromCARefs reads.
const unsupportedCAKind = "Unsupported reference kind, supported kinds are ConfigMap, Secret, and ClusterTrustBundle"

// sdsCAProblem: an SDS reference Secret as a CA is allowed, well formed,
// and the only one (seen: one came before).
func sdsCAProblem(env *policy.Env, s *model.Opaque, seen bool) string {
	switch {
	case !EnableSDSSecretRef.Bool(env.Config):
		return sdsDisabled()
	case seen:
		return "multiple SDS reference secrets are not supported"
	}
	if err := sdsReference(s); err != nil {
		return fmt.Sprintf("invalid SDS reference secret %s: %v", s.Name, err)
	}
	return ""
}

// caKeys are the entries Envoy Gateway takes a CA from, in its order
// (getFirstMatchOrFirstFromData), before an object's only entry.
var caKeys = []string{"ca.crt", "tls.crt"}

// secretCALen is the length of the Secret's CA entry, and whether it has
// one; a Secret assumed to exist holds one.
func secretCALen(s *model.Opaque) (int, bool) {
	if s.Assumed {
		return 1, true
	}
	for _, k := range caKeys {
		if v, ok := s.Value(k); ok {
			return v.Len(), true
		}
	}
	if len(s.Keys) == 1 {
		v, _ := s.Value(s.Keys[0])
		return v.Len(), true
	}
	return 0, false
}

// configMapCALen is secretCALen for a ConfigMap, whose CA Envoy Gateway
// reads from data only (binaryData is not looked at).
func configMapCALen(cm *model.Opaque) (int, bool) {
	if cm.Assumed || cm.Src == nil {
		return 1, true
	}
	for _, k := range caKeys {
		if v, ok := cm.Data(k); ok {
			return v.Len(), true
		}
	}
	if keys := cm.DataKeys(); len(keys) == 1 {
		v, _ := cm.Data(keys[0])
		return v.Len(), true
	}
	return 0, false
}

// backendTLSPolicy is the Gateway API's BackendTLSPolicy, whose status
// Envoy Gateway writes by its own rules on the destinations it builds.
var backendTLSPolicy = model.GroupKind{Group: model.GatewayGroup, Kind: "BackendTLSPolicy"}

// judgeBackendTLSPolicy is Envoy Gateway's verdict on a BackendTLSPolicy
// a destination uses (backendtlspolicy.go: processBackendTLSPolicy): its
// CA certificates judged by getCaCertsFromCARefs (none when it trusts the
// system's). Refused: ResolvedRefs and Accepted False —
// NoValidCACertificate, with InvalidCACertificateRef, or InvalidKind when
// no reference is of a kind it reads; else both True.
func judgeBackendTLSPolicy(p *policy.Policy, env *policy.Env) policy.Judgement {
	var v struct {
		CACertificateRefs       []struct{ Group, Kind, Name string } `json:"caCertificateRefs"`
		WellKnownCACertificates *string                              `json:"wellKnownCACertificates"`
	}
	raw, err := p.Obj.FieldJSON("spec.validation")
	if err != nil || json.Unmarshal(raw, &v) != nil {
		return policy.Judgement{} // the kind's decode reports it
	}
	unreached := unreachedBackends(p, env)
	msg := ""
	if v.WellKnownCACertificates == nil || *v.WellKnownCACertificates != "System" {
		refs := make([]model.Key, len(v.CACertificateRefs))
		for i, r := range v.CACertificateRefs {
			refs[i] = model.Key{Group: r.Group, Kind: r.Kind, Namespace: p.Obj.Namespace, Name: r.Name}
		}
		msg = caCertsProblem(env, refs)
	}
	if msg == "" {
		return policy.Judgement{Conditions: []policy.Condition{
			{Type: "ResolvedRefs", Status: "True", Reason: "ResolvedRefs", Message: "Resolved all the Object references."},
			{Type: "Accepted", Status: "True", Reason: "Accepted", Message: "Policy has been accepted."},
		}, Conflicted: backendTLSConflicted, Unreached: unreached}
	}
	msg = conditionMessage(msg)
	resolved := "InvalidCACertificateRef"
	if strings.HasPrefix(msg, unsupportedCAKind) {
		resolved = "InvalidKind"
	}
	field := "spec.validation"
	if len(v.CACertificateRefs) > 0 {
		field += ".caCertificateRefs"
	}
	return policy.Judgement{
		Conditions: []policy.Condition{
			{Type: "ResolvedRefs", Status: "False", Reason: resolved, Message: msg},
			{Type: "Accepted", Status: "False", Reason: "NoValidCACertificate", Message: msg},
		},
		Invalid:    []diag.Diagnostic{p.Diag(policy.LintPolicyInvalid.Code, diag.Error, field, "%s", msg)},
		Conflicted: backendTLSConflicted,
		Unreached:  unreached,
	}
}

// unreachedBackends are the Backends p targets whose own TLS settings
// Envoy Gateway refuses (backendOwnTLSProblem), with its error:
// applyBackendTLSSetting reads a Backend's CA certificates and client
// certificate before it calls processBackendTLSPolicy, and returns on
// their error, so no destination to such a Backend — a route's or a
// calling policy's — ever looks for p: p gets no ancestor there, and its
// own references are not judged there. Nil when there are none.
func unreachedBackends(p *policy.Policy, env *policy.Env) map[model.Key]string {
	var out map[model.Key]string
	for _, t := range p.Targets {
		if t.Group != Group || t.Kind != backend.Kind {
			continue
		}
		k := targetKey(p, t)
		if _, done := out[k]; done {
			continue
		}
		spec, _ := readBackend(env, env.Model, k.Namespace, k.Name)
		if spec == nil || spec.TLS == nil {
			continue
		}
		if msg := backendOwnTLSProblem(env, k, spec); msg != "" {
			if out == nil {
				out = map[model.Key]string{}
			}
			out[k] = msg
		}
	}
	return out
}

// backendTLSConflicted is what Envoy Gateway writes on a BackendTLSPolicy
// that targets what an earlier one does (ProcessBackendTLSPolicyStatus):
// it never builds the later policy there (getBackendTLSPolicy takes the
// first that matches), so the ancestor holds Accepted=False alone, naming
// the policy that took the target — whatever the later one's own
// references are.
func backendTLSConflicted(winner *policy.Policy) []policy.Condition {
	return []policy.Condition{{Type: "Accepted", Status: "False", Reason: "Conflicted",
		Message: fmt.Sprintf("Policy conflicts with BackendTLSPolicy %s/%s.", winner.Obj.Namespace, winner.Obj.Name)}}
}
