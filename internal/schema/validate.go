package schema

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/parallel"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// version is one version of a CRD, with its validators compiled once.
type version struct {
	def        *apiextensionsv1.CustomResourceDefinition
	name       string
	served     bool
	deprecated bool
	warning    string

	once sync.Once
	err  error
	// structural is the version's structural schema (defaults pruned as
	// the API server prunes them); schema its OpenAPI validator; rules
	// its CEL rules (nil: none); status whether status is a subresource
	// (then a create ignores it).
	structural *structuralschema.Structural
	schema     onceValidator
	fast       *fastNode
	walks      *sNode
	rules      *rules
	status     bool
}

// compile builds the version's validators as the API server does when it
// starts serving the CRD.
func (v *version) compile() error {
	v.once.Do(func() {
		def := v.def
		val, err := apihelpers.GetSchemaForVersion(def, v.name)
		if err != nil {
			v.err = err
			return
		}
		if val == nil || val.OpenAPIV3Schema == nil {
			v.err = fmt.Errorf("version %s has no schema", v.name)
			return
		}
		internal := &apiextensions.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
			v.err = fmt.Errorf("version %s: %v", v.name, err)
			return
		}
		s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
		if err != nil {
			v.err = fmt.Errorf("version %s: schema is not structural: %v", v.name, err)
			return
		}
		if errs := structuralschema.ValidateStructural(field.NewPath("openAPIV3Schema"), s); len(errs) > 0 {
			v.err = fmt.Errorf("version %s: schema is not structural: %v", v.name, errs.ToAggregate())
			return
		}
		s = s.DeepCopy()
		if err := structuraldefaulting.PruneDefaults(s); err != nil {
			v.err = fmt.Errorf("version %s: defaults: %v", v.name, err)
			return
		}
		_, openapi, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
		if err != nil {
			v.err = fmt.Errorf("version %s: %v", v.name, err)
			return
		}
		// The validator the API server keeps per CRD version. With
		// ratcheting (on by default) apiservervalidation's own builds a new
		// kube-openapi validator on every call; for a create it validates
		// exactly as this one does.
		v.schema = onceValidator{validate.NewSchemaValidator(openapi, nil, "", strfmt.Default)}
		v.fast = compileFast(openapi)
		v.walks = compileWalks(s)
		v.structural = s
		v.rules = newRules(s)
		if sub, err := apihelpers.GetSubresourcesForVersion(def, v.name); err == nil && sub != nil && sub.Status != nil {
			v.status = true
		}
	})
	return v.err
}

// Options are the schema stage's settings.
type Options struct {
	// Lenient reports unknown fields as warnings (config strictFields:
	// false), as for kinds model types.
	Lenient bool
	// Known are the versions gwpol itself reads of a kind whose CRD it
	// ships (FromDependency): one an older CRD release served is read with
	// a GWP104 warning rather than refused, as clusters that still run
	// that release serve it. nil: none.
	Known func(group, kind, version string) bool
	// DefaultNamespace is given to objects of namespaced kinds that set
	// none, as kubectl does (and model, for the kinds it reads).
	DefaultNamespace string
}

// Result is what the stage decided about each object it checked.
type Result struct {
	// Diagnostics are the stage's findings, in input order.
	Diagnostics []diag.Diagnostic
	verdicts    map[*manifest.Object]Verdict
	fields      map[diag.ObjectRef]map[string]bool
}

// Unreported are the findings of ds (made by later stages) the stage did
// not already make: a finding with one of codes (besides the stage's own
// unknown-field and version codes) at a field the stage reported on the
// same object is left out, so that one problem is reported once, in the
// CRD's own words.
func (r *Result) Unreported(ds []diag.Diagnostic, codes ...string) []diag.Diagnostic {
	if r == nil || len(r.fields) == 0 {
		return ds
	}
	redundant := map[string]bool{LintUnknownField.Code: true, LintDeprecatedVersion.Code: true, LintVersionNotServed.Code: true}
	for _, c := range codes {
		redundant[c] = true
	}
	out := ds[:0:0]
	for _, d := range ds {
		if redundant[d.Code] && d.Field != "" && r.fields[d.Object][d.Field] {
			continue
		}
		out = append(out, d)
	}
	return out
}

// Verdict is the stage's answer for one object.
type Verdict struct {
	// Checked: a CRD for the object's kind is known, so its version was
	// decided here (and its fields validated when served).
	Checked bool
	// Served: the version is one to read (Checked only).
	Served bool
	// Rejected: the API server would refuse the object (a schema or rule
	// violation, or a version not served).
	Rejected bool
	// Fields are the field paths findings were made at, so that a later
	// stage does not report one of them a second time.
	Fields map[string]bool
	// Refusals are the findings the API server refuses the object for
	// (Rejected only): a later stage that leaves the object out, as a
	// cluster would never hold it, says why with them.
	Refusals []diag.Diagnostic
	// Unrun are the refusals of the object's CEL rules when an error
	// before them kept the API server from running them (blocking): not
	// findings, since the API server makes none of them, but a value
	// those rules judge was judged nowhere else. A later stage that
	// leaves out an object refused at a field it carries into every view
	// asks them too (a gRPC method match's characters are a CEL rule's:
	// a backendRef without a name must not let one reach Envoy).
	Unrun []diag.Diagnostic
}

// Verdict is the decision about o (the zero Verdict when no CRD for its
// kind is known or r is nil).
func (r *Result) Verdict(o *manifest.Object) Verdict {
	if r == nil {
		return Verdict{}
	}
	return r.verdicts[o]
}

// Validate checks every object of set whose kind has a CRD in cat. Objects
// are checked in parallel; validators are compiled once per CRD version.
func Validate(objs []*manifest.Object, cat *Catalog, opt Options) *Result {
	type out struct {
		v     Verdict
		diags []diag.Diagnostic
		ok    bool
	}
	res := make([]out, len(objs))
	parallel.Each(len(objs), func(i int) {
		o := objs[i]
		if IsCRD(o) || o.Kind == "" {
			return
		}
		d := cat.lookup(GroupKind{o.Group, o.Kind})
		if d == nil {
			return
		}
		if e, ok := o.Checked.(*early); ok && e.crd == d && e.opt == opt.key() {
			res[i].v, res[i].diags, res[i].ok = e.v, e.diags, true
			o.Checked = nil
			return
		}
		res[i].v, res[i].diags = checkDefaulted(o, d, opt)
		res[i].ok = true
	})
	// The maps sized for what they take: grown one doubling at a time,
	// every key would be hashed again at each.
	checked, withFields := 0, 0
	for i := range res {
		if res[i].ok {
			checked++
			if len(res[i].v.Fields) > 0 {
				withFields++
			}
		}
	}
	r := &Result{verdicts: make(map[*manifest.Object]Verdict, checked), fields: make(map[diag.ObjectRef]map[string]bool, withFields)}
	crdProblems := map[*crd]bool{}
	for i, o := range objs {
		if !res[i].ok {
			continue
		}
		r.verdicts[o] = res[i].v
		if len(res[i].v.Fields) > 0 {
			r.fields[o.Ref()] = res[i].v.Fields
		}
		for _, dg := range res[i].diags {
			if dg.Code == LintCRDUnusable.Code {
				// Once per CRD, not per object of its kind.
				d := cat.lookup(GroupKind{o.Group, o.Kind})
				if crdProblems[d] {
					continue
				}
				crdProblems[d] = true
			}
			r.Diagnostics = append(r.Diagnostics, dg)
		}
	}
	return r
}

// apiVersionOnly is the Fields of a checked object with no finding but
// its version's (shared: never written to).
var apiVersionOnly = map[string]bool{"apiVersion": true}

// early is Early's answer about an object: Validate takes it when the
// object's kind has the same CRD in its catalog and the options are the
// same.
type early struct {
	crd   *crd
	opt   optionsKey
	v     Verdict
	diags []diag.Diagnostic
}

type optionsKey struct {
	lenient   bool
	namespace string
}

func (o Options) key() optionsKey { return optionsKey{o.Lenient, o.DefaultNamespace} }

// Early validates o as Validate would against cat's CRD for its kind, and
// keeps the answer on the object (o.Checked) for Validate to take if its
// catalog holds the same CRD for the kind (a CRD in the input or --crds
// overriding it makes Validate check o again). A loader calls it on each
// object as it is read, before the object's tree is released, so that
// validating does not parse the object a second time. opt.Known must be
// the one Validate is given. Safe for concurrent use on different
// objects.
func Early(o *manifest.Object, cat *Catalog, opt Options) {
	if IsCRD(o) || o.Kind == "" {
		return
	}
	d := cat.lookup(GroupKind{o.Group, o.Kind})
	if d == nil {
		return
	}
	written := o.Namespace
	v, diags := checkDefaulted(o, d, opt)
	o.Namespace = written // as written, for the loader's next steps
	o.Checked = &early{crd: d, opt: opt.key(), v: v, diags: diags}
}

// checkDefaulted is check after giving o the default namespace, as
// kubectl does, when its kind is namespaced and it sets none.
func checkDefaulted(o *manifest.Object, d *crd, opt Options) (Verdict, []diag.Diagnostic) {
	if err := d.load(); err == nil && d.def.Spec.Scope != "Cluster" && o.Namespace == "" && opt.DefaultNamespace != "" {
		o.Namespace = opt.DefaultNamespace
	}
	return check(o, d, opt)
}

// check decides one object's version and validates it.
func check(o *manifest.Object, d *crd, opt Options) (Verdict, []diag.Diagnostic) {
	o.SetDefaults(nil) // an earlier check's, against another CRD
	if err := d.load(); err != nil {
		return Verdict{}, []diag.Diagnostic{d.unusable(err)}
	}
	v := d.versions[o.Version]
	if v == nil || !v.served {
		if d.origin == FromDependency && opt.Known != nil && opt.Known(o.Group, o.Kind, o.Version) {
			// An older CRD release served it; gwpol reads it.
			return Verdict{Checked: true, Served: true}, []diag.Diagnostic{{Code: LintDeprecatedVersion.Code, Severity: diag.Warning, Object: o.Ref(),
				Field: "apiVersion", Pos: o.FieldPos("apiVersion"),
				Message: fmt.Sprintf("%s %s is not served by the %s; only older releases serve it: use %s/%s", o.Kind, o.APIVersion, d.where(), d.gk.Group, d.preferred())}}
		}
		msg := fmt.Sprintf("%s %s is not a version the %s serves (it serves %s): the API server refuses the object, and gwpol leaves it out",
			o.Kind, o.APIVersion, d.where(), strings.Join(d.served(), ", "))
		refusal := []diag.Diagnostic{{Code: LintVersionNotServed.Code, Severity: diag.Error, Object: o.Ref(),
			Field: "apiVersion", Pos: o.FieldPos("apiVersion"), Message: msg}}
		return Verdict{Checked: true, Rejected: true, Refusals: refusal}, refusal
	}
	verdict := Verdict{Checked: true, Served: true, Fields: apiVersionOnly}
	var diags []diag.Diagnostic
	if v.deprecated {
		msg := v.warning
		if msg == "" {
			msg = fmt.Sprintf("%s/%s %s is deprecated", d.gk.Group, v.name, d.gk.Kind)
		}
		diags = append(diags, diag.Diagnostic{Code: LintDeprecatedVersion.Code, Severity: diag.Warning, Object: o.Ref(), Field: "apiVersion",
			Pos: o.FieldPos("apiVersion"), Message: o.Kind + " " + o.APIVersion + ": " + msg})
	}
	if err := v.compile(); err != nil {
		return verdict, append(diags, d.unusable(err))
	}
	fds, unrun, rejected := validateObject(o, d, v, opt)
	if len(fds) > 0 {
		verdict.Fields = map[string]bool{"apiVersion": true}
		for _, fd := range fds {
			verdict.Fields[fd.Field] = true
		}
	}
	if verdict.Rejected = rejected; rejected {
		for _, fd := range fds {
			if fd.Severity == diag.Error && fd.Code == LintSchemaViolation.Code {
				verdict.Refusals = append(verdict.Refusals, fd)
			}
		}
		verdict.Unrun = unrun
	}
	return verdict, append(diags, fds...)
}

// validateObject runs what the API server runs on a create: decoding
// (pruning unknown fields, which strict field validation reports),
// defaulting, then the schema, embedded-object, list and CEL validations.
// When an error before the CEL rules keeps the API server from running
// them (blocking), they are run all the same for unrun (Verdict.Unrun).
func validateObject(o *manifest.Object, d *crd, v *version, opt Options) (out, unrun []diag.Diagnostic, rejected bool) {
	u, err := o.Unstructured()
	if err != nil {
		return nil, nil, false // model reports the document as undecodable
	}
	if v.status {
		delete(u, "status") // a create resets status when it is a subresource
	}
	s := v.structural
	st := v.decode(u, true)
	o.SetDefaults(st.given) // what the API server stores, the model decodes
	sev := diag.Error
	if opt.Lenient {
		sev = diag.Warning
	}
	for _, p := range st.unknown {
		if p == "status" || strings.HasPrefix(p, "status.") {
			continue // the controller's; the API server drops it from a manifest
		}
		msg := "unknown field " + p + " in " + o.Kind
		if near := diag.Nearest(lastKey(p), propertiesAt(s, p)); near != "" {
			msg += "; did you mean " + near + "?"
		} else {
			msg += "; the " + v.name + " schema of the " + d.where() + " has no such field"
		}
		if sev == diag.Error {
			msg += " (the API server rejects the object under strict field validation; strictFields: false reports this as a warning)"
		} else {
			msg += " (the API server drops it)"
		}
		out = append(out, diag.Diagnostic{Code: LintUnknownField.Code, Severity: sev, Object: o.Ref(), Field: p, Pos: o.KeyPos(p), Message: msg})
	}
	if st.coerce != nil {
		return append(out, fieldDiag(o, st.coerce)), v.unrunRules(o, u), true
	}
	errs := st.errs
	if blocking(errs) {
		unrun = v.unrunRules(o, u)
	} else if v.rules != nil {
		errs = append(errs, v.rules.validate(context.Background(), u)...)
	}
	for _, e := range errs {
		out = append(out, fieldDiag(o, e))
		rejected = true
	}
	return out, unrun, rejected
}

// unrunRules are the refusals of the version's CEL rules on u that the
// API server does not run (Verdict.Unrun). Their inputs may not have the
// types the rules expect, which is why it does not: a rule that cannot
// evaluate for that (an internal error) refuses nothing, and one that
// panics leaves them all out.
func (v *version) unrunRules(o *manifest.Object, u map[string]any) (out []diag.Diagnostic) {
	if v.rules == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			out = nil
		}
	}()
	for _, e := range v.rules.validate(context.Background(), u) {
		if e.Type != field.ErrorTypeInternal {
			out = append(out, fieldDiag(o, e))
		}
	}
	return out
}

// decoded is what the API server's decoding and schema validation made
// of an object (its CEL rules aside).
type decodedObject struct {
	unknown []string           // the fields pruning dropped
	given   *manifest.Defaults // the values defaulting gave
	coerce  *field.Error       // embedded object metadata that does not decode
	errs    field.ErrorList
}

// decode prunes, defaults and validates u in place as the API server does
// on a create, up to its CEL rules. With shortcuts, each step's library
// function runs only where it has work to do (sNode) and the fast path
// answers for the schema validator when it can; the result is the same
// (TestShortcutsAgreeWithTheLibrary).
func (v *version) decode(u map[string]any, shortcuts bool) decodedObject {
	var out decodedObject
	s, w := v.structural, v.walks
	// plain: no null (null pruning and defaulting treat nulls specially),
	// no embedded resource (metadata coercion and validation), no list
	// typed set or map directly in a list.
	plain := shortcuts && !s.XEmbeddedResource && !w.embedded && !w.listInList && !w.nullDefault && !hasNull(u)
	if !plain || !w.nothingToPrune(u, true) {
		out.unknown = structuralpruning.PruneWithOptions(u, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	}
	if !plain {
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, s)
		if ferr, _ := schemaobjectmeta.CoerceWithOptions(nil, u, s, false, schemaobjectmeta.CoerceOptions{}); ferr != nil {
			out.coerce = ferr
			return out
		}
		var before any
		if w.defaults {
			before = runtime.DeepCopyJSONValue(u) // rare: the library's defaulting records nothing
		}
		structuraldefaulting.Default(u, s)
		if w.defaults {
			r := builders.Get().(*givenDefaults)
			r.diff(before, u)
			out.given = r.b.Defaults()
			r.b.Reset()
			builders.Put(r)
		}
	} else if w.defaults {
		r := builders.Get().(*givenDefaults)
		w.applyDefaults(u, r)
		out.given = r.b.Defaults()
		r.b.Reset()
		builders.Put(r)
	}
	if !shortcuts || !v.fast.valid(u) {
		out.errs = append(out.errs, apiservervalidation.ValidateCustomResource(nil, u, v.schema)...)
	}
	if plain {
		out.errs = append(out.errs, w.listErrors(u)...)
	} else {
		out.errs = append(out.errs, schemaobjectmeta.Validate(context.Background(), nil, u, s, false)...)
		out.errs = append(out.errs, structurallisttype.ValidateListSetsAndMaps(nil, s, u)...)
	}
	return out
}

// builders are reused: each object's defaults are recorded in one, then
// copied out at their size.
var builders = sync.Pool{New: func() any { return new(givenDefaults) }}

// onceValidator is a kube-openapi schema validator built once and used
// for every object (it is safe for concurrent use).
type onceValidator struct{ *validate.SchemaValidator }

func (v onceValidator) Validate(x any, _ ...apiservervalidation.ValidationOption) *validate.Result {
	return v.SchemaValidator.Validate(x)
}

// lastKey is the last field name of a path such as spec.rules[0].timeout.
func lastKey(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		path = path[i+1:]
	}
	return path
}

// propertiesAt are the field names the schema defines beside the last
// field of path (indices and map keys skipped), for a suggestion.
func propertiesAt(s *structuralschema.Structural, path string) []string {
	segs := strings.Split(path, ".")
	for _, seg := range segs[:len(segs)-1] {
		if s == nil {
			return nil
		}
		name, rest, _ := strings.Cut(seg, "[")
		next, ok := s.Properties[name]
		if !ok {
			return nil
		}
		s = &next
		for ; rest != "" && s != nil; _, rest, _ = strings.Cut(rest, "[") {
			switch {
			case s.Items != nil:
				s = s.Items
			case s.AdditionalProperties != nil:
				s = s.AdditionalProperties.Structural
			default:
				return nil
			}
		}
	}
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	return out
}

// blocking is the API server's test for errors after which it does not
// run the CEL rules (their inputs may not have the types they expect).
func blocking(errs field.ErrorList) bool {
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true
		}
	}
	return false
}

// fieldDiag is a finding at the field an API server error names, with the
// API server's message.
func fieldDiag(o *manifest.Object, e *field.Error) diag.Diagnostic {
	path := e.Field
	if path == "<nil>" {
		path = ""
	}
	pos := o.Pos
	switch {
	case strings.HasSuffix(path, "]"):
		pos = o.FieldPos(path)
	case path != "":
		pos = o.KeyPos(path)
	}
	return diag.Diagnostic{Code: LintSchemaViolation.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: pos, Message: e.Error()}
}

// preferred is the version to move to: the storage version if served,
// else the first served one.
func (d *crd) preferred() string {
	for name, v := range d.versions {
		if v.served && d.isStorage(name) {
			return name
		}
	}
	if s := d.served(); len(s) > 0 {
		return s[0]
	}
	return "?"
}

func (d *crd) isStorage(name string) bool {
	for _, v := range d.def.Spec.Versions {
		if v.Name == name {
			return v.Storage
		}
	}
	return false
}
