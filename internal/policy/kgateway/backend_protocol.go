package kgateway

import (
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
)

var _ policy.BackendAppProtocoler = Kind{}

// BackendAppProtocol implements policy.BackendAppProtocoler: a static
// Backend's appProtocol ("" for other types, or when it does not decode —
// its cluster reports that).
func (Kind) BackendAppProtocol(o *manifest.Object) string {
	var b Backend
	if err := o.Decode(&b); err != nil || b.Spec.Static == nil || b.Spec.Static.AppProtocol == nil {
		return ""
	}
	return *b.Spec.Static.AppProtocol
}
