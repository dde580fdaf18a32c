package envoy_test

import (
	"testing"

	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestIstioAutoMtls: with kgateway's enableIstioAutoMtls on, its Istio
// plugin gives every backend's cluster two transport socket matches —
// Istio mTLS (SNI the Service port's outbound name; none for a Backend,
// which kgateway builds on port 0) to endpoints labelled tlsMode istio,
// plain text to the rest — unless the Service or Backend is annotated
// kgateway.dev/disable-istio-auto-mtls true (extensions2/plugins/istio/
// plugin.go: istioPlugin.processBackend). Off (the default), none.
func TestIstioAutoMtls(t *testing.T) {
	input := kgatewayShop + `---
apiVersion: v1
kind: Service
metadata: {name: plain, namespace: shop, annotations: {kgateway.dev/disable-istio-auto-mtls: "true"}}
spec: {ports: [{port: 8080}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata: {name: ext, namespace: shop}
spec:
  type: Static
  static: {hosts: [{host: example.com, port: 8080}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /cart}}]
    backendRefs: [{name: cart, port: 80}]
  - matches: [{path: {type: PathPrefix, value: /plain}}]
    backendRefs: [{name: plain, port: 8080}]
  - matches: [{path: {type: PathPrefix, value: /ext}}]
    backendRefs: [{group: gateway.kgateway.dev, kind: Backend, name: ext}]
`
	for _, tt := range []struct {
		on   bool
		want map[string]string // cluster → the mTLS match's SNI, "-" for no matches
	}{
		{true, map[string]string{"kube_shop_cart_80": "outbound_.80_._.cart.shop.svc.cluster.local", "kube_shop_plain_8080": "-", "backend_shop_ext_0": ""}},
		{false, map[string]string{"kube_shop_cart_80": "-", "kube_shop_plain_8080": "-", "backend_shop_ext_0": "-"}},
	} {
		cfg := policy.Config{}.WithSetting("enableIstioAutoMtls", tt.on)
		out, err := envoy.Render(compileInline(t, input, cfg), envoy.Options{Target: "kgateway", Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, c := range out.Gateways[0].Clusters {
			if _, ok := tt.want[c.GetName()]; !ok {
				continue
			}
			ms := c.GetTransportSocketMatches()
			if len(ms) == 0 {
				got[c.GetName()] = "-"
				continue
			}
			if len(ms) != 2 || ms[0].GetName() != "tlsMode-istio" || ms[1].GetName() != "tlsMode-disabled" ||
				ms[0].GetMatch().GetFields()["tlsMode"].GetStringValue() != "istio" || len(ms[1].GetMatch().GetFields()) != 0 {
				t.Errorf("on %v: %s: matches %v", tt.on, c.GetName(), ms)
				continue
			}
			var tc tlsv3.UpstreamTlsContext
			if err := ms[0].GetTransportSocket().GetTypedConfig().UnmarshalTo(&tc); err != nil {
				t.Fatal(err)
			}
			if tc.GetCommonTlsContext().GetAlpnProtocols()[0] != "istio" || tc.GetCommonTlsContext().GetTlsCertificateSdsSecretConfigs()[0].GetName() != "istio_server_cert" ||
				tc.GetCommonTlsContext().GetValidationContextSdsSecretConfig().GetName() != "istio_validation_context" {
				t.Errorf("on %v: %s: mTLS context %v", tt.on, c.GetName(), &tc)
			}
			got[c.GetName()] = tc.GetSni()
		}
		for name, want := range tt.want {
			if got[name] != want {
				t.Errorf("on %v: %s: SNI %q, want %q", tt.on, name, got[name], want)
			}
		}
	}
}
