package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The listener half of the Envoy Gateway xDS comparison: per Gateway
// port, the listener settings and the HTTP filter chains policies shape
// (ClientTrafficPolicy's connection settings, and the HTTP filters every
// kind adds). Envoy Gateway serves a privileged port (below 1024) on
// port+10000 and names listeners and chains after the Gateway listener
// (gwpol: listener~<port>); its own listeners (readiness, stats) are not
// a Gateway's and are left out.
//
// Each chain is seen as its HTTP filters in order — "name" or "name(off)"
// when the chain leaves the filter off until a route turns it on —, its
// network filters before the connection manager, the connection
// manager's settings and the TLS context's, each setting a leaf
// (egLeaves). What is representation only is left out: names (of
// listeners, chains, stat prefixes, RouteConfigurations, SDS secrets),
// the certificates a Gateway listener names (not a policy's), the access
// log and tracing Envoy Gateway configures from its EnvoyProxy, and the
// Server header it passes through. A leaf at Envoy Gateway's default
// (egListenerDefaults) is dropped on both sides: the table is Envoy
// Gateway's, one for both, so a side that does not write a default shows
// the difference.

// egListenerFields are the Listener fields compared (protojson names).
var egListenerFields = []string{"perConnectionBufferLimitBytes", "maxConnectionsToAcceptPerSocketEvent", "socketOptions",
	"listenerFilters", "connectionBalanceConfig", "tcpBacklogSize", "enableReusePort"}

// egHCMIgnored are the connection manager fields not compared: names,
// the HTTP filters (compared apart), and what Envoy Gateway sets from its
// EnvoyProxy rather than from a policy.
var egHCMIgnored = []string{"@type", "statPrefix", "rds", "routeConfig", "httpFilters", "accessLog", "tracing", "serverHeaderTransformation"}

// egListenerDefaults are the leaves Envoy Gateway writes on every
// listener, connection manager and TLS context no policy tunes (protojson
// values), by the part they are in.
var egListenerDefaults = map[string]map[string]string{
	"listener": {
		"perConnectionBufferLimitBytes":        `32768`,
		"maxConnectionsToAcceptPerSocketEvent": `1`,
	},
	"hcm": {
		"commonHttpProtocolOptions.headersWithUnderscoresAction": `"REJECT_REQUEST"`,
		"http2ProtocolOptions.initialConnectionWindowSize":       `1048576`,
		"http2ProtocolOptions.initialStreamWindowSize":           `65536`,
		"http2ProtocolOptions.maxConcurrentStreams":              `100`,
		"mergeSlashes":                 `true`,
		"normalizePath":                `true`,
		"pathWithEscapedSlashesAction": `"UNESCAPE_AND_REDIRECT"`,
		"useRemoteAddress":             `true`,
	},
	"tls": {
		"commonTlsContext.alpnProtocols":                       `["h2","http/1.1"]`,
		"commonTlsContext.tlsParams.tlsMaximumProtocolVersion": `"TLSv1_3"`,
		"commonTlsContext.tlsParams.tlsMinimumProtocolVersion": `"TLSv1_2"`,
		"disableStatefulSessionResumption":                     `true`,
		"disableStatelessSessionResumption":                    `true`,
	},
}

// egLeaves flattens a message (protojson form) into its leaves, path →
// JSON value: objects are walked, lists and scalars are leaves. Every
// default of the part is a leaf too, "absent" where the message does not
// have it (protojson leaves out a proto3 zero: a setting turned off); a
// leaf at its default is then dropped.
func egLeaves(m map[string]any, part string) map[string]string {
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if o, ok := v.(map[string]any); ok && len(o) > 0 && prefix != "" && !strings.HasSuffix(prefix, "typedConfig") {
			for k, x := range o {
				walk(prefix+"."+k, x)
			}
			return
		}
		b, _ := json.Marshal(v) // map keys sorted
		out[prefix] = string(b)
	}
	for k, v := range m {
		walk(k, v)
	}
	for path, def := range egListenerDefaults[part] {
		if v, ok := out[path]; !ok {
			out[path] = "absent"
		} else if v == def {
			delete(out, path)
		}
	}
	for path, v := range out {
		if v == "absent" && egListenerDefaults[part][path] == "" {
			delete(out, path)
		}
	}
	return out
}

// egListenerViews reads the listeners of one config dump (protojson),
// by Gateway port: the listener's compared settings, then its chains'
// views, sorted.
func egListenerViews(listeners []map[string]any, eg bool) map[string]string {
	out := map[string]string{}
	for _, l := range listeners {
		name, _ := l["name"].(string)
		if eg && strings.HasPrefix(name, "envoy-gateway-proxy-") {
			continue
		}
		if udpProxy(l) {
			continue // a UDPRoute's: no policy of the compared kinds configures it
		}
		addr, _ := l["address"].(map[string]any)
		sa, _ := addr["socketAddress"].(map[string]any)
		port, _ := sa["portValue"].(float64)
		if eg && port >= 10000 && port < 11024 {
			port -= 10000
		}
		settings := map[string]any{}
		for _, f := range egListenerFields {
			if x, ok := l[f]; ok {
				settings[f] = x
			}
		}
		if lf, ok := settings["listenerFilters"].([]any); ok {
			settings["listenerFilters"] = withoutTLSInspector(lf)
		}
		chains, _ := l["filterChains"].([]any)
		if dc, ok := l["defaultFilterChain"]; ok {
			chains = append(chains, dc)
		}
		var views []string
		for _, c := range chains {
			if v := egChainView(c); v != "" {
				views = append(views, v)
			}
		}
		slices.Sort(views)
		lv, _ := json.Marshal(egLeaves(settings, "listener"))
		key := fmt.Sprint(port)
		if sa["protocol"] == "UDP" {
			key += "/udp" // HTTP/3's QUIC listener beside the TCP one
		}
		out[key] = string(lv) + " " + strings.Join(slices.Compact(views), " | ")
	}
	return out
}

// udpProxy reports whether a listener is a UDP proxy's.
func udpProxy(l map[string]any) bool {
	lf, _ := l["listenerFilters"].([]any)
	for _, f := range lf {
		if m, _ := f.(map[string]any); m["name"] == "envoy.filters.udp_listener.udp_proxy" {
			return true
		}
	}
	return false
}

// withoutTLSInspector leaves out the TLS inspector, which each side adds
// where its own chain matching needs the SNI (nil when nothing else is
// left).
func withoutTLSInspector(lf []any) any {
	var out []any
	for _, f := range lf {
		m, _ := f.(map[string]any)
		if m["name"] != "envoy.filters.listener.tls_inspector" {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// egChainView is an HTTP filter chain's view ("" for a chain without a
// connection manager): its HTTP filters, its other network filters, and
// the connection manager's and TLS context's leaves.
func egChainView(c any) string {
	fc, _ := c.(map[string]any)
	filters, _ := fc["filters"].([]any)
	var network []any
	for _, f := range filters {
		m, _ := f.(map[string]any)
		tc, _ := m["typedConfig"].(map[string]any)
		hfs, ok := tc["httpFilters"].([]any)
		if !ok {
			if tc != nil {
				tc = maps.Clone(tc)
				delete(tc, "statPrefix")
			}
			network = append(network, map[string]any{"name": m["name"], "typedConfig": tc})
			continue
		}
		names := make([]string, 0, len(hfs))
		for _, h := range hfs {
			hm, _ := h.(map[string]any)
			n, _ := hm["name"].(string)
			if off, _ := hm["disabled"].(bool); off {
				n += "(off)"
			}
			names = append(names, n)
		}
		hcm := maps.Clone(tc)
		for _, k := range egHCMIgnored {
			delete(hcm, k)
		}
		view := map[string]any{"hcm": egLeaves(hcm, "hcm")}
		if len(network) > 0 {
			view["network"] = network
		}
		ts, _ := fc["transportSocket"].(map[string]any)
		tls, ok := ts["typedConfig"].(map[string]any)
		if quic, isQUIC := tls["downstreamTlsContext"].(map[string]any); isQUIC {
			tls = quic // HTTP/3's QUIC transport wraps it
		}
		if ok {
			view["tls"] = egLeaves(egTLSSettings(tls), "tls")
		}
		b, _ := json.Marshal(view)
		return strings.Join(names, ",") + " " + string(b)
	}
	return egStreamChainView(fc, network)
}

// egStreamChainView is a TCP proxy chain's view: its other network
// filters, the proxy's idle timeout and the TLS context's leaves (""
// without a TCP proxy).
func egStreamChainView(fc map[string]any, network []any) string {
	view := map[string]any{}
	var others []any
	proxy := false
	for _, f := range network {
		m, _ := f.(map[string]any)
		if m["name"] != "envoy.filters.network.tcp_proxy" {
			others = append(others, f)
			continue
		}
		proxy = true
		tc, _ := m["typedConfig"].(map[string]any)
		if d, ok := tc["idleTimeout"]; ok {
			view["idleTimeout"] = d
		}
	}
	if !proxy {
		return ""
	}
	if len(others) > 0 {
		view["network"] = others
	}
	ts, _ := fc["transportSocket"].(map[string]any)
	if tls, ok := ts["typedConfig"].(map[string]any); ok {
		view["tls"] = egLeaves(egTLSSettings(tls), "tls")
	}
	b, _ := json.Marshal(view)
	return "tcp_proxy " + string(b)
}

// egTLSSettings is a DownstreamTlsContext without its representation:
// the Gateway listener's certificates, and the SDS name of the CA bundle
// a policy's client validation reads.
func egTLSSettings(tls map[string]any) map[string]any {
	out := maps.Clone(tls)
	delete(out, "@type")
	common, _ := out["commonTlsContext"].(map[string]any)
	common = maps.Clone(common)
	delete(common, "tlsCertificateSdsSecretConfigs")
	sdsName(common)
	if cvc, ok := common["combinedValidationContext"].(map[string]any); ok {
		cvc = maps.Clone(cvc)
		sdsName(cvc)
		common["combinedValidationContext"] = cvc
	}
	out["commonTlsContext"] = common
	return out
}

// sdsName replaces the name and source of the validation context's SDS
// secret with a placeholder.
func sdsName(m map[string]any) {
	if _, ok := m["validationContextSdsSecretConfig"]; ok {
		m["validationContextSdsSecretConfig"] = map[string]any{"name": "<sds>"}
	}
}

// egCompareListeners lists the Gateway ports whose views differ, or that
// one side alone has.
func egCompareListeners(want, got map[string]map[string]string) []string {
	var bad []string
	for _, gw := range slices.Sorted(maps.Keys(want)) {
		for _, port := range slices.Sorted(maps.Keys(want[gw])) {
			if w, g := want[gw][port], got[gw][port]; w != g {
				bad = append(bad, fmt.Sprintf("%s port %s listener:\n    eg:    %s\n    gwpol: %s", gw, port, w, g))
			}
		}
		for _, port := range slices.Sorted(maps.Keys(got[gw])) {
			if _, ok := want[gw][port]; !ok {
				bad = append(bad, fmt.Sprintf("%s port %s: only in gwpol's", gw, port))
			}
		}
	}
	return bad
}
