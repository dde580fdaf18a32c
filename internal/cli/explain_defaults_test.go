package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestExplainSaysCRDDefault: explain says which values of a field in
// effect no user wrote — those the CRD's defaults give, which the API
// server writes and the controller reads (policy.Policy.CRDDefaults, one
// place) — in JSON (fields[].defaults, each path below the field and its
// value; fields[].crdDefault for a field its owner does not write at all)
// and in text ("(CRD default)"). A value written, even the default's own,
// is the user's; without --show-values no value is listed.
func TestExplainSaysCRDDefault(t *testing.T) {
	const base = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: apps}
spec:
  gatewayClassName: eg
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: apps}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: s, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: s, namespace: apps}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: BackendTrafficPolicy
metadata: {name: p, namespace: apps}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
`
	type def struct {
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	type out struct {
		Targets []struct {
			Fields []struct {
				Field      string `json:"field"`
				CRDDefault bool   `json:"crdDefault"`
				Defaults   []def  `json:"defaults"`
			} `json:"fields"`
		} `json:"targets"`
	}
	for _, tc := range []struct {
		name, spec, field string
		showValues        bool
		want              []string // path=value of each default, in order
	}{
		{name: "a threshold written, the others the CRD's", spec: "  circuitBreaker: {maxConnections: 5}\n", field: "circuitBreaker", showValues: true,
			want: []string{"maxParallelRequests=1024", "maxParallelRetries=1024", "maxPendingRequests=1024"}},
		{name: "every threshold written, one as the default", spec: "  circuitBreaker: {maxConnections: 1024, maxParallelRequests: 1, maxParallelRetries: 2, maxPendingRequests: 3}\n", field: "circuitBreaker", showValues: true},
		{name: "another field's default", spec: "  retry: {retryOn: {triggers: [reset]}}\n", field: "retry", showValues: true,
			want: []string{"numRetries=2"}},
		{name: "without values", spec: "  circuitBreaker: {maxConnections: 5}\n", field: "circuitBreaker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(in, []byte(base+tc.spec), 0o600); err != nil {
				t.Fatal(err)
			}
			args := []string{"explain", "-f", in, "httproute/apps/r", "--field", tc.field}
			if tc.showValues {
				args = append(args, "--show-values")
			}
			stdout, stderr, code := run(t, append(args, "-o", "json")...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var got out
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatalf("%v: %s", err, stdout)
			}
			if len(got.Targets) == 0 || len(got.Targets[0].Fields) != 1 {
				t.Fatalf("explain: %s", stdout)
			}
			f := got.Targets[0].Fields[0]
			var defaults []string
			for _, d := range f.Defaults {
				defaults = append(defaults, d.Path+"="+string(d.Value))
			}
			if f.CRDDefault || !slices.Equal(defaults, tc.want) {
				t.Errorf("crdDefault %v, defaults %q; want false, %q", f.CRDDefault, defaults, tc.want)
			}
			text, _, _ := run(t, args...)
			for _, d := range f.Defaults {
				if line := d.Path + ": " + string(d.Value) + " (CRD default)"; !strings.Contains(text, line) {
					t.Errorf("text lacks %q:\n%s", line, text)
				}
			}
			if len(tc.want) == 0 && strings.Contains(text, "CRD default") {
				t.Errorf("text names a CRD default:\n%s", text)
			}
		})
	}
}
