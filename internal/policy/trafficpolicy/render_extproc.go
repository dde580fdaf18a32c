package trafficpolicy

import (
	"fmt"

	"strings"

	"github.com/gwpol/gwpol/internal/policy"
)

// extProc: one ext_proc filter per GatewayExtension, wrapped so the
// family's disable marker switches it off (ext_proc has no switch of its
// own).
func (r *fieldRenderer) extProc() ([]policy.Fragment, error) {
	var out []policy.Fragment
	for i, val := range r.in.Values {
		v, ok := val.(*ExtProcPolicy)
		if !ok {
			return nil, fmt.Errorf("unexpected value %T", val)
		}
		if v.Disable != nil {
			out = append(out, disableMarker("ext_proc", "ext_proc", orderExtProc-1))
			continue
		}
		ext, ns, err := r.extension(v.ExtensionRef, r.ns(i))
		if err != nil {
			return nil, err
		}
		p := ext.Spec.ExtProc
		if p == nil {
			return nil, fmt.Errorf("GatewayExtension %s/%s has no extProc", ns, ext.Name)
		}
		name, cl := serviceCluster(p.GrpcService.BackendRef.BackendObjectReference, ns, true)
		cfg := obj{
			"@type":        typeURL("envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor"),
			"grpc_service": obj{"envoy_grpc": obj{"cluster_name": name}},
		}
		cfg["failure_mode_allow"] = p.FailOpen == nil || *p.FailOpen
		if p.ProcessingMode != nil {
			cfg["processing_mode"] = processingMode(p.ProcessingMode)
		}
		if p.MessageTimeout != nil {
			t, err := parseDur(*p.MessageTimeout)
			if err != nil {
				return nil, fmt.Errorf("messageTimeout: %w", err)
			}
			cfg["message_timeout"] = t
		}
		if p.StatPrefix != nil {
			cfg["stat_prefix"] = *p.StatPrefix
		}
		per := obj{"@type": typeURL("envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute"), "overrides": obj{}}
		if v.ProcessingMode != nil {
			per["overrides"] = obj{"processing_mode": processingMode(v.ProcessingMode)}
		}
		fr := fragment("ext_proc", "ext_proc/"+ns+"/"+ext.Name, orderExtProc, unlessDisabled("ext_proc", "envoy.filters.http.ext_proc", cfg), per)
		if p.FilterStage != nil {
			fr.Filter.Precedence = p.FilterStage.Weight // its weight within the stage, higher first
		}
		fr.Clusters = []map[string]any{cl}
		out = append(out, familyMarker("ext_proc", "ext_proc", orderExtProc-1), fr)
	}
	return out, nil
}

// processingMode is Envoy's ProcessingMode, each mode an enum name.
func processingMode(m *ProcessingMode) obj {
	out := obj{}
	set := func(key, v string) {
		if v != "" {
			out[key] = enumName(v)
		}
	}
	set("request_header_mode", m.RequestHeaderMode)
	set("response_header_mode", m.ResponseHeaderMode)
	set("request_body_mode", m.RequestBodyMode)
	set("response_body_mode", m.ResponseBodyMode)
	set("request_trailer_mode", m.RequestTrailerMode)
	set("response_trailer_mode", m.ResponseTrailerMode)
	return out
}

// enumName is the Envoy enum value name of a policy's enum string.
// kgateway's API spells most enums as Envoy does (NONE, BUFFERED_PARTIAL),
// which are kept as they are; a CamelCase spelling (BufferedPartial)
// becomes BUFFERED_PARTIAL. Splitting an upper-case name at each capital
// would mangle NONE into N_O_N_E.
func enumName(s string) string {
	if strings.ToUpper(s) == s {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && c >= 'A' && c <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(c)
	}
	return strings.ToUpper(b.String())
}
