package model

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gwpol/gwpol/internal/manifest"
)

// AssumableKinds are the kinds config assumeExist may name: core objects
// that commonly live outside the repository (cert-manager's Secrets,
// Services deployed by application pipelines, ConfigMaps of CA bundles,
// the ClusterTrustBundles a signer maintains).
var AssumableKinds = []string{"ConfigMap", "Secret", "Service", "ClusterTrustBundle"}

// AssumedFile is the file name of an object assumed to exist, in positions
// and messages.
const AssumedFile = "(assumeExist)"

// assumed holds the objects taken to exist because their kind is listed
// in assumeExist and a reference names one the input lacks. Each is made
// once, on first lookup, from its key alone, so the answer does not
// depend on which stage asked first.
type assumed struct {
	kinds map[string]bool
	mu    sync.Mutex
	made  map[Key]any
}

// CanonicalAssumableKind is the spelling of an assumeExist kind, "" when
// the kind cannot be assumed.
func CanonicalAssumableKind(kind string) string {
	for _, k := range AssumableKinds {
		if strings.EqualFold(k, kind) {
			return k
		}
	}
	return ""
}

func newAssumed(kinds []string) *assumed {
	a := &assumed{kinds: map[string]bool{}, made: map[Key]any{}}
	for _, k := range kinds {
		if c := CanonicalAssumableKind(k); c != "" {
			a.kinds[c] = true
		}
	}
	return a
}

// Assumes reports whether absent objects of a core kind are taken to exist.
func (m *Model) Assumes(kind string) bool { return m.assume != nil && m.assume.kinds[kind] }

// assumedObject returns the stand-in for an absent core object of an
// assumed kind, nil when its kind is not assumed.
func (m *Model) assumedObject(kind, ns, name string) any {
	if !m.Assumes(kind) || name == "" {
		return nil
	}
	group := CoreGroup
	if kind == "ClusterTrustBundle" {
		group = CertificatesGroup
	}
	k := Key{Group: group, Kind: kind, Namespace: ns, Name: name}
	if _, inInput := m.objects[k]; inInput {
		return nil // in the input but unreadable (GWP101): that is what the cluster would get
	}
	a := m.assume
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.made[k]; ok {
		return t
	}
	src := assumedSource(group, kind, ns, name)
	var t any
	switch kind {
	case "ClusterTrustBundle":
		t = &ClusterTrustBundle{Name: name, Src: src, Assumed: true}
	case "Service":
		t = &Service{Name: name, Namespace: ns, Src: src, Assumed: true}
	default:
		t = &Opaque{Kind: kind, Namespace: ns, Name: name, Immutable: true, Src: src, Assumed: true}
	}
	a.made[k] = t
	return t
}

// assumedSource is the manifest object of a stand-in: metadata only.
func assumedSource(group, kind, ns, name string) *manifest.Object {
	apiVersion := "v1"
	if group != CoreGroup {
		apiVersion = group + "/v1beta1"
	}
	doc := fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %q\n  namespace: %q\n", apiVersion, kind, name, ns)
	objs, err := manifest.Parse(AssumedFile, []byte(doc), manifest.Limits{})
	if err != nil || len(objs) != 1 {
		// The document is gwpol's own; it always parses.
		panic(fmt.Sprintf("model: assumed %s %s/%s: %v", kind, ns, name, err))
	}
	return objs[0]
}

// HasKey reports whether a Secret or ConfigMap holds a data entry named
// key. An object assumed to exist holds whatever it is asked for: its
// content is outside the input, as the user declared.
func (o *Opaque) HasKey(key string) bool { return o.Assumed || slices.Contains(o.Keys, key) }
