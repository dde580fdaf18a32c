package envoygateway

import (
	"encoding/json"
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

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret"
)

// refuse makes err the policy's only error, as Envoy Gateway's
// validateSecurityPolicy(ForTCP) refusal is: what validateReferences found
// under extAuth and oidc is dropped, and the policy is refused whole.
func (v valueChecks) refuse(what string, err *fieldError) {
	v.p.Invalid = slices.DeleteFunc(v.p.Invalid, func(d diag.Diagnostic) bool {
		return strings.HasPrefix(d.Field, "spec.extAuth") || strings.HasPrefix(d.Field, "spec.oidc")
	})
	v.invalid([]string{err.path}, what+": %s.", err.msg)
	decoded(v.p).refused = true
}

// security runs the checks of Envoy Gateway's SecurityPolicy translation
// that the input can decide. On a route (processSecurityPolicyForRoute)
// validateSecurityPolicy runs first and, when it refuses the policy, is
// the only error; then the builders run in translateSecurityPolicyForRoute's
// order (basic auth, API key auth, authorization, then per parent ext
// auth, OIDC, JWT); on a Gateway or listener
// (translateSecurityPolicyForListeners) there is no validateSecurityPolicy
// and the order is JWT, OIDC, basic auth, API key auth, ext auth,
// authorization. Every builder's error is joined; each builder returns at
// its first. The ext auth backends are checked by validateReferences.
// docs/controllers/envoygateway-checks.md lists each check with its source.
func (v valueChecks) security(env *policy.Env) {
	m := env.Model
	v.deprecatedSecurity()
	onRoute := slices.ContainsFunc(v.p.Targets, func(t policy.TargetRef) bool {
		return t.Kind == "HTTPRoute" || t.Kind == "GRPCRoute"
	})
	onTCPRoute := slices.ContainsFunc(v.p.Targets, func(t policy.TargetRef) bool { return t.Kind == "TCPRoute" })
	if onTCPRoute && !onRoute {
		if err := v.validateSecurityPolicyForTCP(); err != nil {
			v.refuse("Invalid SecurityPolicy for TCP route", err)
			return
		}
	}
	if onRoute {
		if err := v.validateSecurityPolicy(); err != nil {
			v.refuse("Invalid SecurityPolicy", err)
			return
		}
		v.basicAuth(m)
		v.apiKeyAuth(m)
		v.authorization()
		v.extAuth(m)
		v.oidc(env)
		v.jwt(env)
		return
	}
	v.jwt(env)
	v.oidc(env)
	v.basicAuth(m)
	v.apiKeyAuth(m)
	v.extAuth(m)
	v.authorization()
}

// deprecatedSecurity: the singular extAuth backendRef of grpc and http is
// deprecated (deprecatedFieldsUsedInSecurityPolicy), a DeprecatedField
// warning and GWP104 at the field.
func (v valueChecks) deprecatedSecurity() {
	for _, svc := range []string{"grpc", "http"} {
		if v.at("extAuth", svc, "backendRef") == nil {
			continue
		}
		field := "spec.extAuth." + svc + ".backendRef"
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
func (v valueChecks) validateSecurityPolicy() *fieldError {
	sources, _ := v.at("apiKeyAuth", "extractFrom").([]any)
	for i, s := range sources {
		src, _ := s.(map[string]any)
		n := 0
		for _, f := range []string{"headers", "params", "cookies"} {
			if l, _ := src[f].([]any); len(l) > 0 {
				n++
			}
		}
		if n > 1 {
			return &fieldError{fmt.Sprintf("apiKeyAuth.extractFrom[%d]", i), "only one of headers, params or cookies must be specified"}
		}
	}
	if pass, _ := v.at("oidc", "passThroughAuthHeader").(bool); !pass {
		return nil
	}
	if v.at("jwt") == nil {
		return &fieldError{"oidc.passThroughAuthHeader", "the OIDC.PassThroughAuthHeader setting must be used in conjunction with JWT settings"}
	}
	providers, _ := v.at("jwt", "providers").([]any)
	readsHeader := false
	for _, p := range providers {
		pr, _ := p.(map[string]any)
		ef, set := pr["extractFrom"].(map[string]any)
		if hs, _ := ef["headers"].([]any); !set || len(hs) > 0 {
			readsHeader = true
			break
		}
	}
	if !readsHeader {
		return &fieldError{"oidc.passThroughAuthHeader", "the OIDC.PassThroughAuthHeader setting must be used in conjunction with a JWT provider that is configured to read from a header"}
	}
	fwd, ok := v.at("oidc", "forwardIDToken").(map[string]any)
	if !ok {
		return nil
	}
	header, _ := fwd["header"].(string)
	for _, p := range providers {
		pr, _ := p.(map[string]any)
		ef, set := pr["extractFrom"].(map[string]any)
		if !set {
			if strings.EqualFold(header, "Authorization") {
				return &fieldError{"oidc.forwardIDToken.header", fmt.Sprintf("the OIDC.ForwardIDToken header %q cannot be the Authorization header when passThroughAuthHeader is enabled and a JWT provider reads from it", header)}
			}
			continue
		}
		hs, _ := ef["headers"].([]any)
		for _, h := range hs {
			hm, _ := h.(map[string]any)
			if name, _ := hm["name"].(string); strings.EqualFold(header, name) {
				return &fieldError{"oidc.forwardIDToken.header", fmt.Sprintf("the OIDC.ForwardIDToken header %q cannot be the same as a JWT provider extractFrom header when passThroughAuthHeader is enabled", header)}
			}
		}
	}
	return nil
}

// validateSecurityPolicyForTCP is Envoy Gateway's check of a policy on a
// TCPRoute: authorization only, and in its rules no CEL, JWT, headers or
// client IP geolocations, and client CIDRs that parse; the first problem.
func (v valueChecks) validateSecurityPolicyForTCP() *fieldError {
	for _, f := range []string{"cors", "csrf", "jwt", "oidc", "apiKeyAuth", "basicAuth", "extAuth"} {
		if v.at(f) != nil {
			return &fieldError{f, "only authorization is supported for TCP (routes/listeners)"}
		}
	}
	rules, _ := v.at("authorization", "rules").([]any)
	for i, r := range rules {
		rule, _ := r.(map[string]any)
		path := fmt.Sprintf("authorization.rules[%d]", i)
		if rule["cel"] != nil {
			return &fieldError{path, fmt.Sprintf("rule %d: CEL not supported for TCP", i)}
		}
		principal, ok := rule["principal"].(map[string]any)
		if !ok {
			continue
		}
		hs, _ := principal["headers"].([]any)
		geo, _ := principal["clientIPGeoLocations"].([]any)
		switch {
		case principal["jwt"] != nil:
			return &fieldError{path, fmt.Sprintf("rule %d: JWT not supported for TCP", i)}
		case len(hs) > 0:
			return &fieldError{path, fmt.Sprintf("rule %d: headers not supported for TCP", i)}
		case len(geo) > 0:
			return &fieldError{path, fmt.Sprintf("rule %d: clientIPGeoLocations not supported for TCP", i)}
		}
		cidrs, _ := principal["clientCIDRs"].([]any)
		for _, c := range cidrs {
			s, _ := c.(string)
			if _, _, err := net.ParseCIDR(s); err != nil {
				return &fieldError{path, fmt.Sprintf("rule %d: invalid ClientCIDR %q: %v", i, s, err)}
			}
		}
	}
	return nil
}

// secretRef is Envoy Gateway's validateSecretRef from the policy's
// namespace (cross-namespace allowed with a ReferenceGrant): the Secret it
// names, or the problem. A kind ConfigMap passes the reference check but
// is then looked up as a Secret, as Envoy Gateway does.
func (v valueChecks) secretRef(m *model.Model, ref map[string]any) (*model.Opaque, string) {
	return v.secretRefFrom(m, "SecurityPolicy", ref)
}

// secretRefFrom is secretRef for a policy of the given kind (the
// ReferenceGrant's from).
func (v valueChecks) secretRefFrom(m *model.Model, kindFrom string, ref map[string]any) (*model.Opaque, string) {
	group, _ := ref["group"].(string)
	kind, _ := ref["kind"].(string)
	name, _ := ref["name"].(string)
	ns, _ := ref["namespace"].(string)
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
func (v valueChecks) basicAuth(m *model.Model) {
	ref, ok := v.at("basicAuth", "users").(map[string]any)
	if !ok {
		return
	}
	path := []string{"basicAuth", "users"}
	s, msg := v.secretRef(m, ref)
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
func (v valueChecks) apiKeyAuth(m *model.Model) {
	refs, _ := v.at("apiKeyAuth", "credentialRefs").([]any)
	var keys []secret.Value
	seenClients := map[string]bool{}
	for i, r := range refs {
		ref, _ := r.(map[string]any)
		path := []string{"apiKeyAuth", fmt.Sprintf("credentialRefs[%d]", i)}
		s, msg := v.secretRef(m, ref)
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
// CEL expression parses; the first error ends it.
func (v valueChecks) authorization() {
	rules, _ := v.at("authorization", "rules").([]any)
	for i, r := range rules {
		rule, _ := r.(map[string]any)
		path := []string{"authorization", fmt.Sprintf("rules[%d]", i)}
		principal, _ := rule["principal"].(map[string]any)
		cidrs, _ := principal["clientCIDRs"].([]any)
		for _, c := range cidrs {
			s, _ := c.(string)
			if _, _, err := net.ParseCIDR(s); err != nil {
				v.invalid(path, "Authorization: unable to translate authorization rule: %v.", err)
				return
			}
		}
		op, _ := rule["operation"].(map[string]any)
		if p, ok := op["path"].(map[string]any); ok {
			typ, _ := p["type"].(string)
			value, _ := p["value"].(string)
			var err error
			switch typ {
			case "", "PathPrefix", "Exact":
			case "RegularExpression":
				err = validRegex(value)
			default:
				err = errors.New("invalid path type")
			}
			if err != nil {
				v.invalid(path, "Authorization: unable to translate authorization rule: %v.", err)
				return
			}
		}
		if expr, ok := rule["cel"].(string); ok && !validCEL(expr) {
			v.invalid(path, "Authorization: invalid CEL expression: %s.", expr)
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
// and each ValueRef context extension readable.
func (v valueChecks) extAuth(m *model.Model) {
	ea, ok := v.at("extAuth").(map[string]any)
	if !ok {
		return
	}
	grpc, hasGRPC := ea["grpc"].(map[string]any)
	http, hasHTTP := ea["http"].(map[string]any)
	path := []string{"extAuth"}
	switch {
	case !hasGRPC && !hasHTTP:
		v.invalid(path, "ExtAuth: one of grpc or http must be specified.")
		return
	case hasGRPC && hasHTTP:
		v.invalid(path, "ExtAuth: only one of grpc or http can be specified.")
		return
	}
	svc, name := http, "http"
	if hasGRPC {
		svc, name = grpc, "grpc"
	}
	if refs, _ := svc["backendRefs"].([]any); len(refs) == 0 && svc["backendRef"] == nil {
		v.invalid(append(path, name), "ExtAuth: %s backend refs must be specified.", name)
		return
	}
	exts, _ := ea["contextExtensions"].([]any)
	ns := v.p.Obj.Namespace
	for i, e := range exts {
		ext, _ := e.(map[string]any)
		if typ, _ := ext["type"].(string); typ != "ValueRef" {
			continue
		}
		at := append(slices.Clone(path), fmt.Sprintf("contextExtensions[%d]", i), "valueRef")
		ref, ok := ext["valueRef"].(map[string]any)
		if !ok {
			v.invalid(at, "ExtAuth: unexpected nil reference.")
			return
		}
		kind, _ := ref["kind"].(string)
		rname, _ := ref["name"].(string)
		key, _ := ref["key"].(string)
		var msg string
		switch kind {
		case "ConfigMap":
			cm := m.ConfigMap(ns, rname)
			switch {
			case cm == nil:
				msg = fmt.Sprintf("can't find the referenced configmap %q in namespace %q", rname, ns)
			case !cm.Assumed && !slices.Contains(cm.Keys, key):
				msg = fmt.Sprintf("can't find the key %q in the referenced configmap %q", key, rname)
			}
		case "Secret":
			s := m.Secret(ns, rname)
			switch {
			case s == nil:
				msg = fmt.Sprintf("can't find the referenced secret %q in namespace %q", rname, ns)
			case !s.Assumed && !slices.Contains(s.Keys, key):
				msg = fmt.Sprintf("can't find the key %q in the referenced secret %q", key, rname)
			}
		default:
			msg = fmt.Sprintf("unexpected reference to kind %q", kind)
		}
		if msg != "" {
			v.invalid(at, "ExtAuth: %s.", msg)
			return
		}
	}
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
func (v valueChecks) oidc(env *policy.Env) {
	m := env.Model
	o, ok := v.at("oidc").(map[string]any)
	if !ok {
		return
	}
	fail := func(field, format string, args ...any) {
		v.invalid([]string{"oidc", field}, "OIDC: "+format+".", args...)
	}
	prov, _ := o["provider"].(map[string]any)
	issuer, _ := prov["issuer"].(string)
	token, hasToken := prov["tokenEndpoint"].(string)
	_, hasAuthz := prov["authorizationEndpoint"].(string)
	raw := issuer
	if hasToken {
		raw = token
	}
	if _, err := url.Parse(raw); err != nil {
		fail("provider", "%v", err)
		return
	}
	if v.backendRefsProblem(env, "OIDC", "spec.oidc.provider", prov) {
		return
	}
	if hasToken && hasAuthz {
		if msg := tokenEndpointProblem(token); msg != "" {
			fail("provider", "%s", msg)
			return
		}
	}
	if _, inline := o["clientID"].(string); !inline {
		ref, ok := o["clientIDRef"].(map[string]any)
		if !ok {
			fail("clientID", "client ID must be specified in OIDC policy %s/%s", v.p.Obj.Namespace, v.p.Obj.Name)
			return
		}
		s, msg := v.secretRef(m, ref)
		if msg == "" && !nonEmpty(s, "client-id") {
			msg = fmt.Sprintf("client ID not found in secret %s/%s", s.Namespace, s.Name)
		}
		if msg != "" {
			fail("clientIDRef", "%s", msg)
			return
		}
	}
	ref, _ := o["clientSecret"].(map[string]any)
	s, msg := v.secretRef(m, ref)
	if msg == "" && !nonEmpty(s, "client-secret") {
		msg = fmt.Sprintf("client secret not found in secret %s/%s", s.Namespace, s.Name)
	}
	if msg != "" {
		fail("clientSecret", "%s", msg)
		return
	}
	if u, ok := o["redirectURL"].(string); ok && !validRedirectURL(u) {
		fail("redirectURL", "invalid redirect URL %s", u)
		return
	}
	for _, f := range []string{"defaultTokenTTL", "defaultRefreshTokenTTL", "csrfTokenTTL"} {
		if d, ok := o[f].(string); ok {
			if _, err := time.ParseDuration(d); err != nil {
				fail(f, "invalid %s: %v", f, err)
				return
			}
		}
	}
}

// backendRefsProblem resolves the backendRefs of a service a policy calls
// (a remote JWKS, an OIDC provider) as translateExtServiceBackendRefs
// does for ext auth (validateReferences' refValidator), and reports the
// first problem; it says whether there was one.
func (v valueChecks) backendRefsProblem(env *policy.Env, feature, path string, svc map[string]any) bool {
	raw, err := json.Marshal(svc["backendRefs"])
	var refs []backendRef
	if err != nil || json.Unmarshal(raw, &refs) != nil || len(refs) == 0 {
		return false
	}
	noBackend := !EnableBackend.Bool(env.Config)
	rv := refValidator{p: v.p, m: env.Model, kind: securityPolicy.name, noBackend: noBackend, backendProblems: env.BackendProblems}
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
func (v valueChecks) jwt(env *policy.Env) {
	m := env.Model
	providers, ok := v.at("jwt", "providers").([]any)
	if !ok {
		return
	}
	if errs := validateJWTProviders(providers); len(errs) > 0 {
		for _, e := range errs {
			v.invalid([]string{"jwt", "providers"}, "JWT: %s.", e)
		}
		return
	}
	ns := v.p.Obj.Namespace
	for i, p := range providers {
		pr, _ := p.(map[string]any)
		path := []string{"jwt", fmt.Sprintf("providers[%d]", i)}
		if remote, ok := pr["remoteJWKS"].(map[string]any); ok {
			if v.backendRefsProblem(env, "JWT", "spec."+strings.Join(path, ".")+".remoteJWKS", remote) {
				return
			}
			for _, f := range []string{"cacheDuration", "failedRefetchDuration"} {
				if d, ok := remote[f].(string); ok {
					if _, err := time.ParseDuration(d); err != nil {
						v.invalid(append(path, "remoteJWKS", f), "JWT: %v.", err)
						return
					}
				}
			}
			continue
		}
		local, _ := pr["localJWKS"].(map[string]any)
		if typ, _ := local["type"].(string); typ != "ValueRef" {
			continue
		}
		ref, _ := local["valueRef"].(map[string]any)
		name, _ := ref["name"].(string)
		cm := m.ConfigMap(ns, name)
		switch {
		case cm == nil:
			v.invalid(append(path, "localJWKS", "valueRef"), "JWT: local JWKS ConfigMap %s/%s not found.", ns, name)
		case len(cm.Keys) == 0:
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
func validateJWTProviders(providers []any) []string {
	var errs, names []string
	for _, p := range providers {
		pr, _ := p.(map[string]any)
		name, _ := pr["name"].(string)
		if name == "" {
			errs = append(errs, "jwt provider cannot be an empty string")
		}
		if issuer, _ := pr["issuer"].(string); issuer != "" {
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
		remote, hasRemote := pr["remoteJWKS"].(map[string]any)
		local, hasLocal := pr["localJWKS"].(map[string]any)
		if hasRemote == hasLocal {
			errs = append(errs, "either remoteJWKS or localJWKS must be specified for jwt provider: "+name)
		}
		if hasRemote {
			uri, _ := remote["uri"].(string)
			if uri == "" {
				errs = append(errs, "uri must be set for remote JWKS provider: "+name)
			} else if _, err := url.ParseRequestURI(uri); err != nil {
				errs = append(errs, "invalid remote JWKS URI: "+err.Error())
			}
		}
		if hasLocal {
			typ, _ := local["type"].(string)
			if typ == "" || typ == "Inline" {
				if _, ok := local["inline"].(string); !ok {
					errs = append(errs, "inline JWKS must be set for local JWKS provider: "+name+" if type is Inline")
				}
			} else if local["valueRef"] == nil {
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
		claims, _ := pr["claimToHeaders"].([]any)
		for _, c := range claims {
			ch, _ := c.(map[string]any)
			header, _ := ch["header"].(string)
			claim, _ := ch["claim"].(string)
			switch {
			case header == "":
				errs = append(errs, "header must be set for claimToHeader provider: "+header)
			case claim == "":
				errs = append(errs, "claim must be set for claimToHeader provider: "+claim)
			}
		}
	}
	return errs
}
