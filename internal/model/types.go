package model

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/secret"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayClass with its source.
type GatewayClass struct {
	*gwv1.GatewayClass
	Src *manifest.Object
}

// Gateway with its source.
type Gateway struct {
	*gwv1.Gateway
	Src *manifest.Object
}

// Key of the Gateway.
func (g *Gateway) Key() Key { return GatewayAPIKey("Gateway", g.Namespace, g.Name) }

// ListenerSet with its source.
type ListenerSet struct {
	*gwv1.ListenerSet
	Src *manifest.Object
	// GK is the set's group and kind when it is not the v1 ListenerSet
	// (the experimental XListenerSet, read into the same type); zero for
	// the v1 kind.
	GK GroupKind
}

// ListenerSetKind is the v1 ListenerSet's group and kind;
// XListenerSetKind the experimental channel's, before its promotion.
var (
	ListenerSetKind  = GroupKind{GatewayGroup, "ListenerSet"}
	XListenerSetKind = GroupKind{ExperimentalGatewayGroup, "XListenerSet"}
)

// GroupKind is the set's group and kind.
func (l *ListenerSet) GroupKind() GroupKind {
	if l.GK == (GroupKind{}) {
		return ListenerSetKind
	}
	return l.GK
}

// Key of the ListenerSet: its own group and kind, so that a ListenerSet and
// an XListenerSet of one name are two objects.
func (l *ListenerSet) Key() Key {
	gk := l.GroupKind()
	return Key{Group: gk.Group, Kind: gk.Kind, Namespace: l.Namespace, Name: l.Name}
}

// ReferenceGrant with its source.
type ReferenceGrant struct {
	*gwv1.ReferenceGrant
	Src *manifest.Object
}

// ServiceObject is what gwpol decodes of a core Service (newService keeps
// the part it reads).
type ServiceObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ServiceSpec `json:"spec"`
}

// ServiceSpec is the part of a Service spec gwpol reads.
type ServiceSpec struct {
	Type         string        `json:"type,omitempty"`
	ExternalName string        `json:"externalName,omitempty"`
	Ports        []ServicePort `json:"ports,omitempty"`
}

// ServicePort is one port of a Service.
type ServicePort struct {
	Name        string             `json:"name,omitempty"`
	Protocol    string             `json:"protocol,omitempty"`
	AppProtocol *string            `json:"appProtocol,omitempty"`
	Port        int32              `json:"port"`
	TargetPort  intstr.IntOrString `json:"targetPort,omitempty"`
}

// Service is the part of a core Service gwpol reads, with its source. It
// holds the few metadata fields read rather than the decoded ObjectMeta
// (about 230 bytes, most of it empty): an input has Services by the tens
// of thousands, and the model holds them to the end of the run.
type Service struct {
	Name, Namespace     string
	Labels, Annotations map[string]string
	Spec                ServiceSpec
	Src                 *manifest.Object
	// Assumed: the input does not hold the Service; config assumeExist
	// says it exists in the cluster, with whatever ports it is asked for.
	Assumed bool
}

// newService keeps of a decoded Service what gwpol reads.
func newService(o *manifest.Object, so *ServiceObject) *Service {
	return &Service{Name: so.Name, Namespace: so.Namespace, Labels: so.Labels, Annotations: so.Annotations, Spec: so.Spec, Src: o}
}

// HasPort reports whether the Service exposes port.
func (s *Service) HasPort(port int32) bool {
	if s.Assumed {
		return true
	}
	for _, p := range s.Spec.Ports {
		if p.Port == port {
			return true
		}
	}
	return false
}

// Namespace is a Namespace's name and labels.
type Namespace struct {
	Name   string
	Labels labels.Set
	Src    *manifest.Object
}

// Opaque is the metadata view of a Secret or ConfigMap: its name, labels,
// immutability and key names. A Secret's values are held as secret.Value,
// which no message can print (Value reads one); a ConfigMap's data is read
// by the policy kinds that need it from Src.
type Opaque struct {
	Kind      string
	Namespace string
	Name      string
	Labels    map[string]string
	Immutable bool
	// Keys are the names of the entries (a Secret's data and stringData,
	// a ConfigMap's data and binaryData), each a name the API server
	// accepts, sorted; never their values.
	Keys []string
	// Type is a Secret's type as written ("" when unset: the API server
	// makes it Opaque); a ConfigMap has none.
	Type string
	Src  *manifest.Object
	// Assumed: the input does not hold the object; config assumeExist
	// says it exists in the cluster (immutable, with the keys asked for).
	Assumed bool

	values map[string]secret.Value
	// data is a ConfigMap's data (not binaryData), decoded with the
	// object, so that the CA bundles, CRLs and JWKS controllers read
	// from ConfigMaps are not decoded again by each reader; held as
	// values no message can print, as a Secret's are.
	data map[string]secret.Value
}

// Data is the value of a ConfigMap's entry key in data (binaryData is
// not looked at), and whether the ConfigMap has one there. A Secret
// holds no Data.
func (o *Opaque) Data(key string) (secret.Value, bool) {
	v, ok := o.data[key]
	return v, ok
}

// DataKeys are the names of a ConfigMap's data entries (not
// binaryData), sorted.
func (o *Opaque) DataKeys() []string { return slices.Sorted(maps.Keys(o.data)) }

// Value is the value of a Secret's entry key — from stringData, which
// wins as the API server merges it, else from data, base64-decoded — and
// whether the Secret has one. A ConfigMap holds no Value.
func (o *Opaque) Value(key string) (secret.Value, bool) {
	v, ok := o.values[key]
	return v, ok
}

// secretObject is what gwpol reads of a Secret: metadata, immutable, and
// its entries as values no message can print. data and stringData must be
// maps of strings, as the API server requires.
type secretObject struct {
	metaOnly
	Type       string                    `json:"type"`
	Data       map[string]secret.Encoded `json:"data"`
	StringData map[string]secret.Value   `json:"stringData"`
}

// configMapObject is what gwpol reads of a ConfigMap here: metadata,
// immutable, and the names of its entries (data and binaryData must be
// maps of strings).
type configMapObject struct {
	metaOnly
	Data       map[string]secret.Value `json:"data"`
	BinaryData map[string]string       `json:"binaryData"`
}

func newSecret(o *manifest.Object, s *secretObject) *Opaque {
	op := newOpaque(o, s.Immutable)
	if len(s.Data)+len(s.StringData) > 0 {
		op.values = make(map[string]secret.Value, len(s.Data)+len(s.StringData))
	}
	for k, v := range s.Data {
		op.values[k] = v.Value
	}
	for k, v := range s.StringData {
		op.values[k] = v
	}
	op.Keys = slices.Sorted(maps.Keys(op.values))
	op.Type = s.Type
	return op
}

func newConfigMap(o *manifest.Object, c *configMapObject) *Opaque {
	op := newOpaque(o, c.Immutable)
	keys := map[string]bool{}
	for k := range c.Data {
		keys[k] = true
	}
	for k := range c.BinaryData {
		keys[k] = true
	}
	op.Keys = slices.Sorted(maps.Keys(keys))
	op.data = c.Data
	return op
}

// ClusterTrustBundle is a certificates.k8s.io ClusterTrustBundle: a
// cluster-scoped set of CA certificates controllers may trust.
type ClusterTrustBundle struct {
	Name string
	// TrustBundle is spec.trustBundle, PEM certificates.
	TrustBundle string
	Src         *manifest.Object
	// Assumed: the input does not hold it; config assumeExist says it
	// exists in the cluster, its content unknown.
	Assumed bool
}

// clusterTrustBundleObject is what gwpol reads of a ClusterTrustBundle.
type clusterTrustBundleObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		SignerName  string `json:"signerName,omitempty"`
		TrustBundle string `json:"trustBundle"`
	} `json:"spec"`
}

func newClusterTrustBundle(o *manifest.Object, b *clusterTrustBundleObject) *ClusterTrustBundle {
	return &ClusterTrustBundle{Name: o.Name, TrustBundle: b.Spec.TrustBundle, Src: o}
}

func newOpaque(o *manifest.Object, immutable *bool) *Opaque {
	op := &Opaque{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Labels: o.Labels, Src: o}
	if immutable != nil {
		op.Immutable = *immutable
	}
	return op
}

// Route is an HTTPRoute or a GRPCRoute seen through what they share:
// parents, hostnames, rules with backends and filters. The typed object
// stays reachable for what differs (matches).
type Route struct {
	Kind       string // HTTPRoute, GRPCRoute, TCPRoute, TLSRoute or UDPRoute
	Meta       *metav1.ObjectMeta
	ParentRefs []gwv1.ParentReference
	Hostnames  []gwv1.Hostname
	Rules      []*Rule
	HTTP       *gwv1.HTTPRoute
	GRPC       *gwv1.GRPCRoute
	Src        *manifest.Object
}

// Key of the route.
func (r *Route) Key() Key { return GatewayAPIKey(r.Kind, r.Meta.Namespace, r.Meta.Name) }

// Rule is one route rule.
type Rule struct {
	Index       int
	Name        string // the rule's `name`, "" when unnamed
	Path        string // field path, e.g. spec.rules[2]
	BackendRefs []BackendRef
	Filters     []Filter
	HTTP        *gwv1.HTTPRouteRule
	GRPC        *gwv1.GRPCRouteRule
}

// Section is how a policy's sectionName or explain's RULE names the rule:
// its name, or "#N" when it has none.
func (r *Rule) Section() string {
	if r.Name != "" {
		return r.Name
	}
	return "#" + strconv.Itoa(r.Index)
}

// BackendRef is one backendRef of a rule.
type BackendRef struct {
	gwv1.BackendObjectReference
	Weight  int32
	Filters []Filter
	Path    string // field path
}

// Filter is a route filter, reduced to what attachment needs.
type Filter struct {
	Type         string
	ExtensionRef *gwv1.LocalObjectReference
	Path         string
}

func newHTTPRoute(o *manifest.Object, r *gwv1.HTTPRoute) *Route {
	rt := &Route{Kind: "HTTPRoute", Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Hostnames: r.Spec.Hostnames, HTTP: r, Src: o}
	rt.Rules = newRules(len(r.Spec.Rules))
	for i, ru := range rt.Rules {
		rule := &r.Spec.Rules[i]
		ru.setName(rule.Name)
		ru.HTTP = rule
		ru.Filters = filters(rule.Filters, ru.Path, httpFilter)
		ru.BackendRefs = make([]BackendRef, 0, len(rule.BackendRefs))
		for j, b := range rule.BackendRefs {
			ru.addBackend(j, b.BackendRef, filters(b.Filters, backendPath(i, j), httpFilter))
		}
	}
	return rt
}

func newGRPCRoute(o *manifest.Object, r *gwv1.GRPCRoute) *Route {
	rt := &Route{Kind: "GRPCRoute", Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Hostnames: r.Spec.Hostnames, GRPC: r, Src: o}
	rt.Rules = newRules(len(r.Spec.Rules))
	for i, ru := range rt.Rules {
		rule := &r.Spec.Rules[i]
		ru.setName(rule.Name)
		ru.GRPC = rule
		ru.Filters = filters(rule.Filters, ru.Path, grpcFilter)
		ru.BackendRefs = make([]BackendRef, 0, len(rule.BackendRefs))
		for j, b := range rule.BackendRefs {
			ru.addBackend(j, b.BackendRef, filters(b.Filters, backendPath(i, j), grpcFilter))
		}
	}
	return rt
}

// newTCPRoute reads a TCPRoute: parentRefs and backendRefs only (its rules
// have no matches or filters).
func newTCPRoute(o *manifest.Object, r *gwv1.TCPRoute) *Route {
	rt := &Route{Kind: "TCPRoute", Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Src: o}
	for i, rule := range r.Spec.Rules {
		rt.Rules = append(rt.Rules, backendsOnlyRule(i, rule.Name, rule.BackendRefs))
	}
	return rt
}

// newUDPRoute reads a UDPRoute: parentRefs and backendRefs, like a
// TCPRoute (a controller may serve them on UDP listeners).
func newUDPRoute(o *manifest.Object, r *gwv1.UDPRoute) *Route {
	rt := &Route{Kind: "UDPRoute", Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Src: o}
	for i, rule := range r.Spec.Rules {
		rt.Rules = append(rt.Rules, backendsOnlyRule(i, rule.Name, rule.BackendRefs))
	}
	return rt
}

// backendsOnlyRule is a rule of a route kind whose rules only forward
// (TCPRoute, UDPRoute, TLSRoute).
func backendsOnlyRule(i int, name *gwv1.SectionName, refs []gwv1.BackendRef) *Rule {
	ru := newRule(i, name)
	for j, b := range refs {
		ru.addBackend(j, b, nil)
	}
	return ru
}

// newTLSRoute reads a TLSRoute: parentRefs, SNI hostnames, backendRefs.
func newTLSRoute(o *manifest.Object, r *gwv1.TLSRoute) *Route {
	rt := &Route{Kind: "TLSRoute", Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Hostnames: r.Spec.Hostnames, Src: o}
	for i, rule := range r.Spec.Rules {
		rt.Rules = append(rt.Rules, backendsOnlyRule(i, rule.Name, rule.BackendRefs))
	}
	return rt
}

func newRule(i int, name *gwv1.SectionName) *Rule {
	ru := &Rule{Index: i, Path: rulePath(i)}
	ru.setName(name)
	return ru
}

// newRules are a route's n rules, indexed, in one allocation: a large
// input holds tens of thousands of them for the whole run.
func newRules(n int) []*Rule {
	if n == 0 {
		return nil
	}
	backing := make([]Rule, n)
	out := make([]*Rule, n)
	for i := range backing {
		backing[i] = Rule{Index: i, Path: rulePath(i)}
		out[i] = &backing[i]
	}
	return out
}

func (ru *Rule) setName(name *gwv1.SectionName) {
	if name != nil {
		ru.Name = string(*name)
	}
}

// sharedPaths is how many rules (and backendRefs per rule) have their
// field paths made once for every route: most routes have a few, and a
// large input would otherwise hold one copy of the same few strings per
// rule and per backendRef.
const sharedPaths = 16

var rulePaths, backendPaths = func() ([]string, [][]string) {
	rules := make([]string, sharedPaths)
	backends := make([][]string, sharedPaths)
	for i := range rules {
		rules[i] = "spec.rules[" + strconv.Itoa(i) + "]"
		backends[i] = make([]string, sharedPaths)
		for j := range backends[i] {
			backends[i][j] = rules[i] + ".backendRefs[" + strconv.Itoa(j) + "]"
		}
	}
	return rules, backends
}()

// rulePath is the field path of rule i, spec.rules[i].
func rulePath(i int) string {
	if i < sharedPaths {
		return rulePaths[i]
	}
	return "spec.rules[" + strconv.Itoa(i) + "]"
}

// backendPath is the field path of backendRef j of rule i.
func backendPath(i, j int) string {
	if i < sharedPaths && j < sharedPaths {
		return backendPaths[i][j]
	}
	return rulePath(i) + ".backendRefs[" + strconv.Itoa(j) + "]"
}

func (ru *Rule) addBackend(j int, b gwv1.BackendRef, fs []Filter) {
	ru.BackendRefs = append(ru.BackendRefs, BackendRef{BackendObjectReference: b.BackendObjectReference, Weight: weight(b.Weight), Filters: fs, Path: backendPath(ru.Index, j)})
}

func httpFilter(f gwv1.HTTPRouteFilter) (string, *gwv1.LocalObjectReference) {
	return string(f.Type), f.ExtensionRef
}

func grpcFilter(f gwv1.GRPCRouteFilter) (string, *gwv1.LocalObjectReference) {
	return string(f.Type), f.ExtensionRef
}

// filters reduces HTTP or gRPC route filters to what attachment needs.
func filters[F any](fs []F, path string, get func(F) (string, *gwv1.LocalObjectReference)) []Filter {
	if len(fs) == 0 {
		return nil
	}
	out := make([]Filter, 0, len(fs))
	for j, f := range fs {
		typ, ref := get(f)
		out = append(out, Filter{Type: typ, ExtensionRef: ref, Path: path + ".filters[" + strconv.Itoa(j) + "]"})
	}
	return out
}

func weight(w *int32) int32 {
	if w == nil {
		return 1
	}
	return *w
}

// CAProblem checks the CA bundle a ConfigMap or Secret holds under
// ca.crt, the Gateway API's rule for a caCertificateRef (FrontendTLSValidation
// and BackendTLSPolicyValidation: a PEM-encoded CA certificate bundle in a
// key named ca.crt, a reference to an object without it being invalid):
// the key must be there and hold PEM certificates that parse
// (secret.CheckCACertificates); nil when they do, or when the object's
// data is not in the input (config assumeExist, or an object written with
// metadata only). The error names the object and the key, never a value.
func (o *Opaque) CAProblem() error {
	if o == nil || o.Assumed || len(o.Keys) == 0 {
		return nil
	}
	if !slices.Contains(o.Keys, "ca.crt") {
		return fmt.Errorf("failed to extract CA certificate from %s %s/%s: ca.crt key missing", o.Kind, o.Namespace, o.Name)
	}
	var err error
	if o.Kind == "Secret" {
		v, _ := o.Value("ca.crt")
		err = secret.CheckCACertificates(v)
	} else {
		v, _ := o.Data("ca.crt") // binaryData is not read: one there holds no CA
		err = secret.CheckCACertificates(v)
	}
	if err != nil {
		return fmt.Errorf("invalid ca.crt in %s %s/%s: %w", o.Kind, o.Namespace, o.Name, err)
	}
	return nil
}
