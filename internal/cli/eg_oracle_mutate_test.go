package cli

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// This file generates the inputs TestEnvoyGatewayOracle hands to both
// gwpol and Envoy Gateway's offline translator: a public case's objects,
// normalised to what egctl can load, and systematic mutations of them.
// Nothing here is committed as data: mutants are built on the fly from the
// cases in ../shared and a seed.

// egDoc is one document of an input, decoded as plain data.
type egDoc = map[string]any

// egPolicyKinds are the kinds whose ancestor statuses are compared.
var egPolicyKinds = []string{"ClientTrafficPolicy", "BackendTrafficPolicy", "SecurityPolicy", "EnvoyExtensionPolicy", "BackendTLSPolicy"}

// egRouteKinds are the kinds whose parent statuses are compared.
var egRouteKinds = []string{"HTTPRoute", "GRPCRoute", "TLSRoute", "TCPRoute", "UDPRoute"}

// egUnloaded are the kinds egctl's loader (resource/load.go,
// loadKubernetesYAMLToResources) does not keep: giving them to gwpol only
// would compare two different inputs.
var egUnloaded = []string{"ListenerSet", "XListenerSet", "EndpointSlice", "ServiceImport", "ClusterTrustBundle"}

// egUpgrades are the Gateway API versions egctl's validator knows, for
// the kinds some inputs give in an older version it does not (GRPCRoute,
// TLSRoute, TCPRoute, UDPRoute, BackendTLSPolicy v1alpha2/3; Gateway,
// HTTPRoute, GatewayClass v1beta1; ReferenceGrant v1alpha2).
var egUpgrades = map[string]string{
	"GatewayClass": "gateway.networking.k8s.io/v1", "Gateway": "gateway.networking.k8s.io/v1",
	"HTTPRoute": "gateway.networking.k8s.io/v1", "GRPCRoute": "gateway.networking.k8s.io/v1",
	"TLSRoute": "gateway.networking.k8s.io/v1", "TCPRoute": "gateway.networking.k8s.io/v1",
	"UDPRoute": "gateway.networking.k8s.io/v1", "BackendTLSPolicy": "gateway.networking.k8s.io/v1",
	"ReferenceGrant": "gateway.networking.k8s.io/v1beta1",
}

func egKind(d egDoc) string { s, _ := d["kind"].(string); return s }

func egMeta(d egDoc) map[string]any {
	m, _ := d["metadata"].(map[string]any)
	if m == nil {
		m = map[string]any{}
		d["metadata"] = m
	}
	return m
}

func egName(d egDoc) string { s, _ := egMeta(d)["name"].(string); return s }

// egNamespace is the object's namespace, default when it has none (as
// egctl's loader and gwpol's config for these runs both assume).
func egNamespace(d egDoc) string {
	if s, _ := egMeta(d)["namespace"].(string); s != "" {
		return s
	}
	if egKind(d) == "GatewayClass" || egKind(d) == "Namespace" {
		return ""
	}
	return "default"
}

func egID(d egDoc) string { return egKind(d) + "/" + egNamespace(d) + "/" + egName(d) }

func egSpec(d egDoc) map[string]any { m, _ := d["spec"].(map[string]any); return m }

// egClone deep-copies decoded YAML data.
func egClone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = egClone(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = egClone(e)
		}
		return out
	default:
		return v
	}
}

func egCloneDocs(docs []egDoc) []egDoc {
	out := make([]egDoc, len(docs))
	for i, d := range docs {
		out[i], _ = egClone(d).(map[string]any)
	}
	return out
}

// egDecode splits a multi-document YAML input into documents.
func egDecode(b []byte) ([]egDoc, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	var docs []egDoc
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
}

// egEncode writes documents as one multi-document YAML stream.
func egEncode(docs []egDoc) ([]byte, error) {
	var buf bytes.Buffer
	for _, d := range docs {
		buf.WriteString("---\n")
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(d); err != nil {
			return nil, err
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// egNormalise makes an input one egctl x translate loads as gwpol does,
// so that a difference is a difference of judgement, not of loading
// (egctl v1.9.0, resource/load.go and Resources.Sort):
//   - kinds egctl does not load are left out;
//   - metadata keeps name and namespace only (egctl drops labels,
//     annotations and creationTimestamp, so selectors match nothing and
//     order is namespace/name);
//   - objects are in namespace/name order, the order egctl processes
//     each kind in once timestamps are gone;
//   - Gateway API kinds are at a version egctl's validator knows
//     (egUpgrades);
//   - a Service without a clusterIP gets one, as in a cluster (egctl
//     routes to ClusterIPs);
//   - egctl attaches the one EnvoyProxy it keeps to the GatewayClass and
//     reads no Gateway's own (EnvoyProxiesForGateways stays empty) and
//     translates with MergeGateways off: the EnvoyProxy becomes the
//     class's and mergeGateways is dropped.
//
// It reports why an input cannot be compared at all (two objects with one
// id, which a cluster cannot hold and egctl translates twice; several
// GatewayClasses or EnvoyProxies, of which egctl keeps the last).
func egNormalise(docs []egDoc) ([]egDoc, string) {
	var out []egDoc
	seen := map[string]bool{}
	count := map[string]int{}
	for _, d := range docs {
		if slices.Contains(egUnloaded, egKind(d)) {
			continue
		}
		id := egID(d)
		if seen[id] {
			return nil, "two objects " + id
		}
		seen[id] = true
		count[egKind(d)]++
		m := egMeta(d)
		for k := range m {
			if k != "name" && k != "namespace" {
				delete(m, k)
			}
		}
		delete(d, "status")
		if v, ok := egUpgrades[egKind(d)]; ok && strings.HasPrefix(fmt.Sprint(d["apiVersion"]), "gateway.networking.k8s.io/") {
			d["apiVersion"] = v
		}
		out = append(out, d)
	}
	if count["GatewayClass"] != 1 {
		return nil, fmt.Sprintf("%d GatewayClasses", count["GatewayClass"])
	}
	if count["EnvoyProxy"] > 1 {
		return nil, "several EnvoyProxies"
	}
	var ep egDoc
	for _, d := range out {
		if egKind(d) == "EnvoyProxy" {
			ep = d
			if s := egSpec(d); s != nil {
				delete(s, "mergeGateways")
			}
		}
	}
	for _, d := range out {
		s := egSpec(d)
		if s == nil {
			continue
		}
		switch egKind(d) {
		case "GatewayClass":
			delete(s, "parametersRef")
			if ep != nil {
				s["parametersRef"] = map[string]any{"group": "gateway.envoyproxy.io", "kind": "EnvoyProxy", "name": egName(ep), "namespace": egNamespace(ep)}
			}
		case "Service":
			// a cluster gives every Service but an ExternalName or
			// headless one a ClusterIP, and egctl routes to it
			// (EndpointRoutingDisabled): without one its address is empty
			if _, ok := s["clusterIP"]; !ok && s["type"] != "ExternalName" {
				s["clusterIP"] = "10.96.0.10"
			}
		case "Gateway":
			if inf, ok := s["infrastructure"].(map[string]any); ok {
				delete(inf, "parametersRef")
				if len(inf) == 0 {
					delete(s, "infrastructure")
				}
			}
		}
	}
	egSort(out)
	return out, ""
}

// egWithNamespaces is docs with a Namespace, without labels, for every
// namespace an object is in that has none: egctl adds them so
// (resource/load.go, requiredNamespaceMap; "default" too as soon as an
// object has no namespace, a Namespace included), and a listener's
// namespace selector matches none of them.
func egWithNamespaces(docs []egDoc) []egDoc {
	have := map[string]bool{}
	for _, d := range docs {
		if egKind(d) == "Namespace" {
			have[egName(d)] = true
		}
	}
	var need []string
	for _, d := range docs {
		ns, _ := egMeta(d)["namespace"].(string)
		if ns == "" {
			ns = "default"
		}
		if !have[ns] {
			have[ns] = true
			need = append(need, ns)
		}
	}
	slices.Sort(need)
	out := slices.Clone(docs)
	for _, ns := range need {
		out = append(out, egDoc{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}})
	}
	return out
}

// egSort puts documents in namespace/name order (stable: kinds keep their
// relative order), the order egctl translates each kind in.
func egSort(docs []egDoc) {
	slices.SortStableFunc(docs, func(a, b egDoc) int {
		return cmp.Or(cmp.Compare(egNamespace(a), egNamespace(b)), cmp.Compare(egName(a), egName(b)))
	})
}

// egMutant is one mutation of an input: Class groups mutations of one
// kind (for sampling and for clustering disagreements), Label says what
// was changed, apply changes a private copy of the documents.
type egMutant struct {
	Class, Label string
	apply        func([]egDoc) []egDoc
}

// egIndex finds a document by id in a copy.
func egIndex(docs []egDoc, id string) int {
	return slices.IndexFunc(docs, func(d egDoc) bool { return egID(d) == id })
}

// egEdit is a mutant that changes the object id with f.
func egEdit(class, label, id string, f func(d egDoc)) egMutant {
	return egMutant{Class: class, Label: label, apply: func(docs []egDoc) []egDoc {
		if i := egIndex(docs, id); i >= 0 {
			f(docs[i])
		}
		return docs
	}}
}

// egMutants lists every mutation the harness knows for an input, in a
// fixed order.
func egMutants(docs []egDoc) []egMutant {
	g := egGen{docs: docs, byKind: map[string][]egDoc{}}
	for _, d := range docs {
		g.byKind[egKind(d)] = append(g.byKind[egKind(d)], d)
		if ns := egNamespace(d); ns != "" && !slices.Contains(g.namespaces, ns) {
			g.namespaces = append(g.namespaces, ns)
		}
	}
	slices.Sort(g.namespaces)
	for _, d := range docs {
		g.drop(d)
	}
	for _, k := range egPolicyKinds {
		for _, p := range g.byKind[k] {
			g.targets(p)
			g.leaves(p)
			g.move(p)
			g.duplicate(p)
		}
	}
	for _, gw := range g.byKind["Gateway"] {
		g.listeners(gw)
	}
	for _, k := range egRouteKinds {
		for _, r := range g.byKind[k] {
			g.parentRefs(r)
			g.route(r)
			g.move(r)
		}
	}
	return g.out
}

type egGen struct {
	docs       []egDoc
	byKind     map[string][]egDoc
	namespaces []string
	out        []egMutant
}

func (g *egGen) add(m egMutant) { g.out = append(g.out, m) }

// drop: one object less (a policy, a route, a Gateway, a Secret, a
// Service, a ReferenceGrant, a Backend, …); never the GatewayClass or a
// Namespace, which egctl would add back.
func (g *egGen) drop(d egDoc) {
	switch egKind(d) {
	case "GatewayClass", "Namespace":
		return
	}
	id := egID(d)
	g.add(egMutant{Class: "drop", Label: "drop " + id, apply: func(docs []egDoc) []egDoc {
		return slices.DeleteFunc(docs, func(x egDoc) bool { return egID(x) == id })
	}})
}

// egTargetRefs are a policy's targetRefs, the singular targetRef as a
// one-element list, with the key they sit under.
func egTargetRefs(spec map[string]any) (string, []map[string]any) {
	if spec == nil {
		return "", nil
	}
	if r, ok := spec["targetRef"].(map[string]any); ok {
		return "targetRef", []map[string]any{r}
	}
	list, _ := spec["targetRefs"].([]any)
	var out []map[string]any
	for _, e := range list {
		if r, ok := e.(map[string]any); ok {
			out = append(out, r)
		}
	}
	return "targetRefs", out
}

// egRefAt is the i-th target reference of a copy of the policy.
func egRefAt(d egDoc, i int) map[string]any {
	_, refs := egTargetRefs(egSpec(d))
	if i < len(refs) {
		return refs[i]
	}
	return nil
}

// object finds a document by kind, namespace and name.
func (g *egGen) object(kind, ns, name string) egDoc {
	for _, d := range g.byKind[kind] {
		if egNamespace(d) == ns && egName(d) == name {
			return d
		}
	}
	return nil
}

// sections are the section names an object offers: a Gateway's listener
// names, a route's rule names, a Service's port names.
func egSections(d egDoc) []string {
	if d == nil {
		return nil
	}
	var out []string
	s := egSpec(d)
	var list []any
	switch egKind(d) {
	case "Gateway":
		list, _ = s["listeners"].([]any)
	case "Service":
		list, _ = s["ports"].([]any)
	default:
		list, _ = s["rules"].([]any)
	}
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			if n, _ := m["name"].(string); n != "" {
				out = append(out, n)
			}
		}
	}
	return out
}

// targets: each target reference's name (none such, another object of the
// kind), kind (another kind, naming an object of it) and sectionName
// (each section of the target, one it does not have, none).
func (g *egGen) targets(p egDoc) {
	id, ns := egID(p), egNamespace(p)
	key, refs := egTargetRefs(egSpec(p))
	for i, r := range refs {
		where := fmt.Sprintf("%s %s[%d]", id, key, i)
		kind, _ := r["kind"].(string)
		name, _ := r["name"].(string)
		set := func(class, label string, f func(r map[string]any)) {
			g.add(egEdit(class, where+" "+label, id, func(d egDoc) {
				if r := egRefAt(d, i); r != nil {
					f(r)
				}
			}))
		}
		set("target-name", "name=missing-target", func(r map[string]any) { r["name"] = "missing-target" })
		others := 0
		for _, o := range g.byKind[kind] {
			if egNamespace(o) == ns && egName(o) != name && others < 2 {
				others++
				n := egName(o)
				set("target-name", "name="+n, func(r map[string]any) { r["name"] = n })
			}
		}
		if kind != "Service" {
			for _, k := range append([]string{"Gateway"}, egRouteKinds...) {
				if k == kind {
					continue
				}
				for _, o := range g.byKind[k] {
					if egNamespace(o) == ns {
						n := egName(o)
						set("target-kind", "kind="+k+" name="+n, func(r map[string]any) {
							r["kind"], r["name"] = k, n
							r["group"] = "gateway.networking.k8s.io"
							delete(r, "sectionName")
						})
						break
					}
				}
			}
		}
		sec, _ := r["sectionName"].(string)
		for _, s := range egSections(g.object(kind, ns, name)) {
			if s != sec {
				set("target-section", "sectionName="+s, func(r map[string]any) { r["sectionName"] = s })
			}
		}
		set("target-section", "sectionName=missing-section", func(r map[string]any) { r["sectionName"] = "missing-section" })
		if sec != "" {
			set("target-section", "sectionName cleared", func(r map[string]any) { delete(r, "sectionName") })
		}
	}
}

var egDuration = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(ms|s|m|h)$`)

// leaves walks a policy's spec (its target references aside): every field
// removed, every object emptied, every list emptied, shortened or given a
// repeated element, every scalar set to its zero and to another value.
func (g *egGen) leaves(p egDoc) {
	id := egID(p)
	spec := egSpec(p)
	for _, k := range egSortedKeys(spec) {
		if k == "targetRef" || k == "targetRefs" || k == "targetSelectors" {
			continue
		}
		g.walk(id, []any{"spec", k}, spec[k])
	}
}

func egSortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func egPathString(path []any) string {
	var b strings.Builder
	for i, p := range path {
		switch x := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", x)
		default:
			if i > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, x)
		}
	}
	return b.String()
}

// egSetPath sets (or with del, removes) the value at path in d; it does
// nothing when the path is gone.
func egSetPath(d egDoc, path []any, v any, del bool) {
	var cur any = map[string]any(d)
	for i, p := range path {
		last := i == len(path)-1
		switch c := cur.(type) {
		case map[string]any:
			k, _ := p.(string)
			if last {
				if del {
					delete(c, k)
				} else {
					c[k] = v
				}
				return
			}
			cur = c[k]
		case []any:
			j, _ := p.(int)
			if j >= len(c) {
				return
			}
			if last {
				if !del {
					c[j] = v
				}
				return
			}
			cur = c[j]
		default:
			return
		}
	}
}

func (g *egGen) walk(id string, path []any, v any) {
	path = slices.Clip(path)
	at := egPathString(path)
	set := func(label string, nv any) {
		g.add(egEdit("leaf", id+" "+at+label, id, func(d egDoc) { egSetPath(d, path, egClone(nv), false) }))
	}
	if _, ok := path[len(path)-1].(string); ok {
		g.add(egEdit("leaf", id+" "+at+" removed", id, func(d egDoc) { egSetPath(d, path, nil, true) }))
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 {
			set("={}", map[string]any{})
		}
		for _, k := range egSortedKeys(x) {
			g.walk(id, append(path, k), x[k])
		}
	case []any:
		if len(x) > 0 {
			set("=[]", []any{})
		}
		if len(x) > 1 {
			set(" without its first element", x[1:])
		}
		if len(x) > 0 {
			set(" with its first element twice", append([]any{x[0]}, x...))
		}
		for i, e := range x {
			if i < 3 {
				g.walk(id, append(path, i), e)
			}
		}
	case string:
		if x != "" {
			set(`=""`, "")
		}
		switch {
		case egDuration.MatchString(x):
			set("=0s", "0s")
		case x != "other":
			set("=other", "other")
		}
	case int:
		if x != 0 {
			set("=0", 0)
		}
		set("=-1", -1)
		set(fmt.Sprintf("=%d", x*1000+1), x*1000+1)
	case float64:
		if x != 0 {
			set("=0", 0.0)
		}
		set("=-1", -1.0)
	case bool:
		set(fmt.Sprintf("=%v", !x), !x)
	}
}

// move: the object into another namespace of the input.
func (g *egGen) move(d egDoc) {
	id, ns := egID(d), egNamespace(d)
	n := 0
	for _, other := range g.namespaces {
		if other == ns || n == 2 {
			continue
		}
		n++
		g.add(egEdit("namespace", id+" moved to "+other, id, func(d egDoc) { egMeta(d)["namespace"] = other }))
	}
}

// duplicate: a copy of the policy named to be processed before it, and one
// after it (egctl's order is namespace/name).
func (g *egGen) duplicate(p egDoc) {
	id, name := egID(p), egName(p)
	for _, n := range []string{"0-" + name, "zz-" + name} {
		if len(n) > 253 {
			continue
		}
		g.add(egMutant{Class: "duplicate", Label: "copy of " + id + " named " + n, apply: func(docs []egDoc) []egDoc {
			i := egIndex(docs, id)
			if i < 0 {
				return docs
			}
			c, _ := egClone(docs[i]).(map[string]any)
			egMeta(c)["name"] = n
			docs = append(docs, c)
			egSort(docs)
			return docs
		}})
	}
}

// egListenerAt is the i-th listener of a copy of the Gateway.
func egListenerAt(d egDoc, i int) map[string]any {
	list, _ := egSpec(d)["listeners"].([]any)
	if i < len(list) {
		m, _ := list[i].(map[string]any)
		return m
	}
	return nil
}

// listeners: each listener's port (another listener's), protocol (each
// other one), hostname (none, a wildcard, another listener's, another
// name), allowedRoutes (namespaces, kinds), tls (none, passthrough, a
// certificate that is not there), name, and the listener removed.
func (g *egGen) listeners(gw egDoc) {
	id := egID(gw)
	list, _ := egSpec(gw)["listeners"].([]any)
	for i, e := range list {
		l, _ := e.(map[string]any)
		if l == nil {
			continue
		}
		name, _ := l["name"].(string)
		where := id + " listener " + name
		set := func(label string, f func(l map[string]any)) {
			g.add(egEdit("listener", where+" "+label, id, func(d egDoc) {
				if l := egListenerAt(d, i); l != nil {
					f(l)
				}
			}))
		}
		port := l["port"]
		for j, o := range list {
			ol, _ := o.(map[string]any)
			if j == i || ol == nil {
				continue
			}
			if p := ol["port"]; p != nil && fmt.Sprint(p) != fmt.Sprint(port) {
				set(fmt.Sprintf("port=%v", p), func(l map[string]any) { l["port"] = p })
			}
			if h, ok := ol["hostname"].(string); ok && h != l["hostname"] {
				set("hostname="+h, func(l map[string]any) { l["hostname"] = h })
			}
		}
		set("port=10080", func(l map[string]any) { l["port"] = 10080 })
		proto, _ := l["protocol"].(string)
		for _, p := range []string{"HTTP", "HTTPS", "TLS", "TCP", "UDP"} {
			if p != proto {
				set("protocol="+p, func(l map[string]any) { l["protocol"] = p })
			}
		}
		if _, ok := l["hostname"]; ok {
			set("hostname removed", func(l map[string]any) { delete(l, "hostname") })
		}
		set("hostname=*.example.com", func(l map[string]any) { l["hostname"] = "*.example.com" })
		set("hostname=other.example.org", func(l map[string]any) { l["hostname"] = "other.example.org" })
		for _, from := range []string{"Same", "All"} {
			set("allowedRoutes.namespaces.from="+from, func(l map[string]any) {
				l["allowedRoutes"] = map[string]any{"namespaces": map[string]any{"from": from}}
			})
		}
		for _, k := range []string{"HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute"} {
			set("allowedRoutes.kinds="+k, func(l map[string]any) {
				ar, _ := l["allowedRoutes"].(map[string]any)
				if ar == nil {
					ar = map[string]any{}
					l["allowedRoutes"] = ar
				}
				ar["kinds"] = []any{map[string]any{"kind": k}}
			})
		}
		if _, ok := l["tls"]; ok {
			set("tls removed", func(l map[string]any) { delete(l, "tls") })
			set("tls.certificateRefs[0].name=missing-cert", func(l map[string]any) {
				tls, _ := l["tls"].(map[string]any)
				refs, _ := tls["certificateRefs"].([]any)
				if len(refs) > 0 {
					if r, ok := refs[0].(map[string]any); ok {
						r["name"] = "missing-cert"
					}
				}
			})
		}
		set("tls=Passthrough", func(l map[string]any) { l["tls"] = map[string]any{"mode": "Passthrough"} })
		set("name=renamed", func(l map[string]any) { l["name"] = "renamed" })
		if len(list) > 1 {
			g.add(egEdit("listener", where+" removed", id, func(d egDoc) {
				s := egSpec(d)
				ls, _ := s["listeners"].([]any)
				if i < len(ls) {
					s["listeners"] = slices.Delete(slices.Clone(ls), i, i+1)
				}
			}))
		}
	}
}

// egAt is the i-th map of the list at key in m.
func egAt(m map[string]any, key string, i int) map[string]any {
	list, _ := m[key].([]any)
	if i < len(list) {
		r, _ := list[i].(map[string]any)
		return r
	}
	return nil
}

// parentRefs: each parentRef's sectionName (each listener of the parent,
// one it does not have, none), port (each listener's, one none has, none),
// name and namespace.
func (g *egGen) parentRefs(r egDoc) {
	id, ns := egID(r), egNamespace(r)
	egEachParentRef(r, func(i int, pr map[string]any) {
		where := fmt.Sprintf("%s parentRefs[%d]", id, i)
		set := func(label string, f func(pr map[string]any)) {
			g.add(egEdit("parentref", where+" "+label, id, func(d egDoc) {
				if pr := egAt(egSpec(d), "parentRefs", i); pr != nil {
					f(pr)
				}
			}))
		}
		pns, _ := pr["namespace"].(string)
		if pns == "" {
			pns = ns
		}
		name, _ := pr["name"].(string)
		gw := g.object("Gateway", pns, name)
		sec, _ := pr["sectionName"].(string)
		for _, s := range egSections(gw) {
			if s != sec {
				set("sectionName="+s, func(pr map[string]any) { pr["sectionName"] = s })
			}
		}
		set("sectionName=missing-section", func(pr map[string]any) { pr["sectionName"] = "missing-section" })
		if sec != "" {
			set("sectionName removed", func(pr map[string]any) { delete(pr, "sectionName") })
		}
		ports := map[string]bool{}
		if gw != nil {
			ls, _ := egSpec(gw)["listeners"].([]any)
			for _, l := range ls {
				if lm, ok := l.(map[string]any); ok && lm["port"] != nil && !ports[fmt.Sprint(lm["port"])] {
					ports[fmt.Sprint(lm["port"])] = true
					p := lm["port"]
					set(fmt.Sprintf("port=%v", p), func(pr map[string]any) { pr["port"] = p })
				}
			}
		}
		set("port=1", func(pr map[string]any) { pr["port"] = 1 })
		if _, ok := pr["port"]; ok {
			set("port removed", func(pr map[string]any) { delete(pr, "port") })
		}
		set("name=missing-gateway", func(pr map[string]any) { pr["name"] = "missing-gateway" })
		for _, other := range g.namespaces {
			if other != pns {
				set("namespace="+other, func(pr map[string]any) { pr["namespace"] = other })
				break
			}
		}
	})
}

// egEachParentRef calls f with each parentRef of route r (an object) and
// its index.
func egEachParentRef(r egDoc, f func(i int, pr map[string]any)) {
	list, _ := egSpec(r)["parentRefs"].([]any)
	for i, e := range list {
		if pr, _ := e.(map[string]any); pr != nil {
			f(i, pr)
		}
	}
}

// route: the route's hostnames, its first rule removed, its first
// backendRef's name, port, namespace and weight, its filters and matches.
func (g *egGen) route(r egDoc) {
	id := egID(r)
	set := func(label string, f func(s map[string]any)) {
		g.add(egEdit("route", id+" "+label, id, func(d egDoc) {
			if s := egSpec(d); s != nil {
				f(s)
			}
		}))
	}
	s := egSpec(r)
	if _, ok := s["hostnames"]; ok {
		set("hostnames removed", func(s map[string]any) { delete(s, "hostnames") })
	}
	set("hostnames=[other.example.org]", func(s map[string]any) { s["hostnames"] = []any{"other.example.org"} })
	set("hostnames=[*.example.com]", func(s map[string]any) { s["hostnames"] = []any{"*.example.com"} })
	rules, _ := s["rules"].([]any)
	if len(rules) > 1 {
		set("rules[0] removed", func(s map[string]any) {
			rs, _ := s["rules"].([]any)
			s["rules"] = slices.Clone(rs[1:])
		})
	}
	rule := func(label string, f func(rule map[string]any)) {
		set("rules[0]."+label, func(s map[string]any) {
			if rl := egAt(s, "rules", 0); rl != nil {
				f(rl)
			}
		})
	}
	br := func(label string, f func(b map[string]any)) {
		rule("backendRefs[0]."+label, func(rl map[string]any) {
			if b := egAt(rl, "backendRefs", 0); b != nil {
				f(b)
			}
		})
	}
	if len(rules) == 0 {
		return
	}
	r0, _ := rules[0].(map[string]any)
	if r0 == nil {
		return
	}
	if egAt(r0, "backendRefs", 0) != nil {
		br("name=missing-backend", func(b map[string]any) { b["name"] = "missing-backend" })
		br("port=9999", func(b map[string]any) { b["port"] = 9999 })
		br("port removed", func(b map[string]any) { delete(b, "port") })
		br("weight=0", func(b map[string]any) { b["weight"] = 0 })
		br("kind=Backend", func(b map[string]any) { b["kind"], b["group"] = "Backend", "gateway.envoyproxy.io" })
		for _, other := range g.namespaces {
			if other != egNamespace(r) {
				br("namespace="+other, func(b map[string]any) { b["namespace"] = other })
				break
			}
		}
		rule("backendRefs removed", func(rl map[string]any) { delete(rl, "backendRefs") })
	}
	for _, k := range []string{"filters", "matches"} {
		if _, ok := r0[k]; ok {
			rule(k+" removed", func(rl map[string]any) { delete(rl, k) })
		}
	}
	if _, ok := r0["name"]; !ok {
		rule("name=rule-a", func(rl map[string]any) { rl["name"] = "rule-a" })
	}
}

// egPick chooses up to n mutants, deterministic for (seed, case): the
// classes take turns (in an order drawn from the seed), each class's
// mutants in an order drawn from the seed.
func egPick(all []egMutant, n int, seed uint64, caseName string) []egMutant {
	h := fnv.New64a()
	h.Write([]byte(caseName))
	rng := rand.New(rand.NewPCG(seed, h.Sum64()))
	byClass := map[string][]egMutant{}
	var classes []string
	for _, m := range all {
		if _, ok := byClass[m.Class]; !ok {
			classes = append(classes, m.Class)
		}
		byClass[m.Class] = append(byClass[m.Class], m)
	}
	slices.Sort(classes)
	rng.Shuffle(len(classes), func(i, j int) { classes[i], classes[j] = classes[j], classes[i] })
	for _, c := range classes {
		ms := byClass[c]
		rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	}
	var out []egMutant
	for round := 0; len(out) < n; round++ {
		added := false
		for _, c := range classes {
			if round < len(byClass[c]) && len(out) < n {
				out = append(out, byClass[c][round])
				added = true
			}
		}
		if !added {
			break
		}
	}
	return out
}
