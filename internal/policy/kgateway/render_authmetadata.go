package kgateway

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/policy"
)

// authSucceeded is kgateway's per-route transformation that records a
// passed authentication: dynamic metadata dev.kgateway.auth_policy
// auth_succeeded = "true".
const authSucceeded = `{"request":{"body":{"parseAs":"None"},"dynamicMetadata":[{"namespace":"dev.kgateway.auth_policy","key":"auth_succeeded","value":{"stringValue":"true"}}]},"response":{"body":{"parseAs":"None"}}}`

// authMetadata is the filter kgateway puts after an authentication
// family when its EnableAuthMetadata setting is on ("<family>_enabled"):
// on a resource where the family authenticates it records
// auth_succeeded, on one where the family is disabled it records nothing.
// Under kgateway it is kgateway's rustformation dynamic module, as
// kgateway writes it; other targets get the upstream set_metadata filter
// writing the same metadata, switched on per resource. Nil when the
// setting is off.
func (r *fieldRenderer) authMetadata(capability, family string, order int, disabled bool) []policy.Fragment {
	if !EnableAuthMetadata.Bool(r.env.Config) {
		return nil
	}
	name := family + "_enabled"
	if r.env.Target == "kgateway" {
		route := authSucceeded
		if disabled {
			route = "{}"
		}
		return []policy.Fragment{dynamicModule("transformation", name, "rustformation", order, "{}", route)}
	}
	per := enabledConfig()
	if disabled {
		per = disabledConfig()
	}
	return []policy.Fragment{{Capability: capability,
		Filter:               &policy.HTTPFilter{Name: name, Order: order, Typed: setMetadata("dev.kgateway.auth_policy", "auth_succeeded", structpb.NewStringValue("true"))},
		TypedPerFilterConfig: map[string]proto.Message{name: per}}}
}
