package envoy_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/topology"
)

// namesInput has an HTTP and an HTTPS listener on one Gateway, a route
// with a named rule on both, and a TCP route.
const namesInput = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - name: https
    protocol: HTTPS
    port: 443
    hostname: app.example.com
    tls: {certificateRefs: [{name: cert}]}
  - {name: tcp, protocol: TCP, port: 9000, allowedRoutes: {kinds: [{kind: TCPRoute}]}}
---
apiVersion: v1
kind: Secret
metadata: {name: cert, namespace: infra}
type: kubernetes.io/tls
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: app, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  hostnames: [app.example.com]
  rules:
  - name: main
    backendRefs: [{name: web, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: stream, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: tcp}]
  rules:
  - backendRefs: [{name: web, port: 80}]
`

// Render names every resource as its target's family declares
// (policy.XDSNames) and reads no naming of its own.
func TestRenderNamesAsTheTargetDeclares(t *testing.T) {
	objs, err := manifest.Parse("names.yaml", []byte(namesInput), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	reg := envoy.Registry()
	reg.AddTargets(policy.Target{Name: "named", Capabilities: policy.UpstreamCapabilities(), Names: policy.XDSNames{
		Listener:    func(port int32) string { return "L" + strconv.Itoa(int(port)) },
		HTTPSChain:  func(l *topology.Listener) string { return "C-" + string(l.Name) },
		VirtualHost: func(rc, host string) string { return "V-" + rc + "-" + host },
		Route: func(r policy.RouteName) string {
			return strings.Join([]string{"R", r.VirtualHost, r.Kind, r.Namespace, r.Name, r.RuleName}, "|")
		},
		StreamChain: func(listener, ns, name string) string { return "S-" + listener + "-" + ns + "-" + name },
		InvalidBody: "replaced",
	}})
	cfg := policy.Config{}
	res := envoy.Stages(reg, &manifest.Set{Objects: objs}, cfg)
	out := render(t, res, envoy.Options{Target: "named", Config: cfg})
	if len(out.Gateways) != 1 {
		t.Fatalf("%d Gateways rendered, want 1", len(out.Gateways))
	}
	gw := out.Gateways[0]
	var got []string
	for _, l := range gw.Listeners {
		got = append(got, "listener "+l.Name)
		for _, fc := range l.FilterChains {
			got = append(got, "chain "+fc.Name)
		}
	}
	for _, rc := range gw.RouteConfigurations {
		got = append(got, "rc "+rc.Name)
		for _, vh := range rc.VirtualHosts {
			got = append(got, "vhost "+vh.Name)
			for _, r := range vh.Routes {
				got = append(got, "route "+r.Name)
			}
		}
	}
	want := []string{
		"listener L80", "chain L80",
		"listener L443", "chain C-https",
		"listener L9000", "chain S-L9000-infra-stream",
		"rc L80", "vhost V-L80-app.example.com", "route R|V-L80-app.example.com|HTTPRoute|infra|app|main",
		"rc C-https", "vhost V-C-https-app.example.com", "route R|V-C-https-app.example.com|HTTPRoute|infra|app|main",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("resources named\n%q\nwant\n%q", got, want)
	}
	if body := out.InvalidBody(res.Graph.Gateway("infra", "gw")); body != "replaced" {
		t.Errorf("InvalidBody = %q, want the target's", body)
	}
}

// A target whose names no registered family completes is refused, not
// rendered with names of render's own.
func TestRenderRefusesTargetWithoutNames(t *testing.T) {
	reg := policy.NewRegistry()
	reg.AddTargets(policy.Target{Name: "unnamed", Capabilities: policy.UpstreamCapabilities()})
	objs, err := manifest.Parse("names.yaml", []byte(namesInput), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := policy.Config{}
	res := envoy.Stages(reg, &manifest.Set{Objects: objs}, cfg)
	if _, err := envoy.Render(res, envoy.Options{Target: "unnamed", Config: cfg}); err == nil || !strings.Contains(err.Error(), "XDSNames") {
		t.Errorf("Render = %v, want an error naming XDSNames", err)
	}
}
