package envoygateway

import (
	"fmt"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

func TestCalledBackends(t *testing.T) {
	tests := []struct {
		kind *Kind
		spec string
		want string
	}{
		{securityPolicy, "  extAuth: {grpc: {backendRefs: [{name: auth, port: 9000}]}}\n", "[/Service/app/auth]"},
		{securityPolicy, "  extAuth: {http: {backendRef: {name: auth, namespace: infra, port: 80}}}\n", "[/Service/infra/auth]"},
		{securityPolicy, "  jwt: {providers: [{name: p, remoteJWKS: {uri: 'https://j.example.com/jwks', backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: jwks}]}}]}\n",
			"[gateway.envoyproxy.io/Backend/app/jwks]"},
		{securityPolicy, "  oidc: {provider: {issuer: 'https://i.example.com', backendRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: idp, port: 443}]}}\n",
			"[multicluster.x-k8s.io/ServiceImport/app/idp]"},
		{envoyExtensionPolicy, "  extProc: [{backendRefs: [{name: a, port: 1}, {name: b, port: 2}, {name: a, port: 1}]}]\n", "[/Service/app/a /Service/app/b]"},
		{securityPolicy, "  cors: {allowOrigins: ['*']}\n", "[]"},
		{backendTrafficPolicy, "  timeout: {tcp: {connectTimeout: 5s}}\n", "[]"},
	}
	for _, tt := range tests {
		doc := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: " + tt.kind.name + "\nmetadata: {name: p, namespace: app}\nspec:\n" + tt.spec
		objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
		if err != nil || len(objs) != 1 {
			t.Fatalf("parse: %v", err)
		}
		p := tt.kind.Decode(objs[0], &policy.Env{Model: model.Build(&manifest.Set{Objects: objs}, model.Options{})})
		var got []string
		for _, k := range tt.kind.CalledBackends(p) {
			got = append(got, k.Group+"/"+k.Kind+"/"+k.Namespace+"/"+k.Name)
		}
		if s := fmt.Sprint(got); s != tt.want {
			t.Errorf("%s %q: got %s, want %s", tt.kind.name, tt.spec, s, tt.want)
		}
	}
}
