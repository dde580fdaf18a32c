package merge

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// failClosedKind is testKind failing closed, like HAProxyRoutePolicy.
type failClosedKind struct{ testKind }

func (failClosedKind) Spec() policy.KindSpec {
	s := testKind{}.Spec()
	s.FailClosed = true
	return s
}

func TestFixedStatus(t *testing.T) {
	svc := func(ok bool, reason string) *topology.Backend {
		return &topology.Backend{BackendRef: &model.BackendRef{Weight: 1}, Kind: "Service", Namespace: "ns", Name: "svc", Resolved: ok, Reason: reason}
	}
	weightless := &topology.Backend{BackendRef: &model.BackendRef{}, Kind: "Service", Namespace: "ns", Name: "svc", Resolved: true}
	forwarding := &topology.Rule{Backends: []*topology.Backend{svc(false, "RefNotPermitted"), svc(true, ""), weightless}}
	refused := &topology.Rule{Backends: []*topology.Backend{svc(false, "RefNotPermitted")}}
	allWeightZero := &topology.Rule{Backends: []*topology.Backend{weightless, weightless}}
	noBackends := &topology.Rule{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{}}}
	redirectFilter := &gwv1.HTTPRouteRule{Filters: []gwv1.HTTPRouteFilter{{Type: gwv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwv1.HTTPRequestRedirectFilter{}}}}
	redirect := &topology.Rule{Rule: &model.Rule{HTTP: redirectFilter}}
	redirectRefused := &topology.Rule{Rule: &model.Rule{HTTP: redirectFilter}, Backends: []*topology.Backend{svc(false, "BackendNotFound")}}
	brokenOpen, brokenClosed := &topology.Rule{Backends: []*topology.Backend{svc(true, "")}}, &topology.Rule{Backends: []*topology.Backend{svc(true, "")}}
	replaced := &topology.Rule{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{}}, Backends: []*topology.Backend{svc(true, "")}, Problems: topology.RuleProblems{{Message: "bad rewrite"}}}
	// left out of the config, as status says (RouteRuleDropped): it
	// answers nothing, with backends or without
	dropped := &topology.Rule{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{}}, Problems: topology.RuleProblems{{Dropped: true, Message: "bad match"}}}
	r := &Result{Attach: &attach.Result{Broken: map[*topology.Rule][]attach.Broken{
		brokenOpen:   {{Kind: testKind{}, Code: "GWP205", Reason: "missing"}},
		brokenClosed: {{Kind: failClosedKind{}, Code: "GWP206", Reason: "two filters"}},
	}}}
	tests := []struct {
		name   string
		rule   *topology.Rule
		status int
	}{
		{"one usable backend forwards", forwarding, 0},
		{"no usable backend answers 500", refused, 500},
		{"only weight 0 answers 500", allWeightZero, 500},
		{"no backendRefs and no redirect answers 500", noBackends, 500},
		{"a redirect without backendRefs is not fixed", redirect, 0},
		{"a redirect with an unresolved backend still redirects", redirectRefused, 0},
		{"broken reference answers 500", brokenOpen, 500},
		{"a kind failing closed answers 503", brokenClosed, 503},
		{"a rule the controller replaces answers 500", replaced, 500},
		{"a rule the controller leaves out answers nothing", dropped, 0},
	}
	for _, tt := range tests {
		fs, ok := r.FixedStatus(tt.rule)
		if ok != (tt.status != 0) || fs.Status != tt.status || (ok && len(fs.Reasons) == 0) {
			t.Errorf("%s: %+v %v, want status %d with a reason", tt.name, fs, ok, tt.status)
		}
	}
}

// TestNoActionReplaced: a rule nothing gives an action is replaced, with
// the controller's reason, under a controller that replaces such rules
// (policy.Controller.NoActionReason), on its Gateways and by default; on
// another controller's Gateway it answers 500 as a rule with nothing to
// forward to.
func TestNoActionReplaced(t *testing.T) {
	const why = "nothing to do"
	reg := &policy.Registry{}
	reg.AddControllers(policy.Controller{Name: "example.com/replacing", Default: true, NoActionReason: why}, policy.Controller{Name: "example.com/other"})
	gateway := func(class string) *topology.Gateway {
		return &topology.Gateway{Gateway: &model.Gateway{Gateway: &gwv1.Gateway{Spec: gwv1.GatewaySpec{GatewayClassName: gwv1.ObjectName(class)}}}}
	}
	classes := []*model.GatewayClass{
		{GatewayClass: &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/replacing"}}},
		{GatewayClass: &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "o"}, Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/other"}}},
	}
	rule := &topology.Rule{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{}}}
	rt := &topology.Route{Route: &model.Route{Kind: "HTTPRoute"}, Rules: []*topology.Rule{rule}}
	r := &Result{Registry: reg, Graph: &topology.Graph{Model: &model.Model{GatewayClasses: classes}}, Attach: &attach.Result{}}
	if !r.NoAction(rule) {
		t.Fatal("a rule without backendRefs, redirect or answer has no action")
	}
	for _, tt := range []struct {
		name     string
		gw       *topology.Gateway
		replaced bool
	}{{"default controller", nil, true}, {"its Gateway", gateway("r"), true}, {"another controller's Gateway", gateway("o"), false}} {
		fs, ok := r.FixedStatusOn(rt, rule, tt.gw)
		if !ok || fs.Status != 500 || len(fs.Reasons) != 1 {
			t.Fatalf("%s: %+v %v, want one 500", tt.name, fs, ok)
		}
		if got := fs.Reasons[0] == "replaced: "+why; got != tt.replaced {
			t.Errorf("%s: reason %q, replaced with the controller's reason: %v, want %v", tt.name, fs.Reasons[0], got, tt.replaced)
		}
	}
}

// TestFixedStatusOn: on a Gateway whose controller validates the route,
// its verdict decides first — a rule it answers answers that, one it
// leaves out answers nothing (LeftOut), and a refused backendRef takes no
// traffic, so a rule with no other backend answers 500 even where a policy
// broke it; on another controller's Gateway FixedStatus decides.
func TestFixedStatusOn(t *testing.T) {
	const ctrl = "example.com/validating"
	svc := func() *topology.Backend {
		return &topology.Backend{BackendRef: &model.BackendRef{Weight: 1}, Kind: "Service", Namespace: "ns", Name: "svc", Resolved: true}
	}
	rule := func(i int, bs ...*topology.Backend) *topology.Rule {
		return &topology.Rule{Rule: &model.Rule{Index: i, HTTP: &gwv1.HTTPRouteRule{}}, Backends: bs}
	}
	answered, leftOut, refusedAll, refusedOne, brokenRefused := rule(0, svc()), rule(1, svc()), rule(2, svc()), rule(3, svc(), svc()), rule(4, svc())
	rt := &topology.Route{Route: &model.Route{Kind: "HTTPRoute"}, Rules: []*topology.Rule{answered, leftOut, refusedAll, refusedOne, brokenRefused}}
	gateway := func(class string) *topology.Gateway {
		return &topology.Gateway{Gateway: &model.Gateway{Gateway: &gwv1.Gateway{Spec: gwv1.GatewaySpec{GatewayClassName: gwv1.ObjectName(class)}}}}
	}
	validating, other := gateway("v"), gateway("o")
	classes := []*model.GatewayClass{
		{GatewayClass: &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "v"}, Spec: gwv1.GatewayClassSpec{ControllerName: ctrl}}},
		{GatewayClass: &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "o"}, Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/other"}}},
	}
	v := &policy.RouteVerdict{
		Dropped: []policy.DroppedRule{{Index: 0, Reason: "UnsupportedValue", Status: 500}, {Index: 1, Reason: "UnsupportedValue"}},
		Refused: []policy.RefusedBackend{{Rule: 2, Ref: 0, Reason: "BackendNotFound"}, {Rule: 3, Ref: 1, Reason: "UnsupportedValue"}, {Rule: 4, Ref: 0, Reason: "InvalidKind"}},
	}
	r := &Result{Graph: &topology.Graph{Model: &model.Model{GatewayClasses: classes}},
		Attach: &attach.Result{Verdicts: map[*topology.Route]map[string]*policy.RouteVerdict{rt: {ctrl: v}},
			Broken: map[*topology.Rule][]attach.Broken{brokenRefused: {{Kind: failClosedKind{}, Code: "GWP206", Reason: "two filters"}}}}}
	tests := []struct {
		name          string
		rule          *topology.Rule
		gw            *topology.Gateway
		status        int
		left          bool
		refusedReason string
	}{
		{"answered by the verdict", answered, validating, 500, false, ""},
		{"left out by the verdict", leftOut, validating, 0, true, ""},
		{"every backendRef refused", refusedAll, validating, 500, false, "BackendNotFound"},
		{"one of two refused forwards", refusedOne, validating, 0, false, ""},
		{"refused before the broken policy", brokenRefused, validating, 500, false, "InvalidKind"},
		{"another controller's Gateway forwards", refusedAll, other, 0, false, ""},
		{"another controller's Gateway: the broken policy decides", brokenRefused, other, 503, false, ""},
	}
	for _, tt := range tests {
		fs, ok := r.FixedStatusOn(rt, tt.rule, tt.gw)
		if ok != (tt.status != 0) || fs.Status != tt.status || (ok && len(fs.Reasons) == 0) {
			t.Errorf("%s: %+v %v, want status %d with a reason", tt.name, fs, ok, tt.status)
		}
		if _, left := r.LeftOut(rt, tt.rule, tt.gw); left != tt.left {
			t.Errorf("%s: LeftOut %v, want %v", tt.name, left, tt.left)
		}
		if tt.refusedReason != "" && (len(fs.Reasons) == 0 || !strings.Contains(fs.Reasons[0], tt.refusedReason)) {
			t.Errorf("%s: reasons %q do not name %s", tt.name, fs.Reasons, tt.refusedReason)
		}
	}
}

// TestLoneBackendIgnoresWeight: under a controller that forwards a rule's
// only backendRef whatever its weight, that backendRef's weight 0 takes
// traffic; two of weight 0, or a lone one that does not resolve, still
// answer 500; under another controller a lone weight 0 answers 500.
func TestLoneBackendIgnoresWeight(t *testing.T) {
	reg := &policy.Registry{}
	reg.AddControllers(policy.Controller{Name: "example.com/lone", Default: true, LoneBackendIgnoresWeight: true}, policy.Controller{Name: "example.com/other"})
	classes := []*model.GatewayClass{
		{GatewayClass: &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: "o"}, Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/other"}}},
	}
	other := &topology.Gateway{Gateway: &model.Gateway{Gateway: &gwv1.Gateway{Spec: gwv1.GatewaySpec{GatewayClassName: "o"}}}}
	zero := func(resolved bool) *topology.Backend {
		return &topology.Backend{BackendRef: &model.BackendRef{}, Kind: "Service", Namespace: "ns", Name: "svc", Resolved: resolved, Reason: "BackendNotFound"}
	}
	r := &Result{Registry: reg, Graph: &topology.Graph{Model: &model.Model{GatewayClasses: classes}}, Attach: &attach.Result{}}
	for _, tt := range []struct {
		name       string
		backends   []*topology.Backend
		gw         *topology.Gateway
		wantStatus int
	}{
		{"lone weight 0 forwards", []*topology.Backend{zero(true)}, nil, 0},
		{"two of weight 0 answer 500", []*topology.Backend{zero(true), zero(true)}, nil, 500},
		{"a lone one that does not resolve answers 500", []*topology.Backend{zero(false)}, nil, 500},
		{"another controller's lone weight 0 answers 500", []*topology.Backend{zero(true)}, other, 500},
	} {
		rule := &topology.Rule{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{}}, Backends: tt.backends}
		rt := &topology.Route{Route: &model.Route{Kind: "HTTPRoute"}, Rules: []*topology.Rule{rule}}
		fs, ok := r.FixedStatusOn(rt, rule, tt.gw)
		if ok != (tt.wantStatus != 0) || fs.Status != tt.wantStatus {
			t.Errorf("%s: %+v %v, want status %d", tt.name, fs, ok, tt.wantStatus)
		}
		if tt.backends[0].Weight != 0 {
			t.Errorf("%s: the rule's backendRef was changed", tt.name)
		}
	}
}
