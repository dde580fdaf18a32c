package topology

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/secret/secrettest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestListenerCertificateContent: an HTTPS listener's certificate Secret
// is checked as kgateway's sslutils.ValidateTlsSecretData checks it
// (through internal/secret): tls.crt and tls.key must be a PEM pair, a
// Secret holding only ca.crt passes, and one whose data is not in the
// input (metadata only, or assumeExist) is taken as valid. A bad
// certificate is InvalidCertificateRef like a missing one; its message
// names the Secret and what is wrong, never the content.
func TestListenerCertificateContent(t *testing.T) {
	cert, key := secrettest.KeyPair()
	_, otherKey := secrettest.KeyPair()
	const marker = "GWPOL-MARKER"
	listener := func(name, secretName string) string {
		return "  - name: " + name + "\n    port: 443\n    protocol: HTTPS\n    hostname: " + name + ".example.com\n    tls: {certificateRefs: [{name: " + secretName + "}]}\n"
	}
	gw := "apiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: cls\n  listeners:\n" +
		listener("pair", "pair") + listener("no-key", "no-key") + listener("key-not-pem", "key-not-pem") + listener("other-key", "other-key") +
		listener("ca-only", "ca-only") + listener("metadata-only", "metadata-only") + listener("assumed", "assumed") +
		"  - name: one-bad\n    port: 443\n    protocol: HTTPS\n    hostname: one-bad.example.com\n    tls: {certificateRefs: [{name: pair}, {name: no-key}]}\n"
	docs := []string{gw,
		secrettest.SecretYAML("infra", "pair", "tls.crt", cert, "tls.key", key),
		secrettest.SecretYAML("infra", "no-key", "tls.crt", cert),
		secrettest.SecretYAML("infra", "key-not-pem", "tls.crt", cert, "tls.key", marker),
		secrettest.SecretYAML("infra", "other-key", "tls.crt", cert, "tls.key", otherKey),
		secrettest.SecretYAML("infra", "ca-only", "ca.crt", cert),
		"apiVersion: v1\nkind: Secret\nmetadata: {name: metadata-only, namespace: infra}\ntype: kubernetes.io/tls\n",
	}
	objs, err := manifest.Parse("in.yaml", []byte(strings.Join(docs, "\n---\n")), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	g := Build(model.Build(&manifest.Set{Objects: objs}, model.Options{AssumeExist: []string{"Secret"}}), Options{Keys: kgatewayKeys})
	for _, tc := range []struct {
		listener, refs, accepted, message string
	}{
		{"pair", "True/ResolvedRefs", "True/Accepted", ""},
		{"no-key", "False/InvalidCertificateRef", "False/Invalid", "invalid TLS secret infra/no-key: tls: failed to find any PEM data in key input"},
		{"key-not-pem", "False/InvalidCertificateRef", "False/Invalid", "invalid TLS secret infra/key-not-pem: tls: failed to find any PEM data in key input"},
		{"other-key", "False/InvalidCertificateRef", "False/Invalid", "tls: private key does not match public key"},
		{"ca-only", "True/ResolvedRefs", "True/Accepted", ""},
		{"metadata-only", "True/ResolvedRefs", "True/Accepted", ""},
		{"assumed", "True/ResolvedRefs", "True/Accepted", ""},
		// one of two certificates bad: served with the other, reported Invalid
		{"one-bad", "False/InvalidCertificateRef", "True/Invalid", "invalid TLS secret infra/no-key"},
	} {
		t.Run(tc.listener, func(t *testing.T) {
			l := g.Gateway("infra", "gw").Listener(tc.listener)
			refs, acc := findCond(l.Conditions, "ResolvedRefs"), findCond(l.Conditions, "Accepted")
			if got := string(refs.Status) + "/" + refs.Reason; got != tc.refs {
				t.Errorf("ResolvedRefs = %s (%s), want %s", got, refs.Message, tc.refs)
			}
			if got := string(acc.Status) + "/" + acc.Reason; got != tc.accepted {
				t.Errorf("Accepted = %s (%s), want %s", got, acc.Message, tc.accepted)
			}
			if !strings.Contains(refs.Message, tc.message) {
				t.Errorf("message %q does not say %q", refs.Message, tc.message)
			}
			for _, c := range l.Conditions {
				if strings.Contains(c.Message, marker) || strings.Contains(c.Message, "BEGIN") {
					t.Errorf("%s quotes the Secret: %s", c.Type, c.Message)
				}
			}
			if served := l.Unserved == ""; served != (acc.Status == metav1.ConditionTrue) {
				t.Errorf("served = %v (%q)", served, l.Unserved)
			}
		})
	}
}
