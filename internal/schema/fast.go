package schema

import (
	"math"
	"regexp"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// fastNode is one node of a CRD version's OpenAPI schema compiled for a
// quick answer to one question: does the API server's schema validator
// (kube-openapi's validate.SchemaValidator, which allocates a validator
// per node it visits) find nothing wrong with a value? valid answers true
// only when every check the validator makes at the node passes; false
// means "maybe not", and the caller then runs the validator itself, which
// stays the one source of every message. Anything the node does not model
// (not, oneOf, dependencies, pattern properties, tuple items, unique
// items, multipleOf, a float value, an enum of non-strings…) answers
// false. TestFastAgreesWithValidator holds it to the validator.
type fastNode struct {
	// unsure: the node uses something the fast path does not model.
	unsure bool

	// The type validator: it applies when types or format is set.
	typeApplies bool
	types       typeSet
	nullable    bool
	format      string
	// formatChecked: the format validator applies to strings (a format
	// strfmt.Default knows; the API server strips the others).
	formatChecked bool

	enum    []string // string values of the enum; non-nil when set
	hasEnum bool

	minLen, maxLen int64 // -1: not set
	pattern        *regexp.Regexp
	// matched are strings pattern matched, the first maxMatched of them:
	// the same few values recur in object after object (a group, a kind,
	// a port name), and a regular expression costs more than a lookup.
	// Bounded, so that it holds no more memory as the input grows.
	matched    sync.Map
	remembered atomic.Int32

	// The number validator, for int64 values: the value must fit int32
	// (format int32), and lie within the bounds.
	int32Only  bool
	max, min   bound
	minItems   int64 // -1: not set
	maxItems   int64
	items      *fastNode
	minProps   int64
	maxProps   int64
	required   []string
	properties map[string]*fastNode
	// noAdditional: additionalProperties false; additional: its schema.
	noAdditional bool
	additional   *fastNode

	allOf, anyOf []*fastNode
}

type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tInteger
	tNumber
	tString
	tArray
	tObject
)

// bound is a maximum or minimum as the number validator applies it to an
// int64 value: compared as an int64 (int64(v)) when the bound itself
// passes the validator's range check for the node's type and format,
// else as a float64.
type bound struct {
	set, exclusive, native bool
	v                      float64
}

// compileFast compiles s; nil s is a node with no checks.
func compileFast(s *spec.Schema) *fastNode {
	n := &fastNode{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	if s == nil {
		return n
	}
	if s.Ref.String() != "" || s.Not != nil || len(s.OneOf) > 0 || len(s.Dependencies) > 0 || len(s.PatternProperties) > 0 ||
		s.MultipleOf != nil || s.UniqueItems || s.AdditionalItems != nil || (s.Items != nil && len(s.Items.Schemas) > 0) {
		n.unsure = true
		return n
	}
	for _, t := range s.Type {
		switch t {
		case "null":
			n.types |= tNull
		case "boolean":
			n.types |= tBoolean
		case "integer":
			n.types |= tInteger
		case "number":
			n.types |= tNumber
		case "string":
			n.types |= tString
		case "array":
			n.types |= tArray
		case "object":
			n.types |= tObject
		default:
			n.unsure = true
			return n
		}
	}
	n.typeApplies = len(s.Type) > 0 || s.Format != ""
	n.nullable = s.Nullable
	n.format = s.Format
	n.formatChecked = s.Format != "" && strfmt.Default.ContainsName(s.Format)
	if s.Enum != nil {
		n.hasEnum = len(s.Enum) > 0
		for _, e := range s.Enum {
			if str, ok := e.(string); ok {
				n.enum = append(n.enum, str)
			}
		}
	}
	if s.MinLength != nil {
		n.minLen = *s.MinLength
	}
	if s.MaxLength != nil {
		n.maxLen = *s.MaxLength
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			n.unsure = true // the validator reports the pattern itself
			return n
		}
		n.pattern = re
	}
	// The number validator's type and format (validate.numberValidator).
	typeName, format := "", ""
	if len(s.Type) == 1 {
		switch s.Type[0] {
		case "integer":
			typeName = "integer"
			if s.Format == "int32" || s.Format == "int64" {
				format = s.Format
			}
		case "number":
			typeName = "number"
			if s.Format == "float" || s.Format == "double" {
				format = s.Format
			}
		}
	}
	n.int32Only = typeName == "integer" && format == "int32"
	mkBound := func(v *float64, exclusive bool) bound {
		if v == nil {
			return bound{}
		}
		native := validate.IsValueValidAgainstRange(*v, typeName, format, "", "") == nil
		if native && (*v >= math.MaxInt64 || *v <= math.MinInt64 || math.IsNaN(*v)) {
			n.unsure = true // int64(v) is not defined
		}
		return bound{set: true, exclusive: exclusive, native: native, v: *v}
	}
	n.max = mkBound(s.Maximum, s.ExclusiveMaximum)
	n.min = mkBound(s.Minimum, s.ExclusiveMinimum)
	if s.MinItems != nil {
		n.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	if s.Items != nil && s.Items.Schema != nil {
		n.items = compileFast(s.Items.Schema)
	}
	if s.MinProperties != nil {
		n.minProps = *s.MinProperties
	}
	if s.MaxProperties != nil {
		n.maxProps = *s.MaxProperties
	}
	n.required = s.Required
	if len(s.Properties) > 0 {
		n.properties = make(map[string]*fastNode, len(s.Properties))
		for k := range s.Properties {
			p := s.Properties[k]
			n.properties[k] = compileFast(&p)
		}
	}
	if a := s.AdditionalProperties; a != nil {
		if !a.Allows {
			n.noAdditional = true
		} else if a.Schema != nil {
			n.additional = compileFast(a.Schema)
		}
	}
	for i := range s.AllOf {
		n.allOf = append(n.allOf, compileFast(&s.AllOf[i]))
	}
	for i := range s.AnyOf {
		n.anyOf = append(n.anyOf, compileFast(&s.AnyOf[i]))
	}
	return n
}

// valid reports whether the validator certainly finds no error in x (a
// value as util/json decodes it: nil, bool, int64, float64, string,
// []any, map[string]any). It does not allocate.
func (n *fastNode) valid(x any) bool {
	if n.unsure {
		return false
	}
	if x == nil {
		// Only the type and enum validators look at a null.
		if n.typeApplies && n.types != 0 && n.types&tNull == 0 && !n.nullable {
			return false
		}
		return !n.hasEnum
	}
	for _, a := range n.allOf {
		if !a.valid(x) {
			return false
		}
	}
	if len(n.anyOf) > 0 {
		ok := false
		for _, a := range n.anyOf {
			if a.valid(x) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	switch x := x.(type) {
	case string:
		if n.typeApplies && !(n.format != "" && n.types&(tInteger|tNumber) == 0) && n.types&tString == 0 {
			return false
		}
		if n.minLen >= 0 || n.maxLen >= 0 {
			l := int64(utf8.RuneCountInString(x))
			if (n.maxLen >= 0 && l > n.maxLen) || (n.minLen >= 0 && l < n.minLen) {
				return false
			}
		}
		if n.pattern != nil && !n.matches(x) {
			return false
		}
		if n.formatChecked && !strfmt.Default.Validates(n.format, x) {
			return false
		}
		if n.hasEnum {
			for _, e := range n.enum {
				if e == x {
					return true
				}
			}
			return false
		}
		return true
	case bool:
		if n.typeApplies && n.types&tBoolean == 0 {
			return false
		}
		return !n.hasEnum
	case int64:
		if n.typeApplies && n.types&(tInteger|tNumber) == 0 {
			return false
		}
		if x > 1<<53 || x < -(1<<53) || n.hasEnum {
			return false
		}
		if n.int32Only && (x > math.MaxInt32 || x < math.MinInt32) {
			return false
		}
		if b := n.max; b.set {
			if b.native {
				m := int64(b.v)
				if (!b.exclusive && x > m) || (b.exclusive && x >= m) {
					return false
				}
			} else if f := float64(x); (!b.exclusive && f > b.v) || (b.exclusive && f >= b.v) {
				return false
			}
		}
		if b := n.min; b.set {
			if b.native {
				m := int64(b.v)
				if (!b.exclusive && x < m) || (b.exclusive && x <= m) {
					return false
				}
			} else if f := float64(x); (!b.exclusive && f < b.v) || (b.exclusive && f <= b.v) {
				return false
			}
		}
		return true
	case []any:
		if n.typeApplies && !(n.format != "" && n.types&(tInteger|tNumber) == 0) && n.types&tArray == 0 {
			return false
		}
		if n.hasEnum {
			return false
		}
		l := int64(len(x))
		if (n.minItems >= 0 && l < n.minItems) || (n.maxItems >= 0 && l > n.maxItems) {
			return false
		}
		if n.items != nil {
			for _, e := range x {
				if !n.items.valid(e) {
					return false
				}
			}
		}
		return true
	case map[string]any:
		if n.typeApplies && n.types&tObject == 0 {
			return false
		}
		if n.hasEnum {
			return false
		}
		l := int64(len(x))
		if (n.minProps >= 0 && l < n.minProps) || (n.maxProps >= 0 && l > n.maxProps) {
			return false
		}
		for k, v := range x {
			if p, ok := n.properties[k]; ok {
				if !p.valid(v) {
					return false
				}
			} else if n.noAdditional {
				return false
			} else if n.additional != nil && !n.additional.valid(v) {
				return false
			}
		}
		for _, k := range n.required {
			if _, ok := x[k]; !ok {
				return false
			}
		}
		return true
	}
	// float64 and anything else: the validator decides.
	return false
}

// maxMatched bounds a node's remembered matches.
const maxMatched = 64

// matches reports whether n's pattern matches x, from the remembered
// matches when x is one.
func (n *fastNode) matches(x string) bool {
	if _, ok := n.matched.Load(x); ok {
		return true
	}
	if !n.pattern.MatchString(x) {
		return false
	}
	if n.remembered.Load() < maxMatched && n.remembered.Add(1) <= maxMatched {
		n.matched.Store(x, struct{}{})
	}
	return true
}
