package envoy_test

import (
	"strings"
	"testing"

	admissioncontrolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/admission_control/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/encoding/protojson"
)

// TestEnvoyGatewayAdmissionControl: a BackendTrafficPolicy's
// admissionControl as Envoy Gateway v1.9 writes it (each shape checked
// with egctl v1.9.0 --to xds): an admission_control filter, always
// enabled, among the upstream HTTP filters of the route's cluster — after
// an HTTPRouteFilter's credential injector, before the upstream codec
// that ends the list — with each HTTP status code a one-code range, each
// gRPC status by its code, and empty success criteria where none are
// given; the route forwards (before: the field was unsupported and the
// routes answered 503).
func TestEnvoyGatewayAdmissionControl(t *testing.T) {
	btp := func(ac string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: btp, namespace: infra}\n" +
			"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  admissionControl: " + ac + "\n"
	}
	injected := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: shop, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n" +
		"  rules:\n  - backendRefs:\n    - name: web\n      port: 80\n      filters: [{type: ExtensionRef, extensionRef: {group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: inject}}]\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: HTTPRouteFilter\nmetadata: {name: inject, namespace: infra}\nspec: {credentialInjection: {credential: {valueRef: {name: cred}}}}\n" +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: cred, namespace: infra}\ndata: {credential: YWJj}\n"
	const codec = "envoy.extensions.filters.http.upstream_codec.v3.UpstreamCodec"
	const admission = "envoy.filters.http.admission_control"
	for _, tc := range []struct {
		name, route, ac string
		filters         []string // the cluster's upstream HTTP filters
		config          string   // the admission control config, protojson without @type
	}{
		{"gRPC statuses on a GRPCRoute's cluster", egShop("GRPCRoute"),
			"{samplingWindow: 1m, minSuccessRate: 90, rejectionAggression: 2, minRequestRate: 10, maxRejectionPercent: 70, successCriteria: {grpc: {statusCodes: [Ok, Cancelled, DeadlineExceeded]}}}",
			[]string{admission, codec},
			`{"enabled":{"defaultValue":true},"samplingWindow":"60s","srThreshold":{"defaultValue":{"value":90}},"aggression":{"defaultValue":2},"rpsThreshold":{"defaultValue":10},"maxRejectionProbability":{"defaultValue":{"value":70}},"successCriteria":{"grpcCriteria":{"grpcSuccessStatus":[0,1,4]}}}`},
		{"after a backendRef's credential injector, HTTP codes as one-code ranges", injected,
			"{samplingWindow: 30s, minSuccessRate: 95, successCriteria: {http: {statusCodes: [200, 204]}}}",
			[]string{"envoy.filters.http.credential_injector", admission, codec},
			`{"enabled":{"defaultValue":true},"samplingWindow":"30s","srThreshold":{"defaultValue":{"value":95}},"successCriteria":{"httpCriteria":{"httpSuccessStatus":[{"start":200,"end":201},{"start":204,"end":205}]}}}`},
		{"no success criteria: empty ones", egShop("HTTPRoute"), "{minRequestRate: 3}",
			[]string{admission, codec},
			`{"enabled":{"defaultValue":true},"rpsThreshold":{"defaultValue":3},"successCriteria":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gw := renderInline(t, egGateway("infra", egHTTP80)+egService("infra", "web", "{port: 80}")+tc.route+btp(tc.ac), "envoygateway")
			for _, rc := range gw.RouteConfigurations {
				for _, vh := range rc.GetVirtualHosts() {
					for _, r := range vh.GetRoutes() {
						if r.GetRoute() == nil {
							t.Fatalf("route %s does not forward", r.GetName())
						}
					}
				}
			}
			if len(gw.Clusters) != 1 {
				t.Fatalf("%d clusters, want the rule's one", len(gw.Clusters))
			}
			o := &upstreamhttpv3.HttpProtocolOptions{}
			if err := gw.Clusters[0].GetTypedExtensionProtocolOptions()["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"].UnmarshalTo(o); err != nil {
				t.Fatal(err)
			}
			var names []string
			var cfg string
			for _, f := range o.GetHttpFilters() {
				names = append(names, strings.SplitN(f.GetName(), "/", 2)[0])
				if f.GetName() == admission {
					ac := &admissioncontrolv3.AdmissionControl{}
					if err := f.GetTypedConfig().UnmarshalTo(ac); err != nil {
						t.Fatal(err)
					}
					b, err := protojson.Marshal(ac)
					if err != nil {
						t.Fatal(err)
					}
					cfg = compact(t, b)
				}
			}
			if strings.Join(names, " ") != strings.Join(tc.filters, " ") {
				t.Errorf("upstream filters %q, want %q", names, tc.filters)
			}
			if want := compactString(t, tc.config); cfg != want {
				t.Errorf("admission control\n got %s\nwant %s", cfg, want)
			}
		})
	}
}
