package envoygateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestBackendChecks has one subtest per check of Envoy Gateway's
// validateBackend that a route's backendRef to a Backend runs
// (validateBackendRefBackend); docs/controllers/envoygateway-checks.md
// names them. Each case is the Backend's spec (and other objects) and the
// route's unresolved reason and message ("" when it resolves); the
// Backend's own status (ProcessBackends) must say the same, unless the
// check is the backendRef's alone (routeOnly: a Unix socket, mixed
// address types).
func TestBackendChecks(t *testing.T) {
	const ca = "{caCertificateRefs: [{group: '', kind: ConfigMap, name: ca}]}"
	const caMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: default}\ndata: {ca.crt: x}\n"
	const twoPorts = "endpoints: [{fqdn: {hostname: a.example.com, port: 443}}, {fqdn: {hostname: b.example.com, port: 8443}}]"
	tests := []struct {
		name, backend, others, reason, message string
		routeOnly                              bool
	}{
		{name: "valid", backend: "{endpoints: [{fqdn: {hostname: api.example.com, port: 80}}]}"},
		{name: "dynamic-resolver-endpoints", backend: "{type: DynamicResolver, endpoints: [{fqdn: {hostname: api.example.com, port: 80}}]}",
			reason: "InvalidBackendRef", message: "DynamicResolver type cannot have endpoints specified."},
		{name: "tls-no-ca", backend: "{tls: {sni: x.example.com}, " + twoPorts + "}",
			reason: "InvalidBackendRef", message: "must specify either CACertificateRefs or WellKnownCACertificates when InsecureSkipVerify is unset or false."},
		{name: "tls-own-ca", backend: "{tls: " + ca + ", " + twoPorts + "}", others: caMap},
		{name: "tls-insecure", backend: "{tls: {insecureSkipVerify: true}, " + twoPorts + "}"},
		{name: "tls-client-cert-namespace", backend: "{tls: {insecureSkipVerify: true, clientCertificateRef: {name: c, namespace: other}}, " + twoPorts + "}",
			reason: "InvalidBackendRef", message: "clientCertificateRef Secret is not located in the same namespace as Backend. Secret namespace: other does not match Backend namespace: default."},
		{name: "fqdn-invalid", backend: "{endpoints: [{fqdn: {hostname: 'bad_host.example.com', port: 80}}]}",
			reason: "InvalidAddress", message: "hostname bad_host.example.com is not a valid FQDN."},
		{name: "fqdn-one-label", backend: "{endpoints: [{fqdn: {hostname: localhost, port: 80}}]}",
			reason: "InvalidAddress", message: "hostname localhost should be a domain with at least two segments separated by dots."},
		{name: "fqdn-trailing-dot", backend: "{endpoints: [{fqdn: {hostname: 'localhost.', port: 80}}]}"},
		{name: "fqdn-ip", backend: "{endpoints: [{fqdn: {hostname: 10.0.0.1, port: 80}}]}",
			reason: "InvalidAddress", message: "hostname 10.0.0.1 is an IP address."},
		{name: "endpoint-hostname", backend: "{endpoints: [{hostname: 'a_b.example.com', ip: {address: 10.0.0.1, port: 80}}]}",
			reason: "InvalidAddress", message: "hostname a_b.example.com is not a valid hostname."},
		{name: "ip-invalid", backend: "{endpoints: [{ip: {address: 10.0.0.300, port: 80}}]}",
			reason: "InvalidAddress", message: "IP address 10.0.0.300 is invalid."},
		{name: "ip-loopback", backend: "{endpoints: [{ip: {address: 127.0.0.2, port: 80}}]}",
			reason: "InvalidAddress", message: "IP address 127.0.0.2 in the loopback range is only supported when using the Host infrastructure."},
		{name: "unix", backend: "{endpoints: [{unix: {path: /var/run/s.sock}}]}",
			reason: "UnsupportedAddressType", message: "unix domain sockets are not supported in backend references.", routeOnly: true},
		{name: "validate-before-unix", backend: "{endpoints: [{unix: {path: /var/run/s.sock}}, {ip: {address: 127.0.0.1, port: 80}}]}",
			reason: "InvalidAddress", message: "IP address 127.0.0.1 in the loopback range is only supported when using the Host infrastructure."},
		{name: "mixed-fqdn-and-ip", backend: "{endpoints: [{fqdn: {hostname: api.example.com, port: 80}}, {ip: {address: 10.0.0.1, port: 80}}]}",
			reason: "UnsupportedAddressType", message: "mixed FQDN and IP or Unix address type for the same backendRef is not supported.", routeOnly: true},
		{name: "ip-and-ip", backend: "{endpoints: [{ip: {address: 10.0.0.1, port: 80}}, {ip: {address: 10.0.0.2, port: 80}}]}"},
		{name: "not-found", backend: "",
			reason: "BackendNotFound", message: "Backend default/b not found."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.others + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: default}\nspec:\n" +
				"  rules: [{backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: b, port: 80}]}]\n"
			if tc.backend != "" {
				doc += "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: default}\nspec: " + tc.backend + "\n"
			}
			objs, err := manifest.Parse("b.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			reg := policy.NewRegistry(All()...)
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
			g := topology.Build(m, topology.Options{BackendKinds: reg.BackendKinds()})
			env := &policy.Env{Model: m, Config: extensionsOn(policy.Config{})}
			rt := g.Route("HTTPRoute", "default", "r")
			if rt == nil {
				t.Fatalf("route not built: %v", m.Diagnostics)
			}
			set := reg.Decode(env)
			v := Family.ValidateRoute(rt, env, set)
			var reason, message string
			if len(v.Unresolved) > 0 {
				reason, message = v.Unresolved[0].Reason, strings.TrimPrefix(v.Unresolved[0].Message, "Failed to process route rule 0 backendRef 0: ")
			}
			if reason != tc.reason || message != tc.message {
				t.Errorf("unresolved %s %q, want %s %q", reason, message, tc.reason, tc.message)
			}
			if tc.backend == "" {
				return
			}
			want := "The Backend was accepted"
			if tc.reason != "" && !tc.routeOnly {
				want = "The Backend was not accepted: " + strings.TrimSuffix(tc.message, ".")
			}
			if got := backendCondition(t, Family.ObjectVerdicts(env, set)); got != want {
				t.Errorf("Backend status %q, want %q", got, want)
			}
		})
	}
}

// backendCondition is the message of the one Backend's Accepted
// condition among vs.
func backendCondition(t *testing.T, vs []policy.ObjectVerdict) string {
	t.Helper()
	if len(vs) != 1 || len(vs[0].Conditions) != 1 || vs[0].Conditions[0].Type != "Accepted" {
		t.Fatalf("object verdicts %+v, want one Accepted condition on the Backend", vs)
	}
	c := vs[0].Conditions[0]
	if (c.Status == "True") != (c.Message == "The Backend was accepted") || (c.Status == "True") != (len(vs[0].Diagnostics) == 0) {
		t.Errorf("condition %+v with findings %v: status, message and findings disagree", c, vs[0].Diagnostics)
	}
	return c.Message
}
