package status_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/status"
)

// TestEnvoyGatewayBackendTLSPolicyUnreached: Envoy Gateway builds a
// destination's upstream TLS from the Backend's own settings first — its
// CA certificates, then its client certificate — and returns on their
// error before it looks for a BackendTLSPolicy (backendtlspolicy.go:
// applyBackendTLSSetting, processServerValidationTLSSettings and
// processClientTLSSettings before processBackendTLSPolicy). So a policy on
// such a Backend gets no ancestor from that destination, a route's or a
// calling policy's, and its own references are judged nowhere: it is not
// invalid for a use that never reaches it. Each shape was checked with
// egctl x translate v1.9.0.
func TestEnvoyGatewayBackendTLSPolicyUnreached(t *testing.T) {
	const system = "{hostname: a.example.com, wellKnownCACertificates: System}"
	const missingCA = "{hostname: a.example.com, caCertificateRefs: [{group: '', kind: ConfigMap, name: nope}]}"
	const ok = "Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs"
	const noCA = "Accepted=False/NoValidCACertificate ResolvedRefs=False/InvalidCACertificateRef"
	// bad's own CA ConfigMap is missing; good trusts the system's CAs;
	// foreign's client certificate is in another namespace (a route's
	// Backend validation refuses that first; a calling policy's backends
	// meet it when the destination is built).
	backends := egBackend("bad", "  endpoints: [{fqdn: {hostname: bad.example.com, port: 443}}]\n  tls: {caCertificateRefs: [{group: '', kind: ConfigMap, name: gone}]}\n") +
		egBackend("good", "  endpoints: [{fqdn: {hostname: good.example.com, port: 443}}]\n  tls: {wellKnownCACertificates: System}\n") +
		egBackend("foreign", "  endpoints: [{fqdn: {hostname: foreign.example.com, port: 443}}]\n  tls:\n    wellKnownCACertificates: System\n    clientCertificateRef: {name: cert, namespace: certs}\n") +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: cert, namespace: certs}\ntype: kubernetes.io/tls\ndata: {tls.crt: eA==, tls.key: eQ==}\n"
	be := func(name string) string {
		return "{group: gateway.envoyproxy.io, kind: Backend, name: " + name + ", port: 443}"
	}
	route := func(names ...string) string {
		var refs []string
		for _, n := range names {
			refs = append(refs, be(n))
		}
		return egHTTPRoute("[" + strings.Join(refs, ", ") + "]")
	}
	btls := func(targets, validation string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" +
			"  targetRefs: [" + targets + "]\n  validation: " + validation + "\n"
	}
	target := func(name, section string) string {
		t := "{group: gateway.envoyproxy.io, kind: Backend, name: " + name
		if section != "" {
			t += ", sectionName: '" + section + "'"
		}
		return t + "}"
	}
	extProc := func(name string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: e, namespace: infra}\nspec:\n" +
			"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n" +
			"  extProc: [{backendRefs: [{group: gateway.envoyproxy.io, kind: Backend, name: " + name + ", namespace: app, port: 443}]}]\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1beta1\nkind: ReferenceGrant\nmetadata: {name: g, namespace: app}\n" +
			"spec: {from: [{group: gateway.envoyproxy.io, kind: EnvoyExtensionPolicy, namespace: infra}], to: [{group: gateway.envoyproxy.io, kind: Backend}]}\n"
	}
	for _, tc := range []struct {
		name, docs string
		ancestors  []string // BackendTLSPolicy app/p's, "ANCESTOR: conditions"
		invalid    string   // p's Invalid (what lint reports), "" for none
	}{
		{name: "a route to a Backend whose own CA fails: no ancestor",
			docs: route("bad") + btls(target("bad", ""), system)},
		{name: "… by sectionName",
			docs: route("bad") + btls(target("bad", "443"), system)},
		{name: "… and the policy's own CA missing: judged nowhere, not invalid",
			docs: route("bad") + btls(target("bad", ""), missingCA)},
		{name: "the policy on a second Backend the route reaches: that use alone",
			docs:      route("bad", "good") + btls(target("bad", "")+", "+target("good", ""), missingCA),
			ancestors: []string{"Gateway/infra/gw#http: " + noCA},
			invalid:   "onfigmap nope not found in namespace app"},
		{name: "the same Backend reached: the policy's own CA judged",
			docs:      route("good") + btls(target("good", ""), missingCA),
			ancestors: []string{"Gateway/infra/gw#http: " + noCA},
			invalid:   "onfigmap nope not found in namespace app"},
		{name: "a calling policy's service on a Backend whose own CA fails: no ancestor",
			docs: extProc("bad") + btls(target("bad", ""), missingCA)},
		{name: "a calling policy's service on a Backend whose client certificate is in another namespace: no ancestor",
			docs: extProc("foreign") + btls(target("foreign", ""), system)},
		{name: "a calling policy's service on a Backend it reaches",
			docs:      extProc("good") + btls(target("good", ""), system),
			ancestors: []string{"EnvoyExtensionPolicy/infra/e: " + ok}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("test.yaml", []byte(egRoutesBase+backends+tc.docs), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := &pipeline.Config{Namespace: "default", Settings: map[string]any{"envoyGateway.enableBackend": true}}
			c := families.Compile(&manifest.Set{Objects: objs}, cfg)
			got, _ := egStatuses(status.Compute(c.Result, status.Options{}))
			var ancs []string
			for k, v := range got {
				if rest, ok := strings.CutPrefix(k, "BackendTLSPolicy/app/p @ "); ok {
					ancs = append(ancs, rest+": "+v)
				}
			}
			slices.Sort(ancs)
			if !slices.Equal(ancs, tc.ancestors) {
				t.Errorf("ancestors %q, want %q", ancs, tc.ancestors)
			}
			p := c.Policies.Get(model.Key{Group: "gateway.networking.k8s.io", Kind: "BackendTLSPolicy", Namespace: "app", Name: "p"})
			if p == nil {
				t.Fatal("policy p not decoded")
			}
			var msgs []string
			for _, d := range p.Invalid {
				msgs = append(msgs, d.Message)
			}
			switch all := strings.Join(msgs, "\n"); {
			case tc.invalid == "" && all != "":
				t.Errorf("invalid: %s, want valid", all)
			case tc.invalid != "" && !strings.Contains(all, tc.invalid):
				t.Errorf("invalid: %q, want it to say %q", all, tc.invalid)
			}
		})
	}
}
