package model

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/schema"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Group names used throughout gwpol.
const (
	GatewayGroup = "gateway.networking.k8s.io"
	// ExperimentalGatewayGroup is the Gateway API's experimental channel
	// group, of the kinds it held before their promotion (XListenerSet).
	ExperimentalGatewayGroup = "gateway.networking.x-k8s.io"
	CoreGroup                = ""
	// CertificatesGroup is Kubernetes' certificates API group, of the
	// cluster-scoped ClusterTrustBundle.
	CertificatesGroup = "certificates.k8s.io"
)

// GroupKind identifies a kind independent of version.
type GroupKind struct{ Group, Kind string }

// RefGroupKind is the group and kind a reference names: each as it is
// written, else the default its API gives one left unset (a Gateway API
// reference's group defaults to the kind's own; "" is the core group, so
// an explicit "" is kept). Controllers resolve a reference by the pair
// (a Secret is the core group's, a Service too): checking the kind alone
// takes a ref to another group's kind of that name for the core one.
func RefGroupKind[G, K ~string](group *G, kind *K, def GroupKind) GroupKind {
	gk := def
	if group != nil {
		gk.Group = string(*group)
	}
	if kind != nil && *kind != "" {
		gk.Kind = string(*kind)
	}
	return gk
}

func (gk GroupKind) String() string {
	if gk.Group == "" {
		return gk.Kind
	}
	return gk.Group + "/" + gk.Kind
}

// Key identifies one object.
type Key struct {
	Group, Kind, Namespace, Name string
}

// GK is the key's GroupKind.
func (k Key) GK() GroupKind { return GroupKind{k.Group, k.Kind} }

// Compare orders keys by kind, namespace, name.
func (k Key) Compare(o Key) int {
	if c := strings.Compare(k.Kind, o.Kind); c != 0 {
		return c
	}
	if c := strings.Compare(k.Group, o.Group); c != 0 {
		return c
	}
	if c := strings.Compare(k.Namespace, o.Namespace); c != 0 {
		return c
	}
	return strings.Compare(k.Name, o.Name)
}

// Ref is the key as a diag reference.
func (k Key) Ref() diag.ObjectRef {
	return diag.ObjectRef{Group: k.Group, Kind: k.Kind, Namespace: k.Namespace, Name: k.Name}
}

// KeyOf is the key of a manifest object after namespace defaulting.
func KeyOf(o *manifest.Object) Key {
	return Key{Group: o.Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// Options for Build.
type Options struct {
	// DefaultNamespace is given to namespaced objects that have none.
	DefaultNamespace string
	// Extra are kinds registered by policy packages: kept, indexed and
	// checked for duplicates, but decoded by their packages.
	Extra map[GroupKind]bool
	// LenientFields reports unknown fields as warnings (config
	// strictFields: false); by default they are errors.
	LenientFields bool
	// AssumeExist are core kinds (AssumableKinds) kept outside the input:
	// a lookup of an absent object of one of them finds a stand-in
	// (config assumeExist, --assume-exist).
	AssumeExist []string
	// ListLimits are the maxItems of the lists of kinds registered by
	// policy packages (Extra), as their families declare them for CRDs
	// gwpol does not ship: a list over its limit is refused while no CRD
	// for the kind is known (limits.go).
	ListLimits map[GroupKind]*manifest.ListBounds
	// Enums are the enums and union discriminators of those kinds' CRDs,
	// as their families declare them: a value outside is refused while
	// no CRD for the kind is known (limits.go).
	Enums map[GroupKind][]FieldEnum
	// Wildcards are, by kind, the reference name that selects every
	// object of the kind in a namespace instead of naming one, as a
	// family's controller reads it (policy.Family.Wildcards): a reference
	// with that name is held to no name rule.
	Wildcards map[GroupKind]string
	// Schema is the schema stage's verdict on an object (nil: none made).
	// An object whose version its CRD does not serve is left out (the
	// stage reported it; Refused says why); one whose version it serves
	// is read whatever gwpol's own version table says, without a version
	// finding here. A Gateway API object whose CRD refuses a value the
	// model carries into every view (carried.go) is left out too; one
	// whose CRD refuses another of its values is read as written
	// (docs/crds.md says why). The CRDs are the one source of those rules:
	// without a verdict, the model takes values as they decode.
	Schema func(*manifest.Object) schema.Verdict
}

// Model is the typed, indexed input.
type Model struct {
	GatewayClasses  []*GatewayClass
	Gateways        []*Gateway
	ListenerSets    []*ListenerSet
	Routes          []*Route // HTTPRoutes, GRPCRoutes, TCPRoutes, TLSRoutes and UDPRoutes
	ReferenceGrants []*ReferenceGrant
	Services        []*Service
	Namespaces      []*Namespace
	Secrets         []*Opaque
	ConfigMaps      []*Opaque

	// Diagnostics found while decoding: duplicates, unknown fields,
	// deprecated versions, values that do not fit.
	Diagnostics []diag.Diagnostic

	// objects holds, per key, the object the input gives and its typed
	// form (nil for kinds a policy package reads): one map rather than
	// two keyed alike, as a 64-byte key per object and map held twice is
	// megabytes at tens of thousands of objects. The entries are made in
	// one piece, one per input object; the typed form is set on the entry
	// where it is decoded, in parallel, not stored into the map again.
	objects map[Key]*entry
	byGK    map[GroupKind][]*manifest.Object

	grantOnce  sync.Once
	grantsByNS map[string][]*ReferenceGrant
	slices     sliceIndex

	assume *assumed

	// refused are the objects of the input the API server refuses (a
	// name, a list length, a value or a version it does not accept), with
	// the findings that say why: they are left out of every index, as a
	// cluster never holds them, and views say why one is not there.
	refused map[Key][]diag.Diagnostic
}

// Refused reports whether the input holds an object with key k that the
// API server refuses, and none of that key it accepts, with the findings
// that say why (Build leaves it out: no stage sees it).
func (m *Model) Refused(k Key) ([]diag.Diagnostic, bool) {
	ds, ok := m.refused[k]
	return ds, ok
}

// AnyRefused reports whether the input held an object the API server
// refuses for a value every view would carry (Build left it out).
func (m *Model) AnyRefused() bool { return len(m.refused) > 0 }

// RefusedNamed is Refused for the object a view's target names by kind,
// namespace and name (of any group), for a not-found answer to say why.
func (m *Model) RefusedNamed(kind, namespace, name string) (Key, []diag.Diagnostic, bool) {
	var keys []Key
	for k := range m.refused {
		if strings.EqualFold(k.Kind, kind) && k.Namespace == namespace && k.Name == name {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return Key{}, nil, false
	}
	k := slices.MinFunc(keys, Key.Compare) // one answer, whatever the map order
	return k, m.refused[k], true
}

// refuse records o as refused by the API server for why. An object
// applied after a refused one of the same key takes its place: a cluster
// holds the one it accepted.
func (m *Model) refuse(o *manifest.Object, known bool, kd kindDef, defaultNamespace string, why []diag.Diagnostic) {
	k := KeyOf(o)
	if k.Namespace == "" && (!known || kd.namespaced) {
		k.Namespace = defaultNamespace
	}
	if m.refused == nil {
		m.refused = map[Key][]diag.Diagnostic{}
	}
	m.refused[k] = why
}

// entry is what the model holds of one key.
type entry struct {
	obj   *manifest.Object
	typed any // nil: not typed (a kind of a policy package, or not decoded)
}

// Object returns the manifest object with this key.
func (m *Model) Object(k Key) (*manifest.Object, bool) {
	e, ok := m.objects[k]
	if !ok {
		return nil, false
	}
	return e.obj, true
}

// Typed returns the typed object for a key (*Gateway, *Route, *Service…).
func (m *Model) Typed(k Key) (any, bool) {
	t := m.typed(k)
	return t, t != nil
}

// typed is the typed form of the object with key k, nil when there is
// none.
func (m *Model) typed(k Key) any {
	if e := m.objects[k]; e != nil {
		return e.typed
	}
	return nil
}

// OfKind lists the objects of one kind, sorted by namespace and name.
func (m *Model) OfKind(gk GroupKind) []*manifest.Object { return m.byGK[gk] }

// Gateway returns a Gateway by namespace/name.
func (m *Model) Gateway(ns, name string) *Gateway {
	g, _ := m.typed(GatewayAPIKey("Gateway", ns, name)).(*Gateway)
	return g
}

// Route returns a route (HTTPRoute, GRPCRoute, TCPRoute, TLSRoute or UDPRoute).
func (m *Model) Route(kind, ns, name string) *Route {
	r, _ := m.typed(GatewayAPIKey(kind, ns, name)).(*Route)
	return r
}

// Service returns a Service (a stand-in when the input lacks it and
// Services are assumed to exist).
func (m *Model) Service(ns, name string) *Service {
	s, ok := m.typed(Key{Group: CoreGroup, Kind: "Service", Namespace: ns, Name: name}).(*Service)
	if !ok {
		s, _ = m.assumedObject("Service", ns, name).(*Service)
	}
	return s
}

// Secret returns a Secret's metadata view (a stand-in when the input
// lacks it and Secrets are assumed to exist).
func (m *Model) Secret(ns, name string) *Opaque {
	return m.opaque("Secret", ns, name)
}

func (m *Model) opaque(kind, ns, name string) *Opaque {
	s, ok := m.typed(Key{Group: CoreGroup, Kind: kind, Namespace: ns, Name: name}).(*Opaque)
	if !ok {
		s, _ = m.assumedObject(kind, ns, name).(*Opaque)
	}
	return s
}

// ClusterTrustBundle returns the cluster-scoped ClusterTrustBundle name
// (a stand-in when the input lacks it and ClusterTrustBundles are assumed
// to exist), nil when there is none.
func (m *Model) ClusterTrustBundle(name string) *ClusterTrustBundle {
	b, ok := m.typed(Key{Group: CertificatesGroup, Kind: "ClusterTrustBundle", Name: name}).(*ClusterTrustBundle)
	if !ok {
		b, _ = m.assumedObject("ClusterTrustBundle", "", name).(*ClusterTrustBundle)
	}
	return b
}

// ConfigMap returns a ConfigMap's metadata view (a stand-in when the
// input lacks it and ConfigMaps are assumed to exist).
func (m *Model) ConfigMap(ns, name string) *Opaque {
	return m.opaque("ConfigMap", ns, name)
}

// NamespaceNameLabel is the label the API server puts on every Namespace,
// with the namespace's name as value; selectors commonly use it.
const NamespaceNameLabel = "kubernetes.io/metadata.name"

// NamespaceLabels returns the labels of a namespace as a cluster would have
// them: those of its Namespace object (if in the input) plus
// kubernetes.io/metadata.name, which the API server always sets.
func (m *Model) NamespaceLabels(ns string) labels.Set {
	out := labels.Set{NamespaceNameLabel: ns}
	if n, ok := m.typed(Key{Group: CoreGroup, Kind: "Namespace", Name: ns}).(*Namespace); ok {
		for k, v := range n.Labels {
			if k != NamespaceNameLabel {
				out[k] = v
			}
		}
	}
	return out
}

// HasNamespace reports whether the input holds the Namespace object ns,
// whose labels are then known beyond the automatic name label.
func (m *Model) HasNamespace(ns string) bool {
	_, ok := m.typed(Key{Group: CoreGroup, Kind: "Namespace", Name: ns}).(*Namespace)
	return ok
}

// Select returns objects of a kind in a namespace ("" = all namespaces)
// whose labels match, sorted by namespace and name.
func (m *Model) Select(gk GroupKind, ns string, sel labels.Selector) []*manifest.Object {
	var out []*manifest.Object
	for _, o := range m.byGK[gk] {
		if (ns == "" || o.Namespace == ns) && sel.Matches(labels.Set(o.Labels)) {
			out = append(out, o)
		}
	}
	return out
}

// Build decodes and indexes a manifest set. It never fails on one bad
// object: decoding problems become diagnostics and the object is left out
// of the typed views (but still counted, so nothing vanishes silently).
func Build(set *manifest.Set, opt Options) *Model {
	if opt.DefaultNamespace == "" {
		opt.DefaultNamespace = "default"
	}
	// Sized for the input: grown one doubling at a time, the map keyed
	// by Key would rehash every key several times over.
	m := &Model{objects: make(map[Key]*entry, len(set.Objects)), byGK: map[GroupKind][]*manifest.Object{}, assume: newAssumed(opt.AssumeExist)}
	// What is decided of each object alone — its names and list lengths
	// as written (before namespace defaulting: an object with a name the
	// API server refuses, or a list longer than its CRD allows, takes no
	// part; names.go, limits.go), the schema stage's verdict, its
	// namespace and key — is worked out in parallel; what it is among
	// the others (a duplicate, replaced by a later one) in input order
	// below.
	alone := make([]objectVerdict, len(set.Objects))
	reads := func(gk GroupKind) bool { _, known := kinds[gk]; return known || opt.Extra[gk] }
	parallel.Each(len(set.Objects), func(i int) {
		alone[i] = judgeAlone(set.Objects[i], reads, opt)
	})
	// The entries the map points to, one per object, in one allocation.
	entries := make([]entry, len(set.Objects))
	for i, o := range set.Objects {
		m.Diagnostics = append(m.Diagnostics, o.Findings()...)
		v := &alone[i]
		switch {
		case !v.read:
			continue // kinds gwpol does not read are skipped, as documented
		case len(v.refused) > 0:
			m.Diagnostics = append(m.Diagnostics, v.refused...)
			m.refuse(o, v.known, v.kd, opt.DefaultNamespace, v.refused)
			continue
		case v.schemaRefused:
			// The API server refuses its version, or a value every view
			// would carry (the schema stage reported it, or would have had
			// an earlier error not stopped the CEL rules that judge it:
			// schema.Verdict.Unrun): no later stage sees it.
			m.refuse(o, v.known, v.kd, opt.DefaultNamespace, v.schemaRefusals)
			continue
		}
		k := v.key
		if e, dup := m.objects[k]; dup {
			prev := e.obj
			if sameContent(prev, o) {
				continue // one object written twice (two example files): applied twice, it is still one
			}
			// Different content: the one applied last wins, as `kubectl
			// apply -f a -f b` would leave it (-f order, then document order).
			*e = entry{} // the entries live as long as the model: none holds a replaced object
			entries[i].obj = o
			m.objects[k] = &entries[i]
			m.Diagnostics = append(m.Diagnostics, diag.Diagnostic{
				Code: LintDuplicateObject.Code, Severity: LintDuplicateObject.Severity, Object: k.Ref(), Field: "metadata.name", Pos: prev.FieldPos("metadata.name"),
				Message: k.Ref().String() + " is defined twice with different content, here and at " + o.FieldPos("metadata.name").String() + "; applied in this order the later one replaces this one, and gwpol uses it — remove one or make them equal",
			})
			continue
		}
		entries[i].obj = o
		m.objects[k] = &entries[i]
	}
	for k := range m.refused {
		if _, held := m.objects[k]; held {
			delete(m.refused, k) // another object of the key was accepted
		}
	}
	keep := m.sortedObjects(entries, alone)
	m.decodeAll(keep, opt.DefaultNamespace, opt.LenientFields, opt.Schema)
	return m
}

// objectVerdict is what Build decides of one object alone (judgeAlone).
type objectVerdict struct {
	read  bool // a kind gwpol reads (its own or a policy package's)
	known bool // one of the model's own kinds, kd its definition
	kd    kindDef
	// refused are the findings about its names, list lengths and enums
	// as written that leave it out (refusals).
	refused []diag.Diagnostic
	// schemaRefused: the schema stage's verdict leaves it out, for
	// schemaRefusals.
	schemaRefused  bool
	schemaRefusals []diag.Diagnostic
	// key is its key, its namespace defaulted, when it takes part.
	key Key
}

// judgeAlone decides what Build decides of an object without the others;
// it defaults the object's namespace when it takes part.
func judgeAlone(o *manifest.Object, reads func(GroupKind) bool, opt Options) (v objectVerdict) {
	gk := GroupKind{o.Group, o.Kind}
	v.kd, v.known = kinds[gk]
	v.read = v.known || opt.Extra[gk]
	var refused []diag.Diagnostic
	predecoded := false
	if d, ok := o.Decoded.(*decoded); ok {
		if d.defaultNamespace == opt.DefaultNamespace && d.lenient == opt.LenientFields {
			refused, predecoded = d.refused, true // found by Predecode, while the tree was at hand
		} else {
			// Predecoded under other settings: read as written again.
			o.Namespace, o.Decoded = d.writtenNamespace, nil
		}
	}
	if !v.read {
		return v
	}
	if !predecoded {
		refused = refusals(o, gk, !v.known || v.kd.namespaced, reads, opt)
	}
	if len(refused) > 0 && opt.Schema != nil && opt.Schema(o).Checked {
		// The kind's CRD is known: the schema stage judged the list
		// lengths by its maxItems, the one source of that rule.
		if kept := slices.DeleteFunc(slices.Clone(refused), isLimitFinding); len(kept) < len(refused) {
			refused = kept
			if d, ok := o.Decoded.(*decoded); ok && len(kept) == 0 {
				// Predecode left it undecoded: decode it now
				o.Namespace, o.Decoded = d.writtenNamespace, nil
			}
		}
	}
	if len(refused) > 0 {
		v.refused = refused
		return v
	}
	if opt.Schema != nil {
		if sv := opt.Schema(o); sv.Checked && (!sv.Served || v.known && (carriesRefused(gk, sv.Refusals) || carriesRefused(gk, sv.Unrun))) {
			v.schemaRefused, v.schemaRefusals = true, sv.Refusals
			return v
		}
	}
	if o.Namespace == "" && (!v.known || v.kd.namespaced) {
		o.Namespace = opt.DefaultNamespace
	}
	v.key = KeyOf(o)
	return v
}

// sortedObjects are the winners in key order (Key.Compare): duplicates
// resolve by position, never by input order; it also files them by kind
// (byGK), in the same order, one kind's list at a time. They are sorted
// per kind, the kinds in parallel, and the kinds put in order: the same
// order as one sort by key, without comparing kinds and groups tens of
// thousands of times on one core. The winners are the entries holding an
// object (Build sets none for a duplicate and clears a replaced one),
// read in input order off entries, each with the key alone gave it —
// not by walking the map, whose order is random and whose walk is slow.
func (m *Model) sortedObjects(entries []entry, alone []objectVerdict) []*entry {
	type keyed struct {
		k Key
		e *entry
	}
	// Counted first, so each kind's list is allocated once at its size:
	// grown by appends, the lists of a 30k-route input cost twice their
	// size again in copies (42 MB), all of it garbage the collector then
	// chases.
	count := map[GroupKind]int{}
	for i := range entries {
		if entries[i].obj != nil {
			count[alone[i].key.GK()]++
		}
	}
	byKind := make(map[GroupKind][]keyed, len(count))
	for gk, n := range count {
		byKind[gk] = make([]keyed, 0, n)
	}
	for i := range entries {
		if entries[i].obj != nil {
			k := alone[i].key
			gk := k.GK()
			byKind[gk] = append(byKind[gk], keyed{k, &entries[i]})
		}
	}
	kinds := make([]GroupKind, 0, len(byKind))
	for gk := range byKind {
		kinds = append(kinds, gk)
	}
	slices.SortFunc(kinds, func(a, b GroupKind) int {
		return Key{Group: a.Group, Kind: a.Kind}.Compare(Key{Group: b.Group, Kind: b.Kind})
	})
	parallel.Each(len(kinds), func(i int) {
		slices.SortFunc(byKind[kinds[i]], func(a, b keyed) int {
			if c := strings.Compare(a.k.Namespace, b.k.Namespace); c != 0 {
				return c
			}
			return strings.Compare(a.k.Name, b.k.Name)
		})
	})
	keep := make([]*entry, 0, len(m.objects))
	for _, gk := range kinds {
		objs := make([]*manifest.Object, len(byKind[gk]))
		for i, ko := range byKind[gk] {
			objs[i] = ko.e.obj
			keep = append(keep, ko.e)
		}
		m.byGK[gk] = objs
	}
	return keep
}

type decoded struct {
	typed any
	diags []diag.Diagnostic
	// refused are the findings about the object's names and list lengths
	// as written (refusals): when there are any, the object takes no part
	// and typed is nil.
	refused []diag.Diagnostic
	// the options it was decoded with: Build takes it only under the same
	defaultNamespace string
	lenient          bool
	// writtenNamespace is the object's namespace before defaulting.
	writtenNamespace string
	// defaults are the CRD defaults decoded into typed (the schema
	// stage's, manifest.Object.Defaults): Build takes typed only if the
	// schema stage, checking the object again against another CRD, gave
	// it no others.
	defaults *manifest.Defaults
}

// refusals are the findings that leave an object out before it is
// decoded: a name the API server refuses (GWP113), a list longer than
// its CRD allows, a value outside its CRD's enum or a list entry's field
// its CRD refuses (entryFindings). They read the object's names as written (before
// namespace defaulting).
func refusals(o *manifest.Object, gk GroupKind, namespaced bool, reads func(GroupKind) bool, opt Options) []diag.Diagnostic {
	return slices.Concat(nameFindings(o, gk, namespaced, reads, opt.Wildcards), limitFindings(o, gk, opt.ListLimits), enumFindings(o, gk, opt.Enums), entryFindings(o, gk))
}

// Predecode decodes an object of a kind the model reads as Build will,
// keeps the result on the object for Build to take, and releases the
// object's tree when nothing after the model reads its fields (Gateway
// API kinds, Services, Namespaces: later stages read them typed, and
// only look up positions for findings). A loader calls it on each object
// as soon as it is read (manifest.Options.Each), so that the whole
// input's YAML trees, most of the memory a large input costs, are never
// held at once. Safe for concurrent use on different objects.
//
// It also finds what Build would refuse the object for (names and list
// lengths as written, refusals), which reads the tree: opt.Extra and
// opt.Wildcards must be those Build is given, as the name rules of
// references depend on them.
func Predecode(o *manifest.Object, opt Options) {
	gk := GroupKind{o.Group, o.Kind}
	kd, known := kinds[gk]
	if !known {
		return
	}
	if opt.DefaultNamespace == "" {
		opt.DefaultNamespace = "default"
	}
	d := &decoded{defaultNamespace: opt.DefaultNamespace, lenient: opt.LenientFields, writtenNamespace: o.Namespace, defaults: o.Defaults()}
	reads := func(gk GroupKind) bool { _, known := kinds[gk]; return known || opt.Extra[gk] }
	if d.refused = refusals(o, gk, kd.namespaced, reads, opt); len(d.refused) == 0 {
		if o.Namespace == "" && kd.namespaced {
			o.Namespace = opt.DefaultNamespace
		}
		d.typed, d.diags = decodeKind(o, kd, opt.LenientFields, false)
	}
	o.Decoded = d
	if kd.release {
		o.Release()
	}
}

// decodeAll decodes the known kinds in parallel, each typed form kept on
// its entry; findings and the typed lists are gathered in key order so
// output does not depend on scheduling.
func (m *Model) decodeAll(es []*entry, defaultNamespace string, lenient bool, verdict func(*manifest.Object) schema.Verdict) {
	res := make([]decoded, len(es))
	parallel.Each(len(es), func(i int) {
		o := es[i].obj
		kd, known := kinds[GroupKind{o.Group, o.Kind}]
		// checked: the schema stage decided the version against its CRD,
		// so a version finding made without it (Predecode) is not taken.
		checked := known && verdict != nil && verdict(o).Checked
		if d, ok := o.Decoded.(*decoded); ok && d.defaultNamespace == defaultNamespace && d.lenient == lenient && d.defaults == o.Defaults() && (!checked || kd.versions[o.Version]) {
			res[i] = *d
			o.Decoded = nil // the model holds it now
		} else if known {
			res[i].typed, res[i].diags = decodeKind(o, kd, lenient, checked)
		}
		es[i].typed = res[i].typed
	})
	for i := range es {
		m.Diagnostics = append(m.Diagnostics, res[i].diags...)
		if res[i].typed != nil {
			m.add(res[i].typed)
		}
	}
}

func (m *Model) add(t any) {
	switch v := t.(type) {
	case *GatewayClass:
		m.GatewayClasses = append(m.GatewayClasses, v)
	case *Gateway:
		m.Gateways = append(m.Gateways, v)
	case *ListenerSet:
		m.ListenerSets = append(m.ListenerSets, v)
	case *Route:
		m.Routes = append(m.Routes, v)
	case *ReferenceGrant:
		m.ReferenceGrants = append(m.ReferenceGrants, v)
	case *Service:
		m.Services = append(m.Services, v)
	case *Namespace:
		m.Namespaces = append(m.Namespaces, v)
	case *Opaque:
		if v.Kind == "Secret" {
			m.Secrets = append(m.Secrets, v)
		} else {
			m.ConfigMaps = append(m.ConfigMaps, v)
		}
	}
}

// kindDef says how to read one known kind.
type kindDef struct {
	namespaced bool
	versions   map[string]bool // served versions; false = deprecated
	newObj     func() any      // the type decoded into
	wrap       func(o *manifest.Object, v any) any
	// strict: report unknown fields (not for core kinds, where gwpol reads
	// only metadata and does not carry the full schema).
	strict bool
	// release: nothing after the model reads the object's fields
	// (Predecode releases its tree); Secrets and ConfigMaps are read by
	// policy kinds.
	release bool
}

var (
	current    = map[string]bool{"v1": true}
	oldAndNew  = map[string]bool{"v1": true, "v1beta1": false}
	grpcSeries = map[string]bool{"v1": true, "v1alpha2": false}
	// streamSeries: TCPRoute and UDPRoute, served as v1alpha2 before v1.
	streamSeries = map[string]bool{"v1": true, "v1alpha2": false}
	// tlsSeries: TLSRoute, served as v1alpha2 and (experimental channel,
	// Gateway API v1.3–v1.4) v1alpha3 before v1; v1alpha3's fields are v1's.
	tlsSeries = map[string]bool{"v1": true, "v1alpha2": false, "v1alpha3": false}
)

var kinds = map[GroupKind]kindDef{
	{GatewayGroup, "GatewayClass"}: {false, oldAndNew, func() any { return &gwv1.GatewayClass{} },
		func(o *manifest.Object, v any) any {
			return &GatewayClass{GatewayClass: v.(*gwv1.GatewayClass), Src: o}
		}, true, true},
	{GatewayGroup, "Gateway"}: {true, oldAndNew, func() any { return &gwv1.Gateway{} },
		func(o *manifest.Object, v any) any { return &Gateway{Gateway: v.(*gwv1.Gateway), Src: o} }, true, true},
	{GatewayGroup, "ListenerSet"}: {true, current, func() any { return &gwv1.ListenerSet{} },
		func(o *manifest.Object, v any) any { return &ListenerSet{ListenerSet: v.(*gwv1.ListenerSet), Src: o} }, true, true},
	// The experimental channel's ListenerSet before its promotion: its
	// spec is the v1 ListenerSet's (parentRef, listeners), so it is read
	// into that type and keeps its own group and kind (ListenerSet.GK).
	// Which controllers read it is theirs to say
	// (topology.Controller.ReadsListenerSet).
	XListenerSetKind: {true, map[string]bool{"v1alpha1": true}, func() any { return &gwv1.ListenerSet{} },
		func(o *manifest.Object, v any) any {
			return &ListenerSet{ListenerSet: v.(*gwv1.ListenerSet), Src: o, GK: XListenerSetKind}
		}, true, true},
	{GatewayGroup, "HTTPRoute"}: {true, oldAndNew, func() any { return &gwv1.HTTPRoute{} },
		func(o *manifest.Object, v any) any { return newHTTPRoute(o, v.(*gwv1.HTTPRoute)) }, true, true},
	{GatewayGroup, "GRPCRoute"}: {true, grpcSeries, func() any { return &gwv1.GRPCRoute{} },
		func(o *manifest.Object, v any) any { return newGRPCRoute(o, v.(*gwv1.GRPCRoute)) }, true, true},
	{GatewayGroup, "TCPRoute"}: {true, streamSeries, func() any { return &gwv1.TCPRoute{} },
		func(o *manifest.Object, v any) any { return newTCPRoute(o, v.(*gwv1.TCPRoute)) }, true, true},
	{GatewayGroup, "UDPRoute"}: {true, streamSeries, func() any { return &gwv1.UDPRoute{} },
		func(o *manifest.Object, v any) any { return newUDPRoute(o, v.(*gwv1.UDPRoute)) }, true, true},
	{GatewayGroup, "TLSRoute"}: {true, tlsSeries, func() any { return &gwv1.TLSRoute{} },
		func(o *manifest.Object, v any) any { return newTLSRoute(o, v.(*gwv1.TLSRoute)) }, true, true},
	{GatewayGroup, "ReferenceGrant"}: {true, map[string]bool{"v1": true, "v1beta1": false, "v1alpha2": false}, func() any { return &gwv1.ReferenceGrant{} },
		func(o *manifest.Object, v any) any {
			return &ReferenceGrant{ReferenceGrant: v.(*gwv1.ReferenceGrant), Src: o}
		}, true, true},
	{CoreGroup, "Service"}: {true, current, func() any { return &ServiceObject{} },
		func(o *manifest.Object, v any) any { return newService(o, v.(*ServiceObject)) }, false, true},
	{CoreGroup, "Namespace"}: {false, current, func() any { return &metaOnly{} },
		func(o *manifest.Object, v any) any {
			return &Namespace{Name: o.Name, Labels: labels.Set(o.Labels), Src: o}
		}, false, true},
	{CoreGroup, "Secret"}: {true, current, func() any { return &secretObject{} },
		func(o *manifest.Object, v any) any { return newSecret(o, v.(*secretObject)) }, false, false},
	{CoreGroup, "ConfigMap"}: {true, current, func() any { return &configMapObject{} },
		func(o *manifest.Object, v any) any { return newConfigMap(o, v.(*configMapObject)) }, false, false},
	// Served as v1alpha1 since Kubernetes 1.27 and v1beta1 since 1.33; a
	// cluster runs either, so both are read as current.
	{CertificatesGroup, "ClusterTrustBundle"}: {false, map[string]bool{"v1beta1": true, "v1alpha1": true}, func() any { return &clusterTrustBundleObject{} },
		func(o *manifest.Object, v any) any { return newClusterTrustBundle(o, v.(*clusterTrustBundleObject)) }, false, true},
}

// metaOnly is what gwpol reads of a Namespace, and of Secrets and
// ConfigMaps besides their entries (secretObject, configMapObject).
type metaOnly struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Immutable         *bool `json:"immutable,omitempty"`
}

// decodeKind types one object; checked: the schema stage decided its
// version against its CRD (and reported what there was to report).
func decodeKind(o *manifest.Object, kd kindDef, lenient, checked bool) (any, []diag.Diagnostic) {
	var diags []diag.Diagnostic
	current, served := kd.versions[o.Version]
	if checked {
		current, served = true, true
	}
	if !served {
		return nil, []diag.Diagnostic{{Code: LintVersionNotServed.Code, Severity: diag.Error, Object: o.Ref(), Field: "apiVersion", Pos: o.FieldPos("apiVersion"),
			Message: o.Kind + " " + o.APIVersion + " is not a version gwpol reads; use " + groupVersion(o.Group, "v1")}}
	}
	if !current {
		diags = append(diags, diag.Diagnostic{Code: LintDeprecatedVersion.Code, Severity: diag.Warning, Object: o.Ref(), Field: "apiVersion", Pos: o.FieldPos("apiVersion"),
			Message: o.Kind + " " + o.APIVersion + " is deprecated; change apiVersion to " + groupVersion(o.Group, "v1")})
	}
	if o.Group == CoreGroup && (o.Kind == "Secret" || o.Kind == "ConfigMap") {
		// Before decoding: a decoding error names its field path, and a
		// key the API server refuses is not one to say.
		if out := entryKeys(o); len(out) > 0 {
			return nil, append(diags, out...)
		}
	}
	v := kd.newObj()
	unknown, errs := o.DecodeAll(v)
	if !kd.strict {
		unknown = nil // gwpol carries only part of a core kind's schema
	}
	for _, err := range errs {
		diags = append(diags, decodeDiag(o, err))
	}
	if len(errs) > 0 {
		return nil, diags
	}
	diags = append(diags, UnknownFieldFindings(o, unknown, lenient)...)
	if acc, ok := v.(metav1.ObjectMetaAccessor); ok {
		acc.GetObjectMeta().SetNamespace(o.Namespace) // defaulted like kubectl does
	}
	return kd.wrap(o, v), diags
}

func groupVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

func decodeDiag(o *manifest.Object, err error) diag.Diagnostic {
	d := diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Pos: o.Pos, Message: err.Error()}
	// Point at the field that did not fit, not at the object.
	var pe *manifest.PosError
	if errors.As(err, &pe) && pe.Pos.Line > 0 {
		d.Pos, d.Message, d.Field = pe.Pos, pe.Msg, pe.Field
	}
	return d
}

// UnknownFieldFindings are the GWP102 findings for keys an object's kind
// does not define: errors, as kubectl's strict field validation rejects
// the object, unless lenient (config strictFields: false). Keys under
// status are left out: status is the controller's, and the API server
// drops what a manifest says there.
func UnknownFieldFindings(o *manifest.Object, unknown []manifest.UnknownField, lenient bool) []diag.Diagnostic {
	sev, effect := diag.Error, "the API server rejects the object under strict field validation; strictFields: false reports this as a warning"
	if lenient {
		sev, effect = diag.Warning, "it is ignored"
	}
	var out []diag.Diagnostic
	for _, u := range unknown {
		if u.Path == "status" || strings.HasPrefix(u.Path, "status.") {
			continue
		}
		msg := "unknown field " + u.Path + " in " + o.Kind
		if s := u.Suggestion(); s != "" {
			msg += "; did you mean " + s + "?"
		} else {
			msg += "; check its spelling against the " + o.APIVersion + " API"
		}
		out = append(out, diag.Diagnostic{Code: LintUnknownField.Code, Severity: sev, Object: o.Ref(), Field: u.Path, Pos: u.Pos, Message: msg + " (" + effect + ")"})
	}
	return out
}

// ObjectRefTo names the target of a reference check.
type ObjectRefTo struct {
	Group, Kind, Namespace, Name string
}

// GrantRule is how a controller matches a ReferenceGrant against a
// reference: which group names it takes as one. Each controller family
// declares its own (the zero rule compares groups as written).
type GrantRule struct {
	// CoreAlias: a group written "core" — in a grant's from or to, or in
	// the reference itself — is the core group "".
	CoreAlias bool
	// Off: the controller checks no ReferenceGrant, so every reference
	// into another namespace is allowed (a deployment switch the family
	// declares: policy.DeploymentTraits.Ungranted).
	Off bool
	// BeforeLookup: the controller checks a backendRef's grant before it
	// looks the backend up, so a reference that is both ungranted and
	// unresolvable is refused for the grant (false: for the lookup).
	BeforeLookup bool
}

// group is g as the rule reads it.
func (r GrantRule) group(g string) string {
	if r.CoreAlias && g == "core" {
		return ""
	}
	return g
}

// GrantAllows reports whether a ReferenceGrant in the target's namespace
// lets objects of fromGroup/fromKind in fromNS refer to the target, with
// groups compared as written (GrantRule's zero rule). Same namespace
// references need no grant.
func (m *Model) GrantAllows(fromGroup, fromKind, fromNS string, to ObjectRefTo) bool {
	return m.GrantAllowsBy(GrantRule{}, fromGroup, fromKind, fromNS, to)
}

// GrantAllowsBy is GrantAllows with groups matched by rule.
func (m *Model) GrantAllowsBy(rule GrantRule, fromGroup, fromKind, fromNS string, to ObjectRefTo) bool {
	if fromNS == to.Namespace || rule.Off {
		return true
	}
	fromGroup, toGroup := rule.group(fromGroup), rule.group(to.Group)
	for _, g := range m.grantsIn(to.Namespace) {
		from, toOK := false, false
		for _, f := range g.Spec.From {
			if rule.group(string(f.Group)) == fromGroup && string(f.Kind) == fromKind && string(f.Namespace) == fromNS {
				from = true
				break
			}
		}
		for _, t := range g.Spec.To {
			if rule.group(string(t.Group)) == toGroup && string(t.Kind) == to.Kind && (t.Name == nil || *t.Name == "" || string(*t.Name) == to.Name) {
				toOK = true
				break
			}
		}
		if from && toOK {
			return true
		}
	}
	return false
}

func (m *Model) grantsIn(ns string) []*ReferenceGrant {
	m.grantOnce.Do(func() {
		m.grantsByNS = map[string][]*ReferenceGrant{}
		for _, g := range m.ReferenceGrants {
			m.grantsByNS[g.Namespace] = append(m.grantsByNS[g.Namespace], g)
		}
	})
	return m.grantsByNS[ns]
}

// GatewayAPIKey is the key of a gateway.networking.k8s.io object.
func GatewayAPIKey(kind, ns, name string) Key {
	return Key{Group: GatewayGroup, Kind: kind, Namespace: ns, Name: name}
}

// sameContent reports whether two objects with one key say the same thing
// (their documents decode to the same JSON): then they are one object.
func sameContent(a, b *manifest.Object) bool {
	ja, errA := a.JSON()
	jb, errB := b.JSON()
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// KnownVersion reports whether gwpol's own version table reads version of
// the kind (a version an older release of the kind's CRD served), for
// the schema stage (schema.Options.Known).
func KnownVersion(group, kind, version string) bool {
	_, ok := kinds[GroupKind{group, kind}].versions[version]
	return ok
}
