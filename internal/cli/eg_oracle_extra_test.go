package cli

import (
	"fmt"
	"os"
	"slices"
)

// egOracleMutants are the mutants the oracle samples from: egMutants,
// or with GWPOL_EGCTL_EXTRA=1 only the shapes egExtraMutants makes, or
// with GWPOL_EGCTL_FIELDS=1 only those egFieldMutants makes (each kept
// apart so that the default sample, and the figures recorded for each
// seed, do not move).
func egOracleMutants(docs []egDoc) []egMutant {
	if egFieldsOn() {
		return egFieldMutants(docs)
	}
	if os.Getenv("GWPOL_EGCTL_EXTRA") == "1" {
		return egExtraMutants(docs)
	}
	return egMutants(docs)
}

// egExtraMutants are shapes the default mutators lack, each a class of
// its own: a referenced Secret's or ConfigMap's key removed or emptied
// ("data"); a Service port's appProtocol and name varied ("port");
// a policy number set at a percentage's edges — 1, 100, 101, and for
// floats 0.0001 and 100.5 ("edge"); a RequestMirror's share varied
// ("mirror"); BackendTLSPolicies added ("btls-added", "btls-section");
// a route's parentRef beside a twin ("parentref-twin").
func egExtraMutants(docs []egDoc) []egMutant {
	g := egGen{docs: docs, byKind: map[string][]egDoc{}}
	for _, d := range docs {
		g.byKind[egKind(d)] = append(g.byKind[egKind(d)], d)
	}
	for _, k := range []string{"Secret", "ConfigMap"} {
		for _, d := range g.byKind[k] {
			id := egID(d)
			data, _ := d["data"].(map[string]any)
			for i, key := range egSortedKeys(data) {
				if i >= 3 {
					break
				}
				g.add(egEdit("data", id+" data."+key+" removed", id, func(d egDoc) { egSetPath(d, []any{"data", key}, nil, true) }))
				g.add(egEdit("data", id+` data.`+key+`=""`, id, func(d egDoc) { egSetPath(d, []any{"data", key}, "", false) }))
			}
		}
	}
	for _, d := range g.byKind["Service"] {
		id := egID(d)
		if egAt(egSpec(d), "ports", 0) == nil {
			continue
		}
		for _, ap := range []string{"kubernetes.io/h2c", "gateway.envoyproxy.io/h2c", "kubernetes.io/ws", "grpc", "http2", "h2c"} {
			g.add(egEdit("port", id+" ports[0].appProtocol="+ap, id, func(d egDoc) { egSetPath(d, []any{"spec", "ports", 0, "appProtocol"}, ap, false) }))
		}
		g.add(egEdit("port", id+" ports[0].appProtocol removed", id, func(d egDoc) { egSetPath(d, []any{"spec", "ports", 0, "appProtocol"}, nil, true) }))
		g.add(egEdit("port", id+" ports[0].name=grpc", id, func(d egDoc) { egSetPath(d, []any{"spec", "ports", 0, "name"}, "grpc", false) }))
		g.add(egEdit("port", id+" ports[0].name removed", id, func(d egDoc) { egSetPath(d, []any{"spec", "ports", 0, "name"}, nil, true) }))
	}
	for _, k := range egPolicyKinds {
		for _, p := range g.byKind[k] {
			id := egID(p)
			spec := egSpec(p)
			for _, key := range egSortedKeys(spec) {
				if key != "targetRef" && key != "targetRefs" && key != "targetSelectors" {
					g.edges(id, []any{"spec", key}, spec[key])
				}
			}
		}
	}
	for _, kind := range egRouteKinds {
		for _, r := range g.byKind[kind] {
			id := egID(r)
			rules, _ := egSpec(r)["rules"].([]any)
			for i, rl := range rules {
				fs, _ := rl.(map[string]any)["filters"].([]any)
				for j, f := range fs {
					fm, _ := f.(map[string]any)
					if fm["type"] != "RequestMirror" {
						continue
					}
					at := []any{"spec", "rules", i, "filters", j, "requestMirror"}
					for label, share := range map[string][2]any{
						"percent=0": {"percent", 0}, "percent=100": {"percent", 100},
						"fraction=1/3": {"fraction", map[string]any{"numerator": 1, "denominator": 3}},
						"fraction=0/7": {"fraction", map[string]any{"numerator": 0, "denominator": 7}},
					} {
						g.add(egEdit("mirror", fmt.Sprintf("%s rules[%d].filters[%d] %s", id, i, j, label), id, func(d egDoc) {
							egSetPath(d, append(at, "percent"), nil, true)
							egSetPath(d, append(at, "fraction"), nil, true)
							egSetPath(d, append(slices.Clone(at), share[0]), egClone(share[1]), false)
						}))
					}
					g.add(egEdit("mirror", fmt.Sprintf("%s rules[%d].filters[%d] neither percent nor fraction", id, i, j), id, func(d egDoc) {
						egSetPath(d, append(slices.Clone(at), "percent"), nil, true)
						egSetPath(d, append(slices.Clone(at), "fraction"), nil, true)
					}))
				}
			}
		}
	}
	for _, p := range g.byKind["BackendTLSPolicy"] {
		g.backendTLSSections(p)
	}
	g.backendTLSAdded()
	for _, kind := range egRouteKinds {
		for _, r := range g.byKind[kind] {
			g.parentRefTwins(r)
		}
	}
	return g.out
}

// parentRefTwins: a route's parentRef beside a twin Envoy Gateway may
// count the same parent (contexts.go: IsParentRefEqual) — its namespace
// written where the original leaves it out or the other way round, before
// and after it; without a sectionName, the twin on another port (each
// listener's, one none has), in both orders — and the parentRef's own
// namespace left out ("parentref-twin"): which status entries the route
// gets, what each says, and which parentRef names it.
func (g *egGen) parentRefTwins(r egDoc) {
	id, ns := egID(r), egNamespace(r)
	egEachParentRef(r, func(i int, pr map[string]any) {
		twin := func(label string, before bool, f func(tw map[string]any)) {
			g.add(egEdit("parentref-twin", fmt.Sprintf("%s parentRefs[%d] %s", id, i, label), id, func(d egDoc) {
				spec := egSpec(d)
				prs, _ := spec["parentRefs"].([]any)
				if i >= len(prs) {
					return
				}
				tw, _ := egClone(prs[i]).(map[string]any)
				if tw == nil {
					return
				}
				f(tw)
				at := i + 1
				if before {
					at = i
				}
				spec["parentRefs"] = slices.Insert(slices.Clone(prs), at, any(tw))
			}))
		}
		written, _ := pr["namespace"].(string)
		toggle := func(tw map[string]any) {
			if written != "" {
				delete(tw, "namespace")
			} else {
				tw["namespace"] = ns
			}
		}
		if written == "" || written == ns {
			twin("twin with the namespace toggled after", false, toggle)
			twin("twin with the namespace toggled before", true, toggle)
		}
		if written != "" {
			g.add(egEdit("parentref-twin", fmt.Sprintf("%s parentRefs[%d] namespace removed", id, i), id, func(d egDoc) {
				if pr := egAt(egSpec(d), "parentRefs", i); pr != nil {
					delete(pr, "namespace")
				}
			}))
		}
		if _, ok := pr["sectionName"]; ok {
			return
		}
		name, _ := pr["name"].(string)
		ports := []any{1}
		if gw := g.object("Gateway", egOr(written, ns), name); gw != nil {
			ls, _ := egSpec(gw)["listeners"].([]any)
			for _, l := range ls {
				if lm, ok := l.(map[string]any); ok && lm["port"] != nil && !slices.Contains(ports, lm["port"]) {
					ports = append(ports, lm["port"])
				}
			}
		}
		for _, port := range ports {
			for _, before := range []bool{false, true} {
				twin(fmt.Sprintf("twin on port %v (before: %v)", port, before), before, func(tw map[string]any) { tw["port"] = port })
			}
		}
	})
}

// backendTLSAdded: BackendTLSPolicies added on the Service the input's
// first route backendRef names (of a Service with a named port): on the
// whole Service and on the port's section, in both orders, and twice on
// one target ("btls-added") — which policy governs the route's
// destination, where each is reported, and which is Conflicted.
func (g *egGen) backendTLSAdded() {
	for _, kind := range egRouteKinds {
		for _, r := range g.byKind[kind] {
			rules, _ := egSpec(r)["rules"].([]any)
			for _, rl := range rules {
				refs, _ := rl.(map[string]any)["backendRefs"].([]any)
				for _, b := range refs {
					br, _ := b.(map[string]any)
					if k, _ := br["kind"].(string); k != "" && k != "Service" {
						continue
					}
					ns := egNamespace(r)
					if n, _ := br["namespace"].(string); n != "" {
						ns = n
					}
					svc := slices.IndexFunc(g.byKind["Service"], func(d egDoc) bool { return egNamespace(d) == ns && egName(d) == br["name"] })
					if svc < 0 {
						continue
					}
					section := ""
					ports, _ := egSpec(g.byKind["Service"][svc])["ports"].([]any)
					for _, pt := range ports {
						pm, _ := pt.(map[string]any)
						if fmt.Sprint(pm["port"]) == fmt.Sprint(br["port"]) {
							section, _ = pm["name"].(string)
						}
					}
					if section == "" {
						continue
					}
					pol := func(name, section string) map[string]any {
						ref := map[string]any{"group": "", "kind": "Service", "name": br["name"]}
						if section != "" {
							ref["sectionName"] = section
						}
						return map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "BackendTLSPolicy",
							"metadata": map[string]any{"name": name, "namespace": ns},
							"spec": map[string]any{"targetRefs": []any{ref},
								"validation": map[string]any{"hostname": name + ".example.com", "wellKnownCACertificates": "System"}}}
					}
					for label, ps := range map[string][][2]string{
						"whole, then section":         {{"btls-a", ""}, {"btls-b", section}},
						"section, then whole":         {{"btls-a", section}, {"btls-b", ""}},
						"whole, section, whole again": {{"btls-a", ""}, {"btls-b", section}, {"btls-c", ""}},
						"section twice, then whole":   {{"btls-a", section}, {"btls-b", section}, {"btls-c", ""}},
					} {
						g.add(egMutant{Class: "btls-added", Label: fmt.Sprintf("BackendTLSPolicies on %s/%s: %s (%s)", ns, br["name"], label, section), apply: func(docs []egDoc) []egDoc {
							for _, p := range ps {
								docs = append(docs, pol(p[0], p[1]))
							}
							egSort(docs)
							return docs
						}})
					}
					return
				}
			}
		}
	}
}

// backendTLSSections: beside a BackendTLSPolicy, a copy of it processed
// before it and one after (egctl's order is namespace/name) whose
// targetRefs name, in turn, each named port of a Service it targets by
// sectionName, or the whole Service ("btls-section"): which policy
// governs each destination, and which are Conflicted, is Envoy Gateway's
// getBackendTLSPolicy and ProcessBackendTLSPolicyStatus. Each adds a
// route to the Service's ports (backendTLSRoute).
func (g *egGen) backendTLSSections(p egDoc) {
	id, name, ns := egID(p), egName(p), egNamespace(p)
	refs, _ := egSpec(p)["targetRefs"].([]any)
	for i, r := range refs {
		ref, _ := r.(map[string]any)
		if k, _ := ref["kind"].(string); k != "Service" {
			continue
		}
		svc := slices.IndexFunc(g.byKind["Service"], func(d egDoc) bool { return egNamespace(d) == ns && egName(d) == ref["name"] })
		if svc < 0 {
			continue
		}
		sections := []string{""}
		ports, _ := egSpec(g.byKind["Service"][svc])["ports"].([]any)
		for _, pt := range ports {
			if n, _ := pt.(map[string]any)["name"].(string); n != "" && len(sections) < 3 {
				sections = append(sections, n)
			}
		}
		route := g.backendTLSRoute(ns, ref["name"], ports)
		for _, section := range sections {
			if section == ref["sectionName"] || section == "" && ref["sectionName"] == nil {
				continue
			}
			for _, n := range []string{"0-" + name, "zz-" + name} {
				label := fmt.Sprintf("copy of %s named %s, targetRefs[%d] sectionName=%q", id, n, i, section)
				g.add(egMutant{Class: "btls-section", Label: label, apply: func(docs []egDoc) []egDoc {
					j := egIndex(docs, id)
					if j < 0 {
						return docs
					}
					c, _ := egClone(docs[j]).(map[string]any)
					egMeta(c)["name"] = n
					egSetPath(c, []any{"spec", "targetRefs"}, []any{egClone(ref)}, false)
					egSetPath(c, []any{"spec", "targetRefs", 0, "sectionName"}, section, section == "")
					docs = append(docs, c)
					if route != nil {
						docs = append(docs, egClone(route).(map[string]any))
					}
					egSort(docs)
					return docs
				}})
			}
		}
	}
}

// backendTLSRoute is an HTTPRoute in namespace ns, on the input's first
// Gateway, with a rule to each of the Service's first three ports, so
// that routes build destinations to the ports a BackendTLSPolicy names
// (the cases' policies are mostly on services other policies call); nil
// without a Gateway.
func (g *egGen) backendTLSRoute(ns string, svc any, ports []any) map[string]any {
	if len(g.byKind["Gateway"]) == 0 || len(ports) == 0 {
		return nil
	}
	gw := g.byKind["Gateway"][0]
	var rules []any
	for i, pt := range ports {
		if i == 3 {
			break
		}
		port := pt.(map[string]any)["port"]
		rules = append(rules, map[string]any{
			"matches":     []any{map[string]any{"path": map[string]any{"type": "PathPrefix", "value": fmt.Sprintf("/btls-%d", i)}}},
			"backendRefs": []any{map[string]any{"name": svc, "port": port}},
		})
	}
	return map[string]any{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
		"metadata": map[string]any{"name": "zz-btls-route", "namespace": ns},
		"spec":     map[string]any{"parentRefs": []any{map[string]any{"name": egName(gw), "namespace": egNamespace(gw)}}, "rules": rules}}
}

// edges sets each number under path to a percentage's edges.
func (g *egGen) edges(id string, path []any, v any) {
	path = slices.Clip(path)
	set := func(label string, nv any) {
		g.add(egEdit("edge", id+" "+egPathString(path)+label, id, func(d egDoc) { egSetPath(d, path, nv, false) }))
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range egSortedKeys(x) {
			g.edges(id, append(path, k), x[k])
		}
	case []any:
		for i, e := range x {
			if i < 2 {
				g.edges(id, append(path, i), e)
			}
		}
	case int:
		for _, n := range []int{1, 100, 101} {
			if n != x {
				set(fmt.Sprintf("=%d", n), n)
			}
		}
	case float64:
		set("=0.0001", 0.0001)
		set("=100.5", 100.5)
	}
}
