package cli

import (
	"testing"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
)

// TestGeneratedPlatformsCompileClean keeps the benchmark inputs honest: a
// platform with error findings (a policy naming a route the generator
// never wrote) would time error reporting instead of the work it claims.
func TestGeneratedPlatformsCompileClean(t *testing.T) {
	for _, tc := range benchgen.Flavours {
		t.Run(tc.Target, func(t *testing.T) {
			objs, err := manifest.Parse("platform.yaml", tc.Platform(1000), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := &Config{Namespace: "default"}
			c := families.Compile(&manifest.Set{Objects: objs}, cfg)
			for _, d := range c.Errors() {
				t.Errorf("%s:%d:%d %s: %s", d.Pos.File, d.Pos.Line, d.Pos.Col, d.Code, d.Message)
			}
		})
	}
}
