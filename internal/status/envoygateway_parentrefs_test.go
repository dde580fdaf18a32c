package status_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestEnvoyGatewayRouteParentsAsWritten: Envoy Gateway's route status
// names each parent by the route's parentRef as written — no namespace
// where the route gives none — and keeps one entry per parent it tells
// apart (contexts.go: GetRouteParentContext, IsParentRefEqual), so a
// parentRef it counts equal to an earlier one has no entry of its own,
// and the entry says what the last one's listeners and every one's
// hostnames make of it (each checked with egctl v1.9.0); another
// controller fills the namespace in (kgateway).
func TestEnvoyGatewayRouteParentsAsWritten(t *testing.T) {
	// a Gateway of two HTTP listeners in the route's own namespace
	base := egPlatform("app", "  listeners:\n  - {name: a, protocol: HTTP, port: 80}\n  - {name: b, protocol: HTTP, port: 81}\n")
	// … and one whose listeners have a hostname each
	named := egPlatform("app", "  listeners:\n  - {name: a, protocol: HTTP, port: 80, hostname: a.example.com}\n  - {name: b, protocol: HTTP, port: 81, hostname: b.example.com}\n")
	routeOn := func(gw, parentRefs, extra string) string {
		return gw + "---\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r, namespace: app}\nspec:\n" +
			"  parentRefs: " + parentRefs + "\n" + extra + "  rules: [{backendRefs: [{name: svc, port: 8080}]}]\n" +
			"---\napiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: app}\nspec: {ports: [{port: 8080}]}\n"
	}
	route := func(parentRefs string) string { return routeOn(base, parentRefs, "") }
	grpc := func(docs string) string { return strings.Replace(docs, "kind: HTTPRoute", "kind: GRPCRoute", 1) }
	// a.example.com: only listener a's hostname
	hosted := func(parentRefs string) string { return routeOn(named, parentRefs, "  hostnames: [a.example.com]\n") }
	const ok = "Accepted=True ResolvedRefs=True"
	tests := []struct {
		name, docs string
		want       []string // each parent: "ns/name#section:port conditions", ns "-" when not written
	}{
		{name: "a parentRef without a namespace names none",
			docs: route("[{name: gw}]"),
			want: []string{"-/gw " + ok}},
		{name: "a parentRef with the route's namespace names it",
			docs: route("[{name: gw, namespace: app}]"),
			want: []string{"app/gw " + ok}},
		{name: "the same Gateway without and then with the namespace: one entry, the first as written",
			docs: route("[{name: gw}, {name: gw, namespace: app}]"),
			want: []string{"-/gw " + ok}},
		{name: "with and then without: one entry, the first as written",
			docs: route("[{name: gw, namespace: app, sectionName: b}, {name: gw, sectionName: b}]"),
			want: []string{"app/gw#b " + ok}},
		{name: "other sections are other parents",
			docs: route("[{name: gw, sectionName: a}, {name: gw, namespace: app, sectionName: b}]"),
			want: []string{"-/gw#a " + ok, "app/gw#b " + ok}},
		{name: "a section and none are other parents",
			docs: route("[{name: gw}, {name: gw, namespace: app, sectionName: b}]"),
			want: []string{"-/gw " + ok, "app/gw#b " + ok}},
		{name: "one section, the same port: one entry",
			docs: route("[{name: gw, sectionName: a, port: 80}, {name: gw, namespace: app, sectionName: a, port: 80}]"),
			want: []string{"-/gw#a:80 " + ok}},
		{name: "one section, a port on one only: two entries",
			docs: route("[{name: gw, sectionName: a}, {name: gw, namespace: app, sectionName: a, port: 80}]"),
			want: []string{"-/gw#a " + ok, "app/gw#a:80 " + ok}},
		// without a sectionName the port is not compared: one entry, named
		// by the first, whose Accepted is the last one's listeners'…
		{name: "two ports without a section: one entry, the last one's listeners decide (none)",
			docs: route("[{name: gw, port: 80}, {name: gw, port: 82}]"),
			want: []string{"-/gw:80 Accepted=False/NoMatchingParent ResolvedRefs=True"}},
		{name: "two ports without a section: one entry, the last one's listeners decide (some)",
			docs: route("[{name: gw, port: 82}, {name: gw, port: 80}]"),
			want: []string{"-/gw:82 " + ok}},
		{name: "two ports without a section, both with listeners",
			docs: route("[{name: gw, port: 80}, {name: gw, namespace: app, port: 81}]"),
			want: []string{"-/gw:80 " + ok}},
		// … unless one's listeners share no hostname with the route
		{name: "the first one's listeners share no hostname",
			docs: hosted("[{name: gw, port: 81}, {name: gw, port: 80}]"),
			want: []string{"-/gw:81 Accepted=False/NoMatchingListenerHostname ResolvedRefs=True"}},
		{name: "the last one's listeners share no hostname",
			docs: hosted("[{name: gw, port: 80}, {name: gw, port: 81}]"),
			want: []string{"-/gw:80 Accepted=False/NoMatchingListenerHostname ResolvedRefs=True"}},
		{name: "one without listeners last, one sharing no hostname: the hostname check comes after",
			docs: hosted("[{name: gw, port: 81}, {name: gw, port: 82}]"),
			want: []string{"-/gw:81 Accepted=False/NoMatchingListenerHostname ResolvedRefs=True"}},
		// a GRPCRoute's hostnames are checked only while the entry says
		// Accepted True
		{name: "a GRPCRoute: one without listeners last, one sharing no hostname: no hostname check",
			docs: grpc(hosted("[{name: gw, port: 81}, {name: gw, port: 82}]")),
			want: []string{"-/gw:81 Accepted=False/NoMatchingParent ResolvedRefs=True"}},
		{name: "a GRPCRoute: the last one's listeners admit it, another's share no hostname",
			docs: grpc(hosted("[{name: gw, port: 81}, {name: gw, port: 80}]")),
			want: []string{"-/gw:81 Accepted=False/NoMatchingListenerHostname ResolvedRefs=True"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := compile(t, tc.docs)
			var got []string
			for _, r := range rep.Routes {
				for _, p := range r.Parents {
					ref := p.ParentRef
					if p.ResolvedNamespace != "app" {
						t.Errorf("parent %+v resolves to namespace %q, want app", ref, p.ResolvedNamespace)
					}
					s := "-/" + ref.Name
					if ref.Namespace != "" {
						s = ref.Namespace + "/" + ref.Name
					}
					if ref.SectionName != "" {
						s += "#" + ref.SectionName
					}
					if ref.Port != 0 {
						s += fmt.Sprintf(":%d", ref.Port)
					}
					var cs []string
					for _, c := range p.Conditions {
						if c.Status == "False" {
							cs = append(cs, c.Type+"=False/"+c.Reason)
							continue
						}
						cs = append(cs, c.Type+"="+c.Status)
					}
					got = append(got, s+" "+strings.Join(cs, " "))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("parents:\n got  %q\n want %q", got, tc.want)
			}
		})
	}

	// kgateway writes the namespace whether or not the route does
	t.Run("kgateway fills the namespace in", func(t *testing.T) {
		docs := strings.Replace(route("[{name: gw}]"), "spec: {controllerName: "+egController+"}", "spec: {controllerName: kgateway.dev/kgateway}", 1)
		rep := compile(t, docs)
		if len(rep.Routes) != 1 || len(rep.Routes[0].Parents) != 1 || rep.Routes[0].Parents[0].ParentRef.Namespace != "app" {
			t.Errorf("routes %+v, want one parent in namespace app", rep.Routes)
		}
	})
}
