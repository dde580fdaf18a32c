package envoygateway

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// A Gateway's own TLS settings (spec.tls), as Envoy Gateway v1.9.0 reads
// them for each Gateway it translates, before its listeners
// (listener.go: ProcessGatewayTLS): the frontend validation's CA
// certificates — the default's, then each port's — and the backend
// client certificate. The Gateway's ResolvedRefs says whether they
// resolve (its last failure standing), InsecureFrontendValidationMode
// that a valid validation allows an insecure fallback, and each HTTPS
// listener takes its port's validation, else the default, whose failure
// refuses it (validate.go: validateTLSConfiguration).

// frontendCAProblem is getCaCertsFromCARefs on a frontend validation's
// CA references, owned by the Gateway gw: one in another namespace needs
// a ReferenceGrant from the Gateway; then caCertsProblem's rule. Its
// error as Envoy Gateway words it, "" when the CA resolves.
func frontendCAProblem(env *policy.Env, gw *model.Gateway, v *gwv1.FrontendTLSValidation) string {
	refs := make([]model.Key, len(v.CACertificateRefs))
	for i, r := range v.CACertificateRefs {
		ns := gw.Namespace
		if r.Namespace != nil {
			ns = string(*r.Namespace)
		}
		refs[i] = model.Key{Group: string(r.Group), Kind: string(r.Kind), Namespace: ns, Name: string(r.Name)}
	}
	permitted := func(ref model.Key) string {
		if ref.Namespace == gw.Namespace || env.Model.GrantAllows(model.GatewayGroup, "Gateway", gw.Namespace, model.ObjectRefTo(ref)) {
			return ""
		}
		return fmt.Sprintf("%s for caCertificateRef %s/%s (kind: %s, namespace: %s)", refNotPermitted, ref.Group, ref.Name, ref.Kind, ref.Namespace)
	}
	return caCertsProblemGranted(env, refs, permitted)
}

// refNotPermitted is ErrRefNotPermitted.
const refNotPermitted = "cross-namespace reference is not permitted by any ReferenceGrant"

// frontendCAReason is the listener reason Envoy Gateway gives a frontend
// validation error (validate.go: validateTLSConfiguration, errors.Is).
func frontendCAReason(problem string) string {
	switch {
	case strings.HasPrefix(problem, unsupportedCAKind):
		return string(gwv1.ListenerReasonInvalidCACertificateKind)
	case problem == noValidCA:
		return string(gwv1.ListenerReasonNoValidCACertificate)
	case strings.HasPrefix(problem, refNotPermitted):
		return string(gwv1.ListenerReasonRefNotPermitted)
	}
	return string(gwv1.ListenerReasonInvalidCACertificateRef)
}

// listenerFrontendProblem is the frontend validation error of the HTTPS
// listener l's port, else the default's ("" when none, or it resolves):
// a port's entry without a validation turns the default off there.
func listenerFrontendProblem(env *policy.Env, gw *model.Gateway, port gwv1.PortNumber) string {
	tls := gw.Spec.TLS
	if tls == nil || tls.Frontend == nil {
		return ""
	}
	v := tls.Frontend.Default.Validation
	for _, pp := range tls.Frontend.PerPort {
		if pp.Port == port {
			v = pp.TLS.Validation
			break
		}
	}
	if v == nil {
		return ""
	}
	return frontendCAProblem(env, gw, v)
}

// gatewayTLSConditions are the Gateway conditions ProcessGatewayTLS
// writes on a Gateway with spec.tls, with a finding at the field of each
// failure: ResolvedRefs False for a frontend validation whose CA does
// not resolve ("Failed to get default frontend CA certs for gateway: …",
// per port "Failed to get frontend CA certs for gateway: …"), a backend
// client certificate reference of another kind or group
// (InvalidClientCertificateRef), in another namespace without a
// ReferenceGrant (RefNotPermitted), missing or without tls.crt and
// tls.key (InvalidClientCertificateRef) — the last written standing —,
// else True; and InsecureFrontendValidationMode True when a validation
// that resolves allows an insecure fallback.
func gatewayTLSConditions(env *policy.Env, gw *model.Gateway) ([]metav1.Condition, []diag.Diagnostic) {
	tls := gw.Spec.TLS
	if tls == nil {
		return nil, nil
	}
	var resolved *metav1.Condition
	var ds []diag.Diagnostic
	fail := func(reason, msg, path string) {
		resolved = &metav1.Condition{Type: "ResolvedRefs", Status: metav1.ConditionFalse, Reason: reason, Message: msg}
		ds = append(ds, diag.Diagnostic{Code: LintGatewayTLSUnresolved.Code, Severity: LintGatewayTLSUnresolved.Severity, Object: gw.Src.Ref(), Field: path, Pos: gw.Src.FieldPos(path),
			Message: fmt.Sprintf("Gateway %s/%s: Envoy Gateway reports ResolvedRefs=False (%s: %s)", gw.Namespace, gw.Name, reason, msg)})
	}
	insecure, frontendOK, backendOK := false, true, true
	if f := tls.Frontend; f != nil {
		if v := f.Default.Validation; v != nil {
			if msg := frontendCAProblem(env, gw, v); msg != "" {
				fail(string(gwv1.GatewayReasonInvalidParameters), "Failed to get default frontend CA certs for gateway: "+msg, "spec.tls.frontend.default.validation.caCertificateRefs")
				frontendOK = false
			} else if v.Mode == gwv1.AllowInsecureFallback {
				insecure = true
			}
		}
		for i, pp := range f.PerPort {
			v := pp.TLS.Validation
			if v == nil {
				continue
			}
			if msg := frontendCAProblem(env, gw, v); msg != "" {
				fail(string(gwv1.GatewayReasonInvalidParameters), "Failed to get frontend CA certs for gateway: "+msg, fmt.Sprintf("spec.tls.frontend.perPort[%d].tls.validation.caCertificateRefs", i))
				frontendOK = false
			} else if v.Mode == gwv1.AllowInsecureFallback {
				insecure = true
			}
		}
	}
	if b := tls.Backend; b != nil && b.ClientCertificateRef != nil {
		const path = "spec.tls.backend.clientCertificateRef"
		ref := b.ClientCertificateRef
		kind, group := "Secret", ""
		if ref.Kind != nil {
			kind = string(*ref.Kind)
		}
		if ref.Group != nil {
			group = string(*ref.Group)
		}
		ns := gw.Namespace
		if ref.Namespace != nil {
			ns = string(*ref.Namespace)
		}
		s := env.Model.Secret(ns, string(ref.Name))
		backendOK = false
		switch {
		case kind != "Secret":
			fail(string(gwv1.GatewayReasonInvalidClientCertificateRef), "Invalid backend client certificate reference for gateway: invalid client certificate reference kind: "+kind, path)
		case group != "":
			fail(string(gwv1.GatewayReasonInvalidClientCertificateRef), "Invalid backend client certificate reference for gateway: invalid client certificate reference group: "+group, path)
		case ns != gw.Namespace && !env.Model.GrantAllows(model.GatewayGroup, "Gateway", gw.Namespace, model.ObjectRefTo{Group: group, Kind: kind, Namespace: ns, Name: string(ref.Name)}):
			fail(string(gwv1.GatewayReasonRefNotPermitted), "invalid cross-namespace reference to backend client certificate", path)
		case s == nil:
			fail(string(gwv1.GatewayReasonInvalidClientCertificateRef), "failed to get backend client certs for gateway", path)
		case !s.Assumed && (!hasData(s, "tls.crt") || !hasData(s, "tls.key")):
			fail(string(gwv1.GatewayReasonInvalidClientCertificateRef), fmt.Sprintf("invalid backend client cert secret for gateway: secret %s/%s must contain 'tls.crt' and 'tls.key' fields", ns, ref.Name), path)
		default:
			backendOK = true
		}
	}
	var conds []metav1.Condition
	if frontendOK && backendOK {
		conds = append(conds, metav1.Condition{Type: "ResolvedRefs", Status: metav1.ConditionTrue, Reason: string(gwv1.GatewayReasonResolvedRefs), Message: "Successfully resolved all TLS references for the gateway"})
	} else {
		conds = append(conds, *resolved)
	}
	if insecure {
		conds = append(conds, metav1.Condition{Type: "InsecureFrontendValidationMode", Status: metav1.ConditionTrue, Reason: string(gwv1.GatewayReasonConfigurationChanged),
			Message: "Gateway is using AllowInsecureFallback frontend validation mode."})
	}
	return conds, ds
}

// hasData: the Secret has the key (a nil value is none: Envoy Gateway
// reads Data[key] != nil).
func hasData(s *model.Opaque, key string) bool {
	_, ok := s.Value(key)
	return ok
}

// LintGatewayTLSUnresolved is the finding of a Gateway whose own TLS
// references (spec.tls) Envoy Gateway does not resolve.
var LintGatewayTLSUnresolved = diag.Rule{Code: "GWP228", Name: "gateway-tls-unresolved", Severity: diag.Error,
	Title: "Envoy Gateway Gateway whose spec.tls references do not resolve",
	Doc: "An Envoy Gateway Gateway's frontend validation CA certificates (the default's or a port's) do not resolve — a ConfigMap, Secret or ClusterTrustBundle missing or without a CA, " +
		"another namespace's without a ReferenceGrant, no reference of a supported kind —, or its backend client certificate reference is not a core Secret, is in another namespace without a ReferenceGrant, " +
		"is missing or lacks tls.crt and tls.key. Envoy Gateway writes the Gateway ResolvedRefs False; an HTTPS listener whose validation fails is not accepted or programmed (no client reaches it), " +
		"and a backend client certificate that fails is presented to no backend."}
