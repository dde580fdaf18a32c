package envoygateway

import (
	"encoding/json"
	"testing"

	apikeyauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/api_key_auth/v3"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// apiKeySecrets are the credential Secrets TestRenderAPIKeyAuth's
// policies name: two in the policy's namespace sharing the client b,
// one in another namespace.
const apiKeySecrets = `apiVersion: v1
kind: Secret
metadata: {name: keys-1, namespace: default}
data: {c: eDE=, a: eDI=}
---
apiVersion: v1
kind: Secret
metadata: {name: keys-2, namespace: default}
stringData: {b: y3, a: y4}
---
apiVersion: v1
kind: Secret
metadata: {name: shared, namespace: auth}
data: {z: eDU=}
`

// TestRenderAPIKeyAuth: Envoy Gateway's api_key_auth filter, one for the
// chain (named after its type, disabled there), the route's own
// configuration listing the credentials — each data key of the
// credentialRefs Secrets a client, in the refs' order and each Secret's
// keys sorted, a client listed already skipped — with the key a
// placeholder naming its Secret (gwpol never reads Secret data), the
// key sources of extractFrom (headers, params, cookies per entry) and the
// forwarding where forwardClientIDHeader or sanitize ask for it. A Secret
// the input lacks (assumed to exist) leaves the clients unknown:
// unsupported, with the reason (before: every apiKeyAuth was GWP404).
func TestRenderAPIKeyAuth(t *testing.T) {
	objs, err := manifest.Parse("s.yaml", []byte(apiKeySecrets), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	reg := policy.NewRegistry(All()...)
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds(), AssumeExist: []string{"Secret"}})
	who := policyName{kind: "securitypolicy", namespace: "default", name: "p"}
	for _, tc := range []struct {
		name, in   string
		want       string // the route's ApiKeyAuthPerRoute, as protojson
		capability string
	}{
		{name: "two Secrets sharing a client, sources of every kind, the client ID forwarded",
			in: `{"credentialRefs":[{"name":"keys-1"},{"name":"keys-2"}],"extractFrom":[{"cookies":["k"]},{"headers":["x-api-key","x-key"]},{"params":["key"]}],"forwardClientIDHeader":"x-client"}`,
			want: `{"credentials":[{"key":"${secret:default/keys-1#a}","client":"a"},{"key":"${secret:default/keys-1#c}","client":"c"},{"key":"${secret:default/keys-2#b}","client":"b"}],` +
				`"keySources":[{"cookie":"k"},{"header":"x-api-key"},{"header":"x-key"},{"query":"key"}],"forwarding":{"header":"x-client"}}`},
		{name: "a Secret in another namespace, the key hidden only",
			in:   `{"credentialRefs":[{"name":"shared","namespace":"auth"}],"extractFrom":[{"headers":["k"]}],"sanitize":true}`,
			want: `{"credentials":[{"key":"${secret:auth/shared#z}","client":"z"}],"keySources":[{"header":"k"}],"forwarding":{"hideCredentials":true}}`},
		{name: "sanitize false and no header: no forwarding",
			in:   `{"credentialRefs":[{"name":"keys-2"}],"extractFrom":[{"params":["p"]}],"sanitize":false}`,
			want: `{"credentials":[{"key":"${secret:default/keys-2#a}","client":"a"},{"key":"${secret:default/keys-2#b}","client":"b"}],"keySources":[{"query":"p"}]}`},
		{name: "a Secret assumed to exist", in: `{"credentialRefs":[{"name":"keys-1"},{"name":"elsewhere"}],"extractFrom":[{"headers":["k"]}]}`,
			capability: "envoygateway.SecurityPolicy.apiKeyAuth.credentialRefs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := raw3(renderAPIKeyAuth)(json.RawMessage(tc.in), who, m)
			if err != nil || len(frags) != 1 {
				t.Fatalf("got %v, %v", frags, err)
			}
			f := frags[0]
			if tc.capability != "" {
				if f.Capability != tc.capability || f.Reason == "" {
					t.Errorf("capability %q (reason %q), want %q with a reason", f.Capability, f.Reason, tc.capability)
				}
				return
			}
			if f.Capability != "api_key_auth" || f.Filter == nil || f.Filter.Name != apiKeyAuthFilter || f.Filter.Enabled {
				t.Fatalf("fragment %+v, want the chain's disabled %s", f, apiKeyAuthFilter)
			}
			per, ok := f.TypedPerFilterConfig[apiKeyAuthFilter].(*apikeyauthv3.ApiKeyAuthPerRoute)
			if !ok {
				t.Fatalf("route config %T", f.TypedPerFilterConfig[apiKeyAuthFilter])
			}
			b, err := protojson.Marshal(per)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := compactJSON(t, string(b)), compactJSON(t, tc.want); got != want {
				t.Errorf("route config\n got %s\nwant %s", got, want)
			}
			chain, ok := f.Filter.Typed.(*apikeyauthv3.ApiKeyAuth)
			if !ok || len(chain.GetCredentials()) != len(per.GetCredentials()) || len(chain.GetKeySources()) != len(per.GetKeySources()) {
				t.Errorf("chain config %v, want the route's", f.Filter.Typed)
			}
		})
	}
}
