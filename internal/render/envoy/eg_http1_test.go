package envoy_test

import (
	"slices"
	"strings"
	"testing"

	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/encoding/protojson"
)

// TestEnvoyGatewayListenerHTTP1OnClusters: a ClientTrafficPolicy's http1
// trailers, header case and HTTP/1.0 reach, as Envoy Gateway v1.9 writes
// them (xds translator translator.go: the listener's HTTP1 on each HTTP
// route's cluster; cluster.go: buildTypedExtensionProtocolOptions,
// buildHTTP1Settings), the HTTP/1.1 options of the clusters of the HTTP
// routes the listener serves — explicit, or the HTTP/1.1 half of a
// cluster speaking the client's protocol, the HTTP/1.0 default host the
// listener's — and not a cluster speaking HTTP/2, nor a TCPRoute's. A
// rule served through two listeners has one cluster, shaped by the first
// listener's route (merge.RuleClusterFrom): the second listener's policy
// does not reach it. Before: the settings were the listeners' only.
func TestEnvoyGatewayListenerHTTP1OnClusters(t *testing.T) {
	ctp := func(section, spec string) string {
		s := ""
		if section != "" {
			s = ", sectionName: " + section
		}
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: ctp, namespace: infra}\n" +
			"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw" + s + "}]\n" + spec
	}
	const h1 = "  http1: {enableTrailers: true, preserveHeaderCase: true}\n"
	const h1opts = `"enableTrailers":true,"headerKeyFormat":{"statefulFormatter":{"name":"preserve_case","typedConfig":{"@type":"type.googleapis.com/envoy.extensions.http.header_formatters.preserve_case.v3.PreserveCaseFormatterConfig"}}}`
	const windows = `"initialStreamWindowSize":65536,"initialConnectionWindowSize":1048576`
	const second = "  - {name: other, protocol: HTTP, port: 8080}\n"
	tcp := "  - {name: raw, protocol: TCP, port: 9000}\n"
	tcpRoute := "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: raw, namespace: infra}\nspec:\n  parentRefs: [{name: gw, sectionName: raw}]\n  rules: [{backendRefs: [{name: db, port: 5432}]}]\n" +
		egService("infra", "db", "{port: 5432}")
	btp := "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: btp, namespace: infra}\n" +
		"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  useClientProtocol: true\n"
	for _, tc := range []struct {
		name, listeners, route, extra string
		want                          []string // every cluster's upstream HTTP protocol options (protojson without @type, "" for none), sorted
		policyOn                      int      // clusters whose metadata names the ClientTrafficPolicy's http1
	}{
		{"an HTTPRoute's cluster", egHTTP80, egShop("HTTPRoute"), ctp("", h1),
			[]string{`{"explicitHttpConfig":{"httpProtocolOptions":{` + h1opts + `}}}`}, 1},
		{"HTTP/1.0 with the listener's default host", "  - {name: http, protocol: HTTP, port: 80, hostname: www.example.com}\n", egShop("HTTPRoute"),
			ctp("", "  http1: {http10: {useDefaultHost: true}}\n"),
			[]string{`{"explicitHttpConfig":{"httpProtocolOptions":{"acceptHttp10":true,"defaultHostForHttp10":"www.example.com"}}}`}, 1},
		{"the client's protocol: its HTTP/1.1 half", egHTTP80, egShop("HTTPRoute"), ctp("", h1) + btp,
			[]string{`{"useDownstreamProtocolConfig":{"httpProtocolOptions":{` + h1opts + `},"http2ProtocolOptions":{` + windows + `}}}`}, 1},
		{"a GRPCRoute's cluster speaks HTTP/2", egHTTP80, egShop("GRPCRoute"), ctp("", h1),
			[]string{`{"explicitHttpConfig":{"http2ProtocolOptions":{` + windows + `}}}`}, 1},
		{"only ignoredUpgradeTypes: a downstream setting", egHTTP80, egShop("HTTPRoute"), ctp("", "  http1: {ignoredUpgradeTypes: [{value: h2c}]}\n"),
			[]string{""}, 0},
		{"a TCPRoute's cluster on the Gateway's TCP listener", egHTTP80 + tcp, egShop("HTTPRoute", "  parentRefs: [{name: gw, sectionName: http}]\n"), ctp("", h1) + tcpRoute,
			[]string{"", `{"explicitHttpConfig":{"httpProtocolOptions":{` + h1opts + `}}}`}, 1},
		{"served through two listeners, the first's policy shapes the one cluster", egHTTP80 + second, egShop("HTTPRoute"), ctp("http", h1),
			[]string{`{"explicitHttpConfig":{"httpProtocolOptions":{` + h1opts + `}}}`}, 1},
		{"served through two listeners, the second's policy reaches no cluster", egHTTP80 + second, egShop("HTTPRoute"), ctp("other", h1),
			[]string{""}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := renderInline(t, egClass+egGateway("infra", tc.listeners)+egService("infra", "web", "{port: 80}")+tc.route+tc.extra, "envoygateway")
			var got []string
			on := 0
			for _, c := range gw.Clusters {
				if strings.Contains(c.GetMetadata().GetFilterMetadata()["merge.gateway.envoyproxy.io/ClientTrafficPolicy"].String(), "http1") {
					on++
				}
				s := ""
				if a := c.GetTypedExtensionProtocolOptions()["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]; a != nil {
					o := &upstreamhttpv3.HttpProtocolOptions{}
					if err := a.UnmarshalTo(o); err != nil {
						t.Fatal(err)
					}
					b, err := protojson.Marshal(o)
					if err != nil {
						t.Fatal(err)
					}
					s = compact(t, b)
				}
				got = append(got, s)
			}
			slices.Sort(got)
			want := make([]string, len(tc.want))
			for i, w := range tc.want {
				want[i] = compactString(t, w)
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("clusters' options\n got %q\nwant %q", got, want)
			}
			if on != tc.policyOn {
				t.Errorf("%d clusters name the policy's http1 in their metadata, want %d", on, tc.policyOn)
			}
		})
	}
}
