package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// btpWritersBase: GatewayClasses of the three controllers that report a
// Gateway API BackendTLSPolicy (each a Gateway, none with a hostname),
// the Service svc and a second one, svc2; each case names which classes
// exist and adds routes and policies.
func btpWritersBase(classes ...string) string {
	names := map[string]string{"kg": "kgateway.dev/kgateway", "eg": "gateway.envoyproxy.io/gatewayclass-controller", "hp": "haproxy-haptic.org/controller"}
	var b strings.Builder
	for _, c := range classes {
		b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: " + c + "}\nspec: {controllerName: " + names[c] + "}\n")
		b.WriteString("---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: " + c + ", namespace: default}\nspec:\n  gatewayClassName: " + c +
			"\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n")
	}
	b.WriteString("---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: default}\nspec: {ports: [{name: https, port: 443}]}\n")
	b.WriteString("---\napiVersion: v1\nkind: Service\nmetadata: {name: svc2, namespace: default}\nspec: {ports: [{name: https, port: 443}]}\n")
	return b.String()
}

// btpWritersPolicy is a BackendTLSPolicy named name on Service svc,
// trusting the system CAs (which every controller takes).
func btpWritersPolicy(name, svc string) string {
	return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: default}\nspec:\n" +
		"  targetRefs: [{group: \"\", kind: Service, name: " + svc + "}]\n  validation: {hostname: " + svc + ".example.com, wellKnownCACertificates: System}\n"
}

// TestStatusReplacedByOneWriter (GWP309): a BackendTLSPolicy whose status
// holds entries of several controllers, one of which — Envoy Gateway —
// writes the status whole (provider/kubernetes/controller.go@v1.9.0
// clears the status it lists, status.go's BackendTLSPolicy updater sets
// the translator's in its place), gets a warning naming the controllers;
// read from the status gwpol computes (status.Policies), so a
// controller whose class is there but reports nothing on the policy
// does not count, and two controllers that keep each other's entries
// (kgateway, HAPTIC) give none. No public case has two controllers'
// Gateways route to one Service.
func TestStatusReplacedByOneWriter(t *testing.T) {
	for _, tc := range []struct {
		name    string
		classes []string
		objs    string
		want    []string // each a regexp one GWP309 warning must match, in order
	}{
		{name: "Envoy Gateway and kgateway route to the Service: a warning",
			classes: []string{"kg", "eg"},
			objs:    hapticBTPRoute("HTTPRoute", "default", "r", `[{name: kg}, {name: eg}]`, `[{name: svc, port: 443}]`) + btpWritersPolicy("btp", "svc"),
			want:    []string{`BackendTLSPolicy/default/btp holds entries of Envoy Gateway and kgateway; Envoy Gateway writes the status whole.* none of kgateway's until`}},
		{name: "all three: the two others named",
			classes: []string{"kg", "eg", "hp"},
			objs:    hapticBTPRoute("HTTPRoute", "default", "r", `[{name: kg}, {name: eg}, {name: hp}]`, `[{name: svc, port: 443}]`) + btpWritersPolicy("btp", "svc"),
			want:    []string{`holds entries of Envoy Gateway, HAPTIC and kgateway; .* none of HAPTIC's and kgateway's until`}},
		{name: "kgateway and HAPTIC keep each other's entries: none",
			classes: []string{"kg", "hp"},
			objs:    hapticBTPRoute("HTTPRoute", "default", "r", `[{name: kg}, {name: hp}]`, `[{name: svc, port: 443}]`) + btpWritersPolicy("btp", "svc"),
		},
		{name: "Envoy Gateway alone: none",
			classes: []string{"eg"},
			objs:    hapticBTPRoute("HTTPRoute", "default", "r", `[{name: eg}]`, `[{name: svc, port: 443}]`) + btpWritersPolicy("btp", "svc"),
		},
		{name: "an Envoy Gateway class whose routes never reach the Service: Envoy Gateway writes nothing on it, none",
			classes: []string{"kg", "eg"},
			objs: hapticBTPRoute("HTTPRoute", "default", "r", `[{name: kg}]`, `[{name: svc, port: 443}]`) +
				hapticBTPRoute("HTTPRoute", "default", "r2", `[{name: eg}]`, `[{name: svc2, port: 443}]`) + btpWritersPolicy("btp", "svc"),
		},
		{name: "HAPTIC writes on every policy it watches: with Envoy Gateway's, a warning though no HAPTIC Gateway routes there",
			classes: []string{"eg", "hp"},
			objs:    hapticBTPRoute("HTTPRoute", "default", "r", `[{name: eg}]`, `[{name: svc, port: 443}]`) + btpWritersPolicy("btp", "svc"),
			want:    []string{`holds entries of Envoy Gateway and HAPTIC`}},
		{name: "one warning per policy: two policies, two warnings",
			classes: []string{"kg", "eg"},
			objs: hapticBTPRoute("HTTPRoute", "default", "r", `[{name: kg}, {name: eg}]`, `[{name: svc, port: 443}, {name: svc2, port: 443}]`) +
				btpWritersPolicy("a", "svc") + btpWritersPolicy("b", "svc2"),
			want: []string{`BackendTLSPolicy/default/a holds`, `BackendTLSPolicy/default/b holds`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(in, []byte(btpWritersBase(tc.classes...)+tc.objs), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, _ := run(t, "lint", "-f", in)
			var got []string
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, "GWP309") {
					got = append(got, line)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("GWP309 findings: got %d, want %d:\n%s%s", len(got), len(tc.want), out, errOut)
			}
			for i, w := range tc.want {
				if !strings.Contains(got[i], "warning") || !regexp.MustCompile(w).MatchString(got[i]) {
					t.Errorf("finding %d: %s\nwant a warning matching %q", i, got[i], w)
				}
			}
		})
	}
}
