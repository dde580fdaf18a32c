package envoygateway

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// checkLuaSyntax: an inline Lua script that does not parse makes the
// policy Invalid with Envoy Gateway's message (it parses with the same
// Lua 5.1 parser, gopher-lua, and words the parser's error as it is, its
// closing new line included, before the condition's full stop). The script is only parsed, never run:
// Envoy Gateway's stricter validation, which runs it against a mock of
// Envoy's API, is not reproduced. A script whose text names neither
// envoy_on_request nor envoy_on_response is refused before anything is
// parsed (luavalidator: Validate), whatever the validation level. An
// EnvoyProxy with luaValidation Disabled on a Gateway the policy reaches
// turns the rest of the check off. A
// deployment that does not enable Lua (EnableLua) refuses every Lua
// policy, whatever its scripts say.
func checkLuaSyntax(p *policy.Policy, spec *egv1a1.EnvoyExtensionPolicySpec, m *model.Model, cfg policy.Config) {
	if len(spec.Lua) == 0 {
		return
	}
	if !EnableLua.Bool(cfg) {
		// buildLuas refuses before it looks at a script
		p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.lua",
			"Lua: Skipping Lua EnvoyExtensionPolicy as feature is disabled in the Gateway (%s)", enables(EnableLua)))
		return
	}
	disabled := luaValidationDisabled(p, m)
	strict := !disabled && luaValidationStrict(p, m)
	for i, s := range spec.Lua {
		if s.Inline == nil {
			continue
		}
		name := fmt.Sprintf("envoyextensionpolicy/%s/%s/lua/%d", p.Obj.Namespace, p.Obj.Name, i)
		if !strings.Contains(*s.Inline, "envoy_on_request") && !strings.Contains(*s.Inline, "envoy_on_response") {
			// Validate's first test, made whatever the validation level
			// (Disabled too): the script's text must name an entry point;
			// nothing is parsed.
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, fmt.Sprintf("spec.lua[%d].inline", i),
				"Lua: validation failed for lua body in policy with name %s: expected one of envoy_on_request() or envoy_on_response() to be defined.", name))
			continue
		}
		if disabled {
			continue
		}
		chunk, err := parse.Parse(strings.NewReader(*s.Inline), "<string>")
		if err != nil {
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, fmt.Sprintf("spec.lua[%d].inline", i),
				"Lua: validation failed for lua body in policy with name %s: failed to validate with %s: %s.", name, luaEntry(*s.Inline), err.Error()))
			continue
		}
		if !strict {
			continue
		}
		if entry, line, method, ok := unknownHandleMethod(chunk); ok {
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, fmt.Sprintf("spec.lua[%d].inline", i),
				"Lua: validation failed for lua body in policy with name %s: failed to validate with %s: <string>:%d: attempt to call a non-function object (the stream handle has no method %s).",
				name, entry, line, method))
		}
	}
}

// streamHandleMethods are the methods of the stream handle Envoy passes
// envoy_on_request and envoy_on_response (Envoy's Lua filter API, which
// Envoy Gateway's Strict validation mocks).
var streamHandleMethods = []string{"logTrace", "logDebug", "logInfo", "logWarn", "logErr", "logCritical", "headers", "body", "bodyChunks",
	"trailers", "httpCall", "respond", "metadata", "streamInfo", "connection", "connectionStreamInfo", "filterContext",
	"setUpstreamOverrideHost", "importPublicKey", "verifySignature", "base64Escape", "timestamp", "timestampString"}

// unknownHandleMethod finds, in the entry points a script defines, the
// first call of a method the stream handle does not have, made directly
// on the handle parameter (h:UnknownApi()). Envoy Gateway's Strict
// validation runs the script against a mock of the handle and fails on
// such a call when its branch runs; gwpol never runs input, so it reads
// the calls instead, in every branch.
func unknownHandleMethod(chunk []ast.Stmt) (entry string, line int, method string, ok bool) {
	for _, st := range chunk {
		def, isDef := st.(*ast.FuncDefStmt)
		if !isDef || def.Name == nil || def.Func == nil || def.Func.ParList == nil || len(def.Func.ParList.Names) == 0 {
			continue
		}
		id, isIdent := def.Name.Func.(*ast.IdentExpr)
		if !isIdent || (id.Value != "envoy_on_request" && id.Value != "envoy_on_response") {
			continue
		}
		handle := def.Func.ParList.Names[0]
		var found *ast.FuncCallExpr
		walkLua(reflect.ValueOf(def.Func.Stmts), func(c *ast.FuncCallExpr) bool {
			recv, onIdent := c.Receiver.(*ast.IdentExpr)
			if c.Method != "" && onIdent && recv.Value == handle && !slices.Contains(streamHandleMethods, c.Method) {
				found = c
				return false
			}
			return true
		})
		if found != nil {
			return id.Value, found.Line(), found.Method, true
		}
	}
	return "", 0, "", false
}

// walkLua calls f on every method or function call under v (a gopher-lua
// AST value), in source order, until f returns false.
func walkLua(v reflect.Value, f func(*ast.FuncCallExpr) bool) bool {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return true
		}
		if c, ok := v.Interface().(*ast.FuncCallExpr); ok {
			// The receiver and arguments are evaluated before the call.
			if !walkLua(reflect.ValueOf(c.Receiver), f) || !walkLua(reflect.ValueOf(c.Func), f) || !walkLua(reflect.ValueOf(c.Args), f) {
				return false
			}
			return f(c)
		}
		return walkLua(v.Elem(), f)
	case reflect.Slice:
		for i := range v.Len() {
			if !walkLua(v.Index(i), f) {
				return false
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !walkLua(v.Field(i), f) {
				return false
			}
		}
	}
	return true
}

// luaValidationStrict reports whether every Gateway p reaches validates
// Lua strictly (its EnvoyProxy's luaValidation, Strict unless set).
func luaValidationStrict(p *policy.Policy, m *model.Model) bool {
	for _, gs := range reachedGateways(p, m) {
		o, ok := effectiveProxy(gs.gw, m)
		if !ok {
			continue
		}
		if b, err := o.FieldJSON("spec.luaValidation"); err == nil && string(b) != "null" && string(b) != `"Strict"` {
			return false
		}
	}
	return true
}

// luaValidationDisabled reports whether the EnvoyProxy of a Gateway p
// reaches sets luaValidation: Disabled.
func luaValidationDisabled(p *policy.Policy, m *model.Model) bool {
	for _, gs := range reachedGateways(p, m) {
		o, ok := effectiveProxy(gs.gw, m)
		if !ok {
			continue
		}
		if b, err := o.FieldJSON("spec.luaValidation"); err == nil && string(b) == `"Disabled"` {
			return true
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
