package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/status"
)

// egListenerSetsFloor is how many ListenerSet conditions of the Envoy
// Gateway cases gwpol writes as Envoy Gateway does (status and reason;
// message), the figure of TestConformanceEnvoyGatewayListenerSets: it
// fails when either drops. (When the figure was made: 108 and 0 of 114;
// the 4 left are two v1alpha1 ListenerSets the CRD check refuses, GWP111.)
const egListenerSetsFloor, egListenerSetMessagesFloor = 110, 110

// TestConformanceEnvoyGatewayListenerSets compares the ListenerSets'
// own conditions the Envoy Gateway cases record (listenerset.go:
// processListenerSet, ProcessListenerSetStatus) with gwpol's: each
// condition's status and reason, and its message. An additional figure
// beside TestConformanceEnvoyGateway's, which compares the listeners.
func TestConformanceEnvoyGatewayListenerSets(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(egConformanceDir, "*"))
	if len(dirs) == 0 {
		t.Skipf("Envoy Gateway cases not found at %s; skipping", egConformanceDir)
	}
	var n, nm, m int
	for _, dir := range dirs {
		name := filepath.Base(dir)
		var exp struct {
			ListenerSets map[string]struct {
				Conditions map[string][]string `json:"conditions"`
				Messages   map[string]string   `json:"messages"`
			} `json:"listenerSets"`
		}
		readJSON(t, filepath.Join(dir, "expected.json"), &exp)
		if len(exp.ListenerSets) == 0 {
			continue
		}
		set, err := manifest.Load([]string{filepath.Join(dir, "input.yaml")}, manifest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		rep := status.Compute(families.Compile(set, egCaseConfig(t, dir)).Result, status.Options{})
		got := map[string][]status.Condition{}
		for _, s := range rep.ListenerSets {
			kind := s.Kind
			if kind == "" {
				kind = "ListenerSet"
			}
			got[kind+"/"+s.Namespace+"/"+s.Name] = s.Conditions
		}
		for key, want := range exp.ListenerSets {
			for typ, sr := range want.Conditions {
				m++
				i := slices.IndexFunc(got[key], func(c status.Condition) bool { return c.Type == typ })
				if i < 0 {
					t.Logf("%s %s %s: no such condition, want %v %q", name, key, typ, sr, want.Messages[typ])
					continue
				}
				c := got[key][i]
				if len(sr) == 2 && c.Status == sr[0] && c.Reason == sr[1] {
					n++
				} else {
					t.Logf("%s %s %s: %s/%s, want %v", name, key, typ, c.Status, c.Reason, sr)
				}
				if c.Message == want.Messages[typ] {
					nm++
				} else {
					t.Logf("%s %s %s: message %q, want %q", name, key, typ, c.Message, want.Messages[typ])
				}
			}
		}
	}
	t.Logf("eg listenersets: conditions %d/%d, messages %d/%d", n, m, nm, m)
	fmt.Printf("eg listenersets: conditions %d/%d, messages %d/%d\n", n, m, nm, m)
	if n < egListenerSetsFloor || nm < egListenerSetMessagesFloor {
		t.Errorf("eg listenersets dropped below conditions %d, messages %d", egListenerSetsFloor, egListenerSetMessagesFloor)
	}
}
