package envoygateway

import (
	"encoding/json"
	"testing"

	headermutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/header_mutation/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	earlymutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/early_header_mutation/header_mutation/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestClientHeaderModifiers: a ClientTrafficPolicy's early request and
// late response headers as Envoy Gateway v1.9 writes them (each shape
// checked with egctl v1.9.0 --to xds): add, set and addIfAbsent in that
// order, a name an earlier entry of any of them took (case-insensitively)
// dropped; removals once each (case-insensitively), then the matchers;
// the early ones on the connection manager's early header mutation
// extension, the late ones in a header_mutation filter on in the chain;
// a modifier that is not given writes nothing.
func TestClientHeaderModifiers(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		early, late string // the mutations as protojson, "" for none
	}{
		{"early only, case-folded duplicates across add, set and addIfAbsent",
			`{"earlyRequestHeaders":{"add":[{"name":"X-A","value":"1"}],"set":[{"name":"x-a","value":"2"},{"name":"x-b","value":"3"}],"addIfAbsent":[{"name":"X-B","value":"4"},{"name":"x-c","value":"5"}]}}`,
			`[{"append":{"header":{"key":"X-A","value":"1"}}},{"append":{"header":{"key":"x-b","value":"3"},"appendAction":"OVERWRITE_IF_EXISTS_OR_ADD"}},{"append":{"header":{"key":"x-c","value":"5"},"appendAction":"ADD_IF_ABSENT"}}]`, ""},
		{"late only: removals once each, then matchers of every type",
			`{"lateResponseHeaders":{"remove":["Server","server","x-q"],"removeOnMatch":[{"value":"a"},{"type":"Prefix","value":"p-"},{"type":"Suffix","value":"-s"},{"type":"RegularExpression","value":"r.*"},{"type":"Exact","value":"e"}]}}`,
			"", `[{"remove":"Server"},{"remove":"x-q"},{"removeOnMatch":{"keyMatcher":{"exact":"a"}}},{"removeOnMatch":{"keyMatcher":{"prefix":"p-"}}},{"removeOnMatch":{"keyMatcher":{"suffix":"-s"}}},{"removeOnMatch":{"keyMatcher":{"safeRegex":{"regex":"r.*"}}}},{"removeOnMatch":{"keyMatcher":{"exact":"e"}}}]`},
		{"both, the removal of an added name kept",
			`{"earlyRequestHeaders":{"set":[{"name":"x-id","value":"v w"}],"remove":["X-Id"]},"lateResponseHeaders":{"add":[{"name":"x-r","value":"1"}],"addIfAbsent":[{"name":"X-R","value":"2"}]}}`,
			`[{"append":{"header":{"key":"x-id","value":"v w"},"appendAction":"OVERWRITE_IF_EXISTS_OR_ADD"}},{"remove":"X-Id"}]`,
			`[{"append":{"header":{"key":"x-r","value":"1"}}}]`},
		{"neither given", `{"preserveXRequestID":true}`, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw3(renderHeaders)(json.RawMessage(tc.value), policyName{}, placement{scope: policy.ScopeRouteConfig})
			if err != nil {
				t.Fatal(err)
			}
			if len(frags) != 1 || frags[0].Capability != "" {
				t.Fatalf("fragments %+v, want one without a capability", frags)
			}
			fr := frags[0]
			m, ok := fr.HCM.(*hcmv3.HttpConnectionManager)
			if !ok {
				t.Fatalf("fragment holds no connection manager")
			}
			var early string
			if exts := m.GetEarlyHeaderMutationExtensions(); len(exts) > 0 {
				cfg := &earlymutationv3.HeaderMutation{}
				if len(exts) != 1 || exts[0].GetName() != earlyHeaderMutation || exts[0].GetTypedConfig().UnmarshalTo(cfg) != nil {
					t.Fatalf("early extensions %v", exts)
				}
				early = mutationList(t, cfg, "mutations")
			}
			if early != mutationList(t, nil, tc.early) {
				t.Errorf("early mutations\n got %s\nwant %s", early, tc.early)
			}
			var late string
			if f := fr.Filter; f != nil {
				cfg, ok := f.Typed.(*headermutationv3.HeaderMutation)
				if f.Name != headerMutationFilter || !f.Enabled || f.Order != orderHeaderMutation || !ok {
					t.Fatalf("filter %s (%T) enabled %v order %d", f.Name, f.Typed, f.Enabled, f.Order)
				}
				late = mutationList(t, cfg.GetMutations(), "responseMutations")
			}
			if late != mutationList(t, nil, tc.late) {
				t.Errorf("late mutations\n got %s\nwant %s", late, tc.late)
			}
		})
	}
}

// mutationList is the list under key of m's protojson, or (m nil) the
// JSON key as given, both re-encoded compactly; "" stays "".
func mutationList(t *testing.T, m proto.Message, key string) string {
	t.Helper()
	raw := []byte(key)
	if m != nil {
		b, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		raw = doc[key]
	}
	if len(raw) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
