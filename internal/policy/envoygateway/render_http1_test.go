package envoygateway

import (
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/anypb"
)

// TestWithHTTP1Options: a listener's HTTP/1 settings land on the HTTP/1.1
// options of each shape of upstream protocol options Envoy Gateway's
// buildTypedExtensionProtocolOptions writes them into (explicit HTTP/1.1,
// none yet, the HTTP/1.1 half of automatic and of the client's protocol,
// the common options kept), and not on a cluster speaking HTTP/2.
func TestWithHTTP1Options(t *testing.T) {
	h1 := &corev3.Http1ProtocolOptions{EnableTrailers: true, AcceptHttp_10: true}
	h2 := `"http2ProtocolOptions":{"maxConcurrentStreams":3}`
	for _, tc := range []struct {
		name, in, want string // upstream HTTP protocol options as protojson ("": none)
	}{
		{"none: explicit HTTP/1.1", "", `{"explicitHttpConfig":{"httpProtocolOptions":{"enableTrailers":true,"acceptHttp10":true}}}`},
		{"common options only", `{"commonHttpProtocolOptions":{"idleTimeout":"5s"}}`,
			`{"commonHttpProtocolOptions":{"idleTimeout":"5s"},"explicitHttpConfig":{"httpProtocolOptions":{"enableTrailers":true,"acceptHttp10":true}}}`},
		{"explicit HTTP/1.1", `{"explicitHttpConfig":{"httpProtocolOptions":{}}}`, `{"explicitHttpConfig":{"httpProtocolOptions":{"enableTrailers":true,"acceptHttp10":true}}}`},
		{"explicit HTTP/2 is left alone", `{"explicitHttpConfig":{` + h2 + `}}`, `{"explicitHttpConfig":{` + h2 + `}}`},
		{"automatic: its HTTP/1.1 half", `{"autoConfig":{"httpProtocolOptions":{},` + h2 + `}}`,
			`{"autoConfig":{"httpProtocolOptions":{"enableTrailers":true,"acceptHttp10":true},` + h2 + `}}`},
		{"the client's protocol: its HTTP/1.1 half", `{"useDownstreamProtocolConfig":{` + h2 + `}}`,
			`{"useDownstreamProtocolConfig":{"httpProtocolOptions":{"enableTrailers":true,"acceptHttp10":true},` + h2 + `}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clusterv3.Cluster{Name: "c"}
			if tc.in != "" {
				o := &upstreamhttpv3.HttpProtocolOptions{}
				if err := protojson.Unmarshal([]byte(tc.in), o); err != nil {
					t.Fatal(err)
				}
				a, err := anypb.New(o)
				if err != nil {
					t.Fatal(err)
				}
				c.TypedExtensionProtocolOptions = map[string]*anypb.Any{httpProtocolOptionsKey: a}
			}
			withHTTP1Options(c, h1)
			o := &upstreamhttpv3.HttpProtocolOptions{}
			if err := c.TypedExtensionProtocolOptions[httpProtocolOptionsKey].UnmarshalTo(o); err != nil {
				t.Fatal(err)
			}
			b, err := protojson.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := compactJSON(t, string(b)), compactJSON(t, tc.want); got != want {
				t.Errorf("got %s\nwant %s", got, want)
			}
		})
	}
}
