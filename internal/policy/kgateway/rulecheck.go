package kgateway

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// AnnotationRedirectStatus is the HTTPRoute annotation that overrides the
// statusCode of the route's RequestRedirect filters: one code for every
// rule ("307") or per rule name ("rule0=307,rule1=308"), the rules it does
// not name keeping their own.
const AnnotationRedirectStatus = "kgateway.dev/http-redirect-status-code"

// checkRule is kgateway's check of a route rule before any policy applies
// (policy.Family.CheckRule): what its translator refuses in the rule
// (irtranslator/validate.go: rewrite and redirect paths), the redirect
// status its annotation gives, and under Strict validation what Envoy's
// own validation of the route configuration refuses (a regular expression
// RE2 does not compile, a header value that is no substitution format).
// A rule whose problem Envoy's configuration cannot carry at all (an empty
// regular expression) is left out in every mode.
func checkRule(rt *topology.Route, rule *topology.Rule, cfg policy.Config) *topology.RuleProblem {
	strict := strictValidation(cfg)
	if p := translationProblem(rule, strict); p != nil {
		return p
	}
	if p := redirectStatus(rt, rule); p != nil {
		return p
	}
	if strict {
		return headerFormatProblem(rule)
	}
	return nil
}

// translationProblem finds a rule's problem: a path rewrite Envoy would
// refuse (replaced in every validation mode) or, under Strict validation,
// a regular expression RE2 does not compile (dropped; Standard validation
// passes it through). Header values Envoy's substitution format refuses
// are headerFormatProblem's.
func translationProblem(rule *topology.Rule, strict bool) *topology.RuleProblem {
	if rule.GRPC != nil {
		if why := headerValuesProblem(headerFilters(rule)...); why != "" {
			return &topology.RuleProblem{Message: why}
		}
		return emptyRegex(grpcMatchRegexes(rule.GRPC.Matches))
	}
	h := rule.HTTP
	if h == nil {
		return nil
	}
	var all []string
	for _, m := range h.Matches {
		all = append(all, topology.MatchRegexes(m)...)
	}
	if p := emptyRegex(all); p != nil {
		return p
	}
	for _, m := range h.Matches {
		if p := matchPathProblem(m); p != nil {
			return p
		}
	}
	for _, f := range h.Filters {
		if p := filterProblem(f); p != nil {
			return p
		}
	}
	// kgateway writes a backendRef's header modifiers too (on the route
	// or its weighted cluster)
	if why := headerValuesProblem(headerFilters(rule)...); why != "" {
		return &topology.RuleProblem{Message: why}
	}
	if !strict {
		return nil
	}
	for _, re := range all {
		if _, err := regexp.Compile(re); err != nil {
			return &topology.RuleProblem{Dropped: true, Message: "invalid matcher configuration: " + err.Error()}
		}
	}
	return nil
}

// filterProblem is what kgateway refuses in one HTTPRoute rule filter: a
// header value Envoy cannot send, a redirect or rewrite path it refuses.
func filterProblem(f gwv1.HTTPRouteFilter) *topology.RuleProblem {
	if why := headerValuesProblem(f.RequestHeaderModifier, f.ResponseHeaderModifier); why != "" {
		return &topology.RuleProblem{Message: why}
	}
	if rd := f.RequestRedirect; rd != nil && rd.Path != nil {
		if p, why := modifierProblem(rd.Path, true); why != "" {
			return &topology.RuleProblem{Message: fmt.Sprintf("the redirect path %s is invalid: %s", p, why)}
		}
	}
	if f.URLRewrite != nil && f.URLRewrite.Path != nil {
		if p, why := modifierProblem(f.URLRewrite.Path, false); why != "" {
			return &topology.RuleProblem{Message: fmt.Sprintf("the rewrite %s is invalid: %s", p, why)}
		}
	}
	return nil
}

// modifierProblem is why kgateway's route check refuses a path modifier
// of a redirect or a rewrite ("" when it does not), and the value it
// refuses. Its check (irtranslator/validate.go: validateEnvoyRoute, the
// same in every stored revision) looks at what the modifier becomes in
// the Envoy route: a redirect's full path (path_redirect) as written
// (routePathProblem); a prefix replacement, of a redirect or a rewrite
// (prefix_rewrite), parsed as a URL first (prefixRewriteProblem). A
// rewrite's full path, and its prefix replacement "/" on a route matching
// a path, become a regex rewrite, which it does not look at: Envoy's own
// validation refuses only a NUL, CR or LF in its substitution.
func modifierProblem(m *gwv1.HTTPPathModifier, redirect bool) (string, string) {
	switch {
	case m.Type == gwv1.FullPathHTTPPathModifier && m.ReplaceFullPath != nil && redirect:
		return *m.ReplaceFullPath, routePathProblem(*m.ReplaceFullPath)
	case m.Type == gwv1.FullPathHTTPPathModifier && m.ReplaceFullPath != nil:
		if strings.ContainsAny(*m.ReplaceFullPath, "\x00\r\n") {
			return *m.ReplaceFullPath, "a NUL, CR or LF, which Envoy refuses in a regex rewrite's substitution"
		}
	case m.Type == gwv1.PrefixMatchHTTPPathModifier && m.ReplacePrefixMatch != nil:
		return *m.ReplacePrefixMatch, prefixRewriteProblem(*m.ReplacePrefixMatch)
	}
	return "", ""
}

// prefixRewriteProblem is why kgateway refuses a prefix_rewrite ("" when
// it does not): it parses the value as a URL and validates the path that
// parse yields as a route path (validate.go: ValidatePrefixRewrite). So
// what follows a "?" or a "#" is not looked at, an escape is decoded
// first ("%2F" is a "/", "%20" a space, which is refused), and a bad
// escape or a control character fails the parse.
func prefixRewriteProblem(p string) string {
	u, err := url.Parse(p)
	if ue, ok := err.(*url.Error); ok {
		return ue.Err.Error() // the value is named by the caller
	}
	if err != nil {
		return err.Error()
	}
	return routePathProblem(u.Path)
}

// matchPathProblem: kgateway validates the path of the Envoy route's
// match (prefix, path_separated_prefix or exact path; a regular
// expression is not looked at) as it validates a rewrite, in every
// validation mode, and replaces a route it refuses
// (irtranslator/validate.go: validateEnvoyRoute → validatePath). A path
// written on a route passes the Gateway API schema, which refuses the same
// characters and segments; one a delegated child is served with, joined to
// a parent's RegularExpression value (its brackets, anchors, a "?"), does
// not.
func matchPathProblem(m gwv1.HTTPRouteMatch) *topology.RuleProblem {
	t, v := topology.PathOf(m.Path)
	if t == gwv1.PathMatchRegularExpression {
		return nil
	}
	if t == gwv1.PathMatchPathPrefix && len(v) > 1 {
		v = strings.TrimSuffix(v, "/") // as translateMatcher writes the prefix
	}
	if why := routePathProblem(v); why != "" {
		return &topology.RuleProblem{Message: fmt.Sprintf("the %q path is invalid: %s", v, why)}
	}
	return nil
}

// encodedSlash is a percent-encoded "/", which kgateway refuses in a
// path it validates as written.
var encodedSlash = regexp.MustCompile(`%2[fF]`)

// routePathProblem is rewriteProblem for a path kgateway validates as
// written, not parsed as a URL first (validate.go: validatePath, as
// opposed to validatePrefixRewrite): a "%" must start an escape (two hex
// digits), and an escaped "/" is refused as "//" is (invalidPathSequences
// "%2f", "%2F", in every stored revision). The Gateway API schema lets a
// route's path hold "%2F".
func routePathProblem(p string) string {
	if why := rewriteProblem(p); why != "" {
		return why
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && (i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2])) {
			return "it must only contain valid URI path characters"
		}
	}
	if s := encodedSlash.FindString(p); s != "" {
		return fmt.Sprintf("path [%s] cannot contain [%s]", p, s)
	}
	return ""
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// emptyRegex: an empty RegularExpression value leaves the rule out in
// every validation mode. The Gateway API schema allows it, but Envoy's
// refuses a matcher without a regex, so no config can carry the rule.
func emptyRegex(regexes []string) *topology.RuleProblem {
	for _, re := range regexes {
		if re == "" {
			return &topology.RuleProblem{Dropped: true, Message: "invalid matcher configuration: an empty RegularExpression value matches nothing Envoy accepts"}
		}
	}
	return nil
}

// grpcMatchRegexes are a GRPCRoute's RegularExpression header values.
func grpcMatchRegexes(matches []gwv1.GRPCRouteMatch) []string {
	var out []string
	for _, m := range matches {
		for _, h := range m.Headers {
			if h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression {
				out = append(out, h.Value)
			}
		}
	}
	return out
}

// headerValuesProblem says why a header filter's headers cannot be
// written, "" when they can: Envoy refuses a value with a NUL, CR or LF
// (a header injection) and a name to remove that is empty or holds one
// (the Gateway API schema bounds no name to remove), so the rule cannot
// be translated as written. It is given a rule's filters and its
// backendRefs', all of which kgateway writes.
func headerValuesProblem(filters ...*gwv1.HTTPHeaderFilter) string {
	for _, f := range filters {
		if f == nil {
			continue
		}
		for _, h := range append(slices.Clip(f.Set), f.Add...) {
			if strings.ContainsAny(h.Value, "\x00\r\n") {
				return fmt.Sprintf("the value of header %s contains a NUL, CR or LF, which Envoy refuses", h.Name)
			}
		}
		for _, name := range f.Remove {
			if name == "" || strings.ContainsAny(name, "\x00\r\n") {
				return fmt.Sprintf("the header name %q to remove is empty or contains a NUL, CR or LF, which Envoy refuses", name)
			}
		}
	}
	return ""
}

// pathChars are the characters of a URI path (RFC 3986 pchar and "/").
var pathChars = regexp.MustCompile(`^[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$`)

// rewriteProblem says why a replacement path is unusable, "" when it is
// fine: only path characters, and no empty, "." or ".." segment
// (irtranslator/validate.go: ValidateRoutePath).
func rewriteProblem(p string) string {
	if !pathChars.MatchString(p) {
		return "it must only contain valid URI path characters"
	}
	for _, bad := range []string{"//", "/./", "/../"} {
		if strings.Contains(p, bad) {
			return fmt.Sprintf("path [%s] cannot contain [%s]", p, bad)
		}
	}
	if strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..") {
		return fmt.Sprintf("path [%s] cannot end with a dot segment", p)
	}
	return ""
}

// redirectCodes are the status codes a redirect may answer with.
var redirectCodes = map[int]bool{301: true, 302: true, 303: true, 307: true, 308: true}

// redirectStatus sets the status code AnnotationRedirectStatus gives a
// rule that redirects (topology.Rule.RedirectStatus). A code kgateway does
// not accept leaves the rule without an action, so kgateway replaces it
// (the problem returned).
func redirectStatus(rt *topology.Route, rule *topology.Rule) *topology.RuleProblem {
	value, ok := rt.Meta.Annotations[AnnotationRedirectStatus]
	if !ok || !redirects(rule) {
		return nil
	}
	raw, named := value, false
	if strings.Contains(value, "=") {
		raw, named = "", true
		for _, part := range strings.Split(value, ",") {
			name, code, _ := strings.Cut(part, "=")
			if rule.Name != "" && strings.TrimSpace(name) == rule.Name {
				raw = strings.TrimSpace(code)
			}
		}
	}
	if named && raw == "" {
		return nil // the annotation does not name this rule
	}
	code, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || !redirectCodes[code] {
		return &topology.RuleProblem{Message: fmt.Sprintf("invalid redirect status code: %s; must be one of 301, 302, 303, 307, 308", strings.TrimSpace(raw))}
	}
	rule.RedirectStatus = code
	return nil
}

// redirects reports whether an HTTPRoute rule has a RequestRedirect filter.
func redirects(rule *topology.Rule) bool {
	if rule.HTTP == nil {
		return false
	}
	return slices.ContainsFunc(rule.HTTP.Filters, func(f gwv1.HTTPRouteFilter) bool { return f.RequestRedirect != nil })
}

// headerFormatProblem: Envoy reads a header value a header modifier adds or
// sets as a substitution format, and refuses one with a % that starts no
// command (%% is a literal %). kgateway's Strict validation runs Envoy's
// own check, so such a rule is replaced. It looks at the rule's filters and
// those of its backendRefs.
func headerFormatProblem(rule *topology.Rule) *topology.RuleProblem {
	for _, f := range headerFilters(rule) {
		if f == nil {
			continue
		}
		for _, h := range append(slices.Clip(f.Set), f.Add...) {
			if pos, ok := policy.EnvoyFormatOK(h.Value); !ok {
				return &topology.RuleProblem{Message: fmt.Sprintf("invalid route configuration: the value %s of header %s is not an Envoy substitution format: no valid command at position %d (Strict validation runs Envoy's check)", h.Value, h.Name, pos)}
			}
		}
	}
	return nil
}

// headerFilters are the header modifier filters of a rule and of its
// backendRefs.
func headerFilters(rule *topology.Rule) []*gwv1.HTTPHeaderFilter {
	var out []*gwv1.HTTPHeaderFilter
	switch {
	case rule.HTTP != nil:
		for _, f := range rule.HTTP.Filters {
			out = append(out, f.RequestHeaderModifier, f.ResponseHeaderModifier)
		}
		for _, b := range rule.HTTP.BackendRefs {
			for _, f := range b.Filters {
				out = append(out, f.RequestHeaderModifier, f.ResponseHeaderModifier)
			}
		}
	case rule.GRPC != nil:
		for _, f := range rule.GRPC.Filters {
			out = append(out, f.RequestHeaderModifier, f.ResponseHeaderModifier)
		}
		for _, b := range rule.GRPC.BackendRefs {
			for _, f := range b.Filters {
				out = append(out, f.RequestHeaderModifier, f.ResponseHeaderModifier)
			}
		}
	}
	return out
}
