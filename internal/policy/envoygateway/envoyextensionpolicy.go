package envoygateway

import (
	"fmt"
	"slices"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/policy"
)

// EnvoyExtensionPolicy adds extensions to the traffic of a Gateway or
// route: Wasm modules, external processors and Lua scripts.
func EnvoyExtensionPolicy() *Kind { return envoyExtensionPolicy }

var envoyExtensionPolicy = &Kind{
	name:   "EnvoyExtensionPolicy",
	plural: "envoyExtensionPolicies",
	fields: []string{"wasm", "extProc", "lua", "dynamicModule"},
	// writes are the Envoy paths each field sets (policy.FieldSpec.Writes).
	writes: map[string][]string{
		"wasm":          {"-"},
		"extProc":       {"http_filter.envoy.filters.http.ext_proc/*", "typed_per_filter_config.envoy.filters.http.ext_proc/*", "clusters.*"},
		"lua":           {"http_filter.envoy.filters.http.lua/*", "typed_per_filter_config.envoy.filters.http.lua/*"},
		"dynamicModule": {"-"},
	},
	targets:   allTargets,
	mergeable: true,
}

// markFailOpen decides, once the policy is validated, whether its
// problems all fail open: an external processor or Wasm module that does
// not validate and sets failOpen is left out while Envoy Gateway applies
// the rest of the policy (which it still reports Invalid). Any other
// problem — in a Lua script, a dynamic module, an entry that fails
// closed, or outside the extensions — keeps the whole policy out, and
// its routes answer 500. The failed external processors are recorded on
// the extProc value, for render to leave out.
func markFailOpen(p *policy.Policy, spec *egv1a1.EnvoyExtensionPolicySpec) {
	if p.IsValid() {
		return
	}
	opens := func(b *bool) bool { return b != nil && *b }
	var extProc, wasm []bool
	for _, e := range spec.ExtProc {
		extProc = append(extProc, opens(e.FailOpen))
	}
	for _, w := range spec.Wasm {
		wasm = append(wasm, opens(w.FailOpen))
	}
	var failed []int
	for _, d := range p.Invalid {
		field, i, ok := extensionEntry(d.Field)
		if !ok {
			return
		}
		list := extProc
		if field == "wasm" {
			list = wasm
		}
		if i >= len(list) || !list[i] {
			return
		}
		if field == "extProc" && !slices.Contains(failed, i) {
			failed = append(failed, i)
		}
	}
	p.FailOpen = true
	if v, ok := p.Values["extProc"].(*fieldValue); ok && len(failed) > 0 {
		slices.Sort(failed)
		v.failed = failed
	}
}

// extensionEntry reads a diagnostic's field path spec.extProc[i]… or
// spec.wasm[i]…: the field and the entry's index.
func extensionEntry(path string) (field string, i int, ok bool) {
	for _, f := range []string{"extProc", "wasm"} {
		rest, found := strings.CutPrefix(path, "spec."+f+"[")
		if !found {
			continue
		}
		n, _, found := strings.Cut(rest, "]")
		if _, err := fmt.Sscanf(n, "%d", &i); found && err == nil {
			return f, i, true
		}
	}
	return "", 0, false
}
