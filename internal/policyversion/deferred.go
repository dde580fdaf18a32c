package policyversion

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/gwpol/gwpol/internal/diag"
)

// A deferred param is one whose value is only known at deploy time, so its
// type cannot be checked offline. Two forms exist upstream:
//
//   - the gateway operator replaces a map that is exactly
//     {valueFrom: {secretKeyRef|configMapKeyRef: {name, key, namespace?}}}
//     with the string it reads from that Secret or ConfigMap key;
//   - the gateway-controller renders every string containing "{{" as a Go
//     template with its own functions (env, secret, default, …).
//
// Both yield a string, which the controller (at 1c84e11c) validates as it
// is: a deferred value fits where the schema admits a string, never where
// it wants an integer, number or boolean (the coercion of rendered strings
// came to the controller later, in f15757a16). Malformed forms are
// rejected upstream and are errors here too.

// Deferred is one param whose value is resolved at deploy time.
type Deferred struct {
	// Path is the JSON pointer of the value inside params.
	Path string
	// Source says where the value comes from, for the info note:
	// `Secret shop/keys key "token"`, `template {{ env "PORT" }}`.
	Source string
}

// Field is Path the way gwpol's field paths read (see ParamError.Field).
func (d Deferred) Field() string { return ParamError{Path: d.Path}.Field() }

// Problem is the info note about a deferred param of a reference resolved
// to def.
func (d Deferred) Problem(def *Definition) Problem {
	at := "params"
	if f := d.Field(); f != "" {
		at = "params." + f
	}
	return Problem{
		Code:     LintParamDeferred.Code,
		Severity: diag.Info,
		Message: fmt.Sprintf("%s of %s comes from %s, resolved at deploy time to a string, which the parameters schema of %s admits there; its value is not checked",
			at, def.Identity(), d.Source, def),
		Hint: "make sure the value it yields at deploy time fits the schema (gwpol cannot see it)",
	}
}

// ControllerTemplateFuncs are the template functions the WSO2
// gateway-controller registers (pkg/templateengine/funcs). A template
// naming any other function fails to parse there, and the API is rejected.
var ControllerTemplateFuncs = []string{"default", "env", "lower", "redact", "replace", "required", "secret", "trim", "upper"}

// parseFuncs stands in for the controller's functions: parsing checks
// that every function a template names exists, and nothing is executed.
var parseFuncs = func() template.FuncMap {
	fm := template.FuncMap{}
	for _, name := range ControllerTemplateFuncs {
		fm[name] = func(...any) string { return "" }
	}
	return fm
}()

// deferParams walks a params instance and replaces every valueFrom map
// with a string, as the operator does, recording each deferred value and
// each malformed form (as ParamErrors).
func deferParams(v any, path string, out *[]Deferred, errs *[]ParamError) any {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := valueFrom(x, path, out, errs); ok {
			return s
		}
		for k, child := range x {
			x[k] = deferParams(child, path+"/"+escapeToken(k), out, errs)
		}
	case []any:
		for i, child := range x {
			x[i] = deferParams(child, path+"/"+strconv.Itoa(i), out, errs)
		}
	case string:
		if !strings.Contains(x, "{{") {
			return x
		}
		if problem := TemplateProblem(x); problem != "" {
			*errs = append(*errs, ParamError{Path: path, Message: problem})
			return x
		}
		*out = append(*out, Deferred{Path: path, Source: "template " + x})
	}
	return v
}

// valueFrom recognises the operator's {valueFrom: {...}} form: a map with
// that one key. ok is false for any other map. A malformed form is an
// error the operator rejects the route for.
func valueFrom(m map[string]any, path string, out *[]Deferred, errs *[]ParamError) (string, bool) {
	raw, found := m["valueFrom"]
	if !found || len(m) != 1 {
		return "", false
	}
	const placeholder = "valueFrom"
	fail := func(format string, args ...any) (string, bool) {
		*errs = append(*errs, ParamError{Path: path + "/valueFrom", Message: fmt.Sprintf(format, args...) + "; the gateway operator rejects it"})
		return placeholder, true
	}
	inner, ok := raw.(map[string]any)
	if !ok {
		return fail("valueFrom must be an object with secretKeyRef or configMapKeyRef")
	}
	var kinds, unknown []string
	for k := range inner {
		switch k {
		case "secretKeyRef", "configMapKeyRef":
			kinds = append(kinds, k)
		default:
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	switch {
	case len(unknown) > 0:
		return fail("valueFrom has unknown field(s) %s (want one of secretKeyRef, configMapKeyRef)", strings.Join(unknown, ", "))
	case len(kinds) != 1:
		return fail("valueFrom needs exactly one of secretKeyRef and configMapKeyRef")
	}
	kind := kinds[0]
	ref, ok := inner[kind].(map[string]any)
	if !ok {
		return fail("valueFrom.%s must be an object {name, key, namespace}", kind)
	}
	for k := range ref {
		if k != "name" && k != "key" && k != "namespace" {
			return fail("valueFrom.%s has unknown field %q (want name, key, namespace)", kind, k)
		}
	}
	name, _ := ref["name"].(string)
	key, _ := ref["key"].(string)
	if strings.TrimSpace(name) == "" || strings.TrimSpace(key) == "" {
		return fail("valueFrom.%s needs a non-empty name and key", kind)
	}
	if ns, found := ref["namespace"]; found {
		if _, ok := ns.(string); !ok {
			return fail("valueFrom.%s.namespace must be a string", kind)
		}
	}
	what := "Secret"
	if kind == "configMapKeyRef" {
		what = "ConfigMap"
	}
	if ns, _ := ref["namespace"].(string); strings.TrimSpace(ns) != "" {
		name = strings.TrimSpace(ns) + "/" + name
	}
	*out = append(*out, Deferred{Path: path, Source: fmt.Sprintf("%s %s key %q (valueFrom.%s)", what, strings.TrimSpace(name), strings.TrimSpace(key), kind)})
	return placeholder, true
}

// TemplateProblem says why the gateway-controller cannot parse s as one
// of its templates (pkg/templateengine/render.go: render parses every
// string containing "{{" with its own functions), and the API is refused;
// "" when s parses or holds no template.
func TemplateProblem(s string) string {
	if !strings.Contains(s, "{{") {
		return ""
	}
	if _, err := template.New("param").Funcs(parseFuncs).Parse(s); err != nil {
		return fmt.Sprintf("template %q does not parse (the gateway-controller rejects the API): %s; its functions are %s",
			s, templateError(err), strings.Join(ControllerTemplateFuncs, ", "))
	}
	return ""
}

// templateError is a text/template parse error without its "template:
// param:1:" prefix.
func templateError(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 && strings.HasPrefix(msg, "template: ") {
		return msg[i+2:]
	}
	return msg
}

func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// stringAt reports whether the schema lets the value at pointer be a
// string: no type there (or no schema known), type string, or a type list
// with string.
func stringAt(schema any, pointer string) bool {
	s, _ := schema.(map[string]any)
	for _, tok := range splitPointer(pointer) {
		if s == nil {
			return true
		}
		s = childSchema(s, tok)
	}
	if s == nil {
		return true
	}
	switch t := s["type"].(type) {
	case string:
		return t == "string"
	case []any:
		return slices.Contains(t, any("string"))
	}
	return true
}

func childSchema(s map[string]any, tok string) map[string]any {
	if props, ok := s["properties"].(map[string]any); ok {
		if c, ok := props[tok].(map[string]any); ok {
			return c
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		if _, err := strconv.Atoi(tok); err == nil {
			return items
		}
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		return ap
	}
	return nil
}

func splitPointer(p string) []string {
	if p == "" {
		return nil
	}
	toks := strings.Split(p[1:], "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}
