package envoy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
)

// TestPlanVHosts: which routes a hostname's virtual host serves when HTTP
// listeners share a port, and which listener owns it (its listener-level
// policies). By default only the most specific listener's routes (an
// exact hostname, then a wildcard — the first of several —, then none);
// where the target joins listeners (policy.Target.HostsJoinListeners: kgateway's
// translator/listener/gateway_listener_translator.go:
// translateHttpFilterChain, buildRoutesPerHost, isHostContained) every
// listener's routes for the host, in listener order, and the owner is
// the longest covering listener hostname, the first of equal ones.
func TestPlanVHosts(t *testing.T) {
	listener := func(name, host string) *topology.Listener {
		l := &topology.Listener{Listener: gwv1.Listener{Name: gwv1.SectionName(name), Port: 80, Protocol: gwv1.HTTPProtocolType}}
		if host != "" {
			h := gwv1.Hostname(host)
			l.Hostname = &h
		}
		return l
	}
	attach := func(l *topology.Listener, route string, hosts ...string) {
		rt := &topology.Route{Route: &model.Route{Kind: "HTTPRoute", Meta: &metav1.ObjectMeta{Namespace: "ns", Name: route}}}
		l.Routes = append(l.Routes, &topology.Attachment{Route: rt, Hostnames: hosts})
	}
	// any (no hostname), wild (*.foo.com), exact (x.foo.com), deep
	// (*.b.foo.com), in that listener order.
	build := func() []*topology.Listener {
		anyL, wild, exact, deep := listener("any", ""), listener("wild", "*.foo.com"), listener("exact", "x.foo.com"), listener("deep", "*.b.foo.com")
		attach(anyL, "all")
		attach(anyL, "via-any", "x.foo.com", "a.b.foo.com")
		attach(wild, "via-wild", "x.foo.com", "a.b.foo.com")
		attach(exact, "via-exact", "x.foo.com")
		attach(deep, "via-deep", "a.b.foo.com")
		return []*topology.Listener{anyL, wild, exact, deep}
	}
	tests := []struct {
		name string
		join bool
		want []string // host: owner: routes
	}{
		{"the most specific listener's routes only", false, []string{
			"*: any: all", "a.b.foo.com: wild: via-wild", "x.foo.com: exact: via-exact"}},
		{"every listener's routes, the longest covering hostname owns", true, []string{
			"*: any: all", "a.b.foo.com: deep: via-any via-wild via-deep", "x.foo.com: wild: via-any via-wild via-exact"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range planVHosts(build(), tt.join) {
				var names []string
				for _, a := range p.atts {
					names = append(names, a.Route.Meta.Name)
				}
				got = append(got, fmt.Sprintf("%s: %s: %s", p.host, p.owner.Name, strings.Join(names, " ")))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("plans =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
