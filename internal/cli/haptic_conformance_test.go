package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/status"
)

// hapticConformanceDir holds HAPTIC's chart tests for HAProxyRoutePolicy as
// cases, beside the repository.
const hapticConformanceDir = "../../../shared/conformance/haptic/cases"

// hapticCase is what gwpol reads of a case's case.json and expected.json.
type hapticCase struct {
	Requires    []string       `json:"requires"`
	ChartValues map[string]any `json:"chartValues"`
	// HelmSkipTest is the test's skip condition; upstream runs the test
	// only where it renders empty (runValues).
	HelmSkipTest string `json:"helmSkipTest"`
}

// skipUnlessRE is a skip condition of the form "skip unless a value is
// true", the only form the cases use.
var skipUnlessRE = regexp.MustCompile(`^\{\{ if not \.Values\.([A-Za-z0-9_.-]+) \}\}true\{\{ end \}\}$`)

// runValues are the chart values upstream runs the case with: its
// extraContext, and — for a test upstream skips unless a value is true
// (shared-rate-limit: rateLimit.shared.enabled, off in the chart's
// defaults) — that value set true. A value the case's own values decide
// otherwise (the Coraza plugin, enabled by the plugin list the WAF cases
// give) is left to them.
func runValues(cs hapticCase) map[string]any {
	m := skipUnlessRE.FindStringSubmatch(cs.HelmSkipTest)
	if m == nil {
		return cs.ChartValues
	}
	out := maps.Clone(cs.ChartValues)
	if out == nil {
		out = map[string]any{}
	}
	cur := out
	path := strings.Split(m[1], ".")
	for _, k := range path[:len(path)-1] {
		next, ok := cur[k]
		switch nm := next.(type) {
		case nil:
			if ok {
				return cs.ChartValues
			}
			nm2 := map[string]any{}
			cur[k] = nm2
			cur = nm2
		case map[string]any:
			nm = maps.Clone(nm)
			cur[k] = nm
			cur = nm
		default:
			return cs.ChartValues // not a map on the way: the case's values decide
		}
	}
	if _, set := cur[path[len(path)-1]]; !set {
		cur[path[len(path)-1]] = true
	}
	return out
}

type hapticExpected struct {
	// RenderError: upstream's render fails (in admission mode: the change
	// is refused). Not part of the agreement rule; checked separately.
	RenderError *struct {
		Mode string `json:"mode"`
	} `json:"renderError"`
	FailClosed    []string `json:"failClosed"`
	NotFailClosed []string `json:"notFailClosed"`
	Routes        map[string]struct {
		Conditions map[string]string `json:"conditions"`
		Reasons    []string          `json:"reasons"`
	} `json:"routes"`
}

// hapticConfig turns a case's chart values into gwpol's haptic: config
// section: the switches gwpol models (shared rate limit and the SPOA
// messages it needs, cache tier, the Coraza plugin, WAF policies and
// limits and body caps, the HAProxy body buffer, dispatch mode and
// Ingress permissions). Values with no gwpol
// key (SPOA transport, plugin directives) are left out.
func hapticConfig(values map[string]any) map[string]any {
	out := map[string]any{}
	dig := func(m map[string]any, path ...string) (any, bool) {
		var v any = m
		for _, p := range path {
			mm, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = mm[p]; !ok {
				return nil, false
			}
		}
		return v, true
	}
	if v, ok := dig(values, "rateLimit", "shared", "enabled"); ok {
		out["rateLimit"] = map[string]any{"shared": map[string]any{"enabled": v}}
	}
	if v, ok := dig(values, "cache", "varnish", "enabled"); ok {
		out["cache"] = map[string]any{"varnish": map[string]any{"enabled": v}}
	}
	hub := map[string]any{}
	if v, ok := dig(values, "spoaHub", "enabled"); ok {
		hub["enabled"] = v
	}
	if v, ok := dig(values, "spoaHub", "haproxy", "messages"); ok {
		hub["haproxy"] = map[string]any{"messages": v}
	}
	if len(hub) > 0 {
		out["spoaHub"] = hub
	}
	waf := map[string]any{}
	if plugins, ok := dig(values, "spoaHub", "plugins"); ok {
		coraza := false
		if list, ok := plugins.([]any); ok {
			coraza = slices.ContainsFunc(list, func(p any) bool {
				m, ok := p.(map[string]any)
				return ok && m["name"] == "coraza"
			})
		}
		enabled, _ := dig(values, "spoaHub", "enabled")
		waf["enabled"] = coraza && enabled != false
	}
	if p, ok := dig(values, "waf", "policies"); ok {
		if pm, ok := p.(map[string]any); ok {
			policies := map[string]any{}
			for _, k := range []string{"defaultPolicy", "inline", "configMapRefs", "selfService", "requestBody", "limits"} {
				if v, ok := pm[k]; ok {
					policies[k] = v
				}
			}
			waf["policies"] = policies
		}
	}
	for _, k := range []string{"dispatch", "ingressPermissions"} {
		if v, ok := dig(values, "waf", k); ok {
			waf[k] = v
		}
	}
	if len(waf) > 0 {
		out["waf"] = waf
	}
	if v, ok := dig(values, "requestBodyInspection", "haproxyBuffer"); ok {
		out["requestBodyInspection"] = map[string]any{"haproxyBuffer": v}
	}
	return out
}

// hapticRuleRoutes finds the Envoy routes of rule "Kind/ns/name#i" by
// gwpol's route naming ("<kind>-<name>-<ns>-<i>-").
func hapticRuleRoutes(routes []*routev3.Route, rule string) []*routev3.Route {
	kindNSName, idx, _ := strings.Cut(rule, "#")
	parts := strings.Split(kindNSName, "/")
	if len(parts) != 3 {
		return nil
	}
	key := strings.ToLower(parts[0]) + "-" + parts[2] + "-" + parts[1] + "-" + idx + "-"
	var out []*routev3.Route
	for _, r := range routes {
		if strings.Contains(r.GetName(), key) {
			out = append(out, r)
		}
	}
	return out
}

func failsClosed(r *routev3.Route) bool {
	dr := r.GetDirectResponse()
	return dr != nil && dr.GetStatus() >= 500
}

// checkHAPTICCase runs render and status on one case and applies the
// agreement rule of tools/seed_case.py: every failClosed rule answers >= 500
// on all its routes, every notFailClosed rule forwards on all of them, and
// each listed route has the listed conditions and reasons. Upstream checks
// gwpol cannot express (haproxy.cfg, events) are not compared, as the tool
// does not compare them. Where upstream's whole render fails (admission),
// refused reports whether gwpol finds an error; nil for other cases.
func checkHAPTICCase(dir string) (bad []string, refused *bool, err error) {
	var cs hapticCase
	var exp hapticExpected
	if err := readJSONFile(filepath.Join(dir, "case.json"), &cs); err != nil {
		return nil, nil, err
	}
	if err := readJSONFile(filepath.Join(dir, "expected.json"), &exp); err != nil {
		return nil, nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
	if err != nil {
		return nil, nil, err
	}
	objs, err := manifest.Parse(filepath.Join(dir, "input.yaml"), raw, manifest.Limits{})
	if err != nil {
		return nil, nil, err
	}
	// Without the routepolicies watch HAPTIC sees no HAProxyRoutePolicy.
	if !slices.Contains(cs.Requires, "routepolicies") {
		objs = slices.DeleteFunc(objs, func(o *manifest.Object) bool { return o.Kind == "HAProxyRoutePolicy" })
	}
	cfg := &Config{Namespace: "default", ControllerName: "haproxy-haptic.org/controller",
		Settings: map[string]any{"haptic": hapticConfig(runValues(cs))}}
	c := families.Compile(&manifest.Set{Objects: objs}, cfg)
	out, err := renderPlatform(c, inferredTarget, false, nil)
	if err != nil {
		return nil, nil, err
	}
	if exp.RenderError != nil {
		// Upstream refuses the whole render: gwpol must find an error.
		found := slices.ContainsFunc(append(c.Diagnostics(), out.Diagnostics...), func(d diag.Diagnostic) bool { return d.Severity == diag.Error })
		refused = &found
	}
	var routes []*routev3.Route
	for _, g := range out.Gateways {
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.GetVirtualHosts() {
				routes = append(routes, vh.GetRoutes()...)
			}
		}
	}
	for _, rule := range exp.FailClosed {
		got := hapticRuleRoutes(routes, rule)
		if len(got) == 0 || slices.ContainsFunc(got, func(r *routev3.Route) bool { return !failsClosed(r) }) {
			bad = append(bad, rule+" should fail closed")
		}
	}
	for _, rule := range exp.NotFailClosed {
		got := hapticRuleRoutes(routes, rule)
		if len(got) == 0 || slices.ContainsFunc(got, failsClosed) {
			bad = append(bad, rule+" should forward")
		}
	}
	rep := status.Compute(c.Result, status.Options{ControllerName: cfg.ControllerName})
	for _, key := range slices.Sorted(maps.Keys(exp.Routes)) {
		want := exp.Routes[key]
		ns, name, _ := strings.Cut(strings.TrimPrefix(key, "route:"), "/")
		var conds []status.Condition
		for _, r := range rep.Routes {
			if r.Namespace == ns && r.Name == name {
				for _, p := range r.Parents {
					conds = append(conds, p.Conditions...)
				}
			}
		}
		for _, typ := range slices.Sorted(maps.Keys(want.Conditions)) {
			st := want.Conditions[typ]
			if !slices.ContainsFunc(conds, func(c status.Condition) bool { return c.Type == typ && c.Status == st }) {
				bad = append(bad, fmt.Sprintf("%s: no %s=%s", key, typ, st))
			}
		}
		for _, reason := range want.Reasons {
			if !slices.ContainsFunc(conds, func(c status.Condition) bool { return c.Reason == reason }) {
				bad = append(bad, fmt.Sprintf("%s: no reason %s", key, reason))
			}
		}
	}
	return bad, refused, nil
}

// TestConformanceHAPTIC runs HAPTIC's own chart tests for HAProxyRoutePolicy
// (../shared/conformance/haptic): every case agrees, or is listed with its
// reason in the "# haptic" section of testdata/conformance-divergences.txt.
func TestConformanceHAPTIC(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(hapticConformanceDir, "*", "expected.json"))
	if len(dirs) == 0 {
		t.Skipf("HAPTIC conformance cases not found at %s (they live in ../shared beside the repository); skipping", hapticConformanceDir)
	}
	div := divergenceSection(t, "haptic")
	agree, renderErrors, refusedAll := 0, 0, 0
	for _, exp := range dirs {
		dir := filepath.Dir(exp)
		name := filepath.Base(dir)
		bad, refused, err := checkHAPTICCase(dir)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if refused != nil {
			renderErrors++
			if *refused {
				refusedAll++
			} else if _, listed := div[name]; !listed {
				t.Errorf("%s: upstream refuses the render, gwpol finds no error", name)
			}
		}
		reason, listed := div[name]
		switch {
		case len(bad) == 0 && listed:
			agree++
			t.Errorf("%s agrees now; remove it from testdata/conformance-divergences.txt (listed: %s)", name, reason)
		case len(bad) == 0:
			agree++
		case listed:
			t.Logf("%s: listed divergence (%s): %s", name, reason, strings.Join(bad, "; "))
		default:
			t.Errorf("%s: %s", name, strings.Join(bad, "; "))
		}
	}
	t.Logf("haptic: %d/%d cases agree", agree, len(dirs))
	fmt.Printf("haptic: %d/%d cases agree\n", agree, len(dirs))
	// Not in the agreement rule (seed_case.py does not compare them), so
	// reported on their own line.
	fmt.Printf("haptic render errors: gwpol reports an error in %d/%d cases upstream refuses\n", refusedAll, renderErrors)
}

func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}
