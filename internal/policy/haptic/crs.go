package haptic

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The structured CRS tuning of a WAF policy: crsSettings and
// ruleExclusions. HAPTIC lowers both into Coraza directives the chart
// writes itself, so a tenant never supplies SecLang: registerPolicy
// (83-waf-policies.yaml@a3a8c5a1) accepts only values it can write
// safely, and refuses the policy otherwise.

// crsSetting is one CRS variable crsSettings may tune: a list of tokens
// merged into the CRS default, or a whole number within bounds.
type crsSetting struct {
	list     bool
	token    *regexp.Regexp // list: what one entry must look like
	min, max int64          // number: the bounds
	hint     string
}

var crsSettings = map[string]crsSetting{
	"allowedRequestContentTypes": {list: true, token: regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.+/_-]*$`), hint: "a media type such as application/x-git-upload-pack-request"},
	"maxFileSize":                {min: 1, max: 536870912, hint: "a byte count from 1 to 536870912"},
	"maxNumArgs":                 {min: 1, max: 100000, hint: "a count from 1 to 100000"},
	"totalArgLength":             {min: 1, max: 10485760, hint: "a byte count from 1 to 10485760"},
}

// crsSettingsProblem: crsSettings is a map of the CRS variables HAPTIC
// lets a policy tune, each with a value of its kind.
func crsSettingsProblem(m map[string]any, _ entryRules) string {
	raw, ok := m["crsSettings"]
	if !ok || raw == nil {
		return ""
	}
	c, isMap := raw.(map[string]any)
	if !isMap {
		return "crsSettings must be a map of CRS tuning names to values"
	}
	for _, k := range slices.Sorted(maps.Keys(c)) {
		spec, known := crsSettings[k]
		if !known {
			return fmt.Sprintf("crsSettings has an unknown setting %q (%s)", k, strings.Join(slices.Sorted(maps.Keys(crsSettings)), ", "))
		}
		if p := spec.problem(k, c[k]); p != "" {
			return p
		}
	}
	return ""
}

func (s crsSetting) problem(name string, v any) string {
	if s.list {
		items, isList := v.([]any)
		if !isList || len(items) == 0 {
			return fmt.Sprintf("crsSettings.%s must be a non-empty list (each entry %s)", name, s.hint)
		}
		for i, item := range items {
			if t, _ := scalarText(item); !s.token.MatchString(t) {
				return fmt.Sprintf("crsSettings.%s[%d] is not %s", name, i, s.hint)
			}
		}
		return ""
	}
	t, _ := scalarText(v)
	n, err := strconv.ParseInt(t, 10, 64)
	if !digitsRE.MatchString(t) || err != nil || n < s.min || n > s.max {
		return fmt.Sprintf("crsSettings.%s must be %s", name, s.hint)
	}
	return ""
}

// exclusionFields are the settings of one ruleExclusions entry: which
// rules (by ID or CRS tag), optionally only for one target variable, and
// optionally only on paths that match one literal.
var exclusionFields = []string{"rules", "tags", "excludeTarget", "onPathPrefix", "onPathContains", "onPathExact", "onPathSuffix"}

var pathScopes = []string{"onPathContains", "onPathExact", "onPathPrefix", "onPathSuffix"}

var (
	crsRuleIDRE   = regexp.MustCompile(`^[0-9]{6}$`)
	crsTagRE      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$`)
	crsTargetRE   = regexp.MustCompile(`^[A-Z][A-Z0-9_]*(:[A-Za-z0-9_.-]+)?$`)
	literalPathRE = regexp.MustCompile(`^[A-Za-z0-9/_.:%~=&?*+@,-]{1,256}$`)
)

// reservedRuleID: the CRS setup, anomaly-scoring and correlation rules.
// HAPTIC refuses to exclude them, so that an exclusion cannot switch off
// the blocking decision itself.
func reservedRuleID(id int) bool {
	return (id >= 900000 && id <= 901999) || (id >= 949000 && id <= 949999) ||
		(id >= 959000 && id <= 959999) || (id >= 980000 && id <= 980999) || id >= 990000
}

// exclusionsProblem: ruleExclusions is a list of valid entries naming,
// together, at most the deployment's limit of rule IDs and tags.
func exclusionsProblem(m map[string]any, rules entryRules) string {
	raw, ok := m["ruleExclusions"]
	if !ok || raw == nil {
		return ""
	}
	list, isList := raw.([]any)
	if !isList {
		return "ruleExclusions is not a list of exclusion entries"
	}
	count := 0
	for i, e := range list {
		entry, isMap := e.(map[string]any)
		if !isMap {
			return fmt.Sprintf("ruleExclusions[%d] is not a map", i)
		}
		n, p := exclusionProblem(entry)
		if p != "" {
			return fmt.Sprintf("ruleExclusions[%d] %s", i, p)
		}
		// The limit counts rule IDs and tags, not entries, and is checked
		// before the entry's target and path.
		if count += n; rules.maxExclusion > 0 && count > rules.maxExclusion {
			return fmt.Sprintf("ruleExclusions name %d rule IDs and tags by entry %d, over the limit of %d (config haptic.waf.policies.limits.maxRuleExclusions)", count, i, rules.maxExclusion)
		}
		if p := exclusionScope(entry); p != "" {
			return fmt.Sprintf("ruleExclusions[%d] %s", i, p)
		}
	}
	return ""
}

// exclusionProblem checks an entry's fields and the rules it names, and
// counts them.
func exclusionProblem(entry map[string]any) (int, string) {
	for _, k := range slices.Sorted(maps.Keys(entry)) {
		if !slices.Contains(exclusionFields, k) {
			return 0, fmt.Sprintf("has an unknown setting %q (%s)", k, strings.Join(exclusionFields, ", "))
		}
	}
	ids, p := listOf(entry, "rules", "CRS rule IDs", ruleIDProblem)
	if p != "" {
		return 0, p
	}
	tags, p := listOf(entry, "tags", "CRS rule tags", func(t string) string {
		if !crsTagRE.MatchString(t) {
			return fmt.Sprintf("tag %q is not a CRS tag (such as attack-sqli)", t)
		}
		return ""
	})
	if p != "" {
		return 0, p
	}
	if ids+tags == 0 {
		return 0, "must set rules, tags or both"
	}
	return ids + tags, ""
}

// ruleIDProblem: a six-digit CRS rule ID, not a reserved one.
func ruleIDProblem(t string) string {
	if !crsRuleIDRE.MatchString(t) {
		return fmt.Sprintf("rule ID %q is not a 6-digit CRS rule ID", t)
	}
	id, _ := strconv.Atoi(t)
	switch {
	case id < 900000:
		return fmt.Sprintf("rule ID %s is outside the CRS rule range 900000-999999", t)
	case reservedRuleID(id):
		return fmt.Sprintf("rule ID %s is a CRS setup, anomaly-scoring or correlation rule (900000-901999, 949xxx, 959xxx, 980xxx, 990000 and up), which HAPTIC does not let an exclusion disable", t)
	}
	return ""
}

// listOf reads an optional non-empty list of scalars, each checked, and
// returns its length.
func listOf(entry map[string]any, key, what string, check func(string) string) (int, string) {
	raw, ok := entry[key]
	if !ok || raw == nil {
		return 0, ""
	}
	items, isList := raw.([]any)
	if !isList || len(items) == 0 {
		return 0, fmt.Sprintf("%s must be a non-empty list of %s", key, what)
	}
	for _, item := range items {
		t, _ := scalarText(item)
		if p := check(t); p != "" {
			return 0, p
		}
	}
	return len(items), ""
}

// exclusionScope: the target is one exact Coraza variable (no regex
// keys), tags only narrow a target (a tag may not remove a whole attack
// class), and at most one literal path scope.
func exclusionScope(entry map[string]any) string {
	target := ""
	if raw, ok := entry["excludeTarget"]; ok && raw != nil {
		target, _ = scalarText(raw)
		if !crsTargetRE.MatchString(target) {
			return fmt.Sprintf("excludeTarget %q must be an exact Coraza variable such as ARGS:q", target)
		}
	}
	if tags, _ := entry["tags"].([]any); len(tags) > 0 && target == "" {
		return "sets tags without excludeTarget: a tag can only exclude a variable from its rules; list rule IDs to disable a rule"
	}
	scope := ""
	for _, k := range pathScopes {
		raw, ok := entry[k]
		if !ok || raw == nil {
			continue
		}
		if scope != "" {
			return "sets more than one of onPathPrefix, onPathContains, onPathExact, onPathSuffix"
		}
		scope = k
		if v, _ := scalarText(raw); !literalPathRE.MatchString(v) {
			return fmt.Sprintf("%s must be a literal URL path of at most 256 letters, digits and /_.:%%~=&?*+@,-", k)
		}
	}
	return ""
}
