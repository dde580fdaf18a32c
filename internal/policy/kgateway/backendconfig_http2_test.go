package kgateway

import (
	"encoding/json"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TestBackendConfigHTTP2Windows: a BackendConfigPolicy's HTTP/2 window
// sizes are Kubernetes quantities, an integer or a string with a suffix,
// as the CRD's int-or-string allows; kgateway writes each as its value in
// bytes (backendconfigpolicy/protocoloptions.go:
// translateHttp2ProtocolOptions, Quantity.Value()). Before, a string was
// refused (GWP401, the backend answering 503) while status accepted the
// policy. Shapes no public case has: binary and decimal suffixes, the
// bounds, and both windows at once.
func TestBackendConfigHTTP2Windows(t *testing.T) {
	for _, tc := range []struct {
		name, spec     string
		stream, conn   uint32
		wantMaxStreams uint32
	}{
		{"binary suffix", `{"initialStreamWindowSize": "128Ki"}`, 131072, 0, 0},
		{"decimal suffix", `{"initialConnectionWindowSize": "1M"}`, 0, 1000000, 0},
		{"an integer", `{"initialStreamWindowSize": 65535, "maxConcurrentStreams": 4}`, 65535, 0, 4},
		{"a string of digits, the upper bound", `{"initialConnectionWindowSize": "2147483647"}`, 0, 2147483647, 0},
		{"both windows", `{"initialStreamWindowSize": "64Ki", "initialConnectionWindowSize": "2Mi"}`, 65536, 2097152, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clusterv3.Cluster{}
			if err := httpOptions("http2ProtocolOptions", json.RawMessage(tc.spec), c); err != nil {
				t.Fatal(err)
			}
			var opts upstreamhttpv3.HttpProtocolOptions
			if err := c.GetTypedExtensionProtocolOptions()[HTTPProtocolOptionsKey].UnmarshalTo(&opts); err != nil {
				t.Fatal(err)
			}
			h2 := opts.GetExplicitHttpConfig().GetHttp2ProtocolOptions()
			if h2.GetInitialStreamWindowSize().GetValue() != tc.stream || h2.GetInitialConnectionWindowSize().GetValue() != tc.conn || h2.GetMaxConcurrentStreams().GetValue() != tc.wantMaxStreams {
				t.Errorf("windows %d/%d, streams %d; want %d/%d, %d", h2.GetInitialStreamWindowSize().GetValue(), h2.GetInitialConnectionWindowSize().GetValue(), h2.GetMaxConcurrentStreams().GetValue(), tc.stream, tc.conn, tc.wantMaxStreams)
			}
		})
	}
}

// TestBackendConfigHTTP2Keepalive: http2ProtocolOptions.connectionKeepalive
// (in the pinned BackendConfigPolicy CRD) is Envoy's KeepaliveSettings, each
// duration the field of the same name, an unwritten one left unset. Before,
// any connectionKeepalive was GWP404 and the backend's routes answered 503.
// Shapes no public case has: timeout alone, all three, idle interval
// beside other HTTP/2 settings, and a malformed duration (refused, naming
// the field).
func TestBackendConfigHTTP2Keepalive(t *testing.T) {
	for _, tc := range []struct {
		name, spec              string
		interval, timeout, idle string // "" unset
		wantErr                 string
		wantStreams             uint32
	}{
		{name: "timeout alone", spec: `{"connectionKeepalive": {"timeout": "5s"}}`, timeout: "5s"},
		{name: "all three", spec: `{"connectionKeepalive": {"interval": "30s", "timeout": "2s", "connectionIdleInterval": "1m"}}`, interval: "30s", timeout: "2s", idle: "60s"},
		{name: "beside other settings", spec: `{"maxConcurrentStreams": 9, "connectionKeepalive": {"timeout": "100ms", "connectionIdleInterval": "1h30m"}}`, timeout: "0.100s", idle: "5400s", wantStreams: 9},
		{name: "malformed", spec: `{"connectionKeepalive": {"timeout": "soon"}}`, wantErr: "connectionKeepalive.timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clusterv3.Cluster{}
			err := httpOptions("http2ProtocolOptions", json.RawMessage(tc.spec), c)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var opts upstreamhttpv3.HttpProtocolOptions
			if err := c.GetTypedExtensionProtocolOptions()[HTTPProtocolOptionsKey].UnmarshalTo(&opts); err != nil {
				t.Fatal(err)
			}
			h2 := opts.GetExplicitHttpConfig().GetHttp2ProtocolOptions()
			ka := h2.GetConnectionKeepalive()
			if ka == nil {
				t.Fatal("no connection_keepalive")
			}
			for _, f := range []struct {
				name string
				got  *durationpb.Duration
				want string
			}{{"interval", ka.GetInterval(), tc.interval}, {"timeout", ka.GetTimeout(), tc.timeout}, {"connection_idle_interval", ka.GetConnectionIdleInterval(), tc.idle}} {
				got := ""
				if f.got != nil {
					got = strings.Trim(protojson.Format(f.got), `"`)
				}
				if got != f.want {
					t.Errorf("%s %q, want %q", f.name, got, f.want)
				}
			}
			if ka.GetIntervalJitter() != nil {
				t.Errorf("interval_jitter %v written; kgateway's field set has none", ka.GetIntervalJitter())
			}
			if h2.GetMaxConcurrentStreams().GetValue() != tc.wantStreams {
				t.Errorf("max_concurrent_streams %d, want %d", h2.GetMaxConcurrentStreams().GetValue(), tc.wantStreams)
			}
		})
	}
}
