package cli

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/topology"
)

// One truth for all views: for every kgateway case (cases/ and more/),
// every Envoy Gateway, HAPTIC and WSO2 case, the examples and every
// render, explain and lint fixture, on every Envoy route render emits, the fields
// explain names an owner for are the policy-owned values render put
// there, and render puts no policy-owned value there that explain does
// not attribute.
//
// How an explained field maps to Envoy is what its kind declares when it
// renders: each field renders (policy.Renderer, the owner's merged values,
// at the scope of the level that decided it) to fragments naming RouteAction
// fields (route.<field>), Route fields (<field>), per-filter configs
// (typed_per_filter_config.<filter>, which Envoy takes from the route, else
// its virtual host, else its RouteConfiguration) and VirtualHost fields.
//
//   - explain → render: every part of every fragment is on the route (its
//     virtual host for VirtualHost fields) with the fragment's value (lists
//     and messages: contained, since Gateway API filters may add to the
//     same list). Less specific levels explain lists as also in effect
//     (another provider; timeouts filling what the route leaves unset) are
//     checked on the parts the levels above leave to them.
//   - render → explain: every RouteAction and Route field set on the route,
//     and every per-filter config in effect for it, is claimed by a fragment
//     of an explained field, except what Gateway API routing itself
//     produces (gatewayAPIPaths). A rule's own timeouts and retry are not
//     in that list: explain attributes them (HTTPRoute NS/NAME rule R
//     (built-in)).
//
// Routes that answer every request themselves (a direct response, or a
// route to the blackhole cluster alone, envoy.RouteAnswer): explain must
// say the status render answers (a broken reference, a kind failing
// closed, no usable backend, a capability the target lacks, a field that
// cannot be rendered) or that an invalid policy replaced them
// (checkReplaced); a route that forwards or redirects must not be one
// explain says answers a fixed status (checkAnswers).

// gatewayAPIPaths are the Route paths the Gateway API translation writes
// without any policy: the match, the backends (and the WebSocket upgrade
// a backend's appProtocol asks for), the rule's filters (rewrites,
// mirrors, header modifiers, redirects), its session persistence and
// gwpol's metadata.
var gatewayAPIPaths = map[string]bool{
	"name": true, "match": true, "metadata": true, "redirect": true, "direct_response": true,
	"request_headers_to_add": true, "request_headers_to_remove": true, "response_headers_to_add": true, "response_headers_to_remove": true,
	"route.cluster": true, "route.weighted_clusters": true, "route.cluster_not_found_response_code": true,
	"route.prefix_rewrite": true, "route.regex_rewrite": true, "route.host_rewrite_literal": true, "route.request_mirror_policies": true,
	// Envoy Gateway appends x-forwarded-host wherever a URLRewrite rewrites the host
	"route.append_x_forwarded_host": true,
	"route.upgrade_configs":         true,
	// a rule's own sessionPersistence
	"typed_per_filter_config.envoy.filters.http.stateful_session": true,
}

// backendRoutePaths are the route action fields the backend objects of a
// rule ask for (policy.BackendBuild.Route: a GCP Backend's host
// rewrite): like the backends themselves, no policy sets them.
func backendRoutePaths(c *pipeline.Compiled, rule *topology.Rule) map[string]bool {
	out := map[string]bool{}
	for _, b := range rule.Backends {
		k := model.Key{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}
		o, ok := c.Result.Graph.Model.Object(k)
		if !b.Resolved || !ok {
			continue
		}
		for _, kind := range c.Result.Registry.Kinds() {
			bp, ok1 := kind.(policy.BackendProvider)
			bc, ok2 := kind.(policy.BackendClusterer)
			if !ok1 || !ok2 || !slices.Contains(bp.BackendKinds(), k.GK()) {
				continue
			}
			build, err := bc.BackendCluster(o, "", nil)
			if err != nil || build == nil {
				continue // no cluster of its own (the plain one), or none rendered
			}
			if build.Route != nil {
				build.Route.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
					out["route."+string(fd.Name())] = true
					return true
				})
			}
			if build.PerRoute != nil {
				// the per-filter configs a route to it needs (a dynamic
				// forward proxy's loopback RBAC): no policy's either
				for name := range build.PerRoute(&routev3.RouteAction{}) {
					out["typed_per_filter_config."+name] = true
				}
			}
		}
	}
	return out
}

// shadowedGap: render keeps a per-filter config in effect on a route
// that explain reports as shadowed there, and the route does not switch
// the filter's family off (global_disable/<family>).
const shadowedGap = "shadowed-but-in-effect"

const gapsFile = "../../testdata/explain-render-gaps.txt"

// knownGaps reads gapsFile: "CASE GAP: why" per line, # comments.
func knownGaps(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(gapsFile)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, _, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("%s: %q is not CASE GAP: why", gapsFile, line)
		}
		out[k] = true
	}
	return out
}

// envoyRoute is an Envoy route with the resources it inherits from.
type envoyRoute struct {
	route *routev3.Route
	vhost *routev3.VirtualHost
	rc    *routev3.RouteConfiguration
	// vars are the route's namespace, name and rule name, which render
	// fills into a stat prefix's {{ }} variables per route, and
	// statSegments the target's Target.StatPrefixSegments.
	vars         [3]string
	statSegments bool
	// clusters are its Gateway's clusters, by name.
	clusters map[string]*clusterv3.Cluster
	// site is the route as a kind's per-route fragments see it
	// (policy.Fragment.PerRoute).
	site policy.RouteSite
}

func TestExplainAgreesWithRender(t *testing.T) {
	type input struct {
		name     string
		set      *manifest.Set
		cfg      *Config
		gateways []string
	}
	var inputs []input
	dirs, _ := filepath.Glob(filepath.Join(conformanceDir, "*"))
	more, _ := filepath.Glob(filepath.Join(conformanceDir, "..", "more", "*"))
	dirs = append(dirs, more...)
	if len(dirs) == 0 {
		t.Logf("conformance cases not found at %s; checking the examples only", conformanceDir)
	}
	for _, dir := range dirs {
		if set, err := manifest.Load([]string{filepath.Join(dir, "input.yaml")}, manifest.Options{}); err != nil || set.Unreadable() {
			t.Logf("%s: skipped, its input does not load: %v", filepath.Base(dir), firstErr(err, problemsErr(set)))
			continue
		}
		set, cfg, cs, _ := loadCase(t, dir)
		inputs = append(inputs, input{filepath.Base(dir), set, cfg, []string{cs.Gateway}})
	}
	ex, err := manifest.Load([]string{"../../testdata/examples"}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, input{"examples", ex, &Config{Namespace: "default"}, nil})
	eg, err := manifest.Load([]string{"../../testdata/examples-envoygateway"}, manifest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Envoy Gateway's kinds place each policy on the route (routed
	// points): explain must name the owner render's metadata names there.
	egCfg := &Config{Namespace: "default"}
	setSetting(t, egCfg, "envoyGateway.extensionApis.enableLua", true) // the example's deployment (testdata/base/eg-extensions.gwpol.yaml)
	inputs = append(inputs, input{"examples-envoygateway", eg, egCfg, nil})
	// Every other corpus of the verdict property (TestVerdictProperty):
	// Envoy Gateway's cases, the HAPTIC and WSO2 corpora, testdata's other
	// example sets, and render's, explain's and lint's fixtures — none left
	// out.
	for _, in := range verdictCorpus(t) {
		switch {
		case in.family == "kgateway" || in.name == "testdata/examples" || in.name == "testdata/examples-envoygateway":
			continue // above, with each case's Gateway
		}
		inputs = append(inputs, input{in.name, in.set, in.cfg, nil})
	}
	known := knownGaps(t)
	routes, fields, replaced, gapCases, redirectFields := 0, 0, 0, 0, 0
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			c := families.Compile(in.set, in.cfg)
			gaps := map[string][]string{}
			for _, target := range c.Result.Registry.TargetNames() {
				out, err := renderCompiled(c, target, false, in.gateways...)
				if err != nil {
					t.Fatalf("render %s: %v", target, err)
				}
				r, f, x, rf := checkOwnership(t, c, out, target, gaps)
				routes, fields, replaced, redirectFields = routes+r, fields+f, replaced+x, redirectFields+rf
			}
			for _, gap := range []string{shadowedGap} {
				switch listed := known[in.name+" "+gap]; {
				case len(gaps[gap]) > 0 && !listed:
					t.Errorf("%s (not listed in %s):\n  %s", gap, gapsFile, strings.Join(gaps[gap], "\n  "))
				case len(gaps[gap]) == 0 && listed:
					t.Errorf("%s lists %s for this case, which explain and render now agree on: remove the line", gapsFile, gap)
				case listed:
					gapCases++
				}
			}
		})
	}
	msg := fmt.Sprintf("explain/render ownership: %d Envoy routes, %d explained fields agree; %d direct responses and redirects agree on the status; %d inputs with a listed gap (%s)",
		routes, fields, replaced, gapCases, gapsFile)
	t.Log(msg)
	fmt.Println(msg)
	msg = fmt.Sprintf("explain/render on redirects: %d fields agree on whether the rule's redirect takes them (merge.Result.FieldForwardingOn)", redirectFields)
	t.Log(msg)
	fmt.Println(msg)
}

// checkOwnership checks every Envoy route of one render against explain.
func checkOwnership(t *testing.T, c *pipeline.Compiled, out *envoy.Output, target string, gaps map[string][]string) (routes, fields, replaced, redirectFields int) {
	t.Helper()
	// Envoy route names are unique within a Gateway's output only: two
	// Gateways serving one route name theirs alike.
	byName := map[string]envoyRoute{} // Gateway namespace/name + " " + route name
	for _, g := range out.Gateways {
		clusters := map[string]*clusterv3.Cluster{}
		for _, c := range g.Clusters {
			clusters[c.Name] = c
		}
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				for _, r := range vh.Routes {
					byName[g.Namespace+"/"+g.Name+" "+r.Name] = envoyRoute{route: r, vhost: vh, rc: rc, clusters: clusters}
				}
			}
		}
	}
	env := &policy.Env{Model: c.Graph.Model, Config: c.Config.PolicyConfig(), Target: target}
	for _, gw := range c.Graph.Gateways {
		for _, l := range gw.Listeners {
			for _, rp := range c.Result.Routes {
				for _, rule := range rp.Rules {
					// a delegated rule along each parent path it is served
					// through: each path's routes merge its own parents' policies
					paths := []*merge.RulePath{nil}
					if len(rule.Paths) > 0 {
						paths = rule.Paths
					}
					for _, path := range paths {
						for _, name := range out.RouteNamesOn(rule.Rule, path, l) {
							er, ok := byName[gw.Namespace+"/"+gw.Name+" "+name]
							if !ok {
								continue
							}
							if status, body := envoy.RouteAnswerIn(er.route, func(name string) bool { return er.clusters[name] != nil }); status != 0 {
								replaced++
								checkReplaced(t, c, out, rp.Route, rule.Rule, path, l, status, body, target+" "+name)
								continue
							}
							if er.route.GetRoute() == nil {
								replaced++ // a redirect
								checkAnswers(t, c, out, rp.Route, rule.Rule, path, l, target+" "+name)
								redirectFields += checkNotForwarding(t, c, env, rp.Route, rule.Rule, path, l, er, target+" "+name)
								continue
							}
							checkAnswers(t, c, out, rp.Route, rule.Rule, path, l, target+" "+name)
							routes++
							fields += checkRoute(t, c, env, rp.Route, rule.Rule, path, l, er, c.Result.Registry.Targets()[target], target+" "+name, gaps)
						}
					}
				}
			}
		}
	}
	return routes, fields, replaced, redirectFields
}

// checkRoutedMetadata: for the kinds that place their policy on each
// route (Envoy Gateway's, policy.WholeOverrider), the route's merge
// metadata and explain name the same fields with the same owner, both
// ways — and so does the metadata of a cluster the route's rule has of
// its own (the fields that shaped it, a subset).
func checkRoutedMetadata(t *testing.T, eff []merge.EffectiveField, er envoyRoute, where string) {
	t.Helper()
	explained := map[string]string{} // metadata key#field → owner ID
	// onCluster: metadata key#field → the owner ID of the field's
	// settings on the route's cluster: the route's own, or, where the
	// rule's route on another listener shaped its one cluster
	// (merge.ClusterShape), that route's ("" none)
	onCluster := map[string]string{}
	md := er.route.GetMetadata().GetFilterMetadata()
	for _, e := range eff {
		if c := e.ClusterFrom; c != nil {
			onCluster[e.Kind.Spec().MetadataKey+"#"+e.Key] = ""
			if c.Field != nil {
				onCluster[e.Kind.Spec().MetadataKey+"#"+e.Key] = c.Field.Owner.Policy.ID()
			}
			if e.ClusterOnly {
				continue // not the route's: its cluster's alone
			}
		}
		for _, c := range e.OnClusters {
			// not on that backend's cluster (merge.ClusterOverride): the
			// cluster's metadata, which says who shaped it, does not name it
			for _, name := range routeClusters(er.route) {
				cl := er.clusters[name]
				backend := cl.GetEdsClusterConfig().GetServiceName()
				if backend == "" {
					backend = name
				}
				if c.Backend.Kind == "Service" && backend == policy.ServiceCluster(c.Backend.Namespace, c.Backend.Name, c.Port) &&
					slices.Contains(metadataIDs(cl.GetMetadata().GetFilterMetadata()[e.Kind.Spec().MetadataKey], e.Key), e.Field.Owner.Policy.ID()) {
					t.Errorf("%s: explain says %s field %s is not on the cluster of %s/%s port %d, but cluster %s's metadata names it", where, e.Kind.GroupKind().Kind, e.Key, c.Backend.Namespace, c.Backend.Name, c.Port, name)
				}
			}
		}
		if e.OverriddenBy != nil {
			// not in effect (merge.PathOverride): gwpol's metadata, which
			// says what is, does not name it on the route
			if slices.Contains(metadataIDs(md[e.Kind.Spec().MetadataKey], e.Key), e.Field.Owner.Policy.ID()) {
				t.Errorf("%s: explain says %s field %s is overridden by %s, but the route's metadata names it", where, e.Kind.GroupKind().Kind, e.Key, e.OverriddenBy.Field.Owner.Policy.ID())
			}
			continue
		}
		wo, ok := e.Kind.(policy.WholeOverrider)
		if !ok || !wo.OverridesWhole() || e.Field.Owner.Policy.BuiltIn != nil {
			continue
		}
		explained[e.Kind.Spec().MetadataKey+"#"+e.Key] = e.Field.Owner.Policy.ID()
	}
	for key, owner := range explained {
		mk, field, _ := strings.Cut(key, "#")
		if !slices.Contains(metadataIDs(md[mk], field), owner) {
			t.Errorf("%s: explain says %s owns %s; the route's %s metadata names %v", where, owner, field, mk, metadataIDs(md[mk], field))
		}
	}
	for mk, st := range md {
		for field := range st.GetFields() {
			if _, ok := explained[mk+"#"+field]; !ok && isRoutedKey(eff, mk) {
				t.Errorf("%s: the route's %s metadata names field %s, which explain does not show", where, mk, field)
			}
		}
	}
	for _, name := range routeClusters(er.route) {
		for mk, st := range er.clusters[name].GetMetadata().GetFilterMetadata() {
			for field := range st.GetFields() {
				owner, ok := explained[mk+"#"+field]
				if o, shaped := onCluster[mk+"#"+field]; shaped {
					owner, ok = o, o != ""
				}
				if isRoutedKey(eff, mk) && (!ok || !slices.Contains(metadataIDs(st, field), owner)) {
					t.Errorf("%s: cluster %s's %s metadata names %v for %s; explain says %q", where, name, mk, metadataIDs(st, field), field, owner)
				}
			}
		}
	}
}

// routeClusters names the clusters a forwarding route sends to.
func routeClusters(r *routev3.Route) []string {
	ra := r.GetRoute()
	if c := ra.GetCluster(); c != "" {
		return []string{c}
	}
	var names []string
	for _, wc := range ra.GetWeightedClusters().GetClusters() {
		names = append(names, wc.Name)
	}
	return names
}

// metadataIDs are the policy IDs a merge metadata Struct lists for a
// field.
func metadataIDs(st *structpb.Struct, field string) []string {
	var ids []string
	for _, v := range st.GetFields()[field].GetListValue().GetValues() {
		ids = append(ids, v.GetStringValue())
	}
	return ids
}

// isRoutedKey: the metadata key is a whole-overriding kind's among the
// route's effective fields (other kinds' metadata sits on the route's
// virtual host or RouteConfiguration as well).
func isRoutedKey(eff []merge.EffectiveField, key string) bool {
	return slices.ContainsFunc(eff, func(e merge.EffectiveField) bool {
		wo, ok := e.Kind.(policy.WholeOverrider)
		return ok && wo.OverridesWhole() && e.Kind.Spec().MetadataKey == key
	})
}

// claim is one Envoy path an explained field's fragments set.
type claim struct {
	path  string
	field string // kind#key, for messages
}

// checkRoute checks one Envoy route both ways; it returns the number of
// explained fields.
func checkRoute(t *testing.T, c *pipeline.Compiled, env *policy.Env, rt *topology.Route, rule *topology.Rule, path *merge.RulePath, l *topology.Listener, er envoyRoute, tgt envoy.Target, where string, gaps map[string][]string) int {
	t.Helper()
	er.vars, er.statSegments = [3]string{rt.Meta.Namespace, rt.Meta.Name, rule.Name}, tgt.StatPrefixSegments
	er.site = policy.RouteSite{Kind: rt.Kind, Namespace: rt.Meta.Namespace, Name: rt.Meta.Name, Rule: rule.Index, RuleName: rule.Name, Match: -1,
		Gateway: policy.GatewayName{Namespace: l.Gateway.Namespace, Name: l.Gateway.Name}, Listener: string(l.Name)}
	if l.Set != nil {
		er.site.ListenerSet = policy.GatewayName{Namespace: l.Set.Namespace, Name: l.Set.Name}
	}
	if _, m, ok := strings.Cut(er.route.Name, "-matcher-"); ok {
		fmt.Sscan(m, &er.site.Match)
		er.site.Match = envoy.SiteMatch(rule, er.site.Match)
	}
	if ds := er.vhost.GetDomains(); len(ds) > 0 {
		er.site.Hostname = ds[0]
	}
	view := explain.RuleOn(c.Result, rt, rule, path, l, explain.Options{})
	eff := c.Result.EffectiveOn(rule, path, l)
	// explain shows one row per field and owner: a rule's own field (a
	// Gateway API filter) stands for that field of several kinds at once.
	rows := map[[2]string]bool{}
	for _, f := range view.Fields {
		rows[[2]string{f.Field, f.Owner}] = true
	}
	inIR := map[[2]string]bool{}
	for _, e := range eff {
		k := [2]string{e.Key, e.Field.Owner.Policy.Describe()}
		if inIR[k] && !e.Field.Owner.IsBuiltIn() {
			t.Errorf("%s: the IR has %s owned by %s twice", where, k[0], k[1])
		}
		inIR[k] = true
		if !rows[k] {
			t.Errorf("%s: the IR says %s owned by %s, which explain does not show", where, k[0], k[1])
		}
	}
	if len(rows) != len(inIR) || len(view.Fields) != len(rows) {
		t.Fatalf("%s: explain shows %d fields, the IR has %d", where, len(view.Fields), len(inIR))
	}
	if replacedNote(view) {
		t.Errorf("%s forwards, but explain says it is replaced: %q", where, view.Notes)
	}
	checkRoutedMetadata(t, eff, er, where)
	claimed, shadowed := map[string]bool{}, map[string]string{}
	for _, e := range eff {
		r, ok := e.Kind.(policy.Renderer)
		if !ok || e.OverriddenBy != nil || e.ClusterOnly {
			// a field another family's kind overrides on one of its Envoy
			// paths takes no part in the route (merge.PathOverride): its
			// winner's fragments claim what is there; one in effect on the
			// route's cluster alone (merge.ClusterShape) sets nothing on
			// the route
			continue
		}
		in := fieldInput(e.Key, e.Field, l)
		in.Whole = e.Whole
		frags, err := r.RenderField(in, env)
		if err != nil {
			continue // render reports it (GWP401) and replaces the route
		}
		for _, fr := range frags {
			for _, cl := range claimFragment(t, where, e, fr, er, nil) {
				claimed[cl.path] = true
			}
		}
		// Less specific levels still in effect: another instance, or the
		// parts the levels above leave unset (only those are theirs).
		for _, bf := range e.Beside {
			frags, err := r.RenderField(fieldInput(e.Key, bf, l), env)
			if err != nil {
				continue
			}
			be := e
			be.Field = bf
			above := maps.Clone(claimed)
			for _, fr := range frags {
				for _, cl := range claimFragment(t, where, be, fr, er, above) {
					claimed[cl.path] = true
				}
			}
		}
		for _, sf := range e.Shadowed {
			frags, err := r.RenderField(fieldInput(e.Key, sf, l), env)
			if err != nil {
				continue
			}
			for _, fr := range frags {
				for _, name := range perFilterNames(fr) {
					shadowed["typed_per_filter_config."+name] = e.Key + " of " + sf.Owner.Policy.Describe()
				}
			}
		}
	}
	for p := range backendRoutePaths(c, rule) {
		claimed[p] = true
	}
	if er.route.GetRoute().GetCluster() != "" {
		// one backend: its policies' per-filter configs are on the route
		// (backendRef filters), each a field explain shows for it
		for _, p := range backendRefFilterPaths(t, c, env, rule, view, l) {
			claimed[p] = true
		}
	}
	if tgt.RequestIdleTimeout && claimed["route.timeout"] {
		// the target derives the idle timeout from the request timeout,
		// whoever owns that (envoy.Target.RequestIdleTimeout)
		claimed["route.idle_timeout"] = true
	}
	for _, p := range setPaths(er) {
		switch {
		case claimed[p] || gatewayAPIPaths[p]:
		case shadowed[p] != "" && switchedOff(er, p):
			// The provider's config stays on the virtual host or route
			// configuration, but the route switches its family off
			// (global_disable/<family>): the filter does not run there,
			// as explain says.
		case shadowed[p] != "":
			gaps[shadowedGap] = append(gaps[shadowedGap], where+": "+p+" ("+shadowed[p]+")")
		default:
			t.Errorf("%s: render sets %s, which no field explain shows owns (explain: %s)", where, p, explainedKeys(view))
		}
	}
	return len(eff)
}

// backendRefFilterPaths are the per-filter configs the policies a
// backendRef's filters name render for it: of the fields explain shows
// for that backendRef, those the kind applies per backend.
func backendRefFilterPaths(t *testing.T, c *pipeline.Compiled, env *policy.Env, rule *topology.Rule, view explain.Target, l *topology.Listener) []string {
	t.Helper()
	shown := map[string]bool{}
	for _, b := range view.BackendRefs {
		for _, f := range b.Fields {
			shown[fmt.Sprint(b.Index, f.Field, f.Owner)] = true
		}
	}
	var out []string
	for _, bp := range c.Result.Rule(rule).BackendRefs {
		for _, pt := range bp.Own {
			r, ok := pt.Kind.(policy.Renderer)
			if !ok {
				continue
			}
			for _, f := range pt.Fields {
				if !shown[fmt.Sprint(bp.Index, f.Key, f.Owner.Policy.Describe())] || !slices.ContainsFunc(pt.Kind.Spec().Fields, func(fs policy.FieldSpec) bool { return fs.Key == f.Key && fs.PerBackend }) {
					continue
				}
				frags, err := r.RenderField(fieldInput(f.Key, f, l), env)
				if err != nil {
					continue
				}
				for _, fr := range frags {
					for _, name := range perFilterNames(fr) {
						out = append(out, "typed_per_filter_config."+name)
					}
				}
			}
		}
	}
	return out
}

func explainedKeys(v explain.Target) string {
	var out []string
	for _, f := range v.Fields {
		out = append(out, f.Field+"="+f.Owner)
	}
	if len(out) == 0 {
		return "no fields"
	}
	return strings.Join(out, ", ")
}

// fieldInput is what render hands the kind for a field decided at its
// owner's level.
func fieldInput(key string, f *merge.Field, l *topology.Listener) policy.FieldInput {
	in := policy.FieldInput{Key: key, Strategy: f.Strategy, Values: f.Values, Scope: policy.ScopeRoute}
	for _, c := range f.Contributors {
		in.Contributors = append(in.Contributors, c.Policy.ID())
		in.Namespaces = append(in.Namespaces, c.Policy.Obj.Namespace)
	}
	switch f.Owner.Level {
	case merge.LevelGateway:
		in.Scope = policy.ScopeRouteConfig
	case merge.LevelListener, merge.LevelListenerSet:
		in.Scope = policy.ScopeVirtualHost
		if l.Protocol == "HTTPS" {
			in.Scope = policy.ScopeRouteConfig
		}
	}
	return in
}

// claimFragment checks that the route carries every part of one fragment
// and returns the paths it claims, leaving out paths in skip (set by a
// more specific level).
func claimFragment(t *testing.T, where string, e merge.EffectiveField, fr policy.Fragment, er envoyRoute, skip map[string]bool) []claim {
	t.Helper()
	id := e.Kind.GroupKind().Kind + "#" + e.Key + " (owner " + e.Field.Owner.Policy.Describe() + ")"
	var out []claim
	if fr.PerRoute != nil { // what the fragment configures on this route
		if frs, err := fr.PerRoute(er.site); err == nil {
			for _, f := range frs {
				out = append(out, claimFragment(t, where, e, f, er, skip)...)
			}
		}
	}
	if want := (&routev3.RouteAction{}); fragmentPart(fr.TypedRouteAction, want) {
		want.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			p := "route." + string(fd.Name())
			if skip[p] {
				return true
			}
			out = append(out, claim{p, id})
			if err := contains(er.route.GetRoute().ProtoReflect(), fd, v); err != nil {
				t.Errorf("%s: %s owns %s, but render emits %v", where, id, p, err)
			}
			return true
		})
	}
	if want := (&routev3.Route{}); fragmentPart(fr.TypedRoute, want) {
		if want.StatPrefix != "" {
			want.StatPrefix = envoy.StatPrefixOf(want.StatPrefix, er.vars[0], er.vars[1], er.vars[2], er.statSegments)
		}
		want.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if skip[string(fd.Name())] {
				return true
			}
			out = append(out, claim{string(fd.Name()), id})
			if err := contains(er.route.ProtoReflect(), fd, v); err != nil {
				t.Errorf("%s: %s owns %s, but render emits %v", where, id, fd.Name(), err)
			}
			return true
		})
	}
	if want := (&routev3.VirtualHost{}); fragmentPart(fr.TypedVirtualHost, want) {
		want.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if err := contains(er.vhost.ProtoReflect(), fd, v); err != nil {
				t.Errorf("%s: %s owns virtual host %s, but render emits %v", where, id, fd.Name(), err)
			}
			return true
		})
	}
	for name, msg := range fr.TypedPerFilterConfig {
		p := "typed_per_filter_config." + name
		if skip[p] {
			continue
		}
		out = append(out, claim{p, id})
		got := perFilterInEffect(er, name)
		want := &anypb.Any{} // packed as render packs it: map fields in key order
		if err := anypb.MarshalFrom(want, msg, proto.MarshalOptions{Deterministic: true}); err != nil {
			t.Fatalf("%s: %s: %v", where, p, err)
		}
		if got == nil || !proto.Equal(got, want) {
			t.Errorf("%s: %s owns %s, but render emits %v, not %v", where, id, p, got, want)
		}
	}
	return out
}

// fragmentPart reads one part of a fragment (route action, route, virtual
// host), the message the kind built, into want; false when the fragment
// has no such part.
func fragmentPart(typed proto.Message, want proto.Message) bool {
	if typed == nil {
		return false
	}
	proto.Merge(want, typed)
	return true
}

// perFilterNames are the filters a fragment configures per resource.
func perFilterNames(fr policy.Fragment) []string {
	return slices.Sorted(maps.Keys(fr.TypedPerFilterConfig))
}

// switchedOff reports whether the per-filter config at path p does not
// run on the route: the route's own config disables that filter, or it
// belongs to a filter family (ext_auth/…, ext_proc/…) whose global_disable
// marker is switched on for the route (kgateway's filters of the family do
// not run where it is).
func switchedOff(er envoyRoute, p string) bool {
	name := strings.TrimPrefix(p, "typed_per_filter_config.")
	// The route's own config switches the filter off (a disable reaching a
	// less specific level's variant of the filter).
	var own routev3.FilterConfig
	if a := er.route.TypedPerFilterConfig[name]; a != nil && a.MessageIs(&own) && a.UnmarshalTo(&own) == nil && own.GetDisabled() {
		return true
	}
	family, _, ok := strings.Cut(name, "/")
	if !ok || family == "global_disable" {
		return false
	}
	marker := perFilterInEffect(er, "global_disable/"+family)
	if marker == nil {
		return false
	}
	// A FilterConfig that disables the marker switches the family back on.
	var fc routev3.FilterConfig
	if marker.MessageIs(&fc) && marker.UnmarshalTo(&fc) == nil && fc.GetDisabled() {
		return false
	}
	return true
}

// perFilterInEffect is the per-filter config Envoy uses for a route: the
// route's own, else its virtual host's, else its RouteConfiguration's.
func perFilterInEffect(er envoyRoute, name string) *anypb.Any {
	for _, m := range []map[string]*anypb.Any{er.route.TypedPerFilterConfig, er.vhost.TypedPerFilterConfig, er.rc.TypedPerFilterConfig} {
		if a, ok := m[name]; ok {
			return a
		}
	}
	return nil
}

// setPaths lists what render set on a route: its Route and RouteAction
// fields and the per-filter configs in effect for it.
func setPaths(er envoyRoute) []string {
	var out []string
	er.route.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		switch fd.Name() {
		case "route":
			er.route.GetRoute().ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
				out = append(out, "route."+string(fd.Name()))
				return true
			})
		case "typed_per_filter_config":
		default:
			out = append(out, string(fd.Name()))
		}
		return true
	})
	seen := map[string]bool{}
	for _, m := range []map[string]*anypb.Any{er.route.TypedPerFilterConfig, er.vhost.TypedPerFilterConfig, er.rc.TypedPerFilterConfig} {
		for name := range m {
			if !seen[name] {
				seen[name] = true
				out = append(out, "typed_per_filter_config."+name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// contains reports how got's field fd differs from want: scalars and Anys
// must be equal, lists must hold every wanted element, maps every wanted
// key, other messages every wanted field (recursively).
func contains(got protoreflect.Message, fd protoreflect.FieldDescriptor, want protoreflect.Value) error {
	if !got.Has(fd) {
		return fmt.Errorf("no %s", fd.Name())
	}
	g := got.Get(fd)
	switch {
	case fd.IsList():
		gl, wl := g.List(), want.List()
		for i := range wl.Len() {
			found := false
			for j := range gl.Len() {
				if equalValue(fd, gl.Get(j), wl.Get(i)) {
					found = true
					break
				}
			}
			if !found {
				return fmt.Errorf("%s without element %v", fd.Name(), wl.Get(i))
			}
		}
	case fd.IsMap():
		gm := g.Map()
		var err error
		want.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			if !gm.Has(k) || !equalValue(fd.MapValue(), gm.Get(k), v) {
				err = fmt.Errorf("%s[%v] differs", fd.Name(), k)
			}
			return err == nil
		})
		return err
	case fd.Message() != nil && fd.Message().FullName() != "google.protobuf.Any":
		var err error
		want.Message().Range(func(sub protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if e := contains(g.Message(), sub, v); e != nil {
				err = fmt.Errorf("%s.%v", fd.Name(), e)
			}
			return err == nil
		})
		return err
	default:
		if !equalValue(fd, g, want) {
			return fmt.Errorf("%s = %v, the owner's value is %v", fd.Name(), g, want)
		}
	}
	return nil
}

func equalValue(fd protoreflect.FieldDescriptor, a, b protoreflect.Value) bool {
	if fd.Message() != nil {
		return proto.Equal(a.Message().Interface(), b.Message().Interface())
	}
	return a.Equal(b)
}

// checkReplaced: a route replaced because an invalid policy merges into
// it (the target's policy.XDSNames.InvalidBody) carries none of the fields explain lists, so
// explain must say so; other direct responses (fail closed, a capability
// the target lacks, a render error, no backend) are decided by render and
// not checked here.
func checkReplaced(t *testing.T, c *pipeline.Compiled, out *envoy.Output, rt *topology.Route, rule *topology.Rule, path *merge.RulePath, l *topology.Listener, status int, body, where string) {
	t.Helper()
	view := explain.RuleOn(c.Result, rt, rule, path, l, answersFrom(out))
	if view.FixedStatus != 0 {
		// attach or a backendRef broke the rule (a bad ExtensionRef, a
		// refused backend…): explain must say the status render answers.
		if view.FixedStatus != status {
			t.Errorf("%s answers %d, but explain says it answers %d (notes: %q)", where, status, view.FixedStatus, view.Notes)
		}
		return
	}
	invalid := body == out.InvalidBody(l.Gateway)
	if noted := replacedNote(view); invalid != noted {
		t.Errorf("%s answers %d (replaced for an invalid policy: %v), but explain says replaced: %v (notes: %q)", where, status, invalid, noted, view.Notes)
	}
	if !invalid {
		t.Errorf("%s answers %d to every request, but explain says neither a fixed status nor a replacement (notes: %q)", where, status, view.Notes)
	}
}

// checkAnswers: a route render forwards (or redirects) is one explain
// does not say answers a fixed status.
func checkAnswers(t *testing.T, c *pipeline.Compiled, out *envoy.Output, rt *topology.Route, rule *topology.Rule, path *merge.RulePath, l *topology.Listener, where string) {
	t.Helper()
	if view := explain.RuleOn(c.Result, rt, rule, path, l, answersFrom(out)); view.FixedStatus != 0 {
		t.Errorf("%s forwards or redirects, but explain says it answers %d (notes: %q)", where, view.FixedStatus, view.Notes)
	}
}

// answersFrom is explain's view of a render, as the explain command
// gives it.
func answersFrom(out *envoy.Output) explain.Options {
	return explain.Options{Answers: func(rule *topology.Rule, path *merge.RulePath, l *topology.Listener) []explain.Answer {
		return fixedAnswers(out, rule, path, l)
	}}
}

func replacedNote(v explain.Target) bool {
	return slices.ContainsFunc(v.Notes, func(n string) bool { return strings.HasPrefix(n, "replaced") })
}

// problemsErr is a set's first unreadable-input problem as an error.
func problemsErr(set *manifest.Set) error {
	if set == nil {
		return nil
	}
	for _, p := range set.Problems {
		if p.Severity == diag.Error {
			return errors.New(formatDiagLine(p))
		}
	}
	return nil
}

// routeActionPaths are every RouteAction field, as claimFragment names
// them (route.<field>).
func routeActionPaths() map[string]bool {
	out := map[string]bool{}
	fds := (&routev3.RouteAction{}).ProtoReflect().Descriptor().Fields()
	for i := range fds.Len() {
		out["route."+string(fds.Get(i).Name())] = true
	}
	return out
}

// checkNotForwarding checks a rule's route that redirects (no route
// action) against explain, on merge's verdict for fields on a rule that
// does not forward (merge.Result.FieldForwardingOn): a field explain
// marks not applied there (NotOnRoute) sets none of its Route fields on
// it, unless a field in effect does; every other field's Route fields
// and per-filter configs are there (its route action fields cannot be).
func checkNotForwarding(t *testing.T, c *pipeline.Compiled, env *policy.Env, rt *topology.Route, rule *topology.Rule, path *merge.RulePath, l *topology.Listener, er envoyRoute, where string) int {
	t.Helper()
	view := explain.RuleOn(c.Result, rt, rule, path, l, explain.Options{})
	notOn := map[[2]string]bool{}
	for _, f := range view.Fields {
		if f.NotOnRoute {
			notOn[[2]string{f.Field, f.Owner}] = true
		}
	}
	skip := routeActionPaths()
	claimed := map[string]bool{}
	var left []merge.EffectiveField
	checked := 0
	for _, e := range c.Result.EffectiveOn(rule, path, l) {
		r, ok := e.Kind.(policy.Renderer)
		if !ok || e.OverriddenBy != nil || e.ClusterOnly || len(e.Beside) > 0 {
			continue // as checkRoute; less specific instances are its concern
		}
		if v := c.Result.FieldForwardingOn(e.Kind, e.Key, rule, path); v.Answer == "" {
			t.Errorf("%s: render answers with a redirect, but merge says the rule forwards", where)
		}
		if notOn[[2]string{e.Key, e.Field.Owner.Policy.Describe()}] {
			left = append(left, e)
			continue
		}
		frags, err := r.RenderField(fieldInput(e.Key, e.Field, l), env)
		if err != nil {
			continue
		}
		checked++
		for _, fr := range frags {
			for _, cl := range claimFragment(t, where, e, fr, er, skip) {
				claimed[cl.path] = true
			}
		}
	}
	for _, e := range left {
		frags, err := e.Kind.(policy.Renderer).RenderField(fieldInput(e.Key, e.Field, l), env)
		if err != nil {
			continue
		}
		checked++
		for _, fr := range frags {
			want := &routev3.Route{}
			if !fragmentPart(fr.TypedRoute, want) {
				continue
			}
			want.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
				if er.route.ProtoReflect().Has(fd) && !claimed[string(fd.Name())] && !gatewayAPIPaths[string(fd.Name())] {
					t.Errorf("%s: explain says %s of %s is not applied on this redirect, but render sets its %s", where, e.Key, e.Field.Owner.Policy.Describe(), fd.Name())
				}
				return true
			})
		}
	}
	return checked
}
