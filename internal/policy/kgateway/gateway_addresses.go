package kgateway

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// LintKgatewayGatewayAddress is the finding of a Gateway address kgateway
// reports it cannot use.
var LintKgatewayGatewayAddress = diag.Rule{Code: "GWP223", Name: "kgateway-gateway-address", Severity: diag.Warning,
	Title: "kgateway Gateway address its controller reports it cannot use",
	Doc: "A kgateway Gateway whose spec.addresses names an address kgateway's status reporter refuses: a Hostname address makes the Gateway Programmed False (AddressNotUsable, " +
		"\"Hostname addresses may not be used\"), an address of a type other than IPAddress and Hostname makes it Accepted False (UnsupportedAddress, \"Unknown address kind\"). " +
		"kgateway still translates the Gateway: its listeners are served, bound as every kgateway listener is (never to the address), and routes attach to them as before; " +
		"only the Gateway's conditions say it is not accepted or not programmed, which tools waiting on them (a rollout, a health check) read as a failure. " +
		"An IPAddress address, and one without a type (the API server defaults it to IPAddress), is not reported."}

// kgateway's status reporter writes, after translation, a condition per
// Gateway address it cannot use over the Gateway's own (reports/status.go:
// BuildGWStatus → handleInvalidAddresses, before the defaults fill the
// conditions no one set). Its messages.
const (
	addressHostnameMsg = "Hostname addresses may not be used"
	addressUnknownMsg  = "Unknown address kind"
)

// gatewayAddresses implements policy.Family.GatewayReport: the conditions
// kgateway's handleInvalidAddresses writes on gw, one per condition type
// (the last address of a type standing, as meta.SetStatusCondition sets
// it), with a finding at each address it cannot use. Translation does not read spec.addresses: nothing else of the
// Gateway changes.
func gatewayAddresses(_ *policy.Env, gw *model.Gateway) ([]metav1.Condition, []diag.Diagnostic) {
	var conds []metav1.Condition
	var ds []diag.Diagnostic
	for i, a := range gw.Spec.Addresses {
		if a.Type == nil {
			continue // the API server's default, IPAddress
		}
		var c metav1.Condition
		switch *a.Type {
		case gwv1.IPAddressType:
			continue
		case gwv1.HostnameAddressType:
			c = metav1.Condition{Type: "Programmed", Status: metav1.ConditionFalse, Reason: string(gwv1.GatewayReasonAddressNotUsable), Message: addressHostnameMsg}
		default:
			c = metav1.Condition{Type: "Accepted", Status: metav1.ConditionFalse, Reason: string(gwv1.GatewayReasonUnsupportedAddress), Message: addressUnknownMsg}
		}
		conds = setCondition(conds, c)
		path := fmt.Sprintf("spec.addresses[%d].type", i)
		ds = append(ds, diag.Diagnostic{Code: LintKgatewayGatewayAddress.Code, Severity: LintKgatewayGatewayAddress.Severity, Object: gw.Src.Ref(), Field: path, Pos: gw.Src.FieldPos(path),
			Message: fmt.Sprintf("Gateway %s/%s address %q of type %s: kgateway reports the Gateway %s=False (%s: %s); it still translates and serves the Gateway's listeners, bound as always, not to this address",
				gw.Namespace, gw.Name, a.Value, *a.Type, c.Type, c.Reason, c.Message)})
	}
	return conds, ds
}

// setCondition sets c in cs in place of the condition of its type, as
// Kubernetes' meta.SetStatusCondition does.
func setCondition(cs []metav1.Condition, c metav1.Condition) []metav1.Condition {
	for i := range cs {
		if cs[i].Type == c.Type {
			cs[i] = c
			return cs
		}
	}
	return append(cs, c)
}
