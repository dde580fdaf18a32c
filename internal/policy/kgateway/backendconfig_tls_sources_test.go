package kgateway

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// testKeyPair is a fresh self-signed ECDSA certificate and its key, PEM.
func testKeyPair(t *testing.T) (certPEM, keyPEM string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "client.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd}))
}

// TestBackendConfigTLSSources: a BackendConfigPolicy's tls writes what
// kgateway's translateTLSConfig writes from each source (tls.go:
// extractTLSData, buildCertificateContext, buildValidationContext): a
// client certificate only when the Secret (or the files) holds both a
// chain and a key and simpleTLS is not set, a trusted CA only when the
// source holds one; the files are paths on the proxy, written as file
// names (the chain in CleanedSslKeyPair's form); a well-known CA set
// other than System validates nothing. The status check reads the sources
// the same way (readTLSSources) and accepts every case here. Before, a
// Secret holding only a ca.crt (or no TLS key at all) made gwpol
// reference a client certificate and a CA the Secret does not hold, and
// the files were written inline. Shapes no public case has.
func TestBackendConfigTLSSources(t *testing.T) {
	cert, key := testKeyPair(t)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	secrets := strings.Join([]string{
		"apiVersion: v1\nkind: Secret\nmetadata: {name: only-ca, namespace: ns}\ndata: {ca.crt: " + b64(cert) + "}",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: other, namespace: ns}\ndata: {token: " + b64("x") + "}",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: full, namespace: ns}\ndata: {tls.crt: " + b64(cert) + ", tls.key: " + b64(key) + ", ca.crt: " + b64(cert) + "}",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: empty-pair, namespace: ns}\ndata: {tls.crt: \"\", tls.key: \"\", ca.crt: " + b64(cert) + "}",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: metadata-only, namespace: ns}",
	}, "\n---\n")
	objs, err := manifest.Parse("in.yaml", []byte(secrets), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{})
	files := func(f map[string]string) string {
		b, _ := json.Marshal(map[string]any{"files": f})
		return string(b)
	}
	const caFile = "/etc/envoy/secrets/ns/%s/ca.crt"
	for _, tc := range []struct {
		name, spec string
		sds        string // the client certificate's SDS name, "" for none
		certFile   bool   // the client certificate from files
		ca         string // the trusted CA's file name, "" for no validation context
		system     bool
	}{
		{name: "a Secret with only ca.crt: no client certificate", spec: `{"secretRef": {"name": "only-ca"}}`, ca: "only-ca"},
		{name: "a Secret with no TLS key: neither", spec: `{"secretRef": {"name": "other"}}`},
		{name: "a Secret with all three", spec: `{"secretRef": {"name": "full"}}`, sds: "secret/ns/full", ca: "full"},
		{name: "simpleTLS: the CA only", spec: `{"secretRef": {"name": "full"}, "simpleTLS": true}`, ca: "full"},
		{name: "empty tls.crt and tls.key are none", spec: `{"secretRef": {"name": "empty-pair"}}`, ca: "empty-pair"},
		{name: "a Secret whose data is not in the input is taken to hold all three", spec: `{"secretRef": {"name": "metadata-only"}}`, sds: "secret/ns/metadata-only", ca: "metadata-only"},
		{name: "files: the root CA is a path", spec: files(map[string]string{"rootCA": "/etc/ssl/ca.pem"}), ca: "/etc/ssl/ca.pem"},
		{name: "files: a client certificate, its chain cleaned", spec: files(map[string]string{"tlsCertificate": "# client\n" + cert, "tlsKey": key}), certFile: true},
		{name: "files: simpleTLS reads no client certificate", spec: `{"simpleTLS": true, ` + files(map[string]string{"tlsCertificate": cert, "tlsKey": key, "rootCA": "/ca.pem"})[1:], ca: "/ca.pem"},
		{name: "a well-known CA set other than System: no validation", spec: `{"wellKnownCACertificates": "ns/bundle"}`},
		{name: "System", spec: `{"wellKnownCACertificates": "System"}`, system: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tc.spec), &v); err != nil {
				t.Fatal(err)
			}
			p := &policy.Policy{}
			checkTLS(p, v, m, "ns", false)
			if len(p.Invalid) > 0 {
				t.Fatalf("status refuses it: %v", p.Invalid)
			}
			c := &clusterv3.Cluster{}
			if err := upstreamTLS(v, c, "ns", m); err != nil {
				t.Fatal(err)
			}
			var ctx tlsv3.UpstreamTlsContext
			if err := c.GetTransportSocket().GetTypedConfig().UnmarshalTo(&ctx); err != nil {
				t.Fatal(err)
			}
			common := ctx.GetCommonTlsContext()
			var sds string
			if s := common.GetTlsCertificateSdsSecretConfigs(); len(s) > 0 {
				sds = s[0].GetName()
			}
			if sds != tc.sds {
				t.Errorf("client certificate SDS %q, want %q", sds, tc.sds)
			}
			if got := len(common.GetTlsCertificates()) > 0; got != tc.certFile {
				t.Errorf("client certificate from files: %v, want %v", got, tc.certFile)
			} else if got {
				tc := common.GetTlsCertificates()[0]
				if tc.GetCertificateChain().GetFilename() != cert || tc.GetPrivateKey().GetFilename() != key {
					t.Errorf("files written as %v, want the cleaned chain and the key as file names", tc)
				}
			}
			want := tc.ca
			if want != "" && !strings.HasPrefix(want, "/") {
				want = strings.Replace(caFile, "%s", want, 1)
			}
			if got := common.GetValidationContext().GetTrustedCa().GetFilename(); got != want {
				t.Errorf("trusted CA %q, want %q", got, want)
			}
			if got := common.GetCombinedValidationContext() != nil; got != tc.system {
				t.Errorf("system CA %v, want %v", got, tc.system)
			}
		})
	}
}
