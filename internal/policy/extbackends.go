package policy

import (
	"fmt"
	"sort"

	"github.com/gwpol/gwpol/internal/topology"
)

// Extension backends: a controller built with extension plugins (kgateway
// embedded with extra plugins) resolves backendRefs of kinds those plugins
// register to the backends the plugins list — objects gwpol never reads.
// The deployment's configuration declares them (Controller.ExtensionBackends,
// a list setting of entries {group, kind, namespace, name, port}); topology
// resolves a backendRef against them (topology.Options.ExtensionBackends).

// ExtensionBackends are the backends the registered controllers'
// extension settings declare under cfg. An entry Check refused does not
// reach here (the config reader refuses it first); one built by hand
// that does not parse is left out.
func (r *Registry) ExtensionBackends(cfg Config) []topology.ExtensionBackend {
	var out []topology.ExtensionBackend
	for _, c := range r.controllers {
		if c.ExtensionBackends == nil {
			continue
		}
		list, _ := c.ExtensionBackends.value(cfg).([]any)
		for _, e := range list {
			if b, err := parseExtensionBackend(e); err == nil {
				out = append(out, b)
			}
		}
	}
	return out
}

// CheckExtensionBackends validates the value of the extension backends
// setting of that key (Setting.Check): every entry a map with kind,
// namespace and name strings, an optional group string and an optional
// whole port.
func CheckExtensionBackends(key string) func(v any) error {
	return func(v any) error {
		list, _ := v.([]any)
		for i, e := range list {
			if _, err := parseExtensionBackend(e); err != nil {
				return fmt.Errorf("%s[%d]: %v", key, i, err)
			}
		}
		return nil
	}
}

func parseExtensionBackend(e any) (topology.ExtensionBackend, error) {
	var b topology.ExtensionBackend
	m, ok := e.(map[string]any)
	if !ok {
		return b, fmt.Errorf("must be a map of group, kind, namespace, name and port, not %s", show(e))
	}
	known := map[string]*string{"group": &b.Group, "kind": &b.Kind, "namespace": &b.Namespace, "name": &b.Name}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first bad key named is always the same one
	for _, k := range keys {
		v := m[k]
		if k == "port" {
			n, err := Setting{Key: "port", Default: 0}.Parse(v)
			if err != nil || n.(int) < 0 || n.(int) > 65535 {
				return b, fmt.Errorf("port must be a whole number from 0 to 65535, not %s", show(v))
			}
			b.Port = int32(n.(int))
			continue
		}
		dst, ok := known[k]
		if !ok {
			return b, fmt.Errorf("unknown key %q (group, kind, namespace, name, port)", k)
		}
		s, ok := v.(string)
		if !ok {
			return b, fmt.Errorf("%s must be a string, not %s", k, show(v))
		}
		*dst = s
	}
	for _, req := range [][2]string{{"kind", b.Kind}, {"namespace", b.Namespace}, {"name", b.Name}} {
		if req[1] == "" {
			return b, fmt.Errorf("%s is required", req[0])
		}
	}
	return b, nil
}
