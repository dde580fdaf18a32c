package kgateway

import (
	"fmt"
	"math"

	bufferv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/buffer/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// buffer: the buffer filter (any size in the chain), and per resource
// the policy's maximum request size, or switched off by a disable.
func (r *fieldRenderer) buffer() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*Buffer)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.buffer"
	per := &bufferv3.BufferPerRoute{}
	switch {
	case v.Disable != nil:
		per.Override = &bufferv3.BufferPerRoute_Disabled{Disabled: true}
	case v.MaxRequestSize != nil:
		n := v.MaxRequestSize.Value()
		if n < 1 || n > math.MaxUint32 {
			return nil, fmt.Errorf("maxRequestSize %s is out of range", v.MaxRequestSize.String())
		}
		per.Override = &bufferv3.BufferPerRoute_Buffer{Buffer: &bufferv3.Buffer{MaxRequestBytes: wrapperspb.UInt32(uint32(n))}}
	default:
		return nil, fmt.Errorf("buffer needs maxRequestSize or disable")
	}
	return []policy.Fragment{{Capability: "buffer",
		Filter:               &policy.HTTPFilter{Name: name, Order: orderBuffer, Typed: &bufferv3.Buffer{MaxRequestBytes: wrapperspb.UInt32(math.MaxUint32)}},
		TypedPerFilterConfig: map[string]proto.Message{name: per}}}, nil
}
