package envoygateway

import (
	"encoding/json"
	"strconv"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

var _ policy.RuleFielder = (*Kind)(nil)

// RuleFields implements policy.RuleFielder: an HTTPRoute rule's own CORS
// filter (Gateway API `type: CORS`) as the SecurityPolicy cors value it
// stands for. Envoy Gateway's xDS translator takes the route filter's
// CORS over a SecurityPolicy's, whole (v1.9.0 cors.go patchRoute: the
// HTTPCORSFilter's settings take precedence); with several filters, the
// last one is the route's. maxAge is seconds in the filter and a duration
// in the policy; unset, it is the Gateway API CRD's default, 5.
//
// For BackendTrafficPolicy, the rule's own retry as the retry value it
// stands for: Envoy Gateway takes an HTTPRoute rule's retry over a
// policy's (v1.9.0 ir.HTTPRoute.GetRetry), built from the same IR — the
// attempts as numRetries, the codes as the statuses retried on, the
// back-off as the base interval and the rule's backendRequest timeout as
// the per-try timeout.
func (k *Kind) RuleFields(_ *model.Route, rule *model.Rule, _ policy.Config) []policy.RuleField {
	if k == backendTrafficPolicy {
		return ruleRetry(rule)
	}
	if k != securityPolicy || rule.HTTP == nil {
		return nil
	}
	var last *policy.RuleField
	for i, f := range rule.HTTP.Filters {
		if f.Type != gwv1.HTTPRouteFilterCORS || f.CORS == nil {
			continue
		}
		c := corsOfFilter(f.CORS)
		raw, err := json.Marshal(c)
		if err != nil {
			continue
		}
		last = &policy.RuleField{Key: "cors", Value: &fieldValue{raw: raw, typed: c}, Path: rule.Path + ".filters[" + strconv.Itoa(i) + "].cors"}
	}
	if last == nil {
		return nil
	}
	return []policy.RuleField{*last}
}

// corsOfFilter is a Gateway API CORS filter in SecurityPolicy's cors
// shape, the one renderCORS renders (Envoy Gateway builds the same IR
// from both).
func corsOfFilter(f *gwv1.HTTPCORSFilter) *egv1a1.CORS {
	c := &egv1a1.CORS{}
	for _, o := range f.AllowOrigins {
		c.AllowOrigins = append(c.AllowOrigins, egv1a1.Origin(o))
	}
	for _, m := range f.AllowMethods {
		c.AllowMethods = append(c.AllowMethods, string(m))
	}
	for _, h := range f.AllowHeaders {
		c.AllowHeaders = append(c.AllowHeaders, string(h))
	}
	for _, h := range f.ExposeHeaders {
		c.ExposeHeaders = append(c.ExposeHeaders, string(h))
	}
	maxAge := f.MaxAge
	if maxAge == 0 {
		maxAge = 5
	}
	c.MaxAge = new(gwv1.Duration(strconv.Itoa(int(maxAge)) + "s"))
	c.AllowCredentials = f.AllowCredentials
	return c
}

// Overlay implements policy.RuleFielder: the rule's value replaces the
// policy's whole.
func (k *Kind) Overlay(_ string, over, _ any) (any, bool) { return over, false }

// ruleRetry is an HTTPRoute rule's own retry as BackendTrafficPolicy's
// retry value (see RuleFields).
func ruleRetry(rule *model.Rule) []policy.RuleField {
	if rule.HTTP == nil || rule.HTTP.Retry == nil {
		return nil
	}
	r := rule.HTTP.Retry
	v := map[string]any{}
	if r.Attempts != nil {
		v["numRetries"] = *r.Attempts
	}
	if len(r.Codes) > 0 {
		codes := make([]int, len(r.Codes))
		for i, c := range r.Codes {
			codes[i] = int(c)
		}
		v["retryOn"] = map[string]any{"httpStatusCodes": codes}
	}
	per := map[string]any{}
	if t := rule.HTTP.Timeouts; t != nil && t.BackendRequest != nil {
		per["timeout"] = string(*t.BackendRequest)
	}
	if r.Backoff != nil {
		per["backOff"] = map[string]any{"baseInterval": string(*r.Backoff)}
	}
	if len(per) > 0 {
		v["perRetry"] = per
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return []policy.RuleField{{Key: "retry", Value: json.RawMessage(raw), Path: rule.Path + ".retry"}}
}
