package envoy_test

import (
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
)

// TestBackendTLSPolicyRankedByController: two BackendTLSPolicies on one
// Service, one on the whole Service and one on its port https
// (sectionName). kgateway's plugin takes the oldest of the whole
// Service's and the port's alike, then the smaller reference
// group/kind/namespace/name/sectionName, a policy without
// creationTimestamp the oldest of all (MergePolicies →
// WinnerPolicyIndexByCreationTimeAndRef; policy.Controller.BackendRank);
// Envoy Gateway takes the port's own first (getBackendTLSPolicy). Each
// Gateway's cluster for port https has its controller's winner, whose
// hostname is the SNI; the other port's cluster has the whole Service's;
// status says Conflicted of kgateway's loser against kgateway's Gateway
// (Envoy Gateway calls a policy Conflicted only when an earlier one has
// the same target key, ProcessBackendTLSPolicyStatus: the whole Service's
// stays Accepted for the port it governs, row K12), and explain's backend
// view names the winner.
// The same on a Service both Gateways use: each cluster as its own
// controller ranks. Shapes no public case has.
func TestBackendTLSPolicyRankedByController(t *testing.T) {
	btp := func(name, created, section string) string {
		meta := "{name: " + name + ", namespace: infra}"
		if created != "" {
			meta = "{name: " + name + ", namespace: infra, creationTimestamp: \"" + created + "\"}"
		}
		sec := ""
		if section != "" {
			sec = ", sectionName: " + section
		}
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: " + meta + "\nspec:\n" +
			"  targetRefs: [{group: \"\", kind: Service, name: svc" + sec + "}]\n  validation: {wellKnownCACertificates: System, hostname: " + name + ".example}\n"
	}
	// both Gateways route kg.example and eg.example to svc's two ports
	input := func(parents string) string {
		in := strings.Replace(strangerRoutes, "spec: {ports: [{port: 80}]}", "spec: {ports: [{port: 80, name: https}, {port: 81, name: admin}]}", 1)
		in = strings.Replace(in, "parentRefs: [{name: kgw}, {name: egw}, {name: hgw}]", "parentRefs: ["+parents+"]", 1)
		return in + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: admin, namespace: infra}\nspec:\n  parentRefs: [" + parents + "]\n" +
			"  hostnames: [admin.example]\n  rules: [{backendRefs: [{name: svc, port: 81}]}]\n"
	}
	const old, newer = "2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z"
	for _, tc := range []struct {
		name, policies string
		parents        string
		kg, eg         string // the SNI of each controller's cluster for port https ("": no Gateway of it)
		kgLoser        string // the policy kgateway reports Conflicted
		egLoser        string // … and Envoy Gateway (none: no same target key here)
	}{
		{"the whole Service's older: kgateway takes it on the port too", btp("whole", old, "") + btp("port", newer, "https"),
			"{name: kgw}", "whole.example", "", "port", ""},
		{"the port's older: both take it", btp("whole", newer, "") + btp("port", old, "https"),
			"{name: kgw}", "port.example", "", "whole", ""},
		{"same age: kgateway's reference order (infra/a-whole/ before infra/port/https)", btp("a-whole", old, "") + btp("port", old, "https"),
			"{name: kgw}", "a-whole.example", "", "port", ""},
		{"no creationTimestamp is the oldest to kgateway", btp("whole", "", "") + btp("port", old, "https"),
			"{name: kgw}", "whole.example", "", "port", ""},
		{"a name another's prefix: kgateway compares infra/p/ with infra/p-2/https", btp("p", old, "") + btp("p-2", old, "https"),
			"{name: kgw}", "p-2.example", "", "p", ""},
		{"Envoy Gateway alone: the port's own first", btp("whole", old, "") + btp("port", newer, "https"),
			"{name: egw}", "", "port.example", "", ""},
		{"a Service both use: each cluster as its controller ranks", btp("whole", old, "") + btp("port", newer, "https"),
			"{name: kgw}, {name: egw}", "whole.example", "port.example", "port", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("fixture.yaml", []byte(input(tc.parents)+tc.policies), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			res := compile(t, &manifest.Set{Objects: objs}, policy.Config{})
			out := render(t, res, envoy.Options{})
			for _, want := range []struct{ host, sni string }{{"kg.example", tc.kg}, {"eg.example", tc.eg}} {
				if want.sni == "" {
					continue
				}
				if got := clusterSNI(t, routeCluster(t, out, want.host)); got != want.sni {
					t.Errorf("%s: port https's cluster SNI %q, want %q", want.host, got, want.sni)
				}
			}
			rep := status.Compute(res, status.Options{})
			for _, p := range rep.Policies {
				if p.Kind != "BackendTLSPolicy" {
					continue
				}
				for _, a := range p.Ancestors {
					// each Gateway's own controller's entry: HAPTIC writes
					// entries of its own on every Gateway of the routes to
					// the Service (its status rule, TestHAPTICBackendTLSPolicyStatus)
					if own := map[string]string{"kgw": "kgateway.dev/kgateway", "egw": "gateway.envoyproxy.io/gatewayclass-controller"}[a.AncestorRef.Name]; a.ControllerName != own {
						continue
					}
					loser := map[string]string{"kgw": tc.kgLoser, "egw": tc.egLoser}[a.AncestorRef.Name]
					acc := ""
					for _, c := range a.Conditions {
						if c.Type == "Accepted" {
							acc = c.Status + "/" + c.Reason
						}
					}
					if wantConflicted := p.Name == loser; wantConflicted != (acc == "False/Conflicted") {
						t.Errorf("%s on %s: Accepted %s, Conflicted wanted %v", p.Name, a.AncestorRef.Name, acc, wantConflicted)
					}
				}
			}
			if tc.kg == "" {
				return
			}
			// the verdict lint reads (GWP301) says why, on kgateway's ranking
			if tc.eg == "" {
				for _, p := range res.Policies.Policies {
					for _, v := range res.Verdicts(p) {
						if p.Obj.Name != tc.kgLoser || v.Rejection.Verdict != policy.VerdictConflicted || !strings.Contains(v.Rejection.Why, "by age alone") {
							t.Errorf("%s: verdict %s (why %q), want Conflicted by kgateway's ranking only on %s", p.Obj.Name, v.Rejection.Verdict, v.Rejection.Why, tc.kgLoser)
						}
					}
				}
			}
			// explain's backend view of port https: the winner owns the
			// validation, and the reason is the controller's ranking
			ex, err := explain.Explain(res, explain.TargetSpec{Kind: "Service", Namespace: "infra", Name: "svc", Section: "https"}, explain.Options{})
			if err != nil {
				t.Fatal(err)
			}
			winner := "BackendTLSPolicy/infra/" + strings.TrimSuffix(tc.kg, ".example")
			if tc.eg != "" { // both: the Service's own merge is Envoy Gateway's, kgateway's named in a note
				if txt := strings.Join(ex.Targets[0].Notes, "\n"); !strings.Contains(txt, "Gateway infra/kgw builds for it takes BackendTLSPolicy from gateway.networking.k8s.io/"+winner) {
					t.Errorf("explain: notes\n%s", txt)
				}
				return
			}
			found := false
			for _, f := range ex.Targets[0].Fields {
				if !strings.HasSuffix(f.PolicyKind, "/BackendTLSPolicy") {
					continue
				}
				found = true
				if !strings.Contains(f.Owner, strings.TrimSuffix(tc.kg, ".example")) || len(f.Decisions) == 0 || !strings.Contains(f.Decisions[0].Reason, "by age alone") {
					t.Errorf("explain: owner %s (want %s), decisions %+v", f.Owner, winner, f.Decisions)
				}
			}
			if !found {
				t.Errorf("explain: no BackendTLSPolicy row")
			}
		})
	}
}

// clusterSNI is the SNI of a cluster's TLS transport socket ("" when it
// has none).
func clusterSNI(t *testing.T, c *clusterv3.Cluster) string {
	t.Helper()
	if c == nil || c.GetTransportSocket() == nil {
		return ""
	}
	var tc tlsv3.UpstreamTlsContext
	if err := c.GetTransportSocket().GetTypedConfig().UnmarshalTo(&tc); err != nil {
		t.Fatal(err)
	}
	return tc.GetSni()
}
