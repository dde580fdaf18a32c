package envoygateway

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret/secrettest"
	"github.com/gwpol/gwpol/internal/topology"
)

// decodeCTP decodes a ClientTrafficPolicy in namespace default beside
// other objects (Secrets, ConfigMaps, ReferenceGrants).
func decodeCTP(t *testing.T, spec, others string) *policy.Policy {
	t.Helper()
	doc := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: p, namespace: default}\nspec:\n" + spec + others
	objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
	if err != nil || len(objs) == 0 {
		t.Fatalf("parse: %v (%d objects)", err, len(objs))
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default"})
	return ClientTrafficPolicy().Decode(objs[0], &policy.Env{Model: m})
}

func messages(p *policy.Policy) []string {
	var out []string
	for _, d := range p.Invalid {
		out = append(out, d.Message)
	}
	return out
}

// TestClientTrafficPolicyChecks has one subtest per check of Envoy
// Gateway's ClientTrafficPolicy translation that gwpol makes when it
// decodes the policy; docs/controllers/envoygateway-checks.md names them.
// Each case gives every message the policy must be Invalid with (none:
// valid), so that a check that reports too much fails too.
func TestClientTrafficPolicyChecks(t *testing.T) {
	pki := testCerts(t)
	ca := b64(pki.ca)
	caSecret := "---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: default}\ndata: {ca.crt: " + ca + "}\n"
	tests := []struct {
		name, spec, others string
		want               []string
	}{
		{name: "tcpKeepalive.idleTime", spec: "  tcpKeepalive: {idleTime: 5x}\n",
			want: []string{"TCP KeepAlive: invalid IdleTime value 5x."}},
		{name: "tcpKeepalive.interval", spec: "  tcpKeepalive: {idleTime: 5s, interval: 1y}\n",
			want: []string{"TCP KeepAlive: invalid Interval value 1y."}},
		{name: "tcpKeepalive-first-error-only", spec: "  tcpKeepalive: {idleTime: a, interval: b}\n",
			want: []string{"TCP KeepAlive: invalid IdleTime value a."}},
		{name: "tcpKeepalive-valid", spec: "  tcpKeepalive: {idleTime: 5s, interval: 1m, probes: 3}\n"},
		{name: "connection.closeDelay", spec: "  connection: {connectionLimit: {value: 3, closeDelay: 10mib}}\n",
			want: []string{"Connection: invalid CloseDelay value 10mib."}},
		{name: "connection.maxConnectionDuration", spec: "  connection: {connectionLimit: {maxConnectionDuration: 1d}}\n",
			want: []string{"Connection: invalid MaxConnectionDuration value 1d."}},
		{name: "connection.maxStreamDuration", spec: "  connection: {connectionLimit: {maxStreamDuration: x}}\n",
			want: []string{"Connection: invalid MaxStreamDuration value x."}},
		{name: "connection.bufferLimit-not-whole", spec: "  connection: {bufferLimit: 100m}\n",
			want: []string{"Connection: invalid BufferLimit value 100m."}},
		{name: "connection.bufferLimit-range", spec: "  connection: {bufferLimit: 5Gi}\n",
			want: []string{"Connection: BufferLimit value 5Gi is out of range, must be between 0 and 4294967295."}},
		{name: "connection-first-error-only", spec: "  connection: {connectionLimit: {closeDelay: a, maxStreamDuration: b}, bufferLimit: 5Gi}\n",
			want: []string{"Connection: invalid CloseDelay value a."}},
		{name: "timeout.tcp.idleTimeout", spec: "  timeout: {tcp: {idleTimeout: 1d}}\n",
			want: []string{"Timeout: invalid TCP IdleTimeout value 1d."}},
		{name: "timeout.tcp.tlsHandshakeTimeout", spec: "  timeout: {tcp: {tlsHandshakeTimeout: 1d}}\n",
			want: []string{"Timeout: invalid TCP TLSHandshakeTimeout value 1d."}},
		{name: "timeout.tcp.connectionInspectionTimeout", spec: "  timeout: {tcp: {connectionInspectionTimeout: 1d}}\n",
			want: []string{"Timeout: invalid TCP ConnectionInspectionTimeout value 1d."}},
		{name: "timeout.http.requestReceivedTimeout", spec: "  timeout: {http: {requestReceivedTimeout: 1d}}\n",
			want: []string{"Timeout: invalid HTTP RequestReceivedTimeout value 1d."}},
		{name: "timeout.http.idleTimeout", spec: "  timeout: {http: {idleTimeout: 1d}}\n",
			want: []string{"Timeout: invalid HTTP IdleTimeout value 1d."}},
		{name: "timeout.http.streamIdleTimeout", spec: "  timeout: {http: {streamIdleTimeout: 1d}}\n",
			want: []string{"Timeout: invalid HTTP StreamIdleTimeout value 1d."}},
		{name: "timeout.http.requestHeadersReceivedTimeout", spec: "  timeout: {http: {requestHeadersReceivedTimeout: 1d}}\n",
			want: []string{"Timeout: invalid HTTP RequestHeadersReceivedTimeout value 1d."}},
		{name: "timeout-first-error-only", spec: "  timeout: {tcp: {idleTimeout: a}, http: {idleTimeout: b}}\n",
			want: []string{"Timeout: invalid TCP IdleTimeout value a."}},
		{name: "builders-in-order", spec: "  timeout: {tcp: {idleTimeout: a}}\n  connection: {bufferLimit: 100m}\n  tcpKeepalive: {idleTime: c}\n",
			want: []string{"TCP KeepAlive: invalid IdleTime value c.", "Connection: invalid BufferLimit value 100m.", "Timeout: invalid TCP IdleTimeout value a."}},
		{name: "headers.empty-name", spec: "  headers: {earlyRequestHeaders: {add: [{name: '', value: x}, {name: ok, value: y}]}}\n",
			want: []string{"Headers: EarlyRequestHeaders cannot add a header with an empty name"}},
		{name: "headers.slash-or-colon", spec: "  headers: {lateResponseHeaders: {addIfAbsent: [{name: 'a/b', value: x}], remove: [y]}}\n",
			want: []string{"Headers: LateResponseHeaders cannot addIfAbsent a header with a '/' or ':' character in them. Header: '\"a/b\"'"}},
		{name: "headers.invalid-value", spec: "  headers: {earlyRequestHeaders: {set: [{name: a, value: 'x  y'}, {name: b, value: z}]}}\n",
			want: []string{"Headers: EarlyRequestHeaders cannot set a header with an invalid value. Header: '\"a\"'"}},
		{name: "headers.remove-empty", spec: "  headers: {lateResponseHeaders: {remove: ['', x]}}\n",
			want: []string{"Headers: LateResponseHeaders cannot remove a header with an empty name"}},
		{name: "headers.removeOnMatch-empty", spec: "  headers: {earlyRequestHeaders: {removeOnMatch: [{type: Prefix, value: ''}], remove: [x]}}\n",
			want: []string{"Headers: EarlyRequestHeaders cannot remove a header with an empty matcher value"}},
		{name: "headers.nothing-valid", spec: "  headers: {earlyRequestHeaders: {add: [{name: 'a:b', value: x}]}}\n",
			want: []string{"Headers: EarlyRequestHeaders cannot add a header with a '/' or ':' character in them. Header: '\"a:b\"'",
				"Headers: EarlyRequestHeaders did not provide valid configuration to add/set/remove any headers"}},
		{name: "headers.empty-modifier", spec: "  headers: {lateResponseHeaders: {}}\n",
			want: []string{"Headers: LateResponseHeaders did not provide valid configuration to add/set/remove any headers"}},
		{name: "headers-valid", spec: "  headers: {earlyRequestHeaders: {add: [{name: x-a, value: 'one two'}], removeOnMatch: [{value: x-b}]}}\n"},
		// Envoy Gateway prints the Quantity it decoded (its canonical
		// form, 100), not the text as written.
		{name: "http2.window-not-whole", spec: "  http2: {initialStreamWindowSize: 100000m}\n",
			want: []string{"HTTP2: invalid InitialStreamWindowSize value 100"}},
		{name: "http2.window-range", spec: "  http2: {initialStreamWindowSize: 1Ki, initialConnectionWindowSize: 4Gi}\n",
			want: []string{"HTTP2: InitialStreamWindowSize value 1Ki is out of range, must be between 65535 and 2147483647",
				"HTTP2: InitialConnectionWindowSize value 4Gi is out of range, must be between 65535 and 2147483647"}},
		{name: "http2.connectionKeepalive", spec: "  http2: {connectionKeepalive: {interval: x, timeout: 5s, idleInterval: y}}\n",
			want: []string{`HTTP2: invalid ConnectionKeepalive.Interval: time: invalid duration "x".`, `HTTP2: invalid ConnectionKeepalive.IdleInterval: time: invalid duration "y".`}},
		{name: "tls.ciphers", spec: "  tls: {ciphers: [INVALID-CIPHER], clientValidation: {}}\n",
			want: []string{"TLS: unsupported cipher suite: INVALID-CIPHER."}},
		{name: "tls.clientValidation.mode-needs-ca", spec: "  tls: {clientValidation: {mode: VerifyIfGiven}}\n",
			want: []string{`TLS: tls.clientValidation.mode "VerifyIfGiven" requires caCertificateRefs.`}},
		{name: "tls.clientValidation.default-mode-needs-ca", spec: "  tls: {clientValidation: {}}\n",
			want: []string{`TLS: tls.clientValidation.mode "RequireAndVerify" requires caCertificateRefs.`}},
		{name: "tls.clientValidation.optional-needs-ca", spec: "  tls: {clientValidation: {optional: true}}\n",
			want: []string{`TLS: tls.clientValidation.optional=true requires caCertificateRefs (maps to mode "VerifyIfGiven").`}},
		{name: "tls.clientValidation.request-needs-no-ca", spec: "  tls: {clientValidation: {mode: Request}}\n"},
		{name: "tls.clientValidation.ca-missing", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: nope}]}}\n",
			want: []string{"TLS: failed to get certificate from ref: secret default/nope does not exist."}},
		{name: "tls.clientValidation.ca-configmap-missing", spec: "  tls: {clientValidation: {caCertificateRefs: [{kind: ConfigMap, name: nope}]}}\n",
			want: []string{"TLS: failed to get certificate from ref: configmap default/nope does not exist."}},
		{name: "tls.clientValidation.ca-kind", spec: "  tls: {clientValidation: {caCertificateRefs: [{kind: Service, name: ca}]}}\n", others: caSecret,
			want: []string{"TLS: failed to get certificate from ref: unsupported ref kind:Service."}},
		{name: "tls.clientValidation.ca-group", spec: "  tls: {clientValidation: {caCertificateRefs: [{group: x.io, kind: Secret, name: ca}]}}\n", others: caSecret,
			want: []string{"TLS: failed to get certificate from ref: secret ref group must be unspecified/empty."}},
		{name: "tls.clientValidation.ca-grant", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca, namespace: other}]}}\n",
			others: "---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: other}\ndata: {ca.crt: eA==}\n",
			want:   []string{"TLS: failed to get certificate from ref: ref to Secret other/ca not permitted by any ReferenceGrant."}},
		{name: "tls.clientValidation.ca-granted", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca, namespace: other}]}}\n",
			others: "---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: other}\ndata: {ca.crt: " + ca + "}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: other}\nspec:\n" +
				"  from: [{group: gateway.envoyproxy.io, kind: ClientTrafficPolicy, namespace: default}]\n  to: [{group: '', kind: Secret}]\n"},
		{name: "tls.clientValidation.ca-key", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca}]}}\n",
			others: "---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: default}\ndata: {a: eA==, b: eA==}\n",
			want:   []string{"TLS: failed to get certificate from ref: ref secret [ca] has none of the expected keys [ca.crt] and more than one entry."}},
		// validateAndGetDataAtKeyInRef refuses the entry it found when it is
		// empty, in the words of a key not found (checked with egctl)
		{name: "tls.clientValidation.ca-key-empty", spec: "  tls: {clientValidation: {caCertificateRefs: [{kind: ConfigMap, name: ca}]}}\n",
			others: "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: default}\ndata: {ca.crt: ''}\n",
			want:   []string{"TLS: failed to get certificate from ref: ref configmap [ca] has none of the expected keys [ca.crt] and more than one entry."}},
		{name: "tls.clientValidation.ca-single-entry-empty", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca}]}}\n",
			others: "---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: default}\ndata: {other.pem: ''}\n",
			want:   []string{"TLS: failed to get certificate from ref: ref secret [ca] has none of the expected keys [ca.crt] and more than one entry."}},
		{name: "tls.clientValidation.ca-single-entry", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca}]}}\n",
			others: "---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: default}\ndata: {other.pem: " + ca + "}\n"},
		{name: "tls.clientValidation.crl-missing", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca}], crl: {refs: [{name: crl}]}}}\n", others: caSecret,
			want: []string{"TLS: failed to get crl from ref: secret default/crl does not exist."}},
		{name: "tls.clientValidation.crl-key", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca}], crl: {refs: [{kind: ConfigMap, name: crl}]}}}\n",
			others: caSecret + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: crl, namespace: default}\ndata: {a: x, b: y}\n",
			want:   []string{"TLS: failed to get crl from ref: ref configmap [crl] has none of the expected keys [ca.crl] and more than one entry."}},
		{name: "tls.clientValidation.crl-valid", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca}], crl: {refs: [{kind: ConfigMap, name: crl}]}}}\n",
			others: caSecret + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: crl, namespace: default}\ndata: {ca.crl: " + quoted(pki.crl) + "}\n"},
		{name: "tls.clientValidation-valid", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca}]}}\n", others: caSecret},
		// the content of the CA bundle and the CRL (filterValidCACertificates, validateCrl)
		{name: "tls.clientValidation.ca-expired", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: old}]}}\n",
			others: "---\napiVersion: v1\nkind: Secret\nmetadata: {name: old, namespace: default}\ndata: {ca.crt: " + b64(pki.expiredCA) + "}\n",
			want:   []string{"TLS: no valid certificates exist in old: the certificate in PEM block 1 has expired since " + expiry(t, pki.expiredCA) + "."}},
		{name: "tls.clientValidation.ca-partly-expired", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: both}]}}\n",
			others: "---\napiVersion: v1\nkind: Secret\nmetadata: {name: both, namespace: default}\ndata: {ca.crt: " + b64(append(append([]byte{}, pki.expiredCA...), pki.ca...)) + "}\n"},
		{name: "tls.clientValidation.ca-not-pem", spec: "  tls: {clientValidation: {caCertificateRefs: [{kind: ConfigMap, name: text}]}}\n",
			others: "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: text, namespace: default}\ndata: {ca.crt: not a certificate}\n",
			want:   []string{"TLS: no valid certificates exist in text: unable to decode pem data for certificate."}},
		{name: "tls.clientValidation.ca-configmap-binaryData", spec: "  tls: {clientValidation: {caCertificateRefs: [{kind: ConfigMap, name: bin}]}}\n",
			others: "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bin, namespace: default}\ndata: {a: " + quoted(pki.ca) + ", b: " + quoted(pki.ca) + "}\nbinaryData: {ca.crt: " + ca + "}\n",
			want:   []string{"TLS: failed to get certificate from ref: ref configmap [bin] has none of the expected keys [ca.crt] and more than one entry."}},
		// a ClusterTrustBundle CA (validateAndGetDataAtKeyInRef: cluster-scoped, its trustBundle)
		{name: "tls.clientValidation.ca-clustertrustbundle-missing", spec: "  tls: {clientValidation: {caCertificateRefs: [{kind: ClusterTrustBundle, name: roots}]}}\n",
			want: []string{"TLS: failed to get certificate from ref: ref ClusterTrustBundle [roots] not found."}},
		{name: "tls.clientValidation.ca-clustertrustbundle", spec: "  tls: {clientValidation: {caCertificateRefs: [{kind: ClusterTrustBundle, name: roots}]}}\n",
			others: "---\napiVersion: certificates.k8s.io/v1beta1\nkind: ClusterTrustBundle\nmetadata: {name: roots}\nspec: {trustBundle: " + quoted(pki.ca) + "}\n"},
		{name: "tls.clientValidation.ca-clustertrustbundle-expired", spec: "  tls: {clientValidation: {caCertificateRefs: [{kind: ClusterTrustBundle, name: roots}]}}\n",
			others: "---\napiVersion: certificates.k8s.io/v1alpha1\nkind: ClusterTrustBundle\nmetadata: {name: roots}\nspec: {trustBundle: " + quoted(pki.expiredCA) + "}\n",
			want:   []string{"TLS: no valid certificates exist in roots: the certificate in PEM block 1 has expired since " + expiry(t, pki.expiredCA) + "."}},
		{name: "tls.clientValidation.crl-expired", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca}], crl: {refs: [{kind: ConfigMap, name: crl}]}}}\n",
			others: caSecret + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: crl, namespace: default}\ndata: {ca.crl: " + quoted(pki.expiredCRL) + "}\n",
			want:   []string{"TLS: invalid crl in crl: CRL is expired (next update was due at " + crlNext(t, pki.expiredCRL) + ")."}},
		{name: "tls.clientValidation.crl-not-pem", spec: "  tls: {clientValidation: {caCertificateRefs: [{name: ca}], crl: {refs: [{kind: ConfigMap, name: crl}]}}}\n",
			others: caSecret + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: crl, namespace: default}\ndata: {ca.crl: x}\n",
			want:   []string{"TLS: invalid crl in crl: unable to decode pem data for CRL."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := messages(decodeCTP(t, tc.spec, tc.others))
			if !slices.Equal(got, tc.want) {
				t.Errorf("invalid =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestClientTrafficPolicyDeprecatedFields: the deprecated fields Envoy
// Gateway warns about, sorted by path in one DeprecatedField message, and
// each a lint finding at its field.
func TestClientTrafficPolicyDeprecatedFields(t *testing.T) {
	p := decodeCTP(t, "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  enableProxyProtocol: true\n"+
		"  headers: {preserveXRequestID: true}\n  tls: {clientValidation: {optional: true, caCertificateRefs: [{name: ca}]}}\n",
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: ca, namespace: default}\ndata: {ca.crt: eA==}\n")
	want := []string{
		"spec.enableProxyProtocol is deprecated, use spec.proxyProtocol instead",
		"spec.headers.preserveXRequestID is deprecated, use spec.headers.requestID instead",
		"spec.targetRef is deprecated, use spec.targetRefs instead",
		"spec.tls.clientValidation.optional is deprecated, use spec.tls.clientValidation.mode instead",
	}
	if got := sorted(decoded(p).deprecated); !slices.Equal(got, want) {
		t.Errorf("deprecated = %q, want %q", got, want)
	}
	var fields []string
	for _, f := range p.Findings {
		if f.Code == model.LintDeprecatedVersion.Code {
			fields = append(fields, f.Field)
		}
	}
	slices.Sort(fields)
	if wantFields := []string{"spec.enableProxyProtocol", "spec.headers.preserveXRequestID", "spec.targetRef", "spec.tls.clientValidation.optional"}; !slices.Equal(fields, wantFields) {
		t.Errorf("deprecation findings at %q, want %q", fields, wantFields)
	}
	if p := decodeCTP(t, "  tls: {clientValidation: {optional: false, caCertificateRefs: [{name: ca}]}}\n", ""); len(decoded(p).deprecated) != 0 {
		t.Errorf("optional: false is not reported by Envoy Gateway; got %q", decoded(p).deprecated)
	}
}

// refinedCTP is decodeCTP's policy judged once the listener verdict is
// known (RefineWithGraph), as the pipeline does: the graph is built with
// Envoy Gateway's own rules (its family registered).
func refinedCTP(t *testing.T, spec, others string) *policy.Policy {
	t.Helper()
	doc := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: p, namespace: default}\nspec:\n" + spec + others
	objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
	if err != nil || len(objs) == 0 {
		t.Fatalf("parse: %v (%d objects)", err, len(objs))
	}
	reg := policy.NewRegistry(All()...)
	reg.AddFamilies(Family)
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
	g := topology.Build(m, reg.TopologyOptions(policy.Config{}, ControllerName))
	p := clientTrafficPolicy.Decode(objs[0], &policy.Env{Model: m})
	clientTrafficPolicy.RefineWithGraph(p, g)
	return p
}

// TestClientTrafficPolicyListenerScope: Envoy Gateway builds the HTTP
// settings (headers, HTTP/2) only for HTTP listeners and the TLS settings
// (ciphers, client validation) only for listeners that terminate TLS, of
// those it programs — a Gateway's ListenerSets' listeners among a whole
// Gateway's (ProcessClientTrafficPolicies ranges over gateway.listeners)
// — so their checks only count where the policy covers such a listener.
func TestClientTrafficPolicyListenerScope(t *testing.T) {
	gateway := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: default}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
		"  - {name: web, protocol: HTTP, port: 80}\n" +
		"  - {name: secure, protocol: HTTPS, port: 443, tls: {certificateRefs: [{name: cert}]}}\n" +
		"  - {name: raw, protocol: TCP, port: 9000}\n" +
		"  - {name: pass, protocol: TLS, port: 9443, tls: {mode: Passthrough}}\n" +
		"---\n" + secrettest.TLSSecretYAML("default", "cert", "a.example.com") +
		// a Gateway whose own listener is TCP, with a ListenerSet's HTTP one
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: open, namespace: default}\nspec:\n  gatewayClassName: eg\n" +
		"  allowedListeners: {namespaces: {from: Same}}\n  listeners: [{name: raw, protocol: TCP, port: 9000}]\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: extra, namespace: default}\nspec:\n  parentRef: {name: open}\n" +
		"  listeners: [{name: x, port: 8080, protocol: HTTP}]\n"
	const bad = "  tls: {ciphers: [INVALID-CIPHER]}\n  headers: {earlyRequestHeaders: {remove: ['', x]}}\n  timeout: {tcp: {idleTimeout: x}}\n"
	target := func(gw, section string) string {
		ref := "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: " + gw
		if section != "" {
			ref += ", sectionName: " + section
		}
		return ref + "}]\n"
	}
	const timeout = "Timeout: invalid TCP IdleTimeout value x."
	const headers = "Headers: EarlyRequestHeaders cannot remove a header with an empty name"
	const cipher = "TLS: unsupported cipher suite: INVALID-CIPHER."
	tests := []struct {
		name, spec string
		want       []string
	}{
		{"http-listener", target("gw", "web") + bad, []string{timeout, headers}},
		{"https-listener", target("gw", "secure") + bad, []string{timeout, headers, cipher}},
		{"tcp-listener", target("gw", "raw") + bad, []string{timeout}},
		{"tls-passthrough-listener", target("gw", "pass") + bad, []string{timeout}},
		{"whole-gateway", target("gw", "") + bad, []string{timeout, headers, cipher}},
		{"gateway-not-in-input", "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: elsewhere}]\n" + bad, []string{timeout, headers, cipher}},
		{"a whole Gateway whose HTTP listener is its ListenerSet's", target("open", "") + bad, []string{timeout, headers}},
		{"a Gateway's sectionName naming its ListenerSet's HTTP listener", target("open", "x") + bad, []string{timeout, headers}},
		{"the Gateway's own TCP listener of that Gateway", target("open", "raw") + bad, []string{timeout}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := messages(refinedCTP(t, tc.spec, gateway))
			if !slices.Equal(got, tc.want) {
				t.Errorf("invalid =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
	// The HTTP/3 warning names the programmed HTTPS listeners of each
	// target, which status decides from the listener verdict
	// (statusRun.http3Warning; TestEnvoyGatewayHTTP3WarningNamesListeners):
	// decoding only records that the policy asks for it, and writes no
	// warning of its own.
	const quic = "  http3: {}\n  tls: {clientValidation: {mode: Request}}\n"
	for _, section := range []string{"web", "secure"} {
		d := decoded(decodeCTP(t, target("gw", section)+quic, gateway))
		if !d.http3ClientValidation || d.warning[0] != "" {
			t.Errorf("%s: http3ClientValidation %v, warning %q; want true and none", section, d.http3ClientValidation, d.warning[0])
		}
	}
}
