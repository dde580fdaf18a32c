package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	yaml "go.yaml.in/yaml/v3"
)

// Object is one Kubernetes object as read, with its source position and its
// YAML node tree for field positions.
type Object struct {
	APIVersion  string
	Group       string // "" for core
	Version     string
	Kind        string
	Name        string
	Namespace   string // as written; "" when absent
	Labels      map[string]string
	Annotations map[string]string

	File string
	Pos  diag.Position // where the object's mapping starts
	Seq  int           // position in the whole input (Load): document order, which decides where a controller processes objects as given
	// more holds what few objects have (findings made while reading,
	// defaults), so that every object does not pay for them.
	more *objectMore

	// Decoded is what a later stage decoded from the object while its
	// tree was at hand (model.Predecode), for that stage to take instead
	// of decoding again; nil when nothing was.
	Decoded any
	// Checked is the schema stage's answer about the object, found while
	// its tree was at hand (schema.Early), for the stage to take; nil when
	// none was.
	Checked any

	node *yaml.Node
	// text is the input from the line the object's mapping starts on to
	// the end of its chunk, and textLine that line (1-based, as the
	// tree's lines count): enough to read the object's tree again after
	// Release. "" for objects that cannot be read alone (List items,
	// streams with directives), whose trees Release keeps. It is a
	// substring of the chunk's text, which the tree's values share.
	text string
	// lineBase and textLine are int32 side by side, as no input has 2^31
	// lines: the Object is then 256 bytes, not 264 (a 288-byte
	// allocation), and a run holds one per object of the input.
	lineBase int32 // the node's lines count from this line of the file
	textLine int32
}

// objectMore is what few objects carry (Object.more).
type objectMore struct {
	// findings made while decoding the object's document (LintDuplicateKey).
	findings []diag.Diagnostic
	// defaults are the values the API server's defaulting gives fields
	// the object does not set (SetDefaults).
	defaults *Defaults
}

func (o *Object) extra() *objectMore {
	if o.more == nil {
		o.more = &objectMore{}
	}
	return o.more
}

// Findings are the findings made while decoding the object's document
// (LintDuplicateKey).
func (o *Object) Findings() []diag.Diagnostic {
	if o.more == nil {
		return nil
	}
	return o.more.findings
}

func newObject(src source, n *yaml.Node) (*Object, error) {
	o := &Object{File: src.file, Pos: diag.Position{File: src.file, Line: n.Line + src.base, Col: n.Column}, node: n, lineBase: int32(src.base)}
	str := func(path string) (string, error) {
		v := o.Lookup(path)
		if v == nil || v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			return "", nil
		}
		if v.Kind != yaml.ScalarNode {
			return "", Errorf(o.posOf(v), "%s must be a string", path)
		}
		return v.Value, nil
	}
	var err error
	if o.APIVersion, err = str("apiVersion"); err != nil {
		return nil, err
	}
	if o.Kind, err = str("kind"); err != nil {
		return nil, err
	}
	if o.Name, err = str("metadata.name"); err != nil {
		return nil, err
	}
	if o.Namespace, err = str("metadata.namespace"); err != nil {
		return nil, err
	}
	if o.Kind == "" {
		return nil, notObjectf(o.Pos, "object has no kind; every document must set apiVersion and kind")
	}
	if o.APIVersion == "" {
		return nil, Errorf(o.Pos, "%s object has no apiVersion", o.Kind)
	}
	if g, v, ok := strings.Cut(o.APIVersion, "/"); ok {
		o.Group, o.Version = g, v
	} else {
		o.Version = o.APIVersion
	}
	if o.Labels, err = o.stringMap("metadata.labels"); err != nil {
		return nil, err
	}
	if o.Annotations, err = o.stringMap("metadata.annotations"); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *Object) stringMap(path string) (map[string]string, error) {
	n := o.Lookup(path)
	if n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, Errorf(o.posOf(n), "%s must be a map of strings", path)
	}
	m := make(map[string]string, len(n.Content)/2)
	var err error
	eachPair(n, func(k, v *yaml.Node) { // merge keys (<<) apply, as in JSON
		if v = resolve(v); err == nil && v.Kind != yaml.ScalarNode {
			err = Errorf(o.posOf(v), "%s.%s must be a string", path, k.Value)
		}
		m[resolve(k).Value] = v.Value
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Ref is the object's reference for findings.
func (o *Object) Ref() diag.ObjectRef {
	return diag.ObjectRef{Group: o.Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// String is FILE:LINE Kind/ns/name, for messages.
func (o *Object) String() string { return o.Pos.String() + " " + o.Ref().String() }

// Release drops the object's YAML tree, for a caller that has read what
// it needs of it: the trees are most of the heap (a node is 150 bytes,
// and a route has a hundred or more), while the input text they come
// from is a few bytes per node. Its metadata and position stay; a field
// read afterwards parses the object's text again into the same tree
// (same values, lines and columns), so nothing answers differently, it
// only costs that parse. An object that cannot be parsed alone keeps
// its tree.
func (o *Object) Release() {
	if o.text != "" {
		o.node = nil
	}
}

// Released reports whether the object's tree is dropped (Release).
func (o *Object) Released() bool { return o.node == nil }

func (o *Object) tree() *yaml.Node {
	if o.node == nil {
		return o.reread()
	}
	return o.node
}

// reread parses a released object's text again: its first document is
// the object's mapping, with the tree's lines counted from textLine, and
// duplicate keys dropped as when it was first read. The text parsed once
// already, so failing now is a bug.
func (o *Object) reread() *yaml.Node {
	doc, ok := fastFirstDocument(o.text)
	if !ok {
		doc = new(yaml.Node)
		if err := yaml.NewDecoder(strings.NewReader(o.text)).Decode(doc); err != nil {
			panic(fmt.Sprintf("manifest: reading released %s again: %v", o, err))
		}
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		panic(fmt.Sprintf("manifest: reading released %s again: no document", o))
	}
	root := doc.Content[0]
	shiftLines(root, int(o.textLine)-1)
	var dups []diag.Diagnostic
	if err := checkShape(source{o.File, int(o.lineBase)}, root, Limits{MaxFileBytes: math.MaxInt64, MaxDepth: math.MaxInt, MaxAliasNodes: math.MaxInt}, &dups); err != nil {
		panic(fmt.Sprintf("manifest: reading released %s again: %v", o, err))
	}
	return root
}

// shiftLines adds delta to the line of every node of a tree (an alias
// points into the tree; it is not a child of the node it stands for).
func shiftLines(n *yaml.Node, delta int) {
	n.Line += delta
	for _, c := range n.Content {
		shiftLines(c, delta)
	}
}

func (o *Object) posOf(n *yaml.Node) diag.Position {
	return diag.Position{File: o.File, Line: n.Line + int(o.lineBase), Col: n.Column}
}

// Has reports whether a field path is present.
func (o *Object) Has(path string) bool { return o.Lookup(path) != nil }

// Lookup returns the node at a field path such as
// "spec.rules[0].filters[1].type", or nil when any step is missing. An alias
// is returned as the node it stands for.
func (o *Object) Lookup(path string) *yaml.Node {
	n, rest := o.walk(path)
	if rest != "" {
		return nil
	}
	return resolve(n)
}

// Scalar is the value of the scalar at a field path as written; ok is
// false when the path is missing, null or not a scalar.
func (o *Object) Scalar(path string) (value string, ok bool) {
	n := o.Lookup(path)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", false
	}
	return n.Value, true
}

// Keys are the keys of the mapping at a field path, in document order
// (nil when the path is missing or not a mapping).
func (o *Object) Keys(path string) []string {
	n := o.Lookup(path)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []string
	eachPair(n, func(k, _ *yaml.Node) { out = append(out, resolve(k).Value) })
	return out
}

// FieldPos is the position of a field path; when the path runs out early it
// is the position of the deepest part that exists, so a finding about a
// missing field points at its parent rather than at line 1.
func (o *Object) FieldPos(path string) diag.Position {
	n, _ := o.walk(path)
	return o.posOf(n)
}

// KeyPos is like FieldPos but for a mapping entry points at its key, which
// is where editors and SARIF viewers expect an "unknown field" marker.
func (o *Object) KeyPos(path string) diag.Position {
	parent, last := splitLast(path)
	p := o.Lookup(parent)
	if parent == "" {
		p = o.tree()
	}
	if p != nil && p.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(p.Content); i += 2 {
			if p.Content[i].Value == last {
				return o.posOf(p.Content[i])
			}
		}
	}
	return o.FieldPos(path)
}

// MapKeys lists the keys of the map at path (merge keys applied, as the
// JSON form has them) with each key's position; nil when path is not a
// map.
func (o *Object) MapKeys(path string) []MapKey {
	n := o.Lookup(path)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	var out []MapKey
	eachPair(n, func(k, _ *yaml.Node) {
		out = append(out, MapKey{Name: resolve(k).Value, Pos: o.posOf(k)})
	})
	return out
}

// MapKey is one key of a map and where it is written.
type MapKey struct {
	Name string
	Pos  diag.Position
}

func splitLast(path string) (string, string) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", path
	}
	return path[:i], path[i+1:]
}

// walk follows path as far as it goes and returns the last node reached with
// the part of the path that could not be followed.
func (o *Object) walk(path string) (*yaml.Node, string) {
	n := o.tree()
	rest := path
	for rest != "" {
		seg := rest
		next := ""
		if i := strings.IndexAny(rest[1:], ".["); i >= 0 {
			seg, next = rest[:i+1], rest[i+1:]
		}
		next = strings.TrimPrefix(next, ".")
		var child *yaml.Node
		if strings.HasPrefix(seg, "[") {
			idx, err := strconv.Atoi(strings.TrimSuffix(seg[1:], "]"))
			if s := resolve(n); err == nil && s.Kind == yaml.SequenceNode && idx >= 0 && idx < len(s.Content) {
				child = s.Content[idx]
			}
		} else {
			child = lookup(n, strings.TrimPrefix(seg, "."))
		}
		if child == nil {
			return n, rest
		}
		n, rest = child, next
	}
	return n, ""
}

// lookup finds key in a mapping node, following aliases and merge keys
// (<<) with the precedence eachPair gives them, so that field lookups agree
// with the JSON form: an explicit key wins, then the merged maps in order.
func lookup(n *yaml.Node, key string) *yaml.Node {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	merges := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if isMergeKey(k) {
			merges = true
		} else if resolve(k).Value == key {
			return n.Content[i+1]
		}
	}
	if !merges {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !isMergeKey(n.Content[i]) {
			continue
		}
		m := resolve(n.Content[i+1])
		if m == nil {
			continue
		}
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = m.Content
		}
		for _, src := range srcs {
			if v := lookup(src, key); v != nil {
				return v
			}
		}
	}
	return nil
}

func isMergeKey(k *yaml.Node) bool { return k.Value == "<<" && k.ShortTag() == "!!merge" }

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// JSON renders the object as JSON, the form typed decoders take.
func (o *Object) JSON() ([]byte, error) { return o.FieldJSON("") }

// FieldJSON renders one field (path as in Lookup) as JSON.
func (o *Object) FieldJSON(path string) ([]byte, error) {
	n := o.tree()
	if path != "" {
		n = o.Lookup(path)
		if n == nil {
			return []byte("null"), nil
		}
	}
	var b bytes.Buffer
	b.Grow(512)
	if err := writeJSON(&b, n, o); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// findOfKind follows keys from n, trying every element of the lists on the
// way, and returns the first node found whose JSON type is kind (as
// jsonType.String names it). It places errors that encoding/json reports
// by field names only.
func (o *Object) findOfKind(n *yaml.Node, keys []string, kind string) *yaml.Node {
	r := resolve(n)
	if r == nil {
		return nil
	}
	if r.Kind == yaml.SequenceNode {
		for _, c := range r.Content {
			if f := o.findOfKind(c, keys, kind); f != nil {
				return f
			}
		}
		return nil
	}
	if len(keys) == 0 {
		if t, _, err := nodeJSON(r, o); err == nil && t.String() == kind {
			return n
		}
		return nil
	}
	return o.findOfKind(lookup(r, keys[0]), keys[1:], kind)
}

// writeJSON renders a YAML node as JSON. Tags decide scalar types the way
// sigs.k8s.io/yaml would, so "80" stays a string and 80 a number.
func writeJSON(b *bytes.Buffer, n *yaml.Node, o *Object) error {
	n = resolve(n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			b.WriteString("null")
			return nil
		}
		return writeJSON(b, n.Content[0], o)
	case yaml.MappingNode:
		b.WriteByte('{')
		first := true
		var werr error
		eachPair(n, func(k, v *yaml.Node) {
			if werr != nil {
				return
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			writeString(b, resolve(k).Value)
			b.WriteByte(':')
			werr = writeJSON(b, v, o)
		})
		b.WriteByte('}')
		return werr
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, c, o); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case yaml.ScalarNode:
		return writeScalar(b, n, o)
	}
	return Errorf(o.posOf(n), "unsupported YAML node")
}

// eachPair visits a mapping's pairs, applying YAML merge keys (<<) the way
// Kubernetes tooling does: explicit keys win over merged ones.
func eachPair(n *yaml.Node, f func(k, v *yaml.Node)) {
	// One pass over the own pairs; merged maps, rare, come after.
	merges := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMergeKey(n.Content[i]) {
			merges = true
			continue
		}
		f(n.Content[i], n.Content[i+1])
	}
	if !merges {
		return
	}
	seen := map[string]bool{}
	var srcs []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !isMergeKey(k) {
			seen[k.Value] = true
			continue
		}
		if m := resolve(n.Content[i+1]); m.Kind == yaml.SequenceNode {
			srcs = append(srcs, m.Content...)
		} else {
			srcs = append(srcs, m)
		}
	}
	for _, s := range srcs {
		if s = resolve(s); s.Kind == yaml.MappingNode {
			mergePairs(s, seen, f)
		}
	}
}

// mergePairs visits the pairs of a merged map whose keys are not yet in
// seen, then those of the maps it merges in turn. f is passed down rather
// than wrapped so that it does not escape: the decoder calls eachPair for
// every mapping.
func mergePairs(n *yaml.Node, seen map[string]bool, f func(k, v *yaml.Node)) {
	var srcs []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if isMergeKey(k) {
			m := resolve(n.Content[i+1])
			if m.Kind == yaml.SequenceNode {
				srcs = append(srcs, m.Content...)
			} else {
				srcs = append(srcs, m)
			}
			continue
		}
		if seen[k.Value] {
			continue
		}
		seen[k.Value] = true
		f(k, n.Content[i+1])
	}
	for _, s := range srcs {
		if s = resolve(s); s.Kind == yaml.MappingNode {
			mergePairs(s, seen, f)
		}
	}
}

func writeScalar(b *bytes.Buffer, n *yaml.Node, o *Object) error {
	typ, text, err := scalarJSON(n, o)
	if err != nil {
		return err
	}
	if typ == jsonString {
		writeString(b, text)
	} else {
		b.WriteString(text)
	}
	return nil
}

// A jsonType is the JSON type a YAML node reads as.
type jsonType uint8

const (
	jsonNull jsonType = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (t jsonType) String() string {
	return [...]string{"null", "bool", "number", "string", "array", "object"}[t]
}

// scalarJSON reads a YAML scalar as JSON. Tags decide its type the way
// sigs.k8s.io/yaml would, so "80" stays a string and 80 a number. text is
// the JSON literal of nulls, bools and numbers and the value of strings.
// writeJSON and the decoder both read scalars through here so that they
// cannot disagree.
func scalarJSON(n *yaml.Node, o *Object) (jsonType, string, error) {
	switch n.ShortTag() {
	case "!!null":
		return jsonNull, "null", nil
	case "!!bool":
		v, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err != nil {
			return 0, "", Errorf(o.posOf(n), "invalid boolean %q", n.Value)
		}
		return jsonBool, strconv.FormatBool(v), nil
	case "!!int", "!!float":
		if isJSONNumber(n.Value) {
			return jsonNumber, n.Value, nil
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return 0, "", Errorf(o.posOf(n), "invalid number %q", n.Value)
		}
		enc, err := json.Marshal(v)
		if err != nil {
			// .inf and .nan have no JSON form; keep the text.
			return jsonString, n.Value, nil
		}
		return jsonNumber, string(enc), nil
	}
	// !!str, !!binary, !!timestamp and unknown tags.
	return jsonString, n.Value, nil
}

// nodeJSON is the JSON type of any node, and for scalars their text as in
// scalarJSON. An empty document is null.
func nodeJSON(n *yaml.Node, o *Object) (jsonType, string, error) {
	switch n.Kind {
	case yaml.MappingNode:
		return jsonObject, "", nil
	case yaml.SequenceNode:
		return jsonArray, "", nil
	case yaml.DocumentNode:
		return jsonNull, "null", nil
	}
	return scalarJSON(n, o)
}

// isJSONNumber reports whether s can be copied into JSON as a number. An
// explicit tag (`!!int "[1]"`) must not smuggle other JSON values in.
func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid([]byte(s))
}

const hexDigits = "0123456789abcdef"

func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		}
		start = i + 1
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
