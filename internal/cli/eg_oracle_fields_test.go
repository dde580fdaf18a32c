package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"

	envoygateway "github.com/envoyproxy/gateway"
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"
)

// This file holds the oracle's field mutators (GWPOL_EGCTL_FIELDS=1),
// kept apart from egMutants and egExtraMutants so that the figures on
// record for those samples do not move. Where egMutants walks the fields
// an input already has, these walk the fields an object of its kind CAN
// have: the Go API type of each Envoy Gateway kind (and of the Gateway
// API routes and Gateway listeners) is walked by reflection, each field
// annotated by the CRD schema Envoy Gateway's module ships for it
// (required fields, enums, bounds, lengths, list sizes). For each field
// of each object of those kinds in an input, the mutants set it — its
// parents created with their required fields — to a small valid value,
// to its values at the edges (each enum value, a bound, one past it,
// zero, negative, empty, too long, malformed), and, for references,
// to an object that is missing or in another namespace without a
// ReferenceGrant; lists are emptied, doubled, filled past their maximum.
// Beside the fields, a policy's attachment: targetRefs turned into
// targetSelectors or into several refs, each sectionName of its target,
// and the policy copied onto every level above and below its target
// (Gateway, listener, route, rule) so that several policies of a kind
// meet on one target at each level.

// egFieldKinds are the kinds whose fields are walked: the Go type of
// their spec (the list element's type for a Gateway's listeners).
var egFieldKinds = map[string]reflect.Type{
	"BackendTrafficPolicy": reflect.TypeFor[egv1a1.BackendTrafficPolicySpec](),
	"ClientTrafficPolicy":  reflect.TypeFor[egv1a1.ClientTrafficPolicySpec](),
	"SecurityPolicy":       reflect.TypeFor[egv1a1.SecurityPolicySpec](),
	"EnvoyExtensionPolicy": reflect.TypeFor[egv1a1.EnvoyExtensionPolicySpec](),
	"HTTPRouteFilter":      reflect.TypeFor[egv1a1.HTTPRouteFilterSpec](),
	"Backend":              reflect.TypeFor[egv1a1.BackendSpec](),
	"EnvoyProxy":           reflect.TypeFor[egv1a1.EnvoyProxySpec](),
	"HTTPRoute":            reflect.TypeFor[gwapiv1.HTTPRouteSpec](),
	"GRPCRoute":            reflect.TypeFor[gwapiv1.GRPCRouteSpec](),
	"Gateway":              reflect.TypeFor[gwapiv1.GatewaySpec](),
}

// egFieldDepth bounds the walk (EnvoyProxy's Kubernetes provider nests
// deeper than anything the translator reads).
const egFieldDepth = 7

// egSchemaNode is one node of a CRD's OpenAPI schema, decoded as data.
type egSchemaNode = map[string]any

var (
	egSchemasOnce sync.Once
	egSchemas     map[string]egSchemaNode // kind → spec schema
)

// egSchemaOf is the spec schema of kind in the CRD bundle of Envoy
// Gateway's module (the served version listed first), nil when none.
func egSchemaOf(kind string) egSchemaNode {
	egSchemasOnce.Do(func() {
		egSchemas = map[string]egSchemaNode{}
		for _, doc := range strings.Split("\n"+string(envoygateway.GatewayCRDs), "\n---\n") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			b, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				continue
			}
			var crd struct {
				Spec struct {
					Names    struct{ Kind string } `json:"names"`
					Versions []struct {
						Name   string `json:"name"`
						Served bool   `json:"served"`
						Schema struct {
							OpenAPIV3Schema egSchemaNode `json:"openAPIV3Schema"`
						} `json:"schema"`
					} `json:"versions"`
				} `json:"spec"`
			}
			if json.Unmarshal(b, &crd) != nil || crd.Spec.Names.Kind == "" {
				continue
			}
			// the Gateway API kinds' v1 where they have one
			best := -1
			for i, v := range crd.Spec.Versions {
				if v.Served && (best < 0 || v.Name == "v1") {
					best = i
				}
			}
			if best < 0 {
				continue
			}
			egSchemas[crd.Spec.Names.Kind] = egSchemaProp(crd.Spec.Versions[best].Schema.OpenAPIV3Schema, "spec")
		}
	})
	return egSchemas[kind]
}

func egSchemaProp(s egSchemaNode, name string) egSchemaNode {
	props, _ := s["properties"].(map[string]any)
	m, _ := props[name].(map[string]any)
	return m
}

func egSchemaItems(s egSchemaNode) egSchemaNode {
	m, _ := s["items"].(map[string]any)
	return m
}

func egSchemaNum(s egSchemaNode, key string) (int, bool) {
	f, ok := s[key].(float64)
	return int(f), ok
}

func egSchemaRequired(s egSchemaNode, name string) bool {
	req, _ := s["required"].([]any)
	return slices.Contains(req, any(name))
}

// egField is one field of a kind: its JSON name, Go type and schema.
type egField struct {
	name   string
	typ    reflect.Type
	schema egSchemaNode
	// required: the schema requires it, or (no schema) its JSON tag has
	// no omitempty and it is not a pointer
	required bool
}

// egFieldsOf are the JSON fields of struct type t (inline and embedded
// structs flattened), with their schema under s.
func egFieldsOf(t reflect.Type, s egSchemaNode) []egField {
	var out []egField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if (f.Anonymous && name == "") || strings.Contains(opts, "inline") {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = append(out, egFieldsOf(ft, s)...)
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs := egSchemaProp(s, name)
		req := egSchemaRequired(s, name)
		if s == nil {
			req = !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer
		}
		out = append(out, egField{name: name, typ: f.Type, schema: fs, required: req})
	}
	return out
}

// egDeref is t without pointers.
func egDeref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// egScalarLike are struct types the API writes as one scalar.
func egScalarLike(t reflect.Type) string {
	switch t.String() {
	case "v1.Duration", "v1.Time", "v1.MicroTime":
		return "duration"
	case "resource.Quantity":
		return "quantity"
	case "intstr.IntOrString":
		return "intorstring"
	case "v1.JSON", "runtime.RawExtension", "v1.FieldsV1":
		return "raw"
	}
	return ""
}

// egIsDuration: a string type the API uses for a duration (Gateway
// API's Duration, Envoy Gateway's) or a struct it writes as one.
func egIsDuration(t reflect.Type, s egSchemaNode) bool {
	if egScalarLike(t) == "duration" || strings.HasSuffix(t.Name(), "Duration") {
		return true
	}
	p, _ := s["pattern"].(string)
	return strings.Contains(p, "ms|s|m|h") || strings.Contains(p, "(h|m|s|ms)")
}

// egMinimal is a small valid value of type t under schema s: a struct
// with its required fields, a list of one, an enum's first value, the
// least number its bounds allow. nil when the type has no JSON value
// the walk can make. A field's schema default is taken first.
func egMinimal(t reflect.Type, s egSchemaNode, depth int) any {
	t = egDeref(t)
	if def, ok := s["default"]; ok {
		// the value the API server would give it
		return egClone(def)
	}
	if enum, _ := s["enum"].([]any); len(enum) > 0 {
		return enum[0]
	}
	switch egScalarLike(t) {
	case "duration":
		return "1s"
	case "quantity":
		return "1"
	case "intorstring":
		return 1
	case "raw":
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.String:
		if egIsDuration(t, s) {
			return "1s"
		}
		return "a"
	case reflect.Bool:
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n := 1
		if lo, ok := egSchemaNum(s, "minimum"); ok && lo > n {
			n = lo
		}
		if hi, ok := egSchemaNum(s, "maximum"); ok && hi < n {
			n = hi
		}
		return n
	case reflect.Float32, reflect.Float64:
		return 1.0
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "YQ=="
		}
		if depth <= 0 {
			return []any{}
		}
		if e := egMinimal(t.Elem(), egSchemaItems(s), depth-1); e != nil {
			return []any{e}
		}
		return []any{}
	case reflect.Map:
		return map[string]any{}
	case reflect.Struct:
		out := map[string]any{}
		if depth <= 0 {
			return out
		}
		for _, f := range egFieldsOf(t, s) {
			if !f.required {
				continue
			}
			if v := egMinimal(f.typ, f.schema, depth-1); v != nil {
				out[f.name] = v
			}
		}
		return out
	}
	return nil
}

// egEdges are a scalar field's values at its edges.
func egEdges(t reflect.Type, s egSchemaNode) []any {
	t = egDeref(t)
	var out []any
	if enum, _ := s["enum"].([]any); len(enum) > 0 {
		out = append(out, enum...)
		return append(out, "NotAValue")
	}
	switch egScalarLike(t) {
	case "duration":
		return []any{"0s", "1ms", "8760h", "-1s", "1x"}
	case "quantity":
		return []any{"0", "1Ki", "1Ei", "-1", "1.5x"}
	case "intorstring":
		return []any{0, 65535, "50%", "x"}
	case "raw":
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		if egIsDuration(t, s) {
			return []any{"0s", "1ms", "8760h", "-1s", "1x", ""}
		}
		out = append(out, "", "not a valid value!", "*", "a.b-c/d")
		if n, ok := egSchemaNum(s, "maxLength"); ok && n < 512 {
			out = append(out, strings.Repeat("a", n), strings.Repeat("a", n+1))
		}
		return out
	case reflect.Bool:
		return []any{true, false}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		out = append(out, 0, -1, 2147483647, 4294967296)
		if lo, ok := egSchemaNum(s, "minimum"); ok {
			out = append(out, lo, lo-1)
		}
		if hi, ok := egSchemaNum(s, "maximum"); ok {
			out = append(out, hi, hi+1)
		}
		return egUniq(out)
	case reflect.Float32, reflect.Float64:
		return []any{0.0, -1.0, 0.0001, 100.0, 100.5, 1e10}
	}
	return nil
}

func egUniq(xs []any) []any {
	var out []any
	for _, x := range xs {
		if !slices.ContainsFunc(out, func(y any) bool { return fmt.Sprint(x) == fmt.Sprint(y) }) {
			out = append(out, x)
		}
	}
	return out
}

// egIsReference: a struct naming another object (a name, and a
// namespace or kind beside it).
func egIsReference(t reflect.Type, s egSchemaNode) bool {
	t = egDeref(t)
	if t.Kind() != reflect.Struct {
		return false
	}
	var name, other bool
	for _, f := range egFieldsOf(t, s) {
		switch f.name {
		case "name":
			name = egDeref(f.typ).Kind() == reflect.String
		case "namespace", "kind":
			other = true
		}
	}
	return name && other
}

// egStep is one step of a field's path: a key (with the Go type and
// schema of what it holds) or a list's first element.
type egStep struct {
	key    string // "" for a list element
	typ    reflect.Type
	schema egSchemaNode
}

func egStepsPath(steps []egStep) []any {
	var out []any
	for _, s := range steps {
		if s.key == "" {
			out = append(out, 0)
		} else {
			out = append(out, s.key)
		}
	}
	return out
}

// egEnsure walks steps from root, creating what is missing (a struct
// with its required fields, a list of one), and sets the last to v.
func egEnsure(root map[string]any, steps []egStep, v any) {
	var cur any = root
	for i, st := range steps {
		last := i == len(steps)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				c[st.key] = v
				return
			}
			next := c[st.key]
			if _, isMap := next.(map[string]any); !isMap {
				if _, isList := next.([]any); !isList {
					next = egMinimal(st.typ, st.schema, 2)
					c[st.key] = next
				}
			}
			if l, ok := next.([]any); ok && len(l) == 0 && steps[i+1].key == "" {
				next = egMinimal(st.typ, st.schema, 2)
				c[st.key] = next
			}
			cur = next
		case []any:
			if len(c) == 0 {
				return
			}
			if last {
				c[0] = v
				return
			}
			if _, ok := c[0].(map[string]any); !ok {
				if _, ok := c[0].([]any); !ok {
					c[0] = egMinimal(st.typ, st.schema, 2)
				}
			}
			cur = c[0]
		default:
			return
		}
	}
}

// egFieldGen generates the field mutants of one object.
type egFieldGen struct {
	g          *egGen
	id, class  string
	root       []any // the path of the walked value in the object
	otherNS    string
	seenLabels map[string]bool
}

func (f *egFieldGen) add(sub, label string, steps []egStep, v any) {
	label = f.id + " " + egPathString(append(slices.Clone(f.root), egStepsPath(steps)...)) + label
	if f.seenLabels[label] {
		return
	}
	f.seenLabels[label] = true
	root := slices.Clone(f.root)
	steps = slices.Clone(steps)
	f.g.add(egEdit(f.class+"-"+sub, label, f.id, func(d egDoc) {
		var cur any = map[string]any(d)
		for _, p := range root {
			switch c := cur.(type) {
			case map[string]any:
				cur = c[p.(string)]
			case []any:
				if j := p.(int); j < len(c) {
					cur = c[j]
				} else {
					return
				}
			}
		}
		if m, ok := cur.(map[string]any); ok {
			egEnsure(m, steps, egClone(v))
		}
	}))
}

// walk makes the mutants of each field of struct type t under the
// steps so far.
func (f *egFieldGen) walk(t reflect.Type, s egSchemaNode, steps []egStep, seen []reflect.Type, depth int) {
	t = egDeref(t)
	if depth > egFieldDepth || slices.Contains(seen, t) {
		return
	}
	seen = append(seen, t)
	for _, fd := range egFieldsOf(t, s) {
		if len(steps) == 0 && (fd.name == "targetRef" || fd.name == "targetRefs" || fd.name == "targetSelectors") {
			continue
		}
		st := append(slices.Clip(steps), egStep{key: fd.name, typ: fd.typ, schema: fd.schema})
		f.field(fd.typ, fd.schema, st, seen, depth)
	}
}

func (f *egFieldGen) field(t reflect.Type, s egSchemaNode, steps []egStep, seen []reflect.Type, depth int) {
	t = egDeref(t)
	if min := egMinimal(t, s, 3); min != nil {
		f.add("set", "=minimal", steps, min)
	}
	kind := t.Kind()
	if egScalarLike(t) != "" {
		kind = reflect.String
	}
	switch kind {
	case reflect.Struct:
		if egIsReference(t, s) {
			base, _ := egMinimal(t, s, 3).(map[string]any)
			missing := egClone(base).(map[string]any)
			missing["name"] = "missing-object"
			f.add("ref", " naming a missing object", steps, missing)
			cross := egClone(base).(map[string]any)
			cross["namespace"] = f.otherNS
			f.add("ref", " in namespace "+f.otherNS+" without a ReferenceGrant", steps, cross)
		}
		f.walk(t, s, steps, seen, depth+1)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			f.add("edge", `=""`, steps, "")
			return
		}
		f.add("list", "=[]", steps, []any{})
		e := egMinimal(t.Elem(), egSchemaItems(s), 3)
		if e != nil {
			f.add("list", " with two minimal elements", steps, []any{e, egClone(e)})
			if n, ok := egSchemaNum(s, "maxItems"); ok && n < 64 {
				many := make([]any, n+1)
				for i := range many {
					many[i] = egClone(e)
				}
				f.add("list", fmt.Sprintf(" with %d elements (maxItems %d)", n+1, n), steps, many)
			}
		}
		et := egDeref(t.Elem())
		es := egSchemaItems(s)
		st := append(slices.Clip(steps), egStep{typ: t.Elem(), schema: es})
		if et.Kind() == reflect.Struct && egScalarLike(et) == "" {
			f.field(et, es, st, seen, depth+1)
		} else {
			for _, v := range egEdges(et, es) {
				f.add("edge", fmt.Sprintf("=%#v", v), st, v)
			}
		}
	case reflect.Map:
		f.add("edge", "={}", steps, map[string]any{})
	default:
		for _, v := range egEdges(t, s) {
			f.add("edge", fmt.Sprintf("=%#v", v), steps, v)
		}
	}
}

// egFieldMutants are the field and attachment mutants of an input
// (GWPOL_EGCTL_FIELDS=1), one class per walk and kind of change.
func egFieldMutants(docs []egDoc) []egMutant {
	g := &egGen{docs: docs, byKind: map[string][]egDoc{}}
	for _, d := range docs {
		g.byKind[egKind(d)] = append(g.byKind[egKind(d)], d)
		if ns := egNamespace(d); ns != "" && !slices.Contains(g.namespaces, ns) {
			g.namespaces = append(g.namespaces, ns)
		}
	}
	slices.Sort(g.namespaces)
	seen := map[string]bool{}
	for _, kind := range slices.Sorted(func(yield func(string) bool) {
		for k := range egFieldKinds {
			if !yield(k) {
				return
			}
		}
	}) {
		t := egFieldKinds[kind]
		s := egSchemaOf(kind)
		for _, d := range g.byKind[kind] {
			other := "egx-other"
			for _, ns := range g.namespaces {
				if ns != egNamespace(d) {
					other = ns
					break
				}
			}
			class := "policy"
			switch {
			case kind == "Gateway":
				class = "listener"
			case slices.Contains(egRouteKinds, kind):
				class = "route"
			case !slices.Contains(egPolicyKinds, kind):
				class = "object"
			}
			if egSpec(d) == nil {
				d["spec"] = map[string]any{}
			}
			f := &egFieldGen{g: g, id: egID(d), class: class, otherNS: other, seenLabels: seen}
			switch kind {
			case "Gateway":
				// each listener's fields (the Gateway's own are
				// infrastructure the translator reads little of)
				lt := reflect.TypeFor[gwapiv1.Listener]()
				ls := egSchemaItems(egSchemaProp(s, "listeners"))
				list, _ := egSpec(d)["listeners"].([]any)
				for i := range min(len(list), 2) {
					f.root = []any{"spec", "listeners", i}
					f.walk(lt, ls, nil, nil, 0)
				}
			case "HTTPRoute", "GRPCRoute":
				// the first rule's fields, and the spec's own
				rt := egDeref(reflect.TypeFor[gwapiv1.HTTPRouteRule]())
				if kind == "GRPCRoute" {
					rt = reflect.TypeFor[gwapiv1.GRPCRouteRule]()
				}
				rs := egSchemaItems(egSchemaProp(s, "rules"))
				if rules, _ := egSpec(d)["rules"].([]any); len(rules) > 0 {
					f.root = []any{"spec", "rules", 0}
					f.walk(rt, rs, nil, nil, 0)
				}
				f.root = []any{"spec"}
				f.walk(t, s, nil, nil, egFieldDepth-1)
			default:
				f.root = []any{"spec"}
				f.walk(t, s, nil, nil, 0)
			}
			if class == "policy" {
				g.attachments(d)
			}
		}
	}
	return g.out
}

// attachments: a policy's targetRefs turned into targetSelectors, into
// the deprecated targetRef, doubled, given each section; and the policy
// copied onto each level of its target's tree (the Gateway, each
// listener, each route of the input and each named rule), so that
// policies of a kind meet at every level.
func (g *egGen) attachments(p egDoc) {
	id := egID(p)
	key, refs := egTargetRefs(egSpec(p))
	if len(refs) == 0 {
		return
	}
	first := egClone(any(refs[0])).(map[string]any)
	set := func(label string, f func(s map[string]any)) {
		g.add(egEdit("attach", id+" "+label, id, func(d egDoc) {
			if s := egSpec(d); s != nil {
				f(s)
			}
		}))
	}
	kind, _ := first["kind"].(string)
	set("targetSelectors matching nothing", func(s map[string]any) {
		delete(s, "targetRef")
		delete(s, "targetRefs")
		s["targetSelectors"] = []any{map[string]any{"kind": kind, "matchLabels": map[string]any{"app": "egx"}}}
	})
	set("targetRefs and targetSelectors", func(s map[string]any) {
		s["targetSelectors"] = []any{map[string]any{"kind": kind, "matchLabels": map[string]any{"app": "egx"}}}
	})
	if key == "targetRefs" {
		set("targetRef (deprecated) beside targetRefs", func(s map[string]any) { s["targetRef"] = egClone(any(first)) })
		set("targetRefs naming its first twice", func(s map[string]any) {
			s["targetRefs"] = append([]any{egClone(any(first))}, egClone(s["targetRefs"]).([]any)...)
		})
	} else {
		set("targetRef as targetRefs", func(s map[string]any) {
			s["targetRefs"] = []any{s["targetRef"]}
			delete(s, "targetRef")
		})
	}
	// the levels of the tree: each Gateway, each of its listeners, each
	// route and each of its named rules
	type target struct{ kind, name, section string }
	var levels []target
	for _, gw := range g.byKind["Gateway"] {
		if egNamespace(gw) != egNamespace(p) {
			continue
		}
		levels = append(levels, target{"Gateway", egName(gw), ""})
		for _, s := range egSections(gw) {
			levels = append(levels, target{"Gateway", egName(gw), s})
		}
	}
	if slices.Contains([]string{"BackendTrafficPolicy", "SecurityPolicy", "EnvoyExtensionPolicy"}, egKind(p)) {
		for _, rk := range []string{"HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute"} {
			for _, r := range g.byKind[rk] {
				if egNamespace(r) != egNamespace(p) {
					continue
				}
				levels = append(levels, target{rk, egName(r), ""})
				for _, s := range egSections(r) {
					levels = append(levels, target{rk, egName(r), s})
				}
			}
		}
	}
	for _, l := range levels {
		ref := map[string]any{"group": "gateway.networking.k8s.io", "kind": l.kind, "name": l.name}
		label := l.kind + "/" + l.name
		if l.section != "" {
			ref["sectionName"] = l.section
			label += "#" + l.section
		}
		n := "zz-" + egName(p) + "-" + strings.ToLower(l.kind) + "-" + l.name
		if l.section != "" {
			n += "-" + l.section
		}
		if len(n) > 253 {
			continue
		}
		n = strings.Trim(strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
				return r
			}
			return '-'
		}, strings.ToLower(n)), "-.")
		g.add(egMutant{Class: "stack", Label: "copy of " + id + " on " + label, apply: func(docs []egDoc) []egDoc {
			i := egIndex(docs, id)
			if i < 0 {
				return docs
			}
			c, _ := egClone(docs[i]).(map[string]any)
			egMeta(c)["name"] = n
			s := egSpec(c)
			delete(s, "targetRef")
			delete(s, "targetSelectors")
			s["targetRefs"] = []any{ref}
			docs = append(docs, c)
			egSort(docs)
			return docs
		}})
		// and retargeted itself
		set("retargeted to "+label, func(s map[string]any) {
			delete(s, "targetRef")
			delete(s, "targetSelectors")
			s["targetRefs"] = []any{egClone(any(ref))}
		})
	}
}

// egFieldsOn: GWPOL_EGCTL_FIELDS=1.
func egFieldsOn() bool { return os.Getenv("GWPOL_EGCTL_FIELDS") == "1" }
