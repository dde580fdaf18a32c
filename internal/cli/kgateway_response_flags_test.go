package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKgatewayResponseFlagsAsWritten: kgateway copies a responseFlagFilter's
// flags into Envoy's filter as written, in an access log's filter and in a
// local reply mapper's, whether Envoy knows them or not (the CRD takes any
// string), so the ListenerPolicy stays Accepted whatever the flags. Envoy
// takes its short codes only: a long name is written as its code (the
// listed divergence, so that the config is valid), and a flag Envoy does
// not know is render's finding at the setting (GWP401, Envoy's own rule
// quoted), the setting left out of the rendered listener.
func TestKgatewayResponseFlagsAsWritten(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings string // the ListenerPolicy's httpSettings, in flow style
		refused  bool   // Envoy refuses a flag: lint GWP401 at the setting
		rendered string // in the rendered listener when not refused
	}{
		{name: "access log, short codes", settings: `{accessLog: [{fileSink: {path: /dev/stdout, stringFormat: "x"}, filter: {responseFlagFilter: {flags: [UH, UF]}}}]}`,
			rendered: `"flags":["UH","UF"]`},
		{name: "access log, a long name in an andFilter", settings: `{accessLog: [{fileSink: {path: /dev/stdout, stringFormat: "x"}, filter: {andFilter: [{notHealthCheckFilter: true}, {responseFlagFilter: {flags: [UF, NoHealthyUpstream]}}]}}]}`,
			rendered: `"flags":["UF","UH"]`},
		{name: "access log, an unknown flag", settings: `{accessLog: [{fileSink: {path: /dev/stdout, stringFormat: "x"}, filter: {responseFlagFilter: {flags: [UH, uh]}}}]}`,
			refused: true},
		{name: "local reply, an unknown flag in an orFilter", settings: `{localReplies: {mappers: [{filter: {orFilter: [{traceableFilter: true}, {responseFlagFilter: {flags: [Nope]}}]}, statusCode: 503}]}}`,
			refused: true},
		{name: "local reply, short codes", settings: `{localReplies: {mappers: [{filter: {responseFlagFilter: {flags: [NR, DPE]}}, statusCode: 404}]}}`,
			rendered: `"flags":["NR","DPE"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kgw}\nspec: {controllerName: kgateway.dev/kgateway}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: apps}\nspec:\n  gatewayClassName: kgw\n  listeners: [{name: http, protocol: HTTP, port: 80}]\n" +
				"---\napiVersion: gateway.kgateway.dev/v1alpha1\nkind: ListenerPolicy\nmetadata: {name: lp, namespace: apps}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n" +
				"  default: {httpSettings: " + tc.settings + "}\n"
			path := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
				t.Fatal(err)
			}
			status, _, _ := run(t, "status", "-f", path)
			if i := strings.Index(status, "kind: ListenerPolicy"); i < 0 || !strings.Contains(status[i:], "type: Accepted\n            status: \"True\"") {
				t.Errorf("the ListenerPolicy is not Accepted, as kgateway writes it:\n%s", status)
			}
			lint, _, _ := run(t, "lint", "-f", path)
			if got := strings.Contains(lint, "GWP401") && strings.Contains(lint, "ResponseFlagFilter.Flags"); got != tc.refused {
				t.Errorf("lint reports Envoy's refusal of a flag: %v, want %v:\n%s", got, tc.refused, lint)
			}
			out, errOut, _ := run(t, "render", "-f", path, "-o", "json")
			compact := strings.Join(strings.Fields(out), "")
			if strings.Contains(compact, "response_flag_filter") == tc.refused {
				t.Errorf("rendered listener has a response flag filter: %v, want %v\n%s%s", !tc.refused, !tc.refused, out, errOut)
			}
			if tc.rendered != "" && !strings.Contains(compact, tc.rendered) {
				t.Errorf("rendered listener lacks %s:\n%s", tc.rendered, out)
			}
		})
	}
}
