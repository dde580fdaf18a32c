package haptic

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/gwpol/gwpol/internal/model"
	yaml "go.yaml.in/yaml/v3"
)

// maxCatalogBytes bounds the catalog text gwpol parses.
const maxCatalogBytes = 1 << 20

// catalogEntry is the part of a WAF catalog entry gwpol reads: whether the
// policy buffers request bodies. Other settings are HAPTIC's business.
type catalogEntry struct {
	// mode is requestBody.mode, "" when the entry does not say (the
	// chart's default, none: headers only).
	mode string
	// problem says why HAPTIC would reject the entry ("" when valid).
	problem string
}

// requestBodyModes are the requestBody.mode values the chart's values.yaml
// documents for a WAF policy: none (the default: headers only, what a
// GRPCRoute needs), any and json (bodies buffered and inspected).
// Anything else makes the catalog invalid.
var requestBodyModes = []string{"none", "any", "json"}

// enforcements are a policy's enforcement values (values.yaml: deny, the
// default, or detect) and paranoia its paranoiaLevel range (1 … 4).
var enforcements = []string{"deny", "detect"}

const minParanoia, maxParanoia = 1, 4

// entryRules are what a catalog's source allows its entries: a
// self-service catalog may not carry secLang unless the deployment allows
// it (values.yaml: waf.policies.selfService.allowSecLang); trusted
// catalogs and inline policies may.
type entryRules struct {
	selfService, allowSecLang bool
}

// readEntry checks one catalog entry's shape: the settings values.yaml
// documents for a WAF policy and the limits the source sets.
func readEntry(v any, rules entryRules) catalogEntry {
	if v == nil {
		return catalogEntry{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return catalogEntry{problem: "is not a map of settings"}
	}
	if p := entrySettingsProblem(m, rules); p != "" {
		return catalogEntry{problem: p}
	}
	rb, ok := m["requestBody"]
	if !ok || rb == nil {
		return catalogEntry{}
	}
	rbm, ok := rb.(map[string]any)
	if !ok {
		return catalogEntry{problem: "requestBody is not a map"}
	}
	mv, ok := rbm["mode"]
	if !ok || mv == nil {
		return catalogEntry{}
	}
	mode, ok := mv.(string)
	if !ok {
		return catalogEntry{problem: "requestBody.mode is not a string"}
	}
	if !slices.Contains(requestBodyModes, mode) {
		return catalogEntry{problem: fmt.Sprintf("requestBody.mode %q is not one of %s", mode, strings.Join(requestBodyModes, ", "))}
	}
	return catalogEntry{mode: mode}
}

// entrySettingsProblem checks an entry's enforcement, paranoiaLevel and
// secLang against what values.yaml allows ("" when they pass).
func entrySettingsProblem(m map[string]any, rules entryRules) string {
	if e, ok := m["enforcement"]; ok && e != nil {
		s, isString := e.(string)
		if !isString || !slices.Contains(enforcements, s) {
			return fmt.Sprintf("enforcement must be one of %s", strings.Join(enforcements, ", "))
		}
	}
	if p, ok := m["paranoiaLevel"]; ok && p != nil {
		n, isInt := wholeNumber(p)
		if !isInt || n < minParanoia || n > maxParanoia {
			return fmt.Sprintf("paranoiaLevel must be a whole number from %d to %d", minParanoia, maxParanoia)
		}
	}
	if s, ok := m["secLang"]; ok && s != nil && s != "" && rules.selfService && !rules.allowSecLang {
		return "sets secLang, which a self-service catalog may not (config haptic.waf.policies.selfService.allowSecLang: false)"
	}
	return ""
}

// wholeNumber reads a YAML integer (decoded as int, or float64 from JSON).
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
	}
	return 0, false
}

// mapValue returns the value of key in a mapping node (aliases resolved),
// or nil. Keys such as "policies.yaml" contain dots, so Object.Lookup's
// path syntax cannot reach them.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	n = resolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if resolveAlias(n.Content[i]).Value == key {
			return resolveAlias(n.Content[i+1])
		}
	}
	return nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 16; i++ {
		n = n.Alias
	}
	return n
}

var yamlLineRE = regexp.MustCompile(`line ([0-9]+)`)

// catalogCache remembers parsed catalogs for one pipeline run: many
// policies usually share one catalog, which is then parsed once.
type catalogCache struct {
	mu sync.Mutex
	m  map[catalogKey]parsedCatalog
}

type catalogKey struct {
	cm    *model.Opaque
	key   string
	rules entryRules
}

type parsedCatalog struct {
	entries map[string]catalogEntry
	err     error
}

// parse parses a catalog's text, once per ConfigMap and key. A nil cache
// parses every time.
func (c *catalogCache) parse(cm *model.Opaque, key, text string, rules entryRules) (map[string]catalogEntry, error) {
	if c == nil {
		return parseCatalog(text, rules)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := catalogKey{cm, key, rules}
	if p, ok := c.m[k]; ok {
		return p.entries, p.err
	}
	entries, err := parseCatalog(text, rules)
	c.m[k] = parsedCatalog{entries, err}
	return entries, err
}

// parseCatalog reads a catalog: a map of WAF policy names to settings.
// HAPTIC takes a catalog whole or not at all, so an empty catalog or one
// invalid entry — selected or not — is an error.
func parseCatalog(text string, rules entryRules) (map[string]catalogEntry, error) {
	var raw map[string]any
	if err := yaml.Unmarshal([]byte(text), &raw); err != nil {
		return nil, err
	}
	if len(raw) == 0 {
		return nil, errEmptyCatalog
	}
	entries := make(map[string]catalogEntry, len(raw))
	for _, name := range slices.Sorted(maps.Keys(raw)) {
		e := readEntry(raw[name], rules)
		if e.problem != "" {
			return nil, fmt.Errorf("entry %q %s", name, e.problem)
		}
		entries[name] = e
	}
	return entries, nil
}

var errEmptyCatalog = errors.New("it defines no WAF policy")
