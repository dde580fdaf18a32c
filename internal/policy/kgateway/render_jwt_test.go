package kgateway

import (
	"testing"

	matchingv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/matching/v3"
	compositev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/composite/v3"
	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestJWTRequirements: the requirement a jwt extension's filter is given
// is kgateway's (buildJwtRequirementFromProviders): its providers sorted
// by name, one alone or else any of them, and under AllowMissing that
// requirement as one alternative beside allow_missing — a list of
// providers stays a nested requires_any.
func TestJWTRequirements(t *testing.T) {
	provider := func(name string) string {
		return "    - {name: " + name + ", issuer: https://" + name + ".example, jwks: {remote: {url: https://" + name + ".example/jwks, backendRef: {name: idp, port: 443}}}}\n"
	}
	tests := []struct {
		name      string
		providers []string
		mode      string
		want      string // the requirement's shape
	}{
		{"one provider", []string{"zeta"}, "", "jwt_infra_zeta"},
		{"two providers, listed out of order: sorted", []string{"zeta", "alpha"}, "", "any(jwt_infra_alpha,jwt_infra_zeta)"},
		{"one provider, AllowMissing", []string{"zeta"}, "AllowMissing", "any(jwt_infra_zeta,allow_missing)"},
		{"two providers, AllowMissing: nested", []string{"zeta", "alpha"}, "AllowMissing", "any(any(jwt_infra_alpha,jwt_infra_zeta),allow_missing)"},
		{"two providers, Strict", []string{"b", "a"}, "Strict", "any(jwt_infra_a,jwt_infra_b)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := "apiVersion: gateway.kgateway.dev/v1alpha1\nkind: GatewayExtension\nmetadata: {name: jwt, namespace: infra}\nspec:\n  type: JWT\n  jwt:\n"
			if tt.mode != "" {
				doc += "    validationMode: " + tt.mode + "\n"
			}
			doc += "    providers:\n"
			for _, p := range tt.providers {
				doc += provider(p)
			}
			objs, err := manifest.Parse("inline.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: map[model.GroupKind]bool{{Group: Group, Kind: KindGatewayExtension}: true}})
			env := &policy.Env{Model: m, Config: policy.Config{}}
			v := &JWTAuth{ExtensionRef: &NamespacedObjectReference{Name: "jwt"}}
			frs, err := Kind{}.RenderField(policy.FieldInput{Key: "jwt", Values: []any{v}, Namespaces: []string{"infra"}}, env)
			if err != nil {
				t.Fatal(err)
			}
			var cfg *jwtv3.JwtAuthentication
			for _, fr := range frs {
				if fr.Filter != nil && fr.Filter.Name == "jwt/infra/jwt" {
					cfg = jwtConfigOf(t, fr.Filter.Typed)
				}
			}
			if cfg == nil {
				t.Fatalf("no jwt filter in %v", frs)
			}
			if got := requirementShape(cfg.GetRequirementMap()["jwt_infra_requirements"]); got != tt.want {
				t.Errorf("requirement %s, want %s", got, tt.want)
			}
		})
	}
}

// requirementShape writes a requirement compactly: a provider's name,
// any(…), allow_missing.
func requirementShape(r *jwtv3.JwtRequirement) string {
	switch {
	case r.GetProviderName() != "":
		return r.GetProviderName()
	case r.GetAllowMissing() != nil:
		return "allow_missing"
	case r.GetRequiresAny() != nil:
		s := "any("
		for i, c := range r.GetRequiresAny().GetRequirements() {
			if i > 0 {
				s += ","
			}
			s += requirementShape(c)
		}
		return s + ")"
	}
	return "?"
}

// jwtConfigOf unwraps the JwtAuthentication inside the composite filter
// kgateway wraps jwt_authn in (unlessDisabled).
func jwtConfigOf(t *testing.T, m proto.Message) *jwtv3.JwtAuthentication {
	t.Helper()
	ext, ok := m.(*matchingv3.ExtensionWithMatcher)
	if !ok {
		t.Fatalf("filter config %T", m)
	}
	action, err := ext.GetXdsMatcher().GetMatcherList().GetMatchers()[0].GetOnMatch().GetAction().GetTypedConfig().UnmarshalNew()
	if err != nil {
		t.Fatal(err)
	}
	exec, ok := action.(*compositev3.ExecuteFilterAction)
	if !ok {
		t.Fatalf("action %T", action)
	}
	inner, err := exec.GetTypedConfig().GetTypedConfig().UnmarshalNew()
	if err != nil {
		t.Fatal(err)
	}
	cfg, ok := inner.(*jwtv3.JwtAuthentication)
	if !ok {
		t.Fatalf("inner %T", inner)
	}
	return cfg
}
