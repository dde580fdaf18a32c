package cli

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestExplainBackendAgreesWithClusterMetadata: for every backend a policy
// targets — in kgateway's backend cases and gwpol's backend fixtures —
// the policy owners `explain service/…` and `explain backend/…` name per
// field (but those merge's verdict leaves out of the cluster,
// NotOnCluster) are exactly the merge.<group>/<kind> metadata render
// writes on that backend's cluster, and a backend an invalid policy targets is the
// replaced cluster (STATIC, no metadata) in both views.
func TestExplainBackendAgreesWithClusterMetadata(t *testing.T) {
	type input struct {
		name    string
		set     *manifest.Set
		cfg     *Config
		gateway string
	}
	var inputs []input
	more, _ := filepath.Glob(filepath.Join(moreDir, "*"))
	for _, dir := range more {
		name := filepath.Base(dir)
		if !strings.HasPrefix(name, "backend") && !strings.HasPrefix(name, "loadbalancer") && !strings.Contains(name, "invalid-tlsfiles") && !strings.Contains(name, "invalid-cipher") {
			continue
		}
		set, cfg, cs, _ := loadCase(t, dir)
		inputs = append(inputs, input{name, set, cfg, cs.Gateway})
	}
	fixtures, _ := filepath.Glob("../../testdata/render/backendconfigpolicy/*/input.yaml")
	for _, f := range fixtures {
		set, err := manifest.Load([]string{"../../testdata/base/platform.yaml", f}, manifest.Options{})
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{filepath.Base(filepath.Dir(f)), set, &Config{Namespace: "default"}, ""})
	}
	clusters := 0
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			c := families.Compile(in.set, in.cfg)
			var gws []string
			if in.gateway != "" {
				gws = []string{in.gateway}
			}
			out, err := renderCompiled(c, "kgateway", false, gws...)
			if err != nil {
				t.Fatal(err)
			}
			rendered := map[string]*clusterv3.Cluster{}
			for _, g := range out.Gateways {
				for _, cl := range g.Clusters {
					rendered[cl.Name] = cl
				}
			}
			for _, bp := range c.Result.Backends {
				target := strings.ToLower(bp.Key.Kind) + "/" + bp.Key.Namespace + "/" + bp.Key.Name
				spec, err := explain.ParseTarget(target, "")
				if err != nil {
					t.Fatal(err)
				}
				rep, err := explain.Explain(c.Result, spec, explain.Options{})
				if err != nil {
					t.Fatalf("explain %s: %v", target, err)
				}
				for _, tg := range rep.Targets {
					cl := rendered[tg.Cluster]
					if cl == nil {
						continue // no route of the Gateway sends to it
					}
					clusters++
					checkClusterOwners(t, c.Result.Registry, target, tg, cl)
				}
			}
		})
	}
	t.Logf("explain/render backend ownership: %d clusters agree", clusters)
}

// checkClusterOwners compares explain's policy owners of one cluster with
// the merge metadata render wrote on it.
func checkClusterOwners(t *testing.T, reg *policy.Registry, target string, tg explain.Target, cl *clusterv3.Cluster) {
	t.Helper()
	mdKey := map[string]string{} // group/kind → metadata key
	for _, k := range reg.Kinds() {
		gk := k.GroupKind()
		mdKey[gk.Group+"/"+gk.Kind] = k.Spec().MetadataKey
	}
	replaced := slices.ContainsFunc(tg.Notes, func(n string) bool { return strings.HasPrefix(n, "the invalid policy ") })
	want := map[string]string{}
	if !replaced {
		for _, f := range tg.Fields {
			if f.Level != "backend" || f.NotOnCluster {
				continue // not on this cluster: render writes no metadata for it
			}
			ids := slices.Clone(f.Contributors)
			slices.Sort(ids)
			want[mdKey[f.PolicyKind]+" "+f.Field] = strings.Join(ids, ",")
		}
	}
	got := map[string]string{}
	for key, st := range cl.GetMetadata().GetFilterMetadata() {
		for field, v := range st.GetFields() {
			var ids []string
			for _, id := range v.GetListValue().GetValues() {
				ids = append(ids, id.GetStringValue())
			}
			slices.Sort(ids)
			got[key+" "+field] = strings.Join(ids, ",")
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("%s port %s, cluster %s: render's metadata %v, explain's owners %v", target, tg.Target.Section, cl.Name, got, want)
	}
	if replaced && cl.GetType() != clusterv3.Cluster_STATIC {
		t.Errorf("%s: explain says the cluster %s is replaced; render made it %s", target, cl.Name, cl.GetType())
	}
}
