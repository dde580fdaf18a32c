package haptic

import (
	"regexp"
	"sync"

	"github.com/gwpol/gwpol/internal/model"
	yaml "go.yaml.in/yaml/v3"
)

const scalarKind = yaml.ScalarNode

// maxCatalogBytes bounds the catalog text gwpol parses.
const maxCatalogBytes = 1 << 20

// catalogEntry is the part of a WAF catalog entry gwpol reads: whether the
// policy buffers request bodies. Other settings are HAPTIC's business.
type catalogEntry struct {
	RequestBody *struct {
		Mode *string `yaml:"mode"`
	} `yaml:"requestBody"`
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
	cm  *model.Opaque
	key string
}

type parsedCatalog struct {
	entries map[string]catalogEntry
	err     error
}

// parse parses a catalog's text, once per ConfigMap and key. A nil cache
// parses every time.
func (c *catalogCache) parse(cm *model.Opaque, key, text string) (map[string]catalogEntry, error) {
	if c == nil {
		return parseCatalog(text)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := catalogKey{cm, key}
	if p, ok := c.m[k]; ok {
		return p.entries, p.err
	}
	entries, err := parseCatalog(text)
	c.m[k] = parsedCatalog{entries, err}
	return entries, err
}

func parseCatalog(text string) (map[string]catalogEntry, error) {
	var entries map[string]catalogEntry
	err := yaml.Unmarshal([]byte(text), &entries)
	return entries, err
}

// catalog checks the WAF catalog ConfigMap: it exists in the policy's
// namespace, is immutable, holds the key, parses, and has the policy.
// Findings never quote the catalog's content.
func (v *validator) catalog(base string, w *WAF) {
	path := base + ".catalogRef"
	ref := w.CatalogRef
	var c *model.Opaque
	if m := v.model(); m != nil {
		c = m.ConfigMap(v.ns, ref.Name)
	}
	if c == nil {
		v.dependency(path+".name", "WAF catalog ConfigMap %s/%s not found; create it (immutable: true, with key %s) or fix the name — the rule fails closed until then", v.ns, ref.Name, ref.Key)
		return
	}
	if !c.Immutable {
		v.dependency(path+".name", "WAF catalog ConfigMap %s/%s is mutable; set immutable: true (and publish a new name to change it) — the rule fails closed until then", v.ns, ref.Name)
		return
	}
	where := "WAF catalog ConfigMap " + v.ns + "/" + ref.Name
	var text *yaml.Node
	if c.Src != nil {
		text = mapValue(c.Src.Lookup("data"), ref.Key)
	}
	if text == nil {
		v.dependency(path+".key", "%s has no data key %s; the rule fails closed until it does", where, ref.Key)
		return
	}
	if text.Kind != yaml.ScalarNode || len(text.Value) > maxCatalogBytes {
		v.dependency(path+".key", "%s key %s must be a YAML document of at most %d bytes; the rule fails closed until it is", where, ref.Key, maxCatalogBytes)
		return
	}
	entries, err := v.catalogs.parse(c, ref.Key, text.Value)
	if err != nil {
		at := ""
		if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
			at = " (line " + m[1] + " of " + ref.Key + ")"
		}
		v.dependency(path+".key", "%s key %s is not a map of WAF policy names to settings%s; the rule fails closed until it is", where, ref.Key, at)
		return
	}
	e, ok := entries[w.Policy]
	if !ok {
		v.dependency(base+".policy", "%s key %s has no policy %q; add it to the catalog or fix the name — the rule fails closed until then", where, ref.Key, w.Policy)
		return
	}
	w.catalogRead = true
	if e.RequestBody != nil && e.RequestBody.Mode != nil {
		w.requestBody = *e.RequestBody.Mode
	}
}
