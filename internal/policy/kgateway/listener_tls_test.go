package kgateway

import (
	"encoding/json"
	"testing"

	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"github.com/google/go-cmp/cmp"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestListenerClientCertValidation: a ListenerPolicy's client
// certificate validation requires a certificate unless Optional, and
// names its CAs without reading them: one Secret's ca.crt by the file it
// is mounted at, any other bundle by placeholders.
func TestListenerClientCertValidation(t *testing.T) {
	tests := []struct {
		name, spec string
		require    bool
		file, ca   string
	}{
		{"one Secret", `{"caCertificateRefs": [{"kind": "Secret", "name": "ca"}]}`, true, "/etc/envoy/secrets/infra/ca/ca.crt", ""},
		{"optional, a ConfigMap elsewhere", `{"mode": "Optional", "caCertificateRefs": [{"kind": "ConfigMap", "name": "ca", "namespace": "certs"}]}`, false, "", "${configmap:certs/ca#ca.crt}"},
		{"two", `{"mode": "Require", "caCertificateRefs": [{"kind": "Secret", "name": "a"}, {"kind": "ConfigMap", "name": "b"}]}`, true, "",
			"${secret:infra/a#ca.crt}\n${configmap:infra/b#ca.crt}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c ClientCertificateValidationConfig
			if err := json.Unmarshal([]byte(tt.spec), &c); err != nil {
				t.Fatal(err)
			}
			frs, err := ListenerKind{}.RenderField(policy.FieldInput{Key: keyClientCertValidation, Values: []any{&c}, Namespaces: []string{"infra"}}, &policy.Env{})
			if err != nil || len(frs) != 1 {
				t.Fatalf("fragments %v, err %v; want one", frs, err)
			}
			tls, ok := frs[0].DownstreamTLS.(*tlsv3.DownstreamTlsContext)
			if !ok {
				t.Fatalf("TLS settings are a %T", frs[0].DownstreamTLS)
			}
			ca := tls.GetCommonTlsContext().GetValidationContext().GetTrustedCa()
			got := []any{tls.GetRequireClientCertificate().GetValue(), ca.GetFilename(), ca.GetInlineString()}
			if diff := cmp.Diff([]any{tt.require, tt.file, tt.ca}, got); diff != "" {
				t.Errorf("require, file, inline CA (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := (ListenerKind{}).RenderField(policy.FieldInput{Key: keyClientCertValidation, Values: []any{&ClientCertificateValidationConfig{}}}, &policy.Env{}); err == nil {
		t.Error("a validation naming no CA rendered")
	}
}

// TestListenerPerPort: a perPort entry decodes to the key
// perPortPolicy[<port>] and renders its settings as the default section's
// would, for its port only.
func TestListenerPerPort(t *testing.T) {
	raw := `{"spec": {"targetRefs": [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}],
	  "default": {"proxyProtocol": {}},
	  "perPort": [{"port": 8080, "listener": {"perConnectionBufferLimitBytes": 65536, "transportSocketConnectTimeout": "5s"}}]}}`
	var lp ListenerPolicy
	if err := json.Unmarshal([]byte(raw), &lp); err != nil {
		t.Fatal(err)
	}
	if got := perPortKey(lp.Spec.PerPort[0].Port); got != "perPortPolicy[8080]" {
		t.Fatalf("key %q", got)
	}
	for key, want := range map[string]int32{"perPortPolicy[8080]": 8080, "default.proxyProtocol": 0, "perPortPolicy[x]": 0} {
		if got := (ListenerKind{}).FieldPort(key); got != want {
			t.Errorf("FieldPort(%q) = %d, want %d", key, got, want)
		}
	}
	in := policy.FieldInput{Key: "perPortPolicy[8080]", Values: []any{&lp.Spec.PerPort[0].Listener}, Contributors: []string{"gateway.kgateway.dev/ListenerPolicy/infra/p"}}
	frs, err := ListenerKind{}.RenderField(in, &policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	var limit, timeout bool
	for _, fr := range frs {
		if fr.Port != 8080 {
			t.Errorf("fragment for port %d, want 8080", fr.Port)
		}
		if l, ok := fr.Listener.(*listenerv3.Listener); ok && l.GetPerConnectionBufferLimitBytes().GetValue() == 65536 {
			limit = true
		}
		if c, ok := fr.FilterChain.(*listenerv3.FilterChain); ok && c.GetTransportSocketConnectTimeout().AsDuration().String() == "5s" {
			timeout = true
		}
	}
	if !limit || !timeout {
		t.Errorf("buffer limit %v, connect timeout %v; want both in %v", limit, timeout, frs)
	}
}
