package envoygateway

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
)

// This file reads BackendTrafficPolicy's spec.rateLimit into the rules
// Envoy Gateway builds from it, with the errors its translator reports
// (in its order: the local rate limit, then the global one; per rule
// its client selectors). The checks (valueChecks.rateLimit) and the
// rendering (render_ratelimit.go) share it.

// rlMatch is one string match of a rule (Envoy Gateway's StringMatch):
// exactly one of exact, prefix and regex, or distinct (every value its
// own counter).
type rlMatch struct {
	name                 string
	exact, prefix, regex *string
	distinct, invert     bool
}

// rlCIDR is a rule's source CIDR: the network as Envoy Gateway writes it
// (masked), its address and length.
type rlCIDR struct {
	cidr, addr       string
	bits             uint32
	distinct, invert bool
}

// rlRule is one rate-limit rule as Envoy Gateway builds it.
type rlRule struct {
	// name is <policy namespace>/<policy name>/rule/<index in the list>.
	name     string
	headers  []rlMatch
	methods  []rlMatch
	path     *rlMatch
	cidr     *rlCIDR
	queries  []rlMatch
	requests uint32
	unit     string
	// fromMetadata: the limit is read per request from dynamic metadata.
	fromMetadata      *egv1a1.RateLimitValueMetadata
	requestCost       *egv1a1.RateLimitCostSpecifier
	responseCost      *egv1a1.RateLimitCostSpecifier
	shared, shadow    bool
	xRateLimitHeaders *egv1a1.XRateLimitHeadersOption
}

// matchSet reports whether the rule selects some requests (else it
// applies to all traffic).
func (r *rlRule) matchSet() bool {
	return len(r.headers) > 0 || len(r.methods) > 0 || r.path != nil || r.cidr != nil || len(r.queries) > 0
}

// rlLocal is a local rate limit: the default bucket (the rule without
// client selectors; unlimited without one) and the other rules.
type rlLocal struct {
	requests uint32
	unit     string
	xrl      *egv1a1.XRateLimitHeadersOption // the default rule's xRateLimitHeaders
	rules    []rlRule
}

// rlSet is what one policy's spec.rateLimit builds.
type rlSet struct {
	local  *rlLocal
	global []rlRule // nil when the policy has no global rate limit
	hasGl  bool
}

// unitSeconds are the rate-limit units (Envoy Gateway's UnitToSeconds).
var unitSeconds = map[string]int64{"Second": 1, "Minute": 60, "Hour": 3600, "Day": 86400, "Week": 604800, "Month": 2592000, "Year": 31536000}

// rlError is an error of the rate limit with where in spec.rateLimit it
// lies (local, global.rules[1]…), for the diagnostic's position.
type rlError struct {
	path string
	err  error
}

func (e *rlError) Error() string { return e.err.Error() }
func (e *rlError) Unwrap() error { return e.err }

func at(path string, err error) error {
	if err == nil {
		return nil
	}
	return &rlError{path: path, err: err}
}

// errGlobalDisabled is Envoy Gateway's refusal of a global rate limit
// when it runs without a rate limit service.
var errGlobalDisabled = errors.New("enable Ratelimit in the EnvoyGateway config to configure global rateLimit")

// buildRateLimit builds a policy's rate limits from spec.rateLimit as
// Envoy Gateway's API type holds it (decoded once, in Decode), as Envoy
// Gateway does, or its first error. globalEnabled: a rate limit service
// is deployed.
func buildRateLimit(spec *egv1a1.RateLimitSpec, ns, name string, globalEnabled bool) (rlSet, error) {
	var out rlSet
	if spec == nil {
		return out, nil
	}
	local := func() error {
		if spec.Local == nil {
			return at("local", errors.New("local configuration empty for rateLimit"))
		}
		l, err := buildLocal(spec.Local, ns, name)
		out.local = l
		return err
	}
	global := func() error {
		if spec.Global == nil {
			return at("global", errors.New("global configuration empty for rateLimit"))
		}
		if !globalEnabled {
			return at("global", errGlobalDisabled)
		}
		out.hasGl = true
		out.global = []rlRule{}
		for i := range spec.Global.Rules {
			if err := knownUnit(string(spec.Global.Rules[i].Limit.Unit)); err != nil {
				return at(fmt.Sprintf("global.rules[%d].limit.unit", i), err)
			}
			r, err := buildRule(&spec.Global.Rules[i], ns, name, i)
			if err != nil {
				return at(fmt.Sprintf("global.rules[%d]", i), err)
			}
			out.global = append(out.global, r)
		}
		return nil
	}
	//lint:ignore SA1019 Envoy Gateway still reads the deprecated type (users set it), so gwpol reads it too.
	if t := spec.Type; t != nil {
		switch *t {
		case egv1a1.GlobalRateLimitType:
			return out, global()
		case egv1a1.LocalRateLimitType:
			return out, local()
		}
		return out, at("type", fmt.Errorf("invalid rateLimit type: %s", *t))
	}
	if spec.Local != nil {
		if err := local(); err != nil {
			return out, err
		}
	}
	if spec.Global != nil {
		if err := global(); err != nil {
			return out, err
		}
	}
	return out, nil
}

// knownUnit refuses a limit unit Envoy Gateway's CRD does not admit (the
// API server would refuse the policy); an empty one is left to the
// checks that need it.
func knownUnit(u string) error {
	if _, ok := unitSeconds[u]; ok || u == "" {
		return nil
	}
	units := slices.SortedFunc(maps.Keys(unitSeconds), func(a, b string) int { return cmp.Compare(unitSeconds[a], unitSeconds[b]) })
	return fmt.Errorf("unknown rate limit unit %q: use one of %s", u, strings.Join(units, ", "))
}

// buildLocal is Envoy Gateway's local rate limit: at most one rule
// without client selectors, the default bucket, whose unit every rule's
// must be a multiple of (Envoy's local rate limit needs it).
func buildLocal(l *egv1a1.LocalRateLimit, ns, name string) (*rlLocal, error) {
	out := &rlLocal{requests: 1<<32 - 1, unit: "Second"}
	defaults := 0
	for _, r := range l.Rules {
		if len(r.ClientSelectors) == 0 {
			if defaults++; defaults > 1 {
				return nil, at("local.rules", errors.New("local rateLimit can not have more than one rule without clientSelectors"))
			}
			out.requests, out.unit, out.xrl = r.Limit.Requests, string(r.Limit.Unit), r.XRateLimitHeaders
		}
	}
	for i, r := range l.Rules {
		if err := knownUnit(string(r.Limit.Unit)); err != nil {
			return nil, at(fmt.Sprintf("local.rules[%d].limit.unit", i), err)
		}
	}
	unit := unitSeconds[out.unit]
	for i, r := range l.Rules {
		if unit == 0 || unitSeconds[string(r.Limit.Unit)]%unit != 0 {
			return nil, at(fmt.Sprintf("local.rules[%d].limit.unit", i), errors.New("local rateLimit rule limit unit must be a multiple of the default limit unit"))
		}
	}
	for i := range l.Rules {
		if len(l.Rules[i].ClientSelectors) == 0 {
			continue
		}
		r, err := buildRule(&l.Rules[i], ns, name, i)
		if err != nil {
			return nil, at(fmt.Sprintf("local.rules[%d]", i), err)
		}
		out.rules = append(out.rules, r)
	}
	return out, nil
}

// buildRule is one rule: its client selectors' matches (headers,
// methods and query parameters add up across selectors; the last path
// and source CIDR count), limit, costs and options.
func buildRule(r *egv1a1.RateLimitRule, ns, name string, i int) (rlRule, error) {
	out := rlRule{name: ns + "/" + name + "/rule/" + strconv.Itoa(i), requests: r.Limit.Requests, unit: string(r.Limit.Unit),
		fromMetadata: r.Limit.FromMetadata, shared: r.Shared != nil && *r.Shared, shadow: r.ShadowMode != nil && *r.ShadowMode,
		xRateLimitHeaders: r.XRateLimitHeaders}
	if r.Cost != nil {
		out.requestCost, out.responseCost = r.Cost.Request, r.Cost.Response
	}
	for _, sel := range r.ClientSelectors {
		if len(sel.Headers) == 0 && len(sel.Methods) == 0 && sel.Path == nil && sel.SourceCIDR == nil && len(sel.QueryParams) == 0 {
			return out, errors.New("unable to translate rateLimit. At least one of the header or method or path or sourceCIDR or queryParameters must be specified")
		}
		for _, h := range sel.Headers {
			m, err := headerMatch(h)
			if err != nil {
				return out, err
			}
			out.headers = append(out.headers, m)
		}
		for _, m := range sel.Methods {
			out.methods = append(out.methods, rlMatch{exact: ptr(string(m.Value)), invert: isTrue(m.Invert)})
		}
		if p := sel.Path; p != nil {
			m := rlMatch{invert: isTrue(p.Invert)}
			// The CRD defaults type to PathPrefix (the model holds it); unset
			// is Envoy Gateway's own reading too (buildRateLimitRule:
			// ptr.Deref(match.Path.Type, PathPrefix)), kept for a CRD given
			// without that default.
			switch deref(p.Type) {
			case "", "PathPrefix":
				if p.Value == "/" {
					m.prefix = ptr(p.Value)
				} else {
					m.regex = ptr(pathSeparatedPrefixRegex(p.Value))
				}
			case "Exact":
				m.exact = ptr(p.Value)
			case "RegularExpression":
				if err := validRegex(p.Value); err != nil {
					return out, err
				}
				m.regex = ptr(p.Value)
			default:
				return out, errors.New("unable to translate rateLimit: invalid path type")
			}
			out.path = &m
		}
		if c := sel.SourceCIDR; c != nil {
			_, ipn, err := net.ParseCIDR(c.Value)
			if err != nil {
				return out, fmt.Errorf("unable to translate rateLimit: %w", err)
			}
			bits, _ := ipn.Mask.Size()
			out.cidr = &rlCIDR{cidr: ipn.String(), addr: ipn.IP.String(), bits: uint32(bits), distinct: deref(c.Type) == "Distinct", invert: isTrue(c.Invert)}
		}
		for _, q := range sel.QueryParams {
			m, err := queryMatch(q)
			if err != nil {
				return out, err
			}
			out.queries = append(out.queries, m)
		}
	}
	return out, nil
}

// headerMatch is a header selector: Exact (the default), RegularExpression
// or Distinct (no value, not inverted).
func headerMatch(h egv1a1.HeaderMatch) (rlMatch, error) {
	m := rlMatch{name: h.Name, invert: isTrue(h.Invert)}
	switch t := deref(h.Type); {
	case (t == "" || t == "Exact") && h.Value != nil:
		m.exact = h.Value
	case t == "RegularExpression" && h.Value != nil:
		if err := validRegex(*h.Value); err != nil {
			return m, err
		}
		m.regex = h.Value
	case t == "Distinct" && h.Value == nil:
		if m.invert {
			return m, errors.New("unable to translate rateLimit.Invert is not applicable for distinct header match type")
		}
		m.distinct, m.invert = true, false
	default:
		return m, errors.New("unable to translate rateLimit. Either the header.Type is not valid or the header is missing a value")
	}
	return m, nil
}

// queryMatch is a query parameter selector: Exact (the default),
// RegularExpression or Distinct.
func queryMatch(q egv1a1.QueryParamMatch) (rlMatch, error) {
	m := rlMatch{name: q.Name, invert: isTrue(q.Invert)}
	if q.Name == "" {
		return m, errors.New("name is required when QueryParamMatch is specified")
	}
	switch t := deref(q.Type); t {
	case "", "Exact":
		if q.Value == nil || *q.Value == "" {
			return m, errors.New("value is required for Exact query parameter match")
		}
		m.exact = q.Value
	case "RegularExpression":
		if q.Value == nil || *q.Value == "" {
			return m, errors.New("value is required for RegularExpression query parameter match")
		}
		if err := validRegex(*q.Value); err != nil {
			return m, err
		}
		m.regex = q.Value
	case "Distinct":
		if m.invert {
			return m, errors.New("unable to translate rateLimit.Invert is not applicable for distinct query parameter match type")
		}
		if q.Value != nil {
			return m, errors.New("unable to translate rateLimit.Value is not applicable for distinct query parameter match type")
		}
		m.distinct = true
	default:
		return m, fmt.Errorf("invalid query parameter match type: %s", t)
	}
	return m, nil
}

// validRegex is Envoy Gateway's regex check (Go's RE2 syntax).
func validRegex(re string) error {
	if _, err := regexp.Compile(re); err != nil {
		return fmt.Errorf("regex %q is invalid: %w", re, err)
	}
	return nil
}

// pathSeparatedPrefixRegex matches a path prefix by whole segments, as
// Envoy's path_separated_prefix does (a rate-limit header match has no
// such matcher): the prefix itself, or followed by /, ?, # or ;.
func pathSeparatedPrefixRegex(prefix string) string {
	return "^" + regexp.QuoteMeta(strings.TrimSuffix(prefix, "/")) + `(/.*|\?.*|#.*|;.*|$)`
}

func ptr[T any](v T) *T { return &v }

func isTrue(b *bool) bool { return b != nil && *b }

// rateLimit checks what Envoy Gateway rejects in spec.rateLimit (see
// buildRateLimit); a global rate limit needs a rate limit service
// (config envoyGateway.rateLimit.enabled). A value in it that did not fit
// its type is Decode's finding, at that value: the rest, partly decoded,
// is not judged as if the value were unset.
func (v valueChecks) rateLimit(rl *egv1a1.RateLimitSpec, globalEnabled bool) {
	if decoded(v.p).misfit["spec.rateLimit"] {
		return
	}
	if _, err := buildRateLimit(rl, v.p.Obj.Namespace, v.p.Obj.Name, globalEnabled); err != nil {
		path := []string{"rateLimit"}
		var re *rlError
		if errors.As(err, &re) {
			path = append(path, re.path)
		}
		v.invalid(path, "RateLimit: %s.", strings.TrimSuffix(err.Error(), "."))
	}
}
