package haptic

import (
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ruleTimeout is the route timeout HAPTIC applies for an HTTPRoute rule's
// own timeouts (Target.RuleTimeout), as gateway/43-maps-route-filters.yaml
// (@10393603, PublishGatewayRouteFilterMaps) publishes it into
// gw-timeout.map: the request timeout, or the backendRequest timeout when
// request is unset, empty or written "0s" — whether or not the rule
// retries. The value chosen is applied in whole milliseconds (rounded
// down); one that is not a duration, or is under a millisecond ("0ms",
// "0m"), applies no timeout at all — the route keeps the deployment's
// default — and the other value is not tried in its place. Only the
// exact text "0s" counts as unset.
func ruleTimeout(ts *gwv1.HTTPRouteTimeouts) *string {
	if ts == nil {
		return nil
	}
	v := durationText(ts.Request)
	if v == "" || v == "0s" {
		v = durationText(ts.BackendRequest)
	}
	if v == "" || v == "0s" {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d.Milliseconds() <= 0 {
		return nil
	}
	return new((time.Duration(d.Milliseconds()) * time.Millisecond).String())
}

func durationText(d *gwv1.Duration) string {
	if d == nil {
		return ""
	}
	return string(*d)
}
