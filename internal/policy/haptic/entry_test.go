package haptic

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestEntryRules: one WAF policy of a catalog, checked as HAPTIC registers
// it (83-waf-policies.yaml: registerPolicy): the entry is valid, or its
// problem says what HAPTIC refuses. An invalid entry makes its catalog
// invalid (TestDeploymentSettings shows the rule failing closed).
func TestEntryRules(t *testing.T) {
	trusted := DefaultSettings().rules(false)
	selfService := DefaultSettings().rules(true)
	long := strings.Repeat("x", maxDescriptionBytes+1)
	for _, tc := range []struct {
		name, catalog string
		rules         entryRules
		want          string // "" valid; else a part of the problem
	}{
		{"every documented setting", `p:
  description: metadata only
  enforcement: detect
  requestBody: {mode: json, maxBytes: "4096"}
  allowedMethods: [GET, POST, PATCH]
  paranoiaLevel: "2"
  anomalyThreshold: {inbound: 10, outbound: "5"}
  ruleExclusions: [{rules: [930130], onPathContains: ".git/"}]
  crsSettings: {allowedRequestContentTypes: [application/x-git-upload-pack-request], maxNumArgs: 500}
  secLang: SecRuleRemoveById 941320`, trusted, ""},
		{"name with capitals", "Public:\n  enforcement: deny", trusted, "has a name HAPTIC refuses"},
		{"name too long", strings.Repeat("a", 64) + ":\n  enforcement: deny", trusted, "has a name HAPTIC refuses"},
		{"null entry", "p:\nq: {}", trusted, `entry "p" is not a map`},
		{"unknown setting", "p:\n  excludedTargetsByTag: {attack-sqli: [ARGS:q]}", trusted, `unknown setting "excludedTargetsByTag"`},
		{"description too long", "p:\n  description: " + long, trusted, "description is longer than 512 bytes"},
		{"description not a string", "p:\n  description: [a]", trusted, "description is not a string"},
		{"requestBody not a map", "p:\n  requestBody: any", trusted, "requestBody is not a map"},
		{"requestBody unknown setting", "p:\n  requestBody: {mode: any, limit: 10}", trusted, `requestBody has an unknown setting "limit"`},
		{"requestBody mode a list", "p:\n  requestBody: {mode: [none]}", trusted, "requestBody.mode"},
		{"maxBytes without a body mode", "p:\n  requestBody: {maxBytes: 4096}", trusted, "while requestBody.mode is none"},
		{"maxBytes with mode none", "p:\n  requestBody: {mode: none, maxBytes: 4096}", trusted, "while requestBody.mode is none"},
		{"maxBytes not a whole number", "p:\n  requestBody: {mode: any, maxBytes: 1.5}", trusted, "requestBody.maxBytes must be a whole number"},
		{"secLang not a string", "p:\n  secLang: [a]", trusted, "secLang is not a string"},
		{"secLang with a triple quote", "p:\n  secLang: 'SecAction \"\"\"'", trusted, `secLang contains """`},
		{"secLang over the limit", "p:\n  secLang: SecRuleRemoveById 941320", entryRules{maxBodyBytes: 8192, maxSecLang: 8, maxExclusion: 256}, "over the limit of 8"},
		{"secLang in self-service", "p:\n  secLang: SecRuleRemoveById 941320", selfService, "self-service catalog may not"},
		{"empty secLang in self-service", "p:\n  secLang: ''", selfService, "self-service catalog may not"},
		{"ruleExclusions not a list", "p:\n  ruleExclusions: {rules: [1]}", trusted, "ruleExclusions is not a list"},
		{"ruleExclusions over the limit", "p:\n  ruleExclusions: [{rules: [920420, 930130]}]", entryRules{maxBodyBytes: 8192, maxSecLang: 65536, maxExclusion: 1}, "over the limit of 1"},
		{"ruleExclusions count IDs and tags across entries", "p:\n  ruleExclusions: [{rules: [920420]}, {tags: [attack-sqli], excludeTarget: 'ARGS:q'}]", entryRules{maxBodyBytes: 8192, maxSecLang: 65536, maxExclusion: 1}, "2 rule IDs and tags by entry 1"},
		{"ruleExclusions at the limit", "p:\n  ruleExclusions: [{rules: [920420], tags: [attack-sqli], excludeTarget: 'ARGS:q'}]", entryRules{maxBodyBytes: 8192, maxSecLang: 65536, maxExclusion: 2}, ""},
		{"ruleExclusions entry not a map", "p:\n  ruleExclusions: [920420]", trusted, "ruleExclusions[0] is not a map"},
		{"ruleExclusions unknown setting", "p:\n  ruleExclusions: [{rules: [930130], ids: [1]}]", trusted, `ruleExclusions[0] has an unknown setting "ids"`},
		{"ruleExclusions rules empty", "p:\n  ruleExclusions: [{rules: []}]", trusted, "rules must be a non-empty list"},
		{"ruleExclusions rule ID not six digits", "p:\n  ruleExclusions: [{rules: [9301]}]", trusted, "not a 6-digit CRS rule ID"},
		{"ruleExclusions rule ID outside the CRS", "p:\n  ruleExclusions: [{rules: [100000]}]", trusted, "outside the CRS rule range"},
		{"ruleExclusions scoring rule", "p:\n  ruleExclusions: [{rules: [949110]}]", trusted, "anomaly-scoring"},
		{"ruleExclusions setup rule", "p:\n  ruleExclusions: [{rules: [900990]}]", trusted, "anomaly-scoring"},
		{"ruleExclusions bad tag", "p:\n  ruleExclusions: [{tags: ['-sqli'], excludeTarget: 'ARGS:q'}]", trusted, "is not a CRS tag"},
		{"ruleExclusions names no rule", "p:\n  ruleExclusions: [{excludeTarget: 'ARGS:q'}]", trusted, "must set rules, tags or both"},
		{"ruleExclusions tags without a target", "p:\n  ruleExclusions: [{tags: [attack-sqli]}]", trusted, "tags without excludeTarget"},
		{"ruleExclusions regex target", "p:\n  ruleExclusions: [{rules: [942100], excludeTarget: 'ARGS:/^q/'}]", trusted, "exact Coraza variable"},
		{"ruleExclusions two path scopes", "p:\n  ruleExclusions: [{rules: [942100], onPathPrefix: /a, onPathSuffix: .json}]", trusted, "more than one of"},
		{"ruleExclusions path not literal", "p:\n  ruleExclusions: [{rules: [942100], onPathPrefix: '/a b'}]", trusted, "onPathPrefix must be a literal URL path"},
		{"ruleExclusions path-scoped target", "p:\n  ruleExclusions: [{rules: [942100], excludeTarget: 'REQUEST_COOKIES:session', onPathExact: /login}]", trusted, ""},
		{"allowedMethods empty", "p:\n  allowedMethods: []", trusted, "non-empty list"},
		{"allowedMethods lower case", "p:\n  allowedMethods: [get]", trusted, "allowedMethods[0]"},
		{"paranoiaLevel zero", "p:\n  paranoiaLevel: 0", trusted, "paranoiaLevel must be"},
		{"anomalyThreshold not a map", "p:\n  anomalyThreshold: 5", trusted, "anomalyThreshold must be a map"},
		{"anomalyThreshold unknown side", "p:\n  anomalyThreshold: {both: 5}", trusted, `unknown setting "both"`},
		{"anomalyThreshold zero", "p:\n  anomalyThreshold: {inbound: 0}", trusted, "anomalyThreshold.inbound"},
		{"anomalyThreshold too large", "p:\n  anomalyThreshold: {outbound: 100000}", trusted, "anomalyThreshold.outbound"},
		{"crsSettings not a map", "p:\n  crsSettings: [maxNumArgs]", trusted, "crsSettings must be a map"},
		{"crsSettings unknown variable", "p:\n  crsSettings: {paranoia: 3}", trusted, `crsSettings has an unknown setting "paranoia"`},
		{"crsSettings content types empty", "p:\n  crsSettings: {allowedRequestContentTypes: []}", trusted, "crsSettings.allowedRequestContentTypes must be a non-empty list"},
		{"crsSettings content type with parameters", "p:\n  crsSettings: {allowedRequestContentTypes: ['text/plain; charset=utf-8']}", trusted, "crsSettings.allowedRequestContentTypes[0] is not a media type"},
		{"crsSettings count over its bound", "p:\n  crsSettings: {maxNumArgs: 100001}", trusted, "crsSettings.maxNumArgs must be a count from 1 to 100000"},
		{"crsSettings size not a number", "p:\n  crsSettings: {maxFileSize: 1k}", trusted, "crsSettings.maxFileSize must be a byte count"},
		{"crsSettings size as text digits", "p:\n  crsSettings: {totalArgLength: '65536'}", trusted, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseCatalog(tc.catalog, tc.rules)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestBodyBudget: the chart refuses to render body settings that do not
// fit together — a default cap over the ceiling, a buffer without room
// for headers, a ceiling the buffer cannot hold — and limits outside its
// bounds; each is a config error naming the key.
func TestBodyBudget(t *testing.T) {
	cfg := func(keyValues ...any) policy.Config {
		c := policy.Config{Values: map[string]any{}}
		for i := 0; i+1 < len(keyValues); i += 2 {
			c.Values[ConfigPrefix+keyValues[i].(string)] = keyValues[i+1]
		}
		return c
	}
	body := func(rb map[string]any) map[string]any {
		return map[string]any{"policies": map[string]any{"requestBody": rb}}
	}
	buffer := func(b map[string]any) map[string]any { return map[string]any{"haproxyBuffer": b} }
	limits := func(l map[string]any) map[string]any { return map[string]any{"policies": map[string]any{"limits": l}} }
	for _, tc := range []struct {
		name string
		cfg  policy.Config
		want string // "" accepted
	}{
		{"chart defaults", cfg(), ""},
		{"lowered ceiling keeps the default cap", cfg("waf", body(map[string]any{"maxBytes": 4096})), "defaultMaxBytes (8192) must not exceed maxBytes (4096)"},
		{"lowered ceiling and default cap", cfg("waf", body(map[string]any{"maxBytes": 4096, "defaultMaxBytes": 2048})), ""},
		{"raised ceiling without a larger buffer", cfg("waf", body(map[string]any{"maxBytes": 16384})), "exceeds the HAProxy request buffer left for bodies"},
		{"raised ceiling with a larger buffer", cfg("waf", body(map[string]any{"maxBytes": 16384}), "requestBodyInspection", buffer(map[string]any{"sizeBytes": "24576"})), ""},
		{"reserved fills the buffer", cfg("requestBodyInspection", buffer(map[string]any{"reservedBytes": 16384})), "reservedBytes (16384) must be smaller than sizeBytes"},
		{"buffer below the minimum", cfg("requestBodyInspection", buffer(map[string]any{"sizeBytes": 8192})), "sizeBytes must be from 16384"},
		{"maxCount zero", cfg("waf", limits(map[string]any{"maxCount": 0})), "haptic.waf.policies.limits.maxCount must be from 1"},
		{"maxSecLangBytes as a string", cfg("waf", limits(map[string]any{"maxSecLangBytes": "1024"})), ""},
		{"maxRuleExclusions over its bound", cfg("waf", limits(map[string]any{"maxRuleExclusions": 5000})), "maxRuleExclusions must be from 1 to 4096"},
		{"unknown limit", cfg("waf", limits(map[string]any{"maxExcludedTargets": 10})), "maxExcludedTargets is not a setting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSettings(tc.cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestTrustedPolicyCount: more trusted WAF policies, inline and in
// trusted catalogs together, than waf.policies.limits.maxCount is refused
// by the chart; gwpol reports it on the limit's key.
func TestTrustedPolicyCount(t *testing.T) {
	objs, err := manifest.Parse("deps.yaml", []byte(trustedDeps), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{})
	cfg := func(maxCount int) policy.Config {
		return policy.Config{Values: map[string]any{ConfigPrefix + "waf": map[string]any{"policies": map[string]any{
			"inline":        map[string]any{"a": map[string]any{}, "b": map[string]any{}},
			"configMapRefs": map[string]any{"c": map[string]any{"namespace": "security", "name": "catalog"}},
			"limits":        map[string]any{"maxCount": maxCount},
		}}}}
	}
	if got := codes(CheckDeployment(m, cfg(16), nil)); len(got) != 0 {
		t.Errorf("within the limit: %q", got)
	}
	got := CheckDeployment(m, cfg(2), nil)
	if c := codes(got); !slices.Equal(c, []string{"GWP402 haptic.waf.policies.limits.maxCount"}) {
		t.Fatalf("over the limit: %q", c)
	}
	if !strings.Contains(got[0].Message, "over the limit of 2") {
		t.Errorf("message: %s", got[0].Message)
	}
}
