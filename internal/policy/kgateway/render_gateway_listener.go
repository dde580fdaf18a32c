package kgateway

import (
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gwpol/gwpol/internal/topology"
)

// PerConnectionBufferLimit is the Gateway annotation kgateway reads as
// the per-connection buffer limit of every Envoy listener of the Gateway
// (its ListenerSets' included), a Kubernetes quantity ("64Ki"); a
// ListenerPolicy's perConnectionBufferLimitBytes overrides it. kgateway
// deprecates it in favour of that field.
const PerConnectionBufferLimit = "kgateway.dev/per-connection-buffer-limit"

// gatewayListener is what kgateway writes on every listener of gw from
// the Gateway itself (policy.Target.GatewayListener): the buffer limit
// its annotation gives (krtcollections: GatewaysForEnvoyTransformationFunc
// parses it with resource.ParseQuantity; irtranslator: ComputeListener
// sets it before the listener policies run). A value that does not parse
// is ignored, as kgateway logs and ignores it.
func gatewayListener(gw *topology.Gateway) proto.Message {
	n, ok, _ := perConnectionBufferLimit(gw.Annotations)
	if !ok {
		return nil
	}
	return &listenerv3.Listener{PerConnectionBufferLimitBytes: wrapperspb.UInt32(n)}
}

// perConnectionBufferLimit reads the annotation: the limit, whether it is
// set and usable, and the parse error of a value that is not a quantity.
func perConnectionBufferLimit(ann map[string]string) (uint32, bool, error) {
	v := ann[PerConnectionBufferLimit]
	if v == "" {
		return 0, false, nil
	}
	q, err := resource.ParseQuantity(v)
	if err != nil {
		return 0, false, err
	}
	return uint32(q.Value()), true, nil // kgateway's conversion, as written
}
