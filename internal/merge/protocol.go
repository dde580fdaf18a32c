package merge

import (
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// ProtocolVerdict is the verdict on a field limited to one upstream
// protocol (policy.FieldSpec.Protocol) on one backend cluster: the field
// applies only to a backend that speaks Only, and the backend speaks
// Speaks as its controller decides it before any policy
// (policy.Registry.BackendProtocol; "" where the controller does not
// decide it so). Render leaves a field LeftOut of the cluster and out of
// its merge metadata, lint reports it (GWP306), explain says so: each
// reads this verdict (Result.FieldProtocolOn), none decides it again.
type ProtocolVerdict struct {
	Only   string
	Speaks string
}

// LeftOut says the field is not applied to the cluster: it is limited to
// one protocol and the backend speaks the other. A field of any protocol,
// or one on a backend whose protocol its controller does not decide, is
// not left out.
func (v ProtocolVerdict) LeftOut() bool {
	return v.Only != "" && v.Speaks != "" && v.Speaks != v.Only
}

// FieldProtocolOn is the verdict on field key of kind on the cluster of
// port of backend b (port 0 for a backend object with no port of its
// own), the protocol decided under the render target of the kind's
// controller. The zero verdict for a field of any protocol.
func (r *Result) FieldProtocolOn(kind policy.Kind, key string, b model.Key, port int32) ProtocolVerdict {
	only := kind.Spec().FieldProtocol(key)
	if only == "" || r.Registry == nil || r.Graph == nil {
		return ProtocolVerdict{}
	}
	t, ok := r.Registry.KindTarget(kind)
	if !ok {
		return ProtocolVerdict{Only: only}
	}
	return ProtocolVerdict{Only: only, Speaks: r.Registry.BackendProtocol(&t, r.Graph.Model, b, port)}
}
