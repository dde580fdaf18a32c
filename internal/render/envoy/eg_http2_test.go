package envoy_test

import (
	"encoding/json"
	"testing"

	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/encoding/protojson"
)

// TestEnvoyGatewayUpstreamHTTP2: a BackendTrafficPolicy's http2 as Envoy
// Gateway v1.9 writes it (each shape checked with egctl v1.9.0 --to
// xds): the HTTP/2 options of the clusters of the routes it applies to
// where those speak HTTP/2 — a GRPCRoute's, an h2c Service port's, the
// HTTP/2 half of a cluster speaking the client's protocol — with Envoy
// Gateway's window sizes where it gives none; a cluster speaking HTTP/1.1
// keeps its options, and the route forwards (before: the field was
// unsupported and the routes answered 503). Without the policy, a
// cluster speaking HTTP/2 has Envoy Gateway's window sizes
// (Target.UpstreamHTTP2; before: none).
func TestEnvoyGatewayUpstreamHTTP2(t *testing.T) {
	btp := func(spec string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: btp, namespace: infra}\n" +
			"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n" + spec
	}
	const h2 = "  http2: {maxConcurrentStreams: 7, onInvalidMessage: TerminateConnection, connectionKeepalive: {interval: 10s, timeout: 2s}}\n"
	const windows = `"initialStreamWindowSize":65536,"initialConnectionWindowSize":1048576`
	for _, tc := range []struct {
		name, route, ports, policy string
		want                       string // the cluster's upstream HTTP protocol options, as protojson without @type
	}{
		{"a GRPCRoute's cluster", egShop("GRPCRoute"), "{port: 80}", btp(h2),
			`{"explicitHttpConfig":{"http2ProtocolOptions":{"maxConcurrentStreams":7,` + windows + `,"overrideStreamErrorOnInvalidHttpMessage":false,"connectionKeepalive":{"interval":"10s","timeout":"2s"}}}}`},
		{"an h2c port, the windows given", egShop("HTTPRoute"), "{port: 80, appProtocol: kubernetes.io/h2c}",
			btp("  http2: {initialStreamWindowSize: 128Ki, initialConnectionWindowSize: 2Mi}\n"),
			`{"explicitHttpConfig":{"http2ProtocolOptions":{"initialStreamWindowSize":131072,"initialConnectionWindowSize":2097152}}}`},
		{"the client's protocol: its HTTP/2 half", egShop("HTTPRoute"), "{port: 80}", btp("  useClientProtocol: true\n" + h2),
			`{"useDownstreamProtocolConfig":{"httpProtocolOptions":{},"http2ProtocolOptions":{"maxConcurrentStreams":7,` + windows + `,"overrideStreamErrorOnInvalidHttpMessage":false,"connectionKeepalive":{"interval":"10s","timeout":"2s"}}}}`},
		{"an HTTP/1.1 cluster keeps its options", egShop("HTTPRoute"), "{port: 80}", btp(h2), ""},
		{"no policy: a GRPCRoute's cluster has Envoy Gateway's windows", egShop("GRPCRoute"), "{port: 80}", "",
			`{"explicitHttpConfig":{"http2ProtocolOptions":{` + windows + `}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := renderInline(t, egGateway("infra", egHTTP80)+egService("infra", "web", tc.ports)+tc.route+tc.policy, "envoygateway")
			var forwards bool
			for _, rc := range gw.RouteConfigurations {
				for _, vh := range rc.GetVirtualHosts() {
					for _, r := range vh.GetRoutes() {
						forwards = forwards || r.GetRoute() != nil
					}
				}
			}
			if !forwards {
				t.Fatalf("no route forwards")
			}
			if len(gw.Clusters) != 1 {
				t.Fatalf("%d clusters, want the rule's one", len(gw.Clusters))
			}
			got := ""
			if a := gw.Clusters[0].GetTypedExtensionProtocolOptions()["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]; a != nil {
				o := &upstreamhttpv3.HttpProtocolOptions{}
				if err := a.UnmarshalTo(o); err != nil {
					t.Fatal(err)
				}
				b, err := protojson.Marshal(o)
				if err != nil {
					t.Fatal(err)
				}
				got = compact(t, b)
			}
			if want := compactString(t, tc.want); got != want {
				t.Errorf("cluster %s options\n got %s\nwant %s", gw.Clusters[0].GetName(), got, want)
			}
		})
	}
}

// compact is JSON re-encoded with sorted keys and no spaces.
func compact(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// compactString is compact for a JSON text, "" for "".
func compactString(t *testing.T, s string) string {
	if s == "" {
		return ""
	}
	return compact(t, []byte(s))
}
