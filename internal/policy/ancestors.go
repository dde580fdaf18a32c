package policy

import (
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AncestorStatus is one ancestor entry of a policy's status.
type AncestorStatus struct {
	Ancestor model.Key
	Section  string
	// Gateway is the Gateway whose GatewayClass's controller writes the
	// entry; nil when it is not in the input.
	Gateway    *topology.Gateway
	Conditions []metav1.Condition
}
