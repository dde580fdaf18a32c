package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/status"
	yaml "go.yaml.in/yaml/v3"
)

// conformanceRoots are the two folders of kgateway's translator goldens:
// the TrafficPolicy cases and the rest of the public set.
var conformanceRoots = []string{conformanceDir, "../../../shared/conformance/kgateway/more"}

// statusFloor is the number of kgateway cases (cases/ and more/) whose
// statuses and merge origins gwpol agrees with at the time of writing;
// TestConformanceKgatewayStatuses fails when agreement drops below it.
// Raise it as cases are gained, never lower it.
const statusFloor = 304

// goldenCondition is a status condition as kgateway's golden writes it;
// the fair comparison reads its type, status and reason only (messages
// and transition times are kgateway's wording, not its semantics).
type goldenCondition struct {
	Type   string `yaml:"type"`
	Status string `yaml:"status"`
	Reason string `yaml:"reason"`
}

type goldenListener struct {
	Name       string            `yaml:"name"`
	Conditions []goldenCondition `yaml:"conditions"`
}

// goldenOwner is a Gateway's or a ListenerSet's status.
type goldenOwner struct {
	Conditions []goldenCondition `yaml:"conditions"`
	Listeners  []goldenListener  `yaml:"listeners"`
}

type goldenParent struct {
	ParentRef struct {
		Namespace   string `yaml:"namespace"`
		Name        string `yaml:"name"`
		SectionName string `yaml:"sectionName"`
		Port        int32  `yaml:"port"`
	} `yaml:"parentRef"`
	Conditions []goldenCondition `yaml:"conditions"`
}

type goldenRoute struct {
	Parents []goldenParent `yaml:"parents"`
}

// goldenStatuses is output.yaml's Statuses (policies are compared through
// expected.json, backends are not read).
type goldenStatuses struct {
	Gateways     map[string]goldenOwner `yaml:"gateways"`
	ListenerSets map[string]goldenOwner `yaml:"listenerSets"`
	HTTPRoutes   map[string]goldenRoute `yaml:"httpRoutes"`
	GRPCRoutes   map[string]goldenRoute `yaml:"grpcRoutes"`
	TCPRoutes    map[string]goldenRoute `yaml:"tcpRoutes"`
	TLSRoutes    map[string]goldenRoute `yaml:"tlsRoutes"`
}

func readGoldenStatuses(dir string) (goldenStatuses, error) {
	var out struct {
		Statuses goldenStatuses `yaml:"Statuses"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "output.yaml"))
	if err != nil {
		return out.Statuses, err
	}
	err = yaml.Unmarshal(b, &out)
	return out.Statuses, err
}

// caseGroup is the golden's folder under kgateway's testutils/outputs
// (top-level for files directly in it), read from case.json's source.
func caseGroup(t *testing.T, dir string) string {
	var c struct {
		Source struct {
			Output string `json:"output"`
		} `json:"source"`
	}
	readJSON(t, filepath.Join(dir, "case.json"), &c)
	_, rest, _ := strings.Cut(c.Source.Output, "/outputs/")
	group, _, nested := strings.Cut(rest, "/")
	if !nested {
		return "top-level"
	}
	return group
}

func goldenConds(cs []goldenCondition) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Type+"="+c.Status+"/"+c.Reason)
	}
	slices.Sort(out)
	return out
}

func gwpolConds(cs []status.Condition) []string {
	out := []string{}
	for _, c := range cs {
		out = append(out, c.Type+"="+c.Status+"/"+c.Reason)
	}
	slices.Sort(out)
	return out
}

// ownerDiffs compares the Gateways' and ListenerSets' own conditions and
// their listeners' conditions.
func ownerDiffs(want goldenStatuses, rep *status.Report) []string {
	type owner struct {
		conds     []status.Condition
		listeners map[string][]status.Condition
	}
	gateways, sets := map[string]*owner{}, map[string]*owner{}
	for _, g := range rep.Gateways {
		gw := &owner{conds: g.Conditions, listeners: map[string][]status.Condition{}}
		gateways[g.Namespace+"/"+g.Name] = gw
		for _, l := range g.Listeners {
			if l.ListenerSet == "" {
				gw.listeners[l.Name] = l.Conditions
				continue
			}
			s := sets[l.ListenerSet]
			if s == nil {
				s = &owner{listeners: map[string][]status.Condition{}}
				sets[l.ListenerSet] = s
			}
			s.listeners[l.Name] = l.Conditions
		}
	}
	for _, s := range rep.ListenerSets {
		key := s.Namespace + "/" + s.Name
		if sets[key] == nil {
			sets[key] = &owner{listeners: map[string][]status.Condition{}}
		}
		sets[key].conds = s.Conditions
	}
	var out []string
	compare := func(kind string, golden map[string]goldenOwner, got map[string]*owner) {
		for _, name := range sortedKeys(golden) {
			w, g := golden[name], got[name]
			if g == nil {
				out = append(out, fmt.Sprintf("%s %s: no status from gwpol", kind, name))
				continue
			}
			if d := cmp.Diff(goldenConds(w.Conditions), gwpolConds(g.conds)); d != "" {
				out = append(out, fmt.Sprintf("%s %s conditions (-kgateway +gwpol):\n%s", kind, name, d))
			}
			for _, l := range w.Listeners {
				if d := cmp.Diff(goldenConds(l.Conditions), gwpolConds(g.listeners[l.Name])); d != "" {
					out = append(out, fmt.Sprintf("%s %s listener %s conditions (-kgateway +gwpol):\n%s", kind, name, l.Name, d))
				}
			}
		}
	}
	compare("Gateway", want.Gateways, gateways)
	compare("ListenerSet", want.ListenerSets, sets)
	return out
}

// parentKey names a parentRef by what tells two parents of one route
// apart: namespace (when given), name, sectionName, port.
func parentKey(ns, name, section string, port int32) string {
	k := ns + "/" + name
	if section != "" {
		k += "#" + section
	}
	if port != 0 {
		k += ":" + strconv.Itoa(int(port))
	}
	return k
}

// routeDiffs compares every route parent's conditions. A golden parentRef
// without a namespace means the route's own.
func routeDiffs(want goldenStatuses, rep *status.Report) []string {
	got := map[string]map[string][]status.Condition{}
	for _, r := range rep.Routes {
		key := r.Kind + "/" + r.Namespace + "/" + r.Name
		got[key] = map[string][]status.Condition{}
		for _, p := range r.Parents {
			got[key][parentKey(p.ParentRef.Namespace, p.ParentRef.Name, p.ParentRef.SectionName, p.ParentRef.Port)] = p.Conditions
		}
	}
	var out []string
	for _, kind := range []struct {
		name   string
		routes map[string]goldenRoute
	}{{"HTTPRoute", want.HTTPRoutes}, {"GRPCRoute", want.GRPCRoutes}, {"TCPRoute", want.TCPRoutes}, {"TLSRoute", want.TLSRoutes}} {
		for _, name := range sortedKeys(kind.routes) {
			ns, _, _ := strings.Cut(name, "/")
			parents, ok := got[kind.name+"/"+name]
			if !ok {
				out = append(out, fmt.Sprintf("%s %s: no status from gwpol", kind.name, name))
				continue
			}
			for _, p := range kind.routes[name].Parents {
				pns := p.ParentRef.Namespace
				if pns == "" {
					pns = ns
				}
				pk := parentKey(pns, p.ParentRef.Name, p.ParentRef.SectionName, p.ParentRef.Port)
				if d := cmp.Diff(goldenConds(p.Conditions), gwpolConds(parents[pk])); d != "" {
					out = append(out, fmt.Sprintf("%s %s parent %s conditions (-kgateway +gwpol):\n%s", kind.name, name, pk, d))
				}
			}
		}
	}
	return out
}

// policyDiffs compares expected.json's policy statuses.
func policyDiffs(exp expectedCase, rep *status.Report) []string {
	got := policyStatuses(rep)
	var out []string
	for _, key := range sortedKeys(exp.Policies) {
		if d := cmp.Diff(exp.Policies[key], got[key]); d != "" {
			out = append(out, fmt.Sprintf("policy %s status (-kgateway +gwpol):\n%s", key, d))
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := keys(m)
	slices.Sort(out)
	return out
}

// caseDiffs is everything about one case where gwpol and kgateway differ:
// policy statuses, merge origins (name-independent and by name), Gateway,
// ListenerSet, listener and route parent conditions.
func caseDiffs(dir string) []string {
	set, cfg, cs, exp, err := readCase(dir)
	if err != nil {
		return []string{fmt.Sprintf("input: %v", err)}
	}
	golden, err := readGoldenStatuses(dir)
	if err != nil {
		return []string{fmt.Sprintf("output.yaml: %v", err)}
	}
	c := families.Compile(set, cfg)
	rep := status.Compute(c.Result, status.Options{ControllerName: cfg.ControllerName})
	out := policyDiffs(exp, rep)
	out = append(out, ownerDiffs(golden, rep)...)
	out = append(out, routeDiffs(golden, rep)...)
	indep, byName, err := originsAgree(c, cs.Gateway, exp)
	if err != nil {
		return append(out, fmt.Sprintf("render: %v", err))
	}
	out = append(out, indep...)
	return append(out, byName...)
}

// TestConformanceKgatewayStatuses runs every public kgateway case
// (cases/ and more/) and counts, per golden group, the cases whose
// statuses and merge origins all agree. It prints "status <group>: N/M"
// and the total for the CI log, logs each differing case's differences
// (-v), and fails when the total drops below statusFloor.
func TestConformanceKgatewayStatuses(t *testing.T) {
	var dirs []string
	for _, root := range conformanceRoots {
		d, _ := filepath.Glob(filepath.Join(root, "*"))
		dirs = append(dirs, d...)
	}
	if len(dirs) == 0 {
		t.Skipf("conformance cases not found at %s (they live in ../shared beside the repository); skipping", strings.Join(conformanceRoots, ", "))
	}
	listed := divergenceSection(t, "kgateway-status")
	agree, total := map[string]int{}, map[string]int{}
	sum := 0
	for _, dir := range dirs {
		group := caseGroup(t, dir)
		total[group]++
		name := filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
		reason, isListed := listed[name]
		diffs := caseDiffs(dir)
		if len(diffs) == 0 {
			agree[group]++
			sum++
			if isListed {
				t.Errorf("%s agrees now; remove it from the kgateway-status section of testdata/conformance-divergences.txt", name)
			}
			continue
		}
		t.Logf("%s:\n%s", name, strings.Join(diffs, "\n"))
		if !isListed {
			t.Errorf("%s: statuses differ from kgateway's and the case is not listed with a reason in the kgateway-status section of testdata/conformance-divergences.txt", name)
		} else {
			t.Logf("%s: listed: %s", name, reason)
		}
	}
	for _, g := range sortedKeys(total) {
		fmt.Printf("status %s: %d/%d\n", g, agree[g], total[g])
	}
	fmt.Printf("status total: %d/%d cases agree\n", sum, len(dirs))
	if sum < statusFloor {
		t.Errorf("statuses agree on %d cases, fewer than the %d reached before (statusFloor)", sum, statusFloor)
	}
}
