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
func (k *Kind) RuleFields(_ *model.Route, rule *model.Rule) []policy.RuleField {
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
