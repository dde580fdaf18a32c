package kgateway

import (
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// backendTLSPolicy is the Gateway API's BackendTLSPolicy, which kgateway
// translates with a plugin of its own.
var backendTLSPolicy = model.GroupKind{Group: model.GatewayGroup, Kind: "BackendTLSPolicy"}

// backendRank is kgateway's ranking of the policies of a kind on one
// backend target (policy.Controller.BackendRank). Its BackendTLSPolicy
// plugin merges by taking one winner (extensions2/plugins/
// backendtlspolicy/helpers.go@677f42f8: MergePolicies → winnerIndex →
// pluginsdk/ir: WinnerPolicyIndexByCreationTimeAndRef) among every
// policy the backend index lists for the cluster — the whole Service's
// lookup and its port's (sectionName) appended (krtcollections/
// policy.go@6026ee98: BackendIndex.AddBackends) — so the attachment form
// does not count: the oldest wins (CreationTime().Compare, where a policy
// without creationTimestamp has the zero time, the earliest), then the
// smaller PolicyRefString, group/kind/namespace/name/sectionName. The
// other kinds kgateway reads on a backend are its own (BackendConfigPolicy
// merges field by field: KindSpec.WholeTargetFirst).
func backendRank(k policy.Kind) func(p *policy.Policy, section string) policy.BackendRankKey {
	if k.GroupKind() != backendTLSPolicy {
		return nil
	}
	return func(p *policy.Policy, section string) policy.BackendRankKey {
		gk := p.Kind.GroupKind()
		return policy.BackendRankKey{At: p.Created, Ref: gk.Group + "/" + gk.Kind + "/" + p.Obj.Namespace + "/" + p.Obj.Name + "/" + section}
	}
}
