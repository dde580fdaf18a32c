package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
)

// Field accounting (issue 26): every field an input object sets is
// applied (it changes what render, status, explain or lint say), reported
// (a GWP404 unsupported, GWP406 not-translated or GWP102 unknown-field
// finding, or any error, at it or at a field above it: the object or field
// is refused and a finding says why), or listed below as having no effect
// offline, with the reason. "Applied" is measured, not
// declared: the field is taken out of the input (or, when that changes
// nothing because its value is the default, changed) and the whole
// output compared. A field nothing reads — a filter type no translator
// handles, a sub-field a renderer's type lacks — changes nothing and is
// reported by name. So the property holds for code written later too,
// with no list of handled fields to keep in step.

// noEffect are the fields that change nothing offline, each with the
// reason. A path pattern matches per segment: "*" any key, "[*]" any
// index; a pattern matches the field and everything under it.
var noEffect = []struct {
	kind, path, reason string
}{
	{"*", "status", "status is what a controller writes, not input it reads"},
	{"*", "metadata.uid", "set by the API server; no controller reads it to translate"},
	{"*", "metadata.resourceVersion", "set by the API server; no controller reads it to translate"},
	{"*", "metadata.generation", "set by the API server; status's observedGeneration echoes it, which gwpol does not print"},
	{"*", "metadata.managedFields", "server-side apply bookkeeping"},
	{"*", "metadata.labels", "labels are read by selectors (targetSelectors, allowedRoutes, namespace selectors); one no selector in the input reads does nothing"},
	{"*", "metadata.annotations", "gwpol reads the annotations a controller reads (policy weight, inherited priority, gwpol.dev/ignore…); those are applied, any other is nobody's input"},
	{"Secret", "data", "a Secret's data is credentials: gwpol reads only its metadata and immutability, never its values (offline, no Envoy loads them)"},
	{"Secret", "stringData", "a Secret's data is credentials: gwpol reads only its metadata and immutability, never its values"},
	{"Secret", "type", "the Secret's type is checked by the controller when it loads the data, which gwpol never reads"},
	{"Service", "spec.selector", "a Service's selector picks Pods; offline there are no Pods or endpoints"},
	{"Service", "spec.ports[*].targetPort", "the Pod port traffic reaches: an endpoint detail, and offline there are no endpoints"},
	{"Service", "spec.clusterIP", "allocated by the API server; the proxies send to endpoints, which offline are not known"},
	{"Service", "spec.ports[*].name", "a port's name matters to EndpointSlices and to people; routes and policies reach a Service port by number"},
	{"Service", "spec.ports[*].protocol", "gwpol's translators, like the controllers', reach a Service port by number and do not read its protocol (TCP, the default)"},
	{"EndpointSlice", "endpoints", "endpoints are the running cluster's state; gwpol renders clusters without endpoints, so which addresses are ready changes nothing in its output"},
	{"EndpointSlice", "ports", "endpoints are the running cluster's state; gwpol renders clusters without endpoints"},
	{"EndpointSlice", "addressType", "endpoints are the running cluster's state; gwpol renders clusters without endpoints"},
	{"ConfigMap", "data", "like a Secret's, a ConfigMap's data (CA certificates, JWKS, Lua, response bodies) is what the data plane loads: gwpol checks the keys a reference names, not the values"},
	{"ClusterTrustBundle", "spec", "the bundle's certificates are what the data plane loads; gwpol checks the reference, not the PEM"},
	{"ClusterTrustBundle", "metadata.creationTimestamp", "set by the API server; no translator reads it for this kind"},
}

// accountingGapsFile lists the fields known to be neither applied nor
// reported yet, "KIND PATH<TAB>reason" a line: the work left, each with
// what it is.
const accountingGapsFile = "../../testdata/field-accounting-gaps.txt"

func accountingGaps(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	b, err := os.ReadFile(accountingGapsFile)
	if err != nil {
		return out
	}
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pat, reason, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(reason) == "" {
			t.Errorf("%s:%d: want PATTERN<TAB>reason", accountingGapsFile, i+1)
			continue
		}
		out[pat] = reason
	}
	return out
}

// accountingIdentity are the fields that name an object: always read.
var accountingIdentity = []string{"apiVersion", "kind", "metadata", "metadata.name", "metadata.namespace"}

// reportCodes are the findings that account for the field they are at
// (and the fields under it): unsupported for the target, no effect
// offline, unknown to the kind.
var reportCodes = []string{"GWP404", "GWP406", "GWP102"}

// acctInput is one input set: its documents, which of them the harness
// gives gwpol, and how it is compiled.
type acctInput struct {
	corpus, name, file string
	docs               []*yaml.Node // document nodes
	skip               map[int]bool
	cfg                *Config
	target             string // the render target: the corpus's controller, else inferred
	versions           *pipeline.Versions
}

// ledger is what the walk found, over every input.
type ledger struct {
	objects int
	// applied are the field patterns (kind and path, list indices as [*]
	// or [type=T] where the element names its type) shown applied: taking
	// one out, or changing it, changed the output somewhere. A pattern is
	// a field the code reads; once shown, its other occurrences need no
	// second proof.
	applied map[string]bool
	// tries counts the occurrences of a pattern taken out without effect;
	// after maxTries the pattern's remaining occurrences are not tried.
	tries map[string]int
	// occurrences are every set field by pattern and how it is accounted
	// ("" until applied is known: then applied, else unaccounted).
	occ []occurrence
	// values are the string values each pattern has in the inputs, the
	// other values a mutated field tries first.
	values map[string][]string
}

type occurrence struct {
	pattern, how, where string
}

// maxTries bounds the occurrences of one field pattern taken out before
// it is called unaccounted: a field nothing reads changes nothing in any
// of them; one read only in some context (a Service's port, where a route
// uses it) shows so in the first few. gwpol's own fixtures are not
// bounded: each is written to show a field applied, and the corpora,
// walked first, may have used up a pattern's tries in contexts where it
// changes nothing.
const maxTries = 4

var positionRE = regexp.MustCompile(`[^\s"]*\.ya?ml:\d+(:\d+)?|"(line|column|col)":\s*\d+`)

// views is what the views say about the input, in the order the walk
// compares it (the cheapest first): compile and render findings without
// positions (a removed line shifts them), the rendered xDS, the status
// report and each policy's explain report.
type views struct {
	findings string
	keys     []diagKey
	xds      string
	rest     string
}

func (in *acctInput) views(objs []*manifest.Object, base *views) (*views, bool) {
	c := families.CompileWith(&manifest.Set{Objects: objs}, in.cfg, in.versions)
	v := &views{}
	var lines []string
	add := func(code, obj, field, msg string, sev diag.Severity) {
		lines = append(lines, code+" "+obj+" "+field+" "+positionRE.ReplaceAllString(msg, ""))
		v.keys = append(v.keys, diagKey{code, obj, field, sev})
	}
	for _, d := range c.Diagnostics() {
		add(d.Code, d.Object.String(), d.Field, d.Message, d.Severity)
	}
	out, err := renderPlatform(c, in.target, false, nil)
	if err != nil {
		v.xds = "render error: " + err.Error()
	} else {
		for _, d := range out.Diagnostics {
			add(d.Code, d.Object.String(), d.Field, d.Message, d.Severity)
		}
		j, err := out.Marshal("json", envoy.TypeAll)
		if err != nil {
			v.xds = "marshal error: " + err.Error()
		}
		v.xds += string(j)
	}
	slices.Sort(lines)
	v.findings = strings.Join(lines, "\n")
	if base != nil && (v.findings != base.findings || v.xds != base.xds) {
		return v, true
	}
	var b bytes.Buffer
	rep := status.Compute(c.Result, status.Options{ControllerName: c.Config.ControllerName})
	j, _ := json.Marshal(rep)
	b.Write(j)
	for _, p := range c.Policies.Policies {
		j, _ := json.Marshal(explain.Policy(c.Result, p))
		b.Write(j)
		// A kind with a view of its own (WSO2's RestApi) explains its
		// object there, values included.
		if ox, ok := p.Kind.(policy.ObjectExplainer); ok {
			o := &explainOptions{globalOptions: &globalOptions{IO: &IOStreams{Out: &b, Width: 200}},
				Target: strings.ToLower(p.Obj.Kind) + "/" + p.Obj.Namespace + "/" + p.Obj.Name, Output: "json", ShowValues: true}
			_ = explainObject(o, c, ox)
		}
	}
	v.rest = positionRE.ReplaceAllString(b.String(), "")
	return v, base != nil && v.rest != base.rest
}

type diagKey struct {
	code, object, field string
	sev                 diag.Severity
}

// docCache holds each document's parsed objects; a document is parsed
// again only when the walk has changed it.
type docCache struct {
	in   *acctInput
	objs [][]*manifest.Object
}

func (dc *docCache) parse(i int) []*manifest.Object {
	b, err := yaml.Marshal(dc.in.docs[i])
	if err != nil {
		return nil
	}
	objs, _ := manifest.Parse(dc.in.file, b, manifest.Limits{})
	return objs
}

func (dc *docCache) all(changed int) []*manifest.Object {
	var out []*manifest.Object
	for i := range dc.in.docs {
		if dc.in.skip[i] {
			continue
		}
		if i == changed {
			out = append(out, dc.parse(i)...)
			continue
		}
		out = append(out, dc.objs[i]...)
	}
	return out
}

// account walks every field of every object in the input.
func (in *acctInput) account(l *ledger) {
	dc := &docCache{in: in, objs: make([][]*manifest.Object, len(in.docs))}
	for i := range in.docs {
		if !in.skip[i] {
			dc.objs[i] = dc.parse(i)
		}
	}
	base, _ := in.views(dc.all(-1), nil)
	for i, doc := range in.docs {
		if in.skip[i] || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		obj := doc.Content[0]
		kind, ref := objectKind(obj)
		l.objects++
		w := &acctWalk{in: in, dc: dc, doc: i, base: base, kind: kind, ref: ref, l: l}
		w.mapping(obj, "", "")
	}
}

func objectKind(obj *yaml.Node) (kind, ref string) {
	v, _ := manifest.Field(obj, "kind")
	kind, _ = manifest.Scalar(v)
	md, _ := manifest.Field(obj, "metadata")
	name, _ := manifest.Scalar(firstOf(manifest.Field(md, "name")))
	ns, _ := manifest.Scalar(firstOf(manifest.Field(md, "namespace")))
	return kind, kind + " " + ns + "/" + name
}

func firstOf(v, _ *yaml.Node) *yaml.Node { return v }

type acctWalk struct {
	in        *acctInput
	dc        *docCache
	doc       int
	base      *views
	kind, ref string
	l         *ledger
	key       string // the pattern of the field being mutated
}

// changes reports whether the output differs from the base with the
// input as it is now (the caller has just edited docs[doc]).
func (w *acctWalk) changes() bool {
	_, changed := w.in.views(w.dc.all(w.doc), w.base)
	return changed
}

func (w *acctWalk) mapping(n *yaml.Node, path, pat string) bool {
	any := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		key := n.Content[i].Value
		p, pp := key, key
		if path != "" {
			p, pp = path+"."+key, pat+"."+key
		}
		if w.field(n, i, 2, p, pp) {
			any = true
		}
	}
	return any
}

func (w *acctWalk) sequence(n *yaml.Node, path, pat string) bool {
	any := false
	// By index, not range: field takes each element out and puts back a
	// copy of the list, so the slice a range began with no longer holds
	// the elements in order (its later ones would be named after their
	// neighbours' types).
	for i := 0; i < len(n.Content); i++ {
		e := n.Content[i]
		seg := "[*]"
		if t, ok := manifest.Scalar(firstOf(manifest.Field(e, "type"))); ok && e.Kind == yaml.MappingNode {
			seg = "[type=" + t + "]" // a union: each member is its own field
		}
		if w.field(n, i, 1, path+"["+strconv.Itoa(i)+"]", pat+seg) {
			any = true
		}
	}
	return any
}

// field accounts for the field at parent.Content[i] (a key and its value
// when width is 2, a list element when 1) and everything under it, and
// reports whether it is applied.
func (w *acctWalk) field(parent *yaml.Node, i, width int, path, pat string) bool {
	val := parent.Content[i+width-1]
	key := w.kind + " " + pat
	where := w.in.corpus + "/" + w.in.name + " " + w.ref + " " + path
	record := func(how string) { w.l.occ = append(w.l.occ, occurrence{key, how, where}) }
	// The identity fields, and the type of a union's element (its pattern
	// names the type: the element is applied or not as a whole).
	if slices.Contains(accountingIdentity, path) || (width == 2 && strings.HasSuffix(pat, "].type") && strings.HasSuffix(strings.TrimSuffix(pat, ".type"), "="+val.Value+"]")) {
		record("applied")
		if path == "metadata" {
			w.mapping(val, path, pat)
		}
		return true
	}
	if listedNoEffect(w.kind, path) != "" {
		for range countFields(val) + 1 {
			record("listed")
		}
		return false
	}
	if w.reported(path) {
		for range countFields(val) + 1 {
			record("reported")
		}
		return true
	}
	if w.l.applied[key] {
		record("applied")
		w.children(val, path, pat)
		return true
	}
	if w.l.tries[key] >= maxTries && w.in.corpus != "testdata" {
		record("")
		w.children(val, path, pat)
		return false
	}
	// Take it out.
	saved := slices.Clone(parent.Content)
	parent.Content = slices.Delete(parent.Content, i, i+width)
	changed := w.changes()
	parent.Content = saved
	// Its value may be the default: it is applied if something under it
	// is, or (a scalar) if another value changes the output.
	w.key = key
	if changed || w.children(val, path, pat) || (val.Kind == yaml.ScalarNode && w.mutated(val, path)) {
		w.l.applied[key] = true
		record("applied")
		if changed {
			w.children(val, path, pat)
		}
		return true
	}
	w.l.tries[key]++
	record("")
	return false
}

func (w *acctWalk) children(val *yaml.Node, path, pat string) bool {
	switch val.Kind {
	case yaml.MappingNode:
		return w.mapping(val, path, pat)
	case yaml.SequenceNode:
		return w.sequence(val, path, pat)
	}
	return false
}

// mutated reports whether another value of the scalar changes the output.
// A value the API server's name rules refuse (GWP113 at the field: "" for
// a reference's name) changes it only by leaving the object out, which
// says nothing of whether the field is read: that value does not count.
func (w *acctWalk) mutated(n *yaml.Node, path string) bool {
	old, oldTag, oldStyle := n.Value, n.Tag, n.Style
	if len(w.l.values[w.key]) > 3 {
		w.l.values[w.key] = w.l.values[w.key][:3]
	}
	defer func() { n.Value, n.Tag, n.Style = old, oldTag, oldStyle }()
	var alts []string
	short := n.ShortTag()
	switch short {
	case "!!bool":
		if old == "true" {
			alts = []string{"false"}
		} else {
			alts = []string{"true"}
		}
	case "!!int":
		v, _ := strconv.Atoi(old)
		alts = []string{strconv.Itoa(v + 1), "0"}
	case "!!null":
		return false
	default:
		alts = append(slices.DeleteFunc(slices.Clone(w.l.values[w.key]), func(v string) bool { return v == old }), old+"x", "")
	}
	for _, a := range alts {
		n.Value = a
		// Another value of the same type: a boolean or a number given
		// as a string changes the output only by being refused (the
		// decoders are typed, as the API server is), which says nothing
		// of whether the field is read.
		n.Tag, n.Style = "!!str", yaml.DoubleQuotedStyle
		if short == "!!bool" || short == "!!int" {
			n.Tag, n.Style = oldTag, oldStyle
		}
		v, changed := w.in.views(w.dc.all(w.doc), w.base)
		if changed && !slices.ContainsFunc(v.keys, func(k diagKey) bool {
			return k.code == model.LintInvalidName.Code && k.field == path && sameObject(k.object, w.ref)
		}) {
			return true
		}
	}
	return false
}

// reported reports whether a finding that accounts for a field is at
// the path or above it.
func (w *acctWalk) reported(path string) bool {
	for _, k := range w.base.keys {
		if !(slices.Contains(reportCodes, k.code) || k.sev == diag.Error) || !sameObject(k.object, w.ref) {
			continue
		}
		if k.code == model.LintInvalidName.Code {
			return true // a name the API server refuses leaves the whole object out
		}
		if k.field == "" || k.field == path || strings.HasPrefix(path, k.field+".") || strings.HasPrefix(path, k.field+"[") {
			return true
		}
	}
	return false
}

// sameObject compares a finding's object (Kind/ns/name, Kind/name) with
// the walked object's ("Kind ns/name").
func sameObject(diagObj, ref string) bool {
	kind, nn, _ := strings.Cut(ref, " ")
	ns, name, _ := strings.Cut(nn, "/")
	if diagObj == kind+"/"+ns+"/"+name {
		return true
	}
	return (ns == "" || ns == "default") && (diagObj == kind+"/"+name || diagObj == kind+"/default/"+name)
}

// collectValues records the distinct string values of every field
// pattern under n (at most four each).
func collectValues(values map[string][]string, pat string, n *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := pat + n.Content[i].Value
			if !strings.HasSuffix(pat, " ") {
				p = pat + "." + n.Content[i].Value
			}
			collectValues(values, p, n.Content[i+1])
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			seg := "[*]"
			if t, ok := manifest.Scalar(firstOf(manifest.Field(e, "type"))); ok && e.Kind == yaml.MappingNode {
				seg = "[type=" + t + "]"
			}
			collectValues(values, pat+seg, e)
		}
	case yaml.ScalarNode:
		if n.ShortTag() == "!!str" && len(values[pat]) < 4 && !slices.Contains(values[pat], n.Value) {
			values[pat] = append(values[pat], n.Value)
		}
	}
}

func countFields(n *yaml.Node) int {
	c := 0
	switch n.Kind {
	case yaml.MappingNode:
		for i := 1; i < len(n.Content); i += 2 {
			c += 1 + countFields(n.Content[i])
		}
	case yaml.SequenceNode:
		for _, e := range n.Content {
			c += 1 + countFields(e)
		}
	}
	return c
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

func normalize(path string) string { return indexRE.ReplaceAllString(path, "[*]") }

func listedNoEffect(kind, path string) string {
	for _, e := range noEffect {
		if e.kind != "*" && e.kind != kind {
			continue
		}
		if matchPattern(e.path, normalize(path)) {
			return e.reason
		}
	}
	return ""
}

// matchPattern matches a normalized path against a pattern ("*" any one
// key); the pattern matches the field and everything under it.
func matchPattern(pattern, path string) bool {
	if pattern == path || strings.HasPrefix(path, pattern+".") || strings.HasPrefix(path, pattern+"[") {
		return true
	}
	if !strings.Contains(pattern, "*") {
		return false
	}
	re := "^" + strings.ReplaceAll(strings.ReplaceAll(regexp.QuoteMeta(pattern), `\[\*\]`, `\[\d+\]|\[\*\]`), `\*`, `[^.\[]+`) + `($|[.\[])`
	ok, _ := regexp.MatchString(re, path)
	return ok
}

// readDocs splits a file into its document nodes.
func readDocs(path string) ([]*yaml.Node, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		docs = append(docs, &doc)
	}
	return docs, nil
}

// accountingInputs are every conformance corpus's cases and gwpol's own
// fixtures.
func accountingInputs(t *testing.T) []*acctInput {
	t.Helper()
	var out []*acctInput
	for _, pat := range []string{filepath.Join(conformanceDir, "*"), filepath.Join(moreDir, "*")} {
		dirs, _ := filepath.Glob(pat)
		for _, dir := range dirs {
			_, cfg, _, _, err := readCase(dir)
			if err != nil {
				continue
			}
			file := filepath.Join(dir, "input.yaml")
			docs, err := readDocs(file)
			if err != nil {
				continue
			}
			n := 0
			for _, d := range docs {
				if len(d.Content) > 0 && d.Content[0].Kind == yaml.MappingNode {
					n++
					setTimestamp(d.Content[0], time.Time{}.Add(time.Duration(n)*time.Second).UTC().Format(time.RFC3339))
				}
			}
			out = append(out, &acctInput{corpus: "kgateway", name: filepath.Base(dir), file: file, docs: docs, cfg: cfg, target: "kgateway"})
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(egConformanceDir, "*"))
	for _, dir := range dirs {
		file := filepath.Join(dir, "input.yaml")
		docs, err := readDocs(file)
		if err != nil {
			continue
		}
		out = append(out, &acctInput{corpus: "envoygateway", name: filepath.Base(dir), file: file, docs: docs, cfg: egCaseConfig(t, dir), target: "envoygateway"})
	}
	dirs, _ = filepath.Glob(filepath.Join(hapticConformanceDir, "*"))
	for _, dir := range dirs {
		var cs hapticCase
		if err := readJSONFile(filepath.Join(dir, "case.json"), &cs); err != nil {
			continue
		}
		file := filepath.Join(dir, "input.yaml")
		docs, err := readDocs(file)
		if err != nil {
			continue
		}
		in := &acctInput{corpus: "haptic", name: filepath.Base(dir), file: file, docs: docs, skip: map[int]bool{}, target: inferredTarget,
			cfg: &Config{Namespace: "default", ControllerName: "haproxy-haptic.org/controller",
				Settings: map[string]any{"haptic": hapticConfig(cs.ChartValues)}}}
		// Without the routepolicies watch HAPTIC sees no HAProxyRoutePolicy.
		if !slices.Contains(cs.Requires, "routepolicies") {
			for i, d := range docs {
				if k, _ := objectKind(d.Content[0]); len(d.Content) > 0 && k == "HAProxyRoutePolicy" {
					in.skip[i] = true
				}
			}
		}
		out = append(out, in)
	}
	dirs, _ = filepath.Glob(filepath.Join(wso2CasesDir, "*"))
	versions := map[string]*pipeline.Versions{}
	for _, dir := range dirs {
		var c wso2Case
		if err := readJSONFile(filepath.Join(dir, "case.json"), &c); err != nil {
			continue
		}
		cfg := &Config{Namespace: "default", PolicyDefinitions: filepath.Join(dir, c.Definitions), EngineManifest: filepath.Join(dir, c.EngineManifest)}
		key := filepath.Clean(cfg.PolicyDefinitions) + " " + filepath.Clean(cfg.EngineManifest)
		v, ok := versions[key]
		if !ok {
			var err error
			if v, err = families.LoadVersions(cfg); err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			versions[key] = v
		}
		file := filepath.Join(dir, "input.yaml")
		docs, err := readDocs(file)
		if err != nil {
			continue
		}
		out = append(out, &acctInput{corpus: "wso2", name: filepath.Base(dir), file: file, docs: docs, cfg: cfg, versions: v, target: inferredTarget})
	}
	var files []string
	for _, pat := range []string{"render/*/*/input.yaml", "render/*/input.yaml", "explain/*/input.yaml", "explain/*.yaml", "examples/*.yaml",
		"examples-envoygateway/*.yaml", "haptic/*/input.yaml"} {
		m, _ := filepath.Glob(filepath.Join("../../testdata", pat))
		files = append(files, m...)
	}
	baseDocs, err := readDocs("../../testdata/base/platform.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		docs, err := readDocs(file)
		if err != nil {
			t.Fatal(err)
		}
		// The one-feature fixtures are objects over the shared base.
		if feature, _ := filepath.Match("../../testdata/*/*/*/input.yaml", file); feature || (strings.HasPrefix(file, "../../testdata/explain/") && strings.HasSuffix(file, "/input.yaml")) {
			docs = append(slices.Clone(baseDocs), docs...)
		}
		out = append(out, &acctInput{corpus: "testdata", name: strings.TrimPrefix(file, "../../testdata/"), file: file, docs: docs,
			cfg: &Config{Namespace: "default"}, target: inferredTarget})
	}
	return out
}

// TestConformanceFieldAccounting walks every field of every object of
// every corpus and fixture and fails on a field that is neither applied,
// reported nor listed as having no effect.
func TestConformanceFieldAccounting(t *testing.T) {
	if testing.Short() {
		t.Skip("walks every field of every corpus; skipped with -short")
	}
	// The gaps list is what the corpora and the fixtures leave unaccounted
	// together: a field applied only in a corpus is listed nowhere, so
	// without the corpora the list cannot be judged.
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("conformance cases not found at %s (they live in ../shared beside the repository); skipping", conformanceDir)
	}
	ins := accountingInputs(t)
	if only := os.Getenv("GWPOL_ACCOUNTING_ONLY"); only != "" {
		ins = slices.DeleteFunc(ins, func(in *acctInput) bool { return !strings.Contains(in.corpus+"/"+in.name, only) })
	}
	l := &ledger{applied: map[string]bool{}, tries: map[string]int{}, values: map[string][]string{}}
	for _, in := range ins {
		for i, doc := range in.docs {
			if !in.skip[i] && len(doc.Content) > 0 && doc.Content[0].Kind == yaml.MappingNode {
				kind, _ := objectKind(doc.Content[0])
				collectValues(l.values, kind+" ", doc.Content[0])
			}
		}
	}
	start := time.Now()
	for _, in := range ins {
		in.account(l)
	}
	counts := map[string]int{}
	byPattern := map[string][]string{}
	for _, o := range l.occ {
		how := o.how
		if how == "" && l.applied[o.pattern] {
			how = "applied"
		}
		if how == "" {
			byPattern[o.pattern] = append(byPattern[o.pattern], o.where)
		}
		counts[how]++
	}
	// The gaps known so far, each with its reason: an unaccounted field
	// not listed fails, and so does a listed one now accounted for (the
	// list only shrinks).
	gaps := accountingGaps(t)
	for _, pat := range slices.Sorted(maps.Keys(byPattern)) {
		ws := byPattern[pat]
		if _, ok := gaps[pat]; !ok {
			t.Errorf("%s: set, but nothing applies or reports it (%d times; first in %s)", pat, len(ws), ws[0])
		}
	}
	if len(ins) > 0 && os.Getenv("GWPOL_ACCOUNTING_ONLY") == "" {
		for _, pat := range slices.Sorted(maps.Keys(gaps)) {
			if _, ok := byPattern[pat]; !ok {
				t.Errorf("%s is accounted for now; remove it from %s", pat, accountingGapsFile)
			}
		}
	}
	msg := fmt.Sprintf("field accounting: %d objects, %d fields, %d unaccounted", l.objects, len(l.occ), counts[""])
	if len(gaps) > 0 {
		msg += fmt.Sprintf(" (%d field patterns, listed with their reasons in %s)", len(byPattern), strings.TrimPrefix(accountingGapsFile, "../../"))
	}
	t.Logf("%s (%d applied, %d reported, %d listed as having no effect; %d field patterns shown applied; %v)", msg, counts["applied"], counts["reported"],
		counts["listed"], len(l.applied), time.Since(start).Round(time.Second))
	fmt.Println(msg)
}
