package attach_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

const base = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app, labels: {tier: edge}}
spec:
  gatewayClassName: x
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app, labels: {team: a}}
spec:
  parentRefs: [{name: gw}]
  rules:
  - name: one
    backendRefs: [{name: svc, port: 80}]
    filters: [{type: ExtensionRef, extensionRef: {group: gateway.kgateway.dev, kind: TrafficPolicy, name: ext}}]
  - name: two
    backendRefs: [{name: svc, port: 80}]
`

func tp(name, meta, target string) string {
	return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: " + name + ", namespace: app" + meta + "}\nspec:\n" + target + "  timeouts: {request: 1s}\n"
}

func compile(t *testing.T, docs string) *pipeline.Compiled {
	t.Helper()
	objs, err := manifest.Parse("t.yaml", []byte(base+docs), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
}

// order lists the candidates of rule "one" as name(via).
func order(c *pipeline.Compiled) []string {
	rule := c.Graph.Route("HTTPRoute", "app", "r").Rules[0]
	var out []string
	for _, pt := range c.Result.Rule(rule).Own {
		for _, cand := range pt.Candidates {
			out = append(out, cand.Policy.Obj.Name+"("+string(cand.Via)+")")
		}
	}
	return out
}

func TestPrecedence(t *testing.T) {
	whole := "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n"
	section := "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: one}]\n"
	selector := "  targetSelectors: [{group: gateway.networking.k8s.io, kind: HTTPRoute, matchLabels: {team: a}}]\n"
	tests := []struct {
		name string
		docs string
		want []string
	}{
		{"ExtensionRef, then sectionName, then whole route, whatever the weights",
			tp("ext", "", "") + tp("sec", ", annotations: {kgateway.dev/policy-weight: \"9\"}", section) + tp("all", ", annotations: {kgateway.dev/policy-weight: \"99\"}", whole),
			[]string{"ext(ExtensionRef)", "sec(SectionName)", "all(TargetRef)"}},
		{"within a group: higher weight first",
			tp("ext", "", "") + tp("a", "", whole) + tp("b", ", annotations: {kgateway.dev/policy-weight: \"3\"}", whole),
			[]string{"ext(ExtensionRef)", "b(TargetRef)", "a(TargetRef)"}},
		{"then the older creationTimestamp",
			tp("ext", "", "") + tp("a", ", creationTimestamp: \"2021-01-01T00:00:00Z\"", whole) + tp("b", ", creationTimestamp: \"2020-01-01T00:00:00Z\"", whole),
			[]string{"ext(ExtensionRef)", "b(TargetRef)", "a(TargetRef)"}},
		{"then namespace/name",
			tp("ext", "", "") + tp("b", "", whole) + tp("a", "", whole),
			[]string{"ext(ExtensionRef)", "a(TargetRef)", "b(TargetRef)"}},
		{"a selector counts like a targetRef; reached twice, a policy counts once",
			tp("ext", "", "") + tp("sel", "", selector) + tp("both", "", whole+selector),
			[]string{"ext(ExtensionRef)", "both(TargetRef)", "sel(TargetRef)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, order(compile(t, tt.docs))); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnresolvedTargets(t *testing.T) {
	c := compile(t, tp("ext", "", "")+
		tp("nogw", "", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: missing}]\n")+
		tp("nolistener", "", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: https}]\n")+
		tp("wrongkind", "", "  targetRefs: [{group: gateway.networking.k8s.io, kind: TCPRoute, name: r}]\n")+
		tp("nomatch", "", "  targetSelectors: [{group: gateway.networking.k8s.io, kind: HTTPRoute, matchLabels: {team: z}}]\n"))
	got := map[string]string{}
	for _, d := range c.Result.Attach.Diagnostics {
		got[d.Object.Name] = d.Code
	}
	want := map[string]string{"nogw": "GWP201", "nolistener": "GWP202", "wrongkind": "GWP201"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("findings by policy (-want +got):\n%s", diff)
	}
	// A selector that matches nothing is a query with no result, not a
	// broken reference: "nomatch" has no finding (checked by the map above).
}

func TestBrokenExtensionRefs(t *testing.T) {
	c := compile(t, "") // rule "one" references the missing policy "ext"
	rule := c.Graph.Route("HTTPRoute", "app", "r").Rules[0]
	b := c.Result.Attach.Broken[rule]
	if len(b) != 1 || b[0].Code != "GWP205" {
		t.Fatalf("broken = %+v, want one GWP205", b)
	}
	if len(c.Result.Attach.Broken[c.Graph.Route("HTTPRoute", "app", "r").Rules[1]]) != 0 {
		t.Error("rule two has no filter and must not be broken")
	}
}
