package cli

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/secret/secrettest"
)

// plant makes Secret values carrying markers: every value holds
// GWPOL-MARKER-<n>, and the test looks for each value as written (raw or
// base64) and for the marker in any output.
type plant struct{ values []string }

// m is a new marker.
func (p *plant) m() string {
	s := fmt.Sprintf("GWPOL-MARKER-%d", len(p.values))
	p.values = append(p.values, s)
	return s
}

// b64 is v base64-encoded as a data value, remembered as planted too.
func (p *plant) b64(v string) string {
	s := base64.StdEncoding.EncodeToString([]byte(v))
	p.values = append(p.values, s)
	return s
}

// q is v as a double-quoted YAML scalar.
func q(v string) string { return fmt.Sprintf("%q", v) }

// leakFixtures writes, for every family that reads Secrets, manifests
// whose Secrets carry markers (in values, JWKS kty and crv, PEM block
// types, API keys, htpasswd lines, OAuth2 and OIDC client secrets, WSO2
// params' Secrets, a Gateway's own TLS CAs and client certificate, a WSO2
// Gateway's helm values ConfigMap, and data written as a list), one
// directory per family,
// and returns the directories and the targets explain is run on.
func leakFixtures(t testing.TB, p *plant) (dirs map[string]string, targets map[string][]string) {
	root := t.TempDir()
	dirs, targets = map[string]string{}, map[string][]string{}
	write := func(family, text string, explain ...string) {
		dir := filepath.Join(root, family)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, family+".yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs[family], targets[family] = dir, explain
	}
	pemBlock := func(typ, body string) string {
		return "-----BEGIN " + typ + "-----\n" + base64.StdEncoding.EncodeToString([]byte(body)) + "\n-----END " + typ + "-----\n"
	}
	route := func(ns, class string, rules []string, filters map[string]string) string {
		var b strings.Builder
		fmt.Fprintf(&b, `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: %[2]s}
spec: {controllerName: %[3]s}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: %[1]s}
spec:
  gatewayClassName: %[2]s
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - name: https
    protocol: HTTPS
    port: 443
    tls: {certificateRefs: [{name: tls}]}
---
apiVersion: v1
kind: Secret
metadata: {name: tls, namespace: %[1]s}
type: kubernetes.io/tls
immutable: true
data: {tls.crt: %[4]s, tls.key: %[5]s}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: %[1]s}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: %[1]s}
spec:
  parentRefs: [{name: gw}]
  rules:
`, ns, class+"-class", map[string]string{"kgateway": "kgateway.dev/kgateway", "eg": "gateway.envoyproxy.io/gatewayclass-controller", "haptic": "haproxy-haptic.org/controller"}[class],
			p.b64(pemBlock("CERTIFICATE", p.m())), p.b64(pemBlock("PRIVATE KEY", p.m())))
		for _, r := range rules {
			fmt.Fprintf(&b, "  - name: %s\n    matches: [{path: {type: PathPrefix, value: /%s}}]\n    backendRefs: [{name: web, port: 80}]\n", r, r)
			if f, ok := filters[r]; ok {
				fmt.Fprintf(&b, "    filters: [{type: ExtensionRef, extensionRef: %s}]\n", f)
			}
		}
		return b.String()
	}

	kgRules := []string{"keys", "selected", "listed", "basic", "sso", "headers"}
	write("kgateway", route("kg", "kgateway", kgRules, nil)+`---
apiVersion: v1
kind: Secret
metadata: {name: api-keys, namespace: kg}
immutable: true
data: {client-a: `+p.b64(p.m())+`, client-b: `+p.b64(p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: api-keys-list, namespace: kg, labels: {auth: keys}}
immutable: true
data:
  - `+p.m()+`
  - `+p.m()+`
---
apiVersion: v1
kind: Secret
metadata: {name: api-keys-list-of-maps, namespace: kg, labels: {auth: keys}}
stringData:
  - {`+p.m()+`: `+p.m()+`}
---
apiVersion: v1
kind: Secret
metadata: {name: htpasswd, namespace: kg}
immutable: true
data: {.htpasswd: `+p.b64("alice:{SHA}"+p.m()+"\nbob:"+p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: oauth, namespace: kg}
stringData: {client-secret: `+q(p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: headers, namespace: kg}
stringData: {x-token: `+q(p.m())+`, authorization: `+q("Bearer "+p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: not-base64, namespace: kg}
data: {client-c: `+q("!"+p.m())+`}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: keys, namespace: kg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: keys}]
  apiKeyAuth: {secretRef: {name: api-keys}, keySources: [{header: x-api-key}], clientIdHeader: x-client}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: selected, namespace: kg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: selected}]
  apiKeyAuth: {secretSelector: {matchLabels: {auth: keys}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: listed, namespace: kg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: listed}]
  apiKeyAuth: {secretRef: {name: api-keys-list}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: basic, namespace: kg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: basic}]
  basicAuth: {secretRef: {name: htpasswd}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: sso, namespace: kg}
spec:
  oauth2:
    backendRef: {name: web, port: 80}
    tokenEndpoint: https://idp.example.com/token
    authorizationEndpoint: https://idp.example.com/authorize
    redirectURI: https://shop.example.com/oauth2/callback
    credentials: {clientID: shop, clientSecretRef: {name: oauth}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: sso, namespace: kg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: sso}]
  oauth2: {extensionRef: {name: sso}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: headers, namespace: kg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: headers}]
  headerModifiers:
    request:
      set: [{secretRef: {name: headers}}, {name: x-one, secretRef: {name: headers, key: x-token}}, {secretRef: {name: api-keys-list}}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: not-base64, namespace: kg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: keys}]
  apiKeyAuth: {secretRef: {name: not-base64}}
`, "gateway/kg/gw", "gateway/kg/gw/http", "httproute/kg/r", "httproute/kg/r/keys", "httproute/kg/r/selected", "httproute/kg/r/listed", "httproute/kg/r/basic",
		"httproute/kg/r/sso", "httproute/kg/r/headers", "trafficpolicy/kg/keys", "trafficpolicy/kg/selected", "trafficpolicy/kg/listed", "trafficpolicy/kg/basic",
		"trafficpolicy/kg/sso", "trafficpolicy/kg/headers", "trafficpolicy/kg/not-base64", "service/kg/web")

	egRules := []string{"basic", "keys", "oidc", "inject"}
	write("envoygateway", route("eg", "eg", egRules, map[string]string{"inject": "{group: gateway.envoyproxy.io, kind: HTTPRouteFilter, name: inject}"})+`---
apiVersion: v1
kind: Secret
metadata: {name: htpasswd, namespace: eg}
data: {.htpasswd: `+p.b64("alice:{SHA}"+p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: keys, namespace: eg}
data: {client-1: `+p.b64(p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: keys-list, namespace: eg}
stringData: [`+p.m()+`, `+p.m()+`]
---
apiVersion: v1
kind: Secret
metadata: {name: oidc, namespace: eg}
stringData: {client-secret: `+q(p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: credential, namespace: eg}
stringData: {credential: `+q("Basic "+p.m())+`}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: basic, namespace: eg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: basic}]
  basicAuth: {users: {name: htpasswd}}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: keys, namespace: eg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: keys}]
  apiKeyAuth:
    credentialRefs: [{name: keys}, {name: keys-list}]
    extractFrom: [{headers: [x-api-key]}]
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: SecurityPolicy
metadata: {name: oidc, namespace: eg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: oidc}]
  oidc:
    provider: {issuer: "https://idp.example.com", authorizationEndpoint: "https://idp.example.com/auth", tokenEndpoint: "https://idp.example.com/token"}
    clientID: shop
    clientSecret: {name: oidc}
    redirectURL: "https://shop.example.com/oauth2/callback"
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: HTTPRouteFilter
metadata: {name: inject, namespace: eg}
spec:
  credentialInjection: {header: Authorization, credential: {valueRef: {name: credential}}}
---
apiVersion: v1
kind: Secret
metadata: {name: client-ca, namespace: eg}
data: {ca.crt: `+p.b64(pemBlock("CERTIFICATE", p.m())+pemBlock(p.m(), p.m()))+`}
---
apiVersion: v1
kind: Secret
metadata: {name: client-crl, namespace: eg}
data: {ca.crl: `+p.b64(pemBlock("X509 CRL", p.m())+pemBlock(p.m(), p.m()))+`}
---
apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: mtls, namespace: eg}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  tls:
    clientValidation:
      caCertificateRefs: [{kind: Secret, name: client-ca}]
      crl: {refs: [{kind: Secret, name: client-crl}]}
---
apiVersion: v1
kind: Secret
metadata: {name: sds, namespace: eg}
type: gateway.envoyproxy.io/sds
stringData: {secretName: `+q(p.m())+`, url: `+q(p.m()+"://"+p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: sds-http, namespace: eg}
type: gateway.envoyproxy.io/sds
stringData: {secretName: `+q(p.m())+`, url: `+q("https://"+p.m())+`}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: sds-gw, namespace: eg}
spec:
  gatewayClassName: eg-class
  listeners:
  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: sds}]}}
  - {name: b, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: sds-http}]}}
---
apiVersion: v1
kind: Secret
metadata: {name: frontend-ca, namespace: eg}
data: {ca.crt: `+p.b64(pemBlock("CERTIFICATE", p.m())+pemBlock(p.m(), p.m()))+`, other: `+p.b64(p.m())+`}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: frontend-ca, namespace: eg}
data: {ca.crt: `+q(p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: backend-client, namespace: eg}
type: kubernetes.io/tls
data: {tls.crt: `+p.b64(pemBlock("CERTIFICATE", p.m()))+`, extra: `+p.b64(p.m())+`}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: tls-gw, namespace: eg}
spec:
  gatewayClassName: eg-class
  tls:
    frontend:
      default:
        validation: {caCertificateRefs: [{kind: Secret, group: "", name: frontend-ca}]}
      perPort:
      - {port: 8443, tls: {validation: {caCertificateRefs: [{kind: ConfigMap, group: "", name: frontend-ca}], mode: AllowInsecureFallback}}}
      - {port: 9443, tls: {validation: {caCertificateRefs: [{kind: Secret, group: "", name: sds}]}}}
    backend:
      clientCertificateRef: {name: backend-client}
  listeners:
  - {name: a, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: tls-gw-cert}]}}
  - {name: b, protocol: HTTPS, port: 8443, tls: {certificateRefs: [{name: tls-gw-cert}]}}
  - {name: c, protocol: HTTPS, port: 9443, tls: {certificateRefs: [{name: tls-gw-cert}]}}
`+secrettest.TLSSecretYAML("eg", "tls-gw-cert", "tls.example.com"), "gateway/eg/gw", "gateway/eg/sds-gw", "gateway/eg/tls-gw", "clienttrafficpolicy/eg/mtls", "httproute/eg/r", "httproute/eg/r/basic", "httproute/eg/r/keys", "httproute/eg/r/oidc", "httproute/eg/r/inject",
		"securitypolicy/eg/basic", "securitypolicy/eg/keys", "securitypolicy/eg/oidc", "httproutefilter/eg/inject")

	hpRules := []string{"kty", "crv", "pemtype", "private", "badpem", "keys", "spaces", "keyslist", "mutable"}
	hpFilters := map[string]string{}
	for _, r := range hpRules {
		hpFilters[r] = "{group: haproxy-haptic.org, kind: HAProxyRoutePolicy, name: " + r + "}"
	}
	jwtSecret := func(name, pem string, immutable bool) string {
		return fmt.Sprintf("---\napiVersion: v1\nkind: Secret\nmetadata: {name: %s, namespace: hp}\nimmutable: %v\nstringData: {pubkey.pem: %s}\n", name, immutable, q(pem))
	}
	jwtPolicy := func(name string) string {
		return "---\napiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: " + name + ", namespace: hp}\nspec:\n  authentication:\n    jwt: {secretRef: {name: " + name + "}, algorithm: ES256, issuer: https://auth.example.com}\n"
	}
	keyPolicy := func(name string) string {
		return "---\napiVersion: haproxy-haptic.org/v1alpha1\nkind: HAProxyRoutePolicy\nmetadata: {name: " + name + ", namespace: hp}\nspec:\n  authentication:\n    apiKey: {secretRef: {name: " + name + "}}\n"
	}
	write("haptic", route("hp", "haptic", hpRules, hpFilters)+
		jwtSecret("kty", `{"keys":[{"kty":"`+p.m()+`","crv":"`+p.m()+`"}]}`, true)+jwtPolicy("kty")+
		jwtSecret("crv", `{"keys":[{"kty":"EC","crv":"P-256\n`+p.m()+`","x":"AQ","y":"AQ"}]}`, true)+jwtPolicy("crv")+
		jwtSecret("pemtype", pemBlock(p.m(), p.m()), true)+jwtPolicy("pemtype")+
		jwtSecret("private", pemBlock("RSA PRIVATE KEY", p.m()), true)+jwtPolicy("private")+
		jwtSecret("badpem", pemBlock("PUBLIC KEY", p.m())+pemBlock("CERTIFICATE", p.m()), true)+jwtPolicy("badpem")+
		jwtSecret("mutable", pemBlock(p.m(), p.m()), false)+jwtPolicy("mutable")+
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: keys, namespace: hp}\nimmutable: true\ndata: {keys: "+p.b64(p.m()+":"+p.m()+"\n"+p.m()+":"+p.m()+"\n"+p.m()+":\n")+"}\n"+keyPolicy("keys")+
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: spaces, namespace: hp}\nimmutable: true\nstringData: {keys: "+q(p.m()+" "+p.m()+":x")+"}\n"+keyPolicy("spaces")+
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: keyslist, namespace: hp}\nimmutable: true\nstringData:\n  keys: ["+p.m()+", "+p.m()+"]\n"+keyPolicy("keyslist"),
		"gateway/hp/gw", "httproute/hp/r", "httproute/hp/r/kty", "httproute/hp/r/crv", "httproute/hp/r/pemtype", "httproute/hp/r/private",
		"httproute/hp/r/badpem", "httproute/hp/r/keys", "httproute/hp/r/spaces", "httproute/hp/r/keyslist", "httproute/hp/r/mutable",
		"haproxyroutepolicy/hp/kty", "haproxyroutepolicy/hp/crv", "haproxyroutepolicy/hp/pemtype", "haproxyroutepolicy/hp/private",
		"haproxyroutepolicy/hp/keys", "haproxyroutepolicy/hp/keyslist")

	write("wso2", `apiVersion: v1
kind: Secret
metadata: {name: quota-limits, namespace: wso}
stringData: {requests: `+q(p.m())+`}
---
apiVersion: v1
kind: Secret
metadata: {name: quota-list, namespace: wso}
data: [`+p.m()+`]
---
apiVersion: gateway.api-platform.wso2.com/v1
kind: RestApi
metadata: {name: quota-api-v1.0, namespace: wso}
spec:
  displayName: Quota API
  version: v1.0
  context: /quota
  upstream: {main: {url: "http://quota:8080"}}
  policies:
  - name: basic-ratelimit
    version: v1
    params:
      limits:
      - requests: {valueFrom: {secretKeyRef: {name: quota-limits, key: requests}}}
        duration: 1m
      - requests: {valueFrom: {secretKeyRef: {name: quota-list, key: requests}}}
        duration: 1m
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: wso2-api-platform}
spec: {controllerName: gateway.api-platform.wso2.com/gateway-operator}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: gw-values, namespace: wso}
data: {values.yaml: `+q("gateway:\n  adminPassword: "+p.m()+"\n")+`}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: gw-values-elsewhere, namespace: wso}
data: {other.yaml: `+q("adminPassword: "+p.m())+`}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: platform
  namespace: wso
  annotations: {gateway.api-platform.wso2.com/helm-values-configmap: gw-values}
spec:
  gatewayClassName: wso2-api-platform
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: pending
  namespace: wso
  annotations: {gateway.api-platform.wso2.com/helm-values-configmap: gw-values-elsewhere}
spec:
  gatewayClassName: wso2-api-platform
  listeners: [{name: http, protocol: HTTP, port: 8080}]
`, "restapi/wso/quota-api-v1.0", "gateway/wso/platform", "gateway/wso/pending")
	return dirs, targets
}

// TestNoSecretContentLeaks is #31's planted-marker test: every command
// and output format, --out files and error paths, over Secrets of every
// family that reads them, and not one planted value (raw or as the base64
// written in the input) appears in stdout, stderr or a written file.
func TestNoSecretContentLeaks(t *testing.T) {
	p := &plant{}
	dirs, targets := leakFixtures(t, p)
	out := t.TempDir()
	all := []string{}
	for _, f := range []string{"kgateway", "envoygateway", "haptic", "wso2"} {
		all = append(all, "-f", dirs[f])
	}
	wso2 := []string{"--policy-definitions", "testdata/wso2/defs"}
	// Envoy Gateway reads an SDS reference Secret (its url) only where
	// the deployment enables them.
	egConfig := filepath.Join(t.TempDir(), "eg.gwpol.yaml")
	if err := os.WriteFile(egConfig, []byte("envoyGateway:\n  extensionApis: {enableSDSSecretRef: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A second plant of the same manifests with other values: diff
	// between them must see no change and say nothing of either.
	p2 := &plant{values: make([]string, 0)}
	for range 1000 { // markers of the second set are numbered after the first's
		p2.values = append(p2.values, "")
	}
	dirs2, _ := leakFixtures(t, p2)
	p.values = append(p.values, p2.values[1000:]...)

	var runs [][]string
	files := func(name string) string { return filepath.Join(out, name) }
	for _, set := range []struct {
		name string
		args []string
	}{{"kgateway", []string{"-f", dirs["kgateway"]}}, {"envoygateway", []string{"-f", dirs["envoygateway"], "--config", egConfig}},
		{"haptic", []string{"-f", dirs["haptic"]}}, {"wso2", append([]string{"-f", dirs["wso2"]}, wso2...)}, {"all", append(append(all, wso2...), "--config", egConfig)}} {
		a := set.args
		for _, o := range []string{"text", "json", "sarif", "github"} {
			runs = append(runs, append([]string{"lint", "-o", o}, a...))
		}
		runs = append(runs, append([]string{"lint", "--out", files(set.name + "-lint.sarif"), "-o", "sarif"}, a...))
		for _, o := range []string{"yaml", "json"} {
			runs = append(runs, append([]string{"status", "-o", o}, a...), append([]string{"render", "-o", o}, a...),
				append([]string{"render", "--bootstrap", "-o", o, "--out", files(set.name + "-bootstrap-" + o + "/")}, a...))
		}
		for _, target := range []string{"envoy", "kgateway", "envoygateway", "haptic"} {
			runs = append(runs, append([]string{"render", "--target", target}, a...), append([]string{"lint", "--target", target}, a...))
		}
		runs = append(runs, append([]string{"render", "--out", files(set.name + "-render.yaml")}, a...))
		for _, o := range []string{"dot", "mermaid"} {
			runs = append(runs, append([]string{"graph", "-o", o}, a...))
		}
		for fam, ts := range targets {
			if set.name != fam && set.name != "all" {
				continue
			}
			for _, tg := range ts {
				runs = append(runs, append([]string{"explain", tg}, a...), append([]string{"explain", tg, "-o", "json", "--show-values"}, a...))
			}
		}
		// Error paths: a target that is not there, a Gateway that is not.
		runs = append(runs, append([]string{"explain", "httproute/kg/nope"}, a...), append([]string{"render", "--gateway", "kg/nope", "--bootstrap"}, a...))
	}
	for _, f := range []string{"kgateway", "envoygateway", "haptic", "wso2"} {
		for _, o := range []string{"text", "json"} {
			runs = append(runs, append([]string{"diff", dirs[f], dirs2[f], "-o", o}, wso2...))
		}
	}
	// An unreadable document in a Secret: the parse error names a position.
	broken := filepath.Join(t.TempDir(), "broken.yaml")
	if err := os.WriteFile(broken, []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: broken}\nstringData: {k: \""+p.m()+"\n  : ["+p.m()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs = append(runs, []string{"lint", "-f", broken}, []string{"lint", "-f", broken, "-o", "json"}, []string{"render", "-f", broken})

	marker := regexp.MustCompile(`MARKER|R1dQT0wtTUFSS0VS`) // the marker, raw or base64 at offset 0
	check := func(what, text string) {
		t.Helper()
		if loc := marker.FindStringIndex(text); loc != nil {
			t.Errorf("%s leaks a planted value: …%s…", what, text[max(loc[0]-120, 0):min(loc[1]+40, len(text))])
			return
		}
		for _, v := range p.values {
			if v != "" && len(v) >= 8 && strings.Contains(text, v) {
				t.Errorf("%s leaks planted value %q", what, v)
				return
			}
		}
	}
	exits := map[int]int{}
	for _, args := range runs {
		stdout, stderr, code := run(t, args...)
		exits[code]++
		if code == ExitInternal {
			t.Errorf("gwpol %s: exit 4\n%s", strings.Join(args, " "), stderr)
		}
		check("gwpol "+strings.Join(args, " ")+" stdout", stdout)
		check("gwpol "+strings.Join(args, " ")+" stderr", stderr)
	}
	written := 0
	filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		written++
		check(path, string(b))
		return nil
	})
	if written < 5 {
		t.Errorf("only %d --out files written: the runs did not exercise --out", written)
	}
	// The fixtures must exercise the checks, not fail before them: every
	// planted Secret is read (each family finds fault with it).
	lint, _, _ := run(t, append(append([]string{"lint", "-o", "json"}, all...), wso2...)...)
	for _, want := range []string{
		"data must be a map", "stringData must be a map", "stringData.keys must be a string", "must be base64", // list-shaped and malformed Secrets
		"it is a JWKS document, not a PEM public key", "block 1 is a PEM block of an unrecognised type", "block 1 is a PEM RSA PRIVATE KEY", // HAPTIC JWT keys (PEM only)
		"line 3 ends in ':' with no consumer", "a key is printable ASCII without spaces", // HAPTIC API keys
		"ConfigMap wso/gw-values-elsewhere does not contain 'values.yaml' key", // WSO2's helm values ConfigMap (GWP515)
	} {
		if !strings.Contains(lint, want) {
			t.Errorf("lint never says %q: the fixture does not reach that check", want)
		}
	}
	// A Gateway's own TLS references (Envoy Gateway's spec.tls): its
	// frontend CA Secret is read where the listener takes it, its backend
	// client certificate where the Gateway's ResolvedRefs is decided.
	if !strings.Contains(lint, "Secret eg/frontend-ca") && !strings.Contains(lint, "secret eg/backend-client") {
		t.Errorf("lint never reads the Gateway's spec.tls Secrets: the fixture does not reach that check")
	}
	t.Logf("%d runs (exit codes %v), %d --out files, %d planted values", len(runs), exits, written, len(p.values))
}
