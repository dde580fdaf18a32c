package merge_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// TestDelegationPerParentPath: a child rule delegated along several parent
// paths merges once per path, each with the policies of its own parents
// and the strategy each of them asks for (kgateway flattens the child
// under each parent and merges each copy apart), not all with the first
// parent's.
func TestDelegationPerParentPath(t *testing.T) {
	const gw = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
`
	route := func(name, host, child, annotations string) string {
		parent := "  parentRefs: [{name: gw}]\n  hostnames: [" + host + "]\n"
		if host == "" {
			parent = ""
		}
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: " + name + ", namespace: infra" + annotations + "}\nspec:\n" + parent +
			"  rules:\n  - name: r\n    matches: [{path: {type: PathPrefix, value: /x}}]\n    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: " + child + "}]\n"
	}
	child := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: child, namespace: infra}\nspec:\n  rules:\n  - matches: [{path: {type: PathPrefix, value: /x/y}}]\n    backendRefs: [{name: web, port: 80}]\n"
	timeouts := func(name, target, d string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: " + target + "}]\n  timeouts: {request: " + d + "}\n"
	}
	preferParent := ", annotations: {kgateway.dev/inherited-policy-priority: ShallowMergePreferParent}"
	tests := []struct {
		name, docs string
		want       map[string]string // parent path → owner of timeouts
	}{
		{"each copy inherits its own parent's policy",
			route("a", "a.example.com", "child", "") + route("b", "b.example.com", "child", "") + child + timeouts("ta", "a", "5s") + timeouts("tb", "b", "30s"),
			map[string]string{"a/r": "ta", "b/r": "tb"}},
		{"each parent's inherit strategy decides its copy",
			route("a", "a.example.com", "child", "") + route("b", "b.example.com", "child", preferParent) + child +
				timeouts("ta", "a", "5s") + timeouts("tb", "b", "30s") + timeouts("tc", "child", "1s"),
			map[string]string{"a/r": "tc", "b/r": "tb"}},
		{"a parent without a policy passes none down",
			route("a", "a.example.com", "child", "") + route("b", "b.example.com", "child", "") + child + timeouts("tb", "b", "30s"),
			map[string]string{"a/r": "", "b/r": "tb"}},
		{"two grandparents over one parent: two paths",
			route("g1", "a.example.com", "mid", "") + route("g2", "b.example.com", "mid", "") + route("mid", "", "child", "") + child +
				timeouts("t1", "g1", "5s") + timeouts("t2", "g2", "30s"),
			map[string]string{"mid/r g1/r": "t1", "mid/r g2/r": "t2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Parse("test.yaml", []byte(gw+tt.docs), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
			got := map[string]string{}
			for _, rp := range c.Result.Routes {
				if rp.Route.Meta.Name != "child" {
					continue
				}
				for _, path := range rp.Rules[0].Paths {
					var via []string
					for _, r := range path.Via {
						via = append(via, c.Result.Rule(r).Route.Meta.Name+"/"+r.Section())
					}
					owner := ""
					for _, pt := range path.Own {
						if f := pt.Field("timeouts"); f != nil {
							owner = f.Owner.Policy.Obj.Name
						}
					}
					got[strings.Join(via, " ")] = owner
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("owner of timeouts per parent path (-want +got):\n%s", diff)
			}
		})
	}
}
