package cli

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
)

// moreDir holds the rest of kgateway's public translator goldens: every
// group but the TrafficPolicy cases (see kgateway/INDEX.md beside it).
const moreDir = "../../../shared/conformance/kgateway/more"

// xdsMoreFloor is the number of more/ cases whose whole xDS agrees, and
// xdsMoreGroupFloor the same per group; a change may raise them, never
// lower them.
const xdsMoreFloor = 225

var xdsMoreGroupFloor = map[string]int{
	"backend-protocol":             5,
	"backendconfigpolicy":          19,
	"backends":                     6,
	"backendtlspolicy":             6,
	"delegation":                   15,
	"dfp":                          2,
	"directresponse":               5,
	"discovery-namespace-selector": 2,
	"frontendtlsconfig":            5,
	"gateway-only":                 3,
	"grpc-routing":                 4,
	"http-acl":                     3,
	"http-routing":                 2,
	"https-listener-pol":           1,
	"invalid-filter-chains":        13,
	"listener-policy":              10,
	"listener-policy-http":         33,
	"listener-sets":                6,
	"loadbalancer":                 1,
	"rbac":                         3,
	"reference-grant-mode":         1,
	"route-replacement":            32,
	"route-source-metadata":        2,
	"session-persistence":          2,
	"status":                       1,
	"tcp-routing":                  5,
	"tls-routing":                  4,
	"top-level":                    10,
	"traffic-policy":               22,
	"validation":                   2,
}

// TestConformanceXDSMore compares the whole xDS of every case in more/
// with kgateway's output.yaml exactly as TestConformanceXDS does for the
// TrafficPolicy cases (same normalisation, same accepted differences),
// and reports agreement per group of kgateway's outputs/ folders — "xds
// <group>: N/M" — and in total, "xds more: N/M".
func TestConformanceXDSMore(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(moreDir, "*"))
	if len(dirs) == 0 {
		t.Skipf("conformance cases not found at %s (they live in ../shared beside the repository); skipping", moreDir)
	}
	accepted := xdsDivergences(t)
	listed := divergenceSection(t, "kgateway-xds")
	agree, total := map[string]int{}, map[string]int{}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		var cs caseSource
		readJSON(t, filepath.Join(dir, "case.json"), &cs)
		group := cs.group()
		total[group]++
		t.Run(name, func(t *testing.T) {
			left := caseXDSDiffs(t, dir, accepted)
			reason, isListed := listed[name]
			if len(left) == 0 {
				agree[group]++
				t.Log("identical")
				if isListed {
					t.Errorf("agrees now; remove %s from the kgateway-xds section of testdata/conformance-divergences.txt", name)
				}
				return
			}
			if !isListed {
				t.Errorf("differs from kgateway's xDS and is not listed with a reason in the kgateway-xds section of testdata/conformance-divergences.txt")
			} else {
				t.Logf("listed: %s", reason)
			}
			var b strings.Builder
			for i, d := range left {
				if i == 8 {
					fmt.Fprintf(&b, "  … %d more\n", len(left)-i)
					break
				}
				fmt.Fprintf(&b, "  %s: kgateway %s, gwpol %s\n", d.path, short(d.kgw), short(d.gwpol))
			}
			t.Logf("differs (%d differences):\n%s", len(left), b.String())
		})
	}
	sum, n := 0, 0
	for _, g := range slices.Sorted(maps.Keys(total)) {
		line := fmt.Sprintf("xds %s: %d/%d", g, agree[g], total[g])
		t.Log(line)
		fmt.Println(line)
		sum += agree[g]
		n += total[g]
		if agree[g] < xdsMoreGroupFloor[g] {
			t.Errorf("xds %s: %d cases agree, below the floor of %d", g, agree[g], xdsMoreGroupFloor[g])
		}
	}
	line := fmt.Sprintf("xds more: %d/%d", sum, n)
	t.Log(line)
	fmt.Println(line)
	if sum < xdsMoreFloor {
		t.Errorf("xds more: %d cases agree, below the floor of %d", sum, xdsMoreFloor)
	}
}

// caseSource is the part of a case.json that says where kgateway keeps
// the golden: its folder under outputs/ is the case's group.
type caseSource struct {
	Source struct {
		Output string `json:"output"`
	} `json:"source"`
}

func (c caseSource) group() string {
	_, rest, ok := strings.Cut(c.Source.Output, "/outputs/")
	if !ok {
		return "unknown"
	}
	if g, _, ok := strings.Cut(rest, "/"); ok {
		return g
	}
	return "top-level"
}

// caseXDSDiffs renders one case's gateway and returns the differences
// from kgateway's xDS that testdata/xds-divergences.txt does not accept.
func caseXDSDiffs(t *testing.T, dir string, accepted acceptedDiffs) []xdsDiff {
	t.Helper()
	set, cfg, cs, _, err := readCase(dir)
	if err != nil {
		// kgateway's harness reads such an input leniently; gwpol rejects
		// it, so the case cannot agree.
		return []xdsDiff{{section: "input", path: "input.yaml", kgw: "read", gwpol: err.Error()}}
	}
	kgw := kgatewayXDS(t, dir)
	gw := gwpolXDS(t, families.Compile(set, cfg), cs.Gateway)
	var left []xdsDiff
	for _, d := range compareXDS(kgw, gw) {
		if accepted.match(d) == "" {
			left = append(left, d)
		}
	}
	return left
}
