package envoygateway

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gwpol/gwpol/internal/policy"
)

// The Envoy Gateway deployment settings gwpol reads (policy.Setting): the
// parts of its EnvoyGateway configuration that change what the translator
// makes of the same manifests (api/v1alpha1/envoygateway_types.go at
// v1.9.0, read by internal/gatewayapi/runner/runner.go into the
// Translator's switches).
var (
	// EnableLua is extensionApis.enableLua: Lua EnvoyExtensionPolicies are
	// translated only when the deployment enables them. Envoy Gateway
	// v1.9.0's default is off (ExtensionAPISettings.LuaDisabled: true
	// unless enableLua, or the deprecated disableLua: false, says
	// otherwise), and then every policy with a lua entry is
	// Accepted=False, Invalid. gwpol's default is Envoy Gateway's: an
	// input with Lua policies checked against a deployment left at its
	// defaults is told which key enables them (Enables).
	EnableLua = policy.Setting{
		Key:     "envoyGateway.extensionApis.enableLua",
		Default: false,
		Doc: "Envoy Gateway's extensionApis.enableLua (default false, as Envoy Gateway's): " +
			"false: every EnvoyExtensionPolicy with spec.lua is Accepted=False, Invalid (\"Lua: Skipping Lua EnvoyExtensionPolicy as feature is disabled in the Gateway\")",
		Source: "api/v1alpha1/envoygateway_helpers.go: ExtensionAPISettings.LuaDisabled; internal/gatewayapi/envoyextensionpolicy.go: buildLuas",
	}
	// EnableBackend is extensionApis.enableBackend: routes and policies
	// may use Envoy Gateway's Backend kind. Envoy Gateway's default, and
	// gwpol's, is false.
	EnableBackend = policy.Setting{
		Key:     "envoyGateway.enableBackend",
		Default: false,
		Doc: "Envoy Gateway's extensionApis.enableBackend (default false, as Envoy Gateway's): " +
			"false: a route or policy that uses the Backend kind is refused (\"Backend is disabled in Envoy Gateway configuration\"), and every Backend's own status says Accepted False",
		Source: "internal/gatewayapi/runner/runner.go: BackendEnabled; internal/gatewayapi/backend.go: ProcessBackends; internal/gatewayapi/validate.go: validateBackendRefBackend; internal/gatewayapi/ext_service.go",
	}
	// EnableSDSSecretRef is extensionApis.enableSDSSecretRef: a listener
	// certificate (or a CA) may be a Secret of type
	// gateway.envoyproxy.io/sds naming a certificate an SDS server holds.
	// Envoy Gateway's default, and gwpol's, is false.
	EnableSDSSecretRef = policy.Setting{
		Key:     "envoyGateway.extensionApis.enableSDSSecretRef",
		Default: false,
		Doc: "Envoy Gateway's extensionApis.enableSDSSecretRef (default false, as Envoy Gateway's): " +
			"false: a listener certificateRef to a Secret of type gateway.envoyproxy.io/sds is refused (ResolvedRefs False, InvalidCertificateRef); true: it is used when it has a secretName and a unix:// url",
		Source: "internal/gatewayapi/runner/runner.go: SDSSecretRefEnabled; internal/gatewayapi/validate.go: validateTerminateModeAndGetTLSSecrets; internal/ir/xds.go: NewSDSConfig",
	}
	// RunningOnHost: Envoy Gateway runs its proxies on the host (its
	// Custom provider with Host infrastructure), where a Backend may name
	// a loopback address or a single-label hostname.
	RunningOnHost = policy.Setting{
		Key:     "envoyGateway.runningOnHost",
		Default: false,
		Doc:     "Envoy Gateway runs its proxies on the host (provider Custom, infrastructure Host): a Backend may name a loopback address or a single-label hostname",
		Source:  "internal/gatewayapi/runner/runner.go: RunningOnHost (Provider.IsRunningOnHost)",
	}
	// RateLimitEnabled: the deployment runs a rate limit service (its
	// EnvoyGateway configuration has rateLimit). Envoy Gateway's default
	// is none, and then it refuses every policy with a global rate limit.
	RateLimitEnabled = policy.Setting{
		Key:     "envoyGateway.rateLimit.enabled",
		Default: false,
		Doc: "a rate limit service is deployed (the EnvoyGateway configuration's rateLimit); false (Envoy Gateway's default): every BackendTrafficPolicy with a global rate limit is " +
			"Accepted=False Invalid (\"enable Ratelimit in the EnvoyGateway config…\") and its routes answer 500",
		Source: "internal/gatewayapi/runner/runner.go: GlobalRateLimitEnabled; internal/gatewayapi/backendtrafficpolicy.go: buildGlobalRateLimit",
	}
	// RateLimitServiceURL is the service's gRPC URL; "" is Envoy Gateway's
	// own, grpc://envoy-ratelimit.envoy-gateway-system.svc.cluster.local:8081.
	RateLimitServiceURL = policy.Setting{
		Key:     keyRateLimitServiceURL,
		Default: "",
		Doc:     "the rate limit service's gRPC URL; \"\": " + defaultRateLimitURL + " (cluster ratelimit_cluster, TLS with the client certificate of Secret envoy-gateway-system/envoy)",
		Source:  "internal/infrastructure/kubernetes/ratelimit/resource.go: GetServiceURL (the deployment's own service)",
		Check:   checkServiceURL,
	}
	// RateLimitTimeout is rateLimit.timeout, a Go duration ("" for Envoy's
	// default, 20ms).
	RateLimitTimeout = policy.Setting{
		Key:     keyRateLimitTimeout,
		Default: "",
		Doc:     "rateLimit.timeout of the calls to the service (a Go duration); \"\": Envoy's default",
		Source:  "api/v1alpha1/envoygateway_types.go: RateLimit.Timeout",
		Check:   checkTimeout,
	}
	// RateLimitFailClosed is rateLimit.failClosed: a request is refused
	// when the service cannot be reached.
	RateLimitFailClosed = policy.Setting{
		Key:     "envoyGateway.rateLimit.failClosed",
		Default: false,
		Doc:     "rateLimit.failClosed: refuse requests when the service cannot be reached",
		Source:  "api/v1alpha1/envoygateway_types.go: RateLimit.FailClosed",
	}
)

// enables is the hint a finding about a switched-off feature ends with:
// the .gwpol.yaml that switches it on, for a deployment that does.
func enables(s policy.Setting) string {
	return fmt.Sprintf("if the deployment's EnvoyGateway configuration enables it, say so in .gwpol.yaml: %s", yamlPath(s.Key, "true"))
}

// yamlPath writes a dotted key and its value as flow YAML
// ("a.b: v" → "{a: {b: v}}").
func yamlPath(key, value string) string {
	parts := strings.Split(key, ".")
	out := value
	for i := len(parts) - 1; i >= 0; i-- {
		out = "{" + parts[i] + ": " + out + "}"
	}
	return out
}

// The keys the checks name (a Setting cannot name itself in its Check).
const (
	keyRateLimitServiceURL = "envoyGateway.rateLimit.serviceURL"
	keyRateLimitTimeout    = "envoyGateway.rateLimit.timeout"
)

// Settings are the Envoy Gateway deployment settings gwpol reads, for the
// pipeline to register.
var Settings = []policy.Setting{EnableLua, EnableBackend, EnableSDSSecretRef, RunningOnHost, RateLimitEnabled, RateLimitServiceURL, RateLimitTimeout, RateLimitFailClosed}

// checkServiceURL: a URL with a host and a port (grpc://host:port).
func checkServiceURL(v any) error {
	s, _ := v.(string)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || u.Port() == "" {
		return fmt.Errorf("%s must be a URL with a host and a port (grpc://host:port), not %q", keyRateLimitServiceURL, s)
	}
	if _, err := strconv.ParseUint(u.Port(), 10, 16); err != nil {
		return fmt.Errorf("%s: port %q is not a port number", keyRateLimitServiceURL, u.Port())
	}
	return nil
}

// checkTimeout: a Go duration, not negative.
func checkTimeout(v any) error {
	s, _ := v.(string)
	if s == "" {
		return nil
	}
	if d, err := time.ParseDuration(s); err != nil || d < 0 {
		return fmt.Errorf("%s must be a duration such as 20ms, not %q", keyRateLimitTimeout, s)
	}
	return nil
}
