package status_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/status"
)

// TestAncestorsCutAsWritten: past 16 ancestors the list is cut as the
// reporting controller writes it (policy.AncestorReport.KeepByName):
// kgateway sorts its own entries and the ones other controllers wrote by
// group, kind, name, sectionName, port and then namespace, and keeps the
// first 16 — so a Gateway "g" comes after "g-00", and another
// controller's entries of a namespace that prints first can lose their
// place to kgateway's. Before: the first 16 as printed (namespace before
// name), and a BackendTLSPolicy's list was cut before Envoy Gateway's
// own entries replaced those merge gave it. Shapes no public case has.
func TestAncestorsCutAsWritten(t *testing.T) {
	gateway := func(ns, name, class string) string {
		return fmt.Sprintf("---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: %s, namespace: %s}\nspec:\n  gatewayClassName: %s\n"+
			"  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]\n", name, ns, class)
	}
	route := func(name string, parents []string) string {
		return fmt.Sprintf("---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: %s, namespace: infra}\nspec:\n  parentRefs: [%s]\n"+
			"  rules: [{backendRefs: [{name: svc, port: 80}]}]\n", name, strings.Join(parents, ", "))
	}
	const base = egClassDoc + "---\n" + kgClassDoc +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{port: 80}]}\n"
	const btls = "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: \"\", kind: Service, name: svc}]\n  validation: {wellKnownCACertificates: System, hostname: svc.example}\n"
	const tp = "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: TrafficPolicy\nmetadata: {name: p, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: wide}]\n  timeouts: {request: 9s}\n"
	// kgOnly: kgateway Gateways g and g-00…g-16 behind one route.
	kgOnly := func() string {
		docs, parents := base+gateway("infra", "g", "kgw"), []string{"{name: g}"}
		for i := range 17 {
			docs += gateway("infra", fmt.Sprintf("g-%02d", i), "kgw")
			parents = append(parents, fmt.Sprintf("{name: g-%02d}", i))
		}
		return docs + route("wide", parents) + tp
	}
	// mixed: Envoy Gateway Gateways a/z00… and kgateway Gateways
	// infra/k00…, one route each, all to svc.
	mixed := func(eg, kg int) string {
		docs := base
		for i := range eg {
			name := fmt.Sprintf("z%02d", i)
			docs += gateway("a", name, "eg") + route("r-"+name, []string{"{name: " + name + ", namespace: a}"})
		}
		for i := range kg {
			name := fmt.Sprintf("k%02d", i)
			docs += gateway("infra", name, "kgw") + route("r-"+name, []string{"{name: " + name + "}"})
		}
		return docs + btls
	}
	span := func(prefix string, from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf(prefix, i))
		}
		return out
	}
	for _, tc := range []struct {
		name, docs string
		want       []string // "Kind/ns/name", as printed
	}{
		{name: "kgateway alone: g comes after g-00…g-16, and g-16 is the 17th", docs: kgOnly(),
			want: span("Gateway/infra/g-%02d", 0, 16)},
		{name: "kgateway's entries sort by name before another controller's of an earlier namespace", docs: mixed(16, 2),
			want: append(span("Gateway/a/z%02d", 0, 14), "Gateway/infra/k00", "Gateway/infra/k01")},
		{name: "16 together: none cut", docs: mixed(14, 2),
			want: append(span("Gateway/a/z%02d", 0, 14), "Gateway/infra/k00", "Gateway/infra/k01")},
		{name: "kgateway's past 16 with another controller's: the first 16 by name", docs: mixed(3, 18),
			want: span("Gateway/infra/k%02d", 0, 16)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, tc.docs)
			i := slices.IndexFunc(rep.Policies, func(p status.Policy) bool { return p.Name == "p" })
			if i < 0 {
				t.Fatal("no status for the policy")
			}
			var got []string
			for _, a := range rep.Policies[i].Ancestors {
				got = append(got, a.AncestorRef.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("ancestors\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
