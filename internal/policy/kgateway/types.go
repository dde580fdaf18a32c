package kgateway

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// API group, version and kinds of the kgateway policy API.
const (
	Group   = "gateway.kgateway.dev"
	Version = "v1alpha1"

	APIVersion = Group + "/" + Version

	KindTrafficPolicy    = "TrafficPolicy"
	KindGatewayExtension = "GatewayExtension"
	KindListenerPolicy   = "ListenerPolicy"
	KindBackend          = "Backend"
)

// TrafficPolicy attaches HTTP traffic settings to Gateways, listeners,
// ListenerSets, HTTPRoutes, GRPCRoutes or individual route rules.
type TrafficPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec TrafficPolicySpec `json:"spec"`
	// Status is what a controller last reported; it is ignored on input but
	// accepted so that objects exported from a cluster decode cleanly.
	Status gwv1.PolicyStatus `json:"status,omitempty"`
}

// TrafficPolicySpec lists everything a TrafficPolicy can configure. Each
// feature field is merged as one unit (see the merge package).
type TrafficPolicySpec struct {
	// TargetRefs names the objects (in the policy's namespace) to attach to.
	TargetRefs []LocalPolicyTargetReferenceWithSectionName `json:"targetRefs,omitempty"`
	// TargetSelectors selects attachment targets by label.
	TargetSelectors []LocalPolicyTargetSelectorWithSectionName `json:"targetSelectors,omitempty"`

	// Transformation rewrites request/response headers and bodies.
	Transformation *TransformationPolicy `json:"transformation,omitempty"`
	// ExtProc enables an external processor from a GatewayExtension.
	ExtProc *ExtProcPolicy `json:"extProc,omitempty"`
	// ExtAuth enables an external authorization service from a GatewayExtension.
	ExtAuth *ExtAuthPolicy `json:"extAuth,omitempty"`
	// RateLimit configures local and/or global rate limiting.
	RateLimit *RateLimit `json:"rateLimit,omitempty"`
	// Cors is the Gateway API CORS filter plus a disable switch.
	Cors *CorsPolicy `json:"cors,omitempty"`
	// Csrf configures Envoy's CSRF filter.
	Csrf *CSRFPolicy `json:"csrf,omitempty"`
	// HeaderModifiers adds, sets or removes request/response headers.
	HeaderModifiers *HeaderModifiers `json:"headerModifiers,omitempty"`
	// AutoHostRewrite rewrites Host to the selected upstream (HTTPRoute only).
	AutoHostRewrite *bool `json:"autoHostRewrite,omitempty"`
	// Buffer limits the buffered request body size.
	Buffer *Buffer `json:"buffer,omitempty"`
	// Timeouts sets request and stream-idle timeouts.
	Timeouts *Timeouts `json:"timeouts,omitempty"`
	// Retry sets the route retry policy.
	Retry *Retry `json:"retry,omitempty"`
	// InternalRedirect lets the gateway follow upstream 3xx responses itself.
	InternalRedirect *InternalRedirect `json:"internalRedirect,omitempty"`
	// RBAC allows or denies requests by CEL expressions and CIDRs.
	RBAC *Authorization `json:"rbac,omitempty"`
	// JWTAuth enables JWT validation from a GatewayExtension (merge key "jwt").
	JWTAuth *JWTAuth `json:"jwtAuth,omitempty"`
	// URLRewrite rewrites the path by regex (HTTPRoute only).
	URLRewrite *URLRewrite `json:"urlRewrite,omitempty"`
	// Compression configures response compression and request
	// decompression (merge keys "compression" and "decompression").
	Compression *Compression `json:"compression,omitempty"`
	// BasicAuth enables HTTP basic authentication.
	BasicAuth *BasicAuthPolicy `json:"basicAuth,omitempty"`
	// APIKeyAuth authenticates requests by API key.
	APIKeyAuth *APIKeyAuth `json:"apiKeyAuth,omitempty"`
	// OAuth2 enables OAuth2/OIDC from a GatewayExtension (merge key "oidc").
	OAuth2 *OAuth2Policy `json:"oauth2,omitempty"`
	// Tracing overrides listener-level tracing for routes.
	Tracing *RouteTracing `json:"tracing,omitempty"`
	// FaultInjection injects delays, aborts or response rate limits.
	FaultInjection *FaultInjectionPolicy `json:"faultInjection,omitempty"`
	// ACL is IP-based access control (merge key "httpACL").
	ACL *ACLPolicy `json:"acl,omitempty"`
	// RequestMirror tunes how RequestMirror filters on the route behave.
	RequestMirror *RequestMirrorPolicy `json:"requestMirror,omitempty"`
	// StatPrefix sets a per-route stats prefix; may use {{route_name}},
	// {{route_namespace}} and {{rule_name}} placeholders.
	StatPrefix *string `json:"statPrefix,omitempty"`
}

// ---------------------------------------------------------------------------
// Shared references and small helpers

// LocalPolicyTargetReference names one object in the policy's namespace.
type LocalPolicyTargetReference struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Name  string `json:"name"`
}

// LocalPolicyTargetReferenceWithSectionName is a target reference that may
// narrow to a section (Gateway listener name or route rule name).
type LocalPolicyTargetReferenceWithSectionName struct {
	LocalPolicyTargetReference `json:",inline"`
	SectionName                *string `json:"sectionName,omitempty"`
}

// LocalPolicyTargetSelector selects objects of one kind by labels.
type LocalPolicyTargetSelector struct {
	Group       string            `json:"group"`
	Kind        string            `json:"kind"`
	MatchLabels map[string]string `json:"matchLabels"`
}

// LocalPolicyTargetSelectorWithSectionName is a label selector that may
// narrow each selected object to a section.
type LocalPolicyTargetSelectorWithSectionName struct {
	LocalPolicyTargetSelector `json:",inline"`
	SectionName               *string `json:"sectionName,omitempty"`
}

// NamespacedObjectReference points at an object by name; the namespace
// defaults to the referring object's own.
type NamespacedObjectReference struct {
	Name      string  `json:"name"`
	Namespace *string `json:"namespace,omitempty"`
}

// LocalObjectReference names an object in the same namespace (the shape of
// core/v1 LocalObjectReference).
type LocalObjectReference struct {
	Name string `json:"name,omitempty"`
}

// PolicyDisable is an empty marker ("disable: {}") that switches a feature
// off, overriding what a less specific policy set.
type PolicyDisable struct{}

// StringMatcher matches a string; exactly one matcher should be set.
type StringMatcher struct {
	Exact      *string `json:"exact,omitempty"`
	Prefix     *string `json:"prefix,omitempty"`
	Suffix     *string `json:"suffix,omitempty"`
	Contains   *string `json:"contains,omitempty"`
	SafeRegex  *string `json:"safeRegex,omitempty"`
	IgnoreCase *bool   `json:"ignoreCase,omitempty"`
}

// FilterStageSpec places an HTTP filter relative to a well-known stage
// (Fault, AuthN, AuthZ, RateLimit, Route).
type FilterStageSpec struct {
	Stage string `json:"stage"`
	// Predicate is Before, During (default) or After.
	Predicate string `json:"predicate,omitempty"`
	// Weight orders filters within one stage/predicate; higher runs first.
	Weight int32 `json:"weight,omitempty"`
}

// ---------------------------------------------------------------------------
// transformation

// TransformationPolicy holds request and response transformations.
type TransformationPolicy struct {
	Request  *Transform `json:"request,omitempty"`
	Response *Transform `json:"response,omitempty"`
}

// Transform lists header and body operations; header values are Inja
// templates.
type Transform struct {
	Set             []HeaderTransformation          `json:"set,omitempty"`
	Add             []HeaderTransformation          `json:"add,omitempty"`
	Remove          []string                        `json:"remove,omitempty"`
	Body            *BodyTransformation             `json:"body,omitempty"`
	DynamicMetadata []DynamicMetadataTransformation `json:"dynamicMetadata,omitempty"`
}

// HeaderTransformation is one header name with its template value.
type HeaderTransformation struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// BodyTransformation controls body parsing and an optional body template.
type BodyTransformation struct {
	// ParseAs is AsString (default), AsJson or None.
	ParseAs string  `json:"parseAs,omitempty"`
	Value   *string `json:"value,omitempty"`
}

// DynamicMetadataTransformation writes one dynamic-metadata entry.
type DynamicMetadataTransformation struct {
	Namespace string               `json:"namespace"`
	Key       string               `json:"key"`
	Value     DynamicMetadataValue `json:"value"`
}

// DynamicMetadataValue is the value of a dynamic-metadata entry.
type DynamicMetadataValue struct {
	StringValue *string `json:"stringValue,omitempty"`
}

// ---------------------------------------------------------------------------
// extProc / extAuth

// ExtProcPolicy turns on (or disables) external processing for the target.
type ExtProcPolicy struct {
	ExtensionRef   *NamespacedObjectReference `json:"extensionRef,omitempty"`
	ProcessingMode *ProcessingMode            `json:"processingMode,omitempty"`
	Disable        *PolicyDisable             `json:"disable,omitempty"`
}

// ProcessingMode says which parts of the stream go to the external processor.
type ProcessingMode struct {
	RequestHeaderMode   string `json:"requestHeaderMode,omitempty"`
	ResponseHeaderMode  string `json:"responseHeaderMode,omitempty"`
	RequestBodyMode     string `json:"requestBodyMode,omitempty"`
	ResponseBodyMode    string `json:"responseBodyMode,omitempty"`
	RequestTrailerMode  string `json:"requestTrailerMode,omitempty"`
	ResponseTrailerMode string `json:"responseTrailerMode,omitempty"`
}

// ExtAuthPolicy turns on (or disables) external authorization for the target.
type ExtAuthPolicy struct {
	ExtensionRef      *NamespacedObjectReference `json:"extensionRef,omitempty"`
	WithRequestBody   *ExtAuthBufferSettings     `json:"withRequestBody,omitempty"`
	ContextExtensions map[string]string          `json:"contextExtensions,omitempty"`
	Disable           *PolicyDisable             `json:"disable,omitempty"`
}

// ExtAuthBufferSettings controls buffering the body for the auth service.
type ExtAuthBufferSettings struct {
	MaxRequestBytes     int32 `json:"maxRequestBytes"`
	AllowPartialMessage *bool `json:"allowPartialMessage,omitempty"`
	PackAsBytes         *bool `json:"packAsBytes,omitempty"`
}

// ---------------------------------------------------------------------------
// rateLimit

// RateLimit groups local (token bucket) and global (service) rate limiting;
// the two are merged independently ("rateLimit.local", "rateLimit.global").
type RateLimit struct {
	Local  *LocalRateLimitPolicy `json:"local,omitempty"`
	Global *RateLimitPolicy      `json:"global,omitempty"`
}

// LocalRateLimitPolicy is an in-proxy token bucket.
type LocalRateLimitPolicy struct {
	TokenBucket     *TokenBucket `json:"tokenBucket,omitempty"`
	PercentEnabled  *int32       `json:"percentEnabled,omitempty"`
	PercentEnforced *int32       `json:"percentEnforced,omitempty"`
}

// disables reports whether the policy is empty, which kgateway reads as
// switching local rate limiting off where it applies (over a less
// specific policy's).
func (l *LocalRateLimitPolicy) disables() bool {
	return l.TokenBucket == nil && l.PercentEnabled == nil && l.PercentEnforced == nil
}

// TokenBucket sizes and refills the local rate limit bucket.
type TokenBucket struct {
	MaxTokens     int32  `json:"maxTokens"`
	TokensPerFill *int32 `json:"tokensPerFill,omitempty"`
	FillInterval  string `json:"fillInterval"`
}

// RateLimitPolicy sends descriptors to the rate limit service named by a
// GatewayExtension.
type RateLimitPolicy struct {
	Descriptors  []RateLimitDescriptor     `json:"descriptors"`
	ExtensionRef NamespacedObjectReference `json:"extensionRef"`
}

// RateLimitDescriptor is one rate limit rule made of entries.
type RateLimitDescriptor struct {
	Entries []RateLimitDescriptorEntry `json:"entries"`
}

// RateLimitDescriptorEntry is one descriptor component; Type is Generic,
// Header, RemoteAddress or Path.
type RateLimitDescriptorEntry struct {
	Type    string                           `json:"type"`
	Generic *RateLimitDescriptorEntryGeneric `json:"generic,omitempty"`
	Header  *string                          `json:"header,omitempty"`
}

// RateLimitDescriptorEntryGeneric is a static key/value entry.
type RateLimitDescriptorEntryGeneric struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// ---------------------------------------------------------------------------
// cors / csrf / headers / buffer

// CorsPolicy is the Gateway API HTTPCORSFilter inlined, plus disable.
type CorsPolicy struct {
	gwv1.HTTPCORSFilter `json:",inline"`
	Disable             *PolicyDisable `json:"disable,omitempty"`
	// rule: the value is an HTTPRoute rule's own CORS filter (RuleFields).
	rule bool
}

// CSRFPolicy configures the CSRF filter.
type CSRFPolicy struct {
	PercentageEnabled  *int32          `json:"percentageEnabled,omitempty"`
	PercentageShadowed *int32          `json:"percentageShadowed,omitempty"`
	AdditionalOrigins  []StringMatcher `json:"additionalOrigins,omitempty"`
}

// HeaderModifiers changes request and/or response headers.
type HeaderModifiers struct {
	Request     *HTTPHeaderFilter `json:"request,omitempty"`
	Response    *HTTPHeaderFilter `json:"response,omitempty"`
	FilterStage *FilterStageSpec  `json:"filterStage,omitempty"`
}

// HTTPHeaderFilter is like the Gateway API filter of the same name, except
// that a value may come from a Secret.
type HTTPHeaderFilter struct {
	Set    []HTTPHeader `json:"set,omitempty"`
	Add    []HTTPHeader `json:"add,omitempty"`
	Remove []string     `json:"remove,omitempty"`
}

// HTTPHeader is a header with either an inline value or a Secret source.
// With a secretRef and no name/key, every Secret entry becomes a header.
type HTTPHeader struct {
	Name      *string           `json:"name,omitempty"`
	Value     *string           `json:"value,omitempty"`
	SecretRef *SecretRefWithKey `json:"secretRef,omitempty"`
}

// SecretRefWithKey points at a Secret and optionally one of its keys.
type SecretRefWithKey struct {
	Name      string  `json:"name"`
	Key       *string `json:"key,omitempty"`
	Namespace *string `json:"namespace,omitempty"`
}

// Buffer caps the buffered request body; exactly one field should be set.
type Buffer struct {
	MaxRequestSize *resource.Quantity `json:"maxRequestSize,omitempty"`
	Disable        *PolicyDisable     `json:"disable,omitempty"`
}

// ---------------------------------------------------------------------------
// timeouts / retry / internalRedirect / requestMirror

// Timeouts are route timeouts, as duration strings.
type Timeouts struct {
	Request    *string `json:"request,omitempty"`
	StreamIdle *string `json:"streamIdle,omitempty"`
}

// Retry is the route retry policy.
type Retry struct {
	RetryOn             []string `json:"retryOn,omitempty"`
	Attempts            *int32   `json:"attempts,omitempty"`
	PerTryTimeout       *string  `json:"perTryTimeout,omitempty"`
	StatusCodes         []int32  `json:"statusCodes,omitempty"`
	BackoffBaseInterval *string  `json:"backoffBaseInterval,omitempty"`
	// RetryHostPredicates: PreviousHosts, OmitCanaryHosts.
	RetryHostPredicates []string `json:"retryHostPredicates,omitempty"`
}

// InternalRedirect makes the gateway follow upstream redirects.
type InternalRedirect struct {
	// RedirectResponseCodes are among 301, 302, 303, 307, 308 (default 302).
	RedirectResponseCodes    []int32  `json:"redirectResponseCodes,omitempty"`
	AllowCrossSchemeRedirect *bool    `json:"allowCrossSchemeRedirect,omitempty"`
	ResponseHeadersToCopy    []string `json:"responseHeadersToCopy,omitempty"`
	MaxRedirects             *uint32  `json:"maxRedirects,omitempty"`
}

// RequestMirrorPolicy adjusts the Host of requests mirrored by the route's
// RequestMirror filters.
type RequestMirrorPolicy struct {
	// DisableShadowHostSuffixAppend stops Envoy appending "-shadow" to Host.
	DisableShadowHostSuffixAppend *bool `json:"disableShadowHostSuffixAppend,omitempty"`
	// HostRewriteLiteral replaces Host/:authority on mirrored requests.
	HostRewriteLiteral *string `json:"hostRewriteLiteral,omitempty"`
}

// ---------------------------------------------------------------------------
// rbac / acl

// Authorization is an RBAC rule: Action (Allow default, or Deny) applies
// when the policy matches.
type Authorization struct {
	Policy AuthorizationPolicy `json:"policy"`
	Action string              `json:"action,omitempty"`
}

// AuthorizationPolicy matches on CEL expressions (any) and client CIDRs.
type AuthorizationPolicy struct {
	MatchExpressions []string `json:"matchExpressions,omitempty"`
	AllowedCIDRs     []string `json:"allowedCIDRs,omitempty"`
	BlockedCIDRs     []string `json:"blockedCIDRs,omitempty"`
}

// ACLPolicy is a longest-prefix-match IP allow/deny list; actions are the
// lowercase strings "allow" and "deny".
type ACLPolicy struct {
	DefaultAction string           `json:"defaultAction"`
	Rules         []ACLRule        `json:"rules,omitempty"`
	DenyResponse  *ACLDenyResponse `json:"denyResponse,omitempty"`
}

// ACLRule gives one action to a set of IPs/CIDRs.
type ACLRule struct {
	Name   *string  `json:"name,omitempty"`
	CIDRs  []string `json:"cidrs"`
	Action string   `json:"action"`
}

// ACLDenyResponse customises the response to denied requests.
type ACLDenyResponse struct {
	StatusCode *int32              `json:"statusCode,omitempty"`
	Headers    []ACLResponseHeader `json:"headers,omitempty"`
	// BlockedByHeaderName names a response header saying which rule blocked the request.
	BlockedByHeaderName *string `json:"blockedByHeaderName,omitempty"`
}

// ACLResponseHeader is a header added to deny responses.
type ACLResponseHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ---------------------------------------------------------------------------
// jwtAuth / oauth2 / basicAuth / apiKeyAuth

// JWTAuth turns on (or disables) JWT validation for the target.
type JWTAuth struct {
	ExtensionRef *NamespacedObjectReference `json:"extensionRef,omitempty"`
	Disable      *PolicyDisable             `json:"disable,omitempty"`
}

// OAuth2Policy turns on OAuth2/OIDC via a GatewayExtension.
type OAuth2Policy struct {
	ExtensionRef NamespacedObjectReference `json:"extensionRef"`
}

// BasicAuthPolicy authenticates with htpasswd (SHA-1) credentials given
// inline or in a Secret.
type BasicAuthPolicy struct {
	Users     []string         `json:"users,omitempty"`
	SecretRef *SecretReference `json:"secretRef,omitempty"`
	Disable   *PolicyDisable   `json:"disable,omitempty"`
}

// SecretReference points at a Secret key (default ".htpasswd").
type SecretReference struct {
	Name      string  `json:"name"`
	Namespace *string `json:"namespace,omitempty"`
	Key       *string `json:"key,omitempty"`
}

// APIKeyAuth authenticates requests by API keys kept in Secrets.
type APIKeyAuth struct {
	KeySources        []APIKeySource              `json:"keySources,omitempty"`
	ForwardCredential *bool                       `json:"forwardCredential,omitempty"`
	ClientIDHeader    *string                     `json:"clientIdHeader,omitempty"`
	SecretRef         *gwv1.SecretObjectReference `json:"secretRef,omitempty"`
	SecretSelector    *LabelSelector              `json:"secretSelector,omitempty"`
	Disable           *PolicyDisable              `json:"disable,omitempty"`
}

// APIKeySource says where to read a key; header wins over query over cookie.
type APIKeySource struct {
	Header *string `json:"header,omitempty"`
	Query  *string `json:"query,omitempty"`
	Cookie *string `json:"cookie,omitempty"`
}

// LabelSelector is a matchLabels-only selector.
type LabelSelector struct {
	MatchLabels map[string]string `json:"matchLabels"`
}

// ---------------------------------------------------------------------------
// urlRewrite / compression / tracing / faultInjection

// URLRewrite rewrites the request path with a regex.
type URLRewrite struct {
	PathRegex *PathRegexRewrite `json:"pathRegex,omitempty"`
}

// PathRegexRewrite is an RE2 pattern and its substitution.
type PathRegexRewrite struct {
	Pattern      string `json:"pattern"`
	Substitution string `json:"substitution"`
}

// Compression configures response compression and request decompression.
type Compression struct {
	ResponseCompression  *ResponseCompression  `json:"responseCompression,omitempty"`
	RequestDecompression *RequestDecompression `json:"requestDecompression,omitempty"`
}

// ResponseCompression compresses responses; Libraries are Gzip, Brotli, Zstd.
type ResponseCompression struct {
	Libraries             []string       `json:"libraries,omitempty"`
	MinContentLengthBytes *int32         `json:"minContentLengthBytes,omitempty"`
	ContentTypes          []string       `json:"contentTypes,omitempty"`
	Disable               *PolicyDisable `json:"disable,omitempty"`
}

// RequestDecompression decompresses request bodies.
type RequestDecompression struct {
	Libraries []string       `json:"libraries,omitempty"`
	Disable   *PolicyDisable `json:"disable,omitempty"`
}

// RouteTracing overrides listener tracing settings on routes.
type RouteTracing struct {
	ClientSampling  *int32            `json:"clientSampling,omitempty"`
	RandomSampling  *int32            `json:"randomSampling,omitempty"`
	OverallSampling *int32            `json:"overallSampling,omitempty"`
	Attributes      []CustomAttribute `json:"attributes,omitempty"`
	Disable         *PolicyDisable    `json:"disable,omitempty"`
}

// FaultInjectionPolicy injects faults for resilience testing.
type FaultInjectionPolicy struct {
	Delay             *FaultDelay             `json:"delay,omitempty"`
	Abort             *FaultAbort             `json:"abort,omitempty"`
	ResponseRateLimit *FaultResponseRateLimit `json:"responseRateLimit,omitempty"`
	MaxActiveFaults   *uint32                 `json:"maxActiveFaults,omitempty"`
	Disable           *PolicyDisable          `json:"disable,omitempty"`
}

// FaultDelay delays a percentage (default 100) of requests.
type FaultDelay struct {
	FixedDelay string `json:"fixedDelay"`
	Percentage *int32 `json:"percentage,omitempty"`
}

// FaultAbort fails a percentage of requests with an HTTP or gRPC status.
type FaultAbort struct {
	HTTPStatus *int32 `json:"httpStatus,omitempty"`
	GrpcStatus *int32 `json:"grpcStatus,omitempty"`
	Percentage *int32 `json:"percentage,omitempty"`
}

// FaultResponseRateLimit throttles response bodies.
type FaultResponseRateLimit struct {
	KbitsPerSecond uint64 `json:"kbitsPerSecond"`
	Percentage     *int32 `json:"percentage,omitempty"`
}
