package xdsjson

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Typed writes m (at the writer's depth, after an "@type" member when
// typeURL is set) without protobuf reflection, reading its Go struct, and
// reports false for a type it has no writer for: those go through
// reflection as before. The writers are generated from the message
// descriptors by the package that knows the types (render/envoy; this
// package imports no xDS type) and write exactly what reflection writes:
// a test there holds them to the reflective writer and to protojson on
// every render, and a fuzz target to protojson.
//
// Reflection's cost is per field declared, not per field set: an Envoy
// Route declares 20 fields and a RouteAction 40, of which a render sets a
// handful, and Range asks each whether it is set.
type Typed func(w *Writer, m proto.Message, typeURL string) (written bool, err error)

// The methods below are the pieces a Typed writer writes with; they lay
// out members and values exactly as the reflective writer does.

// Fields writes m's fields through reflection (a Typed writer's way back
// for what it does not handle itself: a nil message, a skipped field).
func (w *Writer) Fields(m protoreflect.Message, typeURL string) error {
	return w.fields(m, typeURL)
}

// Begin opens an object, with its "@type" member when typeURL is set,
// and returns how many members it has so far.
func (w *Writer) Begin(typeURL string) (int, error) {
	w.Buf = append(w.Buf, '{')
	if typeURL == "" {
		return 0, nil
	}
	w.name(0, "@type")
	return 1, w.str(typeURL)
}

// Field starts the n-th member of an object, named by a proto field name.
func (w *Writer) Field(n int, name string) { w.name(n, name) }

// Key starts the n-th member of a map.
func (w *Writer) Key(n int, key string) error { return w.key(n, key) }

// Open starts an array ('[') or a map ('{').
func (w *Writer) Open(c byte) { w.Buf = append(w.Buf, c) }

// Elem starts the i-th element of an array.
func (w *Writer) Elem(i int) { w.member(i) }

// Close ends an object, map or array that got n members.
func (w *Writer) Close(n int, c byte) { w.close(n, c) }

// Bool, Int, Uint, QuotedInt, QuotedUint, Float, Bytes, StringField and
// Enum write a value of the proto kind they are named for.
func (w *Writer) Bool(v bool) { w.Buf = strconv.AppendBool(w.Buf, v) }

// Int writes a 32-bit signed integer.
func (w *Writer) Int(v int64) { w.Buf = strconv.AppendInt(w.Buf, v, 10) }

// Uint writes a 32-bit unsigned integer.
func (w *Writer) Uint(v uint64) { w.Buf = strconv.AppendUint(w.Buf, v, 10) }

// QuotedInt writes a 64-bit signed integer, quoted as protojson does.
func (w *Writer) QuotedInt(v int64) {
	w.Buf = append(w.Buf, '"')
	w.Buf = strconv.AppendInt(w.Buf, v, 10)
	w.Buf = append(w.Buf, '"')
}

// QuotedUint writes a 64-bit unsigned integer, quoted.
func (w *Writer) QuotedUint(v uint64) {
	w.Buf = append(w.Buf, '"')
	w.Buf = strconv.AppendUint(w.Buf, v, 10)
	w.Buf = append(w.Buf, '"')
}

// Float writes a float (bits 32) or double (64).
func (w *Writer) Float(v float64, bits int) { w.Buf = appendFloat(w.Buf, v, bits) }

// Bytes writes base64.
func (w *Writer) Bytes(v []byte) {
	w.Buf = append(w.Buf, '"')
	w.Buf = base64.StdEncoding.AppendEncode(w.Buf, v)
	w.Buf = append(w.Buf, '"')
}

// StringField writes a string value of the field named field (which an
// error names, as the reflective writer's does).
func (w *Writer) StringField(v string, field protoreflect.FullName) error {
	if err := w.str(v); err != nil {
		return fmt.Errorf("field %s: %w", field, err)
	}
	return nil
}

// Enum writes an enum value by name (its number when it has none).
func (w *Writer) Enum(n protoreflect.EnumNumber, ed protoreflect.EnumDescriptor) { w.enum(n, ed) }

// SortedKeys lists m's keys in protojson's order, in a slice the writer
// reuses once given back (ReleaseKeys).
func SortedKeys[V any](w *Writer, m map[string]V) []string {
	var keys []string
	if k := len(w.freeNames); k > 0 {
		keys, w.freeNames = w.freeNames[k-1], w.freeNames[:k-1]
	}
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ReleaseKeys gives back a SortedKeys slice.
func (w *Writer) ReleaseKeys(keys []string) {
	clear(keys)
	w.freeNames = append(w.freeNames, keys[:0])
}
