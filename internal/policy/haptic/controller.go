package haptic

import (
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// ControllerName is HAPTIC's controllerName.
const ControllerName = "haproxy-haptic.org/controller"

// Controller is HAPTIC, the controller of this family's kind. It passes
// TLS through for an HTTPRoute with an SSL passthrough filter (ownFilter),
// and fails a rule with any other ExtensionRef closed as unsupported
// without calling its references unresolved (unknownFilterReasons); a
// rule's references are checked before the policy they name (brokenRank).
// Its route policy conditions replace only a route condition that is True
// (46-policy-status.yaml: ApplyGatewayPolicyConditions), so a backendRef
// not found keeps ResolvedRefs' reason, and on a route whose written
// status has a PartiallyInvalid condition it writes PartiallyInvalid False
// once no rule is partially invalid (ClearsPartiallyInvalid, the same
// macro's "previous"). GatewayPolicyReference knows no
// ExtensionRef kind but HAProxyRoutePolicy (and SSL passthrough): another
// family's policy kind fails the rule as unsupported (OwnKindsOnly). Of
// the BackendTLSPolicies on a backend the oldest wins, a port's own and
// the whole Service's alike (backendRank).
var Controller = policy.Controller{Name: ControllerName, Title: "HAPTIC", RenderTarget: Target.Name, Groups: []string{Group},
	OwnFilter: ownFilter, UnknownFilterReasons: unknownFilterReasons, BrokenRank: brokenRank, RuleConditionsOverTrue: true, OwnKindsOnly: true,
	ClearsPartiallyInvalid: true, BackendRank: backendRank}

// Target is HAPTIC's render target: it serves exactly what its
// HAProxyRoutePolicy offers — JWT (with required claims) and API-key
// authentication, the shared rate limit, the response cache and the
// Coraza WAF — plus plain routing and the Gateway API CORS filter. In
// gwpol's Envoy rendering a HAPTIC WAF selection is route metadata naming
// the policy and its catalog, as HAPTIC's coraza maps name them per rule.
//
// CORS: HAPTIC fails a rule only for its ExtensionRef filters
// (44-route-policies.yaml: GatewayPolicyReference looks at no other filter
// type), and its policy reference (route-policy.md@04be9778, "Filter order
// and failures") says a Gateway route's CORS preflight is answered before
// authentication while actual requests still pass the attached policy. So
// a rule's CORS filter is served, never a 503: Envoy's cors filter, which
// sits ahead of the authentication filters (OrderJWT and after).
//
// A BackendTLSPolicy's backend trusts the CA certificates of every
// reference that resolves, joined (UsableCACertificate), and answers 503
// when the policy is refused (BlackholesInvalidBackendPolicy:
// gateway/30-backends.yaml@0c1a6446, util-generate-httproute-backends-gateway's
// btlsBroken, `http-request return status 503`); it is the one backend
// policy kind HAPTIC reads. A GRPCRoute's backend is built without the
// Service port's name (util-generate-grpcroute-backends-gateway leaves
// portNameForBackend empty), so only the policies on the whole Service
// reach it, never one naming the port (GRPCBackendsWholeService).
var Target = policy.Target{Name: "haptic", Capabilities: policy.OnlyCapabilities("route", "cors", "jwt_authn", "rbac", "api_key_auth", "local_ratelimit", "response_cache", "waf"),
	UsableCACertificate: usableCACertificate, BlackholesInvalidBackendPolicy: true, GRPCBackendsWholeService: true,
	// header values are map entries HAProxy URL-decodes, never log-format
	// (43-maps-route-filters.yaml@10393603: publishModifiers)
	LiteralHeaderValues: true,
	// a mirror samples a whole percentage (43-maps-route-filters.yaml@10393603)
	MirrorFraction: mirrorShare,
	// a rule's request timeout, else its backendRequest (ruleTimeout)
	RuleTimeout: ruleTimeout}

// Family is HAPTIC's family for internal/families to register: its
// controller, render target, deployment settings (the haptic: section),
// the check of its deployment's own WAF settings (CheckDeployment) and
// the rules it fails per route (finish: SSL passthrough beside a policy)
// and its own verdict on a Gateway API BackendTLSPolicy
// (judgeBackendTLSPolicy) and the status it writes on one
// (backendTLSStatuses).
var Family = policy.Family{Name: "HAPTIC", Controller: &Controller, Target: &Target, Settings: []policy.Setting{Section}, CheckDeployment: CheckDeployment,
	BrokenReasons: brokenReasons, Finish: finish, CheckRule: checkRule,
	ForeignJudges:   map[model.GroupKind]func(*policy.Policy, *policy.Env) policy.Judgement{backendTLSPolicy: judgeBackendTLSPolicy},
	ForeignStatuses: map[model.GroupKind]policy.ForeignDecider{backendTLSPolicy: backendTLSStatuses}}
