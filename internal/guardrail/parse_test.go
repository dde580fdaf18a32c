package guardrail_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/guardrail"
	yaml "go.yaml.in/yaml/v3"
)

func parse(t testing.TB, src string) ([]guardrail.Rule, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Skip(err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode || len(doc.Content[0].Content) < 2 {
		return guardrail.Parse("g.yaml", nil, families.Registry())
	}
	return guardrail.Parse("g.yaml", doc.Content[0].Content[1], families.Registry())
}

// TestParse: each type of rule reads into its fields; a field name of
// every family is known.
func TestParse(t *testing.T) {
	rs, err := parse(t, `guardrails:
- name: owns
  fields: [extAuth, waf, chain, timeout.http.requestTimeout]
  setOnlyBy: {namespaces: [infra], policies: [TrafficPolicy/infra/p, gateway.kgateway.dev/TrafficPolicy/infra/q]}
  gateways: [infra/public]
- name: cap
  fields: timeouts.request
  max: 60s
  min: 1s
  severity: warning
  routes: {namespaces: [team]}
- name: units
  fields: [rateLimit.local.rules.limit.unit]
  oneOf: [Second]
  message: per second
- name: req
  require: [rateLimit.local, authentication.jwt.issuer]
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || rs[0].Type != guardrail.SetOnlyBy || rs[1].Type != guardrail.Bounds || rs[2].Type != guardrail.OneOf || rs[3].Type != guardrail.Require {
		t.Fatalf("rules %+v", rs)
	}
	if rs[1].Severity != diag.Warning || rs[0].Severity != diag.Error || rs[1].Max.Text != "60s" || !rs[1].Min.IsDuration || rs[1].RouteNamespaces[0] != "team" || rs[0].Gateways[0] != "infra/public" {
		t.Errorf("details: %+v / %+v", rs[0], rs[1])
	}
	if len(rs[3].Fields) != 2 || rs[2].Message != "per second" {
		t.Errorf("require %v, message %q", rs[3].Fields, rs[2].Message)
	}
}

// TestParseErrors: each problem is a usage error at its line.
func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"guardrails: {a: b}", "g.yaml:1:13: guardrails must be a list"},
		{"guardrails:\n- fields: [extAuth]\n  setOnlyBy: {namespaces: [a]}", "has no name"},
		{"guardrails:\n- {name: a, require: [extAuth]}\n- {name: a, require: [cors]}", `a second rule named "a"`},
		{"guardrails:\n- {name: a}", "says nothing to check"},
		{"guardrails:\n- {name: a, fields: [cors], setOnlyBy: {}}", "names no namespace and no policy"},
		{"guardrails:\n- {name: a, fields: [cors], max: 1s, min: 5}", "not both durations or both numbers"},
		{"guardrails:\n- {name: a, require: [cors], fields: [cors]}", "require lists the required fields itself"},
		{"guardrails:\n- {name: a, fields: [timeouts.requestt], max: 1s}", `g.yaml:2:22: guardrails[0].fields: unknown field "timeouts.requestt": timeouts has no "requestt"; did you mean "timeouts.request"?`},
		{"guardrails:\n- {name: a, fields: [cors], oneOf: []}", "oneOf lists no value"},
		{"guardrails:\n- {name: a, fields: [cors], setOnlyBy: {policies: [infra/p]}}", "is not KIND/NAMESPACE/NAME"},
		{"guardrails:\n- {name: a, require: [cors], gateways: [public]}", `"public" is not NAMESPACE/NAME`},
		{"guardrails:\n- {name: a, require: [cors], routes: {namespace: [a]}}", `did you mean "namespaces"?`},
		{"guardrails:\n- {name: a, fields: [waf.policy.x], max: 3}", `waf.policy has no sub-fields`},
	} {
		_, err := parse(t, tt.src)
		if err == nil || diag.KindOf(err) != diag.Usage || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v; want a usage error with %q", tt.src, err, tt.want)
		}
	}
}

// FuzzParse: any YAML under guardrails: is rules or a usage error, never
// a panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"guardrails:\n- {name: a, fields: [extAuth], setOnlyBy: {namespaces: [infra]}}",
		"guardrails:\n- {name: a, fields: [timeouts.request], max: 60s, min: 1s}",
		"guardrails:\n- {name: a, require: [rateLimit.local], severity: warning, gateways: [a/b], routes: {namespaces: [x]}}",
		"guardrails:\n- {name: a, fields: [chain.policies.name], oneOf: [x, 1, true]}",
		"guardrails: [[], {}, null, 1]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		rs, err := parse(t, src)
		if err != nil && diag.KindOf(err) != diag.Usage {
			t.Fatalf("%q: %v is not a usage error", src, err)
		}
		for _, r := range rs {
			if r.Name == "" || r.Type == 0 {
				t.Fatalf("%q: incomplete rule %+v", src, r)
			}
		}
	})
}
