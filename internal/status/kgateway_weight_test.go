package status_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// weighted is a kgateway policy of kind (TrafficPolicy on route r1,
// ListenerPolicy on Gateway gw, BackendConfigPolicy on Service svc)
// created at second n, with the kgateway.dev/policy-weight annotation
// when weight is not "", setting one field to value.
func weighted(kind, name string, n int, weight, value string) string {
	ann := ""
	if weight != "" {
		ann = fmt.Sprintf(", annotations: {kgateway.dev/policy-weight: %q}", weight)
	}
	var target, spec string
	switch kind {
	case "TrafficPolicy":
		target, spec = "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}", "timeouts: {request: "+value+"}"
	case "ListenerPolicy":
		target, spec = "{group: gateway.networking.k8s.io, kind: Gateway, name: gw}", "default: {httpSettings: {idleTimeout: "+value+"}}"
	case "BackendConfigPolicy":
		target, spec = `{group: "", kind: Service, name: svc}`, "connectTimeout: "+value
	}
	return fmt.Sprintf(`---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: %s
metadata: {name: %s, namespace: infra, creationTimestamp: "2020-01-01T00:00:0%dZ"%s}
spec:
  targetRefs: [%s]
  %s
`, kind, name, n, ann, target, spec)
}

// TestPolicyWeightByKind: kgateway's policy index orders the policies on
// a target by PrecedenceWeight (the same kind's, higher first), then by
// creationTimestamp, older first, and each kind's merge keeps the first
// setter of a field — so the older policy wins unless weights differ.
// Only the TrafficPolicy plugin reads the kgateway.dev/policy-weight
// annotation into PrecedenceWeight (and refuses a value that is not an
// int32); ListenerPolicy and BackendConfigPolicy leave it zero, so there
// the annotation orders nothing, a bad value is no error, and gwpol says
// it has no effect (GWP406).
func TestPolicyWeightByKind(t *testing.T) {
	for _, tt := range []struct {
		name, docs string
		want       map[string]string // policy → "Accepted Attached"
		warned     []string          // policies with a GWP406 on the annotation
	}{
		{"TrafficPolicy: the heavier newer policy wins",
			weighted("TrafficPolicy", "old", 1, "", "1s") + weighted("TrafficPolicy", "new", 2, "10", "2s"),
			map[string]string{"old": "True/Valid False/Overridden", "new": "True/Valid True/Attached"}, nil},
		{"TrafficPolicy: a weight that is not a number refuses the policy",
			weighted("TrafficPolicy", "old", 1, "", "1s") + weighted("TrafficPolicy", "new", 2, "ten", "2s"),
			map[string]string{"old": "True/Valid True/Attached", "new": "False/Invalid False/Pending"}, nil},
		{"ListenerPolicy: the older wins whatever the newer's weight",
			weighted("ListenerPolicy", "old", 1, "", "1s") + weighted("ListenerPolicy", "new", 2, "10", "2s"),
			map[string]string{"old": "True/Valid True/Attached", "new": "True/Valid False/Overridden"}, []string{"new"}},
		{"ListenerPolicy: a negative weight on the older changes nothing",
			weighted("ListenerPolicy", "old", 1, "-5", "1s") + weighted("ListenerPolicy", "new", 2, "", "2s"),
			map[string]string{"old": "True/Valid True/Attached", "new": "True/Valid False/Overridden"}, []string{"old"}},
		{"ListenerPolicy: a weight that is not a number is no error",
			weighted("ListenerPolicy", "old", 1, "ten", "1s"),
			map[string]string{"old": "True/Valid True/Attached"}, []string{"old"}},
		{"ListenerPolicy: as old as each other, the names decide (U2)",
			weighted("ListenerPolicy", "b", 1, "", "1s") + weighted("ListenerPolicy", "a", 1, "", "2s"),
			map[string]string{"a": "True/Valid True/Attached", "b": "True/Valid False/Overridden"}, nil},
		{"BackendConfigPolicy: the older wins whatever the newer's weight",
			weighted("BackendConfigPolicy", "old", 1, "", "1s") + weighted("BackendConfigPolicy", "new", 2, "10", "2s"),
			map[string]string{"old": "True/Valid True/Attached", "new": "True/Valid False/Overridden"}, []string{"new"}},
		{"BackendConfigPolicy: a weight that is not a number is no error",
			weighted("BackendConfigPolicy", "old", 1, "2147483648", "1s"),
			map[string]string{"old": "True/Valid True/Attached"}, []string{"old"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := compileFull(t, base+tt.docs)
			got := map[string]string{}
			for _, p := range compile(t, base+tt.docs).Policies {
				for _, a := range p.Ancestors {
					got[p.Name] = condOf(a.Conditions, "Accepted") + " " + condOf(a.Conditions, "Attached")
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("statuses (-want +got):\n%s", diff)
			}
			var warned []string
			for _, d := range c.Diagnostics() {
				if d.Code == "GWP406" && strings.Contains(d.Message, "kgateway.dev/policy-weight") {
					warned = append(warned, d.Object.Name)
				}
			}
			if diff := cmp.Diff(tt.warned, warned); diff != "" {
				t.Errorf("GWP406 on the annotation (-want +got):\n%s", diff)
			}
		})
	}
}
