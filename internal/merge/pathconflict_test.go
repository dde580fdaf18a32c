package merge

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// pathKind is a kind of group (its own family when no family lists the
// group) whose fields write the paths writes names.
type pathKind struct {
	group  string
	writes map[string][]string
	kind   string // "P" when empty
}

func (k pathKind) GroupKind() model.GroupKind {
	if k.kind != "" {
		return model.GroupKind{Group: k.group, Kind: k.kind}
	}
	return model.GroupKind{Group: k.group, Kind: "P"}
}
func (k pathKind) Spec() policy.KindSpec {
	var s policy.KindSpec
	for _, key := range []string{"a", "b", "c"} {
		if w, ok := k.writes[key]; ok {
			s.Fields = append(s.Fields, policy.FieldSpec{Key: key, Writes: w})
		}
	}
	return s
}
func (pathKind) Decode(*manifest.Object, *policy.Env) *policy.Policy { return nil }

// TestCrossFamily: merge's verdict on fields of kinds of different
// families writing one Envoy path at one target (PathOverride) — which
// paths conflict, and the order that decides: level, then age, then
// namespace/name, then group/kind; fields of one family are never
// judged, and a field already overridden wins nothing. A rule's view
// decides a route's own paths, a listener's view ("listener: " cases)
// those of the resources built for the listener; neither decides a
// cluster's.
func TestCrossFamily(t *testing.T) {
	x := pathKind{group: "x.test", writes: map[string][]string{"a": {"route.timeout", "route.idle_timeout"}, "b": {"typed_per_filter_config.cors"}, "c": {"http_filter.cors", "typed_per_filter_config.x/*"}}}
	y := pathKind{group: "y.test", writes: map[string][]string{"a": {"route.timeout"}, "b": {"typed_per_filter_config.cors*"}, "c": {"request_headers_to_remove[]", "typed_per_filter_config.x/*"}}}
	x2 := pathKind{group: "x.test", writes: map[string][]string{"a": {"route.timeout"}}}
	z := pathKind{group: "z.test", writes: map[string][]string{"a": {"route.idle_timeout"}}}
	hx := pathKind{group: "x.test", writes: map[string][]string{"a": {"hcm.stream_idle_timeout", "cluster.connect_timeout"}}}
	hy := pathKind{group: "y.test", writes: map[string][]string{"a": {"hcm.stream_idle_timeout", "cluster.connect_timeout"}}}
	cx := pathKind{group: "x.test", writes: map[string][]string{"a": {"cluster.circuit_breakers"}}}
	cy := pathKind{group: "y.test", writes: map[string][]string{"a": {"cluster.circuit_breakers", "cluster.typed_extension_protocol_options"}}}
	lx := pathKind{group: "x.test", writes: map[string][]string{"a": {"vhost.request_headers_to_add", "chain.transport_socket_connect_timeout"}, "b": {"tls.session_timeout"}}}
	ly := pathKind{group: "y.test", writes: map[string][]string{"a": {"vhost.request_headers_to_add"}, "b": {"listener.per_connection_buffer_limit_bytes", "tls.session_timeout"}}}
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	type fieldAt struct {
		kind    pathKind
		key     string
		level   Level
		name    string
		created time.Time
		// notApplied: the listener records the field but does not apply
		// it (crossFamily's decided says no path of it); overridden: a
		// listener's verdict already took it out ("given")
		notApplied, overridden bool
	}
	for _, tc := range []struct {
		name   string
		fields []fieldAt
		// want is, per field (in order), "" in effect, or "PATH by INDEX (RULE)"
		want []string
	}{
		{"one path, the name decides",
			[]fieldAt{{x, "a", LevelRoute, "tp", time.Time{}, false, false}, {y, "a", LevelRoute, "bt", time.Time{}, false, false}},
			[]string{"route.timeout by 1 (name)", ""}},
		{"the older wins before the name",
			[]fieldAt{{x, "a", LevelRoute, "tp", day(1), false, false}, {y, "a", LevelRoute, "bt", day(2), false, false}},
			[]string{"", "route.timeout by 0 (age)"}},
		{"a dated policy is older than an undated one",
			[]fieldAt{{x, "a", LevelRoute, "tp", day(1), false, false}, {y, "a", LevelRoute, "bt", time.Time{}, false, false}},
			[]string{"", "route.timeout by 0 (age)"}},
		{"the more specific level wins before age",
			[]fieldAt{{x, "a", LevelGateway, "tp", day(1), false, false}, {y, "a", LevelRule, "bt", day(9), false, false}},
			[]string{"route.timeout by 1 (level)", ""}},
		{"same name and age: the group/kind decides",
			[]fieldAt{{y, "a", LevelRoute, "p", time.Time{}, false, false}, {x, "a", LevelRoute, "p", time.Time{}, false, false}},
			[]string{"route.timeout by 1 (name)", ""}},
		{"a name ending in * overlaps the names it starts",
			[]fieldAt{{x, "b", LevelRoute, "b", time.Time{}, false, false}, {y, "b", LevelRoute, "a", time.Time{}, false, false}},
			[]string{"typed_per_filter_config.cors by 1 (name)", ""}},
		{"own instances, lists and chain filters never conflict",
			[]fieldAt{{x, "c", LevelRoute, "b", time.Time{}, false, false}, {y, "c", LevelRoute, "a", time.Time{}, false, false}},
			[]string{"", ""}},
		{"one family's kinds are left as they merged",
			[]fieldAt{{x, "a", LevelRoute, "b", time.Time{}, false, false}, {x2, "a", LevelRoute, "a", time.Time{}, false, false}},
			[]string{"", ""}},
		{"paths of resources a listener's or backend's routes share are not decided per route",
			[]fieldAt{{hx, "a", LevelGateway, "b", time.Time{}, false, false}, {hy, "a", LevelGateway, "a", time.Time{}, false, false}},
			[]string{"", ""}},
		{"listener: the connection manager's path is the listener's to decide",
			[]fieldAt{{hx, "a", LevelGateway, "b", time.Time{}, false, false}, {hy, "a", LevelGateway, "a", time.Time{}, false, false}},
			[]string{"hcm.stream_idle_timeout by 1 (name)", ""}},
		{"listener: the listener's own policy wins before age",
			[]fieldAt{{hx, "a", LevelListener, "b", day(9), false, false}, {hy, "a", LevelGateway, "a", day(1), false, false}},
			[]string{"", "hcm.stream_idle_timeout by 0 (level)"}},
		{"listener: a route's paths are its routes' to decide",
			[]fieldAt{{x, "a", LevelGateway, "b", time.Time{}, false, false}, {y, "a", LevelGateway, "a", time.Time{}, false, false}},
			[]string{"", ""}},
		{"listener: a cluster's path is no listener's",
			[]fieldAt{{cx, "a", LevelGateway, "b", time.Time{}, false, false}, {cy, "a", LevelGateway, "a", time.Time{}, false, false}},
			[]string{"", ""}},
		{"listener: virtual host, chain, TLS and listener paths",
			[]fieldAt{{lx, "a", LevelGateway, "b", time.Time{}, false, false}, {ly, "a", LevelGateway, "a", time.Time{}, false, false}, {lx, "b", LevelGateway, "b", time.Time{}, false, false}, {ly, "b", LevelGateway, "a", time.Time{}, false, false}},
			[]string{"vhost.request_headers_to_add by 1 (name)", "", "tls.session_timeout by 3 (name)", ""}},
		{"listener: a field the listener records but does not apply neither wins nor loses",
			[]fieldAt{{hx, "a", LevelListener, "b", time.Time{}, true, false}, {hy, "a", LevelGateway, "a", time.Time{}, false, false}},
			[]string{"", ""}},
		{"listener: a field already overridden wins nothing",
			[]fieldAt{{hx, "a", LevelGateway, "b", time.Time{}, false, true}, {hy, "a", LevelGateway, "c", time.Time{}, false, false}},
			[]string{"given", ""}},
		{"an overridden field wins nothing: the third family's idle timeout stays",
			[]fieldAt{{x, "a", LevelRoute, "b", time.Time{}, false, false}, {y, "a", LevelRoute, "a", time.Time{}, false, false}, {z, "a", LevelRoute, "c", time.Time{}, false, false}},
			[]string{"route.timeout by 1 (name)", "", ""}},
		{"a field losing on one path loses whole: its other path is the third's",
			[]fieldAt{{x, "a", LevelRoute, "b", time.Time{}, false, false}, {y, "a", LevelRule, "a", time.Time{}, false, false}, {z, "a", LevelRoute, "a", time.Time{}, false, false}},
			[]string{"route.timeout by 1 (level)", "", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out []EffectiveField
			given := &PathOverride{Path: "given"}
			for _, f := range tc.fields {
				p := &policy.Policy{Kind: f.kind, Obj: &manifest.Object{Namespace: "ns", Name: f.name}, Created: f.created}
				c := &Candidate{Policy: p, Level: f.level}
				e := EffectiveField{Kind: f.kind, Key: f.key, Field: &Field{Key: f.key, Owner: c, Contributors: []*Candidate{c}}}
				if f.overridden {
					e.OverriddenBy = given
				}
				out = append(out, e)
			}
			decided := onRoute
			if strings.HasPrefix(tc.name, "listener: ") {
				decided = func(e *EffectiveField, p policy.EnvoyPath) bool {
					for i := range out {
						if &out[i] == e && tc.fields[i].notApplied {
							return false
						}
					}
					return p.OnListener()
				}
			}
			crossFamily(policy.NewRegistry(x, y, z), out, decided)
			for i, e := range out {
				got := ""
				if e.OverriddenBy == given {
					got = "given"
				} else if o := e.OverriddenBy; o != nil {
					w := -1
					for j := range out {
						if out[j].Field == o.Field {
							w = j
						}
					}
					got = string(o.Path) + " by " + strings.TrimSpace(string(rune('0'+w))) + " (" + string(o.Decision.Rule) + ")"
				}
				if got != tc.want[i] {
					t.Errorf("field %d (%s %s#%s): %q, want %q", i, tc.fields[i].kind.group, tc.fields[i].key, tc.fields[i].name, got, tc.want[i])
				}
			}
		})
	}
}

// flagKind is a kind with one field, key "a", of the given spec flags.
type flagKind struct{ portWide, chainWide bool }

func (flagKind) GroupKind() model.GroupKind { return model.GroupKind{Group: "f.test", Kind: "F"} }
func (k flagKind) Spec() policy.KindSpec {
	return policy.KindSpec{Fields: []policy.FieldSpec{{Key: "a", PortWide: k.portWide, ChainWide: k.chainWide}}}
}
func (flagKind) Decode(*manifest.Object, *policy.Env) *policy.Policy { return nil }

// TestOnListener: which of a field's paths a listener's view decides
// (onListener) — the paths of the resources built for the listener that
// the field's value reaches there: a whole Gateway's value every one; a
// listener's own value not what its controller records without applying
// (PortWide; ChainWide on an HTTP listener), nor, where another
// programmed listener shares its port, the port's Envoy listener or the
// chain the port's HTTP listeners share; never a route's or a cluster's.
func TestOnListener(t *testing.T) {
	gw := &topology.Gateway{}
	add := func(name string, proto gwv1.ProtocolType, port gwv1.PortNumber, conflicted bool) *topology.Listener {
		l := &topology.Listener{Gateway: gw, Conflicted: conflicted}
		l.Name, l.Protocol, l.Port = gwv1.SectionName(name), proto, port
		gw.Listeners = append(gw.Listeners, l)
		return l
	}
	alone := add("alone", gwv1.HTTPProtocolType, 80, false)
	web := add("web", gwv1.HTTPProtocolType, 8080, false)
	add("web2", gwv1.HTTPProtocolType, 8080, false)
	tls := add("tls", gwv1.HTTPSProtocolType, 8443, false)
	add("tls2", gwv1.HTTPSProtocolType, 8443, false)
	lone := add("lone", gwv1.HTTPProtocolType, 9090, false)
	add("clash", gwv1.HTTPProtocolType, 9090, true) // conflicted: not programmed, shares nothing
	for _, tc := range []struct {
		name  string
		l     *topology.Listener
		kind  flagKind
		level Level
		// want: per path of paths, decided or not
		want string
	}{
		{"a Gateway's value: every listener path", web, flagKind{}, LevelGateway, "hcm chain listener tls vhost"},
		{"a listener's own, alone on its port", alone, flagKind{}, LevelListener, "hcm chain listener tls vhost"},
		{"a listener's own, beside a conflicted one", lone, flagKind{}, LevelListener, "hcm chain listener tls vhost"},
		{"an HTTP listener's own, its port shared", web, flagKind{}, LevelListener, "tls vhost"},
		{"an HTTPS listener's own, its port shared: its own chain", tls, flagKind{}, LevelListener, "hcm chain tls vhost"},
		{"port-wide: recorded, not applied", alone, flagKind{portWide: true}, LevelListener, ""},
		{"chain-wide on an HTTP listener: recorded, not applied", alone, flagKind{chainWide: true}, LevelListener, ""},
		{"chain-wide on an HTTPS listener: its own chain", tls, flagKind{chainWide: true}, LevelListener, "hcm chain tls vhost"},
		{"chain-wide on the Gateway", web, flagKind{chainWide: true}, LevelGateway, "hcm chain listener tls vhost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &policy.Policy{Kind: tc.kind, Obj: &manifest.Object{Namespace: "ns", Name: "p"}}
			c := &Candidate{Policy: p, Level: tc.level}
			e := &EffectiveField{Kind: tc.kind, Key: "a", Field: &Field{Key: "a", Owner: c, Contributors: []*Candidate{c}}}
			decided := onListener(tc.l)
			var got []string
			for _, path := range []string{"hcm.stream_idle_timeout", "chain.transport_socket_connect_timeout", "listener.per_connection_buffer_limit_bytes", "tls.session_timeout", "vhost.cors", "route.timeout", "cluster.connect_timeout"} {
				if decided(e, policy.EnvoyPath(path)) {
					part, _, _ := strings.Cut(path, ".")
					got = append(got, part)
				}
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("decided %q, want %q", s, tc.want)
			}
		})
	}
}

// TestClusterOverride: a rule's field writing a setting of its backends'
// clusters (cluster.…) that a policy on one backend of another
// registered family's kind writes too (merge.ClusterOverride): that
// backend's cluster takes the backend policy's — the backend level is
// the most specific — and the field stays in effect on the route and the
// other backends' clusters. A kind of the same family, a kind no family
// lists (read by every controller, which composes it), an invalid
// backend policy, another port's policy, other cluster settings and a
// field already overridden are not judged.
func TestClusterOverride(t *testing.T) {
	rx := pathKind{group: "x.test", writes: map[string][]string{"a": {"route.timeout", "cluster.connect_timeout"}, "b": {"cluster.load_balancing_policy"}}}
	by := pathKind{group: "y.test", writes: map[string][]string{"a": {"cluster.connect_timeout"}, "b": {"cluster.circuit_breakers"}}}
	bx := pathKind{group: "x.test", kind: "B", writes: map[string][]string{"a": {"cluster.connect_timeout"}}}
	free := pathKind{group: "free.test", writes: map[string][]string{"a": {"cluster.connect_timeout"}}}
	reg := policy.NewRegistry(rx, by, bx, free)
	for _, g := range []string{"x.test", "y.test"} {
		reg.AddFamilies(policy.Family{Name: g, Controller: &policy.Controller{Name: g + "/c", Groups: []string{g}}})
	}
	svc := func(name string, ports ...string) *model.Service {
		s := &model.Service{}
		s.Namespace, s.Name = "ns", name
		for i, p := range ports {
			s.Spec.Ports = append(s.Spec.Ports, model.ServicePort{Name: p, Port: int32(80 + i)})
		}
		return s
	}
	backend := func(s *model.Service, port int32) *topology.Backend {
		return &topology.Backend{Kind: "Service", Namespace: "ns", Name: s.Name, Service: s, Port: port, Resolved: true}
	}
	a, b := svc("a", "http", "web"), svc("b")
	point := func(k pathKind, key string, invalid bool) *Point {
		c := &Candidate{Policy: &policy.Policy{Kind: k, Obj: &manifest.Object{Namespace: "ns", Name: "bp"}}}
		pt := &Point{Kind: k, Fields: []*Field{{Key: key, Owner: c, Contributors: []*Candidate{c}}}}
		if invalid {
			pt.Invalid = []*Candidate{c}
		}
		return pt
	}
	for _, tc := range []struct {
		name string
		key  string // the rule's field of rx
		// on a's whole object, on a's port web
		own, web   *Point
		backends   []*topology.Backend
		overridden bool
		want       string // the backends, "NAME:PORT by KIND#KEY", space-separated
	}{
		{"the backend's own policy wins its cluster", "a", point(by, "a", false), nil,
			[]*topology.Backend{backend(a, 80)}, false, "a:80 by P#a"},
		{"only the backend it is on", "a", point(by, "a", false), nil,
			[]*topology.Backend{backend(a, 80), backend(b, 80)}, false, "a:80 by P#a"},
		{"a backend named twice counts once", "a", point(by, "a", false), nil,
			[]*topology.Backend{backend(a, 80), backend(a, 80)}, false, "a:80 by P#a"},
		{"another port's policy does not reach this port's cluster", "a", nil, point(by, "a", false),
			[]*topology.Backend{backend(a, 80), backend(a, 81)}, false, "a:81 by P#a"},
		{"the same family's kind is not judged", "a", point(bx, "a", false), nil,
			[]*topology.Backend{backend(a, 80)}, false, ""},
		{"a kind no family lists is not judged", "a", point(free, "a", false), nil,
			[]*topology.Backend{backend(a, 80)}, false, ""},
		{"an invalid backend policy wins nothing", "a", point(by, "a", true), nil,
			[]*topology.Backend{backend(a, 80)}, false, ""},
		{"other cluster settings", "b", point(by, "b", false), nil,
			[]*topology.Backend{backend(a, 80)}, false, ""},
		{"a field already overridden on the route", "a", point(by, "a", false), nil,
			[]*topology.Backend{backend(a, 80)}, true, ""},
		{"an unresolved backend", "a", point(by, "a", false), nil,
			[]*topology.Backend{{Kind: "Service", Namespace: "ns", Name: "a", Port: 80}}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bp := &BackendPoints{Key: model.Key{Kind: "Service", Namespace: "ns", Name: "a"}, Ports: map[string]Points{}}
			if tc.own != nil {
				bp.Own = Points{tc.own}
			}
			if tc.web != nil {
				bp.Ports["web"] = Points{tc.web}
			}
			r := &Result{Registry: reg, backendsBy: map[model.Key]*BackendPoints{bp.Key: bp}}
			c := &Candidate{Policy: &policy.Policy{Kind: rx, Obj: &manifest.Object{Namespace: "ns", Name: "rp"}}, Level: LevelRoute}
			out := []EffectiveField{{Kind: rx, Key: tc.key, Field: &Field{Key: tc.key, Owner: c, Contributors: []*Candidate{c}}}}
			if tc.overridden {
				out[0].OverriddenBy = &PathOverride{Path: "route.timeout"}
			}
			r.fromBackends(out, &topology.Rule{Backends: tc.backends}, &topology.Gateway{})
			var got []string
			for _, o := range out[0].OnClusters {
				got = append(got, fmt.Sprintf("%s:%d by %s#%s", o.Backend.Name, o.Port, o.Kind.GroupKind().Kind, o.Key))
				if o.Decision.Rule != RuleLevel {
					t.Errorf("decided by %s, want level", o.Decision.Rule)
				}
			}
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("on clusters %q, want %q", s, tc.want)
			}
		})
	}
}
