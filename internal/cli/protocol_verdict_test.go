package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/cli"
)

// TestProtocolLimitedFieldViews: a backend setting limited to one upstream
// protocol (policy.FieldSpec.Protocol; kgateway's BackendConfigPolicy
// http1ProtocolOptions / http2ProtocolOptions, row B20) is decided once,
// in merge (merge.Result.FieldProtocolOn), and every view reads that
// verdict on the same inputs: render writes the field's options and
// names it in the cluster's merge metadata only where it applies, lint
// warns (GWP306) exactly where it does not, explain says "not applied to
// this cluster" exactly there, and status keeps the policy Accepted.
// Shapes no public case has: an appProtocol-named HTTP/2 port, an
// HTTP/1 Service under HTTP/2 options alone, and one policy with both
// options over a Service whose ports speak each protocol.
func TestProtocolLimitedFieldViews(t *testing.T) {
	const policy = `apiVersion: gateway.kgateway.dev/v1alpha1
kind: BackendConfigPolicy
metadata: {name: p, namespace: infra}
spec:
  targetRefs: [{group: "", kind: Service, name: svc}]
`
	type port struct {
		number  string
		applied map[string]bool // field → applied to this port's cluster
	}
	for _, tc := range []struct {
		name, services, spec string
		ports                []port
	}{
		{"HTTP/1 backend with HTTP/2 options",
			`{ports: [{port: 8080, name: http}]}`,
			`  http2ProtocolOptions: {maxConcurrentStreams: 9}`,
			[]port{{"8080", map[string]bool{"http2ProtocolOptions": false}}}},
		{"HTTP/2 backend by appProtocol",
			`{ports: [{port: 8080, name: http, appProtocol: kubernetes.io/h2c}]}`,
			`  http2ProtocolOptions: {maxConcurrentStreams: 9}`,
			[]port{{"8080", map[string]bool{"http2ProtocolOptions": true}}}},
		{"mixed backends of one policy",
			`{ports: [{port: 7000, name: plain}, {port: 7001, name: rpc, appProtocol: grpc}]}`,
			"  http1ProtocolOptions: {enableTrailers: true}\n  http2ProtocolOptions: {maxConcurrentStreams: 9}",
			[]port{
				{"7000", map[string]bool{"http1ProtocolOptions": true, "http2ProtocolOptions": false}},
				{"7001", map[string]bool{"http1ProtocolOptions": false, "http2ProtocolOptions": true}},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(t.TempDir(), "input.yaml")
			doc := "apiVersion: v1\nkind: Service\nmetadata: {name: svc, namespace: infra}\nspec: " + tc.services + "\n---\n" + policy + tc.spec + "\n"
			if err := os.WriteFile(in, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			files := []string{"-f", filepath.Join("..", "..", baseManifests), "-f", in}
			gw := func(args ...string) string {
				ios, out, errOut := cli.Test("", false)
				cli.Main(append(args, files...), ios)
				return out.String() + errOut.String()
			}
			var rendered struct {
				Gateways []struct {
					Clusters []map[string]any `json:"clusters"`
				} `json:"gateways"`
			}
			if err := json.Unmarshal([]byte(gw("render", "--target", "kgateway", "-o", "json")), &rendered); err != nil {
				t.Fatal(err)
			}
			lint := gw("lint", "--target", "kgateway")
			status := gw("status")
			// the policy's entry: Accepted, no condition False
			sec := status[max(0, strings.Index(status, "kind: BackendConfigPolicy")):]
			if !strings.Contains(sec, "name: p\n") || !strings.Contains(sec, "type: Accepted") || strings.Contains(sec, `status: "False"`) {
				t.Errorf("status: the policy should stay Accepted:\n%s", sec)
			}
			for _, p := range tc.ports {
				name := "kube_infra_svc_" + p.number
				var c map[string]any
				for _, g := range rendered.Gateways {
					for _, cl := range g.Clusters {
						if cl["name"] == name {
							c = cl
						}
					}
				}
				if c == nil {
					t.Fatalf("render: no cluster %s", name)
				}
				raw, _ := json.Marshal(c)
				var md struct {
					Metadata struct {
						FilterMetadata map[string]map[string]any `json:"filter_metadata"`
					} `json:"metadata"`
				}
				if err := json.Unmarshal(raw, &md); err != nil {
					t.Fatal(err)
				}
				origins := md.Metadata.FilterMetadata["merge.gateway.kgateway.dev/BackendConfigPolicy"]
				where := "Service infra/svc port " + p.number
				for field, applied := range p.applied {
					option := map[string]string{"http1ProtocolOptions": `"http_protocol_options":{"enable_trailers":true}`,
						"http2ProtocolOptions": `"http2_protocol_options":{"max_concurrent_streams":9}`}[field]
					if got := strings.Contains(string(raw), option); got != applied {
						t.Errorf("render %s: %s options written %v, want %v\n%s", name, field, got, applied, raw)
					}
					if _, got := origins[field]; got != applied {
						t.Errorf("render %s: merge metadata names %s %v, want %v (%v)", name, field, got, applied, origins)
					}
					warned := false
					for _, l := range strings.Split(lint, "\n") {
						if strings.Contains(l, "GWP306") && strings.HasPrefix(strings.TrimSpace(l[strings.Index(l, "GWP306")+len("GWP306"):]), field+" ") && strings.Contains(l, where+",") {
							warned = true
						}
					}
					if warned == applied {
						t.Errorf("lint: GWP306 for %s on %s: %v, want %v\n%s", field, where, warned, !applied, lint)
					}
					ex := gw("explain", "service/infra/svc:"+p.number, "--field", field, "--target", "kgateway")
					if !strings.Contains(ex, "BackendConfigPolicy/infra/p") {
						t.Errorf("explain %s %s: the policy is not listed\n%s", name, field, ex)
					}
					if got := strings.Contains(ex, "not applied to this cluster"); got == applied {
						t.Errorf("explain %s %s: not applied %v, want %v\n%s", name, field, got, !applied, ex)
					}
				}
			}
		})
	}
}
