package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestListenerConflictsOneVerdict: which listeners of a port conflict is
// decided once, by the Gateway's controller, and status (the listener's
// Conflicted condition, its attached routes, the routes' Accepted), render
// (which Envoy listeners exist) and lint (GWP216 at the port) all read
// that decision: Envoy Gateway's by its rules (validate.go: the conflict
// checks, which skip a listener its spec checks refuse; route.go:
// processAllowedListenersForParentRefs, which attaches a route to a
// listener whatever its conflicts), kgateway's by its own (the first
// protocol of a port wins; no route attaches to a conflicted listener).
func TestListenerConflictsOneVerdict(t *testing.T) {
	const eg, kg = "gateway.envoyproxy.io/gatewayclass-controller", "kgateway.dev/kgateway"
	httpRoute := func(parent string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: infra}\nspec:\n  parentRefs: [" + parent + "]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n"
	}
	tcpRoute := "---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: t, namespace: infra}\nspec:\n  parentRefs: [{name: gw}]\n  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n"
	listenerSet := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: ListenerSet\nmetadata: {name: ls, namespace: infra}\nspec:\n  parentRef: {name: gw}\n  listeners:\n" +
		"  - {name: b, protocol: HTTP, port: 80, hostname: a.example.com}\n  - {name: c, protocol: HTTP, port: 80, hostname: c.example.com}\n"
	for _, tc := range []struct {
		name, ctrl, listeners, more string
		allowSets                   bool
		want                        map[string]string // listener → attached routes, Conflicted reason ("-" for none); route → Accepted reason
		rendered                    []string          // the Envoy listeners render builds
		conflicts                   []string          // the listeners lint reports not served for a conflict
	}{
		{name: "Envoy Gateway: an HTTPS listener refused for its certificates takes no part in its port's conflicts", ctrl: eg,
			listeners: "  - {name: http, protocol: HTTP, port: 80}\n  - {name: https, protocol: HTTPS, port: 80, tls: {certificateRefs: [{name: missing}]}}\n",
			more:      httpRoute("{name: gw}"),
			want:      map[string]string{"gw/http": "1 -", "gw/https": "1 -", "HTTPRoute/r": "Accepted"},
			rendered:  []string{"listener~80"}},
		{name: "Envoy Gateway: a protocol it does not serve takes no part either", ctrl: eg,
			listeners: "  - {name: http, protocol: HTTP, port: 80}\n  - {name: foo, protocol: FOO, port: 80}\n",
			more:      httpRoute("{name: gw}"),
			want:      map[string]string{"gw/http": "1 -", "gw/foo": "0 -", "HTTPRoute/r": "Accepted"},
			rendered:  []string{"listener~80"}},
		{name: "Envoy Gateway: a Gateway's listeners of two protocols on a port all conflict, and still take their routes", ctrl: eg,
			listeners: "  - {name: http, protocol: HTTP, port: 80}\n  - {name: tcp, protocol: TCP, port: 80}\n",
			more:      httpRoute("{name: gw}") + tcpRoute,
			want:      map[string]string{"gw/http": "1 ProtocolConflict", "gw/tcp": "1 ProtocolConflict", "HTTPRoute/r": "Accepted", "TCPRoute/t": "Accepted"},
			conflicts: []string{"infra/gw/http", "infra/gw/tcp"}},
		{name: "Envoy Gateway: a ListenerSet's listener with a hostname the Gateway's listener of its port has loses, and takes its route", ctrl: eg, allowSets: true,
			listeners: "  - {name: a, protocol: HTTP, port: 80, hostname: a.example.com}\n",
			more:      listenerSet + httpRoute("{name: ls, kind: ListenerSet}"),
			want:      map[string]string{"gw/a": "0 -", "ls/b": "1 HostnameConflict", "ls/c": "1 -", "HTTPRoute/r": "Accepted"},
			rendered:  []string{"listener~80"}, conflicts: []string{"infra/ls/b"}},
		{name: "kgateway: the first protocol of a port wins, and a conflicted listener takes no route", ctrl: kg,
			listeners: "  - {name: http, protocol: HTTP, port: 80}\n  - {name: tcp, protocol: TCP, port: 80}\n",
			more:      httpRoute("{name: gw}") + tcpRoute,
			want:      map[string]string{"gw/http": "1 -", "gw/tcp": "0 ProtocolConflict", "HTTPRoute/r": "Accepted", "TCPRoute/t": "NotAllowedByListeners"},
			rendered:  []string{"listener~80"}, conflicts: []string{"infra/gw/tcp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sets := ""
			if tc.allowSets {
				sets = "  allowedListeners: {namespaces: {from: Same}}\n"
			}
			in := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: c}\nspec: {controllerName: " + tc.ctrl + "}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: c\n" + sets + "  listeners:\n" + tc.listeners +
				"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: {ports: [{name: http, port: 8080}]}\n" + tc.more
			file := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := conflictStatuses(t, file); !maps.Equal(got, tc.want) {
				t.Errorf("status: %v\nwant %v", got, tc.want)
			}
			out, _, _ := run(t, "render", "-f", file, "-o", "json")
			var rendered struct {
				Gateways []struct{ Listeners []struct{ Name string } }
			}
			if err := json.Unmarshal([]byte(out), &rendered); err != nil {
				t.Fatalf("render: %v\n%s", err, out)
			}
			var names []string
			for _, g := range rendered.Gateways {
				for _, l := range g.Listeners {
					names = append(names, l.Name)
				}
			}
			if !slices.Equal(names, tc.rendered) {
				t.Errorf("render: listeners %v, want %v", names, tc.rendered)
			}
			lint, _, _ := run(t, "lint", "-f", file)
			var conflicts []string
			for _, m := range regexp.MustCompile(`GWP216 +listener (\S+) is not served: Conflicted`).FindAllStringSubmatch(lint, -1) {
				conflicts = append(conflicts, m[1])
			}
			if !slices.Equal(conflicts, tc.conflicts) {
				t.Errorf("lint: conflicted listeners %v, want %v\n%s", conflicts, tc.conflicts, lint)
			}
		})
	}
}

// conflictStatuses are status's listeners (owner/name → attached routes
// and the Conflicted reason, "-" when not conflicted) and routes
// (kind/name → the Accepted reason).
func conflictStatuses(t *testing.T, in string) map[string]string {
	t.Helper()
	out, errOut, code := run(t, "status", "-f", in, "-o", "json")
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	type conds []struct{ Type, Status, Reason string }
	type listeners []struct {
		Name           string
		ListenerSet    string `json:"listenerSet"`
		AttachedRoutes int    `json:"attachedRoutes"`
		Conditions     conds
	}
	var rep struct {
		Gateways []struct {
			Name      string
			Listeners listeners
		}
		Routes []struct {
			Kind, Name string
			Parents    []struct{ Conditions conds }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, g := range rep.Gateways {
		for _, l := range g.Listeners {
			owner := g.Name
			if l.ListenerSet != "" {
				owner = path.Base(l.ListenerSet)
			}
			conflict := "-"
			for _, c := range l.Conditions {
				if c.Type == "Conflicted" && c.Status == "True" {
					conflict = c.Reason
				}
			}
			got[owner+"/"+l.Name] = strconv.Itoa(l.AttachedRoutes) + " " + conflict
		}
	}
	for _, r := range rep.Routes {
		for _, p := range r.Parents {
			for _, c := range p.Conditions {
				if c.Type == "Accepted" {
					got[r.Kind+"/"+r.Name] = c.Reason
				}
			}
		}
	}
	return got
}
