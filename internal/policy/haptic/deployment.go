package haptic

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// CheckDeployment reports what HAPTIC's admission refuses in the
// deployment's own WAF settings, whichever policies use them: a trusted
// catalog that is missing, mutable or invalid, and a defaultPolicy that
// names no trusted policy, and more trusted policies than
// waf.policies.limits.maxCount. pos positions a config key (nil: unpositioned).
// Rules using a broken trusted catalog are reported on their policies too.
func CheckDeployment(m *model.Model, cfg policy.Config, pos func(string) diag.Position) []diag.Diagnostic {
	s, err := ParseSettings(cfg)
	if err != nil || !s.WAF {
		return nil
	}
	if pos == nil {
		pos = func(string) diag.Position { return diag.Position{} }
	}
	var out []diag.Diagnostic
	report := func(path, format string, args ...any) {
		d := diag.Diagnostic{Code: LintPolicyDependency.Code, Severity: diag.Error, Field: path, Pos: pos(path)}
		d.Message = fmt.Sprintf(format, args...)
		out = append(out, d)
	}
	known := map[string]bool{}
	count := len(s.Inline)
	for _, name := range slices.Sorted(maps.Keys(s.Inline)) {
		if e := readEntry(name, nilIfEmpty(s.Inline[name]), s.rules(false)); e.problem != "" {
			report("haptic.waf.policies.inline."+name, "trusted WAF policy %s %s; HAPTIC's admission refuses the configuration and the rules selecting it fail closed", name, e.problem)
			continue
		}
		known[name] = true
	}
	cache := &catalogCache{m: map[catalogKey]parsedCatalog{}}
	for _, ref := range slices.Sorted(maps.Keys(s.Trusted)) {
		loc := s.Trusted[ref]
		entries, problem := readTrustedCatalog(m, cache, loc, s.rules(false))
		if problem != "" {
			report("haptic.waf.policies.configMapRefs."+ref, "trusted WAF catalog %s (ConfigMap %s/%s key %s) %s; HAPTIC's admission refuses it and the rules selecting its policies fail closed",
				ref, loc.Namespace, loc.Name, loc.Key, problem)
			continue
		}
		for name := range entries {
			known[name] = true
		}
		count += len(entries)
	}
	if count > s.MaxPolicies {
		report("haptic.waf.policies.limits.maxCount", "the deployment defines %d trusted WAF policies (inline and in trusted catalogs), over the limit of %d; HAPTIC's chart refuses to render — raise haptic.waf.policies.limits.maxCount or drop policies", count, s.MaxPolicies)
	}
	if s.DefaultPolicy != "" && !known[s.DefaultPolicy] {
		report("haptic.waf.policies.defaultPolicy", "defaultPolicy %q is not a trusted WAF policy (inline or in a valid trusted catalog); HAPTIC's admission refuses the configuration", s.DefaultPolicy)
	}
	return out
}
