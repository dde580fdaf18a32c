package model

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Names are checked as the API server checks them: an object whose
// metadata.name or metadata.namespace it would refuse never exists in a
// cluster, and a reference whose name no object can have never resolves.
// Either is an error at the value, and the object takes no further part
// in the run — nothing is rendered from it, and no name it holds reaches
// a file name or a terminal.

// NameRule is the API server's rule for the names of objects of a kind:
// a Service's name is a DNS-1035 label, a Namespace's a DNS-1123 label,
// every other kind gwpol reads (Secrets, ConfigMaps and every custom
// resource) a DNS-1123 subdomain. It is apimachinery's own function.
func NameRule(gk GroupKind) apivalidation.ValidateNameFunc {
	if gk.Group == CoreGroup {
		switch gk.Kind {
		case "Service":
			return apivalidation.NameIsDNS1035Label
		case "Namespace":
			return apivalidation.ValidateNamespaceName
		}
	}
	return apivalidation.NameIsDNSSubdomain
}

// NameProblems are the API server's objections to name as the name of an
// object of kind gk (none when it is valid).
func NameProblems(gk GroupKind, name string) []string {
	if name == "" {
		return []string{"must not be empty"}
	}
	return NameRule(gk)(name, false)
}

// NamespaceProblems are the API server's objections to ns as a namespace.
func NamespaceProblems(ns string) []string {
	if ns == "" {
		return []string{"must not be empty"}
	}
	return apivalidation.ValidateNamespaceName(ns, false)
}

// metadataProblems checks the object's name and, for a namespaced kind,
// the namespace it was given, with apimachinery's ValidateObjectMeta. A
// cluster-scoped object's namespace is not checked: the API server clears
// it. The object's Namespace is still as written ("" when absent).
//
// Every object read is checked, and hardly any name is refused: when the
// name and the namespace pass their rules, the answer is no problem
// without calling ValidateObjectMeta, whose other checks (generateName,
// generation, labels, annotations, owner references, finalizers, managed
// fields) have nothing to find in a metadata holding only a name and a
// namespace, but which builds a field path for each of them — six
// allocations per object. TestMetadataProblemsAgreeWithTheLibrary holds
// the shortcut to the library.
func metadataProblems(o *manifest.Object, gk GroupKind, namespaced bool) field.ErrorList {
	ns := ""
	if namespaced {
		ns = o.Namespace
		if ns == "" {
			ns = "default" // defaulted: not the input's
		}
	}
	if o.Name != "" && len(NameRule(gk)(o.Name, false)) == 0 && (!namespaced || len(apivalidation.ValidateNamespaceName(ns, false)) == 0) {
		return nil
	}
	return objectMetaProblems(o.Name, ns, gk, namespaced)
}

// objectMetaProblems is ValidateObjectMeta's answer on a metadata holding
// only name and namespace.
func objectMetaProblems(name, ns string, gk GroupKind, namespaced bool) field.ErrorList {
	return apivalidation.ValidateObjectMeta(&metav1.ObjectMeta{Name: name, Namespace: ns}, namespaced, NameRule(gk), field.NewPath("metadata"))
}

// nameFindings are the GWP113 findings about an object's names: its own
// and every reference's in its spec. reads tells the kinds gwpol reads,
// whose name rules it knows.
func nameFindings(o *manifest.Object, gk GroupKind, namespaced bool, reads func(GroupKind) bool, wildcards map[GroupKind]string) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, e := range metadataProblems(o, gk, namespaced) {
		path := e.Field
		value := o.Name
		if path == "metadata.namespace" {
			value = o.Namespace
		}
		pos := o.FieldPos(path)
		if !o.Has(path) {
			pos = o.KeyPos("metadata")
		}
		what := "the name of a " + gk.Kind
		if path == "metadata.namespace" {
			what = "a namespace"
		}
		out = append(out, diag.Diagnostic{Code: LintInvalidName.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: pos,
			Message: fmt.Sprintf("%s %s is not valid as %s: %s; the API server rejects this object, so gwpol leaves it out — rename it",
				path, ShownValue(value), what, detail(e))})
	}
	o.EachReference(func(r manifest.Reference) {
		if r.HasName {
			if msgs := referenceNameProblems(r, reads, wildcards); len(msgs) > 0 {
				out = append(out, diag.Diagnostic{Code: LintInvalidName.Code, Severity: diag.Error, Object: o.Ref(), Field: r.Path + ".name", Pos: r.NamePos,
					Message: fmt.Sprintf("%s.name %s cannot name %s: %s; the reference can never resolve, so gwpol leaves this %s out — fix the name",
						r.Path, ShownValue(r.Name), referentText(r), strings.Join(msgs, "; "), o.Kind)})
			}
		}
		if r.HasNamespace {
			if msgs := NamespaceProblems(r.Namespace); len(msgs) > 0 {
				out = append(out, diag.Diagnostic{Code: LintInvalidName.Code, Severity: diag.Error, Object: o.Ref(), Field: r.Path + ".namespace", Pos: r.NamespacePos,
					Message: fmt.Sprintf("%s.namespace %s is not a valid namespace: %s; the reference can never resolve, so gwpol leaves this %s out — fix the namespace",
						r.Path, ShownValue(r.Namespace), strings.Join(msgs, "; "), o.Kind)})
			}
		}
	})
	return out
}

// detail is a field error's explanation without its field and value,
// which the message gives already (the value escaped and shortened).
func detail(e *field.Error) string {
	if e.Detail != "" {
		return e.Detail
	}
	return e.Type.String()
}

// referent is the group and kind a reference names: as written, else the
// default of the Gateway API field it is in (a backendRef names a Service,
// a parentRef a Gateway, a certificateRef or secretRef a Secret); "" when
// gwpol cannot tell.
func referent(r manifest.Reference) (group, kind string) {
	if r.Kind != "" {
		if r.Group == "core" {
			return CoreGroup, r.Kind
		}
		return r.Group, r.Kind
	}
	switch {
	case r.Key == "backendRef" || r.Key == "backendRefs":
		return CoreGroup, "Service"
	case r.Key == "parentRef" || r.Key == "parentRefs":
		return GatewayGroup, "Gateway"
	case strings.HasSuffix(r.Key, "ertificateRefs") || strings.HasSuffix(r.Key, "ecretRef") || strings.HasSuffix(r.Key, "ecretRefs"):
		return CoreGroup, "Secret"
	}
	return "", ""
}

func referentText(r manifest.Reference) string {
	if _, k := referent(r); k != "" {
		return "a " + k
	}
	return "an object"
}

// coreKinds are the core kinds whose name rules gwpol applies to
// references even when it does not read the kind.
var coreKinds = map[string]bool{"Service": true, "Secret": true, "ConfigMap": true, "Namespace": true}

// maxReferenceName is the Gateway API's ObjectName bound, which every
// object name meets.
const maxReferenceName = 253

// referenceNameProblems are the reasons no object can have the name a
// reference gives. A kind gwpol reads (or a core one) is held to its own
// name rule. Any other referent (a kind gwpol does not know, or a
// controller's pseudo-kind such as a delegation label) only to
// what every Kubernetes name meets: apimachinery's path segment rule (no
// "/", "%", "." or ".."), 1 to 253 characters. A kind's wildcard
// (Options.Wildcards) selects objects instead of naming one: no rule
// applies to it.
func referenceNameProblems(r manifest.Reference, reads func(GroupKind) bool, wildcards map[GroupKind]string) []string {
	g, k := referent(r)
	gk := GroupKind{g, k}
	if k != "" && (reads(gk) || g == CoreGroup && coreKinds[k]) {
		if w, ok := wildcards[gk]; ok && r.Name == w {
			return nil
		}
		return NameProblems(gk, r.Name)
	}
	if r.Name == "" {
		return []string{"must not be empty"}
	}
	msgs := content.IsPathSegmentName(r.Name)
	if len(r.Name) > maxReferenceName {
		msgs = append(msgs, fmt.Sprintf("must be no more than %d characters", maxReferenceName))
	}
	return msgs
}

// maxShown is how much of a value a message quotes.
const maxShown = 64

// ShownValue is a value from the input as a message quotes it: escaped
// (%q: no control character reaches a terminal) and, past maxShown bytes,
// cut with its length given.
func ShownValue(s string) string {
	if len(s) <= maxShown {
		return fmt.Sprintf("%q", s)
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q… (%d bytes)", s[:cut], len(s))
}
