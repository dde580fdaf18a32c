package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestCompletionsFromInputs drives the shell's __complete protocol: the
// suggestions come from the -f inputs already on the command line.
func TestCompletionsFromInputs(t *testing.T) {
	ex := "testdata/examples"
	tests := []struct {
		name    string
		args    []string
		want    []string
		notWant []string
	}{
		{"explain routes and rules", []string{"explain", "-f", ex, "httproute/shop/or"},
			[]string{"httproute/shop/orders", "httproute/shop/orders/create", "httproute/shop/orders/#1"}, []string{"httproute/shop/cart"}},
		{"explain policies in the -n namespace", []string{"explain", "-f", ex, "-n", "shop", "trafficpolicy/"},
			[]string{"trafficpolicy/orders-cors", "trafficpolicy/orders-retry-a"}, []string{"trafficpolicy/infra/edge-defaults"}},
		{"explain gateways and listeners", []string{"explain", "-f", ex, "gateway/infra/pub"},
			[]string{"gateway/infra/public", "gateway/infra/public/https"}, nil},
		{"render --gateway", []string{"render", "-f", ex, "--gateway", ""},
			[]string{"infra/public", "infra/internal"}, nil},
		{"graph --policy", []string{"graph", "-f", ex, "--policy", "trafficpolicy/infra/"},
			[]string{"trafficpolicy/infra/edge-defaults", "trafficpolicy/infra/https-timeouts"}, []string{"trafficpolicy/shop/orders-cors"}},
		{"render --route", []string{"render", "-f", ex, "--route", "grpc"},
			[]string{"grpcroute/api/accounts-grpc", "grpcroute/payments/ledger-api"}, []string{"httproute/shop/orders"}},
		{"no inputs, no suggestions", []string{"explain", "httproute/"}, nil, []string{"httproute/shop/orders"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"__complete"}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) == 0 || lines[len(lines)-1] != ":4" {
				t.Errorf("want directive :4 (no file completion) last, got %q", out)
			}
			for _, w := range tt.want {
				if !slices.Contains(lines, w) {
					t.Errorf("missing %q in %q", w, lines)
				}
			}
			for _, w := range tt.notWant {
				if slices.Contains(lines, w) {
					t.Errorf("unexpected %q in %q", w, lines)
				}
			}
		})
	}
}
