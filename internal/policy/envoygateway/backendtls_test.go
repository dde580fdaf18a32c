package envoygateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/backendtlspolicy"
	"github.com/gwpol/gwpol/internal/topology"
)

// routeRefVerdict validates an HTTPRoute app/r forwarding to backendRef
// beside docs, with cfg, through a registry holding BackendTLSPolicy, and
// returns the first problem's condition, reason and message (its route
// prefix cut), "" when the backendRef is served.
func routeRefVerdict(t *testing.T, cfg policy.Config, backendRef, docs string) string {
	t.Helper()
	doc := docs + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n" +
		"  rules: [{backendRefs: [" + backendRef + "]}]\n"
	objs, err := manifest.Parse("r.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	reg := policy.NewRegistry(append(All(), backendtlspolicy.New())...)
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "app", Extra: reg.GroupKinds()})
	g := topology.Build(m, topology.Options{BackendKinds: reg.BackendKinds()})
	env := &policy.Env{Model: m, Config: extensionsOn(cfg)}
	rt := g.Route("HTTPRoute", "app", "r")
	if rt == nil {
		t.Fatalf("route not built: %v", m.Diagnostics)
	}
	v := Family.ValidateRoute(rt, env, reg.Decode(env))
	switch {
	case len(v.Unresolved) > 0:
		return "ResolvedRefs " + v.Unresolved[0].Reason + " " + strings.TrimPrefix(v.Unresolved[0].Message, "Failed to process route rule 0 backendRef 0: ")
	case len(v.Conditions) > 0:
		return v.Conditions[0].Type + " " + v.Conditions[0].Reason + " " + strings.TrimPrefix(v.Conditions[0].Message, "Failed to find endpoints: ")
	}
	return ""
}

// Objects of the destination TLS tests, in namespace app.
const (
	tlsService = "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: app}\nspec: {ports: [{name: https, port: 8443}]}\n"
	tlsSvcRef  = "{name: svc, port: 8443}"
)

// btlsOn is a BackendTLSPolicy on the Service svc with validation v.
func btlsOn(v string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: '', kind: Service, name: svc}]\n  validation: {hostname: svc.example.com, " + v + "}\n"
}

func configMap(name, data string) string {
	return "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: app}\n" + data + "\n"
}

func secretOf(name, typ, data string) string {
	return "---\napiVersion: v1\nkind: Secret\nmetadata: {name: " + name + ", namespace: app}\ntype: " + typ + "\nstringData: " + data + "\n"
}

func caRefs(refs ...string) string { return "caCertificateRefs: [" + strings.Join(refs, ", ") + "]" }

// TestDestinationTLS has one subtest per check of Envoy Gateway's
// applyBackendTLSSetting on a route's backend (getCaCertsFromCARefs,
// processClientTLSSettings); docs/controllers/envoygateway-checks.md
// names them.
func TestDestinationTLS(t *testing.T) {
	sds := policy.Config{Values: map[string]any{EnableSDSSecretRef.Key: true}}
	const sdsRef = "{group: '', kind: Secret, name: sds}"
	sdsSecret := secretOf("sds", sdsSecretType, "{secretName: ca-bundle, url: 'unix:///var/run/sds.sock'}")
	tests := []struct {
		name      string
		cfg       policy.Config
		ref, docs string
		want      string
	}{
		{name: "a BackendTLSPolicy CA ConfigMap of two entries, neither ca.crt nor tls.crt",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: '', kind: ConfigMap, name: two}")) + configMap("two", "data: {a.pem: x, b.pem: y}"),
			want: "ResolvedRefs InvalidBackendTLS no ca found in configmap two."},
		{name: "a BackendTLSPolicy CA ConfigMap holding tls.crt only",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: '', kind: ConfigMap, name: tls}")) + configMap("tls", "data: {tls.crt: x, other: y}")},
		{name: "a BackendTLSPolicy CA ConfigMap whose CA is in binaryData",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: '', kind: ConfigMap, name: bin}")) + configMap("bin", "binaryData: {ca.crt: eA==}"),
			want: "ResolvedRefs InvalidBackendTLS no ca found in configmap bin."},
		{name: "a BackendTLSPolicy CA ConfigMap whose ca.crt is empty",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: '', kind: ConfigMap, name: empty}")) + configMap("empty", "data: {ca.crt: ''}"),
			want: "ResolvedRefs InvalidBackendTLS no valid CA certificate found in referenced resources."},
		{name: "a BackendTLSPolicy CA Secret of two entries, neither ca.crt nor tls.crt",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: '', kind: Secret, name: two}")) + secretOf("two", "Opaque", "{a: x, b: y}"),
			want: "ResolvedRefs InvalidBackendTLS no ca found in secret two."},
		{name: "a BackendTLSPolicy CA Secret not in the input",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: '', kind: Secret, name: gone}")),
			want: "ResolvedRefs InvalidBackendTLS secret gone not found in namespace app."},
		{name: "a BackendTLSPolicy naming only references of kinds Envoy Gateway does not read",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: example.com, kind: Vault, name: v}")),
			want: "ResolvedRefs InvalidBackendTLS Unsupported reference kind, supported kinds are ConfigMap, Secret, and ClusterTrustBundle in caCertificateRefs."},
		{name: "a reference of an unread kind beside a CA is skipped",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: example.com, kind: Vault, name: v}", "{group: '', kind: ConfigMap, name: ca}")) + configMap("ca", "data: {ca.crt: x}")},
		{name: "a BackendTLSPolicy ClusterTrustBundle not in the input",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: certificates.k8s.io, kind: ClusterTrustBundle, name: bundle}")),
			want: "ResolvedRefs InvalidBackendTLS cluster trust bundle bundle not found."},
		{name: "a BackendTLSPolicy ClusterTrustBundle in the input",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: certificates.k8s.io, kind: ClusterTrustBundle, name: bundle}")) +
				"---\napiVersion: certificates.k8s.io/v1beta1\nkind: ClusterTrustBundle\nmetadata: {name: bundle}\nspec: {trustBundle: x}\n"},
		{name: "a BackendTLSPolicy trusting the system's CAs reads no reference",
			ref: tlsSvcRef, docs: tlsService + btlsOn("wellKnownCACertificates: System")},
		{name: "an SDS reference Secret as a CA where the deployment does not enable them",
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs(sdsRef)) + sdsSecret,
			want: "ResolvedRefs InvalidBackendTLS " + sdsDisabled() + "."},
		{name: "an SDS reference Secret as a CA", cfg: sds,
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs(sdsRef)) + sdsSecret},
		{name: "two SDS reference Secrets as CAs", cfg: sds,
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs(sdsRef, "{group: '', kind: Secret, name: sds2}")) + sdsSecret + secretOf("sds2", sdsSecretType, "{secretName: b, url: 'unix:///var/run/sds.sock'}"),
			want: "ResolvedRefs InvalidBackendTLS multiple SDS reference secrets are not supported."},
		{name: "an SDS reference Secret beside a CA", cfg: sds,
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs(sdsRef, "{group: '', kind: ConfigMap, name: ca}")) + sdsSecret + configMap("ca", "data: {ca.crt: x}"),
			want: "ResolvedRefs InvalidBackendTLS cannot mix SDS reference secrets with other CA certificate types."},
		{name: "an SDS reference Secret without a url", cfg: sds,
			ref: tlsSvcRef, docs: tlsService + btlsOn(caRefs("{group: '', kind: Secret, name: sds-bad}")) + secretOf("sds-bad", sdsSecretType, "{secretName: b}"),
			want: "ResolvedRefs InvalidBackendTLS invalid SDS reference secret sds-bad: no url found in SDS reference secret app/sds-bad."},
		{name: "a Backend's own client certificate Secret not in the input",
			ref:  "{group: gateway.envoyproxy.io, kind: Backend, name: b}",
			docs: "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: app}\nspec:\n  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]\n  tls: {insecureSkipVerify: true, clientCertificateRef: {name: nope}}\n",
			want: "ResolvedRefs InvalidBackendTLS failed to locate TLS secret for client auth: app/nope specified in Backend app/b."},
		{name: "a Backend's own client certificate an SDS reference where the deployment does not enable them",
			ref:  "{group: gateway.envoyproxy.io, kind: Backend, name: b}",
			docs: "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: app}\nspec:\n  endpoints: [{fqdn: {hostname: a.example.com, port: 443}}]\n  tls: {insecureSkipVerify: true, clientCertificateRef: {name: sds}}\n" + sdsSecret,
			want: "ResolvedRefs InvalidBackendTLS " + sdsDisabled() + "."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := routeRefVerdict(t, tc.cfg, tc.ref, tc.docs); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestServiceImportDestination: a route's ServiceImport backend is built
// as a Service is — the BackendTLSPolicy on its port (its section is the
// port's name), its EndpointSlices (by the Multi-Cluster Services label),
// one address type — with its own rule for routing to its IPs.
func TestServiceImportDestination(t *testing.T) {
	const ref = "{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, port: 443}"
	si := func(ips string) string {
		return "---\napiVersion: multicluster.x-k8s.io/v1alpha1\nkind: ServiceImport\nmetadata: {name: si, namespace: app}\nspec: {type: ClusterSetIP, " + ips + "ports: [{name: https, port: 443, protocol: TCP}]}\n"
	}
	slice := func(name, addrType, addrs string) string {
		return "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: " + name + ", namespace: app, labels: {multicluster.kubernetes.io/service-name: si}}\n" +
			"addressType: " + addrType + "\nports: [{name: https, port: 443, protocol: TCP}]\nendpoints: [{addresses: [" + addrs + "]}]\n"
	}
	btls := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, sectionName: https}]\n  validation: {hostname: si.example.com, " + caRefs("{group: '', kind: ConfigMap, name: gone}") + "}\n"
	routesToServices := "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: ep, namespace: app}\nspec: {routingType: Service}\n"
	tests := []struct{ name, docs, want string }{
		{"served", si("") + slice("a", "IPv4", "10.0.0.1"), ""},
		{"the BackendTLSPolicy on its port's name", si("") + slice("a", "IPv4", "10.0.0.1") + btls,
			"ResolvedRefs InvalidBackendTLS configmap gone not found in namespace app."},
		{"EndpointSlices with no address", si("") + slice("a", "IPv4", ""),
			"BackendsAvailable EndpointsNotFound no ready endpoints for the related ServiceImport app/si."},
		{"no EndpointSlice in the input is not judged", si(""), ""},
		{"EndpointSlices of FQDN and IP addresses", si("") + slice("a", "IPv4", "10.0.0.1") + slice("b", "FQDN", "x.example.com"),
			"ResolvedRefs UnsupportedAddressType mixed endpointslice address type for the same backendRef is not supported."},
		{"routed to by its IPs: the EndpointSlices are not read", si("ips: [10.1.1.1], ") + slice("a", "IPv4", "") + routesToServices, ""},
		{"headless, routed to by its endpoints even then", si("") + slice("a", "IPv4", "") + routesToServices,
			"BackendsAvailable EndpointsNotFound no ready endpoints for the related ServiceImport app/si."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := routeRefVerdict(t, policy.Config{}, ref, tc.docs); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestBackendOwnTLSVerdict: a Backend's own TLS settings as
// applyBackendTLSSetting merges them for both of its callers — a route's
// backendRef (after the Backend's validation) and an external service a
// policy calls (which the Backend's validation does not reach): verifying
// the peer with no CA from the Backend or a BackendTLSPolicy on its port
// is refused, and so is a client certificate in another namespace,
// whatever the ReferenceGrants.
func TestBackendOwnTLSVerdict(t *testing.T) {
	be := func(tls string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: app}\n" +
			"spec:\n  endpoints: [{ip: {address: 10.1.2.3, port: 8443}}]\n  tls: " + tls + "\n"
	}
	portPolicy := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: b, sectionName: '8443'}]\n  validation: {hostname: b.example.com, wellKnownCACertificates: System}\n"
	grant := "---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: certs}\n" +
		"spec: {from: [{group: gateway.envoyproxy.io, kind: Backend, namespace: app}], to: [{group: '', kind: Secret}]}\n" +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: certs}\ntype: kubernetes.io/tls\nstringData: {tls.crt: x, tls.key: y}\n"
	const noCA = "CACertificate must be specified when InsecureSkipVerify is false."
	const foreign = "lientCertificateRef Secret is not located in the same namespace as Backend. Secret namespace: certs does not match Backend namespace: app."
	tests := []struct {
		name, docs    string
		route, called string // the route's verdict, the calling policy's Invalid message
	}{
		{name: "a well-known CA set other than the system's, verification asked for",
			docs:  be("{insecureSkipVerify: false, wellKnownCACertificates: example.com/bundle}"),
			route: "ResolvedRefs InvalidBackendTLS " + noCA, called: "ExtProc: " + noCA},
		{name: "SNI alone: the route's Backend validation refuses it first",
			docs:   be("{sni: b.example.com}"),
			route:  "ResolvedRefs InvalidBackendRef must specify either CACertificateRefs or WellKnownCACertificates when InsecureSkipVerify is unset or false.",
			called: "ExtProc: " + noCA},
		{name: "SNI alone, a BackendTLSPolicy on the port trusting the system's CAs",
			docs: be("{sni: b.example.com}") + portPolicy},
		{name: "verification skipped", docs: be("{insecureSkipVerify: true}")},
		{name: "the system's CAs", docs: be("{wellKnownCACertificates: System}")},
		{name: "a client certificate in another namespace, granted",
			docs:  be("{wellKnownCACertificates: System, clientCertificateRef: {name: cert, namespace: certs}}") + grant,
			route: "ResolvedRefs InvalidBackendRef c" + foreign, called: "ExtProc: C" + foreign},
	}
	const ref = "{group: gateway.envoyproxy.io, kind: Backend, name: b, port: 8443}"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := routeRefVerdict(t, policy.Config{}, ref, tc.docs); got != tc.route {
				t.Errorf("route: got  %q\nwant %q", got, tc.route)
			}
			doc := tc.docs + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: e, namespace: app}\nspec:\n" +
				"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  extProc: [{backendRefs: [" + ref + "]}]\n"
			objs, err := manifest.Parse("e.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			reg := policy.NewRegistry(append(All(), backendtlspolicy.New())...)
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "app", Extra: reg.GroupKinds()})
			p := reg.Decode(&policy.Env{Model: m, Config: extensionsOn(policy.Config{})}).Get(model.Key{Group: Group, Kind: "EnvoyExtensionPolicy", Namespace: "app", Name: "e"})
			if p == nil {
				t.Fatal("policy not decoded")
			}
			got := ""
			if len(p.Invalid) > 0 {
				got = p.Invalid[0].Message
			}
			if got != tc.called {
				t.Errorf("called: got  %q\nwant %q", got, tc.called)
			}
		})
	}
}
