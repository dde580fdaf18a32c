package wso2

import (
	"fmt"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
)

// The conditions the gateway operator writes on a RestApi (and the other
// API kinds it deploys): Accepted=True/Accepted once it takes the object,
// then Programmed=True/Programmed when the gateway-controller deploys the
// API, or Programmed=False/Invalid "Deployment failed: …" when the
// controller rejects the configuration (HTTP 400). gwpol answers for the
// controller: an object with errors is the rejected one.
var (
	_ policy.ObjectStatuser = (*RestAPIKind)(nil)
	_ policy.ObjectStatuser = (*APIKind)(nil)
)

// ObjectConditions implements policy.ObjectStatuser.
func (k *RestAPIKind) ObjectConditions(p *policy.Policy) []policy.ObjectCondition {
	return apiConditions(p)
}

// ObjectConditions implements policy.ObjectStatuser: a WebSubApi is no
// Kubernetes object the operator deploys, so it has none.
func (k *APIKind) ObjectConditions(p *policy.Policy) []policy.ObjectCondition {
	if !k.resolved {
		return nil
	}
	return apiConditions(p)
}

func apiConditions(p *policy.Policy) []policy.ObjectCondition {
	accepted := policy.ObjectCondition{Type: "Accepted", Status: "True", Reason: "Accepted",
		Message: fmt.Sprintf("%s accepted by the gateway operator", p.Obj.Kind)}
	if p.IsValid() {
		return []policy.ObjectCondition{accepted, {Type: "Programmed", Status: "True", Reason: "Programmed",
			Message: "the gateway-controller accepts the API configuration"}}
	}
	var ms []string
	for _, d := range p.Invalid {
		ms = append(ms, d.Field+": "+d.Message)
	}
	return []policy.ObjectCondition{accepted, {Type: "Programmed", Status: "False", Reason: "Invalid",
		Message: "Deployment failed: " + strings.Join(ms, "; ")}}
}
