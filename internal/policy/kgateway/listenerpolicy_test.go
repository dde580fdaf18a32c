package kgateway

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestListenerFieldKeys: the MergeOrigins keys a ListenerPolicy's default
// section yields are kgateway's (as its listener-policy-http goldens
// record them), including the keys named after the HCM setting and the
// X-Forwarded-For settings that fold into xffConfig.
func TestListenerFieldKeys(t *testing.T) {
	tests := []struct {
		name, spec string
		want       []string
	}{
		{"idle timeouts are merge keys", `{"httpSettings": {"idleTimeout": "30s", "streamIdleTimeout": "5s"}}`,
			[]string{"default.httpSettings.mergeIdleTimeout", "default.httpSettings.mergeStreamIdleTimeout"}},
		{"remote address on: hops are their own key", `{"httpSettings": {"useRemoteAddress": true, "xffNumTrustedHops": 2}}`,
			[]string{"default.httpSettings.useRemoteAddress", "default.httpSettings.xffNumTrustedHops"}},
		{"remote address off: hops go into xffConfig", `{"httpSettings": {"useRemoteAddress": false, "xffNumTrustedHops": 2, "skipXFFAppend": false}}`,
			[]string{"default.httpSettings.skipXffAppend", "default.httpSettings.useRemoteAddress", "default.httpSettings.xffConfig"}},
		{"hops alone", `{"httpSettings": {"xffNumTrustedHops": 2}}`, []string{"default.httpSettings.xffNumTrustedHops"}},
		{"zero requests per connection is unset", `{"httpSettings": {"maxRequestsPerConnection": 0}}`, nil},
		{"requests per connection", `{"httpSettings": {"maxRequestsPerConnection": 5}}`, []string{"default.httpSettings.maxRequestsPerConnection"}},
		{"false is a value", `{"httpSettings": {"generateRequestId": false}}`, []string{"default.httpSettings.generateRequestId"}},
		{"client cert details split in two", `{"httpSettings": {"forwardClientCertDetails": {"mode": "AppendForward", "details": {"cert": true}}}}`,
			[]string{"default.httpSettings.forwardClientCertDetails.details", "default.httpSettings.forwardClientCertDetails.mode"}},
		{"client cert details alone: a mode too (SanitizeSet)", `{"httpSettings": {"forwardClientCertDetails": {"details": {"uri": true}}}}`,
			[]string{"default.httpSettings.forwardClientCertDetails.details", "default.httpSettings.forwardClientCertDetails.mode"}},
		{"an empty forwardClientCertDetails sets nothing", `{"httpSettings": {"forwardClientCertDetails": {}}}`, nil},
		{"renamed keys", `{"httpSettings": {"healthCheck": {"path": "/hc"}, "localReplies": {"mappers": []}, "earlyRequestHeaderModifier": {"set": [{"name": "a", "value": "b"}]}}}`,
			[]string{"default.httpSettings.earlyHeaderMutationExtensions", "default.httpSettings.healthCheckPolicy", "default.httpSettings.localReplyConfig"}},
		{"access log: two keys", `{"httpSettings": {"accessLog": [{"fileSink": {"path": "/dev/stdout"}}]}}`,
			[]string{"default.httpSettings.accessLog", "default.httpSettings.accessLogConfig"}},
		{"listener settings", `{"transportSocketConnectTimeout": "5s", "proxyProtocol": {}}`,
			[]string{"default.proxyProtocol", "default.transportSocketConnectTimeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c ListenerConfig
			if err := json.Unmarshal([]byte(tt.spec), &c); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range listenerFields {
				if isSet(f.get(&c)) && !slices.Contains(got, f.key) {
					got = append(got, f.key)
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}
