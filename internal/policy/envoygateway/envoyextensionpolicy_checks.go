package envoygateway

import (
	"fmt"
	"slices"
	"time"

	"github.com/gwpol/gwpol/internal/model"
)

// extension runs the checks of Envoy Gateway's EnvoyExtensionPolicy
// translation that the rest of the kind's decode does not (the backends:
// validateReferences; Lua: checkLuaSyntax and the ConfigMap check; dynamic
// modules: checkDynamicModules): per Wasm module (buildWasm, every
// module's error joined) its code source, the CA certificate reference of
// its TLS settings and its image pull Secret; per external processor
// (buildExtProc) the message timeout. Downloading the module and
// comparing its checksum is not done (gwpol never fetches).
// docs/controllers/envoygateway-checks.md lists each check with its source.
func (v valueChecks) extension(m *model.Model) {
	wasms, _ := v.at("wasm").([]any)
	for i, w := range wasms {
		wasm, _ := w.(map[string]any)
		code, _ := wasm["code"].(map[string]any)
		path := []string{fmt.Sprintf("wasm[%d]", i), "code"}
		if msg := v.wasmCode(m, code); msg != "" {
			v.invalid(path, "Wasm: %s.", msg)
		}
	}
	procs, _ := v.at("extProc").([]any)
	for i, e := range procs {
		proc, _ := e.(map[string]any)
		if s, ok := proc["messageTimeout"].(string); ok {
			if _, err := time.ParseDuration(s); err != nil {
				v.invalid([]string{fmt.Sprintf("extProc[%d]", i), "messageTimeout"}, "ExtProc: invalid ExtProc MessageTimeout value %s.", s)
			}
		}
	}
}

// wasmCode is buildWasm's checks of a code source: the field its type
// names is set, its TLS CA certificate reference resolves (key ca.crt, or
// a single entry), and an image's pull Secret resolves and holds
// .dockerconfigjson.
func (v valueChecks) wasmCode(m *model.Model, code map[string]any) string {
	typ, _ := code["type"].(string)
	var src map[string]any
	switch typ {
	case "HTTP":
		var ok bool
		if src, ok = code["http"].(map[string]any); !ok {
			return "missing HTTP field in Wasm code source"
		}
	case "Image":
		var ok bool
		if src, ok = code["image"].(map[string]any); !ok {
			return "missing Image field in Wasm code source"
		}
	default:
		return fmt.Sprintf("unsupported Wasm code source type %q", typ)
	}
	if tls, ok := src["tls"].(map[string]any); ok {
		ref, _ := tls["caCertificateRef"].(map[string]any)
		if msg := v.dataRefFrom(m, "EnvoyExtensionPolicy", ref, "ca.crt"); msg != "" {
			return msg
		}
	}
	ref, ok := src["pullSecretRef"].(map[string]any)
	if typ != "Image" || !ok {
		return ""
	}
	s, msg := v.secretRefFrom(m, "EnvoyExtensionPolicy", ref)
	if msg != "" {
		return msg
	}
	if !s.Assumed && !slices.Contains(s.Keys, ".dockerconfigjson") {
		return fmt.Sprintf("missing .dockerconfigjson key in secret %s/%s", s.Namespace, s.Name)
	}
	return ""
}
