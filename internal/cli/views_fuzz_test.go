package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gwpol/gwpol/internal/diff"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"go.yaml.in/yaml/v3"
)

// FuzzViews runs every view and format no other target reaches on
// fuzzed inputs — explain on each target (gateway, listener, route,
// rule, policy, Service, Backend; text and JSON), graph (DOT, Mermaid;
// whole and scoped by Gateway, route and policy), status (YAML, JSON,
// summary; whole and per Gateway and route) and lint (text, JSON, SARIF,
// GitHub) — under four deployment configurations (each family's
// settings, WSO2's gatewayClassNames among them), and checks what
// gwpol promises of output written from untrusted input (#31): no
// panic, no hang; the same objects in another document order give the
// same bytes in every view; no raw control character in any output;
// JSON and SARIF valid, DOT strings quoted, Mermaid labels closed,
// GitHub workflow commands one per line and well formed; no Secret data
// value anywhere.
func FuzzViews(f *testing.F) {
	for _, s := range viewSeeds(f) {
		f.Add(s)
	}
	cfgs, versions := viewConfigs(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := manifest.Parse("fuzz.yaml", data, manifest.Limits{MaxDepth: 32, MaxAliasNodes: 1000})
		if err != nil {
			return
		}
		defer watchdog(data)()
		i := len(data) % len(cfgs)
		cfg, v := cfgs[i], versions[i]
		first, c := runViews(objs, cfg, v, false)
		// diff from nothing: every target's every field is added
		none := families.CompileWith(&manifest.Set{}, cfg, v)
		addDiffViews(first, "diff from nothing", diff.Compare(none.Result, c.Result, cfg.Guardrails...))
		// diff from the input without its last object: what that object
		// changes, field by field
		if less, err := manifest.Parse("fuzz.yaml", data, manifest.Limits{MaxDepth: 32, MaxAliasNodes: 1000}); err == nil && len(less) > 0 {
			lc := families.CompileWith(&manifest.Set{Objects: less[:len(less)-1]}, cfg, v)
			addDiffViews(first, "diff from all but the last object", diff.Compare(lc.Result, c.Result, cfg.Guardrails...))
		}
		checkViews(t, first, secretTokens(objs, data))
		if !hasOrderedObjects(objs) {
			again, err := manifest.Parse("fuzz.yaml", data, manifest.Limits{MaxDepth: 32, MaxAliasNodes: 1000})
			if err != nil {
				t.Fatalf("second parse: %v", err)
			}
			second, c2 := runViews(again, cfg, v, true)
			addDiffViews(second, "diff from nothing", diff.Compare(none.Result, c2.Result, cfg.Guardrails...))
			for _, k := range []string{"diff from all but the last object text", "diff from all but the last object json"} {
				if o, ok := first[k]; ok { // the same input: not run again
					second[k] = o
				}
			}
			compareViews(t, first, second)
			// and diff sees no change between the two orders
			if rep := diff.Compare(c.Result, c2.Result, cfg.Guardrails...); len(rep.Changes) > 0 {
				t.Errorf("diff between two document orders of the same objects:\n%s", diffText(rep))
			}
		}
	})
}

// viewSeeds are inputs that reach each view: explain's fixtures (every
// target kind, policies, backends, WSO2 chains), the examples as one
// platform, the Secret-reading manifests of TestNoSecretContentLeaks and
// a platform whose names carry terminal and format attacks.
func viewSeeds(f testing.TB) [][]byte {
	var seeds [][]byte
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	explainInputs, _ := filepath.Glob("../../testdata/explain/*/input.yaml")
	for _, p := range explainInputs {
		seeds = append(seeds, read(p))
	}
	var examples []byte
	files, _ := filepath.Glob("../../testdata/examples/*.yaml")
	for _, p := range files {
		examples = append(append(examples, read(p)...), "\n---\n"...)
	}
	seeds = append(seeds, examples, read("../../testdata/wso2/operator/routes.yaml"))
	dirs, _ := leakFixtures(f, &plant{})
	for _, fam := range []string{"kgateway", "envoygateway", "haptic", "wso2"} {
		seeds = append(seeds, read(filepath.Join(dirs[fam], fam+".yaml")))
	}
	// The guardrail fixtures over their platforms, a family each.
	for _, fam := range []string{"kgateway", "envoygateway", "haptic", "wso2"} {
		inputs, _ := filepath.Glob("../../testdata/guardrails/" + fam + "/*/input.yaml")
		all := read("../../testdata/guardrails/" + fam + "/_platform.yaml")
		for _, p := range inputs {
			all = append(append(all, "\n---\n"...), read(p)...)
		}
		seeds = append(seeds, all)
	}
	// and an input with no object at all (found by this target)
	seeds = append(seeds, []byte(hostileViewsSeed), []byte(hostileValuesSeed), atLength([]byte(extensionOrderSeed), 1), []byte(" "))
	return seeds
}

// hostileViewsSeed names objects, sections, labels and values with what
// would break out of each format: a terminal escape, a quote and a
// backslash (DOT), a bar, brackets and a newline (Mermaid), a percent,
// a colon pair and a comma (GitHub workflow commands).
const hostileViewsSeed = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app, labels: {team: "a\"b\\c|d]e\ne::f,g%0A\u001b[2J"}}
spec:
  gatewayClassName: kgw
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: app}
spec:
  parentRefs: [{name: gw}, {name: "gw\"]|x\n::error::y", sectionName: "s\"|\n%0A"}]
  rules:
  - name: main
    backendRefs: [{name: web, port: 80}, {name: "web\"|]\n::warning::z", port: 80}]
  - name: "r\"|]\n::error file=x::y"
    backendRefs: [{name: web, port: 80}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: headers, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop, sectionName: main}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: "shop\"|\n::error::q"}]
  headerModifiers:
    request:
      set: [{name: x-note, value: "v\"|]\n::error::w\u001b]0;t\u0007"}]
  timeouts: {request: 5s}
`

// hostileValuesSeed is valid objects whose free-text values (a header
// value, a direct response body: no name rules, no CRD pattern) carry a
// terminal escape, an OSC title, a bell, a right-to-left override, NEL,
// a quote, a bar, a bracket and a forged workflow command: they reach
// explain's values, lint's and explain's messages (Envoy refuses the
// header value), render's body and the status of what serves them.
const hostileValuesSeed = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: app}
spec:
  gatewayClassName: kgw
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: app}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: app}
spec:
  parentRefs: [{name: gw}]
  rules:
  - name: main
    matches: [{path: {type: PathPrefix, value: "/a"}}]
    backendRefs: [{name: web, port: 80}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: headers, namespace: app}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop, sectionName: main}]
  headerModifiers:
    request:
      set: [{name: x-note, value: "v\e]0;t\a\u202e\u0085\"|]\n::error::w"}]
  timeouts: {request: 5s}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: DirectResponse
metadata: {name: dr, namespace: app}
spec: {status: 418, body: "b\e[2J\u202e\"|]\n::error::z"}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: tea, namespace: app}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /tea}}]
    filters: [{type: ExtensionRef, extensionRef: {group: gateway.kgateway.dev, kind: DirectResponse, name: dr}}]
`

// viewGuardrails are guardrails of every rule type over fields of each
// family, which explain, lint and diff show.
const viewGuardrails = `guardrails:
- {name: request-timeout-cap, fields: [timeouts.request, timeout.http.requestTimeout], max: 60s, message: 'caps "requests" \\ %0A'}
- {name: rate-limit-cap, fields: [rateLimit.requests, chain.policies.params.limits.requests], max: 100}
- {name: ext-auth-provider, fields: [extAuth.extensionRef.name], oneOf: [authz]}
- {name: rate-limit-unit, fields: [rateLimit.local.rules.limit.unit], oneOf: [Second, Minute]}
- {name: routes-are-rate-limited, require: [rateLimit.local], severity: warning}
- {name: platform-owns-ext-auth, fields: [extAuth, waf], setOnlyBy: {namespaces: [infra]}, message: "ask #platform"}
`

// extensionOrderSeed has two policies on a route calling two ext_authz
// extensions whose weights order their filters against their names: with
// extAuth merged deep (viewConfigs' second, which its length picks)
// explain says in which order the filters run.
const extensionOrderSeed = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}, {port: 9000, name: grpc}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: z-heavy, namespace: infra, annotations: {kgateway.dev/policy-weight: "10"}}
spec: {extAuth: {grpcService: {backendRef: {name: web, port: 9000}}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: a-light, namespace: infra, annotations: {kgateway.dev/policy-weight: "-10"}}
spec: {extAuth: {grpcService: {backendRef: {name: web, port: 9000}}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: first, namespace: infra, annotations: {kgateway.dev/policy-weight: "5"}}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  extAuth: {extensionRef: {name: a-light}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: second, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  extAuth: {extensionRef: {name: z-heavy}}
`

// viewConfigs are the deployments FuzzViews runs inputs under (by input
// length), each read as a config file is: the defaults; every family's
// switches on (WSO2's operator reconciling the fixtures' class names,
// kgateway's grant checks off and experimental kinds off, Envoy
// Gateway's optional APIs, Istio mTLS, route source metadata) with the
// missing objects assumed; HAPTIC's chart switches with Strict modes and
// WSO2's analytics and policy definitions; the operator reconciling another
// class.
func viewConfigs(f testing.TB) ([]*Config, []*pipeline.Versions) {
	defs, err := filepath.Abs("../../testdata/wso2/defs")
	if err != nil {
		f.Fatal(err)
	}
	texts := []string{
		"namespace: default\n",
		"namespace: default\nassumeExist: [Secret, Service, ConfigMap]\nreferenceGrantMode: Off\nenableExperimentalGatewayAPIFeatures: false\n" +
			"enableIstioAutoMtls: true\nenableRouteSourceMetadata: true\nweightedRoutePrecedence: true\nlistenerBindIpv6: false\n" +
			"policyMerge: {trafficPolicy: {extAuth: DeepMerge, extProc: DeepMerge}}\n" +
			"envoyGateway:\n  enableBackend: true\n  runningOnHost: true\n  extensionApis: {enableLua: true, enableSDSSecretRef: true}\n  rateLimit: {enabled: true}\n" +
			"wso2:\n  gatewayClassNames: [kgw, kg, eg, gwpol, wso2-api-platform, wso2-class]\n",
		"namespace: default\nreferenceGrantMode: Strict\nvalidationMode: Strict\npolicyDefinitions: " + defs + "\n" +
			"haptic:\n  rateLimit: {shared: {enabled: true}}\n  cache: {varnish: {enabled: true}}\n  waf: {policies: {selfService: {enabled: true}}}\n" +
			"wso2:\n  analytics: {enabled: true, allowPayloads: true}\n  gatewayClassNames: [wso2-api-platform]\n" + viewGuardrails,
		"namespace: default\nassumeExist: [Secret, Service]\nwso2:\n  gatewayClassNames: [kgw, other]\n" + viewGuardrails,
	}
	dir := f.TempDir()
	var cfgs []*Config
	var versions []*pipeline.Versions
	for i, text := range texts {
		path := filepath.Join(dir, fmt.Sprintf("views-%d.gwpol.yaml", i))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			f.Fatal(err)
		}
		cfg, _, err := loadConfig(path)
		if err != nil {
			f.Fatalf("config %d: %v", i, err)
		}
		v, err := families.LoadVersions(cfg)
		if err != nil {
			f.Fatalf("config %d versions: %v", i, err)
		}
		cfgs, versions = append(cfgs, cfg), append(versions, v)
	}
	return cfgs, versions
}

// watchdog fails the run (the fuzzing worker exits, the input is kept)
// when one input takes a minute: a hang, or work out of all proportion.
func watchdog(data []byte) (stop func()) {
	timer := time.AfterFunc(time.Minute, func() {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		panic(fmt.Sprintf("FuzzViews: one input (%d bytes) ran for a minute:\n%s", len(data), buf[:n]))
	})
	return func() { timer.Stop() }
}

// viewOutput is what one view wrote: its output, its stderr and the
// error it returned (as Main prints it), and the format it is in.
type viewOutput struct {
	format      string
	out, errOut string
}

// hasOrderedObjects reports whether document order may decide for the
// input, as a controller decides: two objects of one identity (the last
// applied wins), or Envoy Gateway's policies, processed in the order
// they were given when no creationTimestamp orders them.
func hasOrderedObjects(objs []*manifest.Object) bool {
	seen := map[string]bool{}
	for _, o := range objs {
		if o.Group == "gateway.envoyproxy.io" {
			return true
		}
		ns := o.Namespace
		if ns == "" {
			ns = "default"
		}
		id := o.Group + "/" + o.Kind + "/" + ns + "/" + o.Name
		if seen[id] {
			return true
		}
		seen[id] = true
	}
	return false
}

// addDiffViews adds diff's text and JSON of rep to outs, as name.
func addDiffViews(outs map[string]viewOutput, name string, rep *diff.Report) {
	outs[name+" text"] = viewOutput{format: "text", out: diffText(rep)}
	data, err := encode("json", rep)
	if err != nil {
		outs[name+" json"] = viewOutput{format: "json", errOut: errorText(err)}
		return
	}
	outs[name+" json"] = viewOutput{format: "json", out: string(data)}
}

// runViews compiles objs (reversed when reorder is set, as another
// document order of the same objects) and runs every view on them.
func runViews(objs []*manifest.Object, cfg *Config, v *pipeline.Versions, reorder bool) (map[string]viewOutput, *pipeline.Compiled) {
	if reorder {
		objs = slices.Clone(objs)
		slices.Reverse(objs)
	}
	for i, o := range objs {
		o.Seq = i
	}
	c := families.CompileWith(&manifest.Set{Objects: objs}, cfg, v)
	outs := map[string]viewOutput{}
	view := func(name, format string, width int, run func(g *globalOptions) error) {
		var out, errOut bytes.Buffer
		g := &globalOptions{IO: &IOStreams{Out: &out, ErrOut: &errOut, IsTerminal: width > 0, NoColor: true, Width: width}, config: cfg}
		if err := run(g); err != nil && err != errFindings {
			errOut.WriteString(errorText(err) + "\n")
		}
		outs[name] = viewOutput{format: format, out: out.String(), errOut: errOut.String()}
	}
	for _, format := range []string{"text", "json", "sarif", "github"} {
		view("lint "+format, format, 0, func(g *globalOptions) error {
			return (&lintOptions{globalOptions: g, Output: format, Target: inferredTarget}).report(c, inputResult(c))
		})
	}
	view("lint text 80", "text", 80, func(g *globalOptions) error {
		return (&lintOptions{globalOptions: g, Output: "text", Target: inferredTarget}).report(c, inputResult(c))
	})
	gateways, routes, policies := capped(gatewayRefs(c, ""), 3), capped(routeRefs(c, ""), 3), capped(policyRefs(c, ""), 3)
	for _, format := range []string{"yaml", "json", "summary"} {
		view("status "+format, format, 80, func(g *globalOptions) error {
			return (&statusOptions{globalOptions: g, Output: format}).report(c)
		})
	}
	for _, gw := range gateways {
		view("status summary --gateway "+gw, "summary", 80, func(g *globalOptions) error {
			return (&statusOptions{globalOptions: g, Output: "summary", Gateways: []string{gw}}).report(c)
		})
		view("status json --gateway "+gw, "json", 0, func(g *globalOptions) error {
			return (&statusOptions{globalOptions: g, Output: "json", Gateways: []string{gw}}).report(c)
		})
	}
	for _, rt := range routes {
		view("status summary --route "+rt, "summary", 80, func(g *globalOptions) error {
			return (&statusOptions{globalOptions: g, Output: "summary", Routes: []string{rt}}).report(c)
		})
	}
	for _, format := range []string{"dot", "mermaid"} {
		scopes := [][3][]string{{}}
		for _, gw := range gateways {
			scopes = append(scopes, [3][]string{{gw}})
		}
		for _, rt := range routes {
			scopes = append(scopes, [3][]string{nil, {rt}})
		}
		for _, p := range policies {
			scopes = append(scopes, [3][]string{nil, nil, {p}})
		}
		for _, s := range scopes {
			view(fmt.Sprintf("graph %s %q", format, s), format, 0, func(g *globalOptions) error {
				return (&graphOptions{globalOptions: g, Output: format, Gateways: s[0], Routes: s[1], Policies: s[2]}).draw(c)
			})
		}
	}
	// render (in the rest of the target's views, FuzzPipeline and
	// FuzzRender): the output checked here for what the input must never
	// make it print, and for the same bytes in any document order
	view("render json", "json", 0, func(g *globalOptions) error {
		return (&renderOptions{globalOptions: g, Output: "json", Type: "all", Target: inferredTarget}).render(c)
	})
	for _, gw := range capped(gateways, 1) {
		view("render yaml --bootstrap --gateway "+gw, "yaml", 0, func(g *globalOptions) error {
			return (&renderOptions{globalOptions: g, Output: "yaml", Type: "all", Target: inferredTarget, Gateway: gw, Bootstrap: true}).render(c)
		})
	}
	for _, rt := range capped(routes, 1) {
		view("render json --target envoy --route "+rt, "json", 0, func(g *globalOptions) error {
			return (&renderOptions{globalOptions: g, Output: "json", Type: "all", Target: "envoy", Routes: []string{rt}}).render(c)
		})
	}
	// Targets that are not there, a letter off one that is: the error
	// names the nearest.
	for _, target := range capped(explainTargets(c, ""), 2) {
		view("explain text "+target+"x", "text", 80, func(g *globalOptions) error {
			return (&explainOptions{globalOptions: g, Target: target + "x", RenderTarget: inferredTarget, Output: "text"}).explain(c)
		})
	}
	for _, target := range spread(explainTargets(c, ""), 12) {
		for _, format := range []string{"text", "json"} {
			view("explain "+format+" "+target, format, 80, func(g *globalOptions) error {
				return (&explainOptions{globalOptions: g, Target: target, RenderTarget: inferredTarget, Output: format, ShowValues: true}).explain(c)
			})
		}
	}
	return outs, c
}

// capped is the first n of list, sorted and without repeats: the same
// choice whatever order the objects came in.
func capped(list []string, n int) []string {
	list = slices.Compact(slices.Sorted(slices.Values(list)))
	return list[:min(n, len(list))]
}

// spread is n of list's KIND/… entries taken a kind at a time (sorted),
// so that each kind (gateway, listener, route, rule, policy, Service) has
// its turn: the same choice whatever order the objects came in.
func spread(list []string, n int) []string {
	byKind := map[string][]string{}
	for _, s := range capped(list, len(list)) {
		kind, _, _ := strings.Cut(s, "/")
		if strings.Count(s, "/") > 2 {
			kind += "/section"
		}
		byKind[kind] = append(byKind[kind], s)
	}
	kinds := slices.Sorted(maps.Keys(byKind))
	var out []string
	for i := 0; len(out) < n; i++ {
		took := false
		for _, k := range kinds {
			if i < len(byKind[k]) && len(out) < n {
				out, took = append(out, byKind[k][i]), true
			}
		}
		if !took {
			break
		}
	}
	return out
}

// checkViews checks each output for what its format promises.
func checkViews(t *testing.T, outs map[string]viewOutput, secrets []string) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(outs)) {
		o := outs[name]
		for what, s := range map[string]string{"stdout": o.out, "stderr": o.errOut} {
			if bad := rawControl(s); bad != "" {
				t.Errorf("%s %s has %s raw:\n%s", name, what, bad, s)
			}
			for _, tok := range secrets {
				if i := strings.Index(s, tok); i >= 0 {
					t.Errorf("%s %s has Secret data %q: …%s…", name, what, tok, s[max(i-100, 0):min(i+len(tok)+40, len(s))])
				}
			}
		}
		if o.out == "" {
			continue
		}
		var err error
		switch o.format {
		case "json", "sarif":
			if !json.Valid([]byte(o.out)) {
				err = fmt.Errorf("not valid JSON")
			}
		case "yaml":
			var v any
			err = yaml.Unmarshal([]byte(o.out), &v)
		case "dot":
			err = checkDOT(o.out)
		case "mermaid":
			err = checkMermaid(o.out)
		case "github":
			err = checkGitHubCommands(o.out)
		}
		if err != nil {
			t.Errorf("%s: %v:\n%s", name, err, o.out)
		}
	}
}

// compareViews fails on the first view whose bytes differ between two
// document orders of the same objects.
func compareViews(t *testing.T, a, b map[string]viewOutput) {
	t.Helper()
	for _, name := range slices.Sorted(maps.Keys(a)) {
		x, ok := b[name]
		if !ok {
			t.Errorf("%s: run in one document order only", name)
			continue
		}
		if y := a[name]; x != y {
			t.Errorf("%s differs with the objects in reverse document order:\n%s", name, firstDiff(y.out+y.errOut, x.out+x.errOut))
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			t.Errorf("%s: run in reverse document order only", name)
		}
	}
}

// firstDiff shows the first line where a and b part.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(la), len(lb)) {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  given order: %s\n  reversed:    %s", i+1, x, y)
		}
	}
	return "(same lines)"
}

// secretTokens are the words of the input's Secret data values (as
// written, and base64-decoded) that could only come from there: runs of
// letters, digits, '-' and '_' of 10 or more with a digit and a letter,
// or of 16 or more, found nowhere else in the input.
func secretTokens(objs []*manifest.Object, data []byte) []string {
	var values []string
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil {
			return
		}
		switch n.Kind {
		case yaml.ScalarNode:
			values = append(values, n.Value)
		case yaml.MappingNode:
			for i := 1; i < len(n.Content); i += 2 {
				walk(n.Content[i])
			}
		default:
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	for _, o := range objs {
		if o.Group == "" && o.Kind == "Secret" {
			walk(o.Lookup("data"))
			walk(o.Lookup("stringData"))
		}
	}
	raw := strings.Join(values, "\x00")
	word := regexp.MustCompile(`[A-Za-z0-9_-]+`)
	digit, letter := regexp.MustCompile(`[0-9]`), regexp.MustCompile(`[A-Za-z]`)
	seen := map[string]bool{}
	var out []string
	add := func(text string, decoded bool) {
		for _, w := range word.FindAllString(text, -1) {
			if seen[w] || len(w) < 10 || len(w) < 16 && !(digit.MatchString(w) && letter.MatchString(w)) {
				continue
			}
			seen[w] = true
			// a word that is also written outside the Secrets' data
			// (a name, a key) may be printed as that
			if n := bytes.Count(data, []byte(w)); decoded && n > 0 || n > strings.Count(raw, w) {
				continue
			}
			out = append(out, w)
		}
	}
	for _, v := range values {
		add(v, false)
		if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v)); err == nil {
			add(string(b), true)
		}
	}
	sort.Strings(out)
	return out
}

// dotWords are the only words DOT output may hold outside quotes: the
// statements, attributes and values gwpol writes.
var dotWords = map[string]bool{"digraph": true, "gwpol": true, "rankdir": true, "LR": true, "newrank": true, "true": true, "node": true,
	"fontsize": true, "edge": true, "fontcolor": true, "gray30": true, "subgraph": true, "label": true, "style": true, "rounded": true,
	"color": true, "gray60": true, "filled": true, "fillcolor": true, "aliceblue": true, "shape": true, "red": true, "dashed": true}

// checkDOT checks that every string from the input is inside a quoted
// string that ends where it should: outside quotes only gwpol's words,
// numbers and punctuation; inside, no raw line break and every quote
// escaped.
func checkDOT(s string) error {
	var outside strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '"' {
			outside.WriteByte(s[i])
			continue
		}
		closed := false
		for i++; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '\n' {
				return fmt.Errorf("a line break inside a quoted string at byte %d", i)
			}
			if s[i] == '"' {
				closed = true
				break
			}
		}
		if !closed {
			return fmt.Errorf("a quoted string never closed")
		}
		outside.WriteString(" ID ")
	}
	for _, w := range regexp.MustCompile(`[^\s=;,\[\]{}>-]+`).FindAllString(outside.String(), -1) {
		if w != "ID" && !dotWords[w] && !regexp.MustCompile(`^[0-9]+$`).MatchString(w) && !regexp.MustCompile(`^(box|cylinder|ellipse|note)$`).MatchString(w) {
			return fmt.Errorf("%q outside quotes", w)
		}
	}
	return nil
}

// mermaidLine is every statement gwpol writes in a Mermaid flowchart:
// subgraph titles and node labels inside quotes holding none, edge labels
// between bars holding none and no quote, no raw line break anywhere
// (one statement a line).
var mermaidLine = regexp.MustCompile(`^(flowchart LR|  end|  subgraph ns[0-9]+\["[^"]*"\]|    n[0-9]+(\["[^"]*"\]|\("[^"]*"\)|\[/"[^"]*"/\])` +
	`|  n[0-9]+ (-->|-\.->)(\|[^|"]*\|)? n[0-9]+|  classDef problem [^"]*|  class [n0-9,]+ problem|  linkStyle [0-9,]+ stroke:#d00)$`)

func checkMermaid(s string) error {
	for i, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if !mermaidLine.MatchString(l) {
			return fmt.Errorf("line %d is no statement gwpol writes: %q", i+1, l)
		}
	}
	return nil
}

// githubLine is one workflow command as writeGitHub writes it: the
// properties escaped (no ':' nor ',' of their own), the message on one
// line.
var githubLine = regexp.MustCompile(`^::(error|warning|notice) (file=[^,:\r\n]*(,line=[1-9][0-9]*(,col=[1-9][0-9]*)?)?,title=GWP[0-9]{3}|title=gwpol)::[^\r\n]*$`)

func checkGitHubCommands(s string) error {
	for i, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		if !githubLine.MatchString(l) {
			return fmt.Errorf("line %d is no workflow command gwpol writes: %q", i+1, l)
		}
	}
	return nil
}
