package envoygateway

import (
	"encoding/json"
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestRenderHealthCheckHTTP: an active HTTP check as Envoy Gateway
// renders it — statuses deduplicated into ranges (200 when none), the
// method upper-cased, payloads hex-encoded text or bytes — and, without a
// hostname, a per-route cluster whose check sends the route's hostname.
// Settings not rendered are unsupported (GWP404), never dropped.
func TestRenderHealthCheckHTTP(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // the field's cluster, protojson
		perRoute string // the per-route cluster for host shop.example.com, "" for none
		unsup    string // the capability reported unsupported
	}{
		{name: "defaults", in: `{"active":{"type":"HTTP","http":{"path":"/healthz"}}}`,
			want:     `{"healthChecks":[{"timeout":"1s","interval":"3s","unhealthyThreshold":3,"healthyThreshold":1,"httpHealthCheck":{"path":"/healthz","expectedStatuses":[{"start":"200","end":"201"}]}}]}`,
			perRoute: `{"healthChecks":[{"timeout":"1s","interval":"3s","unhealthyThreshold":3,"healthyThreshold":1,"httpHealthCheck":{"host":"shop.example.com","path":"/healthz","expectedStatuses":[{"start":"200","end":"201"}]}}]}`},
		{name: "hostname given", in: `{"active":{"type":"HTTP","timeout":"500ms","http":{"hostname":"foo.bar","path":"/h","method":"get","expectedStatuses":[201,200,200,300],"retriableStatuses":[503,429],"expectedResponse":{"type":"Text","text":"pong"}}}}`,
			want: `{"healthChecks":[{"timeout":"0.500s","interval":"3s","unhealthyThreshold":3,"healthyThreshold":1,"httpHealthCheck":{"host":"foo.bar","path":"/h","receive":[{"text":"706f6e67"}],` +
				`"expectedStatuses":[{"start":"200","end":"202"},{"start":"300","end":"301"}],"retriableStatuses":[{"start":"429","end":"430"},{"start":"503","end":"504"}],"method":"GET"}}]}`},
		{name: "request body", in: `{"active":{"type":"HTTP","http":{"hostname":"h","path":"/","method":"POST","requestBody":{"type":"Binary","binary":"cGluZw=="}}}}`,
			want: `{"healthChecks":[{"timeout":"1s","interval":"3s","unhealthyThreshold":3,"healthyThreshold":1,"httpHealthCheck":{"host":"h","path":"/","send":{"binary":"cGluZw=="},"expectedStatuses":[{"start":"200","end":"201"}],"method":"POST"}}]}`},
		{name: "overrides", in: `{"active":{"type":"HTTP","http":{"path":"/"},"overrides":{"port":9090}}}`, unsup: "envoygateway.BackendTrafficPolicy.healthCheck.active.overrides"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			frags, err := renderHealthCheck(typedValue[*egv1a1.HealthCheck](t, tc.in), policyName{})
			if err != nil {
				t.Fatal(err)
			}
			if tc.unsup != "" {
				if len(frags) != 1 || frags[0].Capability != tc.unsup {
					t.Fatalf("got %+v, want one fragment needing %s", frags, tc.unsup)
				}
				return
			}
			if got := clusterJSON(t, frags[0].Cluster); got != compactJSON(t, tc.want) {
				t.Errorf("cluster:\n got %s\nwant %s", got, compactJSON(t, tc.want))
			}
			var per []policy.Fragment
			for _, f := range frags[1:] {
				if f.PerRoute == nil {
					t.Fatalf("fragment %+v: want only a per-route one after the cluster", f)
				}
				if per, err = f.PerRoute(policy.RouteSite{Hostname: "shop.example.com"}); err != nil {
					t.Fatal(err)
				}
			}
			switch {
			case tc.perRoute == "" && per != nil:
				t.Errorf("per-route clusters %+v, want none", per)
			case tc.perRoute != "" && len(per) != 1:
				t.Errorf("per-route fragments %+v, want one cluster", per)
			case tc.perRoute != "":
				if got := clusterJSON(t, per[0].Cluster); got != compactJSON(t, tc.perRoute) {
					t.Errorf("per-route cluster:\n got %s\nwant %s", got, compactJSON(t, tc.perRoute))
				}
				if got := clusterJSON(t, frags[0].Cluster); got != compactJSON(t, tc.want) {
					t.Errorf("the per-route cluster changed the field's: %s", got)
				}
			}
		})
	}
}

func clusterJSON(t *testing.T, m any) string {
	t.Helper()
	c, ok := m.(*clusterv3.Cluster)
	if !ok {
		t.Fatalf("cluster is a %T", m)
	}
	b, err := protojson.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return compactJSON(t, string(b))
}

// compactJSON is s re-encoded with sorted keys and no spaces.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
