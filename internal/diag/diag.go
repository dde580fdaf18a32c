package diag

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// Position is a place in an input file. Line and Col are 1-based; zero means
// unknown.
type Position struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"column"`
}

// String renders FILE:LINE:COL, dropping what is unknown.
func (p Position) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Compare orders positions by file, line, then column.
func (p Position) Compare(o Position) int {
	return cmp.Or(cmp.Compare(p.File, o.File), cmp.Compare(p.Line, o.Line), cmp.Compare(p.Col, o.Col))
}

// Severity of a finding. Higher is more severe.
type Severity int

// Severities, least severe first; None is only a threshold ("fail on nothing").
const (
	Info Severity = iota + 1
	Warning
	Error
	None
)

func (s Severity) String() string {
	switch s {
	case Info:
		return "info"
	case Warning:
		return "warning"
	case Error:
		return "error"
	case None:
		return "none"
	}
	return "unknown"
}

// ParseSeverity reads the words users type in --fail-on and config.
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "info":
		return Info, nil
	case "warning", "warn":
		return Warning, nil
	case "error":
		return Error, nil
	case "none":
		return None, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want error, warning, info or none)", s)
}

// ObjectRef names a Kubernetes object in findings and status.
type ObjectRef struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String is Kind/namespace/name, the form users grep for.
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Compare orders refs by kind, namespace, name, group.
func (r ObjectRef) Compare(o ObjectRef) int {
	return cmp.Or(cmp.Compare(r.Kind, o.Kind), cmp.Compare(r.Namespace, o.Namespace),
		cmp.Compare(r.Name, o.Name), cmp.Compare(r.Group, o.Group))
}

// Diagnostic is one finding. Stages emit them with their default severity;
// lint applies configured severities and suppressions.
type Diagnostic struct {
	Code     string
	Severity Severity
	Message  string
	Object   ObjectRef
	Field    string // field path inside the object, e.g. spec.targetRefs[0].name
	Pos      Position
}

// Compare orders diagnostics by position, then code, then message, so output
// never depends on the order stages ran in.
func (d Diagnostic) Compare(o Diagnostic) int {
	return cmp.Or(d.Pos.Compare(o.Pos), cmp.Compare(d.Code, o.Code), d.Object.Compare(o.Object),
		cmp.Compare(d.Field, o.Field), cmp.Compare(d.Message, o.Message))
}

// Sort sorts diagnostics in place and drops exact repeats.
func Sort(ds []Diagnostic) []Diagnostic {
	slices.SortFunc(ds, Diagnostic.Compare)
	return slices.CompactFunc(ds, func(a, b Diagnostic) bool { return a.Compare(b) == 0 })
}

// Kind is the closed set of error kinds inside gwpol.
type Kind string

// The error kinds; the CLI maps each to an exit code in one place.
const (
	Invalid     Kind = "invalid"
	Unsupported Kind = "unsupported"
	NotFound    Kind = "not_found"
	Conflict    Kind = "conflict"
	Internal    Kind = "internal"
	Usage       Kind = "usage"
)

// KindError is an error with a kind and, when known, the field path
// (spec.static.hosts[0].host) it is about, where a finding made from it
// is positioned.
type KindError struct {
	Kind  Kind
	Field string
	Err   error
}

func (e *KindError) Error() string { return e.Err.Error() }
func (e *KindError) Unwrap() error { return e.Err }

// Errorf builds a KindError of kind k.
func Errorf(k Kind, format string, args ...any) error {
	return &KindError{Kind: k, Err: fmt.Errorf(format, args...)}
}

// FieldErrorf builds a KindError of kind k about the field at path.
func FieldErrorf(k Kind, path, format string, args ...any) error {
	return &KindError{Kind: k, Field: path, Err: fmt.Errorf(format, args...)}
}

// FieldOf returns the field path err is about, "" when it names none.
func FieldOf(err error) string {
	var e *KindError
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}

// KindOf returns the kind of err, Internal when it carries none.
func KindOf(err error) Kind {
	var e *KindError
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Rule is a lint rule as a value: the stage or policy kind that makes a
// finding declares the rule once, as a package-level variable, and builds
// the finding's Code from it, so a code is never typed twice. lint's
// registry is the union of every stage's and kind's rules and its own.
type Rule struct {
	// Code is stable once released and never reused ("GWPnnn").
	Code string
	// Name is the rule's kebab-case name, e.g. delegation-to-nothing.
	Name string
	// Title is the one-line summary the rule table shows.
	Title string
	// Doc says what the finding means and what to do about it.
	Doc string
	// Severity is the default; a stage may report a finding of the rule
	// at another severity, and config lint.severity overrides both.
	Severity Severity
}
