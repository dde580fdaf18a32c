package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// levelOrigins is, per resource name, its merge.* filter_metadata:
// metadata key → field → policy IDs.
type levelOrigins = map[string]map[string]map[string][]string

// renderedOrigins renders a case's gateway the way kgateway's harness
// translates it (target kgateway, kgateway's metadata key) and collects
// the merge metadata of every Route, VirtualHost, RouteConfiguration and
// Listener.
func renderedOrigins(c *pipeline.Compiled, gateway string) (routes, vhosts, rcs, listeners levelOrigins, err error) {
	out, err := renderCompiled(c, "kgateway", true, gateway)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	routes, vhosts, rcs, listeners = levelOrigins{}, levelOrigins{}, levelOrigins{}, levelOrigins{}
	for _, g := range out.Gateways {
		for _, l := range g.Listeners {
			addOrigins(listeners, l.Name, l.Metadata)
		}
		for _, rc := range g.RouteConfigurations {
			addOrigins(rcs, rc.Name, rc.Metadata)
			for _, vh := range rc.VirtualHosts {
				addOrigins(vhosts, vh.Name, vh.Metadata)
				for _, r := range vh.Routes {
					addOrigins(routes, r.Name, r.Metadata)
				}
			}
		}
	}
	return routes, vhosts, rcs, listeners, nil
}

func addOrigins(into levelOrigins, name string, md *corev3.Metadata) {
	for key, st := range md.GetFilterMetadata() {
		if !strings.HasPrefix(key, "merge.") {
			continue
		}
		fields := map[string][]string{}
		for f, v := range st.GetFields() {
			for _, id := range v.GetListValue().GetValues() {
				fields[f] = append(fields[f], id.GetStringValue())
			}
			slices.Sort(fields[f])
		}
		if into[name] == nil {
			into[name] = map[string]map[string][]string{}
		}
		into[name][key] = fields
	}
}

// caseGateway is the gateway a case translates (case.json), found from
// the subtest's name.
func caseGateway(t *testing.T) string {
	name := t.Name()[strings.LastIndex(t.Name(), "/")+1:]
	var cs caseSettings
	readJSON(t, filepath.Join(conformanceDir, name, "case.json"), &cs)
	return cs.Gateway
}

// originLists is a level's metadata maps without their names, sorted (the
// name-independent comparison).
func originLists(l levelOrigins) []string {
	out := []string{}
	for _, m := range l {
		b, _ := json.Marshal(m) // map keys are sorted by encoding/json
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

func normalise(l levelOrigins) levelOrigins {
	if l == nil {
		return levelOrigins{}
	}
	for _, m := range l {
		for _, fields := range m {
			for f := range fields {
				slices.Sort(fields[f])
			}
		}
	}
	return l
}

// originsAgree compares gwpol's merge metadata with a case's expectation,
// name-independently and by resource name.
func originsAgree(c *pipeline.Compiled, gateway string, exp expectedCase) (indep, byName []string, err error) {
	routes, vhosts, rcs, listeners, err := renderedOrigins(c, gateway)
	if err != nil {
		return nil, nil, err
	}
	levels := []struct {
		name      string
		got, want levelOrigins
	}{
		{"routes", routes, exp.Routes}, {"virtualHosts", vhosts, exp.VirtualHosts},
		{"routeConfigs", rcs, exp.RouteConfigs}, {"listeners", listeners, exp.Listeners},
	}
	for _, l := range levels {
		got, want := normalise(l.got), normalise(l.want)
		if d := cmp.Diff(originLists(want), originLists(got)); d != "" {
			indep = append(indep, fmt.Sprintf("%s metadata, name-independent (-kgateway +gwpol):\n%s", l.name, d))
		}
		if d := cmp.Diff(want, got); d != "" {
			byName = append(byName, fmt.Sprintf("%s metadata by name (-kgateway +gwpol):\n%s", l.name, d))
		}
	}
	return indep, byName, nil
}

// checkOrigins compares the merge metadata render writes (target kgateway,
// --merge-key=kgateway) with the case's: per level, the sorted list of
// metadata maps, then key by key under kgateway's resource names.
func checkOrigins(t *testing.T, c *pipeline.Compiled, exp expectedCase) {
	t.Helper()
	indep, byName, err := originsAgree(c, caseGateway(t), exp)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	for _, d := range indep {
		t.Error(d)
	}
	for _, d := range byName {
		t.Error(d)
	}
}

// TestConformanceOriginsSummary counts the cases whose merge metadata
// agrees with kgateway's, name-independently and by name, including the
// cases listed as divergent (for the report; it never fails).
func TestConformanceOriginsSummary(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(conformanceDir, "*"))
	if len(dirs) == 0 {
		t.Skipf("conformance cases not found at %s", conformanceDir)
	}
	indepOK, nameOK := 0, 0
	var failing []string
	for _, dir := range dirs {
		name := filepath.Base(dir)
		set, cfg, cs, exp := loadCase(t, dir)
		c := families.Compile(set, cfg)
		indep, byName, err := originsAgree(c, cs.Gateway, exp)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(indep) == 0 {
			indepOK++
		}
		if len(byName) == 0 {
			nameOK++
		} else {
			failing = append(failing, name)
		}
	}
	msg := fmt.Sprintf("merge origins: name-independent %d/%d, by name %d/%d cases agree; differing: %s",
		indepOK, len(dirs), nameOK, len(dirs), strings.Join(failing, ", "))
	t.Log(msg)
	fmt.Println(msg)
}
