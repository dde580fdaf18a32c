package envoygateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
)

// Typed settings. Each policy's spec is decoded once, in Decode, into
// Envoy Gateway's own API type (github.com/envoyproxy/gateway/api/v1alpha1,
// the module the CRDs come from), straight from the YAML tree so that a
// value of the wrong type is an error at its own line and column. Every
// field the kind reads is then held as a fieldValue: that typed value,
// and the value as written, which explain and diff show and a merge
// (spec.mergeType) patches. Renderers and checks read the typed values;
// none decodes the spec again.

// fieldValue is one spec field as a policy holds it
// (policy.Policy.Values). It marshals as written.
type fieldValue struct {
	// raw is the value as written, as JSON.
	raw json.RawMessage
	// typed is the value as Envoy Gateway's API type has it: the spec
	// struct's field (a pointer, a slice, a scalar).
	typed any
	// failed are, for extProc, the entries that did not validate but fail
	// open: Envoy Gateway leaves those out of the data plane and applies
	// the rest (markFailOpen).
	failed []int
	// geo is, for a SecurityPolicy's authorization, the geolocation
	// check's verdict on the listeners it reaches (recordGeo), which
	// render's geolocation filter reads; nil when the rules match no
	// geolocation.
	geo *geoDecision
	// at is where the value was written (the policy and the field's
	// path); zero for a value a merge built.
	at writtenAt
}

// MarshalJSON is the value as written.
func (v *fieldValue) MarshalJSON() ([]byte, error) { return v.raw, nil }

// specTypes are the Go types of the kinds' specs, by kind name.
var specTypes = map[string]reflect.Type{
	"BackendTrafficPolicy": reflect.TypeFor[egv1a1.BackendTrafficPolicySpec](),
	"ClientTrafficPolicy":  reflect.TypeFor[egv1a1.ClientTrafficPolicySpec](),
	"SecurityPolicy":       reflect.TypeFor[egv1a1.SecurityPolicySpec](),
	"EnvoyExtensionPolicy": reflect.TypeFor[egv1a1.EnvoyExtensionPolicySpec](),
	"HTTPRouteFilter":      reflect.TypeFor[egv1a1.HTTPRouteFilterSpec](),
}

// fieldIndexes are, per spec type, the index path of each JSON key's
// struct field (embedded structs flattened, as encoding/json reads them).
var fieldIndexes sync.Map // reflect.Type → map[string][]int

func jsonFieldIndexes(t reflect.Type) map[string][]int {
	if m, ok := fieldIndexes.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			index := append(append([]int{}, prefix...), i)
			if ft := f.Type; f.Anonymous && name == "" {
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					walk(ft, index)
					continue
				}
			}
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := m[name]; !dup {
				m[name] = index
			}
		}
	}
	walk(t, nil)
	fieldIndexes.Store(t, m)
	return m
}

// decodeSpec decodes the policy's spec into its kind's typed spec, once.
// Every value that does not fit its type is an Invalid finding at its
// own position, naming the field (returned for Decode to report); the
// rest decodes. Keys inside a field that Envoy Gateway's type does not
// define are returned too: the API server would prune them (or refuse
// them, validating strictly), so they never reach Envoy Gateway. The
// spec's own keys are Decode's to judge (unknownFields).
//
// Keys are read as encoding/json reads them, which is Envoy Gateway's
// translator's reading (its own test cases rely on it): a key that differs
// from a field's name only in case (backendRefs: [{Name: …}]) sets that
// field. folded says some key was read that way: then a key such as
// spec.RateLimit stands for its field (holdValues).
func (k *Kind) decodeSpec(p *policy.Policy) (spec reflect.Value, errs []diag.Diagnostic, nested []manifest.UnknownField, folded bool) {
	spec = reflect.New(specTypes[k.name])
	unknown, foldedKeys, decodeErrs := p.Obj.DecodeFieldAllFolded("spec", spec.Interface())
	for _, err := range decodeErrs {
		errs = append(errs, specError(p, err))
	}
	nested = unknown[:0]
	for _, u := range unknown {
		if topField(u.Path) != u.Path {
			nested = append(nested, u)
		}
	}
	return spec.Elem(), errs, nested, len(foldedKeys) > 0
}

// specError is a decoding error as the policy's finding: at the value
// that did not fit.
func specError(p *policy.Policy, err error) diag.Diagnostic {
	var pe *manifest.PosError
	if !errors.As(err, &pe) {
		return p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec", "spec: %v", err)
	}
	field := pe.Field
	if field == "" {
		field = "spec"
	}
	d := p.Diag(policy.LintPolicyInvalid.Code, diag.Error, field, "%s", pe.Msg)
	d.Pos = pe.Pos
	return d
}

// holdValues puts each field the kind reads that the spec sets (not
// null) in p.Values: the typed value with the value as written. When the
// spec was read case-folded (decodeSpec), a field's value is the one the
// typed spec took: that of the last key naming it in any case, as
// encoding/json takes it; the key as written is kept (data.keys) so that
// findings about the field point at it.
func (k *Kind) holdValues(p *policy.Policy, spec reflect.Value, folded bool) {
	idx := jsonFieldIndexes(spec.Type())
	var keys []string
	if folded {
		keys = p.Obj.Keys("spec")
	}
	for _, f := range k.fields {
		key := writtenKey(f, keys)
		path := "spec." + key
		if !p.Obj.Has(path) {
			continue
		}
		raw, err := p.Obj.FieldJSON(path)
		if err != nil || string(raw) == "null" {
			continue
		}
		v := &fieldValue{raw: raw, at: writtenAt{obj: p.Obj, path: path, key: key}}
		if fv, ok := fieldAt(spec, idx[f]); ok {
			v.typed = fv.Interface()
		}
		p.Values[f] = v
		if key != f {
			d := decoded(p)
			if d.keys == nil {
				d.keys = map[string]string{}
			}
			d.keys[f] = key
		}
	}
}

// writtenKey is the spec key that sets field f: of keys (the spec's, in
// document order, when it was read case-folded) the last that names f in
// any case; f itself otherwise.
func writtenKey(f string, keys []string) string {
	for i := len(keys) - 1; i >= 0; i-- {
		if strings.EqualFold(keys[i], f) {
			return keys[i]
		}
	}
	return f
}

// placeAtWrittenKeys moves the findings about a field set under a
// case-folded key (spec.RateLimit for rateLimit) to that key: their
// field paths name the field, which the tree does not hold.
func placeAtWrittenKeys(p *policy.Policy, keys map[string]string) {
	if len(keys) == 0 {
		return
	}
	place := func(ds []diag.Diagnostic) {
		for i, d := range ds {
			top := topField(d.Field)
			key, ok := keys[strings.TrimPrefix(top, "spec.")]
			if !ok || !strings.HasPrefix(top, "spec.") {
				continue
			}
			ds[i].Pos = p.Obj.FieldPos("spec." + key + strings.TrimPrefix(d.Field, top))
		}
	}
	place(p.Invalid)
	place(p.Findings)
}

// valueOf is a field value as the policy holds it; a value of another
// form (a test's) is taken as JSON.
func valueOf(v any) (*fieldValue, error) {
	switch v := v.(type) {
	case *fieldValue:
		return v, nil
	case json.RawMessage:
		return &fieldValue{raw: v}, nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &fieldValue{raw: raw}, nil
}

// typedAs is the value as Go type T: the value decoded in Decode, or, for
// a value built by a merge (effectiveValue), its JSON decoded into T —
// the one place a merged value is decoded again.
func typedAs[T any](v *fieldValue) (T, error) {
	if t, ok := v.typed.(T); ok {
		return t, nil
	}
	// A merged value (effectiveValue) has no typed value: its merged JSON is decoded.
	var t T
	err := json.Unmarshal(v.raw, &t)
	return t, err
}

// typed adapts a renderer of Envoy Gateway's type T for the field
// renderer tables.
func typed[T any](key string, r func(T, policyName) ([]policy.Fragment, error)) fieldRenderer {
	return func(v *fieldValue, who policyName) ([]policy.Fragment, error) {
		t, err := typedAs[T](v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		return r(t, who)
	}
}

// typedWith is typed for the renderers that take one more argument (the
// placement, the model).
func typedWith[T, A any](key string, r func(T, policyName, A) ([]policy.Fragment, error)) func(*fieldValue, policyName, A) ([]policy.Fragment, error) {
	return func(v *fieldValue, who policyName, a A) ([]policy.Fragment, error) {
		t, err := typedAs[T](v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
		return r(t, who, a)
	}
}

// unrenderedFields names the first field a typed value sets outside
// known (JSON keys, in sorted order, for a deterministic report); ""
// when it sets none other. v is a struct or a pointer to one; a nil
// pointer sets nothing. at is where v was written: a field whose value
// is only the CRD's default (writtenAt.byDefault) is none the user set,
// and is not named.
func unrenderedFields(at writtenAt, v any, known ...string) string {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return ""
		}
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return ""
	}
	idx := jsonFieldIndexes(rv.Type())
	var first string
	for key, i := range idx {
		if fv, ok := fieldAt(rv, i); slices.Contains(known, key) || !ok || fv.IsZero() {
			continue
		}
		if (first == "" || key < first) && !at.field(key).byDefault() {
			first = key
		}
	}
	return first
}

// optDuration is a Gateway API duration, nil when unset.
func optDuration[S ~string](s *S) (*durationpb.Duration, error) {
	if s == nil {
		return nil, nil
	}
	d, err := time.ParseDuration(string(*s))
	if err != nil {
		return nil, err
	}
	return durationpb.New(d), nil
}

// fieldAt is the struct field at an index path (jsonFieldIndexes); ok is
// false when the path is empty or goes through a nil embedded pointer.
func fieldAt(v reflect.Value, index []int) (reflect.Value, bool) {
	if len(index) == 0 {
		return reflect.Value{}, false
	}
	f, err := v.FieldByIndexErr(index)
	return f, err == nil
}
