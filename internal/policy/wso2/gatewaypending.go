package wso2

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
)

// Annotations of a Gateway the operator reads before it installs the
// gateway (gateway_api_annotations.go@1c84e11c).
const (
	AnnotationAPISelector          = Group + "/api-selector"
	AnnotationHelmValuesConfigMap  = Group + "/helm-values-configmap"
	gatewayPendingRouteReason      = "GatewayPending"
	gatewayPendingRouteMessage     = "Platform gateway controller endpoint not registered"
	gatewayWaitingForControllerMsg = "Waiting for controller"
)

// LintGatewayNeverRegisters is a Gateway of a class the WSO2 operator
// manages that its own annotations keep from ever being installed.
var LintGatewayNeverRegisters = diag.Rule{Code: "GWP515", Name: "gateway-never-registers", Severity: diag.Error,
	Title: "Gateway the WSO2 operator never installs",
	Doc: "The WSO2 gateway operator (at the family's pinned commit, 1c84e11c) reads a Gateway's " + AnnotationAPISelector + " annotation as JSON and the values.yaml entry of the ConfigMap its " +
		AnnotationHelmValuesConfigMap + " annotation names (in the Gateway's namespace) before it installs the gateway; when the selector is not JSON, or that ConfigMap is missing, lacks values.yaml or has it empty, it installs nothing and never registers the Gateway: " +
		"it writes Programmed False/Pending with the error (Accepted stays as the API server defaults it, Unknown/Pending), every HTTPRoute on the Gateway gets Accepted False/GatewayPending, and nothing is served. gwpol translates nothing of such a Gateway."}

// apiSelector is the operator's APISelector (api/v1alpha1:
// APISelector), the shape the annotation is decoded into.
type apiSelector struct {
	Scope            string                            `json:"scope"`
	Namespaces       []string                          `json:"namespaces,omitempty"`
	MatchLabels      map[string]string                 `json:"matchLabels,omitempty"`
	MatchExpressions []metav1.LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// gatewayPending is the WSO2 operator's check of a Gateway of a class it
// manages before it installs it (topology.GatewayReport.Pending), in the
// order syncGateway makes it (k8s_gateway_controller.go@1c84e11c:
// parseK8sGatewayAPISelector, then gateway_infra.go: configMapValuesYAML):
// its error ends the sync before the gateway is registered, and
// Reconcile writes it as Programmed False/Pending (the Gateway CRD's
// default Accepted Unknown/Pending stands). What happens later in the
// cluster (the Helm install, the Deployments getting ready) is not in the
// manifests.
func gatewayPending(m *model.Model, gw *model.Gateway) (topology.Refusal, []diag.Diagnostic) {
	ns := gw.Namespace
	if ns == "" {
		ns = "default"
	}
	var msg, annotation string
	if raw := gw.Annotations[AnnotationAPISelector]; raw != "" {
		var s apiSelector
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			msg, annotation = "api selector annotation: "+err.Error(), AnnotationAPISelector
		}
	}
	if cmName := gw.Annotations[AnnotationHelmValuesConfigMap]; msg == "" && cmName != "" {
		annotation = AnnotationHelmValuesConfigMap
		switch cm := m.ConfigMap(ns, cmName); {
		case cm == nil:
			msg = fmt.Sprintf("failed to get ConfigMap %s/%s: configmaps %q not found", ns, cmName, cmName)
		case cm.Assumed || cm.Src == nil:
			// config says it exists: its values are not in the input
		default:
			if v, ok := cm.Data("values.yaml"); !ok {
				msg = fmt.Sprintf("ConfigMap %s/%s does not contain 'values.yaml' key", ns, cmName)
			} else if v.Len() == 0 {
				msg = fmt.Sprintf("'values.yaml' key in ConfigMap %s/%s is empty", ns, cmName)
			}
		}
	}
	if msg == "" {
		return topology.Refusal{}, nil
	}
	refusal := topology.Refusal{Reason: "Pending", Message: msg, Conditions: []metav1.Condition{
		{Type: "Accepted", Status: metav1.ConditionUnknown, Reason: "Pending", Message: gatewayWaitingForControllerMsg},
		{Type: "Programmed", Status: metav1.ConditionFalse, Reason: "Pending", Message: msg},
	}}
	if gw.Src == nil {
		return refusal, nil
	}
	const field = "metadata.annotations"
	pos := gw.Src.FieldPos(field)
	for _, k := range gw.Src.MapKeys(field) {
		if k.Name == annotation {
			pos = k.Pos // the annotation at fault
		}
	}
	d := diag.Diagnostic{Code: LintGatewayNeverRegisters.Code, Severity: LintGatewayNeverRegisters.Severity, Object: gw.Src.Ref(), Field: field, Pos: pos,
		Message: fmt.Sprintf("the WSO2 gateway operator never installs Gateway %s/%s: %s; it writes Programmed False/Pending, deploys nothing, and every HTTPRoute on it gets Accepted False/%s", gw.Namespace, gw.Name, msg, gatewayPendingRouteReason)}
	return refusal, []diag.Diagnostic{d}
}
