package haptic

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
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
	// enforcement is the entry's enforcement, "" when it does not say
	// (the default, deny).
	enforcement string
	// problem says why HAPTIC would reject the entry ("" when valid).
	problem string
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
		e := readEntry(name, raw[name], rules)
		if e.problem != "" {
			return nil, fmt.Errorf("entry %q %s", name, e.problem)
		}
		entries[name] = e
	}
	return entries, nil
}

var errEmptyCatalog = errors.New("it defines no WAF policy")
