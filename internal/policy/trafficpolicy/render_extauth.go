package trafficpolicy

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/policy"
)

// extAuth: one ext_authz filter per GatewayExtension (deep merge keeps
// several), honouring the family's disable marker through
// filter_enabled_metadata.
func (r *fieldRenderer) extAuth() ([]policy.Fragment, error) {
	var out []policy.Fragment
	enabled := false // some contributor authorizes (not all disable)
	for i, val := range r.in.Values {
		v, ok := val.(*ExtAuthPolicy)
		if !ok {
			return nil, fmt.Errorf("unexpected value %T", val)
		}
		if v.Disable != nil {
			out = append(out, disableMarker("ext_authz", "ext_auth", orderExtAuth-1))
			continue
		}
		ext, ns, err := r.extension(v.ExtensionRef, r.ns(i))
		if err != nil {
			return nil, err
		}
		p := ext.Spec.ExtAuth
		if p == nil {
			return nil, fmt.Errorf("GatewayExtension %s/%s has no extAuth", ns, ext.Name)
		}
		cfg := obj{
			"@type": typeURL("envoy.extensions.filters.http.ext_authz.v3.ExtAuthz"),
			"filter_enabled_metadata": obj{"filter": "dev.kgateway.disable_ext_auth", "path": []any{obj{"key": "disable"}},
				"value": obj{"bool_match": true}, "invert": true},
			"status_on_error": obj{"code": "Forbidden"},
		}
		var cl map[string]any
		switch {
		case p.GrpcService != nil:
			var name string
			name, cl = serviceCluster(p.GrpcService.BackendRef.BackendObjectReference, ns, true)
			gs := obj{"envoy_grpc": obj{"cluster_name": name}}
			if p.GrpcService.Authority != nil {
				gs["envoy_grpc"].(obj)["authority"] = *p.GrpcService.Authority
			}
			if p.GrpcService.RequestTimeout != nil {
				t, err := parseDur(*p.GrpcService.RequestTimeout)
				if err != nil {
					return nil, fmt.Errorf("grpcService.requestTimeout: %w", err)
				}
				gs["timeout"] = t
			}
			cfg["grpc_service"] = gs
		case p.HTTPService != nil:
			h := p.HTTPService
			var name string
			name, cl = serviceCluster(h.BackendRef.BackendObjectReference, ns, false)
			// kgateway's defaults: the cluster name as the URI (Envoy sends
			// to the cluster either way) and a 2s timeout.
			timeout := "2s"
			if h.RequestTimeout != nil {
				if timeout, err = parseDur(*h.RequestTimeout); err != nil {
					return nil, fmt.Errorf("httpService.requestTimeout: %w", err)
				}
			}
			hs := obj{"server_uri": obj{"uri": name, "cluster": name, "timeout": timeout}}
			if h.PathPrefix != "" {
				hs["path_prefix"] = h.PathPrefix
			}
			cfg["http_service"] = hs
		default:
			return nil, fmt.Errorf("GatewayExtension %s/%s: extAuth needs grpcService or httpService", ns, ext.Name)
		}
		if p.FailOpen != nil {
			cfg["failure_mode_allow"] = *p.FailOpen
		}
		if p.ClearRouteCache != nil {
			cfg["clear_route_cache"] = *p.ClearRouteCache
		}
		if p.StatusOnError != nil {
			cfg["status_on_error"] = obj{"code": statusName(*p.StatusOnError)}
		}
		if p.StatPrefix != nil {
			cfg["stat_prefix"] = *p.StatPrefix
		}
		if b := p.WithRequestBody; b != nil {
			cfg["with_request_body"] = requestBody(b)
		}
		// Switched on as configured in the chain (kgateway's FilterConfig),
		// or with the policy's own check settings.
		per := enabledConfig()
		if len(v.ContextExtensions) > 0 || v.WithRequestBody != nil {
			per = obj{"@type": typeURL("envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute")}
			cs := obj{}
			if len(v.ContextExtensions) > 0 {
				cs["context_extensions"] = v.ContextExtensions
			}
			if v.WithRequestBody != nil {
				cs["with_request_body"] = requestBody(v.WithRequestBody)
			}
			per["check_settings"] = cs
		}
		fr := fragment("ext_authz", "ext_auth/"+ns+"/"+ext.Name, orderExtAuth, cfg, per)
		fr.Filter.Precedence = r.extensionWeight(ext)
		fr.Clusters = []map[string]any{cl}
		out = append(out, familyMarker("ext_authz", "ext_auth", orderExtAuth-1), fr)
		enabled = true
	}
	return append(out, r.authMetadata("ext_authz", "ext_auth", orderExtAuth+1, !enabled)...), nil
}

// requestBody is ext_authz's with_request_body.
func requestBody(b *ExtAuthBufferSettings) obj {
	o := obj{"max_request_bytes": b.MaxRequestBytes}
	if b.AllowPartialMessage != nil {
		o["allow_partial_message"] = *b.AllowPartialMessage
	}
	if b.PackAsBytes != nil {
		o["pack_as_bytes"] = *b.PackAsBytes
	}
	return o
}

// statusName is the envoy.type.v3.StatusCode name of an HTTP status.
func statusName(code int32) string {
	names := map[int32]string{400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 429: "TooManyRequests",
		500: "InternalServerError", 502: "BadGateway", 503: "ServiceUnavailable", 504: "GatewayTimeout"}
	if n, ok := names[code]; ok {
		return n
	}
	return "Forbidden"
}
