package envoygateway

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// This file reads BackendTrafficPolicy's spec.rateLimit into the rules
// Envoy Gateway builds from it, with the errors its translator reports
// (in its order: the local rate limit, then the global one; per rule
// its client selectors). The checks (valueChecks.rateLimit) and the
// rendering (render_ratelimit.go) share it.

// rateLimitSpec is spec.rateLimit.
type rateLimitSpec struct {
	Type   *string         `json:"type"`
	Local  *rateLimitRules `json:"local"`
	Global *rateLimitRules `json:"global"`
}

type rateLimitRules struct {
	Rules []rateLimitRule `json:"rules"`
}

type rateLimitRule struct {
	ClientSelectors []clientSelector `json:"clientSelectors"`
	Limit           struct {
		Requests     uint32       `json:"requests"`
		Unit         string       `json:"unit"`
		FromMetadata *metadataKey `json:"fromMetadata"`
	} `json:"limit"`
	Cost *struct {
		Request  *rateLimitCost `json:"request"`
		Response *rateLimitCost `json:"response"`
	} `json:"cost"`
	Shared            *bool   `json:"shared"`
	ShadowMode        *bool   `json:"shadowMode"`
	XRateLimitHeaders *string `json:"xRateLimitHeaders"`
}

type metadataKey struct {
	Namespace string `json:"namespace"`
	Key       string `json:"key"`
}

type rateLimitCost struct {
	Number   *uint64      `json:"number"`
	Metadata *metadataKey `json:"metadata"`
}

type clientSelector struct {
	Headers []stringSelector `json:"headers"`
	Methods []struct {
		Value  string `json:"value"`
		Invert *bool  `json:"invert"`
	} `json:"methods"`
	Path *struct {
		Type   *string `json:"type"`
		Value  string  `json:"value"`
		Invert *bool   `json:"invert"`
	} `json:"path"`
	SourceCIDR *struct {
		Type   *string `json:"type"`
		Value  string  `json:"value"`
		Invert *bool   `json:"invert"`
	} `json:"sourceCIDR"`
	QueryParams []stringSelector `json:"queryParams"`
}

// stringSelector is a header or query parameter selector.
type stringSelector struct {
	Type   *string `json:"type"`
	Name   string  `json:"name"`
	Value  *string `json:"value"`
	Invert *bool   `json:"invert"`
}

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
	fromMetadata      *metadataKey
	requestCost       *rateLimitCost
	responseCost      *rateLimitCost
	shared, shadow    bool
	xRateLimitHeaders *string
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
	xrl      *string // the default rule's xRateLimitHeaders
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

// buildRateLimit builds a policy's rate limits as Envoy Gateway does,
// or its first error. globalEnabled: a rate limit service is deployed.
func buildRateLimit(raw []byte, ns, name string, globalEnabled bool) (rlSet, error) {
	// raw is a merge of several policies' rateLimit documents when rendering; the
	// check decodes the value as written so that a wrong type reads as Envoy Gateway says it (typeError).
	var spec rateLimitSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		return rlSet{}, typeError(err)
	}
	var out rlSet
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
			if err := knownUnit(spec.Global.Rules[i].Limit.Unit); err != nil {
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
	if spec.Type != nil {
		switch *spec.Type {
		case "Global":
			return out, global()
		case "Local":
			return out, local()
		}
		return out, at("type", fmt.Errorf("invalid rateLimit type: %s", *spec.Type))
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

// typeError says which rateLimit field has a value of the wrong type
// (encoding/json names it without list indexes) in the schema's words.
func typeError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" {
		return err
	}
	want := "a " + te.Type.String()
	switch te.Type.Kind() {
	case reflect.Uint32, reflect.Uint64, reflect.Uint:
		want = "a whole number from 0"
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "true or false"
	}
	return fmt.Errorf("rateLimit.%s must be %s, not %s", strings.TrimPrefix(te.Field, "."), want, te.Value)
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
func buildLocal(l *rateLimitRules, ns, name string) (*rlLocal, error) {
	out := &rlLocal{requests: 1<<32 - 1, unit: "Second"}
	defaults := 0
	for _, r := range l.Rules {
		if len(r.ClientSelectors) == 0 {
			if defaults++; defaults > 1 {
				return nil, at("local.rules", errors.New("local rateLimit can not have more than one rule without clientSelectors"))
			}
			out.requests, out.unit, out.xrl = r.Limit.Requests, r.Limit.Unit, r.XRateLimitHeaders
		}
	}
	for i, r := range l.Rules {
		if err := knownUnit(r.Limit.Unit); err != nil {
			return nil, at(fmt.Sprintf("local.rules[%d].limit.unit", i), err)
		}
	}
	unit := unitSeconds[out.unit]
	for i, r := range l.Rules {
		if unit == 0 || unitSeconds[r.Limit.Unit]%unit != 0 {
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
func buildRule(r *rateLimitRule, ns, name string, i int) (rlRule, error) {
	out := rlRule{name: ns + "/" + name + "/rule/" + strconv.Itoa(i), requests: r.Limit.Requests, unit: r.Limit.Unit,
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
			out.methods = append(out.methods, rlMatch{exact: ptr(m.Value), invert: isTrue(m.Invert)})
		}
		if p := sel.Path; p != nil {
			m := rlMatch{invert: isTrue(p.Invert)}
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
func headerMatch(h stringSelector) (rlMatch, error) {
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
func queryMatch(q stringSelector) (rlMatch, error) {
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
// (config envoyGateway.rateLimit.enabled).
func (v valueChecks) rateLimit(globalEnabled bool) {
	// The value Decode holds (holdValues: set, not null, under a key
	// naming it in any case, as Envoy Gateway reads it).
	rl, ok := v.p.Values["rateLimit"].(*fieldValue)
	if !ok {
		return
	}
	if _, err := buildRateLimit(rl.raw, v.p.Obj.Namespace, v.p.Obj.Name, globalEnabled); err != nil {
		path := []string{"rateLimit"}
		var re *rlError
		if errors.As(err, &re) {
			path = append(path, re.path)
		}
		v.invalid(path, "RateLimit: %s.", strings.TrimSuffix(err.Error(), "."))
	}
}
