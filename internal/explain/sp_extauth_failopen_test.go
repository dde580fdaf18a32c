package explain_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// TestSecurityPolicyExtAuthFailOpen: where ext auth is the only part of a
// SecurityPolicy that does not translate and it sets failOpen, Envoy
// Gateway leaves ext auth out and applies the rest with no 500
// (translateSecurityPolicyForRoute, …ForListeners: shouldFailOpen); the
// policy is still Invalid. Any other error, or failOpen unset, answers
// 500. On a route and on a Gateway alike.
func TestSecurityPolicyExtAuthFailOpen(t *testing.T) {
	base := egRoute + `---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: sp, namespace: app}
spec:
  cors: {allowOrigins: ["https://a.example.com"]}
`
	const (
		onRoute   = "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n"
		onGateway = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n"
		missing   = "  extAuth: {http: {backendRefs: [{name: gone, port: 9000}]}, failOpen: true}\n"
	)
	tests := []struct {
		name, spec string
		valid      bool
		answers    int  // 0: forwarded
		extAuth    bool // ext auth in effect
	}{
		{"on a route, ext auth fails open: the rest applies", onRoute + missing, false, 0, false},
		{"on a Gateway, ext auth fails open: the rest applies", onGateway + missing, false, 0, false},
		{"failOpen unset: 500", onRoute + "  extAuth: {http: {backendRefs: [{name: gone, port: 9000}]}}\n", false, 500, false},
		{"another part fails too: 500", onRoute + missing + "  basicAuth: {users: {name: nobody}}\n", false, 500, false},
		{"ext auth that translates is in effect", onRoute + "  extAuth: {http: {backendRefs: [{name: svc, port: 8080}]}, failOpen: true}\n", true, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Parse("t.yaml", []byte(base+tt.spec), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
			var sp bool
			for _, p := range c.Policies.Policies {
				if p.Obj.Name == "sp" {
					sp = true
					if p.IsValid() != tt.valid {
						t.Errorf("valid = %v, want %v (%v)", p.IsValid(), tt.valid, p.Invalid)
					}
				}
			}
			if !sp {
				t.Fatal("no SecurityPolicy sp")
			}
			rt := c.Graph.Route("HTTPRoute", "app", "r")
			got := explain.Rule(c.Result, rt, rt.Rules[0], c.Graph.Gateway("app", "gw").Listeners[0], explain.Options{})
			answers := got.FixedStatus
			if slices.ContainsFunc(got.Notes, func(n string) bool { return strings.Contains(n, "replaced by a direct response (500)") }) {
				answers = 500
			}
			cors, extAuth := false, false
			for _, f := range got.Fields {
				switch f.Field {
				case "cors":
					cors = true
				case "extAuth":
					extAuth = true
				}
			}
			if answers != tt.answers || extAuth != tt.extAuth || (answers == 0 && !cors) {
				t.Errorf("answers %d, ext auth %v, cors %v; want %d, %v, true (fields %+v, notes %v)", answers, extAuth, cors, tt.answers, tt.extAuth, got.Fields, got.Notes)
			}
		})
	}
}
