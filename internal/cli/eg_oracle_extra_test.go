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
// ("mirror").
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
	return g.out
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
