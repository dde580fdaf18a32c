package kgateway

import (
	"encoding/json"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
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
