package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
)

func TestConfigFileKeys(t *testing.T) {
	tests := []struct {
		name, config string
		want         string // "" = accepted; else a part of the usage error
	}{
		{"valid", "namespace: shop\nlint:\n  failOn: warning\n  ignore:\n  - code: GWP303\n    object: TrafficPolicy/infra/*\n  severity:\n    GWP301: info\n", ""},
		{"kgateway settings", "enableAuthMetadata: true\ndiscoveryNamespaceSelectors: []\npolicyMerge:\n  trafficPolicy:\n    extAuth: DeepMerge\n", ""},
		{"kgateway version", "kgatewayVersion: v2.1.0\n", ""},
		{"empty file", "", ""},
		{"misspelled nested key", "lint:\n  failOnn: warning\n", `.gwpol.yaml:2:3: unknown key "lint.failOnn"; did you mean "lint.failOn"?`},
		{"misspelled section key", "lint:\n  ignores:\n  - code: GWP303\n", `unknown key "lint.ignores"; did you mean "lint.ignore"?`},
		{"misspelled top key", "namepsace: shop\n", `.gwpol.yaml:1:1: unknown key "namepsace"; did you mean "namespace"?`},
		{"unknown ignore code", "lint:\n  ignore:\n  - code: GWP999\n", `lint.ignore names rule "GWP999", which does not exist`},
		{"near ignore code", "lint:\n  ignore:\n  - code: GWP3O3\n", `did you mean "GWP303"?`},
		{"unknown ignore entry key", "lint:\n  ignore:\n  - codes: GWP303\n", `unknown key "codes" in a lint.ignore entry (keys: code, object); did you mean "code"?`},
		{"unknown severity code", "lint:\n  severity:\n    GWP1234: info\n", `lint.severity names rule "GWP1234"`},
		{"bad value", "lint:\n  failOn: sometimes\n", `lint.failOn: unknown severity "sometimes"`},
		{"envoy gateway rate limit service", "envoyGateway:\n  rateLimit:\n    enabled: true\n    serviceURL: grpc://rls.infra.svc:8081\n    timeout: 20ms\n    failClosed: true\n", ""},
		{"misspelled rate limit key", "envoyGateway:\n  rateLimit:\n    enable: true\n", `unknown key "envoyGateway.rateLimit.enable"; did you mean "envoyGateway.rateLimit.enabled"?`},
		{"rate limit service without a port", "envoyGateway:\n  rateLimit:\n    serviceURL: grpc://rls.infra.svc\n", `envoyGateway.rateLimit.serviceURL must be a URL with a host and a port`},
		{"key set twice", "namespace: shop\nenableAuthMetadata: false\nlint:\n  failOn: error\nenableAuthMetadata: true\n", `.gwpol.yaml:5:1: key "enableAuthMetadata" is set twice (also at line 2)`},
		{"nested key set twice", "lint:\n  failOn: error\n  failOn: warning\n", `.gwpol.yaml:3:3: key "failOn" is set twice (also at line 2)`},
		{"not yaml", "namespace: shop\n\tlint: {}\n", `.gwpol.yaml:2: not valid YAML: found a tab character that violates indentation`},
		{"rate limit timeout not a duration", "envoyGateway:\n  rateLimit:\n    timeout: 20\n", `envoyGateway.rateLimit.timeout must be a duration such as 20ms, not "20"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, DefaultConfigFile)
			if err := os.WriteFile(path, []byte(tt.config), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := loadConfig(path)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("loadConfig: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("loadConfig error = %v, want it to contain %q", err, tt.want)
			}
			if got := exitCode(err); got != ExitUsage {
				t.Errorf("exit code = %d, want %d (usage)", got, ExitUsage)
			}
		})
	}
}

func TestConfigEnvKeys(t *testing.T) {
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"GWPOL_NAMESPACE=x", "GWPOL_LINT_FAILON=warning", "HOME=/root"}, ""},
		{[]string{"GWPOL_ENABLEAUTHMETADATA=true"}, ""},
		{[]string{"GWPOL_LINT_FAILONN=warning"}, "GWPOL_LINT_FAILONN names no gwpol setting; did you mean GWPOL_LINT_FAILON?"},
		{[]string{"GWPOL_COLOUR=1"}, "GWPOL_COLOUR names no gwpol setting"},
		{[]string{"GWPOL_GUARDRAILS=x"}, "guardrails are read from the config file only"},
	}
	for _, tt := range tests {
		err := checkConfigEnv(tt.env)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v: %v", tt.env, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || diag.KindOf(err) != diag.Usage):
			t.Errorf("%v: error %v, want a usage error containing %q", tt.env, err, tt.want)
		}
	}
}
