package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hapticBackendTLSPlatform is a HAPTIC Gateway whose route sends to svc,
// CA material of every shape HAPTIC reads, and (appended by the test) a
// BackendTLSPolicy on svc.
const hapticBackendTLSPlatform = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: haptic}
spec: {controllerName: haproxy-haptic.org/controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: hp-gw, namespace: default}
spec:
  gatewayClassName: haptic
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: default}
spec:
  parentRefs: [{name: hp-gw}]
  rules: [{backendRefs: [{name: svc, port: 443}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: default}
spec: {ports: [{name: https, port: 443}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ca-a, namespace: default}
data: {ca.crt: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: ca-b, namespace: default}
data: {ca.crt: "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: tls-only, namespace: default}
data: {tls.crt: "-----BEGIN CERTIFICATE-----\nMIID\n-----END CERTIFICATE-----\n"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: empty-ca, namespace: default}
data: {ca.crt: ""}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-tls, namespace: default}
stringData: {tls.crt: "-----BEGIN CERTIFICATE-----\nMIIE\n-----END CERTIFICATE-----\n"}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-empty-ca, namespace: default}
stringData: {ca.crt: "", tls.crt: "-----BEGIN CERTIFICATE-----\nMIIE\n-----END CERTIFICATE-----\n"}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-empty-only, namespace: default}
stringData: {ca.crt: ""}
---
apiVersion: v1
kind: Secret
metadata: {name: sec-both-empty, namespace: default}
stringData: {ca.crt: "", tls.crt: ""}
---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: btp, namespace: default}
spec:
  targetRefs: [{group: "", kind: Service, name: svc}]
  validation:
    hostname: svc.example.com
`

// TestHAPTICBackendTLSPolicy: on a HAPTIC Gateway a BackendTLSPolicy is
// judged by HAPTIC's own rule (policy.Family.ForeignJudges;
// 73-status-policy.yaml: GenerateBackendTLSPolicyStatusPatch): every CA
// reference that resolves is trusted, joined, and the policy is refused
// only when none does — then its backend answers 503 (30-backends.yaml:
// btlsBroken), rendered as a cluster without endpoints. Before, the kind's
// own rule (kgateway's: the first reference alone) refused a policy whose
// first reference did not resolve though a later one did, and a refused
// policy's cluster was rendered without TLS.
func TestHAPTICBackendTLSPolicy(t *testing.T) {
	for _, tc := range []struct {
		name       string
		validation string // the lines under validation: beside hostname
		accepted   string // Accepted reason
		resolved   string // ResolvedRefs reason
		lint       string // a part of the GWP401 message; "" when lint finds no error
		warn       string // a part of the GWP401 warning; "" when lint warns of nothing
		ca         string // the rendered trusted CA; "" when the cluster is blackholed
	}{
		{name: "a missing reference before one that resolves",
			validation: `caCertificateRefs: [{group: "", kind: ConfigMap, name: missing}, {group: "", kind: ConfigMap, name: ca-a}]`,
			accepted:   "Accepted", resolved: "ResolvedRefs", ca: "${configmap:default/ca-a#ca.crt}"},
		{name: "two that resolve are joined, the one between skipped",
			validation: `caCertificateRefs: [{group: "", kind: ConfigMap, name: ca-a}, {group: "", kind: ConfigMap, name: empty-ca}, {group: core, kind: ConfigMap, name: ca-b}]`,
			accepted:   "Accepted", resolved: "ResolvedRefs", ca: "${configmap:default/ca-a#ca.crt}\\n${configmap:default/ca-b#ca.crt}"},
		{name: "a Secret joined with a ConfigMap",
			validation: `caCertificateRefs: [{group: "", kind: Secret, name: sec-tls}, {group: "", kind: ConfigMap, name: ca-a}]`,
			accepted:   "Accepted", resolved: "ResolvedRefs", ca: "${secret:default/sec-tls#tls.crt}\\n${configmap:default/ca-a#ca.crt}"},
		{name: "a Secret with tls.crt alone",
			validation: `caCertificateRefs: [{group: "", kind: Secret, name: sec-tls}]`,
			accepted:   "Accepted", resolved: "ResolvedRefs", ca: "/etc/envoy/secrets/default/sec-tls/tls.crt"},
		{name: "none resolves: a ConfigMap's tls.crt is not read",
			validation: `caCertificateRefs: [{group: "", kind: ConfigMap, name: tls-only}, {group: "", kind: ConfigMap, name: missing}]`,
			accepted:   "NoValidCACertificate", resolved: "InvalidCACertificateRef",
			lint: "No CACertificateRef resolves to a valid CA certificate (missing or malformed) (ConfigMap default/tls-only has no ca.crt"},
		// the status and the data plane read a Secret's empty ca.crt
		// differently (hap39): the status refuses, the backend trusts the
		// tls.crt behind it (30-backends.yaml@0c1a6446: caBundleParts)
		{name: "a Secret's empty ca.crt: the status refuses, the backend trusts its tls.crt",
			validation: `caCertificateRefs: [{group: "", kind: Secret, name: sec-empty-ca}]`,
			accepted:   "NoValidCACertificate", resolved: "InvalidCACertificateRef",
			warn: "Secret default/sec-empty-ca has an empty ca.crt", ca: "/etc/envoy/secrets/default/sec-empty-ca/tls.crt"},
		{name: "a Secret's empty ca.crt beside a missing ConfigMap: still trusted",
			validation: `caCertificateRefs: [{group: "", kind: ConfigMap, name: missing}, {group: "", kind: Secret, name: sec-empty-ca}]`,
			accepted:   "NoValidCACertificate", resolved: "InvalidCACertificateRef",
			warn: "yet its backend trusts the tls.crt of Secret default/sec-empty-ca", ca: "/etc/envoy/secrets/default/sec-empty-ca/tls.crt"},
		{name: "a Secret's empty ca.crt beside a ConfigMap that resolves: both joined",
			validation: `caCertificateRefs: [{group: "", kind: ConfigMap, name: ca-a}, {group: "", kind: Secret, name: sec-empty-ca}]`,
			accepted:   "Accepted", resolved: "ResolvedRefs", ca: "${configmap:default/ca-a#ca.crt}\\n${secret:default/sec-empty-ca#tls.crt}"},
		{name: "a Secret's empty ca.crt and no tls.crt: refused, 503",
			validation: `caCertificateRefs: [{group: "", kind: Secret, name: sec-empty-only}]`,
			accepted:   "NoValidCACertificate", resolved: "InvalidCACertificateRef", lint: "Secret default/sec-empty-only has an empty ca.crt"},
		{name: "a Secret's empty ca.crt and an empty tls.crt: refused, 503",
			validation: `caCertificateRefs: [{group: "", kind: Secret, name: sec-both-empty}]`,
			accepted:   "NoValidCACertificate", resolved: "InvalidCACertificateRef", lint: "Secret default/sec-both-empty has an empty ca.crt"},
		{name: "none resolves and one is of another kind",
			validation: `caCertificateRefs: [{group: example.com, kind: ConfigMap, name: ca-a}, {group: "", kind: ConfigMap, name: missing}]`,
			accepted:   "NoValidCACertificate", resolved: "InvalidKind", lint: "CACertificateRef points at an unsupported group / kind"},
		{name: "another kind beside one that resolves",
			validation: `caCertificateRefs: [{group: "", kind: ClusterTrustBundle, name: bundle}, {group: "", kind: ConfigMap, name: ca-b}]`,
			accepted:   "Accepted", resolved: "ResolvedRefs", ca: "${configmap:default/ca-b#ca.crt}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(in, []byte(hapticBackendTLSPlatform+"    "+tc.validation+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "lint", "-f", in)
			if tc.lint == "" && code != 0 {
				t.Errorf("lint: exit %d, want 0:\n%s%s", code, out, errOut)
			}
			if tc.warn != "" && (!strings.Contains(out, "warning  GWP401") || !strings.Contains(out, tc.warn) || strings.Contains(out, "answers 503")) {
				t.Errorf("lint: want a GWP401 warning %q and no 503:\n%s%s", tc.warn, out, errOut)
			}
			if tc.warn == "" && strings.Contains(out, "warning  GWP401") {
				t.Errorf("lint: an unexpected GWP401 warning:\n%s%s", out, errOut)
			}
			if tc.lint != "" && (code != 1 || !strings.Contains(out, "GWP401") || !strings.Contains(out, tc.lint) || !strings.Contains(out, "the backend answers 503")) {
				t.Errorf("lint: exit %d, want 1 with GWP401 %q:\n%s%s", code, tc.lint, out, errOut)
			}
			if got, want := hapticBTPConditions(t, in), "Accepted="+tc.accepted+" ResolvedRefs="+tc.resolved; got != want {
				t.Errorf("status: %s, want %s", got, want)
			}
			rendered, errOut, _ := run(t, "render", "-f", in, "-o", "json")
			compact := strings.Join(strings.Fields(rendered), "")
			got := renderedCA(rendered)
			if i := strings.Index(compact, `"trusted_ca":{"filename":"`); i >= 0 && got == "" {
				got = compact[i+len(`"trusted_ca":{"filename":"`):]
				got = got[:strings.IndexByte(got, '"')]
			}
			if got != tc.ca {
				t.Errorf("render: CA %q, want %q%s", got, tc.ca, errOut)
			}
			blackholed := strings.Contains(compact, `"name":"kube_default_svc_443","type":"STATIC","load_assignment":{"cluster_name":"kube_default_svc_443"}`)
			if blackholed != (tc.ca == "") {
				t.Errorf("render: cluster blackholed %v, want %v:\n%s", blackholed, tc.ca == "", rendered)
			}
		})
	}
}

// hapticBTPConditions are the BackendTLSPolicy's conditions on its one
// ancestor, in order, as "Type=Reason" words.
func hapticBTPConditions(t *testing.T, in string) string {
	t.Helper()
	out, errOut, code := run(t, "status", "-f", in, "-o", "json")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	var rep struct {
		Policies []struct {
			Kind      string
			Ancestors []struct {
				ControllerName string `json:"controllerName"`
				Conditions     []struct{ Type, Reason string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, p := range rep.Policies {
		if p.Kind != "BackendTLSPolicy" {
			continue
		}
		for _, a := range p.Ancestors {
			if a.ControllerName != "haproxy-haptic.org/controller" {
				t.Errorf("ancestor of %s", a.ControllerName)
			}
			for _, c := range a.Conditions {
				words = append(words, c.Type+"="+c.Reason)
			}
		}
	}
	return strings.Join(words, " ")
}
