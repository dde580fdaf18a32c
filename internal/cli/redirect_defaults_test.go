package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRedirectStatusAsStored: a RequestRedirect without statusCode is
// stored with the HTTPRoute CRD's default, 302, and render answers 302
// from the stored object — under Envoy Gateway's and kgateway's Gateway
// alike, as it does with 302 written; 301 written answers 301. No hand
// copy of the default is read: the model holds it (render's fallback is
// the controller's own, for a filter whose CRD gave no default:
// TestRedirectStatusUnset).
func TestRedirectStatusAsStored(t *testing.T) {
	const doc = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: c}
spec: {controllerName: %CTRL%}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: apps}
spec:
  gatewayClassName: c
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: apps}
spec:
  parentRefs: [{name: gw}]
  rules:
  - filters: [{type: RequestRedirect, requestRedirect: {hostname: b.example.com%CODE%}}]
`
	dir := t.TempDir()
	for _, ctrl := range []string{"gateway.envoyproxy.io/gatewayclass-controller", "kgateway.dev/kgateway"} {
		for _, tc := range []struct{ name, code, want string }{
			{"left to the CRD", "", "FOUND"},
			{"302 written", ", statusCode: 302", "FOUND"},
			{"301 written", ", statusCode: 301", ""}, // MOVED_PERMANENTLY, Envoy's zero value, is not printed
		} {
			t.Run(ctrl+"/"+tc.name, func(t *testing.T) {
				in := filepath.Join(dir, "in.yaml")
				src := strings.NewReplacer("%CTRL%", ctrl, "%CODE%", tc.code).Replace(doc)
				if err := os.WriteFile(in, []byte(src), 0o600); err != nil {
					t.Fatal(err)
				}
				out, stderr, code := run(t, "render", "-f", in, "-o", "json")
				if code != ExitOK {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				i := strings.Index(out, `"redirect"`)
				if i < 0 {
					t.Fatalf("no redirect rendered:\n%s", out)
				}
				red := out[i:]
				red = red[:strings.Index(red, "}")]
				got := ""
				if strings.Contains(red, `"FOUND"`) {
					got = "FOUND"
				}
				if strings.Contains(red, "MOVED_PERMANENTLY") || strings.Contains(red, `"response_code"`) && got == "" {
					got = "other"
				}
				if got != tc.want {
					t.Errorf("response code %q, want %q:\n%s", got, tc.want, red)
				}
			})
		}
	}
}
