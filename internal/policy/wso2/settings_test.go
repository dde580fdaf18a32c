package wso2

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_proc/v3"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policyversion"
)

// section is a wso2: section as policy.Config holds it: each key as
// "wso2.KEY", as the pipeline writes a section's keys.
func sectionConfig(keys map[string]any) policy.Config {
	values := map[string]any{}
	for k, v := range keys {
		values["wso2."+k] = v
	}
	return policy.Config{Values: values}
}

// TestSettings: the wso2: section's keys with the gateway-controller's
// defaults (pkg/config/config.go: defaultConfig), and the errors that name
// a key gwpol does not know or a value of the wrong type.
func TestSettings(t *testing.T) {
	got, err := ParseSettings(policy.Config{})
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{Engine: EngineSettings{Mode: "uds", Host: "policy-engine", Port: 9001, TimeoutMs: 60000, MessageTimeoutMs: 60000, AllowModeOverride: true},
		GatewayClassNames: []string{"wso2-api-platform"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults = %+v, want %+v", got, want)
	}
	got, err = ParseSettings(sectionConfig(map[string]any{
		"analytics":         map[string]any{"enabled": true, "allowPayloads": true},
		"policyEngine":      map[string]any{"mode": "tcp", "host": "10.0.0.7", "port": 9100, "timeoutMs": 250, "messageTimeoutMs": 500.0, "failureModeAllow": true, "allowModeOverride": false},
		"gatewayClassNames": []any{" platform ", "wso2-api-platform"},
	}))
	if err != nil {
		t.Fatal(err)
	}
	want = Settings{Analytics: true, AllowPayloads: true, Engine: EngineSettings{Mode: "tcp", Host: "10.0.0.7", Port: 9100, TimeoutMs: 250, MessageTimeoutMs: 500, FailureModeAllow: true},
		GatewayClassNames: []string{"platform", "wso2-api-platform"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings = %+v, want %+v", got, want)
	}
	got, err = ParseSettings(sectionConfig(map[string]any{"policyEngineAddress": "engine.example:9001"}))
	if err != nil || got.Engine.Mode != EngineTCP || got.Engine.Host != "engine.example" || got.Engine.Port != 9001 {
		t.Errorf("policyEngineAddress = %+v, %v; want tcp engine.example:9001", got.Engine, err)
	}
	for name, keys := range map[string]map[string]any{
		"wso2.unknown":                      {"unknown": true},
		"wso2.analytics.enable":             {"analytics": map[string]any{"enable": true}},
		"wso2.analytics.enabled":            {"analytics": map[string]any{"enabled": "yes"}},
		"wso2.policyEngine.mode":            {"policyEngine": map[string]any{"mode": "pipe"}},
		"wso2.policyEngine.port":            {"policyEngine": map[string]any{"port": 70000}},
		"wso2.policyEngine.timeoutMs":       {"policyEngine": map[string]any{"timeoutMs": 1.5}},
		"wso2.policyEngineAddress and":      {"policyEngineAddress": "a:1", "policyEngine": map[string]any{"mode": "tcp"}},
		"wso2.policyEngine must be a map":   {"policyEngine": "tcp"},
		"wso2.policyEngineAddress \"x\"":    {"policyEngineAddress": "x"},
		"wso2.systemPolicies must be a lis": {"systemPolicies": "analytics"},
		"wso2.gatewayClassNames must be":    {"gatewayClassNames": []any{}},
		"wso2.gatewayClassNames must be a":  {"gatewayClassNames": "wso2"},
	} {
		_, err := ParseSettings(sectionConfig(keys))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: error %v, want one naming %q", keys, err, name)
		}
		if err := Section.Check(keys); err == nil {
			t.Errorf("%v: Section.Check accepts it", keys)
		}
	}
}

// TestRenderFollowsEngineSettings: the rendered ext_proc filter and
// cluster are the gateway-controller's from router.policy_engine
// (createExtProcFilter, createPolicyEngineCluster).
func TestRenderFollowsEngineSettings(t *testing.T) {
	ks := New(definitions(t), nil)
	var values []any
	for _, p := range decode(t, ks, apiPolicies) {
		if p.Obj.Name == "rule" {
			values = append(values, p.Values[FieldChain])
		}
	}
	render := func(keys map[string]any) (*extprocv3.ExternalProcessor, *clusterv3.Cluster) {
		t.Helper()
		frags, err := ks.APIPolicy().RenderField(policy.FieldInput{Key: FieldChain, Values: values}, &policy.Env{Config: sectionConfig(keys)})
		if err != nil || len(frags) != 1 {
			t.Fatalf("%v %v", frags, err)
		}
		f, _ := frags[0].Filter.Typed.(*extprocv3.ExternalProcessor)
		c, _ := frags[0].TypedClusters[0].(*clusterv3.Cluster)
		return f, c
	}
	f, c := render(nil)
	if f.GetGrpcService().GetTimeout().AsDuration() != time.Minute || f.GetMessageTimeout().AsDuration() != time.Minute || f.GetFailureModeAllow() || !f.GetAllowModeOverride() {
		t.Errorf("default filter: %v", f)
	}
	if c.GetType() != clusterv3.Cluster_STATIC || c.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint().GetAddress().GetPipe().GetPath() != EngineSocket {
		t.Errorf("default cluster: %v", c)
	}
	f, c = render(map[string]any{"policyEngine": map[string]any{"mode": "tcp", "timeoutMs": 250, "messageTimeoutMs": 500, "failureModeAllow": true, "allowModeOverride": false}})
	if f.GetGrpcService().GetTimeout().AsDuration() != 250*time.Millisecond || f.GetMessageTimeout().AsDuration() != 500*time.Millisecond || !f.GetFailureModeAllow() || f.GetAllowModeOverride() {
		t.Errorf("filter: %v", f)
	}
	sa := c.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint().GetAddress().GetSocketAddress()
	if c.GetType() != clusterv3.Cluster_STRICT_DNS || sa.GetAddress() != "policy-engine" || sa.GetPortValue() != 9001 {
		t.Errorf("tcp cluster: %v", c)
	}
	if _, c = render(map[string]any{"policyEngineAddress": "10.1.2.3:9009"}); c.GetType() != clusterv3.Cluster_STATIC ||
		c.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint().GetAddress().GetSocketAddress().GetPortValue() != 9009 {
		t.Errorf("policyEngineAddress cluster: %v", c)
	}
}

// TestAnalyticsSystemPolicy: with analytics on, the gateway-controller
// starts every chain with its analytics policy, allow_payloads from
// analytics.allowPayloads, before any other system policy
// (InjectSystemPolicies); with analytics off (its default) it adds none.
func TestAnalyticsSystemPolicy(t *testing.T) {
	ks := New(definitions(t), nil)
	if ch, _ := ks.System(policy.Config{}, nil); ch != nil {
		t.Errorf("analytics off: system chain %v", ch.Refs)
	}
	cfg := sectionConfig(map[string]any{
		"analytics":      map[string]any{"enabled": true, "allowPayloads": true},
		"systemPolicies": []any{map[string]any{"name": "set-headers", "version": "v1"}},
	})
	ch, diags := ks.System(cfg, nil)
	if ch == nil || len(ch.Refs) != 2 {
		t.Fatalf("system chain %v", ch)
	}
	first := ch.Refs[0]
	var params map[string]any
	_ = json.Unmarshal(first.Params, &params)
	if first.Name != AnalyticsPolicyName || first.Version != AnalyticsPolicyVersion || params["allow_payloads"] != true || ch.Refs[1].Name != "set-headers" {
		t.Errorf("system chain: %s %s %v, then %s", first.Name, first.Version, params, ch.Refs[1].Name)
	}
	// The definitions here lack the analytics policy: the engine would not
	// find it, and gwpol says so at the setting.
	if len(diags) == 0 || diags[0].Code != policyversion.LintNoDefinitionForMajor.Code {
		t.Errorf("findings: %v", diags)
	}
}
