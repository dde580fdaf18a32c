package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestEnvoyGatewayPolicyMessages: policy condition messages the oracle's
// message comparison found worded otherwise, as Envoy Gateway v1.9.0
// writes them. A second SecurityPolicy or EnvoyExtensionPolicy on a
// Gateway listener is refused naming the Gateway by its name ("Listener
// gw/web"), a BackendTrafficPolicy naming it by namespace/name
// (resolveBTPolicyGatewayTargetRef's key: "Listener infra/gw/web"). A
// route policy with mergeType, translated for one listener of a Gateway,
// still walks every parentRef of the route to that Gateway, so a feature
// built per parentRef fails once for each (two parentRefs: the ext auth
// error twice). Every shape was checked with egctl x translate v1.9.0.
func TestEnvoyGatewayPolicyMessages(t *testing.T) {
	const base = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
		"  - {name: web, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}\n  - {name: other, protocol: HTTP, port: 8080, allowedRoutes: {namespaces: {from: All}}}\n" +
		"---\napiVersion: v1\nkind: Namespace\nmetadata: {name: infra}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n" +
		"  parentRefs: [{name: gw, namespace: infra, sectionName: web}, {name: gw, namespace: infra, sectionName: other}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: app}\nspec: {clusterIP: 10.0.0.1, ports: [{port: 8080}]}\n"
	policy := func(kind, name, ns, target, spec string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: " + name + ", namespace: " + ns + "}\nspec:\n" + target + spec
	}
	const (
		web   = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: web}]\n"
		route = "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n"
		cors  = "  cors: {allowOrigins: ['https://x.example.com']}\n"
	)
	twice := func(kind, spec string) string {
		return policy(kind, "a", "infra", web, spec) + policy(kind, "b", "infra", web, spec)
	}
	for _, tc := range []struct {
		name, policies, policy, section, want string
	}{
		{"a second SecurityPolicy on a listener: the Gateway by its name",
			twice("SecurityPolicy", cors), "b", "web",
			"Unable to target Listener gw/web, another SecurityPolicy has already attached to it"},
		{"… an EnvoyExtensionPolicy too",
			twice("EnvoyExtensionPolicy", "  extProc: [{backendRefs: [{name: svc, namespace: app, port: 8080}]}]\n"), "b", "web",
			"Unable to target Listener gw/web, another EnvoyExtensionPolicy has already attached to it"},
		{"… a BackendTrafficPolicy's by namespace/name",
			twice("BackendTrafficPolicy", "  timeout: {tcp: {connectTimeout: 5s}}\n"), "b", "web",
			"Unable to target Listener infra/gw/web, another BackendTrafficPolicy has already attached to it"},
		{"a route policy merged on a listener fails per parentRef to its Gateway",
			policy("SecurityPolicy", "lp", "infra", web, "  extAuth: {http: {backendRefs: [{name: nosvc, port: 80}]}}\n") +
				policy("SecurityPolicy", "rp", "app", route, "  mergeType: StrategicMerge\n"+cors), "rp", "web",
			"ExtAuth: service infra/nosvc not found\nExtAuth: service infra/nosvc not found."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(base+tc.policies), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "status", "-f", file, "-o", "json")
			if out == "" {
				t.Fatalf("status: exit %d, no report\n%s", code, errOut)
			}
			var rep struct {
				Policies []struct {
					Name      string `json:"name"`
					Ancestors []struct {
						AncestorRef struct {
							SectionName string `json:"sectionName"`
						} `json:"ancestorRef"`
						Conditions []struct{ Type, Message string } `json:"conditions"`
					} `json:"ancestors"`
				} `json:"policies"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					for _, c := range a.Conditions {
						if p.Name == tc.policy && a.AncestorRef.SectionName == tc.section && c.Type == "Accepted" {
							got = append(got, c.Message)
						}
					}
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("Accepted messages %q, want %q", got, tc.want)
			}
		})
	}
}

// TestEnvoyGatewayMergedValidatorFirst: a SecurityPolicy with mergeType
// on a TCPRoute, merged into its listener's policy, meets the validator
// before anything of the merge is built (processSecurityPolicyForRoute:
// validator(mergedPolicy), then translateSecurityPolicyForRoute), so the
// listener's basic auth, which the TCP validator refuses, is what the
// route policy is refused for — not the listener policy's own build
// error (an empty .htpasswd). Checked with egctl x translate v1.9.0.
func TestEnvoyGatewayMergedValidatorFirst(t *testing.T) {
	const input = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
		"  - {name: tcp, protocol: TCP, port: 9000, allowedRoutes: {namespaces: {from: All}, kinds: [{kind: TCPRoute}]}}\n" +
		"---\napiVersion: v1\nkind: Namespace\nmetadata: {name: infra}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: app}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: app}\nspec: {clusterIP: 10.0.0.1, ports: [{port: 8080}]}\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: t, namespace: app}\nspec:\n  parentRefs: [{name: gw, namespace: infra, sectionName: tcp}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n" +
		"---\napiVersion: v1\nkind: Secret\nmetadata: {name: users, namespace: infra}\ndata: {.htpasswd: ''}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: lp, namespace: infra}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: tcp}]\n  basicAuth: {users: {name: users}}\n" +
		"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: rp, namespace: app}\nspec:\n" +
		"  targetRefs: [{group: gateway.networking.k8s.io, kind: TCPRoute, name: t}]\n  mergeType: StrategicMerge\n" +
		"  authorization: {defaultAction: Deny, rules: [{action: Allow, principal: {clientCIDRs: [10.0.0.0/8]}}]}\n"
	file := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(file, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "status", "-f", file, "-o", "json")
	if out == "" {
		t.Fatalf("status: exit %d, no report\n%s", code, errOut)
	}
	var rep struct {
		Policies []struct {
			Name      string `json:"name"`
			Ancestors []struct {
				Conditions []struct{ Type, Message string } `json:"conditions"`
			} `json:"ancestors"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"rp": "Only authorization is supported for TCP (routes/listeners).",
		"lp": `BasicAuth: secret infra/users must contain a non-empty ".htpasswd" key.`,
	}
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			for _, c := range a.Conditions {
				if c.Type == "Accepted" && c.Message != want[p.Name] {
					t.Errorf("%s: Accepted %q, want %q", p.Name, c.Message, want[p.Name])
				}
			}
		}
	}
}
