//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"errors"
	"fmt"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/validation"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret"
)

// refuseOn records the validator's refusal of the policy on its targets
// of one route class (tcp: TCPRoutes, validateSecurityPolicyForTCP; else
// HTTPRoutes and GRPCRoutes, validateSecurityPolicy): Envoy Gateway
// translates none of it there (processSecurityPolicyForRoute returns
// after the validator, which it picks by the target's kind). Where the
// policy is translated on no other target it is refused whole: the
// refusal is its only error, and what validateReferences found under
// extAuth and oidc is dropped. Otherwise it is translated there as if
// valid, and the refusal is no error of the policy's: the status run
// reports it on that class's targets (data.refusals).
func (v valueChecks) refuseOn(tcp bool, what string, err *fieldError, translated bool) {
	d := decoded(v.p)
	d.refused = true
	refusal := v.p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec."+err.path, "%s: %s.", what, err.msg)
	if d.refusals == nil {
		d.refusals = map[bool]*diag.Diagnostic{}
	}
	d.refusals[tcp] = &refusal
	if translated {
		d.partial = true
		return
	}
	v.p.Invalid = slices.DeleteFunc(v.p.Invalid, func(d diag.Diagnostic) bool {
		return strings.HasPrefix(d.Field, "spec.extAuth") || strings.HasPrefix(d.Field, "spec.oidc")
	})
	v.p.Invalid = append(v.p.Invalid, refusal)
}

// security runs the checks of Envoy Gateway's SecurityPolicy translation
// that the input can decide. On a route (processSecurityPolicyForRoute)
// the validator of the route's kind runs first (validateSecurityPolicy,
// or validateSecurityPolicyForTCP on a TCPRoute) and, when it refuses the
// policy, is the only error there; then the builders run in
// translateSecurityPolicyForRoute's order (basic auth, API key auth,
// authorization, then per parent ext auth, OIDC, JWT); on a Gateway or
// listener (translateSecurityPolicyForListeners) there is no validator
// and the order is JWT, OIDC, basic auth, API key auth, ext auth,
// authorization. Every builder's error is joined; each builder returns at
// its first. The ext auth backends are checked by validateReferences.
// docs/controllers/envoygateway-checks.md lists each check with its source.
func (v valueChecks) security(s *egv1a1.SecurityPolicySpec, env *policy.Env) {
	m := env.Model
	v.deprecatedSecurity(s.ExtAuth)
	onRoute := slices.ContainsFunc(v.p.Targets, func(t policy.TargetRef) bool {
		return t.Kind == "HTTPRoute" || t.Kind == "GRPCRoute"
	})
	onTCPRoute := slices.ContainsFunc(v.p.Targets, func(t policy.TargetRef) bool { return t.Kind == "TCPRoute" })
	// The validator runs per route target; a Gateway, listener or
	// ListenerSet target is translated without it.
	onListeners := slices.ContainsFunc(v.p.Targets, func(t policy.TargetRef) bool {
		return t.Kind != "HTTPRoute" && t.Kind != "GRPCRoute" && t.Kind != "TCPRoute"
	})
	var httpErr, tcpErr *fieldError
	if onRoute {
		httpErr = validateSecurityPolicy(s)
	}
	if onTCPRoute {
		tcpErr = validateSecurityPolicyForTCP(s)
	}
	routeTranslated := (onRoute && httpErr == nil) || (onTCPRoute && tcpErr == nil)
	translated := onListeners || routeTranslated
	if httpErr != nil {
		v.refuseOn(false, "Invalid SecurityPolicy", httpErr, translated)
	}
	if tcpErr != nil {
		v.refuseOn(true, "Invalid SecurityPolicy for TCP route", tcpErr, translated)
	}
	switch {
	case !translated:
	case routeTranslated:
		v.routeBuilders(s, env)
	default:
		// translated on its Gateway and listener targets only
		v.jwt(s.JWT, env)
		v.oidc(s.OIDC, env)
		v.basicAuth(s.BasicAuth, m)
		v.apiKeyAuth(s.APIKeyAuth, m)
		v.extAuth(s.ExtAuth, m)
		v.authorization(s.Authorization, false)
	}
}

// routeBuilders are translateSecurityPolicyForRoute's builders, in its
// order.
func (v valueChecks) routeBuilders(s *egv1a1.SecurityPolicySpec, env *policy.Env) {
	m := env.Model
	v.basicAuth(s.BasicAuth, m)
	v.apiKeyAuth(s.APIKeyAuth, m)
	v.authorization(s.Authorization, true)
	v.extAuth(s.ExtAuth, m)
	v.oidc(s.OIDC, env)
	v.jwt(s.JWT, env)
}

// deprecatedSecurity: the singular extAuth backendRef of grpc and http is
// deprecated (deprecatedFieldsUsedInSecurityPolicy), a DeprecatedField
// warning and GWP104 at the field.
func (v valueChecks) deprecatedSecurity(ea *egv1a1.ExtAuth) {
	if ea == nil {
		return
	}
	for _, svc := range []struct {
		name string
		set  bool
	}{{"grpc", ea.GRPC != nil && ea.GRPC.BackendRef != nil}, {"http", ea.HTTP != nil && ea.HTTP.BackendRef != nil}} {
		if !svc.set {
			continue
		}
		field := "spec.extAuth." + svc.name + ".backendRef"
		msg := field + " is deprecated, use " + field + "s instead"
		decoded(v.p).deprecated = append(decoded(v.p).deprecated, msg)
		v.p.Findings = append(v.p.Findings, v.p.Diag(model.LintDeprecatedVersion.Code, diag.Warning, field, "%s", msg))
	}
}

// fieldError is an error at a field of the spec.
type fieldError struct{ path, msg string }

// validateSecurityPolicy is Envoy Gateway's validateSecurityPolicy: an API
// key source names only one of headers, params or cookies; OIDC's
// passThroughAuthHeader needs a JWT provider that reads a header, and
// its forwardIDToken header must not be one those providers read.
func validateSecurityPolicy(s *egv1a1.SecurityPolicySpec) *fieldError {
	if s.APIKeyAuth != nil {
		for i, src := range s.APIKeyAuth.ExtractFrom {
			if src == nil {
				continue
			}
			n := 0
			for _, l := range [][]string{src.Headers, src.Params, src.Cookies} {
				if len(l) > 0 {
					n++
				}
			}
			if n > 1 {
				return &fieldError{fmt.Sprintf("apiKeyAuth.extractFrom[%d]", i), "only one of headers, params or cookies must be specified"}
			}
		}
	}
	o := s.OIDC
	if o == nil || !isTrue(o.PassThroughAuthHeader) {
		return nil
	}
	if s.JWT == nil {
		return &fieldError{"oidc.passThroughAuthHeader", "the OIDC.PassThroughAuthHeader setting must be used in conjunction with JWT settings"}
	}
	providers := s.JWT.Providers
	readsHeader := slices.ContainsFunc(providers, func(p egv1a1.JWTProvider) bool {
		return p.ExtractFrom == nil || len(p.ExtractFrom.Headers) > 0
	})
	if !readsHeader {
		return &fieldError{"oidc.passThroughAuthHeader", "the OIDC.PassThroughAuthHeader setting must be used in conjunction with a JWT provider that is configured to read from a header"}
	}
	if o.ForwardIDToken == nil {
		return nil
	}
	header := o.ForwardIDToken.Header
	for _, p := range providers {
		if p.ExtractFrom == nil {
			if strings.EqualFold(header, "Authorization") {
				return &fieldError{"oidc.forwardIDToken.header", fmt.Sprintf("the OIDC.ForwardIDToken header %q cannot be the Authorization header when passThroughAuthHeader is enabled and a JWT provider reads from it", header)}
			}
			continue
		}
		for _, h := range p.ExtractFrom.Headers {
			if strings.EqualFold(header, h.Name) {
				return &fieldError{"oidc.forwardIDToken.header", fmt.Sprintf("the OIDC.ForwardIDToken header %q cannot be the same as a JWT provider extractFrom header when passThroughAuthHeader is enabled", header)}
			}
		}
	}
	return nil
}

// validateSecurityPolicyForTCP is Envoy Gateway's check of a policy on a
// TCPRoute: authorization only, and in its rules no CEL, JWT, headers or
// client IP geolocations, and client CIDRs that parse; the first problem.
func validateSecurityPolicyForTCP(s *egv1a1.SecurityPolicySpec) *fieldError {
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"cors", s.CORS != nil}, {"csrf", s.CSRF != nil}, {"jwt", s.JWT != nil}, {"oidc", s.OIDC != nil},
		{"apiKeyAuth", s.APIKeyAuth != nil}, {"basicAuth", s.BasicAuth != nil}, {"extAuth", s.ExtAuth != nil},
	} {
		if f.set {
			return &fieldError{f.name, "only authorization is supported for TCP (routes/listeners)"}
		}
	}
	if s.Authorization == nil {
		return nil
	}
	for i, rule := range s.Authorization.Rules {
		path := fmt.Sprintf("authorization.rules[%d]", i)
		if rule.CEL != nil {
			return &fieldError{path, fmt.Sprintf("rule %d: CEL not supported for TCP", i)}
		}
		principal := rule.Principal
		if principal == nil {
			continue
		}
		switch {
		case principal.JWT != nil:
			return &fieldError{path, fmt.Sprintf("rule %d: JWT not supported for TCP", i)}
		case len(principal.Headers) > 0:
			return &fieldError{path, fmt.Sprintf("rule %d: headers not supported for TCP", i)}
		case len(principal.ClientIPGeoLocations) > 0:
			return &fieldError{path, fmt.Sprintf("rule %d: clientIPGeoLocations not supported for TCP", i)}
		}
		for _, c := range principal.ClientCIDRs {
			if _, _, err := net.ParseCIDR(string(c)); err != nil {
				return &fieldError{path, fmt.Sprintf("rule %d: invalid ClientCIDR %q: %v", i, c, err)}
			}
		}
	}
	return nil
}

// secretRef is Envoy Gateway's validateSecretRef from the policy's
// namespace (cross-namespace allowed with a ReferenceGrant): the Secret it
// names, or the problem. A kind ConfigMap passes the reference check but
// is then looked up as a Secret, as Envoy Gateway does.
func (v valueChecks) secretRef(m *model.Model, ref objectRef) (*model.Opaque, string) {
	return v.secretRefFrom(m, "SecurityPolicy", ref)
}

// secretRefFrom is secretRef for a policy of the given kind (the
// ReferenceGrant's from).
func (v valueChecks) secretRefFrom(m *model.Model, kindFrom string, ref objectRef) (*model.Opaque, string) {
	group, kind, name, ns := ref.group, ref.kind, ref.name, ref.namespace
	own := v.p.Obj.Namespace
	switch {
	case group != "":
		return nil, "secret ref group must be unspecified/empty"
	case kind == "":
		kind = "Secret"
	case kind != "Secret" && kind != "ConfigMap":
		return nil, "secret ref kind must be Secret"
	}
	if ns == "" {
		ns = own
	}
	if ns != own && !m.GrantAllows(Group, kindFrom, own, model.ObjectRefTo{Kind: kind, Namespace: ns, Name: name}) {
		return nil, fmt.Sprintf("ref to %s %s/%s not permitted by any ReferenceGrant", kind, ns, name)
	}
	s := m.Secret(ns, name)
	if s == nil {
		return nil, fmt.Sprintf("secret %s/%s does not exist", ns, name)
	}
	return s, ""
}

// nonEmpty: the Secret has the key with a value that is not empty; a
// Secret assumed to exist (config assumeExist) has it.
func nonEmpty(s *model.Opaque, key string) bool {
	if s.Assumed {
		return true
	}
	val, ok := s.Value(key)
	return ok && val.Len() > 0
}

// basicAuth is buildBasicAuth: the users Secret resolves, holds a
// non-empty .htpasswd, in the {SHA} htpasswd format Envoy reads.
func (v valueChecks) basicAuth(ba *egv1a1.BasicAuth, m *model.Model) {
	if ba == nil {
		return
	}
	path := []string{"basicAuth", "users"}
	s, msg := v.secretRef(m, secretObjectRef(ba.Users))
	switch {
	case msg != "":
	case !nonEmpty(s, ".htpasswd"):
		msg = fmt.Sprintf("secret %s/%s must contain a non-empty \".htpasswd\" key", s.Namespace, s.Name)
	case !s.Assumed:
		val, _ := s.Value(".htpasswd")
		if err := secret.CheckHtpasswdSHA(val); err != nil {
			msg = err.Error()
		}
	}
	if msg != "" {
		v.invalid(path, "BasicAuth: %s.", msg)
	}
}

// apiKeyAuth is buildAPIKeyAuth: every credential Secret resolves, and no
// API key is given to two clients (entries read in name order; a client
// already seen is skipped).
func (v valueChecks) apiKeyAuth(ak *egv1a1.APIKeyAuth, m *model.Model) {
	if ak == nil {
		return
	}
	var keys []secret.Value
	seenClients := map[string]bool{}
	for i, r := range ak.CredentialRefs {
		path := []string{"apiKeyAuth", fmt.Sprintf("credentialRefs[%d]", i)}
		s, msg := v.secretRef(m, secretObjectRef(r))
		if msg != "" {
			v.invalid(path, "APIKeyAuth: %s.", msg)
			return
		}
		if s.Assumed {
			continue
		}
		for _, client := range s.Keys {
			if seenClients[client] {
				continue
			}
			val, _ := s.Value(client)
			if slices.ContainsFunc(keys, func(k secret.Value) bool { return secret.Equal(k, val) }) {
				// The whole API key auth is refused (its keys are Secret data).
				v.invalid([]string{"apiKeyAuth"}, "APIKeyAuth: duplicated API key.")
				return
			}
			keys = append(keys, val)
			seenClients[client] = true
		}
	}
}

// authorization is buildAuthorization: per rule, the principal's client
// CIDRs parse, the operation's path type is known (a regex compiles), a
// CEL expression parses; the first error ends it. On a route its error
// is named "Authorization: " as the others' are; on a Gateway or
// listener translateSecurityPolicyForListeners joins it bare (onRoute
// false), so the message starts with the builder's own words.
func (v valueChecks) authorization(a *egv1a1.Authorization, onRoute bool) {
	if a == nil {
		return
	}
	fail := func(path []string, format string, args ...any) {
		if onRoute {
			v.invalid(path, "Authorization: "+format, args...)
			return
		}
		v.invalid(path, strings.ToUpper(format[:1])+format[1:], args...)
	}
	for i, rule := range a.Rules {
		path := []string{"authorization", fmt.Sprintf("rules[%d]", i)}
		if principal := rule.Principal; principal != nil {
			for _, c := range principal.ClientCIDRs {
				if _, _, err := net.ParseCIDR(string(c)); err != nil {
					fail(path, "unable to translate authorization rule: %v.", err)
					return
				}
			}
		}
		if op := rule.Operation; op != nil && op.Path != nil {
			typ := ""
			if op.Path.Type != nil {
				typ = string(*op.Path.Type)
			}
			var err error
			// The CRD defaults type to PathPrefix (the model holds it); unset
			// is Envoy Gateway's own reading too (validateAuthorizationOperation:
			// ptr.Deref(operation.Path.Type, PathPrefix)), kept for a CRD
			// given without that default.
			switch typ {
			case "", "PathPrefix", "Exact":
			case "RegularExpression":
				err = validRegex(op.Path.Value)
			default:
				err = errors.New("invalid path type")
			}
			if err != nil {
				fail(path, "unable to translate authorization rule: %v.", err)
				return
			}
		}
		if rule.CEL != nil && !validCEL(string(*rule.CEL)) {
			fail(path, "invalid CEL expression: %s.", *rule.CEL)
			return
		}
	}
}

// celEnv parses authorization CEL expressions (Envoy Gateway checks their
// syntax only).
var celEnv, _ = cel.NewEnv()

func validCEL(expr string) bool {
	if celEnv == nil {
		return true
	}
	_, iss := celEnv.Parse(expr)
	return iss.Err() == nil
}

// extAuth is buildExtAuth's checks of its own (the backends are
// validateReferences'): exactly one of grpc and http, with backend refs,
// the service's backendSettings (translateTrafficFeatures), and each
// ValueRef context extension readable.
func (v valueChecks) extAuth(ea *egv1a1.ExtAuth, m *model.Model) {
	if ea == nil {
		return
	}
	path := []string{"extAuth"}
	var svc *egv1a1.BackendCluster
	name := "http"
	switch {
	case ea.GRPC == nil && ea.HTTP == nil:
		v.invalid(path, "ExtAuth: one of grpc or http must be specified.")
		return
	case ea.GRPC != nil && ea.HTTP != nil:
		v.invalid(path, "ExtAuth: only one of grpc or http can be specified.")
		return
	case ea.GRPC != nil:
		svc, name = &ea.GRPC.BackendCluster, "grpc"
	default:
		svc = &ea.HTTP.BackendCluster
	}
	if len(svc.BackendRefs) == 0 && svc.BackendRef == nil {
		v.invalid(append(path, name), "ExtAuth: %s backend refs must be specified.", name)
		return
	}
	// The backends resolve first (validateReferences reported them); the
	// service's backendSettings are built only when they did.
	if reportedUnder(v.p.Invalid, "spec.extAuth") ||
		v.trafficFeatures(svc.BackendSettings, "ExtAuth", "extAuth", name, "backendSettings") {
		return
	}
	for i, ext := range ea.ContextExtensions {
		if ext == nil || ext.Type != egv1a1.ContextExtensionValueTypeValueRef {
			continue
		}
		at := append(slices.Clone(path), fmt.Sprintf("contextExtensions[%d]", i), "valueRef")
		if ext.ValueRef == nil {
			v.invalid(at, "ExtAuth: unexpected nil reference.")
			return
		}
		if msg := contextExtensionProblem(m, v.p.Obj.Namespace, ext.ValueRef); msg != "" {
			v.invalid(at, "ExtAuth: %s.", msg)
			return
		}
	}
}

// contextExtensionProblem is how Envoy Gateway reads an ext auth context
// extension's ValueRef (getContextExtensionValueFromRef): a data key of a
// ConfigMap, or a key of a Secret whose value is base64 text, in the
// policy's namespace; the problem, "" when it resolves.
func contextExtensionProblem(m *model.Model, ns string, ref *egv1a1.LocalObjectKeyReference) string {
	kind, rname, key := string(ref.Kind), string(ref.Name), ref.Key
	switch kind {
	case "ConfigMap":
		cm := m.ConfigMap(ns, rname)
		switch {
		case cm == nil:
			return fmt.Sprintf("can't find the referenced configmap %q in namespace %q", rname, ns)
		case !slices.Contains(dataKeys(cm, key), key):
			return fmt.Sprintf("can't find the key %q in the referenced configmap %q", key, rname)
		}
	case "Secret":
		s := m.Secret(ns, rname)
		switch {
		case s == nil:
			return fmt.Sprintf("can't find the referenced secret %q in namespace %q", rname, ns)
		case s.Assumed:
		case !slices.Contains(s.Keys, key):
			return fmt.Sprintf("can't find the key %q in the referenced secret %q", key, rname)
		default:
			// Envoy Gateway decodes the entry's value once more as
			// base64: the value itself must be base64 text.
			val, _ := s.Value(key)
			if err := secret.CheckBase64(val); err != nil {
				return fmt.Sprintf("error decoding the base64 value of the key %q in the referenced secret %q: %v", key, rname, err)
			}
		}
	default:
		return fmt.Sprintf("unexpected reference to kind %q", kind)
	}
	return ""
}

// oidc is buildOIDC, as far as the input decides it: the provider (its
// token endpoint or issuer parses; the token endpoint, when given with
// the authorization endpoint, is a domain name with a numeric port — when
// either is missing Envoy Gateway downloads the issuer's discovery
// document, which gwpol does not), the client ID (inline or from a
// Secret's client-id), the client secret (a Secret's client-secret), the
// redirect URL, and the TTL durations. The HMAC Secret is Envoy Gateway's
// own (envoy-gateway-system/envoy-oidc-hmac, made at install): taken as
// present. The first error ends it.
func (v valueChecks) oidc(o *egv1a1.OIDC, env *policy.Env) {
	if o == nil {
		return
	}
	m := env.Model
	fail := func(field, format string, args ...any) {
		v.invalid([]string{"oidc", field}, "OIDC: "+format+".", args...)
	}
	prov := &o.Provider
	raw := prov.Issuer
	if prov.TokenEndpoint != nil {
		raw = *prov.TokenEndpoint
	}
	if _, err := url.Parse(raw); err != nil {
		fail("provider", "%v", err)
		return
	}
	if v.backendRefsProblem(env, "OIDC", "spec.oidc.provider", &prov.BackendCluster) {
		return
	}
	if prov.TokenEndpoint != nil && prov.AuthorizationEndpoint != nil {
		if msg := tokenEndpointProblem(*prov.TokenEndpoint); msg != "" {
			fail("provider", "%s", msg)
			return
		}
	}
	if v.trafficFeatures(prov.BackendSettings, "OIDC", "oidc", "provider", "backendSettings") {
		return
	}
	if o.ClientID == nil {
		if o.ClientIDRef == nil {
			fail("clientID", "client ID must be specified in OIDC policy %s/%s", v.p.Obj.Namespace, v.p.Obj.Name)
			return
		}
		s, msg := v.secretRef(m, secretObjectRef(*o.ClientIDRef))
		if msg == "" && !nonEmpty(s, "client-id") {
			msg = fmt.Sprintf("client ID not found in secret %s/%s", s.Namespace, s.Name)
		}
		if msg != "" {
			fail("clientIDRef", "%s", msg)
			return
		}
	}
	s, msg := v.secretRef(m, secretObjectRef(o.ClientSecret))
	if msg == "" && !nonEmpty(s, "client-secret") {
		msg = fmt.Sprintf("client secret not found in secret %s/%s", s.Namespace, s.Name)
	}
	if msg != "" {
		fail("clientSecret", "%s", msg)
		return
	}
	if u := o.RedirectURL; u != nil && !validRedirectURL(*u) {
		fail("redirectURL", "invalid redirect URL %s", *u)
		return
	}
	for _, f := range []struct {
		name  string
		value *gwapiv1.Duration
	}{{"defaultTokenTTL", o.DefaultTokenTTL}, {"defaultRefreshTokenTTL", o.DefaultRefreshTokenTTL}, {"csrfTokenTTL", o.CSRFTokenTTL}} {
		if f.value == nil {
			continue
		}
		if _, err := time.ParseDuration(string(*f.value)); err != nil {
			fail(f.name, "invalid %s: %v", f.name, err)
			return
		}
	}
}

// backendRefsProblem resolves the backendRefs of a service a policy calls
// (a remote JWKS, an OIDC provider) as translateExtServiceBackendRefs
// does for ext auth (validateReferences' refValidator), and reports the
// first problem; it says whether there was one.
func (v valueChecks) backendRefsProblem(env *policy.Env, feature, path string, svc *egv1a1.BackendCluster) bool {
	if len(svc.BackendRefs) == 0 {
		return false
	}
	refs := make([]backendRef, len(svc.BackendRefs))
	for i, r := range svc.BackendRefs {
		refs[i] = weightedRefOf(r)
	}
	noBackend := !EnableBackend.Bool(env.Config)
	rv := refValidator{p: v.p, m: env.Model, kind: securityPolicy.name, noBackend: noBackend, env: env}
	n := len(v.p.Invalid)
	rv.backends(feature, path, refs)
	return len(v.p.Invalid) > n
}

// tokenEndpointProblem is validateTokenEndpoint: the endpoint parses, its
// host is a name (not an IP address), and its port is a number.
func tokenEndpointProblem(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Sprintf("error parsing token endpoint URL: %v", err)
	}
	if _, err := netip.ParseAddr(u.Hostname()); err == nil {
		return "token endpoint URL must be a domain name: " + endpoint
	}
	if p := u.Port(); p != "" {
		if _, err := strconv.Atoi(p); err != nil {
			return fmt.Sprintf("error parsing token endpoint URL port: %v", err)
		}
	}
	return ""
}

// validRedirectURL is extractRedirectPath's check: a scheme http, https or
// %REQ(x-forwarded-proto)%, then a host and a path other than "/".
func validRedirectURL(u string) bool {
	i := strings.Index(u, "://")
	if i <= 0 {
		return false
	}
	if s := u[:i]; s != "http" && s != "https" && s != "%REQ(x-forwarded-proto)%" {
		return false
	}
	j := strings.Index(u[i+3:], "/")
	return j > 0 && u[i+3+j:] != "/"
}

// jwt is buildJWT: validateJWTProvider (all its errors), then per
// provider the remote JWKS (URI, backends, durations) or the local one (a
// ConfigMap in the policy's namespace with key jwks or any data); the
// first error of the providers ends it.
func (v valueChecks) jwt(j *egv1a1.JWT, env *policy.Env) {
	if j == nil {
		return
	}
	m := env.Model
	if errs := validateJWTProviders(j.Providers); len(errs) > 0 {
		for _, e := range errs {
			v.invalid([]string{"jwt", "providers"}, "JWT: %s.", e)
		}
		return
	}
	ns := v.p.Obj.Namespace
	for i, pr := range j.Providers {
		path := []string{"jwt", fmt.Sprintf("providers[%d]", i)}
		if remote := pr.RemoteJWKS; remote != nil {
			if v.backendRefsProblem(env, "JWT", "spec."+strings.Join(path, ".")+".remoteJWKS", &remote.BackendCluster) ||
				v.trafficFeatures(remote.BackendSettings, "JWT", append(slices.Clone(path), "remoteJWKS", "backendSettings")...) {
				return
			}
			for _, f := range []struct {
				name  string
				value *gwapiv1.Duration
			}{{"cacheDuration", remote.CacheDuration}, {"failedRefetchDuration", remote.FailedRefetchDuration}} {
				if f.value == nil {
					continue
				}
				if _, err := time.ParseDuration(string(*f.value)); err != nil {
					v.invalid(append(path, "remoteJWKS", f.name), "JWT: %v.", err)
					return
				}
			}
			continue
		}
		local := pr.LocalJWKS
		if local == nil || local.Type == nil || *local.Type != egv1a1.LocalJWKSTypeValueRef || local.ValueRef == nil {
			continue
		}
		name := string(local.ValueRef.Name)
		cm := m.ConfigMap(ns, name)
		switch {
		case cm == nil:
			v.invalid(append(path, "localJWKS", "valueRef"), "JWT: local JWKS ConfigMap %s/%s not found.", ns, name)
		case len(dataKeys(cm, "jwks")) == 0:
			// Envoy Gateway's message, its arguments in its order.
			v.invalid(append(path, "localJWKS", "valueRef"), "JWT: JWKS data not found in ConfigMap jwks/%s, no %q key and no other data found.", cm.Namespace, cm.Name)
		default:
			continue
		}
		return
	}
}

// validateJWTProviders is Envoy Gateway's validateJWTProvider: every
// problem of every provider; the name checks (a qualified name, unique)
// only while no other problem was found.
func validateJWTProviders(providers []egv1a1.JWTProvider) []string {
	var errs, names []string
	for _, pr := range providers {
		name := pr.Name
		if name == "" {
			errs = append(errs, "jwt provider cannot be an empty string")
		}
		if issuer := pr.Issuer; issuer != "" {
			switch {
			case strings.Contains(issuer, ":"):
				if _, err := url.ParseRequestURI(issuer); err != nil {
					errs = append(errs, "invalid issuer; when issuer contains ':' character, it MUST be a valid URI")
				}
			case strings.Contains(issuer, "@"):
				if _, err := mail.ParseAddress(issuer); err != nil {
					errs = append(errs, "invalid issuer; when issuer contains '@' character, it MUST be a valid Email Address format: "+err.Error())
				}
			}
		}
		remote, local := pr.RemoteJWKS, pr.LocalJWKS
		if (remote != nil) == (local != nil) {
			errs = append(errs, "either remoteJWKS or localJWKS must be specified for jwt provider: "+name)
		}
		if remote != nil {
			if remote.URI == "" {
				errs = append(errs, "uri must be set for remote JWKS provider: "+name)
			} else if _, err := url.ParseRequestURI(remote.URI); err != nil {
				errs = append(errs, "invalid remote JWKS URI: "+err.Error())
			}
		}
		if local != nil {
			if local.Type == nil || *local.Type == "" || *local.Type == egv1a1.LocalJWKSTypeInline {
				if local.Inline == nil {
					errs = append(errs, "inline JWKS must be set for local JWKS provider: "+name+" if type is Inline")
				}
			} else if local.ValueRef == nil {
				errs = append(errs, "valueRef must be set for local JWKS provider: "+name+" if type is ValueRef")
			}
		}
		if len(errs) == 0 {
			errs = append(errs, validation.IsQualifiedName(name)...)
			// Envoy Gateway's uniqueness loop, as written: the name is
			// compared with each name kept so far, and appended once per
			// name it differs from.
			if names == nil {
				names = append(names, name)
			} else {
				for _, n := range slices.Clone(names) {
					if n == name {
						errs = append(errs, "provider name "+name+" must be unique")
					} else {
						names = append(names, name)
					}
				}
			}
		}
		for _, ch := range pr.ClaimToHeaders {
			switch {
			case ch.Header == "":
				errs = append(errs, "header must be set for claimToHeader provider: "+ch.Header)
			case ch.Claim == "":
				errs = append(errs, "claim must be set for claimToHeader provider: "+ch.Claim)
			}
		}
	}
	return errs
}

// extAuthFailsOpen: where ext auth is the only part of the policy that
// fails and it sets failOpen, Envoy Gateway leaves ext auth out and
// applies the rest, without the 500 it answers for any other error
// (translateSecurityPolicyForRoute, …ForListeners: shouldFailOpen). The
// policy stays Invalid; ext auth is taken out of its values, so render
// does not build it and explain shows it not in effect. A policy a
// validator refuses everywhere does not fail open: nothing of it is
// translated.
func extAuthFailsOpen(p *policy.Policy, d *data, s *egv1a1.SecurityPolicySpec) {
	if p.IsValid() || s.ExtAuth == nil || !isTrue(s.ExtAuth.FailOpen) || (d.refused && !d.partial) {
		return
	}
	for _, e := range p.Invalid {
		if e.Field != "spec.extAuth" && !strings.HasPrefix(e.Field, "spec.extAuth.") {
			return
		}
	}
	p.FailOpen = true
	delete(p.Values, "extAuth")
	if p.OutOfEffect == nil {
		p.OutOfEffect = map[string]string{}
	}
	p.OutOfEffect["extAuth"] = "ext auth does not translate and sets failOpen: Envoy Gateway leaves it out and applies the rest of the policy"
}
