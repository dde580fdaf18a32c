package wso2

import (
	"fmt"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
)

// The keys of the wso2: section. analytics and policyEngine are the
// gateway-controller's own configuration (its config.toml: analytics,
// router.policy_engine), with its defaults (pkg/config/config.go:
// defaultConfig); the others are gwpol's.
const (
	ConfigKeyAnalytics    = "analytics"
	ConfigKeyPolicyEngine = "policyEngine"
	// ConfigKeyGatewayClassNames is the gateway operator's
	// gateway_api.gateway_class_names (its Helm chart's
	// gatewayApi.managedGatewayClassNames).
	ConfigKeyGatewayClassNames = "gatewayClassNames"
)

// DefaultGatewayClassNames are the GatewayClass names the gateway operator
// manages without configuration (kubernetes/gateway-operator/internal/
// config/config.go@1c84e11c: gateway_class_names).
var DefaultGatewayClassNames = []string{"wso2-api-platform"}

// SectionKeys are the keys the wso2: section takes.
var SectionKeys = []string{ConfigKeySystemPolicies, ConfigKeyEngineCluster, ConfigKeyEngineAddress, ConfigKeyAnalytics, ConfigKeyPolicyEngine, ConfigKeyGatewayClassNames}

// The analytics system policy the gateway-controller prepends to every
// chain when analytics is on (pkg/utils/system_policies.go:
// defaultSystemPolicies; pkg/constants: ANALYTICS_SYSTEM_POLICY_NAME,
// ANALYTICS_SYSTEM_POLICY_VERSION).
const (
	AnalyticsPolicyName    = "wso2_apip_sys_analytics"
	AnalyticsPolicyVersion = "v1"
)

// Policy engine connection modes (router.policy_engine.mode).
const (
	EngineUDS = "uds"
	EngineTCP = "tcp"
)

// EngineSocket is the Unix socket the router reaches the policy engine on
// in uds mode (pkg/constants: DefaultPolicyEngineSocketPath; not
// configurable).
const EngineSocket = "/var/run/api-platform/policy-engine.sock"

// Settings are the gateway-controller's deployment settings that change
// what gwpol emulates: which system policies start every chain and how the
// router calls the policy engine.
type Settings struct {
	// Analytics is analytics.enabled: the analytics system policy starts
	// every chain, with allow_payloads from analytics.allow_payloads.
	// Default false.
	Analytics     bool
	AllowPayloads bool
	// Engine is router.policy_engine.
	Engine EngineSettings
	// GatewayClassNames are the names of the GatewayClasses whose
	// Gateways, and their HTTPRoutes, the gateway operator reconciles
	// (ManagedGatewayClass: by the class's name, not its controllerName).
	GatewayClassNames []string
}

// EngineSettings are router.policy_engine: how the router's ext_proc
// filter reaches the policy engine and what it does when the call fails
// (pkg/xds/translator.go: createExtProcFilter, createPolicyEngineCluster).
type EngineSettings struct {
	// Mode is uds (default: the socket EngineSocket) or tcp (Host:Port).
	Mode string
	Host string // default policy-engine (tcp mode only)
	Port uint32 // default 9001 (tcp mode only)
	// TimeoutMs is the gRPC call timeout, MessageTimeoutMs the ext_proc
	// message timeout; default 60000 each.
	TimeoutMs, MessageTimeoutMs uint32
	// FailureModeAllow lets requests through when the engine cannot be
	// reached (default false: fail closed).
	FailureModeAllow bool
	// AllowModeOverride lets the engine ask for bodies per request
	// (default true).
	AllowModeOverride bool
}

// DefaultSettings are the gateway-controller's defaults.
func DefaultSettings() Settings {
	return Settings{Engine: EngineSettings{Mode: EngineUDS, Host: "policy-engine", Port: 9001, TimeoutMs: 60000, MessageTimeoutMs: 60000, AllowModeOverride: true},
		GatewayClassNames: DefaultGatewayClassNames}
}

// ParseSettings reads the wso2: section: an unknown key or a value of the
// wrong type is an error naming the key, never ignored. policyEngineAddress
// (HOST:PORT) is gwpol's older spelling of policyEngine in tcp mode; the
// two cannot be given together.
func ParseSettings(cfg policy.Config) (Settings, error) {
	s := DefaultSettings()
	var address string
	engineGiven := false
	for k, v := range cfg.Values {
		key, ok := strings.CutPrefix(k, "wso2.")
		if !ok {
			continue
		}
		var err error
		switch strings.ToLower(key) {
		case strings.ToLower(ConfigKeySystemPolicies):
			_, err = SystemPolicies(cfg)
		case strings.ToLower(ConfigKeyEngineCluster):
			if _, ok := v.(string); !ok && v != nil {
				err = fmt.Errorf("wso2.%s must be a string", ConfigKeyEngineCluster)
			}
		case strings.ToLower(ConfigKeyEngineAddress):
			address, ok = v.(string)
			if !ok && v != nil {
				err = fmt.Errorf("wso2.%s must be a string HOST:PORT", ConfigKeyEngineAddress)
			}
		case strings.ToLower(ConfigKeyAnalytics):
			err = s.readAnalytics(v)
		case strings.ToLower(ConfigKeyPolicyEngine):
			engineGiven = true
			err = s.Engine.read(v)
		case strings.ToLower(ConfigKeyGatewayClassNames):
			s.GatewayClassNames, err = classNames(v)
		default:
			err = fmt.Errorf("wso2.%s is not a setting gwpol knows; use one of %s", key, strings.Join(SectionKeys, ", "))
		}
		if err != nil {
			return Settings{}, err
		}
	}
	if address != "" {
		if engineGiven {
			return Settings{}, fmt.Errorf("wso2.%s and wso2.%s both say where the policy engine is; give wso2.%s only", ConfigKeyEngineAddress, ConfigKeyPolicyEngine, ConfigKeyPolicyEngine)
		}
		host, port, err := hostPort(address)
		if err != nil {
			return Settings{}, err
		}
		s.Engine.Mode, s.Engine.Host, s.Engine.Port = EngineTCP, host, port
	}
	return s, nil
}

// classNames reads gatewayClassNames: a list of GatewayClass names, at
// least one (the operator refuses an empty list: config.go "contains no
// valid class names"), each trimmed.
func classNames(v any) ([]string, error) {
	list, ok := v.([]any)
	var out []string
	for _, e := range list {
		s, isString := e.(string)
		if !isString {
			ok = false
			break
		}
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	if !ok || len(out) == 0 {
		return nil, fmt.Errorf("wso2.%s must be a list of GatewayClass names, at least one (default %s)", ConfigKeyGatewayClassNames, strings.Join(DefaultGatewayClassNames, ", "))
	}
	return out, nil
}

// hostPort splits policyEngineAddress.
func hostPort(address string) (string, uint32, error) {
	host, portText, err := net.SplitHostPort(address)
	if err != nil || host == "" { // Envoy refuses an endpoint with an empty address
		return "", 0, fmt.Errorf("wso2.%s %q: want HOST:PORT", ConfigKeyEngineAddress, address)
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || port == 0 {
		return "", 0, fmt.Errorf("wso2.%s %q: the port must be 1-65535", ConfigKeyEngineAddress, address)
	}
	return host, uint32(port), nil
}

func (s *Settings) readAnalytics(v any) error {
	m, err := section(v, "wso2."+ConfigKeyAnalytics, "enabled", "allowPayloads")
	if err != nil {
		return err
	}
	if err := readBool(m, "wso2.analytics", "enabled", &s.Analytics); err != nil {
		return err
	}
	return readBool(m, "wso2.analytics", "allowPayloads", &s.AllowPayloads)
}

func (e *EngineSettings) read(v any) error {
	const at = "wso2." + ConfigKeyPolicyEngine
	m, err := section(v, at, "mode", "host", "port", "timeoutMs", "messageTimeoutMs", "failureModeAllow", "allowModeOverride")
	if err != nil {
		return err
	}
	if x, ok := m["mode"]; ok {
		mode, _ := x.(string)
		if mode = strings.ToLower(mode); mode != EngineUDS && mode != EngineTCP {
			return fmt.Errorf("%s.mode must be %s or %s, not %v", at, EngineUDS, EngineTCP, x)
		}
		e.Mode = mode
	}
	if x, ok := m["host"]; ok {
		h, ok := x.(string)
		if !ok || h == "" {
			return fmt.Errorf("%s.host must be a non-empty string", at)
		}
		e.Host = h
	}
	for _, f := range []struct {
		key string
		dst *uint32
	}{{"port", &e.Port}, {"timeoutMs", &e.TimeoutMs}, {"messageTimeoutMs", &e.MessageTimeoutMs}} {
		key, dst := f.key, f.dst
		if x, ok := m[strings.ToLower(key)]; ok {
			n, ok := whole(x)
			max := uint64(math.MaxUint32)
			if key == "port" {
				max = 65535
			}
			if !ok || n == 0 || n > max {
				return fmt.Errorf("%s.%s must be a whole number from 1 to %d, not %v", at, key, max, x)
			}
			*dst = uint32(n)
		}
	}
	if err := readBool(m, at, "failureModeAllow", &e.FailureModeAllow); err != nil {
		return err
	}
	return readBool(m, at, "allowModeOverride", &e.AllowModeOverride)
}

// section reads a mapping with lower-cased keys, refusing unknown ones.
func section(v any, path string, known ...string) (map[string]any, error) {
	if v == nil {
		return map[string]any{}, nil
	}
	m, ok := stringMap(v)
	if !ok {
		return nil, fmt.Errorf("%s must be a map, not %T", path, v)
	}
	out := map[string]any{}
	for k, val := range m {
		if !slices.ContainsFunc(known, func(n string) bool { return strings.EqualFold(n, k) }) {
			return nil, fmt.Errorf("%s.%s is not a setting gwpol knows; use one of %s", path, k, strings.Join(known, ", "))
		}
		out[strings.ToLower(k)] = val
	}
	return out, nil
}

func readBool(m map[string]any, path, key string, dst *bool) error {
	x, ok := m[strings.ToLower(key)]
	if !ok {
		return nil
	}
	b, ok := x.(bool)
	if !ok {
		return fmt.Errorf("%s.%s must be true or false, not %v", path, key, x)
	}
	*dst = b
	return nil
}

// whole is a YAML number that is a whole non-negative value.
func whole(x any) (uint64, bool) {
	switch n := x.(type) {
	case int:
		return uint64(n), n >= 0
	case int64:
		return uint64(n), n >= 0
	case uint64:
		return n, true
	case float64:
		return uint64(n), n >= 0 && n == math.Trunc(n) && n <= math.MaxUint64
	}
	return 0, false
}
