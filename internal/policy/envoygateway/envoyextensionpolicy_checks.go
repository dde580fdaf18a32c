package envoygateway

import (
	"fmt"
	"slices"
	"time"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
)

// extension runs the checks of Envoy Gateway's EnvoyExtensionPolicy
// translation that the rest of the kind's decode does not (the backends:
// validateReferences; Lua: checkLuaSyntax and the ConfigMap check; dynamic
// modules: checkDynamicModules): per Wasm module (buildWasm, every
// module's error joined) its code source, the CA certificate reference of
// its TLS settings and its image pull Secret; per external processor
// (buildExtProc) that it has backendRefs, its backendSettings
// (translateTrafficFeatures) and the message timeout. Downloading the module and
// comparing its checksum is not done (gwpol never fetches).
// docs/controllers/envoygateway-checks.md lists each check with its source.
func (v valueChecks) extension(s *egv1a1.EnvoyExtensionPolicySpec, m *model.Model) {
	for i, w := range s.Wasm {
		path := []string{fmt.Sprintf("wasm[%d]", i), "code"}
		if msg := v.wasmCode(m, w.Code); msg != "" {
			v.invalid(path, "Wasm: %s.", msg)
		}
	}
	for i, e := range s.ExtProc {
		at := fmt.Sprintf("extProc[%d]", i)
		if len(e.BackendRefs) == 0 {
			// buildExtProc reads backendRefs alone
			// (translateExtServiceBackendRefs): none is an error, even
			// with the deprecated backendRef set
			v.invalid([]string{at, "backendRefs"}, "ExtProc: no backendRefs found for external service.")
			continue
		}
		// buildExtProc stops at its first error: the backends
		// (validateReferences reported theirs), the backendSettings, then
		// the message timeout.
		if reportedUnder(v.p.Invalid, "spec."+at) || v.trafficFeatures(e.BackendSettings, "ExtProc", at, "backendSettings") {
			continue
		}
		if t := e.MessageTimeout; t != nil {
			if _, err := time.ParseDuration(string(*t)); err != nil {
				v.invalid([]string{at, "messageTimeout"}, "ExtProc: invalid ExtProc MessageTimeout value %s.", *t)
			}
		}
	}
}

// wasmCode is buildWasm's checks of a code source: the field its type
// names is set, its TLS CA certificate reference resolves (key ca.crt, or
// a single entry), and an image's pull Secret resolves and holds
// .dockerconfigjson.
func (v valueChecks) wasmCode(m *model.Model, code egv1a1.WasmCodeSource) string {
	var tls *egv1a1.WasmCodeSourceTLSConfig
	var pull *gwv1.SecretObjectReference
	switch code.Type {
	case egv1a1.HTTPWasmCodeSourceType:
		if code.HTTP == nil {
			return "missing HTTP field in Wasm code source"
		}
		tls = code.HTTP.TLS
	case egv1a1.ImageWasmCodeSourceType:
		if code.Image == nil {
			return "missing Image field in Wasm code source"
		}
		tls, pull = code.Image.TLS, code.Image.PullSecretRef
	default:
		return fmt.Sprintf("unsupported Wasm code source type %q", code.Type)
	}
	if tls != nil {
		if msg := v.dataRefFrom(m, "EnvoyExtensionPolicy", secretObjectRef(tls.CACertificateRef), "ca.crt"); msg != "" {
			return msg
		}
	}
	if pull == nil {
		return ""
	}
	s, msg := v.secretRefFrom(m, "EnvoyExtensionPolicy", secretObjectRef(*pull))
	if msg != "" {
		return msg
	}
	if !s.Assumed && !slices.Contains(s.Keys, ".dockerconfigjson") {
		return fmt.Sprintf("missing .dockerconfigjson key in secret %s/%s", s.Namespace, s.Name)
	}
	return ""
}
