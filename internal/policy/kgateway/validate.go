package kgateway

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret"
	"k8s.io/apimachinery/pkg/labels"
)

// validator checks a TrafficPolicy the way kgateway's translator does
// before using it: references must resolve (GatewayExtensions, Secrets,
// ConfigMaps; across namespaces only with a ReferenceGrant in Strict mode)
// and values must parse. Every problem names the field.
type validator struct {
	p    *policy.Policy
	env  *policy.Env
	spec *TrafficPolicySpec
}

func (v *validator) invalid(path, format string, args ...any) {
	v.p.Invalid = append(v.p.Invalid, v.p.Diag(policy.LintPolicyInvalid.Code, diag.Error, path, format, args...))
}

func (v *validator) validate() {
	s := v.spec
	if s.ExtAuth != nil && s.ExtAuth.ExtensionRef != nil {
		v.extension("spec.extAuth.extensionRef", s.ExtAuth.ExtensionRef, "extAuth")
	}
	if s.ExtProc != nil && s.ExtProc.ExtensionRef != nil {
		v.extension("spec.extProc.extensionRef", s.ExtProc.ExtensionRef, "extProc")
	}
	if s.RateLimit != nil && s.RateLimit.Global != nil {
		v.extension("spec.rateLimit.global.extensionRef", &s.RateLimit.Global.ExtensionRef, "rateLimit")
	}
	if s.RateLimit != nil && s.RateLimit.Local != nil {
		v.localRateLimit(s.RateLimit.Local)
	}
	if s.JWTAuth != nil && s.JWTAuth.ExtensionRef != nil {
		n := len(v.p.Invalid)
		v.extension("spec.jwtAuth.extensionRef", s.JWTAuth.ExtensionRef, "jwt")
		if len(v.p.Invalid) == n {
			v.jwtProviders("spec.jwtAuth.extensionRef", s.JWTAuth.ExtensionRef)
		}
	}
	if s.OAuth2 != nil {
		v.extension("spec.oauth2.extensionRef", &s.OAuth2.ExtensionRef, "oauth2")
	}
	if s.Timeouts != nil {
		v.duration("spec.timeouts.request", s.Timeouts.Request)
		v.duration("spec.timeouts.streamIdle", s.Timeouts.StreamIdle)
	}
	if s.Retry != nil {
		v.duration("spec.retry.perTryTimeout", s.Retry.PerTryTimeout)
		v.duration("spec.retry.backoffBaseInterval", s.Retry.BackoffBaseInterval)
	}
	if b := s.BasicAuth; b != nil && b.Disable == nil {
		v.basicAuth(b)
	}
	if r := s.RBAC; r != nil {
		v.rbacExpressions(r.Policy.MatchExpressions)
	}
	if a := s.ACL; a != nil {
		v.aclCIDRs(a)
	}
	if a := s.APIKeyAuth; a != nil && a.Disable == nil {
		switch {
		case a.SecretRef != nil:
			var ns *string
			if a.SecretRef.Namespace != nil {
				n := string(*a.SecretRef.Namespace)
				ns = &n
			}
			if sec := v.secret("spec.apiKeyAuth.secretRef", string(a.SecretRef.Name), ns); sec != nil {
				v.apiKeys("spec.apiKeyAuth.secretRef", []*model.Opaque{sec})
			}
		case a.SecretSelector != nil:
			if secs := v.secretSelector("spec.apiKeyAuth.secretSelector", a.SecretSelector.MatchLabels); len(secs) > 0 {
				v.apiKeys("spec.apiKeyAuth.secretSelector", secs)
			}
		}
	}
	if t := s.Transformation; t != nil && strictValidation(v.env.Config) {
		// Strict mode validates generated config the way Envoy would: a
		// malformed template is rejected there, so the policy is invalid.
		v.templates("spec.transformation.request", t.Request)
		v.templates("spec.transformation.response", t.Response)
	}
	if strictValidation(v.env.Config) {
		v.strictEnvoyChecks()
	}
	if h := s.HeaderModifiers; h != nil {
		v.headerSecrets("spec.headerModifiers.request", h.Request)
		v.headerSecrets("spec.headerModifiers.response", h.Response)
	}
	if u := s.URLRewrite; u != nil && u.PathRegex != nil {
		v.regex("spec.urlRewrite.pathRegex.pattern", u.PathRegex.Pattern)
	}
}

// localRateLimit checks the token bucket Envoy's local rate limit needs.
// An empty policy is valid: it switches local rate limiting off
// (LocalRateLimitPolicy.disables). Any other without a token bucket gets
// an empty one from kgateway, which Envoy's validation refuses.
func (v *validator) localRateLimit(l *LocalRateLimitPolicy) {
	tb := l.TokenBucket
	switch {
	case l.disables():
	case tb == nil:
		v.invalid("spec.rateLimit.local", "invalid LocalRateLimit.TokenBucket: embedded message failed validation | caused by: invalid TokenBucket.FillInterval: value is required (rateLimit.local sets no tokenBucket)")
	default:
		v.duration("spec.rateLimit.local.tokenBucket.fillInterval", &tb.FillInterval)
		if tb.MaxTokens < 1 {
			v.invalid("spec.rateLimit.local.tokenBucket.maxTokens", "maxTokens must be at least 1")
		}
	}
}

// regex checks a pattern Envoy compiles as RE2 (Go's regexp syntax is
// RE2's): an empty or malformed one would make the route's config invalid.
func (v *validator) regex(path, pattern string) {
	if pattern == "" {
		v.invalid(path, "%s is empty; give the RE2 pattern to rewrite", path)
		return
	}
	if _, err := regexp.Compile(pattern); err != nil {
		v.invalid(path, "%s is not an RE2 regular expression: %v", path, err)
	}
}

// strictEnvoyChecks are checks Envoy makes on the config a policy
// produces, which kgateway's Strict validation mode runs before accepting
// it: a CSRF origin's regular expression must compile (RE2, whose syntax
// Go's regexp shares), and an HTTP authorization service's path prefix
// must start with "/".
func (v *validator) strictEnvoyChecks() {
	if c := v.spec.Csrf; c != nil {
		for i, o := range c.AdditionalOrigins {
			if o.SafeRegex == nil {
				continue
			}
			if _, err := regexp.Compile(*o.SafeRegex); err != nil {
				v.invalid(fmt.Sprintf("spec.csrf.additionalOrigins[%d].safeRegex", i), "invalid xds configuration: regular expression %q does not compile: %v", *o.SafeRegex, err)
			}
		}
	}
	if a := v.spec.ExtAuth; a != nil && a.ExtensionRef != nil {
		ext, ns, err := lookupExtension(v.env.Model, a.ExtensionRef, v.p.Obj.Namespace)
		if err != nil || ext.Spec.ExtAuth == nil || ext.Spec.ExtAuth.HTTPService == nil {
			return // reported by the reference check
		}
		if pp := ext.Spec.ExtAuth.HTTPService.PathPrefix; pp != "" && !strings.HasPrefix(pp, "/") {
			v.invalid("spec.extAuth.extensionRef", "invalid xds configuration: GatewayExtension %s/%s extAuth.httpService.pathPrefix %q does not start with \"/\"", ns, ext.Name, pp)
		}
	}
}

func (v *validator) ns(ref *string) string {
	if ref != nil && *ref != "" {
		return *ref
	}
	return v.p.Obj.Namespace
}

// extension checks a GatewayExtension reference: it must exist, be reachable
// from the policy's namespace and provide what the field needs.
func (v *validator) extension(path string, ref *NamespacedObjectReference, provider string) {
	ns := v.ns(ref.Namespace)
	key := model.Key{Group: Group, Kind: KindGatewayExtension, Namespace: ns, Name: ref.Name}
	o, ok := v.env.Model.Object(key)
	if !ok {
		v.invalid(path, "GatewayExtension %s/%s not found; create it or fix %s.name", ns, ref.Name, path)
		return
	}
	// kgateway checks this hop only in Strict ReferenceGrant mode.
	if strictGrants(v.env.Config) && !v.granted(KindGatewayExtension, ns, ref.Name) {
		v.invalid(path, "%s: GatewayExtension %s/%s is in another namespace and no ReferenceGrant in %s allows TrafficPolicies from %s to use it (missing reference grant)", provider, ns, ref.Name, ns, v.p.Obj.Namespace)
		return
	}
	if !o.Has("spec." + provider) {
		v.invalid(path, "GatewayExtension %s/%s does not configure %s (spec.%s is missing)", ns, ref.Name, provider, provider)
		return
	}
	before := len(v.p.Invalid)
	v.extensionBackends(path, o, provider)
	switch {
	case len(v.p.Invalid) > before:
	case provider == "oauth2":
		v.oauth2Provider(path, o)
	case provider == "extAuth":
		v.extAuthProvider(path, o)
	case provider == "rateLimit":
		v.rateLimitProvider(path, o)
	}
}

// rateLimitProvider is the validation kgateway's policy plugin runs on the
// rate limit filter an extension builds (globalRateLimitIR.Validate →
// TrafficPolicyGatewayExtensionIR.Validate → RateLimit.ValidateAll): a
// filter Envoy refuses — an empty domain, which the CRD lets through —
// makes every policy calling the extension Invalid, with Envoy's
// validation message.
func (v *validator) rateLimitProvider(path string, o *manifest.Object) {
	var ext GatewayExtension
	if o.Decode(&ext) != nil || ext.Spec.RateLimit == nil {
		return
	}
	cfg, _, err := rateLimitService(ext.Spec.RateLimit, o.Namespace, false)
	if err != nil {
		return // a value no decoder takes: refused before kgateway sees it
	}
	if err := cfg.ValidateAll(); err != nil {
		v.invalid(path, "%v", err)
	}
}

// extAuthProvider is the validation kgateway's policy plugin runs on the
// ext_authz config an extension builds (extAuthStatusProblem): a
// statusOnError Envoy's status codes do not define makes every policy
// calling the extension Invalid, with Envoy's validation message.
func (v *validator) extAuthProvider(path string, o *manifest.Object) {
	var ext GatewayExtension
	if o.Decode(&ext) != nil || ext.Spec.ExtAuth == nil {
		return
	}
	if ext.Spec.ExtAuth.StatusOnError != nil {
		if err := extAuthStatusProblem(*ext.Spec.ExtAuth.StatusOnError); err != nil {
			v.invalid(path, "%v", err)
			return
		}
	}
	// the rest of the filter as render builds it, under the same
	// validation (an authorization request header with an empty name)
	cfg, _, err := extAuthz(ext.Spec.ExtAuth, o.Namespace, o.Name, false)
	if err != nil {
		return // a value no decoder takes, or no service: reported apart
	}
	if err := cfg.ValidateAll(); err != nil {
		v.invalid(path, "%v", err)
	}
}

// oauth2Provider is the rest of kgateway's buildOAuth2ProviderConfig once
// the provider's backend resolves, whose error makes the extension's IR
// fail and every TrafficPolicy naming it Invalid (FetchGatewayExtension
// returns the IR's error; constructOAuth2 prefixes "extauth", as kgateway
// writes it): the client Secret must be in the extension's namespace and
// hold a non-empty client-secret (a Secret whose data is not in the input
// is not checked), and the redirect URI must name a scheme and a path.
// The HMAC Secret kgateway reads from its own namespace is the
// deployment's, never in the input, and the issuer's discovery document
// is not fetched offline: neither is checked.
func (v *validator) oauth2Provider(path string, o *manifest.Object) {
	var ext GatewayExtension
	if o.Decode(&ext) != nil || ext.Spec.OAuth2 == nil {
		return
	}
	p := ext.Spec.OAuth2
	fail := func(format string, args ...any) {
		v.invalid(path, "extauth: error building OAuth2 config: "+format, args...)
	}
	name := p.Credentials.ClientSecretRef.Name
	switch sec := v.env.Model.Secret(o.Namespace, name); {
	case sec == nil:
		fail("Secret %s/%s not found", o.Namespace, name)
		return
	case !sec.Assumed && len(sec.Keys) > 0:
		if val, ok := sec.Value(oauth2ClientSecretKey); !ok || val.Len() == 0 {
			fail("%s not found or empty in secret %s/%s referenced by GatewayExtension %s/%s", oauth2ClientSecretKey, o.Namespace, name, o.Namespace, o.Name)
			return
		}
	}
	if _, err := oauth2RedirectPath(p.RedirectURI); err != nil {
		fail("invalid redirectURI: %v", err)
	}
}

// extensionBackends checks the backends a GatewayExtension sends traffic
// to as kgateway's BackendIndex resolves them (ResolveExtGrpcService,
// ResolveExtHttpService, a JWKS or OAuth2 provider's backendRef): a
// Service must exist and expose the port, a Backend must exist, and one in
// another namespace needs a ReferenceGrant from GatewayExtensions of the
// extension's namespace, whatever the mode.
func (v *validator) extensionBackends(path string, ext *manifest.Object, provider string) {
	var spec map[string]any
	if err := ext.DecodeField("spec."+provider, &spec); err != nil {
		v.invalid(path, "GatewayExtension %s/%s: %v", ext.Namespace, ext.Name, err)
		return
	}
	for _, ref := range backendRefs(spec) {
		if ref.namespace == "" {
			ref.namespace = ext.Namespace
		}
		if problem := v.extensionBackendProblem(ext, ref); problem != "" {
			v.invalid(path, "%s: GatewayExtension %s/%s: %s", provider, ext.Namespace, ext.Name, problem)
		}
	}
}

// extensionBackendProblem is why one backendRef of a GatewayExtension does
// not resolve, "" when it does.
func (v *validator) extensionBackendProblem(ext *manifest.Object, ref backendRef) string {
	return backendRefProblem(v.env, KindGatewayExtension, ext.Namespace, ref)
}

// backendRefProblem is why a backendRef that an object of kgateway's
// kind fromKind in namespace fromNS names does not resolve through
// kgateway's BackendIndex (GetBackendFromRef with the object as the
// source), "" when it does. The checks run in the index's order, so the
// first failing one is the message when several fail: a ref into another
// namespace needs a ReferenceGrant from fromKind in fromNS to the kind as
// written (none under referenceGrantMode Off), then a Backend must be
// named without a port, then the backend is looked up: a Service must
// exist and expose the port, a Backend must exist, any other kind is
// unknown.
func backendRefProblem(env *policy.Env, fromKind, fromNS string, ref backendRef) string {
	m := env.Model
	ns := ref.namespace
	if ns == "" {
		ns = fromNS
	}
	isBackend := ref.gk == model.GroupKind{Group: Group, Kind: KindBackend}
	target := model.ObjectRefTo{Group: ref.gk.Group, Kind: ref.gk.Kind, Namespace: ns, Name: ref.name}
	if !m.GrantAllowsBy(grants(env.Config), Group, fromKind, fromNS, target) {
		return fmt.Sprintf("backend %s %s/%s is in another namespace and no ReferenceGrant allows it (missing reference grant)", target.Kind, ns, ref.name)
	}
	// a Backend defines its own port (its IR's is 0): a ref giving one is
	// refused before the lookup, as a route's backendRef to it is
	if isBackend && ref.port != nil {
		return fmt.Sprintf("BackendRef to %q includes a port. Do not specify a port when referencing a %s resource, as it defines its own port configuration", ref.name, KindBackend)
	}
	switch {
	case ref.gk == serviceKind:
		svc := m.Service(ns, ref.name)
		if svc == nil {
			return fmt.Sprintf("backend Service %s/%s not found", ns, ref.name)
		}
		// kgateway indexes a Service's backends by port: one the Service
		// does not expose is not found (the CRD requires the port)
		if ref.port != nil && !svc.HasPort(*ref.port) && svc.Spec.Type != "ExternalName" {
			return fmt.Sprintf("backend Service %s/%s has no port %d", ns, ref.name, *ref.port)
		}
	case isBackend:
		if _, ok := m.Object(model.Key{Group: Group, Kind: KindBackend, Namespace: ns, Name: ref.name}); !ok {
			return fmt.Sprintf("backend %s %s/%s not found", KindBackend, ns, ref.name)
		}
	default:
		// kgateway resolves a backendRef by its group and kind among
		// the backends it indexes (core Services, its Backends); any
		// other pair is an unknown backend kind.
		return fmt.Sprintf("backendRef to %s %s/%s: unknown backend kind (a core Service or a %s %s)", ref.gk, ns, ref.name, Group, KindBackend)
	}
	return ""
}

type backendRef struct {
	gk              model.GroupKind
	namespace, name string
	port            *int32
}

// serviceKind is a backendRef's default: a core Service.
var serviceKind = model.GroupKind{Kind: "Service"}

// backendRefs finds every backendRef-like object (backendRef,
// jwksBackendRef) in a provider's spec.
func backendRefs(v any) []backendRef {
	var out []backendRef
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if m, ok := c.(map[string]any); ok && (k == "backendRef" || k == "jwksBackendRef") {
				r := backendRef{gk: model.RefGroupKind(optString(m, "group"), optString(m, "kind"), serviceKind)}
				r.namespace, _ = m["namespace"].(string)
				r.name, _ = m["name"].(string)
				r.port = optPort(m)
				if r.name != "" {
					out = append(out, r)
				}
				continue
			}
			out = append(out, backendRefs(c)...)
		}
	case []any:
		for _, c := range t {
			out = append(out, backendRefs(c)...)
		}
	}
	slices.SortFunc(out, func(a, b backendRef) int { return strings.Compare(a.namespace+"/"+a.name, b.namespace+"/"+b.name) })
	return out
}

// optPort is a decoded backendRef's port, nil when it is unset or not a
// number.
func optPort(m map[string]any) *int32 {
	var n int32
	switch p := m["port"].(type) {
	case float64:
		n = int32(p)
	case int64:
		n = int32(p)
	case int:
		n = int32(p)
	default:
		return nil
	}
	return &n
}

// optString is a decoded object's string field, nil when it is unset.
func optString(m map[string]any, key string) *string {
	s, ok := m[key].(string)
	if !ok {
		return nil
	}
	return &s
}

func (v *validator) granted(kind, ns, name string) bool {
	if ns == v.p.Obj.Namespace {
		return true
	}
	group := ""
	if kind == KindGatewayExtension || kind == KindBackend {
		group = Group
	}
	return v.env.Model.GrantAllowsBy(grants(v.env.Config), Group, KindTrafficPolicy, v.p.Obj.Namespace, model.ObjectRefTo{Group: group, Kind: kind, Namespace: ns, Name: name})
}

// secret checks a Secret reference and returns the Secret, or nil when it
// is missing or out of reach (reported).
func (v *validator) secret(path, name string, nsRef *string) *model.Opaque {
	ns := v.ns(nsRef)
	sec := v.env.Model.Secret(ns, name)
	if sec == nil {
		v.invalid(path, "Secret %s/%s not found", ns, name)
		return nil
	}
	if !v.granted("Secret", ns, name) {
		v.invalid(path, "Secret %s/%s is in another namespace and no ReferenceGrant in %s allows TrafficPolicies from %s to read it", ns, name, ns, v.p.Obj.Namespace)
		return nil
	}
	return sec
}

// secretSelector: kgateway selects Secrets in every namespace and keeps
// those the policy may read (selectedSecrets); it fails when none is
// kept — for a missing ReferenceGrant when some match was in another
// namespace without one. It returns the kept Secrets.
func (v *validator) secretSelector(path string, match map[string]string) []*model.Opaque {
	kept, found := selectedSecrets(v.env, v.p.Obj.Namespace, match)
	switch {
	case found == 0:
		v.invalid(path, "no Secret matches %s", labels.SelectorFromSet(match).String())
		return nil
	case len(kept) == 0:
		v.invalid(path, "failed to get secrets by selector: every matching Secret is in another namespace without a ReferenceGrant (missing reference grant)")
		return nil
	}
	return kept
}

// selectedSecrets are the Secrets an apiKeyAuth secretSelector of a
// TrafficPolicy in policyNS takes, as kgateway's
// SecretIndex.GetSecretsBySelector takes them: every Secret whose labels
// match, in any namespace, but one in another namespace no ReferenceGrant
// lets TrafficPolicies of policyNS read, which is skipped (none is under
// referenceGrantMode Off); found counts the matches before that. The
// validator and render both read it.
func selectedSecrets(env *policy.Env, policyNS string, match map[string]string) (kept []*model.Opaque, found int) {
	m, rule := env.Model, grants(env.Config)
	if len(match) == 0 {
		return nil, 0
	}
	sel := labels.SelectorFromSet(match)
	for _, s := range m.Secrets {
		if !sel.Matches(labels.Set(s.Labels)) {
			continue
		}
		found++
		if s.Namespace == policyNS || m.GrantAllowsBy(rule, Group, KindTrafficPolicy, policyNS, model.ObjectRefTo{Kind: "Secret", Namespace: s.Namespace, Name: s.Name}) {
			kept = append(kept, s)
		}
	}
	return kept, found
}

// apiKey is one credential of an API key Secret: the entry's key is the
// client's name (a key name may be said), its value the API key.
type apiKey struct {
	client string
	from   *model.Opaque // the Secret the credential is read from
	key    secret.Value
}

// apiKeyCredentials are the credentials the selected Secrets hold, as
// kgateway's constructAPIKeyAuth and dedupeAPIKeyCredentials make them:
// every non-empty entry is a credential named by its key, all of them
// sorted by client, then key value, then Secret (namespace/name); the
// same key value twice is kept once — the same client's repeat dropped
// quietly, another client's reported in dups (Envoy refuses repeated
// keys, and which client to keep would be a guess). Values are compared
// through internal/secret and never said. read is false when some
// Secret's content is not in the input (assumeExist, or metadata only):
// then nothing is known of the values, and creds lists every key of
// every Secret, by client then Secret.
func apiKeyCredentials(secs []*model.Opaque) (creds []apiKey, dups []string, read bool) {
	read = !slices.ContainsFunc(secs, func(s *model.Opaque) bool { return s.Assumed || len(s.Keys) == 0 })
	var keys []apiKey
	for _, s := range secs {
		for _, k := range s.Keys {
			val, ok := s.Value(k)
			if read && (!ok || val.Len() == 0) {
				continue
			}
			keys = append(keys, apiKey{client: k, from: s, key: val})
		}
	}
	slices.SortStableFunc(keys, func(a, b apiKey) int {
		if c := strings.Compare(a.client, b.client); c != 0 {
			return c
		}
		if read {
			if c := secret.Compare(a.key, b.key); c != 0 {
				return c
			}
		}
		return strings.Compare(a.from.Namespace+"/"+a.from.Name, b.from.Namespace+"/"+b.from.Name)
	})
	if !read {
		return keys, nil, false
	}
	for _, k := range keys {
		i := slices.IndexFunc(creds, func(p apiKey) bool { return secret.Equal(p.key, k.key) })
		switch {
		case i < 0:
			creds = append(creds, k)
		case creds[i].client != k.client:
			dups = append(dups, fmt.Sprintf("duplicate API key value shared by client %q in secret %s/%s and client %q in secret %s/%s",
				creds[i].client, creds[i].from.Namespace, creds[i].from.Name, k.client, k.from.Namespace, k.from.Name))
		}
	}
	return creds, dups, true
}

// apiKeys checks the credentials the selected Secrets hold
// (apiKeyCredentials): there must be at least one, and no key value may
// belong to two clients. When a Secret's content is not in the input
// nothing is checked.
func (v *validator) apiKeys(path string, secs []*model.Opaque) {
	creds, dups, read := apiKeyCredentials(secs)
	if !read {
		return
	}
	if len(creds) == 0 {
		v.invalid(path, "no valid API keys found in secrets")
		return
	}
	if len(dups) > 0 {
		v.invalid(path, "errors processing API key secrets: %s", strings.Join(dups, "\n"))
	}
}

func (v *validator) headerSecrets(path string, f *HTTPHeaderFilter) {
	if f == nil {
		return
	}
	for _, list := range []struct {
		name string
		hs   []HTTPHeader
	}{{"set", f.Set}, {"add", f.Add}} {
		for i, h := range list.hs {
			if h.SecretRef == nil {
				continue
			}
			at := fmt.Sprintf("%s.%s[%d].secretRef", path, list.name, i)
			sec := v.secret(at, h.SecretRef.Name, h.SecretRef.Namespace)
			// kgateway's resolveHeader reads the entry named by key, else
			// by the header's name; with neither it injects every entry.
			key := ""
			switch {
			case h.SecretRef.Key != nil:
				key = *h.SecretRef.Key
			case h.Name != nil:
				key = *h.Name
			}
			// a Secret whose data is not in the input is not read
			if sec == nil || key == "" || sec.Assumed || len(sec.Keys) == 0 || sec.HasKey(key) {
				continue
			}
			header := "header value(s)"
			if h.Name != nil {
				header = fmt.Sprintf("header '%s'", *h.Name)
			}
			at = fmt.Sprintf("%s.%s[%d].secretRef.key", path, list.name, i)
			if h.SecretRef.Key == nil {
				at = fmt.Sprintf("%s.%s[%d].name", path, list.name, i)
			}
			v.invalid(at, "%s: failed to resolve %s: secret %s/%s does not contain key %q", strings.TrimPrefix(path, "spec.headerModifiers."), header, v.ns(h.SecretRef.Namespace), h.SecretRef.Name, key)
		}
	}
}

func (v *validator) duration(path string, s *string) {
	if s == nil {
		return
	}
	d, err := time.ParseDuration(*s)
	switch {
	case err != nil:
		v.invalid(path, "%q is not a duration (use forms like 100ms, 5s, 1m): %v", *s, strings.TrimPrefix(err.Error(), "time: "))
	case d < 0:
		// The CRD's pattern admits digits and units only, and Envoy
		// refuses a negative Duration: no mode lets one through.
		v.invalid(path, "%q is negative; the API server's CRD validation and Envoy both reject it", *s)
	}
}

func (v *validator) templates(path string, t *Transform) {
	if t == nil {
		return
	}
	if t.Body != nil && t.Body.Value != nil && !balancedTemplate(*t.Body.Value) {
		v.invalid(path+".body.value", "invalid xds configuration: template %q is malformed (unbalanced {{ }})", *t.Body.Value)
	}
	for _, list := range []struct {
		name string
		hs   []HeaderTransformation
	}{{"set", t.Set}, {"add", t.Add}} {
		for i, h := range list.hs {
			if !balancedTemplate(h.Value) {
				v.invalid(fmt.Sprintf("%s.%s[%d].value", path, list.name, i), "invalid xds configuration: template %q is malformed (unbalanced {{ }})", h.Value)
			}
		}
	}
}

// balancedTemplate reports whether every "{{" is closed by "}}" before the
// next one opens.
func balancedTemplate(s string) bool {
	for {
		open := strings.Index(s, "{{")
		close := strings.Index(s, "}}")
		switch {
		case open < 0:
			return close < 0
		case close < open:
			return false
		}
		rest := s[open+2:]
		end := strings.Index(rest, "}}")
		if end < 0 || strings.Contains(rest[:end], "{{") {
			return false
		}
		s = rest[end+2:]
	}
}

// basicAuth checks what kgateway's constructBasicAuth checks: a Secret
// reference must resolve and hold its key (".htpasswd" unless key says
// otherwise), and inline users must be htpasswd entries Envoy accepts.
// The users a Secret holds are its data, which gwpol never reads.
func (v *validator) basicAuth(b *BasicAuthPolicy) {
	if len(b.Users) > 0 {
		if msg := htpasswdProblem(b.Users); msg != "" {
			v.invalid("spec.basicAuth.users", "basic auth: %s", msg)
		}
		return
	}
	if b.SecretRef == nil {
		return
	}
	sec := v.secret("spec.basicAuth.secretRef", b.SecretRef.Name, b.SecretRef.Namespace)
	key := ".htpasswd"
	if b.SecretRef.Key != nil {
		key = *b.SecretRef.Key
	}
	if sec == nil {
		return
	}
	path, ns := "spec.basicAuth.secretRef", v.ns(b.SecretRef.Namespace)
	if b.SecretRef.Key != nil {
		path += ".key"
	}
	if !sec.HasKey(key) {
		v.invalid(path, "basic auth: secret %s/%s does not contain key '%s'", ns, b.SecretRef.Name, key)
		return
	}
	val, ok := sec.Value(key)
	if !ok || sec.Assumed {
		return // the content is not in the input
	}
	if val.Len() == 0 {
		v.invalid(path, "basic auth: secret %s/%s key '%s' is empty", ns, b.SecretRef.Name, key)
		return
	}
	// the users held in the Secret, checked as inline users are; a dropped
	// entry is named by its line (its user name is the Secret's content)
	switch valid, dropped := secret.HtpasswdUsers(val); {
	case len(dropped) > 0:
		lines := make([]string, len(dropped))
		for i, n := range dropped {
			lines[i] = fmt.Sprintf("line %d", n)
		}
		v.invalid(path, "basic auth: dropped %d user(s), invalid hash format (only {SHA} is supported), malformed entry, or a username listed twice with different hashes: %v (lines of key '%s' in secret %s/%s)", len(dropped), lines, key, ns, b.SecretRef.Name)
	case valid == 0:
		v.invalid(path, "basic auth: no valid users with {SHA} hash format found")
	}
}

// htpasswdProblem applies kgateway's validateAndFilterSHAUsers to inline
// users (htpasswdUsers); it returns "" when the users are fine.
func htpasswdProblem(users []string) string {
	_, problem := htpasswdUsers(users)
	return problem
}

// htpasswdUsers is kgateway's validateAndFilterSHAUsers on inline users
// (joined by newlines, then read line by line): Envoy's basic_auth filter
// accepts only "{SHA}" hashes (28 base64 characters), an entry needs a
// colon, and a name listed twice with different hashes is ambiguous. Any
// dropped entry makes the policy invalid, and so does a list with no
// usable entry: problem says why ("" when the users are fine; entries
// without a name are named by line). kept are the lines kgateway writes
// as the route's users: trimmed, blank lines and comments left out, a
// name repeated with the same hash once.
func htpasswdUsers(users []string) (kept []string, problem string) {
	var bad []string
	valid := map[string]string{}
	lines := strings.Split(strings.Join(users, "\n"), "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, hash, ok := strings.Cut(line, ":")
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("line %d", i+1))
		case !strings.HasPrefix(hash, "{SHA}") || len(hash) != 5+28:
			bad = append(bad, name)
		case valid[name] == hash:
			// the same entry twice: kept once
		case valid[name] != "":
			bad = append(bad, name)
		default:
			valid[name] = hash
			kept = append(kept, line)
		}
	}
	switch {
	case len(bad) > 0:
		return kept, fmt.Sprintf("dropped %d user(s), invalid hash format (only {SHA} is supported), malformed entry, or a username listed twice with different hashes: %v", len(bad), bad)
	case len(valid) == 0:
		return kept, "no valid users with {SHA} hash format found"
	}
	return kept, ""
}

// rbacExpressions compiles each RBAC CEL expression as kgateway's
// translateRBAC does (parsed and checked with request, source,
// destination, connection and metadata as dynamic variables); the first
// that does not compile makes the policy invalid.
func (v *validator) rbacExpressions(exprs []string) {
	for i, e := range exprs {
		if _, err := parseCEL(e); err != nil {
			v.invalid(fmt.Sprintf("spec.rbac.policy.matchExpressions[%d]", i), "RBAC policy encountered CEL matcher errors: [failed to validate CEL expression: %v]", err)
			return
		}
	}
}

// aclCIDRs is kgateway's validateACLCIDRs: an entry with a prefix length
// must be a network address (no host bits set); a bare IP is taken as is.
// kgateway names every bad entry in one error; gwpol reports it at the
// first.
func (v *validator) aclCIDRs(a *ACLPolicy) {
	var bad []string
	first := ""
	for i, r := range a.Rules {
		for j, c := range r.CIDRs {
			if !strings.Contains(c, "/") {
				continue
			}
			ip, network, err := net.ParseCIDR(c)
			switch {
			case err != nil:
				bad = append(bad, fmt.Sprintf("%q (%v)", c, err))
			case !ip.Equal(network.IP):
				bad = append(bad, fmt.Sprintf("%q (host bits set; did you mean %q?)", c, network.String()))
			default:
				continue
			}
			if first == "" {
				first = fmt.Sprintf("spec.acl.rules[%d].cidrs[%d]", i, j)
			}
		}
	}
	if len(bad) > 0 {
		v.invalid(first, "acl: invalid CIDR(s): %s", strings.Join(bad, ", "))
	}
}
