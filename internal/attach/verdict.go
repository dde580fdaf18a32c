package attach

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// validateRoutes asks each controller that validates routes by rules of
// its own (policy.Family.ValidateRoute) for its verdict on the routes with
// a parent on one of its Gateways. Only a GatewayClass in the input names
// the controller: without it the Gateway API checks topology makes stand.
func (r *Result) validateRoutes(g *topology.Graph, reg *policy.Registry, set *policy.Set, env *policy.Env) {
	validators := map[string]func(*topology.Route, *policy.Env, *policy.Set) *policy.RouteVerdict{}
	for _, f := range reg.Families() {
		if f.ValidateRoute != nil && f.Controller != nil {
			validators[f.Controller.Name] = f.ValidateRoute
		}
	}
	if len(validators) == 0 {
		return
	}
	// Each route's verdict reads the compiled input alone (what a
	// controller derives from every route or policy, through env.Memo),
	// so the routes are validated in parallel and the verdicts taken in
	// route order.
	type job struct {
		rt      *topology.Route
		ctrl    string
		verdict *policy.RouteVerdict
	}
	var jobs []job
	asked := map[*topology.Route]map[string]bool{}
	for _, rt := range g.Routes {
		for _, p := range rt.Parents {
			gw := p.Gateway
			if gw == nil {
				gw = p.Declined // a ListenerSet its Gateway declined
			}
			ctrl, _ := g.Controller(gw, "")
			if _, ok := validators[ctrl]; !ok || asked[rt][ctrl] || r.Verdicts[rt][ctrl] != nil {
				continue
			}
			if asked[rt] == nil {
				asked[rt] = map[string]bool{}
			}
			asked[rt][ctrl] = true
			jobs = append(jobs, job{rt: rt, ctrl: ctrl})
		}
	}
	parallel.Each(len(jobs), func(i int) {
		jobs[i].verdict = validators[jobs[i].ctrl](jobs[i].rt, env, set)
	})
	for _, j := range jobs {
		if r.Verdicts[j.rt] == nil {
			r.Verdicts[j.rt] = map[string]*policy.RouteVerdict{}
		}
		r.Verdicts[j.rt][j.ctrl] = j.verdict
		r.Diagnostics = append(r.Diagnostics, j.verdict.Diagnostics...)
	}
}

// reportConflicts makes the lint finding for every listener refused for
// sharing its port with another (Conflicted True: a protocol that cannot
// share the port, or the same hostname), read from the conditions status
// writes — the verdict topology stores, its controller's own where it
// judges listeners (policy.Family.Listeners) — so lint says what status
// says. No controller serves such a listener. A listener topology already reports
// as not served (a reserved port, unusable TLS) is not reported twice.
func (r *Result) reportConflicts(g *topology.Graph) {
	for _, gw := range g.Gateways {
		for _, l := range gw.Listeners {
			if l.Unserved != "" {
				continue
			}
			if c, ok := r.conflicted(l); ok {
				r.Diagnostics = append(r.Diagnostics, conflictFinding(l, c))
			}
		}
	}
}

// conflicted is the listener's Conflicted condition when it is True.
func (r *Result) conflicted(l *topology.Listener) (policy.Condition, bool) {
	for _, c := range l.Conditions {
		if c.Type == "Conflicted" && c.Status == metav1.ConditionTrue {
			return policy.Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message}, true
		}
	}
	return policy.Condition{}, false
}

// conflictFinding is the finding at the listener's port, the value the
// listeners share.
func conflictFinding(l *topology.Listener, c policy.Condition) diag.Diagnostic {
	src := l.Gateway.Src
	if l.Set != nil {
		src = l.Set.Src
	}
	path := fmt.Sprintf("spec.listeners[%d].port", l.Index)
	rule := topology.LintListenerNotServed
	return diag.Diagnostic{Code: rule.Code, Severity: rule.Severity, Object: src.Ref(), Field: path, Pos: src.FieldPos(path),
		Message: fmt.Sprintf("listener %s is not served: Conflicted (%s): %s; the controller builds no filter chain for it, so its routes are not served through it", l.ID(), c.Reason, c.Message)}
}

// judgeObjects asks each controller that writes a status of its own on
// objects other than policies and routes (policy.Family.ObjectVerdicts)
// for its verdicts, when a Gateway of the input is the controller's; env
// is the one its route validation read, so a backendRef to such an object
// and the object's own status share one decision.
func (r *Result) judgeObjects(g *topology.Graph, reg *policy.Registry, set *policy.Set, env *policy.Env) {
	used := map[string]bool{}
	for _, gw := range g.Gateways {
		ctrl, _ := g.Controller(gw, "")
		used[ctrl] = true
	}
	for _, f := range reg.Families() {
		if f.ObjectVerdicts == nil || f.Controller == nil || !used[f.Controller.Name] {
			continue
		}
		for _, v := range f.ObjectVerdicts(env, set) {
			v.Controller = f.Controller.Name
			r.Objects = append(r.Objects, v)
			r.Diagnostics = append(r.Diagnostics, v.Diagnostics...)
		}
	}
	slices.SortFunc(r.Objects, func(a, b policy.ObjectVerdict) int { return a.Object.Compare(b.Object) })
}

// ObjectVerdict is the controller's verdict on object k (Objects), found
// by key: false when no controller writes a status of its own on it.
func (r *Result) ObjectVerdict(k model.Key) (policy.ObjectVerdict, bool) {
	if r == nil {
		return policy.ObjectVerdict{}, false
	}
	i, ok := slices.BinarySearchFunc(r.Objects, k, func(v policy.ObjectVerdict, k model.Key) int { return v.Object.Compare(k) })
	if !ok {
		return policy.ObjectVerdict{}, false
	}
	return r.Objects[i], true
}

// RefusedObject is the verdict on backend object k when its controller
// builds no cluster for it (policy.ObjectVerdict.Untranslated: it does
// not accept it, or drops it silently): render builds none, and every
// view says why from this one decision.
func (r *Result) RefusedObject(k model.Key) (policy.ObjectVerdict, bool) {
	v, ok := r.ObjectVerdict(k)
	return v, ok && v.Untranslated()
}

// RefusedObjectOn is RefusedObject for the clusters a Gateway of the
// controller named controller builds: a verdict on an object of an API
// group every controller reads (a Service) holds on its own controller's
// Gateways only.
func (r *Result) RefusedObjectOn(k model.Key, controller string) (policy.ObjectVerdict, bool) {
	v, ok := r.RefusedObject(k)
	if ok && k.Group == model.CoreGroup && v.Controller != "" && v.Controller != controller {
		return policy.ObjectVerdict{}, false
	}
	return v, ok
}
