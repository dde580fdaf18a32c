package kgateway

import (
	"encoding/json"
	"testing"

	dynmodulefilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/dynamic_modules/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestACLDenyResponseHeader: the deny response's blockedByHeaderName (the
// API's spelling) reaches the ACL module's per-route configuration.
func TestACLDenyResponseHeader(t *testing.T) {
	var v ACLPolicy
	spec := `{"defaultAction": "allow", "rules": [{"cidrs": ["10.0.0.0/8"], "action": "deny"}],
	  "denyResponse": {"statusCode": 403, "blockedByHeaderName": "X-Blocked-By"}}`
	if err := json.Unmarshal([]byte(spec), &v); err != nil {
		t.Fatal(err)
	}
	frs := renderField(t, "httpACL", &v)
	per, ok := frs[0].TypedPerFilterConfig[frs[0].Filter.Name].(*dynmodulefilterv3.DynamicModuleFilterPerRoute)
	if !ok {
		t.Fatalf("per-route config is a %T", frs[0].TypedPerFilterConfig[frs[0].Filter.Name])
	}
	var sv wrapperspb.StringValue
	if err := per.GetFilterConfig().UnmarshalTo(&sv); err != nil {
		t.Fatal(err)
	}
	raw := sv.GetValue()
	var got struct {
		DenyResponse struct {
			BlockedByHeaderName string `json:"blockedByHeaderName"`
		} `json:"denyResponse"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("module config %q: %v", raw, err)
	}
	if got.DenyResponse.BlockedByHeaderName != "X-Blocked-By" {
		t.Errorf("module config %s: want denyResponse.blockedByHeaderName X-Blocked-By", raw)
	}
}
