package envoy_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestRequestMirrorBackendObjects: a RequestMirror filter's backendRef is
// resolved as a backendRef of the rule is (kgateway's convertMirrorIR:
// ReferenceAllowed under the deployment's grant mode, then
// getBackendFromRef, any backend kind; nil on error, no condition). A
// kgateway Backend mirrors to the cluster built for it; one missing, in
// another namespace without a grant, or named with a port mirrors
// nothing, and the route's own traffic is untouched. Targets without
// MirrorBackendObjects mirror to Service ports only.
func TestRequestMirrorBackendObjects(t *testing.T) {
	const objects = `---
apiVersion: v1
kind: Namespace
metadata: {name: other}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata: {name: copy, namespace: infra}
spec: {type: Static, static: {hosts: [{host: copy.example.com, port: 8080}]}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: Backend
metadata: {name: far, namespace: other}
spec: {type: Static, static: {hosts: [{host: far.example.com, port: 8080}]}}
---
apiVersion: v1
kind: Service
metadata: {name: echo, namespace: other}
spec: {ports: [{port: 80}]}
`
	const grant = `---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: g, namespace: other}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: infra}]
  to: [{group: gateway.kgateway.dev, kind: Backend}]
`
	be := "group: gateway.kgateway.dev, kind: Backend, "
	for _, tc := range []struct {
		name, ref, extra, mode, target string
		want                           []string // mirror clusters, in order
	}{
		{name: "a Backend in the route's namespace", ref: be + "name: copy", target: "kgateway", want: []string{"backend_infra_copy_0"}},
		{name: "a Backend that does not exist", ref: be + "name: gone", target: "kgateway"},
		{name: "a Backend named with a port", ref: be + "name: copy, port: 8080", target: "kgateway"},
		{name: "a Backend in another namespace, no grant", ref: be + "name: far, namespace: other", target: "kgateway"},
		{name: "a Backend in another namespace, granted", ref: be + "name: far, namespace: other", extra: grant, target: "kgateway", want: []string{"backend_other_far_0"}},
		{name: "a Backend in another namespace, grants off", ref: be + "name: far, namespace: other", mode: "Off", target: "kgateway", want: []string{"backend_other_far_0"}},
		{name: "a Service in another namespace, grants off", ref: "name: echo, namespace: other, port: 80", mode: "Off", target: "kgateway", want: []string{"kube_other_echo_80"}},
		{name: "a Service in another namespace, strict", ref: "name: echo, namespace: other, port: 80", mode: "Strict", target: "kgateway"},
		{name: "an HTTPRoute is no mirror", ref: "group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop", target: "kgateway"},
		{name: "a Backend under a target mirroring Services only", ref: be + "name: copy", target: "envoy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := strings.Replace(behaviourBase, `  - name: r0
    matches: [{path: {type: PathPrefix, value: /r0}}]
`, `  - name: r0
    matches: [{path: {type: PathPrefix, value: /r0}}]
    filters:
    - {type: RequestMirror, requestMirror: {backendRef: {`+tc.ref+`}, percent: 50}}
`, 1) + objects + tc.extra
			gw := renderInline(t, input, tc.target, func(c *policy.Config) {
				if tc.mode != "" {
					*c = c.WithSetting("referenceGrantMode", tc.mode)
				}
			})
			clusters := map[string]bool{}
			for _, c := range gw.Clusters {
				clusters[c.Name] = true
			}
			found := false
			for _, vh := range gw.RouteConfigurations[0].VirtualHosts {
				for _, r := range vh.Routes {
					if !strings.Contains(r.Name, "-r0-") {
						continue
					}
					found = true
					var got []string
					for _, m := range r.GetRoute().GetRequestMirrorPolicies() {
						got = append(got, m.Cluster)
						if !clusters[m.Cluster] {
							t.Errorf("route %s mirrors to %s, a cluster not written", r.Name, m.Cluster)
						}
						if m.GetRuntimeFraction().GetDefaultValue().GetNumerator() != 50 {
							t.Errorf("route %s mirrors %v, want 50%%", r.Name, m.GetRuntimeFraction())
						}
					}
					if !slices.Equal(got, tc.want) {
						t.Errorf("route %s mirrors to %v, want %v", r.Name, got, tc.want)
					}
					if c := r.GetRoute().GetCluster(); c != "kube_infra_web_80" {
						t.Errorf("route %s forwards to %q, want its own backend", r.Name, c)
					}
				}
			}
			if !found {
				t.Fatal("rule r0 not rendered")
			}
		})
	}
}
