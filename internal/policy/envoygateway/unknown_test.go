package envoygateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestUnknownSpecKeys: a spec key the kind does not define is a GWP102
// finding at the key (with the nearest known key when one is close),
// never silently dropped; a field the kind defines but gwpol does not
// render (grpc) is kept as a value, for render to report unsupported.
func TestUnknownSpecKeys(t *testing.T) {
	doc := `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: p, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  grpc: {enableWeb: true}
  timout: {http: {idleTimeout: 5s}}
`
	objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default"})
	p := ClientTrafficPolicy().Decode(objs[0], &policy.Env{Model: m})
	if _, ok := p.Values["grpc"]; !ok {
		t.Errorf("grpc not kept as a value: %v", p.Values)
	}
	var got []string
	for _, f := range p.Findings {
		got = append(got, f.Code+" "+f.Field+" "+f.Message)
	}
	want := "GWP102 spec.timout unknown field spec.timout in ClientTrafficPolicy; did you mean timeout? (the API server rejects the object under strict field validation; strictFields: false reports this as a warning)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("findings %q, want [%q]", got, want)
	}
	if len(p.Findings) == 1 && p.Findings[0].Pos.Line != 7 {
		t.Errorf("finding at line %d, want 7 (the key)", p.Findings[0].Pos.Line)
	}
}
