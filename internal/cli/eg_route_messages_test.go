package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestEnvoyGatewayRouteMessages: a route condition's message as Envoy
// Gateway's translator writes it. A stream route's (TCPRoute, UDPRoute,
// TLSRoute) ResolvedRefs message is its collector's own text
// (processTCPRouteParentRefs and its siblings: MultiStatusError.Error,
// not passed through Error2ConditionMsg): one error as it is, no capital
// added and no full stop ("service default/gone not found"), a full stop
// kept where the error has its own; several each capitalised and
// full-stopped, a line each. An HTTPRoute's or GRPCRoute's rules dropped
// for the same problem say it once per rule (the route's collector joins
// every error); a stream route's rule count, the route's own problem,
// is said once. An EnvoyExtensionPolicy's Lua syntax error keeps the
// parser's closing new line before the full stop. Every shape was checked
// with egctl x translate v1.9.0.
func TestEnvoyGatewayRouteMessages(t *testing.T) {
	const base = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: eg}\nspec:\n  controllerName: gateway.envoyproxy.io/gatewayclass-controller\n" +
		"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: default}\nspec:\n  gatewayClassName: eg\n  listeners:\n" +
		"  - {name: web, protocol: HTTP, port: 80}\n  - {name: tcp, protocol: TCP, port: 90, allowedRoutes: {kinds: [{kind: TCPRoute}]}}\n  - {name: udp, protocol: UDP, port: 92}\n" +
		"---\napiVersion: v1\nkind: Namespace\nmetadata: {name: other}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: far, namespace: other}\nspec: {clusterIP: 10.0.0.3, ports: [{name: tcp, port: 8080}]}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: default}\nspec: {clusterIP: 10.0.0.1, ports: [{name: http, port: 8080}]}\n"
	route := func(kind, section, rules string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: r, namespace: default}\nspec:\n  parentRefs: [{name: gw, sectionName: " + section + "}]\n  rules:\n" + rules
	}
	const unknownFilter = "    filters: [{type: ExtensionRef, extensionRef: {group: unknown.group, kind: HTTPRouteFilter, name: x}}]\n"
	for _, tc := range []struct {
		name, input, typ, want string
	}{
		{"a TCPRoute's one unresolved backendRef: the error as it is",
			route("TCPRoute", "tcp", "  - backendRefs: [{name: gone, port: 8080}]\n"), "ResolvedRefs",
			"service default/gone not found"},
		{"… one whose error has a full stop of its own keeps it",
			route("TCPRoute", "tcp", "  - backendRefs: [{name: far, namespace: other, port: 8080}]\n"), "ResolvedRefs",
			"Backend ref to Service other/far not permitted by any ReferenceGrant."},
		{"a UDPRoute's two: each capitalised and full-stopped, a line each",
			route("UDPRoute", "udp", "  - backendRefs: [{name: gone, port: 8080}, {name: far, namespace: other, port: 9999}]\n"), "ResolvedRefs",
			"Service default/gone not found.\nBackend ref to Service other/far not permitted by any ReferenceGrant."},
		{"an HTTPRoute's: the rule and backendRef named, one full stop",
			route("HTTPRoute", "web", "  - backendRefs: [{name: gone, port: 8080}]\n"), "ResolvedRefs",
			"Failed to process route rule 0 backendRef 0: service default/gone not found."},
		{"an HTTPRoute's two rules dropped for one problem: said for each",
			route("HTTPRoute", "web", "  - matches: [{path: {value: /a}}]\n"+unknownFilter+"    backendRefs: [{name: svc, port: 8080}]\n"+
				"  - matches: [{path: {value: /b}}]\n"+unknownFilter+"    backendRefs: [{name: svc, port: 8080}]\n"+
				"  - matches: [{path: {value: /c}}]\n    backendRefs: [{name: svc, port: 8080}]\n"), "PartiallyInvalid",
			"Dropped Rule(s) [0 1]: Invalid filter ExtensionRef: unknown kind unknown.group/HTTPRouteFilter.\nInvalid filter ExtensionRef: unknown kind unknown.group/HTTPRouteFilter."},
		{"… every rule of a GRPCRoute",
			route("GRPCRoute", "web", "  - backendRefs: [{name: svc, port: 8080}]\n"+unknownFilter+"  - backendRefs: [{name: svc, port: 8080}]\n"+unknownFilter), "Accepted",
			"Invalid filter ExtensionRef: unknown kind unknown.group/HTTPRouteFilter.\nInvalid filter ExtensionRef: unknown kind unknown.group/HTTPRouteFilter."},
		{"a TCPRoute of three rules: the route's own problem, said once",
			route("TCPRoute", "tcp", "  - backendRefs: [{name: svc, port: 8080}]\n  - backendRefs: [{name: svc, port: 8080}]\n  - backendRefs: [{name: svc, port: 8080}]\n"), "Accepted",
			"One and only one rule is supported"},
		{"an EnvoyExtensionPolicy's Lua syntax error: the parser's new line, then the full stop",
			route("HTTPRoute", "web", "  - backendRefs: [{name: svc, port: 8080}]\n") +
				"---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: lua, namespace: default}\nspec:\n" +
				"  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n" +
				"  lua: [{type: Inline, inline: \"function envoy_on_response(h)\\n  local = 1\\nend\\n\"}]\n", "Accepted",
			"Lua: validation failed for lua body in policy with name envoyextensionpolicy/default/lua/lua/0: failed to validate with envoy_on_response: <string> line:2(column:9) near '=':   syntax error\n."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(base+tc.input), 0o644); err != nil {
				t.Fatal(err)
			}
			// a deployment with Lua on (Envoy Gateway's translator tests'
			// default)
			cfg := filepath.Join(t.TempDir(), "gwpol.yaml")
			if err := os.WriteFile(cfg, []byte("envoyGateway: {extensionApis: {enableLua: true}}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "status", "-f", file, "--config", cfg, "-o", "json")
			if out == "" {
				t.Fatalf("status: exit %d, no report\n%s", code, errOut)
			}
			type conds = []struct{ Type, Message string }
			var rep struct {
				Routes []struct {
					Name    string `json:"name"`
					Parents []struct {
						Conditions conds `json:"conditions"`
					} `json:"parents"`
				} `json:"routes"`
				Policies []struct {
					Ancestors []struct {
						Conditions conds `json:"conditions"`
					} `json:"ancestors"`
				} `json:"policies"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			var all []conds
			for _, r := range rep.Routes {
				for _, p := range r.Parents {
					all = append(all, p.Conditions)
				}
			}
			for _, p := range rep.Policies {
				for _, a := range p.Ancestors {
					all = append(all, a.Conditions)
				}
			}
			var got []string
			for _, cs := range all {
				for _, c := range cs {
					if c.Type == tc.typ && (tc.typ != "Accepted" || c.Message != "Route is accepted" && c.Message != "Policy has been accepted.") {
						got = append(got, c.Message)
					}
				}
			}
			if len(got) != 1 || got[0] != tc.want {
				t.Errorf("%s messages %q, want %q", tc.typ, got, tc.want)
			}
		})
	}
}
