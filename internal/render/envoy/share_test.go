package envoy_test

import (
	"bytes"
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestSharedUnroutedClustersChangeNothing renders every golden input and
// generated platforms of several Gateways with the unrouted backend
// clusters shared between Gateways and with each Gateway building its
// own: the documents (JSON and YAML, collected and streamed) and the
// findings must be the same byte for byte.
func TestSharedUnroutedClustersChangeNothing(t *testing.T) {
	cases := map[string]func(t *testing.T) *manifest.Set{}
	for name, inputs := range goldenCases() {
		cases[name] = func(t *testing.T) *manifest.Set { return load(t, inputs...) }
	}
	cases["shared-unrouted"] = func(t *testing.T) *manifest.Set { return load(t, "testdata/shared-unrouted/input.yaml") }
	// Gateways of three controllers, one of which reads the backend
	// policies' kind: its clusters are not the others' (merge.Result.
	// BackendStranger), and the Gateway built first does not read it
	cases["mixed-controllers"] = func(t *testing.T) *manifest.Set {
		objs, err := manifest.Parse("mixed.yaml", []byte(strangerBackends), manifest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return &manifest.Set{Objects: objs}
	}
	for name, gen := range map[string]func(int) []byte{"generated-kgateway": benchgen.Platform, "generated-envoygateway": benchgen.PlatformEnvoyGateway} {
		cases[name] = func(t *testing.T) *manifest.Set {
			objs, err := manifest.Parse(name+".yaml", gen(400), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			return &manifest.Set{Objects: objs}
		}
	}
	taken := 0
	for name, set := range cases {
		t.Run(name, func(t *testing.T) {
			res := compile(t, set(t), policy.Config{Values: deployedSettings()}.WithSetting("referenceGrantMode", "Strict"))
			for _, target := range envoy.Registry().TargetNames() {
				opt := envoy.Options{Target: target, MergeKeyCompat: target == "kgateway"}
				restore := envoy.SetShareUnrouted(false)
				own := render(t, res, opt)
				restore()
				shared := render(t, res, opt)
				for _, g := range shared.Gateways {
					_, n := envoy.SharedClusters(g)
					taken += n
				}
				if a, b := diagText(own.Diagnostics), diagText(shared.Diagnostics); a != b {
					t.Fatalf("%s: findings differ:\n%s\nshared:\n%s", target, a, b)
				}
				for _, format := range []string{"json", "yaml"} {
					a, b := marshal(t, own, format), marshal(t, shared, format)
					if !bytes.Equal(a, b) {
						t.Fatalf("%s %s: shared clusters change the document: %s", target, format, firstDiff(a, b))
					}
					var streamed bytes.Buffer
					s := envoy.NewStream(&streamed, format, envoy.TypeAll)
					sopt := opt
					sopt.EachGateway = s.Gateway
					render(t, res, sopt)
					if err := s.Close(); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(a, streamed.Bytes()) {
						t.Fatalf("%s %s: the streamed document differs: %s", target, format, firstDiff(a, streamed.Bytes()))
					}
				}
			}
		})
	}
	if taken == 0 {
		t.Fatal("no Gateway took a cluster another built: the comparison shows nothing")
	}
}
