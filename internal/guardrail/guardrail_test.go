package guardrail

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		name, key string
		sub       string
		ok        bool
	}{
		{"extAuth", "extAuth", "", true},
		{"rateLimit", "rateLimit.local", "", true},
		{"perPortPolicy", "perPortPolicy[80]", "", true},
		{"timeouts.request", "timeouts", "request", true},
		{"rateLimit.local.rules.limit.unit", "rateLimit", "local.rules.limit.unit", true},
		{"rateLimit.local", "rateLimit.local", "", true},
		{"extAuthz", "extAuth", "", false},
		{"timeouts", "timeout", "", false},
	}
	for _, tt := range tests {
		sub, ok := match(tt.name, tt.key)
		if ok != tt.ok || strings.Join(sub, ".") != tt.sub {
			t.Errorf("match(%q, %q) = %q, %v; want %q, %v", tt.name, tt.key, sub, ok, tt.sub, tt.ok)
		}
	}
}

// TestNodesAndScalars: a sub-field path reaches into maps and through
// every element of a list, with each part's path for positions.
func TestNodesAndScalars(t *testing.T) {
	v := json.RawMessage(`{"local":{"rules":[{"limit":{"requests":5,"unit":"Hour"}},{"limit":{"unit":"Second"}}]},"type":"Local"}`)
	data := decode(v)
	var got []string
	for _, l := range scalars(nodes(data, []string{"local", "rules", "limit", "unit"})) {
		got = append(got, l.path+"="+text(l.value))
	}
	if want := ".local.rules[0].limit.unit=Hour .local.rules[1].limit.unit=Second"; strings.Join(got, " ") != want {
		t.Errorf("unit leaves %q, want %q", got, want)
	}
	got = nil
	for _, l := range scalars(nodes(data, nil)) {
		got = append(got, l.path+"="+text(l.value))
	}
	if want := ".local.rules[0].limit.requests=5 .local.rules[0].limit.unit=Hour .local.rules[1].limit.unit=Second .type=Local"; strings.Join(got, " ") != want {
		t.Errorf("all leaves %q, want %q", got, want)
	}
	if n := nodes(data, []string{"global"}); len(n) != 0 {
		t.Errorf("nodes of a part the value lacks: %v", n)
	}
}

func TestBounds(t *testing.T) {
	for _, tt := range []struct {
		bound string
		v     any
		cmp   int
		ok    bool
	}{
		{"60s", "120s", 1, true},
		{"60s", "30s", -1, true},
		{"60s", "1m", 0, true},
		{"1h", "1d", 1, true},
		{"60s", json.Number("90"), 0, false}, // a number is not a duration
		{"100", json.Number("500"), 1, true},
		{"100", json.Number("99.5"), -1, true},
		{"100", "500", 0, false}, // a string is not a number
		{"60s", "soon", 0, false},
	} {
		b, err := parseBound(tt.bound)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := b.compare(tt.v)
		if c != tt.cmp || ok != tt.ok {
			t.Errorf("%s vs %v = %d, %v; want %d, %v", tt.bound, tt.v, c, ok, tt.cmp, tt.ok)
		}
	}
	if _, err := parseBound("sixty"); err == nil {
		t.Error("parseBound(sixty) succeeded")
	}
	if d, ok := parseDuration("2d"); !ok || d != 48*time.Hour {
		t.Errorf("parseDuration(2d) = %v, %v", d, ok)
	}
}

func TestPositionsOf(t *testing.T) {
	got := positionsOf("spec.policies.policies[1].params.limits[0].requests", "spec.policies")
	want := []string{"spec.policies.policies[1].params.limits[0].requests", "spec.policies[1].params.limits[0].requests",
		"spec.policies[1].params.limits[0]", "spec.policies[1].params.limits", "spec.policies[1].params", "spec.policies[1]", "spec.policies", "spec.policies"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("positionsOf = %q\nwant %q", got, want)
	}
}

func TestJudge(t *testing.T) {
	r := Rule{Type: Bounds, Max: &Bound{Text: "60s", IsDuration: true, Duration: time.Minute}, Min: &Bound{Text: "1s", IsDuration: true, Duration: time.Second}}
	for v, want := range map[string]string{"30s": "", "2m": "at most 60s", "500ms": "no less than 1s"} {
		p, applies := r.judge(v)
		if !applies || !strings.Contains(p, want) || (want == "" && p != "") {
			t.Errorf("judge(%s) = %q, %v; want %q", v, p, applies, want)
		}
	}
	o := Rule{Type: OneOf, OneOf: []string{"Second", "Minute"}}
	if p, _ := o.judge("Hour"); !strings.Contains(p, "only Second, Minute") {
		t.Errorf("oneOf judge(Hour) = %q", p)
	}
	if p, _ := o.judge(json.Number("1")); p == "" {
		t.Error("oneOf judge(1) holds")
	}
}
