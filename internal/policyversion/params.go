package policyversion

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// ParamError is one way a reference's params fail the definition's
// parameters schema.
type ParamError struct {
	// Path is the JSON pointer of the failing value inside params, e.g.
	// "/header" or "/limits/0/requests"; "" is params itself (a missing
	// required property is reported at the object that lacks it).
	Path    string
	Message string
}

// Field renders Path the way gwpol's field paths read, relative to params:
// "/limits/0/requests" becomes "limits[0].requests"; "" stays "".
func (e ParamError) Field() string {
	if e.Path == "" {
		return ""
	}
	var b strings.Builder
	for _, tok := range strings.Split(e.Path[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// Problem is the GWP506 finding for this error in a reference resolved to
// def.
func (e ParamError) Problem(def *Definition) Problem {
	at := "params"
	if f := e.Field(); f != "" {
		at = "params." + f
	}
	return Problem{
		Code:     LintParamsSchema.Code,
		Severity: diag.Error,
		Message:  fmt.Sprintf("%s of %s fail the parameters schema of %s: %s", at, def.Identity(), def, e.Message),
		Hint:     "make the params match the definition's parameters schema",
	}
}

// SchemaProblem reports a parameters schema that does not compile, as a
// GWP506 problem of the definition (params referencing it cannot be
// checked); nil when the schema compiles or there is none. The schema is
// compiled once, on first use, and cached.
func (d *Definition) SchemaProblem() *Problem {
	d.compile()
	return d.schemaProb
}

// UncheckableProblem is the GWP506 finding for a reference resolved to
// def when def's parameters schema does not compile (SchemaProblem): the
// gateway-controller's validatePolicyParams gets an error from
// gojsonschema.Validate and reports it ("Failed to validate policy
// parameters"), so it refuses the API whatever its params — even none,
// since absent params are validated as an empty object. Nil when the
// schema compiles or there is none, and when it refers to a schema
// outside the definition, which gwpol does not load and the controller
// does.
func (d *Definition) UncheckableProblem() *Problem {
	if d.SchemaProblem() == nil || d.external {
		return nil
	}
	return &Problem{
		Code:     LintParamsSchema.Code,
		Severity: diag.Error,
		Message: fmt.Sprintf("the params of %s cannot be validated: the parameters schema of %s is not valid JSON Schema, so the gateway-controller fails to validate them (\"Failed to validate policy parameters\") and refuses the API",
			d.Identity(), d),
		Hint: "fix the parameters schema of the definition (the finding on the definition says where)",
	}
}

// refuseLoader keeps $ref inside the definition: a policy definition may
// not make gwpol read files or the network. It notes that it was asked:
// the controller would load the reference, so what then fails to compile
// says nothing of what the controller does.
type refuseLoader struct{ asked *bool }

func (l refuseLoader) Load(url string) (any, error) {
	*l.asked = true
	return nil, fmt.Errorf("gwpol does not load external schemas (%s); only references inside the definition's parameters work", url)
}

const schemaURL = "mem:///parameters.json"

func (d *Definition) compile() {
	d.once.Do(func() {
		if len(d.Parameters) == 0 {
			return
		}
		fail := func(err error) {
			msg, at := schemaErrorText(err)
			d.schemaPath = at
			d.schemaProb = &Problem{
				Code:     LintParamsSchema.Code,
				Severity: diag.Error,
				Message:  fmt.Sprintf("the parameters schema of policy definition %s is not valid JSON Schema (%s); params of references to it cannot be checked", d, msg),
				Hint:     "fix the parameters schema (JSON Schema draft-7)",
			}
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.Parameters))
		if err != nil {
			fail(err)
			return
		}
		sch, err := compileSchema(doc, jsonschema.Draft7, &d.external)
		if err != nil {
			// The controller's gojsonschema reads a schema that names no
			// $schema in its hybrid mode, which takes draft-4 forms too
			// (a boolean exclusiveMinimum): a schema draft-4 compiles is
			// one the controller validates with, in draft-4's sense.
			if sch4, err4 := compileSchema(doc, jsonschema.Draft4, &d.external); err4 == nil {
				sch, err = sch4, nil
			}
		}
		if err != nil {
			fail(err)
			return
		}
		d.schema, d.schemaDoc = sch, doc
	})
}

// compileSchema compiles a parameters schema, draft the default where it
// names no $schema.
func compileSchema(doc any, draft *jsonschema.Draft, external *bool) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	c.AssertFormat()
	registerControllerFormats(c)
	c.UseLoader(refuseLoader{asked: external})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// ValidateParams is CheckParams without the deferred params.
func (d *Definition) ValidateParams(params any) []ParamError {
	errs, _ := d.CheckParams(params)
	return errs
}

// CheckParams checks a reference's params against the definition's
// parameters schema the way the operator and gateway-controller (at
// 1c84e11c) resolve and validate them: valueFrom maps become the string the
// operator reads from the Secret or ConfigMap, strings holding "{{" are the
// controller's templates (which must parse with its functions) and render
// to strings, absent params are validated as an empty object (so required
// properties are enforced), and nothing is coerced — validatePolicyParams
// hands gojsonschema the params as parsed, so "10" where the schema
// declares an integer fails. A deferred value (valueFrom or template) is a
// string whose content is not known offline: a failure at it stands where
// the schema there does not admit a string, and failures of its content
// (enum, pattern, format, length) are dropped; it is returned in deferred
// for an info note.
//
// params may be any JSON-encodable value (map[string]any from YAML,
// json.RawMessage, []byte of JSON, a struct). A definition without a schema,
// or whose schema does not compile (see SchemaProblem), reports nothing.
// Errors and deferred params are sorted by path.
func (d *Definition) CheckParams(params any) (errs []ParamError, deferred []Deferred) {
	d.compile()
	if d.schema == nil {
		return nil, nil
	}
	inst, err := instance(params)
	if err != nil {
		return []ParamError{{Message: "params cannot be read as JSON: " + err.Error()}}, nil
	}
	inst = deferParams(inst, "", &deferred, &errs)
	slices.SortFunc(deferred, func(a, b Deferred) int { return cmp.Compare(a.Path, b.Path) })
	if err := d.schema.Validate(inst); err != nil {
		ve, ok := err.(*jsonschema.ValidationError)
		if !ok {
			return append(errs, ParamError{Message: err.Error()}), deferred
		}
		var all []ParamError
		collect(ve, &all)
		errs = append(errs, d.undeferred(all, deferred, errs)...)
	}
	slices.SortFunc(errs, func(a, b ParamError) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(errs), deferred
}

// undeferred drops the failures at a deferred value whose schema admits a
// string: the string's content is what fails, and it is not known offline.
// Where the schema wants another type, the string the value becomes cannot
// fit, and the failure stays, saying so. Failures at a malformed valueFrom
// or template (already in form) are dropped too: the form error says what
// is wrong there.
func (d *Definition) undeferred(errs []ParamError, deferred []Deferred, form []ParamError) []ParamError {
	var out []ParamError
	for _, e := range errs {
		i := slices.IndexFunc(deferred, func(df Deferred) bool { return df.Path == e.Path })
		malformed := slices.ContainsFunc(form, func(f ParamError) bool { return f.Path == e.Path || f.Path == e.Path+"/valueFrom" })
		switch {
		case malformed:
		case i < 0:
			out = append(out, e)
		case !stringAt(d.schemaDoc, e.Path):
			e.Message = deferred[i].Source + " yields a string: " + e.Message
			out = append(out, e)
		}
	}
	return out
}

// instance turns params into the JSON value model the validator expects
// (map[string]any, []any, json.Number, string, bool, nil), on a copy, so
// coercion never touches the caller's value. Absent params are {}.
func instance(params any) (any, error) {
	var raw []byte
	switch p := params.(type) {
	case nil:
		return map[string]any{}, nil
	case json.RawMessage:
		raw = p
	case []byte:
		raw = p
	default:
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	if v == nil {
		return map[string]any{}, nil
	}
	return v, nil
}

// collect flattens a validation error tree into the failures a user can act
// on: the leaves, except that a failed anyOf/oneOf is one error (its
// branches' failures are alternatives, not separate problems) and
// additionalProperties is one error per unexpected property, at that
// property's path.
func collect(e *jsonschema.ValidationError, out *[]ParamError) {
	path := pointer(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
		if len(e.Causes) > 0 {
			var alts []ParamError
			for _, c := range e.Causes {
				collect(c, &alts)
			}
			parts := make([]string, 0, len(alts))
			for _, a := range alts {
				if a.Path != path {
					parts = append(parts, a.Path+": "+a.Message)
				} else {
					parts = append(parts, a.Message)
				}
			}
			*out = append(*out, ParamError{Path: path, Message: kindText(e) + " (" + strings.Join(slices.Compact(parts), "; ") + ")"})
			return
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, ParamError{
				Path:    pointer(append(slices.Clone(e.InstanceLocation), p)),
				Message: fmt.Sprintf("property %q is not allowed by the schema (additionalProperties is false)", p),
			})
		}
		return
	}
	if len(e.Causes) == 0 {
		*out = append(*out, ParamError{Path: path, Message: kindText(e)})
		return
	}
	for _, c := range e.Causes {
		collect(c, out)
	}
}

// kindText is the validator's English message for one error, without the
// causes below it.
func kindText(e *jsonschema.ValidationError) string {
	leaf := *e
	leaf.Causes = nil
	if out := leaf.BasicOutput(); out != nil && out.Error != nil {
		return out.Error.String()
	}
	return "validation failed"
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// schemaErrorText is a compile error on one line: a schema that fails the
// metaschema lists each failing keyword with its path inside parameters.
// at is the path of the first failure ("" when unknown).
func schemaErrorText(err error) (msg, at string) {
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if errors.As(err, &sve) && errors.As(sve.Err, &ve) {
		var errs []ParamError
		collect(ve, &errs)
		parts := make([]string, 0, len(errs))
		for _, e := range errs {
			p := e.Path
			if p == "" {
				p = "/"
			}
			parts = append(parts, "at "+p+": "+e.Message)
		}
		if len(parts) > 0 {
			return strings.Join(slices.Compact(parts), "; "), errs[0].Path
		}
	}
	msg = strings.ReplaceAll(err.Error(), schemaURL, "parameters")
	return strings.Join(strings.Fields(msg), " "), ""
}
