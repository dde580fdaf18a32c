package cli

import (
	"bufio"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/status"
)

// egMessagesFloor is the number of condition messages of the Envoy
// Gateway cases (policies, routes, listeners) gwpol words as Envoy
// Gateway does: the test fails when it drops. (3611 when the figure was
// made; 3615 once stream routes' ResolvedRefs, rules dropped for one
// problem and Lua syntax errors were worded as Envoy Gateway's collector
// writes them.)
const egMessagesFloor = 3615

// egMessageDivergencesFile lists the expected condition messages gwpol
// words differently on purpose, one a line: "CASE OBJECT @ ANCESTOR TYPE:
// reason" (egMessageKey), a * in CASE or ANCESTOR matching any.
const egMessageDivergencesFile = "../../testdata/eg-message-divergences.txt"

// egGotMessages is gwpol's report as egGot and egListeners key it, with
// each condition's message: label ("policy", "route", "listener") →
// object → ancestor → type → message.
func egGotMessages(rep *status.Report, asWritten bool) map[string]map[string]map[string]map[string]string {
	out := map[string]map[string]map[string]map[string]string{"policy": {}, "route": {}, "listener": {}}
	add := func(label, key, anc string, cs []status.Condition) {
		if out[label][key] == nil {
			out[label][key] = map[string]map[string]string{}
		}
		m := map[string]string{}
		for _, c := range cs {
			m[c.Type] = c.Message
		}
		out[label][key][anc] = m
	}
	for _, p := range rep.Policies {
		for _, a := range p.Ancestors {
			add("policy", p.Kind+"/"+p.Namespace+"/"+p.Name, egAncestorKey(a.AncestorRef), a.Conditions)
		}
	}
	for _, r := range rep.Routes {
		for _, p := range r.Parents {
			add("route", r.Kind+"/"+r.Namespace+"/"+r.Name, egParentKey(p, asWritten), p.Conditions)
		}
	}
	for _, g := range rep.Gateways {
		for _, l := range g.Listeners {
			if l.ListenerSet == "" {
				add("listener", "Gateway/"+g.Namespace+"/"+g.Name, l.Name, l.Conditions)
			}
		}
	}
	return out
}

// egMessageKey names one expected condition message.
func egMessageKey(caseName, label, object, ancestor, typ string) string {
	return strings.Join([]string{caseName, label, object, "@", ancestor, typ}, " ")
}

// egMessageDiff is one expected message and gwpol's ("" when gwpol has
// no such condition).
type egMessageDiff struct{ key, want, got string }

// egCompareMessages compares every message a case's expected.json records
// for its policies, routes and listeners with gwpol's, returning how many
// it records and those that differ.
func egCompareMessages(caseName string, exp egExpected, rep *status.Report) (total int, bad []egMessageDiff) {
	got := egGotMessages(rep, false)
	for _, sec := range []struct {
		label string
		want  map[string][]egEntry
	}{{"policy", exp.Policies}, {"route", exp.Routes}, {"listener", exp.listeners()}} {
		for _, obj := range slices.Sorted(maps.Keys(sec.want)) {
			for _, e := range sec.want[obj] {
				anc := e.Ancestor + e.Parent
				for _, typ := range slices.Sorted(maps.Keys(e.Messages)) {
					total++
					g, ok := got[sec.label][obj][anc][typ]
					if w := e.Messages[typ]; !ok || g != w {
						if !ok {
							g = "(no such condition)"
						}
						bad = append(bad, egMessageDiff{egMessageKey(caseName, sec.label, obj, anc, typ), w, g})
					}
				}
			}
		}
	}
	return total, bad
}

// egMessageDivergences reads egMessageDivergencesFile: key pattern →
// reason.
func egMessageDivergences(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	f, err := os.Open(egMessageDivergencesFile)
	if err != nil {
		if os.IsNotExist(err) {
			return out
		}
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, reason, ok := strings.Cut(line, ": ")
		if !ok || strings.TrimSpace(reason) == "" {
			t.Fatalf("%s: %q gives no reason", egMessageDivergencesFile, line)
		}
		out[strings.TrimSpace(key)] = strings.TrimSpace(reason)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// egMessageListed is the listed pattern a message's key matches, if
// any: the pattern's words are the key's, where a * word matches any.
func egMessageListed(listed map[string]string, key string) (string, bool) {
	if _, ok := listed[key]; ok {
		return key, true
	}
	words := strings.Split(key, " ")
	for pat := range listed {
		pw := strings.Split(pat, " ")
		if len(pw) != len(words) {
			continue
		}
		match := true
		for i := range pw {
			if pw[i] != "*" && pw[i] != words[i] {
				match = false
				break
			}
		}
		if match {
			return pat, true
		}
	}
	return "", false
}
