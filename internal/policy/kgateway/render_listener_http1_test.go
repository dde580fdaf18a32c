package kgateway

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestListenerHTTP1Settings: a ListenerPolicy's preserveHttp1HeaderCase
// keeps the case of HTTP/1 header names on the listener (the preserve_case
// stateful formatter in the connection manager's HTTP/1 options), and
// acceptHttp10 accepts HTTP/1.0, each only when true — false writes
// nothing, while the merge still names the policy (kgateway's ApplyHCM
// writes either only when true; mergePreserveHttp1HeaderCase,
// mergeAcceptHttp10). Before, preserveHttp1HeaderCase was read but never
// rendered nor merged (dropped silently), and acceptHttp10: false wrote
// empty HTTP/1 options. Shapes no public case has.
func TestListenerHTTP1Settings(t *testing.T) {
	for _, tc := range []struct {
		name, settings, key string
		preserve, accept    bool
		none                bool
	}{
		{"preserve case", `{"preserveHttp1HeaderCase": true}`, "preserveHttp1HeaderCase", true, false, false},
		{"preserve case false writes nothing", `{"preserveHttp1HeaderCase": false}`, "preserveHttp1HeaderCase", false, false, true},
		{"HTTP/1.0", `{"acceptHttp10": true}`, "acceptHttp10", false, true, false},
		{"HTTP/1.0 false writes nothing", `{"acceptHttp10": false}`, "acceptHttp10", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c ListenerConfig
			if err := json.Unmarshal([]byte(`{"httpSettings": `+tc.settings+`}`), &c); err != nil {
				t.Fatal(err)
			}
			var v any
			for _, f := range listenerFields {
				if f.key == "default.httpSettings."+tc.key {
					v = f.get(&c)
				}
			}
			if v == nil {
				t.Fatalf("no merge value for %s: the merge would not name the policy", tc.key)
			}
			in := policy.FieldInput{Key: "default.httpSettings." + tc.key, Values: []any{v}, Contributors: []string{"gateway.kgateway.dev/ListenerPolicy/infra/lp"}, Namespaces: []string{"infra"}}
			frags, err := ListenerKind{}.RenderField(in, &policy.Env{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.none {
				if len(frags) != 0 {
					t.Fatalf("false wrote %d fragments", len(frags))
				}
				return
			}
			h, _ := frags[0].HCM.(*hcmv3.HttpConnectionManager)
			opts := h.GetHttpProtocolOptions()
			if got := opts.GetHeaderKeyFormat().GetStatefulFormatter().GetName() == "envoy.http.stateful_header_formatters.preserve_case"; got != tc.preserve {
				t.Errorf("preserve case formatter %v, want %v", got, tc.preserve)
			}
			if opts.GetAcceptHttp_10() != tc.accept {
				t.Errorf("accept HTTP/1.0 %v, want %v", opts.GetAcceptHttp_10(), tc.accept)
			}
		})
	}
}

// TestListenerHTTPSettingsAllMerged: every httpSettings field gwpol reads
// is a merge value of some ListenerPolicy field, so none is read and then
// dropped without a word (as preserveHttp1HeaderCase was): setting the
// field alone, over a base that turns the X-Forwarded-For extension on,
// changes some field's value. A field added to HTTPSettings needs a sample
// here.
func TestListenerHTTPSettingsAllMerged(t *testing.T) {
	samples := map[string]string{
		"accessLog": `[{"fileSink": {"path": "/dev/stdout"}}]`, "tracing": `{"provider": {}}`, "upgradeConfig": `{"enabledUpgrades": ["websocket"]}`,
		"useRemoteAddress": `true`, "preserveExternalRequestId": `true`, "generateRequestId": `false`, "xffNumTrustedHops": `2`,
		"xffTrustedCIDRs": `["10.0.0.0/8"]`, "skipXFFAppend": `true`, "serverHeaderTransformation": `"PassThrough"`, "streamIdleTimeout": `"5s"`,
		"idleTimeout": `"5s"`, "maxHeadersCount": `10`, "http2ProtocolOptions": `{"maxConcurrentStreams": 5}`, "healthCheck": `{"path": "/h"}`,
		"preserveHttp1HeaderCase": `true`, "acceptHttp10": `true`, "defaultHostForHttp10": `"h"`, "earlyRequestHeaderModifier": `{"remove": ["x"]}`,
		"maxRequestHeadersKb": `9`, "uuidRequestIdConfig": `{}`, "stripHostPortMode": `"AnyPort"`, "stripTrailingHostDot": `true`, "serverName": `"s"`,
		"proxy100Continue": `true`, "maxRequestsPerConnection": `3`, "forwardClientCertDetails": `{"mode": "Sanitize"}`, "localReplies": `{"mappers": []}`,
	}
	values := func(settings string) map[string]string {
		var c ListenerConfig
		if err := json.Unmarshal([]byte(`{"httpSettings": `+settings+`}`), &c); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range listenerFields {
			if v := f.get(&c); v != nil && !reflect.ValueOf(v).IsNil() {
				b, _ := json.Marshal(v)
				out[f.key] = string(b)
			}
		}
		return out
	}
	const base = `"useRemoteAddress": false`
	before := values("{" + base + "}")
	ty := reflect.TypeOf(HTTPSettings{})
	for i := range ty.NumField() {
		name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
		sample, ok := samples[name]
		if !ok {
			t.Errorf("httpSettings.%s has no sample here", name)
			continue
		}
		after := values("{" + base + `, "` + name + `": ` + sample + "}")
		if name == "useRemoteAddress" {
			after = values(`{"useRemoteAddress": true}`)
		}
		if reflect.DeepEqual(before, after) {
			t.Errorf("httpSettings.%s is read but no ListenerPolicy field merges it", name)
		}
	}
}
