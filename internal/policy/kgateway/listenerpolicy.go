package kgateway

import (
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
var listenerFields = []struct {
	key, path string
	get       func(*ListenerConfig) any
}{
	{keyAccessLog, "spec.default.httpSettings.accessLog", func(c *ListenerConfig) any { return accessLog(c) }},
	{keyAccessLogConfig, "spec.default.httpSettings.accessLog", func(c *ListenerConfig) any { return accessLog(c) }},
	httpField("tracing", "tracing", func(h *HTTPSettings) any { return h.Tracing }),
	httpField("upgradeConfig", "upgradeConfig", func(h *HTTPSettings) any { return h.UpgradeConfig }),
	httpField("useRemoteAddress", "useRemoteAddress", func(h *HTTPSettings) any { return h.UseRemoteAddress }),
	httpField("xffConfig", "useRemoteAddress", xffConfig),
	httpField("xffNumTrustedHops", "xffNumTrustedHops", func(h *HTTPSettings) any {
		if remoteAddressOff(h) {
			return nil // part of xffConfig
		}
		return h.XffNumTrustedHops
	}),
	httpField("skipXffAppend", "skipXFFAppend", func(h *HTTPSettings) any { return h.SkipXFFAppend }),
	httpField("preserveExternalRequestId", "preserveExternalRequestId", func(h *HTTPSettings) any { return h.PreserveExternalRequestID }),
	httpField("generateRequestId", "generateRequestId", func(h *HTTPSettings) any { return h.GenerateRequestID }),
	httpField("serverHeaderTransformation", "serverHeaderTransformation", func(h *HTTPSettings) any { return h.ServerHeaderTransformation }),
	httpField("serverName", "serverName", func(h *HTTPSettings) any { return h.ServerName }),
	httpField("mergeStreamIdleTimeout", "streamIdleTimeout", func(h *HTTPSettings) any { return h.StreamIdleTimeout }),
	httpField("mergeIdleTimeout", "idleTimeout", func(h *HTTPSettings) any { return h.IdleTimeout }),
	httpField("maxHeadersCount", "maxHeadersCount", func(h *HTTPSettings) any { return h.MaxHeadersCount }),
	httpField("maxRequestHeadersKb", "maxRequestHeadersKb", func(h *HTTPSettings) any { return h.MaxRequestHeadersKb }),
	httpField("maxRequestsPerConnection", "maxRequestsPerConnection", func(h *HTTPSettings) any {
		if h.MaxRequestsPerConnection == nil || *h.MaxRequestsPerConnection == 0 {
			return nil // 0 is Envoy's "unlimited", kgateway's unset
		}
		return h.MaxRequestsPerConnection
	}),
	httpField("http2ProtocolOptions", "http2ProtocolOptions", func(h *HTTPSettings) any { return h.HTTP2ProtocolOptions }),
	httpField("healthCheckPolicy", "healthCheck", func(h *HTTPSettings) any { return h.HealthCheck }),
	httpField("acceptHttp10", "acceptHttp10", func(h *HTTPSettings) any { return h.AcceptHTTP10 }),
	httpField("defaultHostForHttp10", "defaultHostForHttp10", func(h *HTTPSettings) any { return h.DefaultHostForHTTP10 }),
	httpField("earlyHeaderMutationExtensions", "earlyRequestHeaderModifier", earlyHeaderModifier),
	httpField("uuidRequestIdConfig", "uuidRequestIdConfig", func(h *HTTPSettings) any { return h.UUIDRequestIDConfig }),
	httpField("stripHostPortMode", "stripHostPortMode", func(h *HTTPSettings) any { return h.StripHostPortMode }),
	httpField("stripTrailingHostDot", "stripTrailingHostDot", func(h *HTTPSettings) any { return h.StripTrailingHostDot }),
	httpField("proxy100Continue", "proxy100Continue", func(h *HTTPSettings) any { return h.Proxy100Continue }),
	httpField("localReplyConfig", "localReplies", func(h *HTTPSettings) any { return h.LocalReplies }),
	httpField("forwardClientCertDetails.mode", "forwardClientCertDetails.mode", func(h *HTTPSettings) any {
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
	httpField("forwardClientCertDetails.details", "forwardClientCertDetails.details", func(h *HTTPSettings) any {
		if h.ForwardClientCertDetails == nil {
			return nil
		}
		return h.ForwardClientCertDetails.Details
	}),
	{"default.proxyProtocol", "spec.default.proxyProtocol", func(c *ListenerConfig) any { return c.ProxyProtocol }},
	{"default.tcpKeepalive", "spec.default.tcpKeepalive", func(c *ListenerConfig) any { return c.TCPKeepalive }},
	{"default.perConnectionBufferLimitBytes", "spec.default.perConnectionBufferLimitBytes", func(c *ListenerConfig) any { return c.PerConnectionBufferLimitBytes }},
	{"default.transportSocketConnectTimeout", "spec.default.transportSocketConnectTimeout", func(c *ListenerConfig) any { return c.TransportSocketConnectTimeout }},
}

// httpField is a listenerFields entry for an httpSettings field: key and spec
// path are under default.httpSettings.
func httpField(key, field string, get func(*HTTPSettings) any) struct {
	key, path string
	get       func(*ListenerConfig) any
} {
	return struct {
		key, path string
		get       func(*ListenerConfig) any
	}{"default.httpSettings." + key, "spec.default.httpSettings." + field, func(c *ListenerConfig) any {
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
		s.Fields = append(s.Fields, policy.FieldSpec{Key: f.key, SpecPath: f.path, Default: policy.AugmentedShallow, PortWide: portWide[f.key], ChainWide: !portWide[f.key]})
	}
	s.Fields = append(s.Fields,
		policy.FieldSpec{Key: keyClientCertValidation, SpecPath: "spec.default.clientCertificateValidation", Default: policy.AugmentedShallow, ChainWide: true},
		// one field per port, merged whole: kgateway's perPortPolicy[80]
		policy.FieldSpec{Key: keyPerPort, SpecPath: "spec.perPort", Default: policy.AugmentedShallow, Family: true})
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

// FieldPort implements policy.PortScoper: a perPort entry's port.
func (ListenerKind) FieldPort(key string) int32 {
	if !strings.HasPrefix(key, keyPerPort) {
		return 0
	}
	port, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(key, keyPerPort), "]"), 10, 32)
	if err != nil {
		return 0
	}
	return int32(port)
}

// perPortKey is the key of a perPort entry.
func perPortKey(port int32) string { return keyPerPort + strconv.Itoa(int(port)) + "]" }

// Spec implements policy.Kind.
func (ListenerKind) Spec() policy.KindSpec { return listenerSpec }

// Decode implements policy.Kind.
func (k ListenerKind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	var lp ListenerPolicy
	if !decodeInto(p, &lp, env.Config) {
		return p
	}
	p.Weight, p.Created = weightAndAge(p, lp.Annotations, lp.CreationTimestamp.Time)
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
