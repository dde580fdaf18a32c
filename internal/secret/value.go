package secret

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Redacted is how a Value prints, whatever the verb or encoding.
const Redacted = "[redacted]"

// Value is the content of one Secret entry. The zero Value is empty.
type Value struct {
	// A function, not the bytes: fmt prints a struct's unexported fields
	// by reflection, where no method runs, and would show bytes or what a
	// pointer points at; a function it shows as an address.
	get func() []byte
}

// NewValue holds a copy of b.
func NewValue(b []byte) Value {
	c := append([]byte(nil), b...)
	return Value{get: func() []byte { return c }}
}

// Len is the value's size in bytes: a size may be said.
func (v Value) Len() int { return len(v.bytes()) }

// ValidUTF8 reports whether the value is valid UTF-8 text (a controller
// that reads an entry as a string refuses one that is not).
func (v Value) ValidUTF8() bool { return utf8.Valid(v.bytes()) }

// bytes is the content, for this package's parsers only.
func (v Value) bytes() []byte {
	if v.get == nil {
		return nil
	}
	return v.get()
}

// String is Redacted.
func (Value) String() string { return Redacted }

// GoString is Redacted, for %#v.
func (Value) GoString() string { return Redacted }

// Format writes Redacted for every verb and flag.
func (Value) Format(f fmt.State, _ rune) { io.WriteString(f, Redacted) }

// MarshalJSON is Redacted as a JSON string.
func (Value) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// MarshalText is Redacted (encoding.TextMarshaler: XML, map keys, YAML
// libraries that use it).
func (Value) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// MarshalYAML is Redacted (go.yaml.in/yaml's Marshaler).
func (Value) MarshalYAML() (any, error) { return Redacted, nil }

// UnmarshalText reads a stringData entry: the text is the value.
func (v *Value) UnmarshalText(b []byte) error {
	*v = NewValue(b)
	return nil
}

// Encoded is a data entry: the value base64-encoded, as the API server
// stores it and kubectl create secret writes it.
type Encoded struct{ Value }

// errNotBase64 never says what the text was.
var errNotBase64 = errors.New("a Secret data value must be base64 (standard alphabet, padded), as kubectl create secret writes it; the API server refuses this Secret")

// UnmarshalText decodes the base64 text. Whitespace is dropped first:
// YAML folding may leave it inside a long value.
func (e *Encoded) UnmarshalText(b []byte) error {
	s := strings.Join(strings.Fields(string(b)), "")
	out, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return errNotBase64
	}
	e.Value = Value{get: func() []byte { return out }}
	return nil
}

// CheckBase64 checks that v is itself standard base64 text (line breaks
// ignored), as a reader that decodes a Secret's value once more requires.
// The error says where the text stops being base64, never what it holds.
func CheckBase64(v Value) error {
	b := v.bytes()
	_, err := base64.StdEncoding.Decode(make([]byte, base64.StdEncoding.DecodedLen(len(b))), b)
	return err
}
