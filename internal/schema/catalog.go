package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	envoygateway "github.com/envoyproxy/gateway"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Origin is where a CRD came from; a lower one takes precedence.
type Origin int

// The origins of CRDs, highest precedence first.
const (
	// FromFlag: --crds PATH or config crds (the CRDs the cluster runs).
	FromFlag Origin = iota
	// FromInput: a CustomResourceDefinition object among the -f inputs.
	FromInput
	// FromDependency: the CRDs Envoy Gateway's module ships (its own kinds
	// and the Gateway API's experimental channel).
	FromDependency
)

// DependencyName names the module the FromDependency CRDs come from.
const DependencyName = "github.com/envoyproxy/gateway v1.9.1"

func (o Origin) String() string {
	switch o {
	case FromFlag:
		return "--crds"
	case FromInput:
		return "input"
	}
	return DependencyName
}

// GroupKind names a kind of custom resource.
type GroupKind struct{ Group, Kind string }

func (gk GroupKind) String() string { return gk.Kind + "." + gk.Group }

// crdGroup is the API group of CustomResourceDefinition objects.
const crdGroup = "apiextensions.k8s.io"

// IsCRD reports whether o is a CustomResourceDefinition.
func IsCRD(o *manifest.Object) bool {
	return o.Group == crdGroup && o.Kind == "CustomResourceDefinition"
}

// Catalog holds the CRDs a run validates against: at most one per kind,
// the one from the highest-precedence origin. It is safe for concurrent
// use; each CRD is decoded, and each version's validators compiled, once.
type Catalog struct {
	mu   sync.Mutex
	crds map[GroupKind]*crd
	// dependency is whether the FromDependency CRDs are consulted.
	dependency bool
}

// NewCatalog is a catalog holding, when dependency is true, the CRDs
// Envoy Gateway's module ships (read only for the kinds asked about).
func NewCatalog(dependency bool) *Catalog {
	return &Catalog{crds: map[GroupKind]*crd{}, dependency: dependency}
}

// crd is one CustomResourceDefinition, decoded when first needed.
type crd struct {
	gk     GroupKind
	origin Origin
	obj    *manifest.Object // FromFlag, FromInput
	raw    []byte           // FromDependency: the YAML document

	once     sync.Once
	def      *apiextensionsv1.CustomResourceDefinition
	err      error
	versions map[string]*version
}

// Add puts the CustomResourceDefinition objects among objs into the
// catalog under origin. A kind already held from a higher-precedence
// origin keeps that CRD; between two of one origin the later one (apply
// order) wins. Objects of other kinds are ignored.
func (c *Catalog) Add(objs []*manifest.Object, origin Origin) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, o := range objs {
		if !IsCRD(o) {
			continue
		}
		group, _ := manifest.Scalar(o.Lookup("spec.group"))
		kind, _ := manifest.Scalar(o.Lookup("spec.names.kind"))
		if group == "" || kind == "" {
			// Reported when an object asks for it; kept under its name so
			// that it is.
			group, kind = o.Name, ""
		}
		gk := GroupKind{group, kind}
		if old, ok := c.crds[gk]; ok && old.origin < origin {
			continue
		}
		c.crds[gk] = &crd{gk: gk, origin: origin, obj: o}
	}
}

// lookup is the CRD for gk, nil when none is known.
func (c *Catalog) lookup(gk GroupKind) *crd {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.crds[gk]; ok {
		return d
	}
	if !c.dependency {
		return nil
	}
	d := dependencyCRD(gk)
	if d != nil {
		c.crds[gk] = d
	}
	return d
}

var (
	depMu   sync.Mutex
	depCRDs = map[GroupKind]*crd{}
)

// dependencyCRD is the CRD Envoy Gateway's module ships for gk, shared by
// every catalog of the process: it never changes, so its validators are
// compiled once per process, however many inputs are compiled.
func dependencyCRD(gk GroupKind) *crd {
	depMu.Lock()
	defer depMu.Unlock()
	if d, ok := depCRDs[gk]; ok {
		return d
	}
	raw, ok := dependencyIndex()[gk]
	if !ok {
		return nil
	}
	d := &crd{gk: gk, origin: FromDependency, raw: raw}
	depCRDs[gk] = d
	return d
}

// Kinds are the kinds the catalog holds a CRD for, with their origin,
// sorted (the dependency's included when consulted).
func (c *Catalog) Kinds() map[GroupKind]Origin {
	out := map[GroupKind]Origin{}
	if c.dependency {
		for gk := range dependencyIndex() {
			out[gk] = FromDependency
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for gk, d := range c.crds {
		if gk.Kind != "" {
			out[gk] = d.origin
		}
	}
	return out
}

var (
	depOnce  sync.Once
	depIndex map[GroupKind][]byte
	// The group and kind lines of a CRD document as controller-gen writes
	// them (spec.group, spec.names.kind); the index test checks them
	// against a full decoding of every document.
	groupLine = regexp.MustCompile(`(?m)^  group: (\S+)$`)
	kindLine  = regexp.MustCompile(`(?m)^    kind: (\S+)$`)
)

// dependencyIndex splits Envoy Gateway's CRD bundle into documents by
// kind without decoding them: a run decodes only the CRDs its objects
// need.
func dependencyIndex() map[GroupKind][]byte {
	depOnce.Do(func() {
		depIndex = map[GroupKind][]byte{}
		for _, doc := range splitYAML(envoygateway.GatewayCRDs) {
			g, k := groupLine.FindSubmatch(doc), kindLine.FindSubmatch(doc)
			if g == nil || k == nil {
				continue
			}
			depIndex[GroupKind{string(g[1]), string(k[1])}] = doc
		}
	})
	return depIndex
}

// splitYAML splits a YAML stream at its "---" lines.
func splitYAML(data []byte) [][]byte {
	var out [][]byte
	for _, part := range bytes.Split(append([]byte("\n"), data...), []byte("\n---\n")) {
		if len(bytes.TrimSpace(part)) > 0 {
			out = append(out, part)
		}
	}
	return out
}

// load decodes the CRD once.
func (d *crd) load() error {
	d.once.Do(func() {
		var data []byte
		var err error
		if d.obj != nil {
			data, err = d.obj.JSON()
		} else {
			data, err = dependencyJSON(d.raw)
		}
		if err != nil {
			d.err = err
			return
		}
		def := decoded(data)
		d.def, d.versions, d.err = def.def, def.versions, def.err
	})
	return d.err
}

// dependencyJSON is one document of the dependency's CRD bundle as JSON,
// read as an input's CRD is (manifest's reader: the bundle's documents
// are all read by its fast reader, TestDependencyJSONIsTheLibrarys).
func dependencyJSON(raw []byte) ([]byte, error) {
	objs, err := manifest.Parse(DependencyName, raw, manifest.Limits{})
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("%d documents where one CRD was expected", len(objs))
	}
	return objs[0].JSON()
}

// A crdDef is a decoded CRD with its versions (and their validators,
// compiled when first needed), shared by every catalog of the process
// that holds a CRD of the same content: a CRD is decoded and compiled
// once per process, however many inputs are compiled against it.
type crdDef struct {
	once     sync.Once
	def      *apiextensionsv1.CustomResourceDefinition
	versions map[string]*version
	err      error
}

var crdDefs sync.Map // sha256 of the CRD's JSON → *crdDef

func decoded(data []byte) *crdDef {
	v, _ := crdDefs.LoadOrStore(sha256.Sum256(data), &crdDef{})
	cd, _ := v.(*crdDef)
	cd.once.Do(func() {
		def := &apiextensionsv1.CustomResourceDefinition{}
		if err := json.Unmarshal(data, def); err != nil {
			cd.err = fmt.Errorf("not a CustomResourceDefinition: %v", err)
			return
		}
		if def.Spec.Group == "" || def.Spec.Names.Kind == "" {
			cd.err = fmt.Errorf("spec.group and spec.names.kind must be set")
			return
		}
		cd.def = def
		cd.versions = map[string]*version{}
		for i := range def.Spec.Versions {
			v := &def.Spec.Versions[i]
			cd.versions[v.Name] = &version{def: def, name: v.Name, served: v.Served, deprecated: v.Deprecated, warning: deref(v.DeprecationWarning)}
		}
	})
	return cd
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// where names the CRD for messages: its name and where it came from.
func (d *crd) where() string {
	name := strings.ToLower(d.gk.Kind) + "s." + d.gk.Group
	if d.def != nil {
		name = d.def.Name
	}
	switch {
	case d.obj != nil:
		return fmt.Sprintf("CRD %s (%s)", name, d.obj.Pos)
	}
	return fmt.Sprintf("CRD %s (from %s)", name, DependencyName)
}

// served are the versions the CRD serves, sorted, for messages.
func (d *crd) served() []string {
	var out []string
	for name, v := range d.versions {
		if v.served {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// unusable is the finding about a CRD that cannot be used, placed at the
// CRD when it is an object of the input or a --crds file.
func (d *crd) unusable(err error) diag.Diagnostic {
	out := diag.Diagnostic{Code: LintCRDUnusable.Code, Severity: diag.Error, Message: d.where() + ": " + err.Error()}
	if d.obj != nil {
		out.Object, out.Pos = d.obj.Ref(), d.obj.Pos
	}
	return out
}
