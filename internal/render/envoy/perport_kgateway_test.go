package envoy_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
)

// TestListenerPolicyPerPortMerge: kgateway merges two ListenerPolicies'
// perPort entries for one port setting by setting (listenerpolicy/merge.go:
// mergePerPort): the first policy's entry is taken whole
// (perPortPolicy[P]), a later policy's entry fills the settings it leaves
// unset, each recorded under its own key (perPortPolicy[P].<setting>),
// and a setting both set stays the first's. On the port the merged entry
// replaces the default section whole (getPolicy). Before, the later
// policy's entry lost whole: its settings were not applied and it was
// Overridden. Shapes no public case has (every public perPort is one
// policy's).
func TestListenerPolicyPerPortMerge(t *testing.T) {
	lp := func(name, created, spec string) string {
		return "---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: " + name + ", namespace: shop, creationTimestamp: \"" + created + "\"}\n" +
			"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n" + spec
	}
	const older, newer = "2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z"
	for _, tc := range []struct {
		name, policies string
		serverName     string // on port 8080's connection manager
		maxHeaders     uint32 // 0: not written
		bufferLimit    uint32 // the listener's; 0: not written
		keys           []string
		newerAttached  string // reason of the newer policy's Attached condition
	}{
		{
			name: "the later entry fills what the first leaves unset",
			policies: lp("a", older, "  perPort: [{port: 8080, listener: {httpSettings: {serverName: first}}}]\n") +
				lp("b", newer, "  perPort: [{port: 8080, listener: {perConnectionBufferLimitBytes: 2000, httpSettings: {serverName: second, maxHeadersCount: 50}}}]\n"),
			serverName: "first", maxHeaders: 50, bufferLimit: 2000,
			keys:          []string{"perPortPolicy[8080]", "perPortPolicy[8080].httpSettings.maxHeadersCount", "perPortPolicy[8080].perConnectionBufferLimitBytes"},
			newerAttached: "Merged",
		},
		{
			name: "the later entry sets only what the first sets: it loses whole",
			policies: lp("a", older, "  perPort: [{port: 8080, listener: {httpSettings: {serverName: first}}}]\n") +
				lp("b", newer, "  perPort: [{port: 8080, listener: {httpSettings: {serverName: second}}}]\n"),
			serverName:    "first",
			keys:          []string{"perPortPolicy[8080]"},
			newerAttached: "Overridden",
		},
		{
			name: "the entry replaces both default sections on its port",
			policies: lp("a", older, "  default: {httpSettings: {serverName: default-a}}\n  perPort: [{port: 8080, listener: {httpSettings: {maxHeadersCount: 7}}}]\n") +
				lp("b", newer, "  default: {perConnectionBufferLimitBytes: 1000}\n"),
			maxHeaders:    7,
			keys:          []string{"default.httpSettings.serverName", "default.perConnectionBufferLimitBytes", "perPortPolicy[8080]"},
			newerAttached: "Merged",
		},
		{
			name: "an invalid setting of the later entry fills nothing",
			policies: lp("a", older, "  perPort: [{port: 8080, listener: {httpSettings: {serverName: first}}}]\n") +
				lp("b", newer, "  perPort: [{port: 8080, listener: {httpSettings: {http2ProtocolOptions: {initialStreamWindowSize: 1}}}}]\n"),
			serverName:    "first",
			keys:          []string{"perPortPolicy[8080]"},
			newerAttached: "Pending",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			input := kgatewayShop + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: cart, port: 80}]
` + tc.policies
			cfg := policy.Config{}
			res := compileInline(t, input, cfg)
			out, err := envoy.Render(res, envoy.Options{Target: "kgateway", Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			l := out.Gateways[0].Listeners[0]
			h := hcmOf(t, l.GetFilterChains()[0])
			if got := h.GetServerName(); got != tc.serverName {
				t.Errorf("server name %q, want %q", got, tc.serverName)
			}
			if got := h.GetCommonHttpProtocolOptions().GetMaxHeadersCount().GetValue(); got != tc.maxHeaders {
				t.Errorf("max headers count %d, want %d", got, tc.maxHeaders)
			}
			if got := l.GetPerConnectionBufferLimitBytes().GetValue(); got != tc.bufferLimit {
				t.Errorf("listener buffer limit %d, want %d", got, tc.bufferLimit)
			}
			var keys []string
			for _, md := range l.GetMetadata().GetFilterMetadata() {
				for k := range md.GetFields() {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			if !slices.Equal(keys, tc.keys) {
				t.Errorf("merge origins keys %v, want %v", keys, tc.keys)
			}
			st := status.Compute(res, status.Options{})
			for _, p := range st.Policies {
				if p.Name != "b" {
					continue
				}
				for _, a := range p.Ancestors {
					for _, c := range a.Conditions {
						if c.Type == "Attached" && c.Reason != tc.newerAttached {
							t.Errorf("newer policy Attached %s (%s), want %s", c.Reason, strings.TrimSpace(c.Message), tc.newerAttached)
						}
					}
				}
			}
		})
	}
}
