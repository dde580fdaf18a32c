package envoygateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestBackendObjectStatus: the status Envoy Gateway writes on a Backend
// itself (ProcessBackends), whichever routes use it: Accepted False
// when Backends are disabled or validateBackend refuses it, with the
// finding at the field at fault; Accepted True otherwise.
func TestBackendObjectStatus(t *testing.T) {
	tests := []struct {
		name, spec string
		cfg        map[string]any
		message    string // "" for accepted
		field      string
	}{
		{name: "disabled", spec: "{endpoints: [{fqdn: {hostname: api.example.com, port: 80}}]}", cfg: map[string]any{},
			message: "The Backend was not accepted since Backend is not enabled in Envoy Gateway Config", field: "kind"},
		{name: "accepted", spec: "{endpoints: [{fqdn: {hostname: api.example.com, port: 80}}]}"},
		{name: "second endpoint's address", spec: "{endpoints: [{ip: {address: 10.0.0.1, port: 80}}, {ip: {address: 127.0.0.1, port: 80}}]}",
			message: "The Backend was not accepted: IP address 127.0.0.1 in the loopback range is only supported when using the Host infrastructure", field: "spec.endpoints[1].ip.address"},
		{name: "loopback on the host", spec: "{endpoints: [{ip: {address: 127.0.0.1, port: 80}}, {fqdn: {hostname: jaeger, port: 80}}]}",
			cfg: map[string]any{EnableBackend.Key: true, RunningOnHost.Key: true}},
		{name: "endpoint hostname", spec: "{endpoints: [{hostname: 'a_b.example.com', ip: {address: 10.0.0.1, port: 80}}]}",
			message: "The Backend was not accepted: hostname a_b.example.com is not a valid hostname", field: "spec.endpoints[0].hostname"},
		{name: "tls without a CA", spec: "{tls: {sni: x.example.com}, endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]}",
			message: "The Backend was not accepted: must specify either CACertificateRefs or WellKnownCACertificates when InsecureSkipVerify is unset or false", field: "spec.tls"},
		{name: "dynamic resolver with endpoints", spec: "{type: DynamicResolver, endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]}",
			message: "The Backend was not accepted: DynamicResolver type cannot have endpoints specified", field: "spec.endpoints"},
		{name: "a Unix socket is the backendRef's check", spec: "{endpoints: [{unix: {path: /var/run/s.sock}}]}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: ns}\nspec: " + tc.spec + "\n"
			objs, err := manifest.Parse("b.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			reg := policy.NewRegistry(All()...)
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
			cfg := policy.Config{Values: tc.cfg}
			if tc.cfg == nil {
				cfg = extensionsOn(policy.Config{})
			}
			env := &policy.Env{Model: m, Config: cfg}
			vs := Family.ObjectVerdicts(env, reg.Decode(env))
			got := backendCondition(t, vs)
			want := tc.message
			if want == "" {
				want = "The Backend was accepted"
			}
			if got != want {
				t.Errorf("message %q, want %q", got, want)
			}
			if vs[0].Object != (model.Key{Group: Group, Kind: "Backend", Namespace: "ns", Name: "b"}) {
				t.Errorf("object %v", vs[0].Object)
			}
			if tc.message == "" {
				return
			}
			d := vs[0].Diagnostics[0]
			if d.Code != LintBackendNotAccepted.Code || d.Field != tc.field || d.Pos.Line == 0 {
				t.Errorf("finding %s at %q (line %d), want %s at %q", d.Code, d.Field, d.Pos.Line, LintBackendNotAccepted.Code, tc.field)
			}
		})
	}
}
