package envoygateway

import (
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/manifest"
)

// writtenAt is where a typed value sits in the object it was decoded
// from: the object and the value's field path in it (spec.circuitBreaker,
// spec.extProc[2]). Typed values are the object as the API server stores
// it, CRD defaults applied (manifest.Object.Defaults); the checks that
// judge what a user set (unrenderedFields, unrendered) ask it whether a
// field's value is only the CRD's default, which no user wrote and which
// is reported as no setting of theirs. The zero writtenAt knows no object
// — a value merged from several policies (effectiveValue), which is
// decoded from what they wrote, or a test's — and takes every value as
// written.
type writtenAt struct {
	obj *manifest.Object
	// path is the value's field path; key, when the path ends in a key,
	// is that key.
	path, key string
}

// field is the place of a field of the value here (its JSON key).
func (w writtenAt) field(key string) writtenAt {
	if w.obj == nil {
		return w
	}
	return writtenAt{obj: w.obj, path: w.path + "." + key, key: key}
}

// index is the place of an item of the list here.
func (w writtenAt) index(i int) writtenAt {
	if w.obj == nil {
		return w
	}
	return writtenAt{obj: w.obj, path: w.path + "[" + strconv.Itoa(i) + "]"}
}

// byDefault reports whether the value here is the CRD's default and
// nothing the object writes: the field, or one above it, was given a
// default, and no key of the field's map names it in another case (a
// controller decoding with encoding/json reads such a key as the field,
// and the typed value holds what it wrote: manifest's setAt).
func (w writtenAt) byDefault() bool {
	if w.obj == nil || !w.obj.Defaulted(w.path) {
		return false
	}
	if w.key != "" {
		for _, k := range w.obj.Keys(strings.TrimSuffix(w.path, "."+w.key)) {
			if strings.EqualFold(k, w.key) {
				return false
			}
		}
	}
	return true
}
