package kgateway

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ===========================================================================
// GatewayExtension

// GatewayExtension describes an external service (auth, processing, rate
// limiting) or a provider config (JWT, OAuth2) that policies refer to by
// extensionRef.
type GatewayExtension struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GatewayExtensionSpec   `json:"spec"`
	Status GatewayExtensionStatus `json:"status,omitempty"`
}

// GatewayExtension types (spec.type; deprecated upstream, the set field decides).
const (
	GatewayExtensionTypeExtAuth   = "ExtAuth"
	GatewayExtensionTypeExtProc   = "ExtProc"
	GatewayExtensionTypeRateLimit = "RateLimit"
	GatewayExtensionTypeJWT       = "JWT"
	GatewayExtensionTypeOAuth2    = "OAuth2"
)

// GatewayExtensionSpec sets exactly one of the provider fields.
type GatewayExtensionSpec struct {
	// Type is ExtAuth, ExtProc, RateLimit, JWT or OAuth2 (optional, deprecated).
	Type      *string            `json:"type,omitempty"`
	ExtAuth   *ExtAuthProvider   `json:"extAuth,omitempty"`
	ExtProc   *ExtProcProvider   `json:"extProc,omitempty"`
	RateLimit *RateLimitProvider `json:"rateLimit,omitempty"`
	JWT       *JWT               `json:"jwt,omitempty"`
	OAuth2    *OAuth2Provider    `json:"oauth2,omitempty"`
}

// GatewayExtensionStatus is the controller-reported state.
type GatewayExtensionStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ExtGrpcService is a gRPC backend for ext_authz, ext_proc or rate limiting.
type ExtGrpcService struct {
	BackendRef     gwv1.BackendRef    `json:"backendRef"`
	Authority      *string            `json:"authority,omitempty"`
	RequestTimeout *string            `json:"requestTimeout,omitempty"`
	Retry          *ExtSvcRetryPolicy `json:"retry,omitempty"`
}

// ExtHTTPService is an HTTP backend for ext_authz.
type ExtHTTPService struct {
	BackendRef            gwv1.BackendRef        `json:"backendRef"`
	PathPrefix            string                 `json:"pathPrefix,omitempty"`
	RequestTimeout        *string                `json:"requestTimeout,omitempty"`
	AuthorizationRequest  *AuthorizationRequest  `json:"authorizationRequest,omitempty"`
	AuthorizationResponse *AuthorizationResponse `json:"authorizationResponse,omitempty"`
	Retry                 *ExtSvcRetryPolicy     `json:"retry,omitempty"`
}

// AuthorizationRequest adds headers to the request sent to the auth server.
type AuthorizationRequest struct {
	HeadersToAdd map[string]string `json:"headersToAdd,omitempty"`
}

// AuthorizationResponse chooses which auth-server headers are passed on.
type AuthorizationResponse struct {
	HeadersToBackend         []string `json:"headersToBackend,omitempty"`
	HeadersToClient          []string `json:"headersToClient,omitempty"`
	HeadersToClientOnSuccess []string `json:"headersToClientOnSuccess,omitempty"`
}

// ExtSvcRetryPolicy retries calls to an external service.
type ExtSvcRetryPolicy struct {
	Attempts *int32        `json:"attempts,omitempty"`
	Backoff  *RetryBackoff `json:"backoff,omitempty"`
}

// RetryBackoff is a jittered exponential backoff.
type RetryBackoff struct {
	BaseInterval string  `json:"baseInterval"`
	MaxInterval  *string `json:"maxInterval,omitempty"`
}

// ExtAuthProvider configures the ext_authz filter; exactly one of
// GrpcService and HTTPService should be set.
type ExtAuthProvider struct {
	GrpcService       *ExtGrpcService        `json:"grpcService,omitempty"`
	HTTPService       *ExtHTTPService        `json:"httpService,omitempty"`
	HeadersToForward  []string               `json:"headersToForward,omitempty"`
	FailOpen          *bool                  `json:"failOpen,omitempty"`
	ClearRouteCache   *bool                  `json:"clearRouteCache,omitempty"`
	WithRequestBody   *ExtAuthBufferSettings `json:"withRequestBody,omitempty"`
	StatusOnError     *int32                 `json:"statusOnError,omitempty"`
	StatPrefix        *string                `json:"statPrefix,omitempty"`
	PercentageEnabled *int32                 `json:"percentageEnabled,omitempty"`
}

// ExtProcProvider configures the ext_proc filter.
type ExtProcProvider struct {
	GrpcService                    ExtGrpcService    `json:"grpcService"`
	FailOpen                       *bool             `json:"failOpen,omitempty"`
	ProcessingMode                 *ProcessingMode   `json:"processingMode,omitempty"`
	AllowProcessingModeOverride    *bool             `json:"allowProcessingModeOverride,omitempty"`
	AllowedProcessingModeOverrides []*ProcessingMode `json:"allowedProcessingModeOverrides,omitempty"`
	MessageTimeout                 *string           `json:"messageTimeout,omitempty"`
	MaxMessageTimeout              *string           `json:"maxMessageTimeout,omitempty"`
	StatPrefix                     *string           `json:"statPrefix,omitempty"`
	// RouteCacheAction is FromResponse (default), Clear or Retain.
	RouteCacheAction string           `json:"routeCacheAction,omitempty"`
	MetadataOptions  *MetadataOptions `json:"metadataOptions,omitempty"`
	// RequestAttributes and ResponseAttributes are Envoy attributes sent
	// to the processor with the request and the response.
	RequestAttributes  []string `json:"requestAttributes,omitempty"`
	ResponseAttributes []string `json:"responseAttributes,omitempty"`
	// FilterStage places the ext_proc filter in the chain.
	FilterStage *FilterStageSpec `json:"filterStage,omitempty"`
}

// MetadataOptions chooses dynamic metadata namespaces sent to ext_proc.
type MetadataOptions struct {
	Forwarding *MetadataNamespaces `json:"forwarding,omitempty"`
}

// MetadataNamespaces lists typed and untyped metadata namespaces.
type MetadataNamespaces struct {
	Typed   []string `json:"typed,omitempty"`
	Untyped []string `json:"untyped,omitempty"`
}

// RateLimitProvider is a global rate limit service.
type RateLimitProvider struct {
	GrpcService ExtGrpcService `json:"grpcService"`
	Domain      string         `json:"domain"`
	// FailOpen defaults to true.
	FailOpen *bool `json:"failOpen,omitempty"`
	// Timeout defaults to 100ms.
	Timeout *string `json:"timeout,omitempty"`
	// XRateLimitHeaders is Off (default) or DraftVersion03.
	XRateLimitHeaders string `json:"xRateLimitHeaders,omitempty"`
}

// JWT is a set of named JWT providers (OR-ed).
type JWT struct {
	// ValidationMode is Strict (default) or AllowMissing.
	ValidationMode *string            `json:"validationMode,omitempty"`
	Providers      []NamedJWTProvider `json:"providers,omitempty"`
}

// NamedJWTProvider is a JWTProvider with a name.
type NamedJWTProvider struct {
	Name        string `json:"name"`
	JWTProvider `json:",inline"`
}

// JWTProvider validates tokens from one issuer.
type JWTProvider struct {
	Issuer          string             `json:"issuer,omitempty"`
	Audiences       []string           `json:"audiences,omitempty"`
	TokenSource     *JWTTokenSource    `json:"tokenSource,omitempty"`
	ClaimsToHeaders []JWTClaimToHeader `json:"claimsToHeaders,omitempty"`
	JWKS            JWKS               `json:"jwks"`
	ForwardToken    *bool              `json:"forwardToken,omitempty"`
}

// JWTTokenSource says where the token is read from.
type JWTTokenSource struct {
	HeaderSource   *HeaderSource `json:"header,omitempty"`
	QueryParameter *string       `json:"queryParameter,omitempty"`
}

// HeaderSource is a header carrying a token, with an optional prefix.
type HeaderSource struct {
	Header string  `json:"header"`
	Prefix *string `json:"prefix,omitempty"`
}

// JWTClaimToHeader copies a verified claim into an upstream header.
type JWTClaimToHeader struct {
	Name      string `json:"name"`
	Header    string `json:"header"`
	Overwrite *bool  `json:"overwrite,omitempty"`
}

// JWKS is the key set source; exactly one of Local and Remote.
type JWKS struct {
	Local  *LocalJWKS  `json:"local,omitempty"`
	Remote *RemoteJWKS `json:"remote,omitempty"`
}

// LocalJWKS is an inline key set or one in a ConfigMap (key "jwks").
type LocalJWKS struct {
	Inline       *string               `json:"inline,omitempty"`
	ConfigMapRef *LocalObjectReference `json:"configMapRef,omitempty"`
}

// RemoteJWKS fetches the key set over HTTP(S).
type RemoteJWKS struct {
	URL           string                      `json:"url"`
	BackendRef    gwv1.BackendObjectReference `json:"backendRef"`
	CacheDuration *string                     `json:"cacheDuration,omitempty"`
	AsyncFetch    *JWKSAsyncFetch             `json:"asyncFetch,omitempty"`
	RetryPolicy   *JWKSRetryPolicy            `json:"retryPolicy,omitempty"`
}

// JWKSAsyncFetch fetches the key set in the background.
type JWKSAsyncFetch struct {
	FastListener          *bool   `json:"fastListener,omitempty"`
	FailedRefetchDuration *string `json:"failedRefetchDuration,omitempty"`
}

// JWKSRetryPolicy retries failed key set fetches.
type JWKSRetryPolicy struct {
	NumRetries *int32            `json:"numRetries,omitempty"`
	BackOff    *JWKSRetryBackOff `json:"backOff,omitempty"`
}

// JWKSRetryBackOff is the backoff between key set fetch retries.
type JWKSRetryBackOff struct {
	BaseInterval string  `json:"baseInterval"`
	MaxInterval  *string `json:"maxInterval,omitempty"`
}

// OAuth2Provider configures the OAuth2/OIDC filter.
type OAuth2Provider struct {
	BackendRef            gwv1.BackendRef            `json:"backendRef"`
	AuthorizationEndpoint *string                    `json:"authorizationEndpoint,omitempty"`
	TokenEndpoint         *string                    `json:"tokenEndpoint,omitempty"`
	RedirectURI           *string                    `json:"redirectURI,omitempty"`
	LogoutPath            *string                    `json:"logoutPath,omitempty"`
	ForwardAccessToken    *bool                      `json:"forwardAccessToken,omitempty"`
	Scopes                []string                   `json:"scopes,omitempty"`
	Credentials           OAuth2Credentials          `json:"credentials"`
	IssuerURI             *string                    `json:"issuerURI,omitempty"`
	EndSessionEndpoint    *string                    `json:"endSessionEndpoint,omitempty"`
	Cookies               *OAuth2CookieConfig        `json:"cookies,omitempty"`
	JWT                   *OAuth2JWTConfig           `json:"jwt,omitempty"`
	DenyRedirect          *OAuth2DenyRedirectMatcher `json:"denyRedirect,omitempty"`
}

// OAuth2Credentials is the client ID and a Secret holding "client-secret".
type OAuth2Credentials struct {
	ClientID        string               `json:"clientID"`
	ClientSecretRef LocalObjectReference `json:"clientSecretRef"`
}

// OAuth2CookieConfig tunes the token cookies.
type OAuth2CookieConfig struct {
	Domain *string            `json:"domain,omitempty"`
	Names  *OAuth2CookieNames `json:"names,omitempty"`
	// SameSite is Lax (default), Strict or None.
	SameSite                     *string `json:"sameSite,omitempty"`
	DisableAccessTokenSetCookie  *bool   `json:"disableAccessTokenSetCookie,omitempty"`
	DisableIDTokenSetCookie      *bool   `json:"disableIDTokenSetCookie,omitempty"`
	DisableRefreshTokenSetCookie *bool   `json:"disableRefreshTokenSetCookie,omitempty"`
}

// OAuth2CookieNames renames the token cookies.
type OAuth2CookieNames struct {
	AccessToken *string `json:"accessToken,omitempty"`
	IDToken     *string `json:"idToken,omitempty"`
}

// OAuth2JWTConfig validates the retrieved tokens as JWTs.
type OAuth2JWTConfig struct {
	JWKSURI        *string                      `json:"jwksURI,omitempty"`
	JWKSBackendRef *gwv1.BackendObjectReference `json:"jwksBackendRef,omitempty"`
	AccessToken    *OAuth2JWTProcessingConfig   `json:"accessToken,omitempty"`
	IDToken        *OAuth2JWTProcessingConfig   `json:"idToken,omitempty"`
}

// OAuth2JWTProcessingConfig checks audiences and copies claims to headers.
type OAuth2JWTProcessingConfig struct {
	Audiences       []string           `json:"audiences,omitempty"`
	ClaimsToHeaders []JWTClaimToHeader `json:"claimsToHeaders,omitempty"`
}

// OAuth2DenyRedirectMatcher selects requests answered 401 instead of being
// redirected to the authorization endpoint.
type OAuth2DenyRedirectMatcher struct {
	Headers []gwv1.HTTPHeaderMatch `json:"headers,omitempty"`
}

// ===========================================================================
// Backend

// Backend is a kgateway-defined upstream (static hosts, AWS Lambda, ...).
type Backend struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   BackendSpec   `json:"spec"`
	Status BackendStatus `json:"status,omitempty"`
}

// Backend types (spec.type; deprecated upstream, the set field decides).
const (
	BackendTypeAWS                 = "AWS"
	BackendTypeStatic              = "Static"
	BackendTypeDynamicForwardProxy = "DynamicForwardProxy"
	BackendTypeGCP                 = "GCP"
)

// BackendSpec sets exactly one of the backend kinds.
type BackendSpec struct {
	Type                *string                     `json:"type,omitempty"`
	Aws                 *AwsBackend                 `json:"aws,omitempty"`
	Static              *StaticBackend              `json:"static,omitempty"`
	DynamicForwardProxy *DynamicForwardProxyBackend `json:"dynamicForwardProxy,omitempty"`
	Gcp                 *GcpBackend                 `json:"gcp,omitempty"`
	// PriorityGroups fail over between groups of Backends of the same
	// namespace (judged for the Backend's status; not rendered yet).
	PriorityGroups []PriorityGroup `json:"priorityGroups,omitempty"`
}

// PriorityGroup is one failover level: the Backends it balances over.
type PriorityGroup struct {
	BackendRefs []LocalObjectReference `json:"backendRefs"`
}

// BackendStatus is the controller-reported state.
type BackendStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// StaticBackend is a fixed list of host:port endpoints.
type StaticBackend struct {
	Hosts []Host `json:"hosts"`
	// AppProtocol is http2, grpc, grpc-web, kubernetes.io/h2c or kubernetes.io/ws.
	AppProtocol *string `json:"appProtocol,omitempty"`
}

// Host is one static endpoint.
type Host struct {
	Host string `json:"host"`
	Port int32  `json:"port"`
}

// DynamicForwardProxyBackend forwards to the host named in the request.
type DynamicForwardProxyBackend struct {
	EnableTLS *bool `json:"enableTls,omitempty"`
}

// AwsBackend invokes an AWS Lambda function, or sends to the EC2
// instances AWS discovery finds.
type AwsBackend struct {
	Lambda    *AwsLambda `json:"lambda,omitempty"`
	Ec2       *AwsEc2    `json:"ec2,omitempty"`
	AccountID string     `json:"accountId,omitempty"`
	Auth      *AwsAuth   `json:"auth,omitempty"`
	Region    *string    `json:"region,omitempty"`
}

// AwsLambda names the function and how it is invoked.
type AwsLambda struct {
	// AccountID here takes precedence over the deprecated aws.accountId
	// beside lambda, which is read only when this one is not set
	// (kgateway's getLambdaAccountID; the pinned CRD says so).
	AccountID            string  `json:"accountId,omitempty"`
	EndpointURL          *string `json:"endpointURL,omitempty"`
	FunctionName         string  `json:"functionName"`
	InvocationMode       *string `json:"invocationMode,omitempty"`
	Qualifier            *string `json:"qualifier,omitempty"`
	PayloadTransformMode *string `json:"payloadTransformMode,omitempty"`
}

// AwsEc2 selects EC2 instances by tag; the controller discovers them.
type AwsEc2 struct {
	Port        int32                  `json:"port,omitempty"`
	AddressType *string                `json:"addressType,omitempty"`
	Filters     []runtime.RawExtension `json:"filters,omitempty"`
}

// AwsAuth selects the AWS credentials: a Secret (type Secret) or a role
// to assume (type AssumeRole).
type AwsAuth struct {
	Type       string                `json:"type"`
	SecretRef  *LocalObjectReference `json:"secretRef,omitempty"`
	AssumeRole *AwsAssumeRole        `json:"assumeRole,omitempty"`
}

// AwsAssumeRole is the IAM role the gateway assumes.
type AwsAssumeRole struct {
	RoleARN string `json:"roleArn"`
}

// GcpBackend calls a GCP service with an identity token.
type GcpBackend struct {
	Host     string  `json:"host"`
	Audience *string `json:"audience,omitempty"`
}

// ===========================================================================
// ListenerPolicy

// ListenerPolicy configures Envoy listeners (and their HTTP connection
// managers) of the targeted Gateways.
type ListenerPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ListenerPolicySpec `json:"spec"`
	Status gwv1.PolicyStatus  `json:"status,omitempty"`
}

// ListenerPolicySpec holds a default listener config and per-port overrides
// (a per-port entry replaces the default entirely for that port).
type ListenerPolicySpec struct {
	TargetRefs      []LocalPolicyTargetReferenceWithSectionName `json:"targetRefs,omitempty"`
	TargetSelectors []LocalPolicyTargetSelectorWithSectionName  `json:"targetSelectors,omitempty"`
	Default         *ListenerDefaultConfig                      `json:"default,omitempty"`
	PerPort         []ListenerPortConfig                        `json:"perPort,omitempty"`
}

// ListenerPortConfig is the listener config for one port.
type ListenerPortConfig struct {
	Port     int32          `json:"port"`
	Listener ListenerConfig `json:"listener"`
}

// ListenerDefaultConfig is a ListenerConfig plus settings only allowed in
// the default section.
type ListenerDefaultConfig struct {
	ListenerConfig              `json:",inline"`
	ClientCertificateValidation *ClientCertificateValidationConfig `json:"clientCertificateValidation,omitempty"`
}

// ClientCertificateValidationConfig enables mTLS client validation.
type ClientCertificateValidationConfig struct {
	// Mode is Require or Optional.
	Mode              *string                `json:"mode,omitempty"`
	CACertificateRefs []gwv1.ObjectReference `json:"caCertificateRefs,omitempty"`
}

// ListenerConfig is listener-level configuration.
type ListenerConfig struct {
	ProxyProtocol                 *ProxyProtocolConfig `json:"proxyProtocol,omitempty"`
	TCPKeepalive                  *TCPKeepalive        `json:"tcpKeepalive,omitempty"`
	PerConnectionBufferLimitBytes *int32               `json:"perConnectionBufferLimitBytes,omitempty"`
	TransportSocketConnectTimeout *string              `json:"transportSocketConnectTimeout,omitempty"`
	HTTPSettings                  *HTTPSettings        `json:"httpSettings,omitempty"`
}

// ProxyProtocolConfig enables the PROXY protocol listener filter.
type ProxyProtocolConfig struct {
	AllowRequestsWithoutProxyProtocol *bool `json:"allowRequestsWithoutProxyProtocol,omitempty"`
}

// TCPKeepalive sets OS-level TCP keepalive.
type TCPKeepalive struct {
	KeepAliveProbes   *int32  `json:"keepAliveProbes,omitempty"`
	KeepAliveTime     *string `json:"keepAliveTime,omitempty"`
	KeepAliveInterval *string `json:"keepAliveInterval,omitempty"`
}

// HTTPSettings configures the HTTP connection manager of a listener.
type HTTPSettings struct {
	AccessLog                  []AccessLog                   `json:"accessLog,omitempty"`
	Tracing                    *Tracing                      `json:"tracing,omitempty"`
	UpgradeConfig              *UpgradeConfig                `json:"upgradeConfig,omitempty"`
	UseRemoteAddress           *bool                         `json:"useRemoteAddress,omitempty"`
	PreserveExternalRequestID  *bool                         `json:"preserveExternalRequestId,omitempty"`
	GenerateRequestID          *bool                         `json:"generateRequestId,omitempty"`
	XffNumTrustedHops          *int32                        `json:"xffNumTrustedHops,omitempty"`
	XffTrustedCIDRs            []string                      `json:"xffTrustedCIDRs,omitempty"`
	SkipXFFAppend              *bool                         `json:"skipXFFAppend,omitempty"`
	ServerHeaderTransformation *string                       `json:"serverHeaderTransformation,omitempty"`
	StreamIdleTimeout          *string                       `json:"streamIdleTimeout,omitempty"`
	IdleTimeout                *string                       `json:"idleTimeout,omitempty"`
	MaxHeadersCount            *int32                        `json:"maxHeadersCount,omitempty"`
	HTTP2ProtocolOptions       *ListenerHTTP2ProtocolOptions `json:"http2ProtocolOptions,omitempty"`
	HealthCheck                *EnvoyHealthCheck             `json:"healthCheck,omitempty"`
	PreserveHTTP1HeaderCase    *bool                         `json:"preserveHttp1HeaderCase,omitempty"`
	AcceptHTTP10               *bool                         `json:"acceptHttp10,omitempty"`
	DefaultHostForHTTP10       *string                       `json:"defaultHostForHttp10,omitempty"`
	EarlyRequestHeaderModifier *gwv1.HTTPHeaderFilter        `json:"earlyRequestHeaderModifier,omitempty"`
	MaxRequestHeadersKb        *int32                        `json:"maxRequestHeadersKb,omitempty"`
	UUIDRequestIDConfig        *UUIDRequestIDConfig          `json:"uuidRequestIdConfig,omitempty"`
	// StripHostPortMode is MatchingPort or AnyPort.
	StripHostPortMode        *string                   `json:"stripHostPortMode,omitempty"`
	StripTrailingHostDot     *bool                     `json:"stripTrailingHostDot,omitempty"`
	ServerName               *string                   `json:"serverName,omitempty"`
	Proxy100Continue         *bool                     `json:"proxy100Continue,omitempty"`
	MaxRequestsPerConnection *int32                    `json:"maxRequestsPerConnection,omitempty"`
	ForwardClientCertDetails *ForwardClientCertDetails `json:"forwardClientCertDetails,omitempty"`
	// LocalReplies customises Envoy's local replies.
	LocalReplies *LocalReplyConfig `json:"localReplies,omitempty"`
}

// LocalReplyConfig rewrites the replies Envoy makes itself (404 without a
// route, 503 without a healthy upstream…): a default body format, and
// mappers tried in order, the first whose filter matches applying.
type LocalReplyConfig struct {
	DefaultBodyFormat *LocalReplyBodyFormat `json:"defaultBodyFormat,omitempty"`
	Mappers           []LocalReplyMapper    `json:"mappers,omitempty"`
}

// LocalReplyBodyFormat is a text or JSON body template (Envoy command
// operators such as %LOCAL_REPLY_BODY%) with an optional content type.
type LocalReplyBodyFormat struct {
	Text        *string               `json:"text,omitempty"`
	JSON        *runtime.RawExtension `json:"json,omitempty"`
	ContentType *string               `json:"contentType,omitempty"`
}

// LocalReplyMapper rewrites the local replies its filter matches.
type LocalReplyMapper struct {
	Filter             AccessLogFilter       `json:"filter"`
	StatusCode         *int32                `json:"statusCode,omitempty"`
	Body               *string               `json:"body,omitempty"`
	BodyFormatOverride *LocalReplyBodyFormat `json:"bodyFormatOverride,omitempty"`
	Headers            *HTTPHeaderFilter     `json:"headers,omitempty"`
}

// ForwardClientCertDetails sets how the x-forwarded-client-cert header is
// handled and which certificate details it carries.
type ForwardClientCertDetails struct {
	Mode    *string            `json:"mode,omitempty"`
	Details *ClientCertDetails `json:"details,omitempty"`
}

// ClientCertDetails are the client certificate parts put into the
// x-forwarded-client-cert header.
type ClientCertDetails struct {
	Subject *bool `json:"subject,omitempty"`
	Cert    *bool `json:"cert,omitempty"`
	Chain   *bool `json:"chain,omitempty"`
	DNS     *bool `json:"dns,omitempty"`
	URI     *bool `json:"uri,omitempty"`
}

// ListenerHTTP2ProtocolOptions tunes downstream HTTP/2.
type ListenerHTTP2ProtocolOptions struct {
	InitialStreamWindowSize     *resource.Quantity `json:"initialStreamWindowSize,omitempty"`
	InitialConnectionWindowSize *resource.Quantity `json:"initialConnectionWindowSize,omitempty"`
	MaxConcurrentStreams        *int32             `json:"maxConcurrentStreams,omitempty"`
	// AllowConnect accepts extended CONNECT (RFC 8441), e.g. websockets
	// over HTTP/2.
	AllowConnect *bool `json:"allowConnect,omitempty"`
}

// UUIDRequestIDConfig tunes the UUID x-request-id extension.
type UUIDRequestIDConfig struct {
	PackTraceReason              *bool `json:"packTraceReason,omitempty"`
	UseRequestIDForTraceSampling *bool `json:"useRequestIdForTraceSampling,omitempty"`
}

// EnvoyHealthCheck answers health checks on an exact path.
type EnvoyHealthCheck struct {
	Path string `json:"path"`
}

// UpgradeConfig lists enabled HTTP upgrades (e.g. websocket).
type UpgradeConfig struct {
	EnabledUpgrades []string `json:"enabledUpgrades,omitempty"`
}

// AccessLog is one access log sink with an optional filter.
type AccessLog struct {
	FileSink      *FileSink                      `json:"fileSink,omitempty"`
	GrpcService   *AccessLogGrpcService          `json:"grpcService,omitempty"`
	OpenTelemetry *OpenTelemetryAccessLogService `json:"openTelemetry,omitempty"`
	Filter        *AccessLogFilter               `json:"filter,omitempty"`
}

// FileSink writes access logs to a file, as text or JSON.
type FileSink struct {
	Path         string                `json:"path"`
	StringFormat *string               `json:"stringFormat,omitempty"`
	JSONFormat   *runtime.RawExtension `json:"jsonFormat,omitempty"`
}

// CommonGrpcService is an Envoy gRPC client to a backend.
type CommonGrpcService struct {
	BackendRef              gwv1.BackendRef `json:"backendRef"`
	Authority               *string         `json:"authority,omitempty"`
	MaxReceiveMessageLength *int32          `json:"maxReceiveMessageLength,omitempty"`
	SkipEnvoyHeaders        *bool           `json:"skipEnvoyHeaders,omitempty"`
	Timeout                 *string         `json:"timeout,omitempty"`
	InitialMetadata         []HeaderValue   `json:"initialMetadata,omitempty"`
	RetryPolicy             *RetryPolicy    `json:"retryPolicy,omitempty"`
}

// CommonAccessLogGrpcService is a gRPC access log stream.
type CommonAccessLogGrpcService struct {
	CommonGrpcService `json:",inline"`
	LogName           string `json:"logName"`
}

// AccessLogGrpcService is the gRPC (ALS) access log sink.
type AccessLogGrpcService struct {
	CommonAccessLogGrpcService      `json:",inline"`
	AdditionalRequestHeadersToLog   []string `json:"additionalRequestHeadersToLog,omitempty"`
	AdditionalResponseHeadersToLog  []string `json:"additionalResponseHeadersToLog,omitempty"`
	AdditionalResponseTrailersToLog []string `json:"additionalResponseTrailersToLog,omitempty"`
}

// HeaderValue is a key/value header pair.
type HeaderValue struct {
	Key   string  `json:"key"`
	Value *string `json:"value,omitempty"`
}

// RetryPolicy retries (re)establishing a gRPC stream.
type RetryPolicy struct {
	RetryBackOff *BackoffStrategy `json:"retryBackOff,omitempty"`
	NumRetries   *int32           `json:"numRetries,omitempty"`
}

// BackoffStrategy is a jittered exponential backoff.
type BackoffStrategy struct {
	BaseInterval string  `json:"baseInterval"`
	MaxInterval  *string `json:"maxInterval,omitempty"`
}

// OpenTelemetryAccessLogService sends access logs to an OTel collector.
type OpenTelemetryAccessLogService struct {
	GrpcService          CommonAccessLogGrpcService `json:"grpcService"`
	Body                 *string                    `json:"body,omitempty"`
	DisableBuiltinLabels *bool                      `json:"disableBuiltinLabels,omitempty"`
	Attributes           *KeyAnyValueList           `json:"attributes,omitempty"`
	ResourceAttributes   *KeyAnyValueList           `json:"resourceAttributes,omitempty"`
}

// KeyAnyValueList is a list of OTel key/value attributes.
type KeyAnyValueList struct {
	Values []KeyAnyValue `json:"values,omitempty"`
}

// KeyAnyValue is one OTel attribute.
type KeyAnyValue struct {
	Key   string   `json:"key"`
	Value AnyValue `json:"value"`
}

// AnyValue is an OTel attribute value (string, array or key/value list).
type AnyValue struct {
	StringValue *string          `json:"stringValue,omitempty"`
	ArrayValue  []AnyValue       `json:"arrayValue,omitempty"`
	KvListValue *KeyAnyValueList `json:"kvListValue,omitempty"`
}

// AccessLogFilter is a single filter, or an and/or of filters.
type AccessLogFilter struct {
	FilterType `json:",inline"`
	AndFilter  []FilterType `json:"andFilter,omitempty"`
	OrFilter   []FilterType `json:"orFilter,omitempty"`
}

// FilterType is one access log filter; set exactly one field.
type FilterType struct {
	StatusCodeFilter     *ComparisonFilter   `json:"statusCodeFilter,omitempty"`
	DurationFilter       *ComparisonFilter   `json:"durationFilter,omitempty"`
	NotHealthCheckFilter *bool               `json:"notHealthCheckFilter,omitempty"`
	TraceableFilter      *bool               `json:"traceableFilter,omitempty"`
	HeaderFilter         *HeaderFilter       `json:"headerFilter,omitempty"`
	ResponseFlagFilter   *ResponseFlagFilter `json:"responseFlagFilter,omitempty"`
	GrpcStatusFilter     *GrpcStatusFilter   `json:"grpcStatusFilter,omitempty"`
	CELFilter            *CELFilter          `json:"celFilter,omitempty"`
	RuntimeFilter        *RuntimeFilter      `json:"runtimeFilter,omitempty"`
}

// RuntimeFilter samples access logs through a runtime key, with a
// fraction of requests (PercentSampled) on top when given.
type RuntimeFilter struct {
	RuntimeKey               string             `json:"runtimeKey"`
	PercentSampled           *FractionalPercent `json:"percentSampled,omitempty"`
	UseIndependentRandomness *bool              `json:"useIndependentRandomness,omitempty"`
}

// FractionalPercent is Numerator out of Denominator (HUNDRED,
// TEN_THOUSAND or MILLION; HUNDRED when left out).
type FractionalPercent struct {
	Numerator   int32   `json:"numerator"`
	Denominator *string `json:"denominator,omitempty"`
}

// ComparisonFilter compares a number; Op is EQ, GE or LE.
type ComparisonFilter struct {
	Op    string `json:"op"`
	Value int32  `json:"value"`
}

// HeaderFilter logs requests whose header matches.
type HeaderFilter struct {
	Header gwv1.HTTPHeaderMatch `json:"header"`
}

// ResponseFlagFilter logs requests with any of the Envoy response flags.
type ResponseFlagFilter struct {
	Flags []string `json:"flags"`
}

// GrpcStatusFilter logs (or, with Exclude, skips) the given gRPC statuses.
type GrpcStatusFilter struct {
	Statuses []string `json:"statuses,omitempty"`
	Exclude  *bool    `json:"exclude,omitempty"`
}

// CELFilter logs requests for which the CEL expression is true.
type CELFilter struct {
	Match string `json:"match"`
}

// Tracing configures the listener's tracer.
type Tracing struct {
	Provider          TracingProvider   `json:"provider"`
	ClientSampling    *int32            `json:"clientSampling,omitempty"`
	RandomSampling    *int32            `json:"randomSampling,omitempty"`
	OverallSampling   *int32            `json:"overallSampling,omitempty"`
	Verbose           *bool             `json:"verbose,omitempty"`
	MaxPathTagLength  *int32            `json:"maxPathTagLength,omitempty"`
	Attributes        []CustomAttribute `json:"attributes,omitempty"`
	SpawnUpstreamSpan *bool             `json:"spawnUpstreamSpan,omitempty"`
}

// TracingProvider selects the tracer implementation.
type TracingProvider struct {
	OpenTelemetry *OpenTelemetryTracingConfig `json:"openTelemetry,omitempty"`
}

// OpenTelemetryTracingConfig sends spans to an OTel collector.
type OpenTelemetryTracingConfig struct {
	GrpcService       CommonGrpcService  `json:"grpcService"`
	ServiceName       *string            `json:"serviceName,omitempty"`
	ResourceDetectors []ResourceDetector `json:"resourceDetectors,omitempty"`
	Sampler           *Sampler           `json:"sampler,omitempty"`
}

// ResourceDetector selects an OTel resource detector.
type ResourceDetector struct {
	EnvironmentResourceDetector *EnvironmentResourceDetectorConfig `json:"environmentResourceDetector,omitempty"`
}

// EnvironmentResourceDetectorConfig reads OTEL_RESOURCE_ATTRIBUTES.
type EnvironmentResourceDetectorConfig struct {
	Enable *bool `json:"enable,omitempty"`
}

// Sampler selects an OTel sampler.
type Sampler struct {
	AlwaysOn *AlwaysOnConfig `json:"alwaysOnConfig,omitempty"`
}

// AlwaysOnConfig is the always-on sampler (no settings).
type AlwaysOnConfig struct{}

// CustomAttribute is a span attribute from a literal, env var, request
// header or metadata.
type CustomAttribute struct {
	Name          string                      `json:"name"`
	Literal       *CustomAttributeLiteral     `json:"literal,omitempty"`
	Environment   *CustomAttributeEnvironment `json:"environment,omitempty"`
	RequestHeader *CustomAttributeHeader      `json:"requestHeader,omitempty"`
	Metadata      *CustomAttributeMetadata    `json:"metadata,omitempty"`
}

// CustomAttributeLiteral is a fixed attribute value.
type CustomAttributeLiteral struct {
	Value string `json:"value"`
}

// CustomAttributeEnvironment reads an environment variable.
type CustomAttributeEnvironment struct {
	Name         string  `json:"name"`
	DefaultValue *string `json:"defaultValue,omitempty"`
}

// CustomAttributeHeader reads a request header.
type CustomAttributeHeader struct {
	Name         string  `json:"name"`
	DefaultValue *string `json:"defaultValue,omitempty"`
}

// CustomAttributeMetadata reads a metadata value; Kind is Request, Route,
// Cluster or Host.
type CustomAttributeMetadata struct {
	Kind         string      `json:"kind"`
	MetadataKey  MetadataKey `json:"metadataKey"`
	DefaultValue *string     `json:"defaultValue,omitempty"`
}

// MetadataKey is a metadata namespace key and a path into its struct.
type MetadataKey struct {
	Key  string                `json:"key"`
	Path []MetadataPathSegment `json:"path"`
}

// MetadataPathSegment is one step of a MetadataKey path.
type MetadataPathSegment struct {
	Key string `json:"key"`
}
