package envoygateway

import (
	"fmt"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	csrfv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/csrf/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/policy"
)

// csrfFilter is Envoy's CSRF filter, which Envoy Gateway adds once per
// listener, enforcing nothing, and configures per route.
const csrfFilter = "envoy.filters.http.csrf"

// renderCSRF is Envoy Gateway's CSRF protection: the filter on in the
// chain with 0 % enforced, and on the route a CsrfPolicy enforcing every
// request but the shadow fraction, which is evaluated in shadow mode
// instead (100 % of the rest, since Envoy draws the two fractions
// independently). Additional origins are matched without their scheme
// (Envoy compares the Origin header's host[:port]): exactly, or with
// "*" as any run of characters.
func renderCSRF(c *egv1a1.CSRF, _ policyName) ([]policy.Fragment, error) {
	if c == nil {
		c = &egv1a1.CSRF{}
	}
	enforced := uint32(100)
	per := &csrfv3.CsrfPolicy{}
	if f := c.ShadowFraction; f != nil {
		num, den := int64(f.Numerator), int64(100)
		if f.Denominator != nil {
			den = int64(*f.Denominator)
		}
		if den <= 0 || num < 0 || num > den {
			return nil, fmt.Errorf("csrf.shadowFraction: %d/%d is not a fraction between 0 and 1", num, den)
		}
		enforced = 100 - uint32(num*100/den)
		per.ShadowEnabled = csrfPercent(100)
	}
	per.FilterEnabled = csrfPercent(enforced)
	for _, origin := range c.AdditionalOrigins {
		o := string(origin)
		if _, host, ok := strings.Cut(o, "://"); ok {
			o = host
		}
		per.AdditionalOrigins = append(per.AdditionalOrigins, originMatcher(o))
	}
	return []policy.Fragment{{
		Capability:           "csrf",
		Filter:               &policy.HTTPFilter{Name: csrfFilter, Order: orderCSRF, Enabled: true, Typed: &csrfv3.CsrfPolicy{FilterEnabled: csrfPercent(0)}},
		TypedPerFilterConfig: map[string]proto.Message{csrfFilter: per},
	}}, nil
}

// csrfPercent is a runtime fraction of n per hundred.
func csrfPercent(n uint32) *corev3.RuntimeFractionalPercent {
	return &corev3.RuntimeFractionalPercent{DefaultValue: &typev3.FractionalPercent{Numerator: n, Denominator: typev3.FractionalPercent_HUNDRED}}
}
