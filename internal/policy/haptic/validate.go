package haptic

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret"
	yaml "go.yaml.in/yaml/v3"
)

// Algorithms accepted for authentication.jwt.algorithm.
var jwtAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}

// maxPeriod bounds rateLimit.period; longer periods are not useful and
// would overflow in the bound check's units.
const maxPeriod = 365 * 24 * time.Hour

// validator applies defaults and checks one policy. Bounds and shapes are
// GWP401; the Secrets and catalog it depends on are GWP402. Every finding
// names the field.
type validator struct {
	p    *policy.Policy
	env  *policy.Env
	spec *Spec
	ns   string

	catalogs *catalogCache
	budget   *wafBudget
	settings Settings
}

// written reports whether the policy has path with a value. HAPTIC reads
// the spec through dig, to which a null is no value (and the API server
// prunes a null its schema does not allow), so `catalogRef: null` or
// `secretRef: null` is read as absent, never as an empty reference.
func written(o *manifest.Object, path string) bool {
	n := o.Lookup(path)
	return n != nil && (n.Kind != yaml.ScalarNode || n.ShortTag() != "!!null")
}

func (v *validator) invalid(path, format string, args ...any) {
	v.p.Invalid = append(v.p.Invalid, fieldDiag(v.p, policy.LintPolicyInvalid.Code, path, format, args...))
}

// warn is a finding about a field HAPTIC accepts but that does not do
// what it seems to; the policy stays valid.
func (v *validator) warn(path, format string, args ...any) {
	d := fieldDiag(v.p, policy.LintPolicyInvalid.Code, path, format, args...)
	d.Severity = diag.Warning
	v.p.Findings = append(v.p.Findings, d)
}

func (v *validator) dependency(path, format string, args ...any) {
	v.p.Invalid = append(v.p.Invalid, fieldDiag(v.p, LintPolicyDependency.Code, path, format, args...))
}

// fieldDiag is an error about a field of the policy, positioned at the
// field's key (for a map or list value, FieldPos would be the line after).
func fieldDiag(p *policy.Policy, code, path, format string, args ...any) diag.Diagnostic {
	d := p.Diag(code, diag.Error, path, format, args...)
	d.Pos = p.Obj.KeyPos(path)
	return d
}

func (v *validator) validate() {
	for _, f := range attachmentFields {
		if written(v.p.Obj, "spec."+f) {
			v.invalid("spec."+f, "%s does not support spec.%s: it attaches only through a rule filter of type ExtensionRef (group %s, kind %s) in the route's namespace; remove spec.%s and reference the policy from the rule",
				KindName, f, Group, KindName, f)
		}
	}
	s := v.spec
	// HAPTIC counts a policy as authenticating only when jwt or apiKey is
	// set (GatewayPolicyRecord: authenticated); an empty authentication
	// enforces nothing and is not an error on its own.
	authenticated := s.Authentication != nil && (s.Authentication.JWT != nil || s.Authentication.APIKey != nil)
	if !authenticated && s.RateLimit == nil && s.WAF == nil && s.Cache == nil {
		v.invalid("spec", "%s enforces nothing: it sets none of authentication (jwt or apiKey), rateLimit, waf and cache; set at least one", KindName)
	}
	if a := s.Authentication; a != nil && !authenticated && (s.RateLimit != nil || s.WAF != nil || s.Cache != nil) {
		v.warn("spec.authentication", "authentication sets neither jwt nor apiKey, so HAPTIC authenticates no request on the rules using this policy (its other settings apply); set jwt or apiKey, or remove authentication")
	}
	if a := s.Authentication; a != nil {
		// GatewayPolicyRecord checks both credential references (jwt,
		// then apiKey) before PolicyAuthentication reads either: a
		// reference the policy may not use is the rule's error
		// (RefNotPermitted) whatever else is wrong with the
		// authentication, so it comes first in p.Invalid.
		jwtRef, keyRef := false, false
		if a.JWT != nil {
			jwtRef = v.credential(jwtBase+".secretRef", a.JWT.SecretRef)
		}
		if a.APIKey != nil {
			keyRef = v.credential(apiKeyBase+".secretRef", a.APIKey.SecretRef)
		}
		if a.JWT != nil {
			v.jwt(a.JWT, jwtRef)
		}
		if a.APIKey != nil {
			v.apiKey(a.APIKey, keyRef)
		}
	}
	if s.RateLimit != nil {
		v.rateLimit(s.RateLimit)
	}
	if s.WAF != nil {
		v.waf(s.WAF)
	}
	if s.Cache != nil {
		v.cache(s.Cache)
	}
	// A per-consumer rate limit and a cache behind authentication need a
	// consumer; HAPTIC denies a request without one 401
	// (frontend-filters-862-gateway-policy-consumer, for GatewayPolicyRecord's
	// requireConsumer). An API key always names one (a bare key is its own
	// consumer); a token names one only with a sub claim.
	if a := s.Authentication; authenticated && a.APIKey == nil && a.JWT != nil &&
		((s.RateLimit != nil && s.RateLimit.Key == "consumer") || s.Cache != nil) {
		a.JWT.requireSubject = true
	}
}

const (
	jwtBase    = "spec.authentication.jwt"
	apiKeyBase = "spec.authentication.apiKey"
)

// jwt checks the JWT settings; usable: its secretRef passed credential,
// so the Secret's content is checked.
func (v *validator) jwt(j *JWT, usable bool) {
	const base = jwtBase
	if j.Algorithm == "" {
		j.Algorithm = DefaultAlgorithm
	} else if !slices.Contains(jwtAlgorithms, j.Algorithm) {
		v.invalid(base+".algorithm", "algorithm %q is not supported; use one of %s (default %s)", j.Algorithm, strings.Join(jwtAlgorithms, ", "), DefaultAlgorithm)
	}
	for i, c := range j.RequiredClaims {
		if strings.TrimSpace(c) == "" {
			v.invalid(fmt.Sprintf("%s.requiredClaims[%d]", base, i), "requiredClaims[%d] is empty; name a claim", i)
		}
	}
	// HAPTIC's policy reference (route-policy.md@04be9778, "JWT"):
	// forwarded headers are distinct and overwrite neither Authorization
	// (the token) nor the API-key credential header.
	keyHeader := ""
	if a := v.spec.Authentication; a != nil && a.APIKey != nil {
		keyHeader = cmp.Or(a.APIKey.Header, DefaultAPIKeyHeader)
	}
	firstAt := map[string]int{}
	for i, f := range j.ForwardClaims {
		p := fmt.Sprintf("%s.forwardClaims[%d]", base, i)
		if strings.TrimSpace(f.Claim) == "" {
			v.invalid(p+".claim", "forwardClaims[%d].claim is empty; name the claim to forward", i)
		}
		if !v.headerName(p+".header", "forwardClaims header", f.Header) {
			continue
		}
		h := strings.ToLower(f.Header)
		switch prev, dup := firstAt[h]; {
		case h == "authorization":
			v.invalid(p+".header", "forwardClaims header %s would overwrite the bearer token's Authorization header; forward the claim in another header", f.Header)
		case keyHeader != "" && h == strings.ToLower(keyHeader):
			v.invalid(p+".header", "forwardClaims header %s would overwrite the API key's credential header (apiKey.header %s); forward the claim in another header", f.Header, keyHeader)
		case dup:
			v.invalid(p+".header", "forwardClaims header %s is already forwardClaims[%d]'s; each forwarded claim needs its own header", f.Header, prev)
		default:
			firstAt[h] = i
		}
	}
	j.secretNamespace = v.ns
	if v.noSecretRef(base + ".secretRef") {
		return
	}
	if usable {
		if sec := v.secret(base+".secretRef", j.SecretRef, JWTSecretKey); sec != nil && slices.Contains(jwtAlgorithms, j.Algorithm) {
			v.publicKey(base+".secretRef", sec, j.Algorithm)
		}
	}
}

// apiKey checks the API key settings; usable as for jwt.
func (v *validator) apiKey(a *APIKey, usable bool) {
	const base = apiKeyBase
	if a.Header == "" {
		a.Header = DefaultAPIKeyHeader
	} else {
		v.headerName(base+".header", "header", a.Header)
	}
	if a.ConsumerHeader != "" {
		v.headerName(base+".consumerHeader", "consumerHeader", a.ConsumerHeader)
	}
	a.forwardHeader = a.ConsumerHeader
	if j := v.spec.Authentication.JWT; j != nil && a.ConsumerHeader != "" {
		// The consumer header carries HAPTIC's one consumer identity: the
		// token's sub, else the key's consumer (route-policy.md: "JWT sub
		// supplies the consumer identity for forwarded headers"). The
		// token writes sub into it (replacing the caller's value); the
		// key's consumer goes to an internal header and fills the
		// consumer header only where sub left it absent.
		j.consumerHeader = strings.ToLower(a.ConsumerHeader)
		a.forwardHeader = internalConsumerHeader
		a.identityHeader = a.ConsumerHeader
	}
	a.secretNamespace = v.ns
	if v.noSecretRef(base + ".secretRef") {
		return
	}
	if usable {
		if sec := v.secret(base+".secretRef", a.SecretRef, APIKeySecretKey); sec != nil {
			v.keyLines(base+".secretRef", sec)
		}
	}
}

// credential is GatewayPolicyRecord's check of a credential secretRef: a
// reference without a name or to another namespace, or to a Secret that
// is mutable, is one the policy may not use (RefNotPermitted). It reports
// whether the Secret's content is to be checked; an absent secretRef is
// left to the authentication's own check (noSecretRef).
func (v *validator) credential(path string, ref SecretRef) bool {
	if !written(v.p.Obj, path) || !v.secretRef(path, ref) {
		return false
	}
	if m := v.model(); m != nil {
		if sec := m.Secret(v.ns, ref.Name); sec != nil && !sec.Immutable {
			v.dependency(path+".name", "credential Secret %s/%s is mutable; set immutable: true (and publish a new Secret name to rotate) — the rule fails closed until then", v.ns, ref.Name)
			return false
		}
	}
	return true
}

// noSecretRef reports a credential without a secretRef (GWP401 at its
// name), which HAPTIC's authentication cannot read.
func (v *validator) noSecretRef(path string) bool {
	if written(v.p.Obj, path) {
		return false
	}
	v.secretRef(path, SecretRef{})
	return true
}

func (v *validator) rateLimit(r *RateLimit) {
	const base = "spec.rateLimit"
	switch {
	case !v.settings.SharedRateLimit:
		v.dependency(base, "HAPTIC's shared rate limit is disabled in this deployment (config haptic.rateLimit.shared.enabled: false), so the budget cannot be enforced; the rule fails closed — enable it or drop rateLimit")
	case v.settings.HubOff:
		v.dependency(base, "HAPTIC's SPOA hub is switched off in this deployment (config haptic.spoaHub.enabled: false), so no shared rate limit can be checked; the rule fails closed — turn the hub on or drop rateLimit")
	case !v.settings.RateLimitMessage:
		v.dependency(base, "HAPTIC's SPOA hub does not send the %s message in this deployment (config haptic.spoaHub.haproxy.messages lacks it), so the shared budget cannot be checked; the rule fails closed (\"Shared rate limiting is unavailable\") — add %s to the messages or drop rateLimit", rateLimitMessage, rateLimitMessage)
	}
	ok := true
	if r.Requests < 1 || r.Requests > math.MaxUint32 {
		v.invalid(base+".requests", "requests must be between 1 and %d, not %d", uint32(math.MaxUint32), r.Requests)
		ok = false
	}
	if r.Period == "" {
		r.Period = DefaultPeriod
	}
	d, err := parsePeriod(r.Period)
	if err != nil {
		v.invalid(base+".period", "period %q: %v", r.Period, err)
		ok = false
	}
	r.periodNanos = int64(d)
	if r.Burst == nil {
		b := r.Requests
		r.Burst = &b
	} else if *r.Burst < 1 || *r.Burst > math.MaxUint32 {
		v.invalid(base+".burst", "burst must be between 1 and %d, not %d", uint32(math.MaxUint32), *r.Burst)
		ok = false
	}
	switch r.Algorithm {
	case "":
		r.Algorithm = DefaultRateAlgorithm
	case "token-bucket", "gcra":
	default:
		v.invalid(base+".algorithm", "algorithm %q is not supported; use token-bucket (default) or gcra", r.Algorithm)
	}
	switch r.Key {
	case "":
		r.Key = DefaultRateKey
	case "ip":
	case "consumer":
		v.consumerSource(r)
	default:
		v.invalid(base+".key", "key %q is not supported; use ip (default) or consumer", r.Key)
	}
	if ok {
		// burst×period÷requests is how long an empty bucket takes to fill.
		refill := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(*r.Burst), big.NewInt(r.periodNanos)), big.NewInt(r.Requests))
		if refill.Cmp(new(big.Rat).SetInt64(MaxRefillSeconds*int64(time.Second))) > 0 {
			secs := new(big.Rat).Quo(refill, new(big.Rat).SetInt64(int64(time.Second)))
			v.invalid(base, "burst×period÷requests is %ss (burst %d, period %s, requests %d), more than %ds: the bucket would take over an hour to refill; raise requests or lower burst or period",
				strings.TrimSuffix(strings.TrimRight(secs.FloatString(3), "0"), "."), *r.Burst, r.Period, r.Requests, MaxRefillSeconds)
		}
	}
}

// consumerSource decides where a per-consumer rate limit reads the
// consumer, as HAPTIC sets its one consumer identity (txn.haptic_consumer,
// set once): the token's sub, which the JWT check sets first
// (frontend-filters-858), else the API key's consumer (860) — so with
// both, sub when the token has one and the key's consumer when it has
// not.
func (v *validator) consumerSource(r *RateLimit) {
	a := v.spec.Authentication
	switch {
	case a != nil && a.APIKey != nil && a.JWT != nil:
		if a.APIKey.ConsumerHeader == "" {
			a.APIKey.forwardHeader = internalConsumerHeader
			a.JWT.consumerHeader = internalSubjectHeader
		}
		// else apiKey set both: sub into the consumer header, the key's
		// consumer into the internal one.
		r.consumerHeader = a.JWT.consumerHeader
		r.fallbackHeader = strings.ToLower(a.APIKey.forwardHeader)
	case a != nil && a.APIKey != nil:
		if a.APIKey.ConsumerHeader == "" {
			a.APIKey.forwardHeader = internalConsumerHeader
		}
		r.consumerHeader = strings.ToLower(a.APIKey.forwardHeader)
	case a != nil && a.JWT != nil:
		a.JWT.consumerHeader = internalConsumerHeader
		r.consumerHeader = internalConsumerHeader
	default:
		v.invalid("spec.rateLimit.key", "key consumer needs authentication (apiKey names the consumer of each key, jwt its subject); add authentication or use key ip")
	}
}

var periodRE = regexp.MustCompile(`^([0-9]+)(ms|s|m|h|d)$`)

// parsePeriod reads a whole number with a unit: ms, s, m, h or d.
func parsePeriod(s string) (time.Duration, error) {
	m := periodRE.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("want a whole number with a unit ms, s, m, h or d, e.g. 1s or 500ms")
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("must be greater than zero")
	}
	unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}[m[2]]
	if n > int64(maxPeriod/unit) {
		return 0, fmt.Errorf("longer than 365d")
	}
	return time.Duration(n) * unit, nil
}

func (v *validator) cache(c *Cache) {
	const base = "spec.cache"
	// HAPTIC's policy reference (route-policy.md@04be9778, "HTTP response
	// cache"): a non-negative lifetime, optional (the origin's
	// Cache-Control decides without it).
	if t := c.TTLSeconds; t != nil && *t < 0 {
		v.invalid(base+".ttlSeconds", "ttlSeconds must not be negative, not %d; leave it unset to follow the origin's Cache-Control", *t)
	}
	if m := c.MaxObjectSizeBytes; m != nil && (*m < 1 || *m > math.MaxUint32) {
		v.invalid(base+".maxObjectSizeBytes", "maxObjectSizeBytes must be between 1 and %d, not %d", uint32(math.MaxUint32), *m)
	}
	for i, h := range c.VaryHeaders {
		p := fmt.Sprintf("%s.varyHeaders[%d]", base, i)
		if !v.headerName(p, "varyHeaders entry", h) {
			continue
		}
		if strings.HasPrefix(strings.ToLower(h), reservedHeaderPrefix) {
			v.invalid(p, "varyHeaders may not name %s: X-Haptic-* headers are HAPTIC's own and never vary per client", h)
		}
	}
}

// headerName checks an HTTP header name (an RFC 9110 token).
func (v *validator) headerName(path, what, h string) bool {
	if h == "" {
		v.invalid(path, "%s is empty; name an HTTP header", what)
		return false
	}
	for _, c := range []byte(h) {
		if !isTokenChar(c) {
			v.invalid(path, "%s %q is not a valid HTTP header name", what, h)
			return false
		}
	}
	return true
}

func isTokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// secretRef checks the shape of a Secret reference; false when it cannot
// be looked up.
func (v *validator) secretRef(path string, ref SecretRef) bool {
	if strings.TrimSpace(ref.Name) == "" && written(v.p.Obj, path) {
		// GatewayPolicyRecord refuses a secretRef without a name as it
		// refuses one in another namespace: a reference the policy may
		// not use (RefNotPermitted), not a bad value.
		v.dependency(path+".name", "%s.name is empty: HAPTIC needs a credential Secret name in the policy's namespace %s (RefNotPermitted); the rule fails closed until it has one", path[strings.LastIndexByte(path, '.')+1:], v.ns)
		return false
	}
	return v.refShape(path, "credential Secret", ref)
}

func (v *validator) refShape(path, what string, ref SecretRef) bool {
	if strings.TrimSpace(ref.Name) == "" {
		v.invalid(path+".name", "%s.name is empty; name the %s (in namespace %s)", path[strings.LastIndexByte(path, '.')+1:], what, v.ns)
		return false
	}
	if ref.Namespace != "" && ref.Namespace != v.ns {
		v.dependency(path+".namespace", "the %s must be in the policy's namespace %s, not %s; copy it there and drop the namespace", what, v.ns, ref.Namespace)
		return false
	}
	return true
}

func (v *validator) model() *model.Model {
	if v.env == nil {
		return nil
	}
	return v.env.Model
}

// secret checks that the Secret exists and has the key the credential is
// read from (credential has refused a mutable one). It reads names only,
// never values.
func (v *validator) secret(path string, ref SecretRef, key string) *model.Opaque {
	var sec *model.Opaque
	if m := v.model(); m != nil {
		sec = m.Secret(v.ns, ref.Name)
	}
	switch {
	case sec == nil:
		v.dependency(path+".name", "credential Secret %s/%s not found; create it (immutable: true, with key %s) or fix the name — the rule fails closed until then", v.ns, ref.Name, key)
		return nil
	case !sec.HasKey(key):
		v.dependency(path+".name", "credential Secret %s/%s has no key %s; the rule fails closed until it does", v.ns, ref.Name, key)
		return nil
	}
	return sec
}

// keyLines checks an API key Secret's keys entry in HAPTIC's format: one
// key per line, a bare key or key:consumer (secret.CheckKeyLines). Values
// stay in memory; findings name line numbers only.
func (v *validator) keyLines(path string, sec *model.Opaque) {
	val, found := sec.Value(APIKeySecretKey)
	if !found {
		// Listed in the Secret's keys but not a value (a ConfigMap's
		// binaryData): nothing gwpol can read.
		return
	}
	if err := secret.CheckKeyLines(val); err != nil {
		v.dependency(path+".name", "Secret %s/%s key %s: %v; the rule fails closed until it is fixed", v.ns, sec.Name, APIKeySecretKey, err)
	}
}

// publicKey checks that a JWT Secret's pubkey.pem is a public key (PEM or
// JWKS) that fits the algorithm; HAPTIC does not accept the policy
// otherwise. The key is never quoted.
func (v *validator) publicKey(path string, sec *model.Opaque, alg string) {
	val, found := sec.Value(JWTSecretKey)
	if !found {
		return
	}
	if problem := jwtKey(val, alg); problem != "" {
		v.dependency(path+".name", "Secret %s/%s key %s is not a usable JWT verification key: %s; the rule fails closed until it is", v.ns, sec.Name, JWTSecretKey, problem)
	}
}
