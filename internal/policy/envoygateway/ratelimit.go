package envoygateway

import (
	"encoding/json"
	"regexp"
)

// rateLimitSpec is what the rate-limit checks read.
type rateLimitSpec struct {
	RateLimit *struct {
		Local  *rateLimitRules `json:"local"`
		Global *rateLimitRules `json:"global"`
	} `json:"rateLimit"`
}

type rateLimitRules struct {
	Rules []struct {
		ClientSelectors []struct {
			Headers []struct {
				Type   string `json:"type"`
				Value  string `json:"value"`
				Invert bool   `json:"invert"`
			} `json:"headers"`
		} `json:"clientSelectors"`
		Limit struct {
			Unit string `json:"unit"`
		} `json:"limit"`
	} `json:"rules"`
}

// unitSeconds are the rate-limit units.
var unitSeconds = map[string]int{"Second": 1, "Minute": 60, "Hour": 3600, "Day": 86400, "Month": 2592000, "Year": 31536000}

// rateLimit checks what Envoy Gateway rejects in rate-limit rules: a
// header regex RE2 cannot compile, invert on a Distinct match, and for a
// local limit more than one default rule (without clientSelectors) or a
// rule whose unit is not a multiple of the default rule's.
func (v valueChecks) rateLimit(raw []byte) {
	var rl rateLimitSpec
	if json.Unmarshal(raw, &rl) != nil || rl.RateLimit == nil {
		return
	}
	for _, rules := range []*rateLimitRules{rl.RateLimit.Local, rl.RateLimit.Global} {
		if rules != nil && v.headerMatches(rules) {
			return
		}
	}
	if l := rl.RateLimit.Local; l != nil {
		v.localDefaults(l)
	}
}

// headerMatches reports a bad header match; true when it found one.
func (v valueChecks) headerMatches(rules *rateLimitRules) bool {
	for _, r := range rules.Rules {
		for _, cs := range r.ClientSelectors {
			for _, h := range cs.Headers {
				switch {
				case h.Type == "RegularExpression":
					if _, err := regexp.Compile(h.Value); err != nil {
						v.invalid([]string{"rateLimit"}, "RateLimit: regex %q is invalid: %v", h.Value, err)
						return true
					}
				case h.Type == "Distinct" && h.Invert:
					v.invalid([]string{"rateLimit"}, "RateLimit: unable to translate rateLimit.Invert is not applicable for distinct header match type.")
					return true
				}
			}
		}
	}
	return false
}

func (v valueChecks) localDefaults(l *rateLimitRules) {
	defaults, unit := 0, 0
	for _, r := range l.Rules {
		if len(r.ClientSelectors) == 0 {
			defaults++
			unit = unitSeconds[r.Limit.Unit]
		}
	}
	if defaults > 1 {
		v.invalid([]string{"rateLimit", "local"}, "RateLimit: local rateLimit can not have more than one rule without clientSelectors.")
		return
	}
	if unit == 0 {
		return
	}
	for _, r := range l.Rules {
		if s := unitSeconds[r.Limit.Unit]; len(r.ClientSelectors) > 0 && s > 0 && s%unit != 0 {
			v.invalid([]string{"rateLimit", "local"}, "RateLimit: local rateLimit rule limit unit must be a multiple of the default limit unit.")
			return
		}
	}
}
