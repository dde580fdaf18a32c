package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackendTLSPolicyCARefsAsRead: a BackendTLSPolicy naming several CA
// certificate references renders the CA its controller reads and its
// status judges — kgateway the first reference alone (buildTranslateFunc:
// CACertificateRefs[0]), Envoy Gateway all of them joined in order
// (getCaCertsFromCARefs) — instead of refusing to render (GWP404).
func TestBackendTLSPolicyCARefsAsRead(t *testing.T) {
	const (
		kgName = "kgateway.dev/kgateway"
		egName = "gateway.envoyproxy.io/gatewayclass-controller"
	)
	for _, tc := range []struct {
		name, controller string
		refs             string // the caCertificateRefs, in flow style
		objects          string // the CA objects in the input: metadata only (data not checked), or KEY:NAME, a ConfigMap holding KEY
		accepted         string // the Accepted reason status writes
		ca               string // the rendered trusted_ca, compacted
	}{
		{name: "kgateway: two ConfigMaps, the first read", controller: kgName,
			refs: "[{kind: ConfigMap, name: ca-b}, {kind: ConfigMap, name: ca-a}]", objects: "ca-a ca-b", accepted: "Accepted",
			ca: `{"inline_string":"${configmap:apps/ca-b#ca.crt}"}`},
		{name: "kgateway: a later reference that does not resolve is not read", controller: kgName,
			refs: "[{kind: ConfigMap, name: ca-a}, {kind: ConfigMap, name: gone}, {kind: Pod, name: x}]", objects: "ca-a", accepted: "Accepted",
			ca: `{"inline_string":"${configmap:apps/ca-a#ca.crt}"}`},
		{name: "kgateway: a first Secret before a ConfigMap", controller: kgName,
			refs: "[{kind: Secret, name: ca-s}, {kind: ConfigMap, name: ca-a}]", objects: "ca-a secret:ca-s", accepted: "Accepted",
			ca: `{"filename":"/etc/envoy/secrets/apps/ca-s/ca.crt"}`},
		{name: "kgateway: a first reference that does not resolve refuses it", controller: kgName,
			refs: "[{kind: ConfigMap, name: gone}, {kind: ConfigMap, name: ca-a}]", objects: "ca-a", accepted: "NoValidCACertificate"},
		{name: "envoygateway: two ConfigMaps joined in order", controller: egName,
			refs: "[{kind: ConfigMap, name: ca-b}, {kind: ConfigMap, name: ca-a}]", objects: "ca.crt:ca-a tls.crt:ca-b", accepted: "Accepted",
			ca: `{"inline_string":"${configmap:apps/ca-b#tls.crt}\n${configmap:apps/ca-a#ca.crt}"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in strings.Builder
			in.WriteString("apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: gc}\nspec: {controllerName: " + tc.controller + "}\n")
			in.WriteString("---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: apps}\nspec:\n  gatewayClassName: gc\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n")
			in.WriteString("---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: apps}\nspec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: svc, port: 8443}]}]\n")
			in.WriteString("---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: apps}\nspec: {ports: [{name: https, port: 8443}]}\n")
			for _, o := range strings.Fields(tc.objects) {
				if name, ok := strings.CutPrefix(o, "secret:"); ok {
					in.WriteString("---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: apps}\n")
					continue
				}
				if key, name, ok := strings.Cut(o, ":"); ok {
					in.WriteString("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: apps}\ndata: {" + key + ": not read}\n")
					continue
				}
				in.WriteString("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + o + ", namespace: apps}\n")
			}
			in.WriteString("---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: btp, namespace: apps}\nspec:\n  targetRefs: [{group: \"\", kind: Service, name: svc}]\n  validation:\n    caCertificateRefs: " + tc.refs + "\n    hostname: svc.example.com\n")
			path := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(path, []byte(in.String()), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := btpAncestors(t, path)["gw"]; got != tc.controller+" "+tc.accepted {
				t.Errorf("status: %q, want %q", got, tc.controller+" "+tc.accepted)
			}
			out, errOut, _ := run(t, "render", "-f", path, "-o", "json")
			if strings.Contains(errOut, "GWP404") || strings.Contains(out, "GWP404") {
				t.Errorf("render refuses it:\n%s", errOut)
			}
			if got := trustedCA(out); got != tc.ca {
				t.Errorf("render: trusted_ca %s, want %s", got, tc.ca)
			}
		})
	}
}

// trustedCA is the first cluster's trusted_ca data source, compacted; ""
// when no cluster has one.
func trustedCA(out string) string {
	const key = `"trusted_ca":`
	compact := strings.Join(strings.Fields(out), "")
	i := strings.Index(compact, key)
	if i < 0 {
		return ""
	}
	rest := compact[i+len(key):]
	return rest[:strings.Index(rest, `"}`)+2]
}
