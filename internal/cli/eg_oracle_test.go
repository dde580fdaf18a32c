package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/status"
)

// TestEnvoyGatewayOracle is a differential test against Envoy Gateway's own
// translator: it takes every public Envoy Gateway case's input, normalises
// it to what the offline translator loads (egNormalise), mutates it
// (egMutants: objects dropped, target references, listeners, parentRefs
// and backendRefs changed, every field of a policy's spec removed, emptied
// or changed, objects moved between namespaces, policies duplicated), and
// hands each mutant to both `egctl x translate --to gateway-api` and
// gwpol's status, comparing what tools/eg_case.py compares: per policy
// and ancestor, per route and parent, each condition's status and reason.
// An input egctl refuses (its CRD validation) must be one gwpol refuses
// too (GWP101, GWP113, …).
//
// It runs only when GWPOL_EGCTL names an egctl binary (v1.9.0, the pin),
// so CI is unaffected; it prints
//
//	eg oracle: policies N/M mutants agree, routes N/M, refusals N/M …; messages N/M
//
// (messages: the mutants all of whose condition messages agree, where
// the condition's status and reason do) and the disagreements clustered
// by what differs. It fails on nothing:
// it is a measuring instrument. Settings (environment):
//
//	GWPOL_EGCTL          the egctl binary
//	GWPOL_EGCTL_MUTANTS  mutants per case (default 3), besides the case itself
//	GWPOL_EGCTL_SEED     the sampling seed (default 1)
//	GWPOL_EGCTL_CASES    a regular expression cases' names must match
//	GWPOL_EGCTL_JOBS     egctl processes at once (default 2)
//	GWPOL_EGCTL_CACHE    where egctl's answers are kept, by input and binary
//	                     (default $TMPDIR/gwpol-eg-oracle); "off" for none
//	GWPOL_EGCTL_OUT      a directory for the full report and each disagreeing
//	                     mutant's input
//	GWPOL_EGCTL_EXTRA    1: sample only the shapes egExtraMutants makes (a
//	                     Secret's or ConfigMap's key removed or emptied, a
//	                     Service port's appProtocol, numbers at a
//	                     percentage's edges, a mirror's share)
//	GWPOL_EGCTL_FIELDS   1: sample only the shapes egFieldMutants makes
//	                     (every field of every Envoy Gateway kind, route
//	                     rule and listener, walked from the Go API types
//	                     with the CRD schema's bounds: set, at its edges,
//	                     references missing or across namespaces; a
//	                     policy's attachment varied and stacked at each
//	                     level of its target's tree)
//	GWPOL_EGCTL_XDS      1: compare render too — the routes, their clusters
//	                     and the HTTP filter chains gwpol renders with
//	                     --target envoygateway against egctl's --to xds
//	                     (what TestConformanceEnvoyGatewayXDS compares),
//	                     on the inputs both admit whose case egctl does
//	                     not mishandle (egMishandled); GWPOL_EGCTL must
//	                     then answer with "xds" beside the statuses
//	                     (egctl's --to gateway-api,xds)
//	GWPOL_EGCTL_SERVE    1: GWPOL_EGCTL is not egctl but a command answering
//	                     as it would for many inputs in one process (input
//	                     paths on stdin, one a line; one JSON line each:
//	                     {"exit":N,"stdout":…,"stderr":…}), which saves
//	                     loading the CRD validator once per input
func TestEnvoyGatewayOracle(t *testing.T) {
	bin := os.Getenv("GWPOL_EGCTL")
	if bin == "" {
		t.Skip("GWPOL_EGCTL is not set: no egctl to compare with (see the test's comment)")
	}
	dirs, _ := filepath.Glob(filepath.Join(egConformanceDir, "*"))
	if len(dirs) == 0 {
		t.Skipf("Envoy Gateway cases not found at %s; skipping", egConformanceDir)
	}
	perCase := egEnvInt(t, "GWPOL_EGCTL_MUTANTS", 3)
	seed := egEnvInt(t, "GWPOL_EGCTL_SEED", 1)
	jobs := max(1, egEnvInt(t, "GWPOL_EGCTL_JOBS", 2))
	var only *regexp.Regexp
	if s := os.Getenv("GWPOL_EGCTL_CASES"); s != "" {
		only = regexp.MustCompile(s)
	}
	oracle := newEgctlOracle(t, bin)
	xdsOn := os.Getenv("GWPOL_EGCTL_XDS") == "1"
	outDir := os.Getenv("GWPOL_EGCTL_OUT")
	if outDir != "" {
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// The runs: each case as normalised, then its mutants.
	var runs []*egRun
	skipped := map[string]int{}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		if only != nil && !only.MatchString(name) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		docs, err := egDecode(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		base, why := egNormalise(docs)
		if why != "" {
			skipped[why]++
			continue
		}
		ms := append([]egMutant{{Class: "base", Label: "the case as loaded by egctl", apply: func(d []egDoc) []egDoc { return d }}},
			egPick(egOracleMutants(base), perCase, uint64(seed), name)...)
		for _, m := range ms {
			docs := m.apply(egCloneDocs(base))
			input, err := egEncode(docs)
			if err != nil {
				t.Fatalf("%s: %s: %v", name, m.Label, err)
			}
			// gwpol is given the Namespaces egctl adds (load.go:
			// requiredNamespaceMap), so that both know the same of them
			own, err := egEncode(egWithNamespaces(docs))
			if err != nil {
				t.Fatalf("%s: %s: %v", name, m.Label, err)
			}
			runs = append(runs, &egRun{Case: name, Mutant: m, Input: input, GwpolInput: own})
		}
	}
	if len(skipped) > 0 {
		t.Logf("cases egctl cannot load as gwpol does, not compared: %v", skipped)
	}

	// egctl's answers, jobs at a time (cached by input and binary).
	var wg sync.WaitGroup
	next := make(chan *egRun)
	for range jobs {
		wg.Go(func() {
			w := oracle.worker(t)
			defer w.close()
			for r := range next {
				r.Eg = w.run(t, r.Input)
			}
		})
	}
	for _, r := range runs {
		next <- r
	}
	close(next)
	wg.Wait()

	// gwpol's, one at a time, and the comparison.
	tmp := t.TempDir()
	var tally egTally
	clusters := map[string]*egCluster{}
	var report bytes.Buffer
	for i, r := range runs {
		if r.Eg.Err != "" {
			tally.errors++
			fmt.Fprintf(&report, "%s [%s] %s: egctl failed: %s\n", r.Case, r.Mutant.Class, r.Mutant.Label, r.Eg.Err)
			continue
		}
		path := filepath.Join(tmp, fmt.Sprintf("m%05d.yaml", i))
		if err := os.WriteFile(path, r.GwpolInput, 0o644); err != nil {
			t.Fatal(err)
		}
		diffs, kinds := egOracleCompare(t, path, r.Eg)
		tally.add(r.Mutant.Class, kinds, diffs)
		if xdsOn && kinds.policies || xdsOn && kinds.routes {
			xd := egOracleXDS(t, path, r.Eg, filepath.Join(egConformanceDir, r.Case), &tally.xds)
			diffs = append(diffs, xd...)
		}
		if len(diffs) == 0 {
			continue
		}
		var saved string
		if outDir != "" {
			saved = filepath.Join(outDir, fmt.Sprintf("%s--%03d.yaml", r.Case, i))
			if err := os.WriteFile(saved, r.Input, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fmt.Fprintf(&report, "%s [%s] %s %s\n", r.Case, r.Mutant.Class, r.Mutant.Label, saved)
		for _, d := range diffs {
			fmt.Fprintf(&report, "  %s\n", d.Line)
			c := clusters[d.Signature+"\x00"+d.Known]
			if c == nil {
				c = &egCluster{Signature: d.Signature, Known: d.Known}
				clusters[d.Signature+"\x00"+d.Known] = c
			}
			c.Count++
			if len(c.Examples) < 3 {
				c.Examples = append(c.Examples, fmt.Sprintf("%s: %s — %s", r.Case, r.Mutant.Label, d.Line))
			}
		}
	}

	// The clusters, largest first.
	cs := slices.Collect(maps.Values(clusters))
	slices.SortFunc(cs, func(a, b *egCluster) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Signature, b.Signature)
	})
	var sum bytes.Buffer
	for _, c := range cs {
		known := ""
		if c.Known != "" {
			known = " (known: " + c.Known + ")"
		}
		fmt.Fprintf(&sum, "%5d  %s%s\n", c.Count, c.Signature, known)
		for _, e := range c.Examples {
			fmt.Fprintf(&sum, "         %s\n", e)
		}
	}
	t.Logf("disagreements by cluster (differences, largest first):\n%s", sum.String())
	t.Logf("by mutation class:\n%s", tally.byClass())
	if outDir != "" {
		_ = os.WriteFile(filepath.Join(outDir, "clusters.txt"), sum.Bytes(), 0o644)
		_ = os.WriteFile(filepath.Join(outDir, "report.txt"), report.Bytes(), 0o644)
	}
	line := tally.line()
	if xdsOn {
		line += "; " + tally.xds.line()
	}
	t.Log(line)
	fmt.Println(line)
}

// egRun is one input handed to both controllers' views.
type egRun struct {
	Case   string
	Mutant egMutant
	Input  []byte // what egctl is given
	// GwpolInput is Input with the Namespaces egctl adds when it loads it
	GwpolInput []byte
	Eg         egctlResult
}

// egCluster is a group of differences with one signature.
type egCluster struct {
	Signature, Known string
	Count            int
	Examples         []string
}

func egEnvInt(t *testing.T, key string, def int) int {
	s := os.Getenv(key)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s: %v", key, err)
	}
	return n
}

// egctlResult is what egctl made of one input: refused (its CRD
// validation, with the message), failed otherwise (Err), or the statuses
// it wrote, in expected.json's shape.
type egctlResult struct {
	Refused  string
	Err      string
	Policies map[string][]egEntry
	Routes   map[string][]egEntry
	// Messages are the conditions' messages: "object@ancestor@type" → message.
	Messages map[string]string
	// XDS is the "xds" egctl wrote beside the statuses (a serving command
	// answering for --to gateway-api,xds), nil when it wrote none.
	XDS json.RawMessage
}

// egctlOracle runs egctl, keeping its answers by input and binary.
type egctlOracle struct {
	bin, cache, binKey string
	serve              bool
}

// egctlWorker runs inputs one at a time: egctl once each, or one serving
// process (GWPOL_EGCTL_SERVE) for all.
type egctlWorker struct {
	*egctlOracle
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func (o *egctlOracle) worker(t *testing.T) *egctlWorker {
	w := &egctlWorker{egctlOracle: o}
	if !o.serve {
		return w
	}
	w.cmd = exec.Command(o.bin)
	w.cmd.Stderr = os.Stderr
	in, err := w.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.in, w.out = in, bufio.NewReaderSize(out, 1<<20)
	return w
}

func (w *egctlWorker) close() {
	if w.cmd != nil {
		w.in.Close()
		_ = w.cmd.Wait()
	}
}

func newEgctlOracle(t *testing.T, bin string) *egctlOracle {
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatalf("GWPOL_EGCTL: %v", err)
	}
	sum := sha256.Sum256(b)
	o := &egctlOracle{bin: bin, binKey: hex.EncodeToString(sum[:8]), serve: os.Getenv("GWPOL_EGCTL_SERVE") == "1"}
	switch c := os.Getenv("GWPOL_EGCTL_CACHE"); c {
	case "off":
	case "":
		o.cache = filepath.Join(os.TempDir(), "gwpol-eg-oracle")
	default:
		o.cache = c
	}
	if o.cache != "" {
		if err := os.MkdirAll(o.cache, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// egctlRaw is one egctl run as kept: its exit, stdout and stderr.
type egctlRaw struct {
	Exit   int    `json:"exit"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

func (o *egctlWorker) run(t *testing.T, input []byte) egctlResult {
	sum := sha256.Sum256(append([]byte(o.binKey), input...))
	key := hex.EncodeToString(sum[:])
	var raw egctlRaw
	cached := false
	if o.cache != "" {
		if b, err := os.ReadFile(filepath.Join(o.cache, key+".json.gz")); err == nil {
			if zr, err := gzip.NewReader(bytes.NewReader(b)); err == nil {
				if err := json.NewDecoder(zr).Decode(&raw); err == nil {
					cached = true
				}
			}
		}
	}
	if !cached {
		f, err := os.CreateTemp("", "gwpol-eg-oracle-*.yaml")
		if err != nil {
			t.Error(err)
			return egctlResult{Err: err.Error()}
		}
		defer os.Remove(f.Name())
		if _, err := f.Write(input); err != nil {
			t.Error(err)
		}
		f.Close()
		if o.serve {
			if _, err := fmt.Fprintln(o.in, f.Name()); err != nil {
				return egctlResult{Err: err.Error()}
			}
			line, err := o.out.ReadBytes('\n')
			if err != nil {
				return egctlResult{Err: err.Error()}
			}
			if err := json.Unmarshal(line, &raw); err != nil {
				return egctlResult{Err: err.Error()}
			}
			o.keep(key, raw)
			return egctlParse(raw)
		}
		cmd := exec.Command(o.bin, "x", "translate", "--from", "gateway-api", "--to", "gateway-api", "-o", "json", "-f", f.Name())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			raw.Exit = ee.ExitCode()
		case err != nil:
			return egctlResult{Err: err.Error()}
		}
		raw.Stdout, raw.Stderr = stdout.String(), stderr.String()
		o.keep(key, raw)
	}
	return egctlParse(raw)
}

// keep caches one answer.
func (o *egctlOracle) keep(key string, raw egctlRaw) {
	if o.cache == "" {
		return
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_ = json.NewEncoder(zw).Encode(raw)
	_ = zw.Close()
	_ = os.WriteFile(filepath.Join(o.cache, key+".json.gz"), buf.Bytes(), 0o644)
}

// egctlLists maps egctl's output lists to the kinds they hold.
var egctlLists = map[string]string{
	"clientTrafficPolicies": "ClientTrafficPolicy", "backendTrafficPolicies": "BackendTrafficPolicy",
	"securityPolicies": "SecurityPolicy", "envoyExtensionPolicies": "EnvoyExtensionPolicy",
	"backendTLSPolicies": "BackendTLSPolicy",
	"httpRoutes":         "HTTPRoute", "grpcRoutes": "GRPCRoute", "tlsRoutes": "TLSRoute",
	"tcpRoutes": "TCPRoute", "udpRoutes": "UDPRoute",
}

type egctlRef struct {
	Kind        string `json:"kind"`
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	SectionName string `json:"sectionName"`
	Port        int    `json:"port"`
}

// String is the ref as egGot names gwpol's asWritten: kind Gateway when
// unset, the namespace as written (Kind//name without one), #section,
// :port.
func (r egctlRef) String() string {
	kind := egOr(r.Kind, "Gateway")
	s := kind + "/" + r.Namespace + "/" + r.Name
	if r.SectionName != "" {
		s += "#" + r.SectionName
	}
	if r.Port != 0 {
		s += ":" + strconv.Itoa(r.Port)
	}
	return s
}

func egOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

type egctlCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type egctlObject struct {
	Metadata struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
	} `json:"metadata"`
	Status struct {
		Ancestors []struct {
			AncestorRef egctlRef         `json:"ancestorRef"`
			Conditions  []egctlCondition `json:"conditions"`
		} `json:"ancestors"`
		Parents []struct {
			ParentRef  egctlRef         `json:"parentRef"`
			Conditions []egctlCondition `json:"conditions"`
		} `json:"parents"`
	} `json:"status"`
}

func egctlConditions(cs []egctlCondition) map[string][]string {
	out := map[string][]string{}
	for _, c := range cs {
		out[c.Type] = []string{c.Status, c.Reason}
	}
	return out
}

// egctlParse reads one egctl run.
func egctlParse(raw egctlRaw) egctlResult {
	if raw.Exit != 0 {
		msg := strings.TrimSpace(raw.Stderr + raw.Stdout)
		if strings.Contains(msg, "local validation error") {
			return egctlResult{Refused: msg}
		}
		return egctlResult{Err: msg}
	}
	var lists map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw.Stdout), &lists); err != nil {
		return egctlResult{Err: "output: " + err.Error()}
	}
	res := egctlResult{Policies: map[string][]egEntry{}, Routes: map[string][]egEntry{}, Messages: map[string]string{}, XDS: lists["xds"]}
	keep := func(key, anc string, cs []egctlCondition) {
		for _, c := range cs {
			res.Messages[key+"@"+anc+"@"+c.Type] = c.Message
		}
	}
	for list, kind := range egctlLists {
		var objs []egctlObject
		if b, ok := lists[list]; ok {
			if err := json.Unmarshal(b, &objs); err != nil {
				return egctlResult{Err: list + ": " + err.Error()}
			}
		}
		for _, o := range objs {
			ns := egOr(o.Metadata.Namespace, "default")
			key := kind + "/" + ns + "/" + o.Metadata.Name
			if slices.Contains(egRouteKinds, kind) {
				entries := []egEntry{}
				for _, p := range o.Status.Parents {
					entries = append(entries, egEntry{Parent: p.ParentRef.String(), Conditions: egctlConditions(p.Conditions)})
					keep(key, p.ParentRef.String(), p.Conditions)
				}
				res.Routes[key] = entries
				continue
			}
			entries := []egEntry{}
			for _, a := range o.Status.Ancestors {
				entries = append(entries, egEntry{Ancestor: a.AncestorRef.String(), Conditions: egctlConditions(a.Conditions)})
				keep(key, a.AncestorRef.String(), a.Conditions)
			}
			res.Policies[key] = entries
		}
	}
	return res
}

// egOracleConfig is the gwpol config of egctl's translator
// (translate.go, translateGatewayAPIToGatewayAPI): rate limiting, Backends
// and EnvoyPatchPolicy enabled, Lua allowed, not running on the host, no
// SDS secret references; objects without a namespace go to default.
func egOracleConfig(t *testing.T) *Config {
	cfg := &Config{Namespace: "default"}
	setSetting(t, cfg, "envoyGateway.extensionApis.enableLua", true)
	setSetting(t, cfg, "envoyGateway.runningOnHost", false)
	setSetting(t, cfg, "envoyGateway.enableBackend", true)
	setSetting(t, cfg, "envoyGateway.rateLimit.enabled", true)
	setSetting(t, cfg, "envoyGateway.extensionApis.enableSDSSecretRef", false)
	return cfg
}

// egDiff is one difference between egctl and gwpol on one input.
type egDiff struct {
	Line      string // what differs, for the report
	Signature string // what differs, without names, for clustering
	Known     string // why, when it is a known difference
}

// egCompared says which figures an input counts in.
type egCompared struct{ refusal, policies, routes, messages, admitted bool }

// egOracleCompare runs gwpol on the input at path and compares it with
// egctl's result.
func egOracleCompare(t *testing.T, path string, eg egctlResult) ([]egDiff, egCompared) {
	set, err := manifest.Load([]string{path}, manifest.Options{})
	if err != nil {
		return []egDiff{{Line: "gwpol: " + err.Error(), Signature: "gwpol cannot load the input"}}, egCompared{refusal: true}
	}
	c := families.Compile(set, egOracleConfig(t))
	// gwpol refuses what an API server would (admitted), and an unknown
	// field, an error by default (GWP102: kubectl's strict field
	// validation, which egctl's validator applies too)
	refused := !admitted(c) || slices.ContainsFunc(c.Diagnostics(), func(d diag.Diagnostic) bool {
		return d.Code == "GWP102" && d.Severity == diag.Error
	})
	switch {
	case eg.Refused != "" && !refused:
		msg := eg.Refused
		if i := strings.LastIndex(msg, "local validation error: "); i >= 0 {
			msg = msg[i+len("local validation error: "):]
		}
		return egKnown([]egDiff{{Line: "egctl refuses, gwpol admits: " + msg, Signature: "refusal: egctl refuses, gwpol admits: " + egFieldOf(msg)}}), egCompared{refusal: true}
	case eg.Refused != "":
		return nil, egCompared{refusal: true}
	case refused:
		var why []string
		for _, d := range c.Diagnostics() {
			if d.Severity == diag.Error {
				why = append(why, d.Code+" "+d.Object.Kind+" "+d.Field)
			}
		}
		return egKnown([]egDiff{{Line: fmt.Sprintf("gwpol refuses (%s), egctl admits", strings.Join(why, "; ")), Signature: "refusal: gwpol refuses, egctl admits"}}), egCompared{refusal: true}
	}
	rep := status.Compute(c.Result, status.Options{})
	gotP, gotR := egGot(rep, true)
	var diffs []egDiff
	diffs = append(diffs, egStatusDiffs(eg.Policies, gotP, "policy", eg.Messages)...)
	diffs = append(diffs, egStatusDiffs(eg.Routes, gotR, "route", eg.Messages)...)
	msgs := egMessageDiffs(eg, gotP, gotR, egGotMessages(rep, true))
	return egKnownConsequences(egKnown(append(diffs, msgs...)), eg.Messages), egCompared{refusal: true, policies: len(eg.Policies) > 0 || len(gotP) > 0, routes: len(eg.Routes) > 0 || len(gotR) > 0,
		messages: len(eg.Messages) > 0, admitted: true}
}

// egNames are the words of a message that name an object or number it,
// masked in a message difference's signature so that one wording
// clusters across mutants.
var egNames = regexp.MustCompile(`[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]([-a-z0-9.]*[a-z0-9])?|\d+`)

// egMessageDiffs compares each condition message egctl writes with
// gwpol's where the condition agrees in status and reason (a condition
// that does not is a status difference already).
func egMessageDiffs(eg egctlResult, gotP, gotR map[string]map[string]map[string][]string, got map[string]map[string]map[string]map[string]string) []egDiff {
	var out []egDiff
	for _, sec := range []struct {
		label string
		want  map[string][]egEntry
		conds map[string]map[string]map[string][]string
	}{{"policy", eg.Policies, gotP}, {"route", eg.Routes, gotR}} {
		for _, key := range slices.Sorted(maps.Keys(sec.want)) {
			for _, e := range sec.want[key] {
				anc := e.Ancestor + e.Parent
				for _, ct := range slices.Sorted(maps.Keys(e.Conditions)) {
					if !slices.Equal(e.Conditions[ct], sec.conds[key][anc][ct]) {
						continue
					}
					w, g := eg.Messages[key+"@"+anc+"@"+ct], got[sec.label][key][anc][ct]
					if w == g {
						continue
					}
					kind, _, _ := strings.Cut(key, "/")
					out = append(out, egDiff{
						Line:      fmt.Sprintf("message %s %s @ %s %s: egctl %q gwpol %q", sec.label, key, anc, ct, w, g),
						Signature: fmt.Sprintf("message %s %s %s: egctl %q", sec.label, kind, ct, egNames.ReplaceAllString(w, "…")),
					})
				}
			}
		}
	}
	return out
}

var egFieldPath = regexp.MustCompile(`spec(\.[A-Za-z0-9\[\]]+)*`)

// egFieldOf is the field a refusal names, list indexes dropped, for
// clustering.
func egFieldOf(msg string) string {
	kind := ""
	if i := strings.Index(msg, "."); i > 0 && i < 40 {
		kind = msg[:i]
	}
	f := egFieldPath.FindString(msg)
	f = regexp.MustCompile(`\[\d+\]`).ReplaceAllString(f, "[]")
	return strings.TrimSpace(kind + " " + f)
}

// egStatusDiffs compares egctl's statuses (want) with gwpol's (got), as
// egCompare does, one difference per condition type.
func egStatusDiffs(want map[string][]egEntry, got map[string]map[string]map[string][]string, label string, messages map[string]string) []egDiff {
	var out []egDiff
	kindOf := func(key string) string { k, _, _ := strings.Cut(key, "/"); return k }
	for _, key := range slices.Sorted(maps.Keys(want)) {
		expected := map[string]bool{}
		for _, e := range want[key] {
			anc := e.Ancestor + e.Parent
			expected[anc] = true
			have, ok := got[key][anc]
			if !ok {
				out = append(out, egDiff{
					Line:      fmt.Sprintf("%s %s @ %s: egctl %v, gwpol has no such %s", label, key, anc, e.Conditions, egAncestorWord(label)),
					Signature: fmt.Sprintf("%s %s: gwpol lacks the %s egctl reports (%s)", label, kindOf(key), egAncestorWord(label), egCondSummary(e.Conditions)),
				})
				continue
			}
			for _, ct := range slices.Sorted(maps.Keys(egUnion(e.Conditions, have))) {
				w, g := e.Conditions[ct], have[ct]
				if slices.Equal(w, g) {
					continue
				}
				out = append(out, egDiff{
					Line:      fmt.Sprintf("%s %s @ %s: %s egctl %s gwpol %s (egctl: %q)", label, key, anc, ct, egCond(w), egCond(g), messages[key+"@"+anc+"@"+ct]),
					Signature: fmt.Sprintf("%s %s %s: egctl %s, gwpol %s", label, kindOf(key), ct, egCond(w), egCond(g)),
				})
			}
		}
		for _, anc := range slices.Sorted(maps.Keys(got[key])) {
			if !expected[anc] {
				out = append(out, egDiff{
					Line:      fmt.Sprintf("%s %s @ %s: gwpol %v, egctl has no such %s", label, key, anc, got[key][anc], egAncestorWord(label)),
					Signature: fmt.Sprintf("%s %s: gwpol reports a %s egctl does not (%s)", label, kindOf(key), egAncestorWord(label), egCondSummary(got[key][anc])),
				})
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[key]; !ok && len(got[key]) > 0 {
			out = append(out, egDiff{
				Line:      fmt.Sprintf("%s %s: gwpol reports it, egctl has no such object", label, key),
				Signature: fmt.Sprintf("%s %s: gwpol reports an object egctl does not hold", label, kindOf(key)),
			})
		}
	}
	return out
}

func egAncestorWord(label string) string {
	if label == "route" {
		return "parent"
	}
	return "ancestor"
}

func egUnion(a, b map[string][]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func egCond(c []string) string {
	if c == nil {
		return "-"
	}
	return strings.Join(c, "/")
}

func egCondSummary(cs map[string][]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(cs)) {
		parts = append(parts, k+" "+egCond(cs[k]))
	}
	return strings.Join(parts, ", ")
}

// egKnownDifferences are differences where gwpol is right and egctl's
// answer is an artifact of offline translation: a pattern of the
// difference's signature or line, and why.
var egKnownDifferences = []struct {
	pattern *regexp.Regexp
	reason  string
}{
	{regexp.MustCompile(`Wasm: wasm cache is not initialized`), "egctl translates without a Wasm module cache (translate.go builds its Translator with no WasmCache), so every Wasm extension it meets is Invalid; the translator test uses a mock cache and a cluster the real one — gwpol never downloads and judges the rest"},
	{regexp.MustCompile(`OIDC: Get \\?"https?://[^"\\]*/.well-known/openid-configuration`), "egctl fetches an OIDC provider's discovery document when the policy gives no endpoints (securitypolicy.go: fetchEndpointsFromIssuer) and is offline here; gwpol never fetches"},
	{regexp.MustCompile(`GWP110 SecurityPolicy spec\.oidc\.provider\.issuer`), "not an artifact but the CRDs' version: gwpol validates against the CRDs of its Envoy Gateway module, v1.9.1, whose OIDC provider issuer has a pattern (^https://…); v1.9.0's, which egctl v1.9.0 validates with, has minLength 1 only"},
	{regexp.MustCompile(`OIDC: HMAC secret /envoy-oidc-hmac not found`), "egctl's translator has no ControllerNamespace, so it looks for the HMAC Secret Envoy Gateway creates at install (envoy-gateway-system/envoy-oidc-hmac) in the namespace \"\""},
}

// egKnown marks the known differences.
func egKnown(diffs []egDiff) []egDiff {
	for i := range diffs {
		for _, k := range egKnownDifferences {
			if k.pattern.MatchString(diffs[i].Signature) || k.pattern.MatchString(diffs[i].Line) {
				diffs[i].Known = k.reason
				break
			}
		}
	}
	return diffs
}

// egKnownConsequences marks, besides, the differences on a policy of a
// kind on which egctl wrote a known artifact's message: what follows from
// it (a route policy refused for its Wasm code merges into nothing, so
// the Gateway's policy is Overridden rather than Merged) is the same
// artifact.
func egKnownConsequences(diffs []egDiff, messages map[string]string) []egDiff {
	why := map[string]string{} // policy kind → reason
	for key, msg := range messages {
		kind, _, _ := strings.Cut(key, "/")
		for _, k := range egKnownDifferences {
			if k.pattern.MatchString(msg) {
				why[kind] = k.reason
			}
		}
	}
	for i, d := range diffs {
		if d.Known != "" || !strings.HasPrefix(d.Signature, "policy ") {
			continue
		}
		kind, _, _ := strings.Cut(strings.TrimPrefix(d.Signature, "policy "), " ")
		if r, ok := why[strings.TrimSuffix(kind, ":")]; ok {
			diffs[i].Known = "a consequence: " + r
		}
	}
	return diffs
}

// egTally counts mutants per figure and per class.
type egTally struct {
	errors                                                 int
	policies, policiesAgree, routes, routesAgree, refusals int
	refusalsAgree, known                                   int
	// messages, messagesAgree: the mutants whose condition messages
	// are compared (egMessageDiffs), apart from the status figures
	messages, messagesAgree int
	class                   map[string]*[3]int // agree, all, admitted by both
	// xds: the render comparison (GWPOL_EGCTL_XDS=1)
	xds egXDSTally
}

func (t *egTally) add(class string, k egCompared, diffs []egDiff) {
	var pbad, rbad, refbad, mbad, unknown, statusDiffs bool
	for _, d := range diffs {
		message := strings.HasPrefix(d.Signature, "message")
		statusDiffs = statusDiffs || !message
		if d.Known != "" {
			continue
		}
		if message {
			mbad = true
			continue
		}
		unknown = true
		switch {
		case strings.HasPrefix(d.Signature, "refusal") || strings.HasPrefix(d.Signature, "gwpol cannot"):
			refbad = true
		case strings.HasPrefix(d.Signature, "route"):
			rbad = true
		default:
			pbad = true
		}
	}
	if statusDiffs && !unknown {
		t.known++
	}
	count := func(on, bad bool, n, agree *int) {
		if on {
			*n++
			if !bad {
				*agree++
			}
		}
	}
	count(k.refusal, refbad, &t.refusals, &t.refusalsAgree)
	count(k.policies, pbad, &t.policies, &t.policiesAgree)
	count(k.routes, rbad, &t.routes, &t.routesAgree)
	count(k.messages, mbad, &t.messages, &t.messagesAgree)
	if t.class == nil {
		t.class = map[string]*[3]int{}
	}
	if t.class[class] == nil {
		t.class[class] = &[3]int{}
	}
	t.class[class][1]++
	if k.admitted {
		t.class[class][2]++
	}
	if !unknown {
		t.class[class][0]++
	}
}

func (t *egTally) line() string {
	return fmt.Sprintf("eg oracle: policies %d/%d mutants agree, routes %d/%d, refusals %d/%d (%d agree only through known differences, %d egctl failures); messages %d/%d",
		t.policiesAgree, t.policies, t.routesAgree, t.routes, t.refusalsAgree, t.refusals, t.known, t.errors, t.messagesAgree, t.messages)
}

func (t *egTally) byClass() string {
	var b strings.Builder
	for _, c := range slices.Sorted(maps.Keys(t.class)) {
		fmt.Fprintf(&b, "  %-15s %d/%d agree (%d admitted by both)\n", c, t.class[c][0], t.class[c][1], t.class[c][2])
	}
	return b.String()
}
