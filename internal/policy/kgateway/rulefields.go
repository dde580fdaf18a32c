package kgateway

import (
	"strconv"
	"time"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// ruleRetryOn is what kgateway retries on for an HTTPRoute rule's own
// retry, sorted as kgateway writes it (retriable-status-codes is always
// there; the codes themselves may be empty).
var ruleRetryOn = []string{"cancelled", "connect-failure", "refused-stream", "reset", "retriable-headers", "retriable-status-codes", "unavailable"}

// RuleFields implements policy.RuleFielder: an HTTPRoute rule's own
// timeouts and retry, translated the way kgateway's built-in rule policy
// translates them, as TrafficPolicy timeouts and retry values. kgateway
// applies them before any TrafficPolicy, which only fills what they leave
// unset. GRPCRoute rules have neither field. With
// enableExperimentalGatewayAPIFeatures false kgateway skips the rule's
// retry (buildHTTPRouteRulePolicy), and its timeouts are chosen as for a
// rule without one.
func (k Kind) RuleFields(rt *model.Route, rule *model.Rule, cfg policy.Config) []policy.RuleField {
	return k.RuleFieldsOn(rt, rule, cfg, nil)
}

var _ policy.TargetRuleFielder = Kind{}

// RuleFieldsOn implements policy.TargetRuleFielder: RuleFields, with the
// rule's route timeout the one the target serving the route applies
// (Target.RuleTimeout) when it says, and kgateway's otherwise. The
// timeouts value is the Gateway API translation gwpol shares, so on
// another controller's routes it stands for that controller's reading.
func (Kind) RuleFieldsOn(_ *model.Route, rule *model.Rule, cfg policy.Config, target *policy.Target) []policy.RuleField {
	if rule.HTTP == nil {
		return nil
	}
	var out []policy.RuleField
	backend := gwDuration(ruleBackendRequest(rule.HTTP))
	retry := rule.HTTP.Retry
	if !EnableExperimentalGatewayAPIFeatures.Bool(cfg) {
		retry = nil
	}
	t := ruleTimeout(rule.HTTP.Timeouts, retry != nil)
	if target != nil && target.RuleTimeout != nil {
		t = target.RuleTimeout(rule.HTTP.Timeouts)
	}
	if t != nil {
		out = append(out, policy.RuleField{Key: "timeouts", Value: &Timeouts{Request: t}, Path: rule.Path + ".timeouts"})
	}
	out = append(out, ruleRewrites(rule)...)
	out = append(out, ruleCORS(rule)...)
	if r := retry; r != nil {
		v := &Retry{RetryOn: ruleRetryOn, Attempts: new(int32(1)), BackoffBaseInterval: gwDuration(r.Backoff), PerTryTimeout: backend}
		if r.Attempts != nil {
			v.Attempts = new(int32(*r.Attempts))
		}
		for _, c := range r.Codes {
			v.StatusCodes = append(v.StatusCodes, int32(c))
		}
		out = append(out, policy.RuleField{Key: "retry", Value: v, Path: rule.Path + ".retry"})
	}
	return out
}

// RuleRewrite is a rule's own URLRewrite filter standing for the
// TrafficPolicy field it beats: a hostname beats autoHostRewrite, a path
// beats urlRewrite (kgateway applies a policy's only when the route has no
// host rewrite, no prefix and no regex rewrite yet). Gateway API routing
// renders the filter itself, so the kind renders nothing for it.
type RuleRewrite struct {
	Hostname string `json:"hostname,omitempty"`
	Path     string `json:"path,omitempty"` // ReplaceFullPath or ReplacePrefixMatch, then the value
}

// ruleRewrites are the rule's own URLRewrite filter as TrafficPolicy
// values. A delegating rule's filters stay on the parent (they do not
// reach the children's routes).
func ruleRewrites(rule *model.Rule) []policy.RuleField {
	for _, b := range rule.BackendRefs {
		if b.Kind != nil && *b.Kind == "HTTPRoute" {
			return nil
		}
	}
	var out []policy.RuleField
	for i, f := range rule.HTTP.Filters {
		rw := f.URLRewrite
		if f.Type != gwv1.HTTPRouteFilterURLRewrite || rw == nil {
			continue
		}
		path := rule.Path + ".filters[" + strconv.Itoa(i) + "].urlRewrite"
		if rw.Hostname != nil {
			out = append(out, policy.RuleField{Key: "autoHostRewrite", Value: &RuleRewrite{Hostname: string(*rw.Hostname)}, Path: path + ".hostname"})
		}
		if p := rw.Path; rewritesPath(p) && (p.ReplaceFullPath != nil || p.ReplacePrefixMatch != nil) {
			v := &RuleRewrite{Path: string(p.Type) + " " + deref(p.ReplaceFullPath) + deref(p.ReplacePrefixMatch)}
			out = append(out, policy.RuleField{Key: "urlRewrite", Value: v, Path: path + ".path"})
		}
	}
	return out
}

// ruleCORS is the rule's own CORS filter (Gateway API HTTPRoute `type:
// CORS`) as the TrafficPolicy cors value it stands for: kgateway's
// built-in route policy writes the route's CORS configuration from it
// directly, and a TrafficPolicy's cors only fills a route that has none
// by then, as for every other rule field. With several, the last is in
// effect (each writes the route's one CORS configuration). A delegating
// rule's filter reaches the children it keeps as its other built-in
// policies do (merge folds it in with the parent route's inherited
// priority): a child without a CORS filter of its own takes it, ahead of
// the child's TrafficPolicies.
func ruleCORS(rule *model.Rule) []policy.RuleField {
	var last *policy.RuleField
	for i, f := range rule.HTTP.Filters {
		if f.Type != gwv1.HTTPRouteFilterCORS || f.CORS == nil {
			continue
		}
		last = &policy.RuleField{Key: "cors", Value: &CorsPolicy{HTTPCORSFilter: *f.CORS, rule: true}, Path: rule.Path + ".filters[" + strconv.Itoa(i) + "].cors"}
	}
	if last == nil {
		return nil
	}
	return []policy.RuleField{*last}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ruleTimeout is the route timeout kgateway derives from a rule's
// timeouts: when the rule retries, its request timeout (the backend
// timeout bounds each try instead); when it does not, the backend timeout,
// else the request timeout. Unparsable durations count as unset.
func ruleTimeout(ts *gwv1.HTTPRouteTimeouts, retry bool) *string {
	if ts == nil {
		return nil
	}
	req, backend := gwDuration(ts.Request), gwDuration(ts.BackendRequest)
	if !retry && backend != nil {
		return backend
	}
	return req
}

func ruleBackendRequest(r *gwv1.HTTPRouteRule) *gwv1.Duration {
	if r.Timeouts == nil {
		return nil
	}
	return r.Timeouts.BackendRequest
}

// gwDuration is a Gateway API duration as a Go duration string, nil when
// unset or unparsable (the CRD validates it; kgateway skips a bad one).
func gwDuration(d *gwv1.Duration) *string {
	if d == nil {
		return nil
	}
	if _, err := time.ParseDuration(string(*d)); err != nil {
		return nil
	}
	return new(string(*d))
}

// Overlay implements policy.RuleFielder. Timeouts combine part by part:
// the request and the stream-idle timeout each come from the more
// specific value that sets it (kgateway sets a route's timeout only where
// none is set yet, and its idle timeout from the route's policy, else the
// Gateway's). Any other field, a rule's own retry included, replaces the
// less specific value whole.
func (Kind) Overlay(key string, over, under any) (any, bool) {
	if key != "timeouts" {
		return over, false
	}
	o, ok := over.(*Timeouts)
	u, ok2 := under.(*Timeouts)
	if !ok || !ok2 {
		return over, false
	}
	eff, remains := *o, false
	if eff.Request == nil && u.Request != nil {
		eff.Request, remains = u.Request, true
	}
	if eff.StreamIdle == nil && u.StreamIdle != nil {
		eff.StreamIdle, remains = u.StreamIdle, true
	}
	if !remains {
		return over, false
	}
	return &eff, true
}

// ResetsDeepMerge implements policy.DeepResetter: an extAuth or extProc
// disable merged after other values of the field is the field's only merge
// origin so far — kgateway's deep merge sets the merged IR's
// disableAllProviders and records the disabling policy alone
// (`mergeOrigins.SetOne`), keeping the providers merged before it, which
// render then leaves out (trafficpolicy/merge.go@6ab6bb0d: mergeExtAuth,
// mergeExtProc).
func (Kind) ResetsDeepMerge(key string, v any) bool {
	switch x := v.(type) {
	case *ExtAuthPolicy:
		return key == "extAuth" && x != nil && x.Disable != nil
	case *ExtProcPolicy:
		return key == "extProc" && x != nil && x.Disable != nil
	}
	return false
}

// Instance implements policy.Instancer: extAuth, extProc and oidc name the
// GatewayExtension whose filter they enable (render names the filter after
// it); a disable, or any other field, names none.
func (Kind) Instance(key string, v any, ns string) string {
	var ref *NamespacedObjectReference
	switch x := v.(type) {
	case *ExtAuthPolicy:
		if x.Disable == nil {
			ref = x.ExtensionRef
		}
	case *ExtProcPolicy:
		if x.Disable == nil {
			ref = x.ExtensionRef
		}
	case *OAuth2Policy:
		ref = &x.ExtensionRef
	}
	if ref == nil || ref.Name == "" {
		return ""
	}
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = *ref.Namespace
	}
	return ns + "/" + ref.Name
}
