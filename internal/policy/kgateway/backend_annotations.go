package kgateway

import (
	"fmt"
	"strconv"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// LintKgatewayBackendAnnotationInvalid is the finding of a Service or kgateway
// Backend whose clusters kgateway leaves out because it cannot read one of
// its annotations, while no status says so.
var LintKgatewayBackendAnnotationInvalid = diag.Rule{Code: "GWP226", Name: "kgateway-backend-annotation-invalid", Severity: diag.Warning,
	Title: "Service or kgateway Backend with an annotation kgateway cannot read",
	Doc: "kgateway reads the annotation " + AnnotationDisableIstioAutoMTLS + " on every Service and Backend it builds clusters for, whatever its Istio setting, " +
		"and a value Go's strconv.ParseBool refuses (anything but 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False) is an error of the backend: " +
		"kgateway builds none of its clusters (every port of a Service) and leaves them out of the config, so a route to it keeps the cluster's name " +
		"and Envoy answers the requests sent to it 500 (the route's cluster-not-found code). kgateway writes no status on a Service, and a Backend's " +
		"Accepted condition does not say it either: this finding is the only report."}

// annotationProblem is the error kgateway's ParseObjectAnnotations
// (pluginsdk/ir/backend.go, at eedc6ec5) adds to a backend built from an
// object with these annotations, "" when none: the Istio auto-mTLS
// annotation read by strconv.ParseBool. It runs for every Service port
// (kubernetes/k8s.go: BuildServiceBackendObjectIR) and every Backend
// (backend/plugin.go: the Backend collection, after the Backend's own
// errors, which its status reports — this one it does not), whatever
// enableIstioAutoMtls says; a backend with errors gets no cluster
// (irtranslator/backend.go: TranslateBackend, row Q12).
func annotationProblem(annotations map[string]string) string {
	v, ok := annotations[AnnotationDisableIstioAutoMTLS]
	if !ok {
		return ""
	}
	if _, err := strconv.ParseBool(v); err != nil {
		return fmt.Sprintf("invalid annotation %s value %q: %v", AnnotationDisableIstioAutoMTLS, v, err)
	}
	return ""
}

// droppedFinding is the finding of a backend object kgateway builds no
// cluster for without saying so (policy.ObjectVerdict.Dropped).
func droppedFinding(o *manifest.Object, k model.Key, msg string) diag.Diagnostic {
	rule := LintKgatewayBackendAnnotationInvalid
	what := "its clusters"
	if k.Group == model.CoreGroup {
		what = "the clusters of every port"
	}
	return diag.Diagnostic{Code: rule.Code, Severity: rule.Severity, Object: o.Ref(), Field: "metadata.annotations", Pos: o.FieldPos("metadata.annotations"),
		Message: fmt.Sprintf("kgateway builds no cluster for %s %s/%s: %s; it leaves out %s and writes no status that says so, so the requests routes send it answer 500", k.Kind, k.Namespace, k.Name, msg, what)}
}

// droppedServices are kgateway's verdicts on the Services whose
// annotations it cannot read (annotationProblem): no condition (it writes
// none on a Service), no cluster, and a finding.
func droppedServices(env *policy.Env) []policy.ObjectVerdict {
	var out []policy.ObjectVerdict
	for _, o := range env.Model.OfKind(model.GroupKind{Group: model.CoreGroup, Kind: string(policy.TargetService)}) {
		if len(o.Annotations) == 0 {
			continue
		}
		if msg := annotationProblem(o.Annotations); msg != "" {
			k := model.KeyOf(o)
			out = append(out, policy.ObjectVerdict{Object: k, Dropped: msg, Diagnostics: []diag.Diagnostic{droppedFinding(o, k, msg)}})
		}
	}
	return out
}
