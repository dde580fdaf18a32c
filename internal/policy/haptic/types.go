package haptic

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// API names of the kind.
const (
	Group      = "haproxy-haptic.org"
	Version    = "v1alpha1"
	APIVersion = Group + "/" + Version
	KindName   = "HAProxyRoutePolicy"
)

// HAProxyRoutePolicy is the haproxy-haptic.org/v1alpha1 object as gwpol
// reads it. Only spec is interpreted; status is ignored.
type HAProxyRoutePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              Spec `json:"spec"`
	// Status is accepted (kubectl output carries it) and ignored.
	Status any `json:"status,omitempty"`
}

// Spec is the policy: at least one section must be set.
type Spec struct {
	Authentication *Authentication `json:"authentication,omitempty"`
	RateLimit      *RateLimit      `json:"rateLimit,omitempty"`
	WAF            *WAF            `json:"waf,omitempty"`
	Cache          *Cache          `json:"cache,omitempty"`
}

// Authentication: when both methods are set, a request must pass both.
type Authentication struct {
	JWT    *JWT    `json:"jwt,omitempty"`
	APIKey *APIKey `json:"apiKey,omitempty"`
}

// SecretRef names a Secret in the policy's namespace. Namespace is read
// only to reject references into another namespace.
type SecretRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// JWT validates bearer tokens against the public key in a Secret
// (key pubkey.pem).
type JWT struct {
	SecretRef SecretRef `json:"secretRef"`
	// Algorithm is RS256…ES512; default RS256.
	Algorithm      string         `json:"algorithm,omitempty"`
	Issuer         string         `json:"issuer,omitempty"`
	Audience       string         `json:"audience,omitempty"`
	RequiredClaims []string       `json:"requiredClaims,omitempty"`
	ForwardClaims  []ForwardClaim `json:"forwardClaims,omitempty"`

	// consumerHeader, when set, receives the token's sub claim: the
	// consumer a per-consumer rate limit counts, ahead of an API key's
	// (HAPTIC's JWT check sets the set-once consumer identity from sub
	// before the API key check runs).
	consumerHeader string
	// requireSubject: the policy needs a consumer (a per-consumer rate
	// limit, or a cache behind authentication) and only the token can
	// name it, so a token without sub is refused (401).
	requireSubject bool
	// secretNamespace is the namespace of the Secret (the policy's).
	secretNamespace string
}

// ForwardClaim copies a claim into a request header for the backend.
type ForwardClaim struct {
	Claim  string `json:"claim"`
	Header string `json:"header"`
}

// APIKey checks a key header against the `keys` entry of a Secret, one
// "key:consumer" per line.
type APIKey struct {
	SecretRef SecretRef `json:"secretRef"`
	// Header carrying the key; default X-API-Key.
	Header string `json:"header,omitempty"`
	// ConsumerHeader, when set, receives the consumer name of the key.
	ConsumerHeader string `json:"consumerHeader,omitempty"`

	// forwardHeader is where the consumer is written for the backend or
	// a per-consumer rate limit: ConsumerHeader, or an internal header.
	forwardHeader   string
	secretNamespace string
	// identityHeader, when set, is the consumer header beside a JWT: the
	// route fills it from forwardHeader where the token's sub left it
	// absent.
	identityHeader string
}

// RateLimit is one budget shared by every rule that uses the policy.
type RateLimit struct {
	Requests int64 `json:"requests"`
	// Period is a whole number with a unit: ms, s, m, h or d; default 1s.
	Period string `json:"period,omitempty"`
	// Burst defaults to Requests.
	Burst *int64 `json:"burst,omitempty"`
	// Algorithm is token-bucket (default) or gcra.
	Algorithm string `json:"algorithm,omitempty"`
	// Key is ip (default) or consumer.
	Key string `json:"key,omitempty"`

	// periodNanos is Period parsed; consumerHeader is where the consumer
	// is read from (key consumer), and fallbackHeader, when set, where it
	// is read from when consumerHeader is absent (the API key's consumer
	// behind a token without sub).
	periodNanos    int64
	consumerHeader string
	fallbackHeader string
}

// WAF applies a named policy: from a self-service catalog ConfigMap in the
// policy's namespace (catalogRef), or without catalogRef a trusted policy
// of the deployment (config haptic.waf.policies).
type WAF struct {
	Policy     string     `json:"policy"`
	CatalogRef CatalogRef `json:"catalogRef,omitempty"`

	// catalogRead reports that the catalog entry was found; requestBody
	// is its requestBody.mode ("" when the entry does not say).
	catalogRead bool
	requestBody string
	// trustedSource names where a policy without catalogRef was found
	// ("inline" or "catalog <name>"); "" for a self-service selection.
	trustedSource string
}

// CatalogRef names the catalog ConfigMap and its data key.
type CatalogRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// Key defaults to policies.yaml.
	Key string `json:"key,omitempty"`
}

// Cache stores responses for the rule.
type Cache struct {
	// TTLSeconds caps the lifetime; unset, the origin's Cache-Control
	// decides alone (HAPTIC's policy reference: "Non-negative", default
	// "Origin Cache-Control").
	TTLSeconds         *int64   `json:"ttlSeconds,omitempty"`
	MaxObjectSizeBytes *int64   `json:"maxObjectSizeBytes,omitempty"`
	VaryHeaders        []string `json:"varyHeaders,omitempty"`

	// tierOff: the deployment's cache tier is switched off
	// (haptic.cache.varnish.enabled: false); CheckRule reports it after
	// the gRPC restriction, as HAPTIC does.
	tierOff bool
}

// Defaults.
const (
	DefaultAlgorithm     = "RS256"
	DefaultAPIKeyHeader  = "X-API-Key"
	DefaultPeriod        = "1s"
	DefaultRateAlgorithm = "token-bucket"
	DefaultRateKey       = "ip"
	DefaultCatalogKey    = "policies.yaml"

	// JWTSecretKey and APIKeySecretKey are the Secret entries the
	// credentials are read from.
	JWTSecretKey    = "pubkey.pem"
	APIKeySecretKey = "keys"

	// MaxRefillSeconds bounds burst×period÷requests: the time an empty
	// bucket takes to refill.
	MaxRefillSeconds = 3600

	// reservedHeaderPrefix marks HAPTIC's own headers.
	reservedHeaderPrefix = "x-haptic-"
	// internalConsumerHeader carries the consumer from the auth filters to
	// a per-consumer rate limit when the policy names no consumer header.
	internalConsumerHeader = "x-haptic-consumer"
	// internalSubjectHeader carries a token's sub to a per-consumer rate
	// limit when an API key names a consumer too: sub is read first.
	internalSubjectHeader = "x-haptic-subject"
)
