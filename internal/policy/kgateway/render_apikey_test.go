package kgateway

import (
	"strings"
	"testing"

	apikeyauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/api_key_auth/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestAPIKeyCredentialsAsWritten: the credentials an apiKeyAuth writes
// are kgateway's (constructAPIKeyAuth, dedupeAPIKeyCredentials): sorted
// by client across every selected Secret — not Secret by Secret —, an
// empty entry left out, the same client with the same key in two Secrets
// written once; a Secret whose content is not in the input is listed by
// its keys.
func TestAPIKeyCredentialsAsWritten(t *testing.T) {
	sec := func(ns, name, data string) string {
		return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: " + ns + ", labels: {team: pay}}\n" + data + "\n"
	}
	tests := []struct {
		name    string
		secrets string
		want    []string // client@ns/name, in order
	}{
		{"clients sorted across Secrets", sec("shop", "a", "stringData: {zed: k-1, bob: k-2}") + sec("shop", "b", "stringData: {amy: k-3}"),
			[]string{"amy@shop/b", "bob@shop/a", "zed@shop/a"}},
		{"an empty entry left out", sec("shop", "a", "stringData: {amy: k-1, bob: \"\"}"),
			[]string{"amy@shop/a"}},
		{"the same client and key in two Secrets once", sec("shop", "a", "stringData: {amy: k-1}") + sec("shop", "b", "stringData: {amy: k-1, bob: k-2}"),
			[]string{"amy@shop/a", "bob@shop/b"}},
		{"one client, two keys: both, by key value", sec("shop", "a", "stringData: {amy: k-9}") + sec("shop", "b", "stringData: {amy: k-1}"),
			[]string{"amy@shop/b", "amy@shop/a"}},
		{"a Secret written with metadata only beside one read: keys as listed", sec("shop", "a", "stringData: {bob: \"\"}") + sec("shop", "b", ""),
			[]string{"bob@shop/a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Parse("inline.yaml", []byte(tt.secrets), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{})
			env := &policy.Env{Model: m, Config: policy.Config{}}
			v := &APIKeyAuth{SecretSelector: &LabelSelector{MatchLabels: map[string]string{"team": "pay"}}}
			frs, err := Kind{}.RenderField(policy.FieldInput{Key: "apiKeyAuth", Values: []any{v}, Namespaces: []string{"shop"}}, env)
			if err != nil {
				t.Fatal(err)
			}
			per, ok := frs[0].TypedPerFilterConfig["envoy.filters.http.api_key_auth"].(*apikeyauthv3.ApiKeyAuthPerRoute)
			if !ok {
				t.Fatalf("per-route config %v", frs[0].TypedPerFilterConfig)
			}
			var got []string
			for _, c := range per.GetCredentials() {
				ref := strings.TrimSuffix(strings.TrimPrefix(c.GetKey(), "${secret:"), "#"+c.GetClient()+"}")
				got = append(got, c.GetClient()+"@"+ref)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("credentials %v, want %v", got, tt.want)
			}
		})
	}
}
