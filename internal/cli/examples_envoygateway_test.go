package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// egExamples is the Envoy Gateway example platform the "Policies"
// section of docs/controllers/envoygateway.md runs.
const egExamples = "testdata/examples-envoygateway"

// egExamplesConfig is the example platform's deployment: Envoy Gateway
// with Lua enabled (extensionApis.enableLua; its default is off).
const egExamplesConfig = "testdata/base/eg-extensions.gwpol.yaml"

// TestEnvoyGatewayExamples runs the commands of
// docs/controllers/envoygateway.md: the orders route's compressor is a StrategicMerge of its own policy and the
// Gateway's (both named), its admin rule's cors overrides the listener's;
// lint finds only the fields the catalog route's policy hides, the admin
// rule's cors and the Gateway's lua list the orders route's replaces
// (GWP304, info); render infers --target envoygateway and puts the
// merged compressors on the orders routes.
func TestEnvoyGatewayExamples(t *testing.T) {
	out, errOut, code := run(t, "explain", "httproute/store/orders", "--config", egExamplesConfig, "-f", egExamples, "-o", "json")
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, errOut)
	}
	var doc struct {
		Targets []struct {
			Target struct{ Section string } `json:"target"`
			Fields []struct {
				Field        string   `json:"field"`
				Owner        string   `json:"owner"`
				Strategy     string   `json:"strategy"`
				Contributors []string `json:"contributors"`
				Shadowed     []string `json:"shadowed"`
			} `json:"fields"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("explain -o json: %v\n%s", err, out)
	}
	seen := 0
	for _, tg := range doc.Targets {
		for _, f := range tg.Fields {
			switch {
			case f.Field == "compressor":
				seen++
				want := []string{"gateway.envoyproxy.io/BackendTrafficPolicy/store/orders-traffic", "gateway.envoyproxy.io/BackendTrafficPolicy/infra/edge-defaults"}
				if f.Strategy != "StrategicMerge" || !slices.Equal(f.Contributors, want) {
					t.Errorf("rule %s compressor: strategy %s contributors %v, want StrategicMerge of %v", tg.Target.Section, f.Strategy, f.Contributors, want)
				}
			case f.Field == "cors" && tg.Target.Section == "admin":
				seen++
				if !strings.Contains(f.Owner, "orders-admin-cors") || !slices.Contains(f.Shadowed, "gateway.envoyproxy.io/SecurityPolicy/infra/https-cors") {
					t.Errorf("admin cors: owner %s shadowed %v, want orders-admin-cors over https-cors", f.Owner, f.Shadowed)
				}
			}
		}
	}
	if seen != 3 {
		t.Errorf("explain showed %d of the 3 expected fields:\n%s", seen, out)
	}

	out, errOut, code = run(t, "lint", "--config", egExamplesConfig, "-f", egExamples, "-o", "json")
	if code != 0 {
		t.Fatalf("lint: exit %d: %s%s", code, out, errOut)
	}
	var rep struct {
		Diagnostics []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("lint -o json: %v\n%s", err, out)
	}
	var hidden []string
	for _, d := range rep.Diagnostics {
		if d.Code != "GWP304" {
			t.Errorf("unexpected finding %s: %s", d.Code, d.Message)
			continue
		}
		hidden = append(hidden, strings.SplitN(d.Message, " ", 2)[0])
	}
	slices.Sort(hidden)
	if want := []string{"compressor", "cors", "lua", "rateLimit"}; !slices.Equal(hidden, want) {
		t.Errorf("GWP304 fields %v, want %v", hidden, want)
	}

	out, errOut, code = run(t, "render", "--config", egExamplesConfig, "-f", egExamples, "-o", "json")
	if code != 0 || errOut != "" {
		t.Fatalf("render: exit %d: %s", code, errOut)
	}
	var xds struct {
		Gateways []struct {
			RouteConfigurations []struct {
				VirtualHosts []struct {
					Routes []struct {
						Name string                     `json:"name"`
						TPFC map[string]json.RawMessage `json:"typed_per_filter_config"`
					} `json:"routes"`
				} `json:"virtual_hosts"`
			} `json:"routeConfigurations"`
		} `json:"gateways"`
	}
	if err := json.Unmarshal([]byte(out), &xds); err != nil {
		t.Fatalf("render -o json: %v", err)
	}
	orders := 0
	for _, g := range xds.Gateways {
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				for _, r := range vh.Routes {
					if !strings.Contains(r.Name, "-httproute-orders-") {
						continue
					}
					orders++
					for _, f := range []string{"envoy.filters.http.compressor.brotli", "envoy.filters.http.compressor.gzip", "envoy.filters.http.local_ratelimit", "envoy.filters.http.cors"} {
						if _, ok := r.TPFC[f]; !ok {
							t.Errorf("%s: no %s", r.Name, f)
						}
					}
				}
			}
		}
	}
	if orders != 2 {
		t.Errorf("%d orders routes rendered, want 2", orders)
	}
}
