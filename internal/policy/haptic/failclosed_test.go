package haptic_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/haptic"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/topology"
)

// xds is the part of render's JSON output this test reads.
type xds struct {
	Gateways []struct {
		Listeners []struct {
			FilterChains []struct {
				Filters []struct {
					TypedConfig struct {
						HTTPFilters []struct {
							Name     string `json:"name"`
							Disabled bool   `json:"disabled"`
						} `json:"http_filters"`
					} `json:"typed_config"`
				} `json:"filters"`
			} `json:"filter_chains"`
		} `json:"listeners"`
		RouteConfigurations []struct {
			VirtualHosts []struct {
				Routes []xdsRoute `json:"routes"`
			} `json:"virtual_hosts"`
		} `json:"routeConfigurations"`
	} `json:"gateways"`
}

type xdsRoute struct {
	Name           string          `json:"name"`
	Route          json.RawMessage `json:"route"`
	Redirect       json.RawMessage `json:"redirect"`
	DirectResponse *struct {
		Status int `json:"status"`
	} `json:"direct_response"`
	PerFilter map[string]json.RawMessage `json:"typed_per_filter_config"`
}

// TestBrokenPolicyNeverForwards renders every fixture and checks, for each
// Envoy route of a rule that references a HAProxyRoutePolicy, that it
// either answers 503 or forwards with every filter of its policy enabled:
// a rule never forwards without its policy. Rules attach marked broken
// must answer with an error (503 when the kind fails closed).
func TestBrokenPolicyNeverForwards(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "input.yaml"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	forwardedWithPolicy := 0
	for _, in := range dirs {
		t.Run(filepath.Base(filepath.Dir(in)), func(t *testing.T) {
			c := compile(t, in)
			filters, routes, _ := renderedXDS(t, c, "")
			chain := map[string]bool{}
			for _, n := range filters {
				chain[n] = true
			}
			for _, rt := range c.Graph.Routes {
				for _, rule := range rt.Rules {
					p := hapticPolicy(c, rt, rule)
					broken := len(c.Result.Attach.Broken[rule]) > 0
					// A rule broken by a fail-closed kind answers 503; one
					// broken by a kind gwpol does not know answers 500, as
					// the Gateway API asks for unresolvable filters.
					wantStatus := 500
					for _, b := range c.Result.Attach.Broken[rule] {
						if b.Kind != nil && b.Kind.Spec().FailClosed {
							wantStatus = 503
						}
					}
					if p == nil && !broken {
						continue
					}
					id := haptic.RuleIdentity(rt.Kind, rt.Meta.Namespace, rt.Meta.Name, rule.Index)
					mine := routesOf(routes, rt, rule)
					if len(mine) == 0 {
						t.Errorf("%s: no Envoy route", id)
					}
					need := enabledFilters(t, p)
					for _, r := range mine {
						forwards := r.Route != nil || r.Redirect != nil
						if broken {
							if forwards || r.DirectResponse == nil || r.DirectResponse.Status != wantStatus {
								t.Errorf("%s: broken rule renders %s, want a %d direct response", id, describe(r), wantStatus)
							}
							if len(r.PerFilter) > 0 {
								t.Errorf("%s: broken rule keeps typed_per_filter_config", id)
							}
							continue
						}
						switch {
						case !forwards && (r.DirectResponse == nil || r.DirectResponse.Status != 503):
							t.Errorf("%s: rule with a policy renders %s, want forwarding or 503", id, describe(r))
						case forwards:
							forwardedWithPolicy++
							for _, n := range need {
								if r.PerFilter[n] == nil {
									t.Errorf("%s: route %s forwards without filter %s enabled", id, r.Name, n)
								}
								if !chain[n] {
									t.Errorf("%s: filter %s is not in the HTTP filter chain", id, n)
								}
							}
						}
					}
				}
			}
		})
	}
	if forwardedWithPolicy == 0 {
		t.Error("no rule forwarded with its policy; the working fixture should")
	}
}

// renderedXDS renders c for the render target named ("" for the one each
// Gateway's controller infers) and returns the HTTP filters of every
// connection manager in chain order, every Envoy route, and render's
// findings.
func renderedXDS(t *testing.T, c *pipeline.Compiled, target string) (chain []string, routes []xdsRoute, findings []diag.Diagnostic) {
	t.Helper()
	out, err := envoy.Render(c.Result, envoy.Options{Target: target})
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	raw, err := out.Marshal("json", envoy.TypeAll)
	if err != nil {
		t.Fatal(err)
	}
	var x xds
	if err := json.Unmarshal(raw, &x); err != nil {
		t.Fatal(err)
	}
	for _, g := range x.Gateways {
		for _, l := range g.Listeners {
			for _, fc := range l.FilterChains {
				for _, f := range fc.Filters {
					for _, hf := range f.TypedConfig.HTTPFilters {
						chain = append(chain, hf.Name)
					}
				}
			}
		}
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				routes = append(routes, vh.Routes...)
			}
		}
	}
	return chain, routes, out.Diagnostics
}

// hapticPolicy is the HAProxyRoutePolicy a rule's filters reference, if
// it exists.
func hapticPolicy(c *pipeline.Compiled, rt *topology.Route, rule *topology.Rule) *policy.Policy {
	for _, f := range rule.Filters {
		if f.ExtensionRef != nil && string(f.ExtensionRef.Group) == haptic.Group && string(f.ExtensionRef.Kind) == haptic.KindName {
			if p := c.Policies.Get(model.Key{Group: haptic.Group, Kind: haptic.KindName, Namespace: rt.Meta.Namespace, Name: string(f.ExtensionRef.Name)}); p != nil {
				return p
			}
		}
	}
	return nil
}

// enabledFilters are the per-route filter entries the policy's fields
// need on every route that forwards.
func enabledFilters(t *testing.T, p *policy.Policy) []string {
	if p == nil || !p.IsValid() {
		return nil
	}
	var out []string
	for _, key := range p.SetFields() {
		frags, err := haptic.New().RenderField(policy.FieldInput{Key: key, Values: []any{p.Values[key]}, Contributors: []string{p.ID()}, Scope: policy.ScopeRoute}, nil)
		if err != nil {
			continue // the field cannot render: its routes must answer 503
		}
		for _, fr := range frags {
			for n := range fr.TypedPerFilterConfig {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// routesOf finds the Envoy routes of one rule by render's route naming
// (…-route-<i>-<kind>-<name>-<namespace>-<rule>-…).
func routesOf(routes []xdsRoute, rt *topology.Route, rule *topology.Rule) []xdsRoute {
	tag := "-" + strings.ToLower(rt.Kind) + "-" + rt.Meta.Name + "-" + rt.Meta.Namespace + "-" + strconv.Itoa(rule.Index) + "-"
	var out []xdsRoute
	for _, r := range routes {
		if strings.Contains(r.Name, tag) {
			out = append(out, r)
		}
	}
	return out
}

func describe(r xdsRoute) string {
	switch {
	case r.DirectResponse != nil:
		return "direct_response " + strconv.Itoa(r.DirectResponse.Status)
	case r.Route != nil:
		return "a forwarding route"
	case r.Redirect != nil:
		return "a redirect"
	}
	return "nothing"
}
