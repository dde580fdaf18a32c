package haptic

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	yaml "go.yaml.in/yaml/v3"
)

// waf checks a WAF selection. With catalogRef the policy names an entry of
// a self-service catalog ConfigMap in the policy's namespace; without it,
// a trusted policy the deployment defines (haptic.waf.policies: inline, or
// a trusted catalog ConfigMap). Either way a selection HAPTIC cannot serve
// fails the rule closed.
func (v *validator) waf(w *WAF) {
	const base = "spec.waf"
	if strings.TrimSpace(w.Policy) == "" {
		v.invalid(base+".policy", "waf.policy is empty; name a policy of the WAF catalog")
		return
	}
	if v.settings.HubOff {
		v.dependency(base, "WAF is not available in this HAPTIC deployment: its SPOA hub, which runs the Coraza plugin, is switched off (config haptic.spoaHub.enabled: false); the rule fails closed — turn the hub on or drop waf")
		return
	}
	if !v.settings.WAF {
		v.dependency(base, "WAF is not enabled in this HAPTIC deployment (config haptic.waf.enabled: false, the chart's Coraza SPOA plugin); the rule fails closed — enable it or drop waf")
		return
	}
	// HAPTIC's policy reference (route-policy.md@04be9778, "WAF"): the
	// Ingress WAF permissions apply to a route policy's selection too, as
	// the Ingress engine refuses a selection when the administrator turned
	// selection off (83-waf-policies.yaml@a3a8c5a1:
	// util-waf-haptic-coraza-scan, WafPermissionDenied) — the deployment's
	// defaultPolicy then applies instead.
	if !v.settings.IngressPermissions.AllowPolicySelection {
		v.dependency(base+".policy", "WAF policy selection is disabled in this HAPTIC deployment (config haptic.waf.ingressPermissions.allowPolicySelection: false), so HAPTIC refuses waf.policy %q and the rule fails closed — drop waf (the deployment's defaultPolicy applies) or allow policy selection", w.Policy)
		return
	}
	if !written(v.p.Obj, base+".catalogRef") {
		v.trusted(base, w)
		return
	}
	if w.CatalogRef.Key == "" {
		w.CatalogRef.Key = DefaultCatalogKey
	}
	if ns := w.CatalogRef.Namespace; ns != "" && ns != v.ns {
		// HAPTIC reads a catalogRef in the policy's namespace whatever it
		// names (49-policy-catalogs.yaml): the namespace is not an error,
		// but it is not where the catalog comes from.
		v.warn(base+".catalogRef.namespace", "HAPTIC reads WAF catalogs only from the policy's namespace: it ignores namespace %s and reads ConfigMap %s/%s; drop the namespace, or copy the catalog into %s", ns, v.ns, w.CatalogRef.Name, v.ns)
	}
	if !v.refShape(base+".catalogRef", "catalog ConfigMap", SecretRef{Name: w.CatalogRef.Name}) {
		return
	}
	if !v.settings.SelfService {
		v.dependency(base+".catalogRef", "WAF catalog references are disabled in this HAPTIC deployment (config haptic.waf.policies.selfService.enabled: false); the rule fails closed — enable self-service catalogs, or drop catalogRef to use a trusted policy")
		return
	}
	if !v.catalog(base, w) {
		return
	}
	if over := v.budget.exceeded(v.model(), v.catalogs, v.settings, selection{v.ns, w.CatalogRef.Name, w.CatalogRef.Key, w.Policy}); over != "" {
		v.dependency(base+".catalogRef", "WAF catalog entry %s/%s/%s#%s is over %s; the rule fails closed — keep fewer entries in the catalogs policies reference, share an entry already loaded, or raise the limit",
			v.ns, w.CatalogRef.Name, w.CatalogRef.Key, w.Policy, over)
	}
}

// trusted resolves a policy without catalogRef among the deployment's
// trusted policies: the inline ones and those of the trusted catalogs. A
// name defined twice is ambiguous, and a trusted catalog that is missing,
// mutable or invalid serves none of its policies.
func (v *validator) trusted(base string, w *WAF) {
	if !v.settings.TrustedKnown {
		// Not gwpol's to reject: the deployment may define it.
		w.trustedSource = uncheckedSource
		d := fieldDiag(v.p, LintPolicyDependency.Code, base+".policy", "WAF policy %q names a trusted policy of the HAPTIC deployment, which gwpol cannot check without the deployment's trusted policies (config haptic.waf.policies.inline / configMapRefs); if HAPTIC does not define it, the rule fails closed", w.Policy)
		d.Severity = diag.Info
		v.p.Findings = append(v.p.Findings, d)
		return
	}
	var sources []string
	var broken []string
	mode := ""
	if e, ok := v.settings.Inline[w.Policy]; ok {
		entry := readEntry(w.Policy, nilIfEmpty(e), v.settings.rules(false))
		if entry.problem != "" {
			v.dependency(base+".policy", "trusted WAF policy %q (config haptic.waf.policies.inline) %s; the rule fails closed until it is fixed", w.Policy, entry.problem)
			return
		}
		sources = append(sources, "inline")
		mode = entry.mode
	}
	for _, name := range slices.Sorted(maps.Keys(v.settings.Trusted)) {
		loc := v.settings.Trusted[name]
		entries, problem := v.trustedCatalog(loc)
		if problem != "" {
			broken = append(broken, fmt.Sprintf("trusted catalog %s (ConfigMap %s/%s key %s) %s", name, loc.Namespace, loc.Name, loc.Key, problem))
			continue
		}
		if e, ok := entries[w.Policy]; ok {
			sources = append(sources, "catalog "+name)
			mode = e.mode
		}
	}
	switch {
	case len(sources) > 1:
		v.dependency(base+".policy", "trusted WAF policy %q is defined more than once (%s); HAPTIC cannot tell which applies, so the rule fails closed — rename one", w.Policy, strings.Join(sources, ", "))
	case len(sources) == 1 && len(broken) == 0:
		w.catalogRead, w.requestBody, w.trustedSource = true, mode, sources[0]
	case len(broken) > 0:
		v.dependency(base+".policy", "WAF policy %q cannot be served: %s; the rule fails closed until it is fixed", w.Policy, strings.Join(broken, "; "))
	default:
		v.dependency(base+".policy", "WAF policy %q is not a trusted policy of this HAPTIC deployment (config haptic.waf.policies: inline or configMapRefs); the rule fails closed — name a trusted policy, or set catalogRef to a catalog in namespace %s", w.Policy, v.ns)
	}
}

func nilIfEmpty(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

// trustedCatalog reads a trusted catalog ConfigMap: it must exist, be
// immutable and hold a valid catalog.
func (v *validator) trustedCatalog(loc CatalogLocation) (map[string]catalogEntry, string) {
	return readTrustedCatalog(v.model(), v.catalogs, loc, v.settings.rules(false))
}

func readTrustedCatalog(m *model.Model, cache *catalogCache, loc CatalogLocation, rules entryRules) (map[string]catalogEntry, string) {
	var c *model.Opaque
	if m != nil {
		c = m.ConfigMap(loc.Namespace, loc.Name)
	}
	switch {
	case c == nil:
		return nil, "is missing"
	case !c.Immutable:
		return nil, "is mutable (set immutable: true)"
	}
	text := catalogText(c, loc.Key)
	if text == nil || text.Kind != yaml.ScalarNode || len(text.Value) > maxCatalogBytes {
		return nil, "has no catalog under that key"
	}
	entries, err := cache.parse(c, loc.Key, text.Value, rules)
	if err != nil {
		return nil, "is not a valid catalog: " + catalogProblem(err, loc.Key)
	}
	return entries, ""
}

func catalogText(c *model.Opaque, key string) *yaml.Node {
	if c.Src == nil {
		return nil
	}
	return mapValue(c.Src.Lookup("data"), key)
}

// catalogProblem describes a parse error by line, never quoting content.
func catalogProblem(err error, key string) string {
	if err == errEmptyCatalog || strings.HasPrefix(err.Error(), "entry ") {
		return err.Error()
	}
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		return "malformed YAML at line " + m[1] + " of " + key
	}
	return "malformed YAML"
}

// catalog checks the self-service catalog ConfigMap: it exists in the
// policy's namespace, is immutable, holds the key, parses, has the policy
// and no invalid entry. Findings never quote the catalog's content.
func (v *validator) catalog(base string, w *WAF) bool {
	path := base + ".catalogRef"
	ref := w.CatalogRef
	var c *model.Opaque
	if m := v.model(); m != nil {
		c = m.ConfigMap(v.ns, ref.Name)
	}
	if c == nil {
		v.dependency(path+".name", "WAF catalog ConfigMap %s/%s not found; create it (immutable: true, with key %s) or fix the name — the rule fails closed until then", v.ns, ref.Name, ref.Key)
		return false
	}
	if !c.Immutable {
		v.dependency(path+".name", "WAF catalog ConfigMap %s/%s is mutable; set immutable: true (and publish a new name to change it) — the rule fails closed until then", v.ns, ref.Name)
		return false
	}
	where := "WAF catalog ConfigMap " + v.ns + "/" + ref.Name
	text := catalogText(c, ref.Key)
	if text == nil {
		v.dependency(path+".key", "%s has no data key %s; the rule fails closed until it does", where, ref.Key)
		return false
	}
	if text.Kind != yaml.ScalarNode || len(text.Value) > maxCatalogBytes {
		v.dependency(path+".key", "%s key %s must be a YAML document of at most %d bytes; the rule fails closed until it is", where, ref.Key, maxCatalogBytes)
		return false
	}
	entries, err := v.catalogs.parse(c, ref.Key, text.Value, v.settings.rules(true))
	if err != nil {
		v.dependency(path+".key", "%s key %s is not a valid catalog of WAF policies: %s; the rule fails closed until it is", where, ref.Key, catalogProblem(err, ref.Key))
		return false
	}
	e, ok := entries[w.Policy]
	if !ok {
		v.dependency(base+".policy", "%s key %s has no policy %q; add it to the catalog or fix the name — the rule fails closed until then", where, ref.Key, w.Policy)
		return false
	}
	// A tenant's entry may not weaken a default-on deny baseline: with
	// dispatch default-on and defaultEnforcement deny, a self-service
	// entry whose enforcement is detect is refused (route-policy.md@04be9778,
	// "WAF"; 83-waf-policies.yaml@a3a8c5a1: util-waf-haptic-coraza-scan,
	// selectedSelfService && default-on && deny && detect). A route policy
	// cannot override the entry's enforcement, so the entry's is the
	// effective one; trusted policies may weaken the baseline.
	if d := v.settings.Dispatch; d.Mode == "default-on" && d.DefaultEnforcement == "deny" && e.enforcement == "detect" {
		v.dependency(base+".policy", "%s key %s policy %q has enforcement detect, which would weaken this deployment's default-on deny baseline (config haptic.waf.dispatch); HAPTIC lets only trusted policies do that, so the rule fails closed — set enforcement: deny or select a trusted policy", where, ref.Key, w.Policy)
		return false
	}
	w.catalogRead, w.requestBody = true, e.mode
	return true
}

// uncheckedSource marks a trusted selection gwpol could not check.
const uncheckedSource = "unchecked"

// selection is one self-service catalog entry a policy selects.
type selection struct{ ns, name, key, policy string }

func (s selection) String() string { return s.ns + "/" + s.name + "/" + s.key + "#" + s.policy }

// wafBudget decides, once per run, which self-service catalog entries fit
// the deployment's limits (selfService.limits). The limits count catalog
// entries, not selections: 49-policy-waf.yaml hands BuildWafCatalog every
// catalog a route policy references whole (its policyYAML, one record per
// scope namespace/name/key) before SelectWafPolicy picks an entry, as the
// Ingress engine registers every entry of a catalog
// (83-waf-policies.yaml@a3a8c5a1: util-waf-haptic-coraza-scan, nsCount
// and ssTotal per registered entry), and HAPTIC's policy reference says
// distinct catalog entries share the budgets. So every entry of every
// referenced catalog counts once, however many policies select it, in
// scope order and, within a catalog, name order; an entry past a limit is
// not loaded, and as HAPTIC diagnoses a catalog by its scope, every
// policy selecting from that catalog fails closed. A catalog that
// cannot be read (missing, mutable, invalid) loads nothing and counts
// nothing. The outcome does not depend on document order.
type wafBudget struct {
	once sync.Once
	over map[selection]string
}

// exceeded returns which limit s is over ("" when it fits). A nil budget
// (the zero Kind) computes the admission every time.
func (b *wafBudget) exceeded(m *model.Model, cache *catalogCache, s Settings, sel selection) string {
	if s.MaxPerNamespace == 0 && s.MaxTotal == 0 {
		return ""
	}
	if b == nil {
		return admit(m, cache, s)[sel]
	}
	b.once.Do(func() { b.over = admit(m, cache, s) })
	return b.over[sel]
}

// catalogScope is one self-service catalog: a ConfigMap key in a
// namespace.
type catalogScope struct{ ns, name, key string }

// admit lists the catalog entries over a limit, with the limit they break.
func admit(m *model.Model, cache *catalogCache, s Settings) map[selection]string {
	if m == nil {
		return nil
	}
	seen := map[catalogScope]bool{}
	for _, o := range m.OfKind(model.GroupKind{Group: Group, Kind: KindName}) {
		if sel, ok := selectionOf(o); ok {
			seen[catalogScope{sel.ns, sel.name, sel.key}] = true
		}
	}
	scopes := slices.SortedFunc(maps.Keys(seen), func(a, b catalogScope) int {
		return strings.Compare(a.ns+"/"+a.name+"/"+a.key, b.ns+"/"+b.name+"/"+b.key)
	})
	over := map[selection]string{}
	perNS := map[string]int{}
	total := 0
	for _, sc := range scopes {
		c := m.ConfigMap(sc.ns, sc.name)
		if c == nil || !c.Immutable {
			continue
		}
		text := catalogText(c, sc.key)
		if text == nil || text.Kind != yaml.ScalarNode || len(text.Value) > maxCatalogBytes {
			continue
		}
		entries, err := cache.parse(c, sc.key, text.Value, s.rules(true))
		if err != nil {
			continue
		}
		names := slices.Sorted(maps.Keys(entries))
		problem := ""
		for _, name := range names {
			switch {
			case s.MaxPerNamespace > 0 && perNS[sc.ns] >= s.MaxPerNamespace:
				problem = cmp.Or(problem, fmt.Sprintf("the namespace limit of %d self-service WAF policies at its entry %q (config haptic.waf.policies.selfService.limits.maxPoliciesPerNamespace; every entry of the namespace's referenced catalogs counts, selected or not)", s.MaxPerNamespace, name))
			case s.MaxTotal > 0 && total >= s.MaxTotal:
				problem = cmp.Or(problem, fmt.Sprintf("the cluster limit of %d self-service WAF policies at its entry %q (config haptic.waf.policies.selfService.limits.maxTotalPolicies; every entry of the referenced catalogs counts, selected or not)", s.MaxTotal, name))
			default:
				perNS[sc.ns]++
				total++
			}
		}
		// A catalog's problems are diagnosed by scope, not by entry
		// (49-policy-waf.yaml: the first diagnostic of the scope is every
		// selection's error), as an invalid entry breaks its whole
		// catalog (W5): one entry past a limit fails every selection.
		if problem != "" {
			for _, name := range names {
				over[selection{sc.ns, sc.name, sc.key, name}] = problem
			}
		}
	}
	return over
}

// selectionOf reads the self-service selection of a policy object, if any.
func selectionOf(o *manifest.Object) (selection, bool) {
	var hp HAProxyRoutePolicy
	if _, err := o.DecodeStrict(&hp); err != nil || hp.Spec.WAF == nil || !written(o, "spec.waf.catalogRef") {
		return selection{}, false
	}
	w := hp.Spec.WAF
	if strings.TrimSpace(w.Policy) == "" || strings.TrimSpace(w.CatalogRef.Name) == "" {
		return selection{}, false
	}
	key := w.CatalogRef.Key
	if key == "" {
		key = DefaultCatalogKey
	}
	return selection{o.Namespace, w.CatalogRef.Name, key, w.Policy}, true
}
