package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
)

// egXDSTally counts the inputs whose render the oracle compares
// (GWPOL_EGCTL_XDS=1), per view.
type egXDSTally struct {
	n, routes, clusters, listeners, skipped, failed int
}

func (x egXDSTally) line() string {
	return fmt.Sprintf("xds: routes %d/%d, clusters %d/%d, listeners %d/%d (%d not compared: egctl mishandles the case; %d egctl xds errors)",
		x.routes, x.n, x.clusters, x.n, x.listeners, x.n, x.skipped, x.failed)
}

// egOracleXDS compares the render of the input at path under the
// envoygateway target with egctl's --to xds answer, as
// TestConformanceEnvoyGatewayXDS compares a case's xds.json: the routes,
// the clusters of the routes both forward, each port's HTTP filter
// chains. An input whose case egctl mishandles (egMishandled) is not
// compared.
func egOracleXDS(t *testing.T, path string, eg egctlResult, caseDir string, tally *egXDSTally) []egDiff {
	if len(eg.XDS) == 0 {
		return nil
	}
	if strings.HasPrefix(strings.TrimSpace(string(eg.XDS)), `{"error"`) {
		tally.failed++
		return nil
	}
	set, err := manifest.Load([]string{path}, manifest.Options{})
	if err != nil {
		return nil
	}
	if why := egMishandled(t, caseDir, set); why != "" {
		tally.skipped++
		return nil
	}
	tally.n++
	xdsPath := path + ".xds.json"
	if err := os.WriteFile(xdsPath, append(append([]byte(`{"xds":`), eg.XDS...), '}'), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(xdsPath)
	c := families.Compile(set, egOracleConfig(t))
	got, gotClusters, gotListeners, err := gwpolEG(t, c)
	if err != nil {
		return []egDiff{{Line: "xds: gwpol render: " + err.Error(), Signature: "xds render: gwpol fails"}}
	}
	want, wantClusters, wantListeners := egxdsAll(t, xdsPath)
	egUnprivileged(wantListeners, egGatewayPorts(set))
	var out []egDiff
	for _, v := range []struct {
		view string
		bad  []string
		ok   *int
	}{
		{"routes", egCompareRoutes(want, got), &tally.routes},
		{"clusters", egCompareClusters(want, got, wantClusters, gotClusters), &tally.clusters},
		{"listeners", egCompareListeners(wantListeners, gotListeners), &tally.listeners},
	} {
		if len(v.bad) == 0 {
			*v.ok++
			continue
		}
		for _, b := range v.bad {
			first, _, _ := strings.Cut(b, "\n")
			out = append(out, egDiff{
				Line:      "xds " + v.view + ": " + strings.ReplaceAll(b, "\n", "\n  "),
				Signature: "xds " + v.view + ": " + egXDSSignature(first),
			})
		}
	}
	return out
}

// egXDSSignature is an xds difference's first line without the names
// of the gateway and route, for clustering.
func egXDSSignature(s string) string {
	f := strings.Fields(s)
	if len(f) > 2 {
		f = f[2:]
	}
	return egNames.ReplaceAllString(strings.Join(f, " "), "…")
}

// egGatewayPorts are the listener ports of each Gateway of set, by
// namespace/name.
func egGatewayPorts(set *manifest.Set) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, o := range set.Objects {
		if o.Kind != "Gateway" {
			continue
		}
		raw, err := o.FieldJSON("spec")
		if err != nil {
			continue
		}
		var spec struct {
			Listeners []struct {
				Port int `json:"port"`
			} `json:"listeners"`
		}
		if json.Unmarshal(raw, &spec) != nil {
			continue
		}
		ports := map[string]bool{}
		for _, l := range spec.Listeners {
			ports[fmt.Sprint(l.Port)] = true
		}
		out[o.Namespace+"/"+o.Name] = ports
	}
	return out
}

// egUnprivileged undoes, on Envoy Gateway's listener views, the shift of
// a port in 10000..11023 back to the privileged port it serves
// (egListenerViews) where the Gateway has no listener on that port but
// one on the port as written: Envoy Gateway moves only ports below 1024
// (gatewayapi listener.go: servicePortToContainerPort), so its 10080 is
// a Gateway's 10080 when the Gateway has no port 80.
func egUnprivileged(views map[string]map[string]string, ports map[string]map[string]bool) {
	for gw, byPort := range views {
		for key, v := range byPort {
			port, udp := strings.CutSuffix(key, "/udp")
			n, err := strconv.Atoi(port)
			if err != nil || n >= 1024 || ports[gw][port] || !ports[gw][fmt.Sprint(n+10000)] {
				continue
			}
			delete(byPort, key)
			moved := fmt.Sprint(n + 10000)
			if udp {
				moved += "/udp"
			}
			byPort[moved] = v
		}
	}
}
