package kgateway

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// ListenerKind is kgateway's ListenerPolicy: listener and HCM settings on
// a Gateway (or ListenerSet). It merges like a TrafficPolicy on a Gateway.
type ListenerKind struct{}

// ListenerPolicy implements no optional hook of the policy-kind contract.
var _ policy.Kind = ListenerKind{}

// NewListenerPolicy returns the ListenerPolicy kind.
func NewListenerPolicy() ListenerKind { return ListenerKind{} }

// GroupKind implements policy.Kind.
func (ListenerKind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: Group, Kind: KindListenerPolicy}
}

// listenerFields are kgateway's MergeOrigins keys for a ListenerPolicy's
// default section, with the spec field each comes from. kgateway names
// some keys after the HCM setting they produce rather than the spec field
// (idleTimeout → mergeIdleTimeout, healthCheck → healthCheckPolicy,
// localReplies → localReplyConfig, earlyRequestHeaderModifier →
// earlyHeaderMutationExtensions), records the access log under two keys
// (the sinks and their compiled configuration), and splits
// forwardClientCertDetails into its mode and details.
// listenerField is one setting of a ListenerConfig: its MergeOrigins key,
// spec path, the Envoy paths it writes (policy.FieldSpec.Writes) and its
// value.
type listenerField struct {
	key, path string
	writes    []string
	get       func(*ListenerConfig) any
}

var listenerFields = []listenerField{
	{keyAccessLog, "spec.default.httpSettings.accessLog", []string{"hcm.access_log", "clusters.*"}, func(c *ListenerConfig) any { return accessLog(c) }},
	{keyAccessLogConfig, "spec.default.httpSettings.accessLog", []string{"hcm.access_log", "clusters.*"}, func(c *ListenerConfig) any { return accessLog(c) }},
	httpField("tracing", "tracing", []string{"hcm.tracing", "clusters.*"}, func(h *HTTPSettings) any { return h.Tracing }),
	httpField("upgradeConfig", "upgradeConfig", []string{"hcm.upgrade_configs"}, func(h *HTTPSettings) any { return h.UpgradeConfig }),
	httpField("useRemoteAddress", "useRemoteAddress", []string{"hcm.use_remote_address"}, func(h *HTTPSettings) any { return h.UseRemoteAddress }),
	httpField("xffConfig", "useRemoteAddress", []string{"hcm.original_ip_detection_extensions"}, xffConfig),
	httpField("xffNumTrustedHops", "xffNumTrustedHops", []string{"hcm.xff_num_trusted_hops"}, func(h *HTTPSettings) any {
		if remoteAddressOff(h) {
			return nil // part of xffConfig
		}
		return h.XffNumTrustedHops
	}),
	httpField("skipXffAppend", "skipXFFAppend", []string{"hcm.skip_xff_append"}, func(h *HTTPSettings) any { return h.SkipXFFAppend }),
	httpField("preserveExternalRequestId", "preserveExternalRequestId", []string{"hcm.preserve_external_request_id"}, func(h *HTTPSettings) any { return h.PreserveExternalRequestID }),
	httpField("generateRequestId", "generateRequestId", []string{"hcm.generate_request_id"}, func(h *HTTPSettings) any { return h.GenerateRequestID }),
	httpField("serverHeaderTransformation", "serverHeaderTransformation", []string{"hcm.server_header_transformation"}, func(h *HTTPSettings) any { return h.ServerHeaderTransformation }),
	httpField("serverName", "serverName", []string{"hcm.server_name"}, func(h *HTTPSettings) any { return h.ServerName }),
	httpField("mergeStreamIdleTimeout", "streamIdleTimeout", []string{"hcm.stream_idle_timeout"}, func(h *HTTPSettings) any { return h.StreamIdleTimeout }),
	httpField("mergeIdleTimeout", "idleTimeout", []string{"hcm.common_http_protocol_options.idle_timeout"}, func(h *HTTPSettings) any { return h.IdleTimeout }),
	httpField("maxHeadersCount", "maxHeadersCount", []string{"hcm.common_http_protocol_options.max_headers_count"}, func(h *HTTPSettings) any { return h.MaxHeadersCount }),
	httpField("maxRequestHeadersKb", "maxRequestHeadersKb", []string{"hcm.max_request_headers_kb"}, func(h *HTTPSettings) any { return h.MaxRequestHeadersKb }),
	httpField("maxRequestsPerConnection", "maxRequestsPerConnection", []string{"hcm.common_http_protocol_options.max_requests_per_connection"}, func(h *HTTPSettings) any {
		if h.MaxRequestsPerConnection == nil || *h.MaxRequestsPerConnection == 0 {
			return nil // 0 is Envoy's "unlimited", kgateway's unset
		}
		return h.MaxRequestsPerConnection
	}),
	httpField("http2ProtocolOptions", "http2ProtocolOptions", []string{"hcm.http2_protocol_options"}, func(h *HTTPSettings) any { return h.HTTP2ProtocolOptions }),
	httpField("healthCheckPolicy", "healthCheck", []string{"http_filter.envoy.filters.http.health_check"}, func(h *HTTPSettings) any { return h.HealthCheck }),
	httpField("preserveHttp1HeaderCase", "preserveHttp1HeaderCase", []string{"hcm.http_protocol_options.header_key_format"}, func(h *HTTPSettings) any { return h.PreserveHTTP1HeaderCase }),
	httpField("acceptHttp10", "acceptHttp10", []string{"hcm.http_protocol_options.accept_http_10"}, func(h *HTTPSettings) any { return h.AcceptHTTP10 }),
	httpField("defaultHostForHttp10", "defaultHostForHttp10", []string{"hcm.http_protocol_options.default_host_for_http_10"}, func(h *HTTPSettings) any { return h.DefaultHostForHTTP10 }),
	httpField("earlyHeaderMutationExtensions", "earlyRequestHeaderModifier", []string{"hcm.early_header_mutation_extensions"}, earlyHeaderModifier),
	httpField("uuidRequestIdConfig", "uuidRequestIdConfig", []string{"hcm.request_id_extension"}, func(h *HTTPSettings) any { return h.UUIDRequestIDConfig }),
	httpField("stripHostPortMode", "stripHostPortMode", []string{"hcm.strip_any_host_port", "hcm.strip_matching_host_port"}, func(h *HTTPSettings) any { return h.StripHostPortMode }),
	httpField("stripTrailingHostDot", "stripTrailingHostDot", []string{"hcm.strip_trailing_host_dot"}, func(h *HTTPSettings) any { return h.StripTrailingHostDot }),
	httpField("proxy100Continue", "proxy100Continue", []string{"hcm.proxy_100_continue"}, func(h *HTTPSettings) any { return h.Proxy100Continue }),
	httpField("localReplyConfig", "localReplies", []string{"hcm.local_reply_config"}, func(h *HTTPSettings) any { return h.LocalReplies }),
	httpField("forwardClientCertDetails.mode", "forwardClientCertDetails.mode", []string{"hcm.forward_client_cert_details"}, func(h *HTTPSettings) any {
		if h.ForwardClientCertDetails == nil {
			return nil
		}
		if f := h.ForwardClientCertDetails; f.Mode == nil && f.Details != nil {
			// details without a mode: kgateway sets SanitizeSet, so the
			// details take effect (Envoy's default, Sanitize, strips the
			// header)
			mode := "SanitizeSet"
			return &mode
		}
		return h.ForwardClientCertDetails.Mode
	}),
	httpField("forwardClientCertDetails.details", "forwardClientCertDetails.details", []string{"hcm.set_current_client_cert_details"}, func(h *HTTPSettings) any {
		if h.ForwardClientCertDetails == nil {
			return nil
		}
		return h.ForwardClientCertDetails.Details
	}),
	{"default.proxyProtocol", "spec.default.proxyProtocol", []string{"listener.listener_filters"}, func(c *ListenerConfig) any { return c.ProxyProtocol }},
	{"default.tcpKeepalive", "spec.default.tcpKeepalive", []string{"listener.tcp_keepalive"}, func(c *ListenerConfig) any { return c.TCPKeepalive }},
	{"default.perConnectionBufferLimitBytes", "spec.default.perConnectionBufferLimitBytes", []string{"listener.per_connection_buffer_limit_bytes"}, func(c *ListenerConfig) any { return c.PerConnectionBufferLimitBytes }},
	{"default.transportSocketConnectTimeout", "spec.default.transportSocketConnectTimeout", []string{"chain.transport_socket_connect_timeout"}, func(c *ListenerConfig) any { return c.TransportSocketConnectTimeout }},
}

// httpField is a listenerFields entry for an httpSettings field: key and spec
// path are under default.httpSettings.
func httpField(key, field string, writes []string, get func(*HTTPSettings) any) listenerField {
	return listenerField{"default.httpSettings." + key, "spec.default.httpSettings." + field, writes, func(c *ListenerConfig) any {
		if c.HTTPSettings == nil {
			return nil
		}
		return get(c.HTTPSettings)
	}}
}

// remoteAddressOff: useRemoteAddress false makes kgateway take the client
// address from X-Forwarded-For through the xff original-IP extension.
func remoteAddressOff(h *HTTPSettings) bool {
	return h.UseRemoteAddress != nil && !*h.UseRemoteAddress
}

// xffSettings are the settings the xff original-IP extension takes, under
// the spec's names (in the order explain prints them).
type xffSettings struct {
	SkipXFFAppend     *bool    `json:"skipXFFAppend"`
	XffNumTrustedHops *int32   `json:"xffNumTrustedHops"`
	XffTrustedCIDRs   []string `json:"xffTrustedCIDRs"`
}

// xffConfig is that extension's configuration: the trusted hops and CIDRs.
func xffConfig(h *HTTPSettings) any {
	if !remoteAddressOff(h) {
		return nil
	}
	return &xffSettings{SkipXFFAppend: h.SkipXFFAppend, XffNumTrustedHops: h.XffNumTrustedHops, XffTrustedCIDRs: h.XffTrustedCIDRs}
}

func accessLog(c *ListenerConfig) any {
	if c.HTTPSettings == nil || len(c.HTTPSettings.AccessLog) == 0 {
		return nil
	}
	return c.HTTPSettings.AccessLog
}

var listenerSpec = func() policy.KindSpec {
	s := policy.KindSpec{
		ConfigKey:         "listenerPolicy",
		MetadataKey:       "merge." + Group + "/" + KindListenerPolicy,
		MetadataKeyCompat: "merge." + KindListenerPolicy + "." + Group,
		TargetKinds:       []policy.TargetKind{policy.TargetGateway, policy.TargetListenerSet},
		Attached:          true,
		MaxAncestors:      16,
		Precedence:        true,
		// kgateway reports a setting it cannot build on the policy and
		// leaves it out of the listener; the rest of the policy applies.
		InvalidKeepsValidFields: true,
	}
	for _, f := range listenerFields {
		s.Fields = append(s.Fields, policy.FieldSpec{Key: f.key, SpecPath: f.path, Default: policy.AugmentedShallow, PortWide: portWide[f.key], ChainWide: !portWide[f.key], Writes: f.writes})
	}
	s.Fields = append(s.Fields,
		policy.FieldSpec{Key: keyClientCertValidation, SpecPath: "spec.default.clientCertificateValidation", Default: policy.AugmentedShallow, ChainWide: true,
			Writes: []string{"tls.common_tls_context.validation_context_type", "tls.require_client_certificate"}},
		// one field per port, merged whole: kgateway's perPortPolicy[80]
		policy.FieldSpec{Key: keyPerPort, SpecPath: "spec.perPort", Default: policy.AugmentedShallow, Family: true,
			Writes: perPortWrites()})
	return s
}()

// portWide are the settings of the Envoy Listener itself, which the
// Gateway's listeners on one port share.
var portWide = map[string]bool{"default.proxyProtocol": true, "default.tcpKeepalive": true, "default.perConnectionBufferLimitBytes": true}

// The MergeOrigins keys of the settings outside ListenerConfig: client
// certificate validation (default section only), and the start of each
// perPort entry's key, perPortPolicy[<port>].
const (
	keyClientCertValidation = "default.clientCertificateValidation"
	keyPerPort              = "perPortPolicy["
)

// The access log's two MergeOrigins keys: its sinks, and their compiled
// configuration, which kgateway records separately.
const (
	keyAccessLog       = "default.httpSettings.accessLog"
	keyAccessLogConfig = "default.httpSettings.accessLogConfig"
)

// ListenerPolicy's perPort entries apply on their port only.
var _ policy.PortScoper = ListenerKind{}

// FieldPort implements policy.PortScoper: a perPort entry's port, or the
// port of the entry a part belongs to.
func (ListenerKind) FieldPort(key string) int32 {
	rest, ok := strings.CutPrefix(key, keyPerPort)
	if !ok {
		return 0
	}
	digits, _, _ := strings.Cut(rest, "]")
	port, err := strconv.ParseInt(digits, 10, 32)
	if err != nil {
		return 0
	}
	return int32(port)
}

// PortEntry implements policy.PortScoper: kgateway's mergePerPort takes
// the first policy's entry for a port whole (perPortPolicy[8080]) and
// merges a later policy's entry for the same port setting by setting,
// recording each setting it fills under the entry's key and the
// setting's (perPortPolicy[8080].httpSettings.serverName).
func (ListenerKind) PortEntry(key string) string {
	if !strings.HasPrefix(key, keyPerPort) {
		return ""
	}
	entry, _, ok := strings.Cut(key, "].")
	if !ok {
		return ""
	}
	return entry + "]"
}

// perPortKey is the key of a perPort entry.
func perPortKey(port int32) string { return keyPerPort + strconv.Itoa(int(port)) + "]" }

// perPortPartKey is the key of the setting of a perPort entry whose
// default section key is key: perPortPolicy[8080].httpSettings.serverName
// for default.httpSettings.serverName.
func perPortPartKey(port int32, key string) string {
	return perPortKey(port) + "." + strings.TrimPrefix(key, "default.")
}

// defaultKeyOfPart is the default section's key of a perPort entry's
// setting.
func defaultKeyOfPart(part string) string {
	_, setting, _ := strings.Cut(part, "].")
	return "default." + setting
}

// Spec implements policy.Kind.
func (ListenerKind) Spec() policy.KindSpec { return listenerSpec }

// Decode implements policy.Kind.
func (k ListenerKind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	var lp ListenerPolicy
	if !decodeInto(p, &lp, env.Config) {
		return p
	}
	p.Created = lp.CreationTimestamp.Time
	ignoredWeight(p, lp.Annotations)
	p.Targets = targets(lp.Spec.TargetRefs, lp.Spec.TargetSelectors)
	if d := lp.Spec.Default; d != nil {
		for _, f := range listenerFields {
			if v := f.get(&d.ListenerConfig); isSet(v) {
				p.Values[f.key] = v
			}
		}
		if d.ClientCertificateValidation != nil {
			p.Values[keyClientCertValidation] = d.ClientCertificateValidation
		}
	}
	for i := range lp.Spec.PerPort {
		pp := &lp.Spec.PerPort[i]
		p.Values[perPortKey(pp.Port)] = &pp.Listener
		for _, f := range listenerFields {
			if v := f.get(&pp.Listener); isSet(v) {
				p.Values[perPortPartKey(pp.Port, f.key)] = v
			}
		}
	}
	checkListenerValues(p, env, lp.Spec.PerPort)
	return p
}

// earlyHeaderModifier is the value of earlyRequestHeaderModifier kgateway
// keeps: none for a filter with no add, set or remove entry. Its HTTP
// settings write no early header mutation extension then
// (listenerpolicy/http.go: convertHeaderMutations returns nil when
// pluginutils.ConvertMutations has no mutation, at both stored revisions
// read), and its merge takes a policy's value only when it has one
// (mergeEarlyHeaderMutation: policy.IsMergeable of the nil extensions),
// so the empty filter neither configures nor overrides anything and is
// not a merge origin.
func earlyHeaderModifier(h *HTTPSettings) any {
	f := h.EarlyRequestHeaderModifier
	if f == nil || len(f.Add)+len(f.Set)+len(f.Remove) == 0 {
		return nil
	}
	return f
}

// perPortWrites are what a perPort entry writes: any setting of
// ListenerConfig, on the listeners of its port (policy.FieldSpec.Writes).
func perPortWrites() []string {
	var out []string
	for _, f := range listenerFields {
		for _, w := range f.writes {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}
