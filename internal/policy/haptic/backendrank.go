package haptic

import "github.com/gwpol/gwpol/internal/policy"

// backendRank is HAPTIC's ranking of the BackendTLSPolicies on one
// backend (policy.Controller.BackendRank). The backend macros
// (gateway/30-backends.yaml@0c1a6446: util-generate-httproute-backends-gateway
// and its GRPCRoute sibling) take one winner among every policy of the
// Service's namespace with a targetRef naming the Service, whole or by
// the port's name alike: the earliest creationTimestamp — a policy
// without one loses to any that has one (`polTs != "" && (winningPolicyTs
// == "" || polTs < winningPolicyTs)`) — then the smaller namespace/name.
// No other backend policy kind is HAPTIC's.
func backendRank(k policy.Kind) func(p *policy.Policy, section string) policy.BackendRankKey {
	if k.GroupKind() != backendTLSPolicy {
		return nil
	}
	return func(p *policy.Policy, _ string) policy.BackendRankKey {
		return policy.BackendRankKey{At: p.Created, Ref: p.Obj.Namespace + "/" + p.Obj.Name, UndatedLast: true}
	}
}
