package envoy

import (
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
)

// TestOwnFieldsKeepsSharedSettings: a per-route fragment merged into one
// route leaves the settings that route shares with the other routes of
// its rule (a message, a list) as they were.
func TestOwnFieldsKeepsSharedSettings(t *testing.T) {
	shared := &routev3.Tracing{Operation: "shared"}
	remove := make([]string, 1, 2) // room to append in place
	remove[0] = "a"
	r1 := &routev3.Route{Tracing: shared, RequestHeadersToRemove: remove}
	r2 := &routev3.Route{Tracing: shared, RequestHeadersToRemove: remove}
	per := &routev3.Route{Tracing: &routev3.Tracing{UpstreamOperation: "mine"}, RequestHeadersToRemove: []string{"b"}, StatPrefix: "r1"}
	ownFields(r1, per)
	proto.Merge(r1, per)
	if got := r1.GetTracing(); got.GetOperation() != "shared" || got.GetUpstreamOperation() != "mine" {
		t.Errorf("r1 tracing %v, want the shared operation and its own upstream operation", got)
	}
	if got := r1.GetRequestHeadersToRemove(); len(got) != 2 || r1.GetStatPrefix() != "r1" {
		t.Errorf("r1 = %v", r1)
	}
	if !proto.Equal(r2, &routev3.Route{Tracing: &routev3.Tracing{Operation: "shared"}, RequestHeadersToRemove: []string{"a"}}) {
		t.Errorf("the other route changed: %v", r2)
	}
	if shared.GetUpstreamOperation() != "" || remove[:2][1] != "" {
		t.Errorf("the shared settings changed: %v %v", shared, remove)
	}
}
