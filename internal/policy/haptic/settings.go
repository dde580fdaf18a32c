package haptic

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
)

// ConfigPrefix is the prefix of this kind's settings in policy.Config.Values
// (the haptic: section of .gwpol.yaml).
const ConfigPrefix = "haptic."

// Section is the haptic: section of .gwpol.yaml as the family declares it
// (a map setting): HAPTIC's chart switches, which ParseSettings reads and
// checks — an unknown switch or a value of the wrong type is a config
// error, never ignored.
var Section = policy.Setting{Key: strings.TrimSuffix(ConfigPrefix, "."), Default: map[string]any{},
	Doc:    "HAPTIC's Helm chart values that decide whether a route policy can be served: rateLimit.shared.enabled, cache.varnish.enabled, waf (enabled, trusted policies inline and in ConfigMaps, defaultPolicy, requestBody maxBytes and defaultMaxBytes, limits maxCount, maxSecLangBytes and maxRuleExclusions, selfService with allowSecLang and its limits), requestBodyInspection.haproxyBuffer (sizeBytes, reservedBytes), spoaHub.enabled and spoaHub.haproxy.messages",
	Source: "the HAPTIC Helm chart's values (rateLimit, cache, waf, requestBodyInspection, spoaHub)",
	Check: func(v any) error {
		values := map[string]any{}
		if m, ok := v.(map[string]any); ok {
			for k, val := range m {
				values[ConfigPrefix+k] = val
			}
		}
		_, err := ParseSettings(policy.Config{Values: values})
		return err
	}}

// Settings are the HAPTIC chart switches that decide whether a route
// policy can be served: the gwpol config keys under haptic:, named after
// the chart's values. A policy that needs a switched-off feature fails its
// rules closed, as HAPTIC does.
type Settings struct {
	// SharedRateLimit is rateLimit.shared.enabled: the fleet-wide stick
	// tables rateLimit needs. Default false, as the chart's.
	SharedRateLimit bool
	// RateLimitMessage: the HAProxy side of the SPOA hub sends the
	// check-ratelimit message (spoaHub.haproxy.messages), which a shared
	// rate limit needs besides rateLimit.shared.enabled. Default true: the
	// chart's default spoaHub.haproxy.messages include it; a deployment
	// that sets the list without it fails every rate-limited rule closed.
	RateLimitMessage bool
	// HubOff is spoaHub.enabled: false, the chart's switch that forces the
	// SPOA hub sidecar off even when plugins are enabled (unset, the
	// chart derives it from the plugins). Without the hub HAProxy sends
	// no SPOA message: no shared rate limit and no Coraza WAF.
	HubOff bool
	// Varnish is cache.varnish.enabled: the cache tier cache needs.
	// Default false, as the chart's.
	Varnish bool
	// WAF is waf.enabled: the Coraza SPOA plugin is deployed. Unless the
	// config sets it, the chart's predicate decides (wafAutoEnabled).
	WAF bool
	// wafSet: the config sets waf.enabled.
	wafSet bool
	// Inline are the trusted WAF policies defined in values
	// (waf.policies.inline), by name.
	Inline map[string]map[string]any
	// Trusted are the trusted catalog ConfigMaps (waf.policies.configMapRefs),
	// by the name the values give them.
	Trusted map[string]CatalogLocation
	// TrustedKnown: the config lists the deployment's trusted policies
	// (waf.policies.inline or configMapRefs, even empty). Without it gwpol
	// cannot check a WAF selection without catalogRef and says so.
	TrustedKnown bool
	// DefaultPolicy is waf.policies.defaultPolicy ("" for none).
	DefaultPolicy string
	// SelfService is waf.policies.selfService.enabled: policies may name
	// catalogs in their own namespace (catalogRef). Default false, as the
	// chart's.
	SelfService bool
	// MaxBodyBytes is waf.policies.requestBody.maxBytes: the largest
	// request body a WAF policy may ask to inspect (its
	// requestBody.maxBytes). Default 8192, as the chart's.
	MaxBodyBytes int
	// DefaultBodyBytes is waf.policies.requestBody.defaultMaxBytes: the
	// body cap of a policy that sets none. Default 8192; at most
	// MaxBodyBytes.
	DefaultBodyBytes int
	// BufferBytes and ReservedBytes are requestBodyInspection.haproxyBuffer
	// sizeBytes and reservedBytes: HAProxy's request buffer, shared by
	// every body inspector, and what of it headers keep. Defaults 16384
	// and 8192; MaxBodyBytes must fit in what is left.
	BufferBytes, ReservedBytes int
	// MaxPolicies, MaxSecLangBytes and MaxRuleExclusions are
	// waf.policies.limits maxCount (trusted policies, inline and in
	// trusted catalogs together), maxSecLangBytes and maxRuleExclusions
	// (per policy; the rule IDs and tags its ruleExclusions name, not its
	// entries). Defaults 16, 65536 and 256.
	MaxPolicies, MaxSecLangBytes, MaxRuleExclusions int
	// AllowSecLang is selfService.allowSecLang: self-service catalog
	// entries may carry secLang. Default false, as the chart's.
	AllowSecLang bool
	// MaxPerNamespace and MaxTotal are selfService.limits: how many
	// distinct self-service catalog entries one namespace, and the
	// cluster, may select (0: no limit; the chart's defaults 4 and 64).
	MaxPerNamespace, MaxTotal int
	// Dispatch is waf.dispatch: which routes the WAF inspects.
	Dispatch WAFDispatch
	// IngressPermissions is waf.ingressPermissions: what Ingress authors
	// may change of an administrator's WAF baseline.
	IngressPermissions WAFIngressPermissions
}

// WAFDispatch is the chart's waf.dispatch (values.yaml): Mode opt-in (the
// chart's default: only routes that select a WAF policy are inspected) or
// default-on (every route, unless an authorised annotation opts it out),
// and DefaultEnforcement, deny (default) or detect, for default-on routes
// without a policy.
type WAFDispatch struct {
	Mode, DefaultEnforcement string
}

// WAFIngressPermissions is the chart's waf.ingressPermissions, with its
// defaults: policy selection allowed, everything else denied.
type WAFIngressPermissions struct {
	AllowPolicySelection, AllowEnforcementOverride, AllowWafDisable, AllowCustomRules, AllowRawHAProxyConfig bool
}

// The values waf.dispatch takes (the chart's values.yaml).
var (
	DispatchModes       = []string{"opt-in", "default-on"}
	DispatchEnforcement = []string{"deny", "detect"}
)

// CatalogLocation is a trusted catalog ConfigMap and its key.
type CatalogLocation struct {
	Namespace, Name, Key string
}

// String is namespace/name/key, the catalog's scope in HAPTIC's terms.
func (c CatalogLocation) String() string { return c.Namespace + "/" + c.Name + "/" + c.Key }

// DefaultSettings are the HAPTIC chart's own defaults (charts/haptic
// values.yaml at a7ac8a15, the commit of the chart tests gwpol runs):
// the shared rate limit (rateLimit.shared.enabled) and the Varnish tier
// (cache.varnish.enabled) are off, self-service WAF catalogs are off
// (waf.policies.selfService, with limits of 4 per namespace and 64 in all
// once on), no trusted catalog, opt-in dispatch; and the Coraza plugin
// is off because nothing turns it on (wafAutoEnabled).
func DefaultSettings() Settings {
	return Settings{RateLimitMessage: true, MaxPerNamespace: 4, MaxTotal: 64, MaxBodyBytes: DefaultMaxBodyBytes,
		DefaultBodyBytes: DefaultMaxBodyBytes, BufferBytes: defaultBufferBytes, ReservedBytes: defaultReservedBytes,
		MaxPolicies: defaultMaxPolicies, MaxSecLangBytes: defaultMaxSecLang, MaxRuleExclusions: defaultMaxExclusions,
		Dispatch:           WAFDispatch{Mode: "opt-in", DefaultEnforcement: "deny"},
		IngressPermissions: WAFIngressPermissions{AllowPolicySelection: true}}
}

// DefaultMaxBodyBytes and MaxBodyBytesLimit are the chart's
// waf.policies.requestBody.maxBytes default and its upper bound.
const (
	DefaultMaxBodyBytes = 8192
	MaxBodyBytesLimit   = 1 << 20
)

// The chart's defaults and bounds of the body buffer and the WAF policy
// limits (values.yaml at a7ac8a15; the bounds as 83-waf-policies.yaml
// checks them at a3a8c5a1).
const (
	defaultBufferBytes, minBufferBytes, maxBufferBytes = 16384, 16384, 2 << 20
	defaultReservedBytes                               = 8192
	defaultMaxPolicies, maxMaxPolicies                 = 16, 1024
	defaultMaxSecLang                                  = 65536
	defaultMaxExclusions, maxMaxExclusions             = 256, 4096
)

// wafAutoEnabled is the chart's enable predicate of the Coraza plugin
// (spoaHub.plugins.coraza.enabled) when the deployment does not set it:
// on when dispatch is default-on or a WAF catalog is configured — inline
// policies, trusted ConfigMaps, a default policy or self-service catalogs.
// (The chart's Ingress compatibility libraries, which also turn it on,
// concern Ingress objects only.)
func (s Settings) wafAutoEnabled() bool {
	return s.Dispatch.Mode == "default-on" || len(s.Inline) > 0 || len(s.Trusted) > 0 || s.DefaultPolicy != "" || s.SelfService
}

// SettingsKeys are the keys of the haptic: section.
var SettingsKeys = []string{"rateLimit", "cache", "waf", "spoaHub", "requestBodyInspection"}

// ParseSettings reads the haptic: section from cfg.Values (keys
// "haptic.<key>"). Every value is checked: an unknown key or a value of the
// wrong type is an error naming the key, never ignored.
func ParseSettings(cfg policy.Config) (Settings, error) {
	s := DefaultSettings()
	for k, v := range cfg.Values {
		key, ok := strings.CutPrefix(k, ConfigPrefix)
		if !ok {
			continue
		}
		var err error
		switch strings.ToLower(key) {
		case "ratelimit":
			err = readSwitch(v, "haptic.rateLimit", "shared", &s.SharedRateLimit)
		case "cache":
			err = readSwitch(v, "haptic.cache", "varnish", &s.Varnish)
		case "waf":
			err = s.readWAF(v)
		case "spoahub":
			err = s.readSPOAHub(v)
		case "requestbodyinspection":
			err = s.readBodyInspection(v)
		default:
			err = fmt.Errorf("haptic.%s is not a setting gwpol knows; use one of %s", key, strings.Join(SettingsKeys, ", "))
		}
		if err != nil {
			return Settings{}, err
		}
	}
	if err := s.checkBodyBudget(); err != nil {
		return Settings{}, err
	}
	if !s.wafSet {
		s.WAF = s.wafAutoEnabled()
	}
	if s.HubOff {
		s.WAF = false
	}
	return s, nil
}

// section reads a mapping, case-insensitively by key, rejecting unknown keys.
func section(v any, path string, known ...string) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a map, not %T", path, v)
	}
	out := map[string]any{}
	for k, val := range m {
		i := slices.IndexFunc(known, func(n string) bool { return strings.EqualFold(n, k) })
		if i < 0 {
			return nil, fmt.Errorf("%s.%s is not a setting gwpol knows; use one of %s", path, k, strings.Join(known, ", "))
		}
		out[known[i]] = val
	}
	return out, nil
}

// readSwitch reads {<name>: {enabled: bool}}.
func readSwitch(v any, path, name string, dst *bool) error {
	m, err := section(v, path, name)
	if err != nil {
		return err
	}
	if sub, ok := m[name]; ok {
		e, err := section(sub, path+"."+name, "enabled")
		if err != nil {
			return err
		}
		if en, ok := e["enabled"]; ok {
			return readBool(en, path+"."+name+".enabled", dst)
		}
	}
	return nil
}

func readBool(v any, path string, dst *bool) error {
	switch b := v.(type) {
	case bool:
		*dst = b
	case string:
		p, err := strconv.ParseBool(b)
		if err != nil {
			return fmt.Errorf("%s must be true or false, not %q", path, b)
		}
		*dst = p
	default:
		return fmt.Errorf("%s must be true or false, not %T", path, v)
	}
	return nil
}

// readCount reads a non-negative whole number (the chart takes strings).
func readCount(v any, path string, dst *int) error {
	var n int64
	switch x := v.(type) {
	case int:
		n = int64(x)
	case int64:
		n = x
	case float64:
		if x != float64(int64(x)) {
			return fmt.Errorf("%s must be a whole number, not %v", path, x)
		}
		n = int64(x)
	case string:
		p, err := strconv.ParseInt(strings.TrimSpace(x), 10, 32)
		if err != nil {
			return fmt.Errorf("%s must be a whole number, not %q", path, x)
		}
		n = p
	default:
		return fmt.Errorf("%s must be a whole number, not %T", path, v)
	}
	if n < 0 {
		return fmt.Errorf("%s must not be negative, not %d", path, n)
	}
	*dst = int(n)
	return nil
}

func readString(v any, path string) (string, error) {
	s, ok := v.(string)
	if !ok && v != nil {
		return "", fmt.Errorf("%s must be a string, not %T", path, v)
	}
	return s, nil
}

func (s *Settings) readWAF(v any) error {
	m, err := section(v, "haptic.waf", "enabled", "policies", "dispatch", "ingressPermissions")
	if err != nil {
		return err
	}
	if en, ok := m["enabled"]; ok {
		if err := readBool(en, "haptic.waf.enabled", &s.WAF); err != nil {
			return err
		}
		s.wafSet = true
	}
	if err := s.readDispatch(m["dispatch"]); err != nil {
		return err
	}
	if err := s.readIngressPermissions(m["ingressPermissions"]); err != nil {
		return err
	}
	p, err := section(m["policies"], "haptic.waf.policies", "defaultPolicy", "inline", "configMapRefs", "selfService", "requestBody", "limits")
	if err != nil {
		return err
	}
	if err := s.readRequestBody(p["requestBody"]); err != nil {
		return err
	}
	if err := s.readLimits(p["limits"]); err != nil {
		return err
	}
	_, inline := p["inline"]
	_, refs := p["configMapRefs"]
	s.TrustedKnown = inline || refs
	if s.DefaultPolicy, err = readString(p["defaultPolicy"], "haptic.waf.policies.defaultPolicy"); err != nil {
		return err
	}
	if err := s.readInline(p["inline"]); err != nil {
		return err
	}
	if err := s.readTrusted(p["configMapRefs"]); err != nil {
		return err
	}
	ss, err := section(p["selfService"], "haptic.waf.policies.selfService", "enabled", "allowSecLang", "limits")
	if err != nil {
		return err
	}
	if en, ok := ss["enabled"]; ok {
		if err := readBool(en, "haptic.waf.policies.selfService.enabled", &s.SelfService); err != nil {
			return err
		}
	}
	if al, ok := ss["allowSecLang"]; ok {
		if err := readBool(al, "haptic.waf.policies.selfService.allowSecLang", &s.AllowSecLang); err != nil {
			return err
		}
	}
	lim, err := section(ss["limits"], "haptic.waf.policies.selfService.limits", "maxPoliciesPerNamespace", "maxTotalPolicies")
	if err != nil {
		return err
	}
	if n, ok := lim["maxPoliciesPerNamespace"]; ok {
		if err := readCount(n, "haptic.waf.policies.selfService.limits.maxPoliciesPerNamespace", &s.MaxPerNamespace); err != nil {
			return err
		}
	}
	if n, ok := lim["maxTotalPolicies"]; ok {
		if err := readCount(n, "haptic.waf.policies.selfService.limits.maxTotalPolicies", &s.MaxTotal); err != nil {
			return err
		}
	}
	return nil
}

// readRequestBody reads waf.policies.requestBody: {maxBytes,
// defaultMaxBytes, waitTimeout}, the ceiling of a WAF policy's body cap and the cap of
// a policy that sets none (each 1 … 1 MiB).
func (s *Settings) readRequestBody(v any) error {
	rb, err := section(v, "haptic.waf.policies.requestBody", "maxBytes", "defaultMaxBytes", "waitTimeout")
	if err != nil {
		return err
	}
	// waitTimeout is how long HAProxy waits for a body at run time; no
	// verdict depends on it, but it is the chart's key and must be text.
	if _, err := readString(rb["waitTimeout"], "haptic.waf.policies.requestBody.waitTimeout"); err != nil {
		return err
	}
	return readBounded(rb, "haptic.waf.policies.requestBody", []bounded{
		{"maxBytes", 1, MaxBodyBytesLimit, &s.MaxBodyBytes},
		{"defaultMaxBytes", 1, MaxBodyBytesLimit, &s.DefaultBodyBytes},
	})
}

// readLimits reads waf.policies.limits: {maxCount, maxSecLangBytes,
// maxRuleExclusions}.
func (s *Settings) readLimits(v any) error {
	l, err := section(v, "haptic.waf.policies.limits", "maxCount", "maxSecLangBytes", "maxRuleExclusions")
	if err != nil {
		return err
	}
	return readBounded(l, "haptic.waf.policies.limits", []bounded{
		{"maxCount", 1, maxMaxPolicies, &s.MaxPolicies},
		{"maxSecLangBytes", 1, MaxBodyBytesLimit, &s.MaxSecLangBytes},
		{"maxRuleExclusions", 1, maxMaxExclusions, &s.MaxRuleExclusions},
	})
}

// readBodyInspection reads requestBodyInspection: {haproxyBuffer:
// {sizeBytes, reservedBytes}}.
func (s *Settings) readBodyInspection(v any) error {
	m, err := section(v, "haptic.requestBodyInspection", "haproxyBuffer")
	if err != nil {
		return err
	}
	b, err := section(m["haproxyBuffer"], "haptic.requestBodyInspection.haproxyBuffer", "sizeBytes", "reservedBytes")
	if err != nil {
		return err
	}
	return readBounded(b, "haptic.requestBodyInspection.haproxyBuffer", []bounded{
		{"sizeBytes", minBufferBytes, maxBufferBytes, &s.BufferBytes},
		{"reservedBytes", 1, maxBufferBytes - 1, &s.ReservedBytes},
	})
}

// checkBodyBudget holds the body settings to what the chart's render
// requires of them together: a default cap within the ceiling, headroom
// left in the buffer, and a ceiling that fits in the rest. The chart
// refuses to render otherwise, so these are config errors, not per-rule
// findings.
func (s *Settings) checkBodyBudget() error {
	switch {
	case s.DefaultBodyBytes > s.MaxBodyBytes:
		return fmt.Errorf("haptic.waf.policies.requestBody.defaultMaxBytes (%d) must not exceed maxBytes (%d); HAPTIC's chart refuses to render", s.DefaultBodyBytes, s.MaxBodyBytes)
	case s.ReservedBytes >= s.BufferBytes:
		return fmt.Errorf("haptic.requestBodyInspection.haproxyBuffer.reservedBytes (%d) must be smaller than sizeBytes (%d); HAPTIC's chart refuses to render", s.ReservedBytes, s.BufferBytes)
	case s.MaxBodyBytes > s.BufferBytes-s.ReservedBytes:
		return fmt.Errorf("haptic.waf.policies.requestBody.maxBytes (%d) exceeds the HAProxy request buffer left for bodies (requestBodyInspection.haproxyBuffer sizeBytes %d − reservedBytes %d = %d); HAPTIC's chart refuses to render — raise sizeBytes or lower maxBytes",
			s.MaxBodyBytes, s.BufferBytes, s.ReservedBytes, s.BufferBytes-s.ReservedBytes)
	}
	return nil
}

// bounded is a whole-number setting with the chart's bounds.
type bounded struct {
	key      string
	min, max int
	dst      *int
}

// readBounded reads the bounded settings present in m (keys under path).
func readBounded(m map[string]any, path string, fields []bounded) error {
	for _, f := range fields {
		raw, ok := m[f.key]
		if !ok {
			continue
		}
		key := path + "." + f.key
		if err := readCount(raw, key, f.dst); err != nil {
			return err
		}
		if *f.dst < f.min || *f.dst > f.max {
			return fmt.Errorf("%s must be from %d to %d, not %d", key, f.min, f.max, *f.dst)
		}
	}
	return nil
}

// readInline reads waf.policies.inline: policy name → settings. The
// chart's "__replace__" marker (replace the default map instead of merging)
// is not a policy.
func (s *Settings) readInline(v any) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("haptic.waf.policies.inline must be a map of WAF policy names to settings, not %T", v)
	}
	for name, e := range m {
		if name == "__replace__" {
			continue
		}
		entry, ok := e.(map[string]any)
		if !ok && e != nil {
			return fmt.Errorf("haptic.waf.policies.inline.%s must be a map of settings, not %T", name, e)
		}
		if s.Inline == nil {
			s.Inline = map[string]map[string]any{}
		}
		s.Inline[name] = entry
	}
	return nil
}

// readTrusted reads waf.policies.configMapRefs: name → {namespace, name, key}.
func (s *Settings) readTrusted(v any) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("haptic.waf.policies.configMapRefs must be a map of names to {namespace, name, key}, not %T", v)
	}
	for ref, e := range m {
		if ref == "__replace__" {
			continue
		}
		path := "haptic.waf.policies.configMapRefs." + ref
		r, err := section(e, path, "namespace", "name", "key")
		if err != nil {
			return err
		}
		var loc CatalogLocation
		if loc.Namespace, err = readString(r["namespace"], path+".namespace"); err != nil {
			return err
		}
		if loc.Name, err = readString(r["name"], path+".name"); err != nil {
			return err
		}
		if loc.Key, err = readString(r["key"], path+".key"); err != nil {
			return err
		}
		if loc.Namespace == "" || loc.Name == "" {
			return fmt.Errorf("%s needs namespace and name", path)
		}
		if loc.Key == "" {
			loc.Key = DefaultCatalogKey
		}
		if s.Trusted == nil {
			s.Trusted = map[string]CatalogLocation{}
		}
		s.Trusted[ref] = loc
	}
	return nil
}

// rateLimitMessage is the SPOA message HAPTIC's shared rate limit sends
// (44-route-policies.yaml: GatewayPolicyRecord needs it in
// spoaHub.haproxy.messages).
const rateLimitMessage = "check-ratelimit"

// readSPOAHub reads spoaHub: {enabled, haproxy: {messages: [..]}}: the
// hub's master switch (null, the chart's default, derives it from the
// plugins) and the messages the HAProxy side of the SPOA hub sends; the
// chart replaces the whole list when the values set it.
func (s *Settings) readSPOAHub(v any) error {
	m, err := section(v, "haptic.spoaHub", "enabled", "haproxy")
	if err != nil {
		return err
	}
	if en, ok := m["enabled"]; ok && en != nil {
		on := true
		if err := readBool(en, "haptic.spoaHub.enabled", &on); err != nil {
			return err
		}
		s.HubOff = !on
	}
	h, err := section(m["haproxy"], "haptic.spoaHub.haproxy", "messages")
	if err != nil {
		return err
	}
	raw, ok := h["messages"]
	if !ok {
		return nil
	}
	list, ok := raw.([]any)
	if !ok && raw != nil {
		return fmt.Errorf("haptic.spoaHub.haproxy.messages must be a list of message names, not %T", raw)
	}
	s.RateLimitMessage = false
	for i, e := range list {
		name, ok := e.(string)
		if !ok {
			return fmt.Errorf("haptic.spoaHub.haproxy.messages[%d] must be a message name, not %T", i, e)
		}
		if name == rateLimitMessage {
			s.RateLimitMessage = true
		}
	}
	return nil
}

// readDispatch reads waf.dispatch: {mode, defaultEnforcement}, each one of
// the chart's values.
func (s *Settings) readDispatch(v any) error {
	d, err := section(v, "haptic.waf.dispatch", "mode", "defaultEnforcement")
	if err != nil {
		return err
	}
	for _, f := range []struct {
		key     string
		choices []string
		dst     *string
	}{{"mode", DispatchModes, &s.Dispatch.Mode}, {"defaultEnforcement", DispatchEnforcement, &s.Dispatch.DefaultEnforcement}} {
		raw, ok := d[f.key]
		if !ok {
			continue
		}
		path := "haptic.waf.dispatch." + f.key
		val, err := readString(raw, path)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(f.choices, func(c string) bool { return strings.EqualFold(c, val) })
		if i < 0 {
			return fmt.Errorf("%s must be one of %s, not %q", path, strings.Join(f.choices, ", "), val)
		}
		*f.dst = f.choices[i]
	}
	return nil
}

// readIngressPermissions reads waf.ingressPermissions: the chart's five
// switches.
func (s *Settings) readIngressPermissions(v any) error {
	p := &s.IngressPermissions
	fields := []struct {
		key string
		dst *bool
	}{
		{"allowPolicySelection", &p.AllowPolicySelection}, {"allowEnforcementOverride", &p.AllowEnforcementOverride},
		{"allowWafDisable", &p.AllowWafDisable}, {"allowCustomRules", &p.AllowCustomRules}, {"allowRawHAProxyConfig", &p.AllowRawHAProxyConfig},
	}
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	m, err := section(v, "haptic.waf.ingressPermissions", keys...)
	if err != nil {
		return err
	}
	for _, f := range fields {
		if raw, ok := m[f.key]; ok {
			if err := readBool(raw, "haptic.waf.ingressPermissions."+f.key, f.dst); err != nil {
				return err
			}
		}
	}
	return nil
}
