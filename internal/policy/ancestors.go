package policy

import (
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AncestorStatuser is implemented by kinds whose controller writes policy
// status by rules of its own rather than from merge origins: Envoy Gateway
// decides Conflicted, Overridden and Merged across all the policies of one
// kind, in its processing order, before any field is merged. status calls
// it once per kind with every policy of that kind.
type AncestorStatuser interface {
	AncestorStatuses(ps []*Policy, g *topology.Graph) map[*Policy][]AncestorStatus
}

// AncestorStatus is one ancestor entry of a policy's status.
type AncestorStatus struct {
	Ancestor model.Key
	Section  string
	// Gateway is the Gateway whose GatewayClass's controller writes the
	// entry; nil when it is not in the input.
	Gateway    *topology.Gateway
	Conditions []metav1.Condition
}
