package topology

import (
	"strconv"
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

// TestFrontendCAContent: a frontend validation CA (Gateway
// spec.tls.frontend) is checked for what it holds, as kgateway's
// GetCACertFromConfigMap / GetCACertFromSecret check it: a ca.crt of PEM
// certificates. One that does not parse, or lacks ca.crt, leaves the
// listener without the validation it asks for, as a missing one does; a
// ConfigMap or Secret with no data in the input is taken as valid.
func TestFrontendCAContent(t *testing.T) {
	cert, _ := secrettest.KeyPair()
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  tls:
    frontend:
      default:
        validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: good}]}
      perPort:
      - {port: 8443, tls: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: garbled}]}}}
      - {port: 8444, tls: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: no-ca-key}]}}}
      - {port: 8445, tls: {validation: {caCertificateRefs: [{group: "", kind: Secret, name: garbled-secret}]}}}
      - {port: 8446, tls: {validation: {caCertificateRefs: [{group: "", kind: Secret, name: good-secret}]}}}
      - {port: 8447, tls: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: metadata-only}]}}}
  listeners:
  - {name: good, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}]}}
  - {name: garbled, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: cert}]}}
  - {name: no-ca-key, protocol: HTTPS, port: 8444, tls: {certificateRefs: [{name: cert}]}}
  - {name: garbled-secret, protocol: HTTPS, port: 8445, tls: {certificateRefs: [{name: cert}]}}
  - {name: good-secret, protocol: HTTPS, port: 8446, tls: {certificateRefs: [{name: cert}]}}
  - {name: metadata-only, protocol: HTTPS, port: 8447, tls: {certificateRefs: [{name: cert}]}}`
	cm := func(name, data string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: infra}\n" + data
	}
	g := graph(t, Options{}, gw, "apiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: infra}",
		cm("good", "data: {ca.crt: "+strconv.Quote(cert)+"}"),
		cm("garbled", "data: {ca.crt: \"-----BEGIN CERTIFICATE-----\\n-----END CERTIFICATE-----\\n\"}"),
		cm("no-ca-key", "data: {other: x}"),
		cm("metadata-only", ""),
		secrettest.SecretYAML("infra", "garbled-secret", "ca.crt", "GWPOL-MARKER"),
		secrettest.SecretYAML("infra", "good-secret", "ca.crt", cert))
	for _, tc := range []struct{ listener, refs, message string }{
		{"good", "True/ResolvedRefs", ""},
		{"garbled", "False/InvalidCACertificateRef", "invalid ca.crt in ConfigMap infra/garbled: x509: PEM block 1 (CERTIFICATE) does not parse"},
		{"no-ca-key", "False/InvalidCACertificateRef", "failed to extract CA certificate from ConfigMap infra/no-ca-key: ca.crt key missing"},
		{"garbled-secret", "False/InvalidCACertificateRef", "invalid ca.crt in Secret infra/garbled-secret: data does not contain any valid RSA or ECDSA certificates"},
		{"good-secret", "True/ResolvedRefs", ""},
		{"metadata-only", "True/ResolvedRefs", ""},
	} {
		t.Run(tc.listener, func(t *testing.T) {
			l := g.Gateway("infra", "gw").Listener(tc.listener)
			r := findCond(l.Conditions, "ResolvedRefs")
			if got := string(r.Status) + "/" + r.Reason; got != tc.refs || !strings.Contains(r.Message, tc.message) {
				t.Errorf("ResolvedRefs = %s (%s), want %s saying %q", got, r.Message, tc.refs, tc.message)
			}
			if strings.Contains(r.Message, "MARKER") {
				t.Errorf("the message quotes the Secret: %s", r.Message)
			}
			if served := l.Unserved == ""; served != (tc.message == "") {
				t.Errorf("served = %v (%q)", served, l.Unserved)
			}
		})
	}
}

// TestFrontendCARule: with one usable frontend CA and one missing, the
// Gateway API's rule (NoUsableCARefuses, the verdict of a Gateway whose
// controller judges no listener of its own) reports ResolvedRefs False
// and serves the listener, validating with the usable CA; a controller
// refusing on any unusable CA (AnyUnusableCARefuses) refuses it and
// serves none of it. With no usable CA both refuse.
func TestFrontendCARule(t *testing.T) {
	cert, _ := secrettest.KeyPair()
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: other
  tls:
    frontend:
      default:
        validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: good}, {group: "", kind: ConfigMap, name: missing}]}
      perPort:
      - {port: 8443, tls: {validation: {caCertificateRefs: [{group: "", kind: ConfigMap, name: missing}]}}}
  listeners:
  - {name: mixed, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}]}}
  - {name: none, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: cert}]}}`
	g := graph(t, Options{}, gw, "apiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: infra}",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: good, namespace: infra}\ndata: {ca.crt: "+strconv.Quote(cert)+"}")
	for _, tc := range []struct {
		listener string
		rule     CARule
		accepted string
		served   bool
	}{
		{"mixed", NoUsableCARefuses, "True/Accepted", true},
		{"mixed", AnyUnusableCARefuses, "False/NoValidCACertificate", false},
		{"none", NoUsableCARefuses, "False/NoValidCACertificate", false},
		{"none", AnyUnusableCARefuses, "False/NoValidCACertificate", false},
	} {
		l := g.Gateway("infra", "gw").Listener(tc.listener)
		l.Unserved = ""
		accepted, _, refs := g.TLSConditions(l, Cond("Accepted", true, "Accepted", "Listener is accepted"), true, Cond("ResolvedRefs", true, "ResolvedRefs", "All references resolved"), tc.rule)
		if got := string(accepted.Status) + "/" + accepted.Reason; got != tc.accepted {
			t.Errorf("%s under rule %d: Accepted %s, want %s", tc.listener, tc.rule, got, tc.accepted)
		}
		if refs.Status != "False" || refs.Reason != "InvalidCACertificateRef" || !strings.Contains(refs.Message, "ConfigMap infra/missing not found") {
			t.Errorf("%s under rule %d: ResolvedRefs %s/%s (%s), want False/InvalidCACertificateRef naming infra/missing", tc.listener, tc.rule, refs.Status, refs.Reason, refs.Message)
		}
		if served := l.Unserved == ""; served != tc.served {
			t.Errorf("%s under rule %d: served = %v, want %v", tc.listener, tc.rule, served, tc.served)
		}
	}
	if usable, ok, _, _ := g.FrontendCAs(g.Gateway("infra", "gw").Listener("mixed")); ok || len(usable) != 1 || usable[0].Name != "good" {
		t.Errorf("FrontendCAs(mixed) = %v, %v; want [good], not all usable", usable, ok)
	}
	// The graph's own verdict (no registered controller) is the Gateway API's.
	if l := g.Gateway("infra", "gw").Listener("mixed"); findCond(l.Conditions, "Accepted").Status != "True" {
		t.Errorf("mixed: Accepted %+v, want True under the Gateway API's rule", findCond(l.Conditions, "Accepted"))
	}
}
