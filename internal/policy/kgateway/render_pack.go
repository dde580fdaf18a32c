package kgateway

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// pack puts a message a kind builds into an Any, deterministically (equal
// messages, equal bytes). Marshalling a message built here cannot fail
// short of a bug; it then packs nothing, which Envoy validation reports.
func pack(m proto.Message) *anypb.Any {
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return &anypb.Any{}
	}
	return &anypb.Any{TypeUrl: typeURL(string(m.ProtoReflect().Descriptor().FullName())), Value: raw}
}
