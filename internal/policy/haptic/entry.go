package haptic

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// The checks below are HAPTIC's registration of one reusable WAF policy
// (registerPolicy in charts/haptic/charts/haptic-annotations/83-waf-policies.yaml,
// read at a3a8c5a1, the revision whose field set and limit names are those
// of the pinned values.yaml — maxRuleExclusions, ruleExclusions,
// crsSettings; by the pinned commits the same code had moved into the
// util-policy-waf-catalog macro, which is not readable there). Inline
// policies, trusted catalogs and self-service catalogs all go through it,
// in this order, and the first problem is the entry's.

// entryFields are the settings a WAF policy may have; any other is an
// error.
var entryFields = []string{"description", "enforcement", "requestBody", "secLang", "allowedMethods", "paranoiaLevel", "anomalyThreshold", "ruleExclusions", "crsSettings"}

// requestBodyModes are requestBody.mode's values: none (the default:
// headers only, what a GRPCRoute needs), any and json (bodies buffered
// and inspected).
var requestBodyModes = []string{"none", "any", "json"}

// enforcements are a policy's enforcement values: deny (the default) or
// detect.
var enforcements = []string{"deny", "detect"}

const maxDescriptionBytes = 512

var (
	entryNameRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)
	digitsRE     = regexp.MustCompile(`^[0-9]+$`)
	methodRE     = regexp.MustCompile(`^[A-Z][A-Z-]{1,15}$`)
	paranoiaRE   = regexp.MustCompile(`^[1-4]$`)
	thresholdRE  = regexp.MustCompile(`^[1-9][0-9]{0,4}$`)
	tripleQuotes = `"""`
)

// entryRules are what the deployment allows a catalog's entries: a
// self-service catalog may not carry secLang unless the deployment allows
// it (waf.policies.selfService.allowSecLang; trusted catalogs and inline
// policies may), no entry may ask for a larger request body than the
// ceiling (waf.policies.requestBody.maxBytes), and secLang and rule
// exclusions are bounded (waf.policies.limits).
type entryRules struct {
	selfService, allowSecLang              bool
	maxBodyBytes, maxSecLang, maxExclusion int
}

// rules are the entry rules of the deployment's trusted policies, or of
// its self-service catalogs.
func (s Settings) rules(selfService bool) entryRules {
	return entryRules{selfService: selfService, allowSecLang: s.AllowSecLang, maxBodyBytes: s.MaxBodyBytes,
		maxSecLang: s.MaxSecLangBytes, maxExclusion: s.MaxRuleExclusions}
}

// readEntry checks one WAF policy, named name, as HAPTIC registers it and
// reads its requestBody.mode.
func readEntry(name string, v any, rules entryRules) catalogEntry {
	if !entryNameRE.MatchString(name) {
		return catalogEntry{problem: "has a name HAPTIC refuses: 1-63 lowercase letters, digits, dots, underscores or hyphens, starting with a letter or digit"}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return catalogEntry{problem: "is not a map of settings"}
	}
	for _, check := range []func(map[string]any, entryRules) string{
		unknownEntryField, descriptionProblem, requestBodyShape, enforcementProblem, bodyCapProblem,
		secLangProblem, methodsProblem, paranoiaProblem, thresholdProblem, crsSettingsProblem, exclusionsProblem,
	} {
		if p := check(m, rules); p != "" {
			return catalogEntry{problem: p}
		}
	}
	var mode, enforcement string
	if raw, ok := requestBodyOf(m)["mode"]; ok && raw != nil {
		mode, _ = scalarText(raw)
	}
	if raw, ok := m["enforcement"]; ok && raw != nil {
		enforcement, _ = scalarText(raw)
	}
	return catalogEntry{mode: mode, enforcement: enforcement}
}

func unknownEntryField(m map[string]any, _ entryRules) string {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(entryFields, k) {
			return fmt.Sprintf("has an unknown setting %q (HAPTIC takes %s)", k, strings.Join(entryFields, ", "))
		}
	}
	return ""
}

func descriptionProblem(m map[string]any, _ entryRules) string {
	d, ok := m["description"]
	if !ok || d == nil {
		return ""
	}
	s, isString := d.(string)
	switch {
	case !isString:
		return "description is not a string"
	case len(s) > maxDescriptionBytes:
		return fmt.Sprintf("description is longer than %d bytes", maxDescriptionBytes)
	}
	return ""
}

// requestBodyOf is the entry's requestBody map (empty when absent or not
// a map: requestBodyShape reports that).
func requestBodyOf(m map[string]any) map[string]any {
	rb, _ := m["requestBody"].(map[string]any)
	return rb
}

// requestBodyShape: requestBody is a map of mode and maxBytes, mode is
// one of requestBodyModes, and maxBytes goes only with a mode that reads
// the body (HAPTIC refuses a cap on a body it never buffers).
func requestBodyShape(m map[string]any, _ entryRules) string {
	if rb, ok := m["requestBody"]; ok && rb != nil {
		if _, isMap := rb.(map[string]any); !isMap {
			return "requestBody is not a map of mode and maxBytes"
		}
	}
	rb := requestBodyOf(m)
	for _, k := range slices.Sorted(maps.Keys(rb)) {
		if k != "mode" && k != "maxBytes" {
			return fmt.Sprintf("requestBody has an unknown setting %q (mode, maxBytes)", k)
		}
	}
	mode := "none"
	if raw, ok := rb["mode"]; ok && raw != nil {
		mode, _ = scalarText(raw)
	}
	if !slices.Contains(requestBodyModes, mode) {
		return fmt.Sprintf("requestBody.mode %q is not one of %s", mode, strings.Join(requestBodyModes, ", "))
	}
	if mb, ok := rb["maxBytes"]; ok && mb != nil && mode == "none" {
		return "sets requestBody.maxBytes while requestBody.mode is none (HAPTIC reads no body); set mode any or json, or drop maxBytes"
	}
	return ""
}

func enforcementProblem(m map[string]any, _ entryRules) string {
	e, ok := m["enforcement"]
	if !ok || e == nil {
		return ""
	}
	if s, _ := scalarText(e); !slices.Contains(enforcements, s) {
		return fmt.Sprintf("enforcement must be one of %s", strings.Join(enforcements, ", "))
	}
	return ""
}

// bodyCapProblem: requestBody.maxBytes is a whole number from 1 to the
// deployment's ceiling.
func bodyCapProblem(m map[string]any, rules entryRules) string {
	mb, ok := requestBodyOf(m)["maxBytes"]
	if !ok || mb == nil {
		return ""
	}
	text, _ := scalarText(mb)
	n, isInt := wholeNumber(mb)
	if !digitsRE.MatchString(text) || !isInt || n < 1 || (rules.maxBodyBytes > 0 && n > int64(rules.maxBodyBytes)) {
		return fmt.Sprintf("requestBody.maxBytes must be a whole number from 1 to %d (config haptic.waf.policies.requestBody.maxBytes, the deployment's ceiling)", rules.maxBodyBytes)
	}
	return ""
}

// secLangProblem: secLang is a string without a TOML triple quote (HAPTIC
// writes it into the SPOA hub's TOML), within the deployment's size
// limit, and in a self-service catalog — even empty — only where the
// deployment allows it (the chart refuses any secLang key there).
func secLangProblem(m map[string]any, rules entryRules) string {
	raw, ok := m["secLang"]
	if !ok || raw == nil {
		return ""
	}
	s, isString := raw.(string)
	switch {
	case !isString:
		return "secLang is not a string"
	case strings.Contains(s, tripleQuotes):
		return `secLang contains """, which HAPTIC refuses (it would end the SPOA hub's TOML string)`
	case rules.maxSecLang > 0 && len(s) > rules.maxSecLang:
		return fmt.Sprintf("secLang is %d bytes, over the limit of %d (config haptic.waf.policies.limits.maxSecLangBytes)", len(s), rules.maxSecLang)
	case rules.selfService && !rules.allowSecLang:
		return "sets secLang, which a self-service catalog may not (config haptic.waf.policies.selfService.allowSecLang: false)"
	}
	return ""
}

// methodsProblem: allowedMethods is a non-empty list of upper-case HTTP
// method tokens.
func methodsProblem(m map[string]any, _ entryRules) string {
	raw, ok := m["allowedMethods"]
	if !ok || raw == nil {
		return ""
	}
	list, isList := raw.([]any)
	if !isList || len(list) == 0 {
		return "allowedMethods must be a non-empty list of HTTP methods"
	}
	for i, e := range list {
		if s, _ := scalarText(e); !methodRE.MatchString(s) {
			return fmt.Sprintf("allowedMethods[%d] must be an upper-case HTTP method token such as GET or PATCH", i)
		}
	}
	return ""
}

func paranoiaProblem(m map[string]any, _ entryRules) string {
	raw, ok := m["paranoiaLevel"]
	if !ok || raw == nil {
		return ""
	}
	if s, _ := scalarText(raw); !paranoiaRE.MatchString(s) {
		return "paranoiaLevel must be a whole number from 1 to 4"
	}
	return ""
}

// thresholdProblem: anomalyThreshold is a map of inbound and outbound
// scores, each a whole number from 1 to 99999.
func thresholdProblem(m map[string]any, _ entryRules) string {
	raw, ok := m["anomalyThreshold"]
	if !ok || raw == nil {
		return ""
	}
	t, isMap := raw.(map[string]any)
	if !isMap {
		return "anomalyThreshold must be a map of inbound and outbound scores"
	}
	for _, k := range slices.Sorted(maps.Keys(t)) {
		if k != "inbound" && k != "outbound" {
			return fmt.Sprintf("anomalyThreshold has an unknown setting %q (inbound, outbound)", k)
		}
		if s, _ := scalarText(t[k]); !thresholdRE.MatchString(s) {
			return fmt.Sprintf("anomalyThreshold.%s must be a whole number from 1 to 99999", k)
		}
	}
	return ""
}

// scalarText is a scalar's text as HAPTIC's templates see it (tostring);
// false for a list or map.
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int, int64, uint64, bool:
		return fmt.Sprint(x), true
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprint(int64(x)), true
		}
		return fmt.Sprint(x), true
	}
	return fmt.Sprint(v), false
}

// wholeNumber reads a YAML integer (decoded as int, or float64 from JSON,
// or the digits of a string, as the chart's values often are).
func wholeNumber(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case uint64:
		return int64(n), n <= 1<<62
	case float64:
		return int64(n), n == float64(int64(n))
	case string:
		var x int64
		if !digitsRE.MatchString(n) || len(n) > 18 {
			return 0, false
		}
		_, err := fmt.Sscan(n, &x)
		return x, err == nil
	}
	return 0, false
}
