package envoygateway

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/yuin/gopher-lua/parse"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// luaScripts is what the syntax check reads of an EnvoyExtensionPolicy.
type luaScripts struct {
	Lua []struct {
		Inline *string `json:"inline"`
	} `json:"lua"`
}

// checkLuaSyntax: an inline Lua script that does not parse makes the
// policy Invalid with Envoy Gateway's message (it parses with the same
// Lua 5.1 parser, gopher-lua). The script is only parsed, never run:
// Envoy Gateway's stricter validation, which runs it against a mock of
// Envoy's API, is not reproduced. An EnvoyProxy with luaValidation
// Disabled on a Gateway the policy reaches turns the check off.
func checkLuaSyntax(p *policy.Policy, raw []byte, m *model.Model) {
	var l luaScripts
	if json.Unmarshal(raw, &l) != nil || len(l.Lua) == 0 || luaValidationDisabled(p, m) {
		return
	}
	for i, s := range l.Lua {
		if s.Inline == nil {
			continue
		}
		_, err := parse.Parse(strings.NewReader(*s.Inline), "<string>")
		if err == nil {
			continue
		}
		name := fmt.Sprintf("envoyextensionpolicy/%s/%s/lua/%d", p.Obj.Namespace, p.Obj.Name, i)
		p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, fmt.Sprintf("spec.lua[%d].inline", i),
			"Lua: validation failed for lua body in policy with name %s: failed to validate with %s: %s.", name, luaEntry(*s.Inline), strings.TrimSpace(err.Error())))
	}
}

// luaValidationDisabled reports whether the EnvoyProxy of a Gateway p
// reaches sets luaValidation: Disabled.
func luaValidationDisabled(p *policy.Policy, m *model.Model) bool {
	for _, gs := range reachedGateways(p, m) {
		key, ok := envoyProxyOf(gs.gw, m)
		if !ok {
			continue
		}
		if o, ok := m.Object(key); ok {
			if b, err := o.FieldJSON("spec.luaValidation"); err == nil && string(b) == `"Disabled"` {
				return true
			}
		}
	}
	return false
}

// luaEntry is the Envoy entry point a script defines, the one Envoy
// Gateway names when it cannot validate the script.
func luaEntry(script string) string {
	if strings.Contains(script, "envoy_on_request") || !strings.Contains(script, "envoy_on_response") {
		return "envoy_on_request"
	}
	return "envoy_on_response"
}
