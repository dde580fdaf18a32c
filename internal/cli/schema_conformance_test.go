package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/lint"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

const egCELDir = "../../../shared/conformance/envoygateway-cel/cases"

// egCELFloor is the agreement on Envoy Gateway's CRD validation cases
// this branch measured (eg cel: 389/390; the one left is a Lua body that
// does not compile, which Envoy Gateway's translator refuses and its API
// server does not look at); it may only rise. egCELRejectedFloor is the
// rejected cases' part: every object the API server refuses gets an error.
const (
	egCELFloor         = 389
	egCELRejectedFloor = 217
)

// The agreement rule of ../shared/conformance/tools/eg_cel_case.py: an
// error finding about the object's surroundings (a missing target,
// Service, Secret…, or a code that needs other objects or settings) is
// not counted, because the case is one object alone.
var (
	egCELContext = regexp.MustCompile(`^GWP(2\d\d|3\d\d|402|403|404|5\d\d)$`)
	egCELMissing = regexp.MustCompile(`(?i)not found|does not exist|can't find the referenced|cannot find the referenced|enable Ratelimit in the EnvoyGateway config`)
	egCELPath    = regexp.MustCompile(`\b(?:spec|metadata)(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])+`)
)

func egCELCounted(d diag.Diagnostic) bool {
	if d.Severity != diag.Error {
		return false
	}
	if d.Code == "GWP201" || d.Code == "GWP401" {
		return !egCELMissing.MatchString(d.Message)
	}
	return !egCELContext.MatchString(d.Code)
}

// lintFiles is `gwpol lint -f files…` in process, with cfg, returning
// every finding.
func lintFiles(t *testing.T, cfg *Config, files ...string) []diag.Diagnostic {
	t.Helper()
	v, err := families.LoadVersions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return lintWith(t, cfg, v, files...)
}

// lintWith is lintFiles with the files beside the input already loaded.
func lintWith(t *testing.T, cfg *Config, v *pipeline.Versions, files ...string) []diag.Diagnostic {
	t.Helper()
	set, err := manifest.Load(files, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := families.CompileWith(set, cfg, v)
	extra, err := lintExtra(c, "")
	if err != nil {
		t.Fatal(err)
	}
	return lint.Run(&lint.Input{Result: c.Result, Stage: c.Diagnostics(), Extra: extra}, lintConfig(c.Config)).Diagnostics
}

// TestConformanceEGCEL runs Envoy Gateway v1.9.0's CRD validation cases
// (../shared/conformance/envoygateway-cel) through lint and holds gwpol to
// the API server's verdict on each: a refused object gets an error
// finding, an accepted one none.
func TestConformanceEGCEL(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(egCELDir, "*"))
	if len(dirs) == 0 {
		t.Skipf("Envoy Gateway CRD validation cases not found at %s (they live in ../shared beside the repository); skipping", egCELDir)
	}
	var n, m, ra, rb, ac, ad, px, pp int
	for _, dir := range dirs {
		var exp struct {
			Accepted       bool     `json:"accepted"`
			ErrorFragments []string `json:"errorFragments"`
		}
		readJSON(t, filepath.Join(dir, "expected.json"), &exp)
		var counted []diag.Diagnostic
		// The API server's verdict does not depend on the deployment's
		// switches: the features Envoy Gateway leaves off by default are
		// on, so that a finding of a switched-off feature does not count.
		cfg := &Config{Namespace: "default"}
		setSetting(t, cfg, "envoyGateway.extensionApis.enableLua", true)
		setSetting(t, cfg, "envoyGateway.enableBackend", true)
		for _, d := range lintFiles(t, cfg, filepath.Join(dir, "input.yaml")) {
			if egCELCounted(d) {
				counted = append(counted, d)
			}
		}
		m++
		agree := exp.Accepted == (len(counted) == 0)
		if exp.Accepted {
			ad++
		} else {
			rb++
			path := egCELPath.FindString(strings.Join(exp.ErrorFragments, " "))
			if path != "" {
				pp++
				for _, d := range counted {
					f, p := strings.ToLower(d.Field), strings.ToLower(path)
					if f == p || strings.HasPrefix(f, p+".") || strings.HasPrefix(f, p+"[") {
						px++
						break
					}
				}
			}
		}
		if !agree {
			t.Logf("%s: accepted=%v by the API server (%s); gwpol: %v", filepath.Base(dir), exp.Accepted, strings.Join(exp.ErrorFragments, " | "), counted)
			continue
		}
		n++
		if exp.Accepted {
			ac++
		} else {
			ra++
		}
	}
	line := fmt.Sprintf("eg cel: %d/%d cases agree (rejected %d/%d, accepted %d/%d); field named %d/%d", n, m, ra, rb, ac, ad, px, pp)
	t.Log(line)
	fmt.Println(line)
	if n < egCELFloor || ra < egCELRejectedFloor {
		t.Errorf("agreement dropped below %d (rejected %d)", egCELFloor, egCELRejectedFloor)
	}
}

const kgatewayCRDs = "../../../shared/conformance/kgateway/crds"

// TestConformanceKgatewayCRDs validates the policies of kgateway's own
// cases against kgateway's CRDs (given as --crds would): every
// TrafficPolicy, ListenerPolicy and BackendConfigPolicy kgateway accepts
// (Accepted True on every ancestor) must pass them without a finding of
// the schema stage.
func TestConformanceKgatewayCRDs(t *testing.T) {
	var dirs []string
	for _, sub := range []string{"cases", "more"} {
		ds, _ := filepath.Glob(filepath.Join("../../../shared/conformance/kgateway", sub, "*"))
		dirs = append(dirs, ds...)
	}
	if len(dirs) == 0 {
		t.Skip("kgateway cases not found in ../shared; skipping")
	}
	if _, err := os.Stat(kgatewayCRDs); err != nil {
		t.Skipf("kgateway CRDs not found: %v", err)
	}
	kinds := map[string]bool{"TrafficPolicy": true, "ListenerPolicy": true, "BackendConfigPolicy": true}
	// The CRDs are read once, as one run reads them (--crds).
	cfg := &Config{Namespace: "default", CRDs: []string{kgatewayCRDs}}
	versions, err := families.LoadVersions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	checked, clean := 0, 0
	for _, dir := range dirs {
		var exp struct {
			Policies map[string][]struct {
				Accepted []string `json:"Accepted"`
			} `json:"policies"`
		}
		readJSON(t, filepath.Join(dir, "expected.json"), &exp)
		accepted := map[string]bool{}
		for id, ancestors := range exp.Policies {
			ok := len(ancestors) > 0
			for _, a := range ancestors {
				ok = ok && len(a.Accepted) > 0 && a.Accepted[0] == "True"
			}
			if kind, _, _ := strings.Cut(id, "/"); ok && kinds[kind] {
				accepted[id] = true
			}
		}
		if len(accepted) == 0 {
			continue
		}
		bad := map[string][]string{}
		for _, d := range lintWith(t, cfg, versions, filepath.Join(dir, "input.yaml")) {
			id := d.Object.Kind + "/" + d.Object.Namespace + "/" + d.Object.Name
			if accepted[id] && strings.HasPrefix(d.Code, "GWP1") && d.Severity == diag.Error {
				bad[id] = append(bad[id], d.Code+" "+d.Field+": "+d.Message)
			}
		}
		for id := range accepted {
			checked++
			if len(bad[id]) == 0 {
				clean++
				continue
			}
			t.Errorf("%s: %s is accepted by kgateway, but gwpol reports:\n  %s", filepath.Base(dir), id, strings.Join(bad[id], "\n  "))
		}
	}
	line := fmt.Sprintf("kgateway crds: %d/%d accepted policies clean", clean, checked)
	t.Log(line)
	fmt.Println(line)
	if checked == 0 {
		t.Error("no accepted kgateway policy was checked")
	}
}
