package topology

import (
	"fmt"
	"strconv"
	"strings"
)

// redirectCodes are the status codes a redirect may answer with.
var redirectCodes = map[int]bool{301: true, 302: true, 303: true, 307: true, 308: true}

// redirectStatus sets the status code the family's redirect annotation
// (Keys.RedirectStatus: one code for every rule, "307", or per rule name,
// "rule0=307,rule1=308", the rules it does not name keeping their own)
// gives a rule that redirects (Rule.RedirectStatus). A code kgateway does not
// accept leaves the rule without an action, so kgateway replaces it
// (the RuleProblem returned).
func redirectStatus(key string, r *Route, rule *Rule) *RuleProblem {
	value, ok := r.Meta.Annotations[key]
	if !ok || key == "" || !redirects(rule) {
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
		return &RuleProblem{Message: fmt.Sprintf("invalid redirect status code: %s; must be one of 301, 302, 303, 307, 308", strings.TrimSpace(raw))}
	}
	rule.RedirectStatus = code
	return nil
}

// redirects reports whether an HTTPRoute rule has a RequestRedirect filter.
func redirects(rule *Rule) bool {
	if rule.HTTP == nil {
		return false
	}
	for _, f := range rule.HTTP.Filters {
		if f.RequestRedirect != nil {
			return true
		}
	}
	return false
}
