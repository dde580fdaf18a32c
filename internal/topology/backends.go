package topology

import (
	"fmt"
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// resolveBackends resolves every backendRef of every rule: the object must
// exist (and for a Service, expose the port), and a reference into another
// namespace needs a ReferenceGrant there. Each rule is then checked by the
// families' RuleChecks; their findings are returned. It changes the
// route alone and reads the model and the route's resolved parents, so
// routes are resolved in parallel (Build).
func (g *Graph) resolveBackends(r *Route, opt Options) (found []diag.Diagnostic) {
	if len(r.Route.Rules) > 0 {
		r.Rules = make([]*Rule, 0, len(r.Route.Rules)) // sized: held for the run
	}
	for _, mr := range r.Route.Rules {
		rule := &Rule{Rule: mr}
		if len(mr.BackendRefs) > 0 {
			rule.Backends = make([]*Backend, 0, len(mr.BackendRefs))
		}
		for j := range mr.BackendRefs {
			rule.Backends = append(rule.Backends, g.resolveBackend(r, &mr.BackendRefs[j], opt))
		}
		rule.Mirrors = g.resolveMirrors(r, mr, opt)
		found = append(found, g.checkRule(r, rule)...)
		r.Rules = append(r.Rules, rule)
	}
	return found
}

// resolveMirrors resolves the backendRef of each RequestMirror filter of
// a rule as a backendRef of the rule is resolved (kind, existence, port,
// ReferenceGrant under the controller's grant mode); a mirror that does
// not resolve is kept with its reason but sets no route condition: the
// controllers read a failed mirror as no mirror.
func (g *Graph) resolveMirrors(r *Route, mr *model.Rule, opt Options) []*Backend {
	var refs []gwv1.BackendObjectReference
	switch {
	case mr.HTTP != nil:
		for _, f := range mr.HTTP.Filters {
			if f.RequestMirror != nil {
				refs = append(refs, f.RequestMirror.BackendRef)
			}
		}
	case mr.GRPC != nil:
		for _, f := range mr.GRPC.Filters {
			if f.RequestMirror != nil {
				refs = append(refs, f.RequestMirror.BackendRef)
			}
		}
	}
	if len(refs) == 0 {
		return nil
	}
	out := make([]*Backend, len(refs))
	for i := range refs {
		b := g.resolveBackend(r, &model.BackendRef{BackendObjectReference: refs[i]}, opt)
		if b.Group == model.GatewayGroup && b.Kind == "HTTPRoute" {
			// A mirror never delegates: a route is no backend to copy
			// requests to.
			b.selector, b.Resolved = nil, false
			b.fail("InvalidKind", "a RequestMirror backendRef cannot be an HTTPRoute")
		}
		out[i] = b
	}
	return out
}

// notProgrammed is the finding for a rule the controller cannot
// translate as written (GWP212), at the field at fault (the rule's when
// the problem names none).
func notProgrammed(r *Route, mr *model.Rule, p *RuleProblem) diag.Diagnostic {
	what := "it is replaced by a direct response answering 500 (Programmed False)"
	if p.Dropped {
		what = "it is left out of the Envoy config, so its requests go to the next route that matches them (Programmed False)"
	}
	if p.Outcome != "" {
		what = p.Outcome
	}
	field := mr.Path
	if p.Field != "" {
		field = p.Field
	}
	sev := LintRuleNotProgrammed.Severity
	if p.serves() {
		sev = diag.Warning // the rule is served, without what it skips
	}
	return diag.Diagnostic{Code: LintRuleNotProgrammed.Code, Severity: sev, Object: r.Key().Ref(), Field: field, Pos: r.Src.FieldPos(field),
		Message: fmt.Sprintf("rule %s: %s; %s — fix the value", mr.Section(), p.Message, what)}
}

func (g *Graph) resolveBackend(r *Route, br *model.BackendRef, opt Options) *Backend {
	written := model.RefGroupKind(br.Group, br.Kind, model.GroupKind{Kind: "Service"})
	gk := byKind(written, g.routeBackendGroups(r), opt)
	b := &Backend{BackendRef: br, Group: gk.Group, Kind: gk.Kind, Namespace: r.Meta.Namespace, Name: string(br.Name)}
	defer g.classify(b)
	if br.Namespace != nil && *br.Namespace != "" {
		b.Namespace = string(*br.Namespace)
	}
	if br.Port != nil {
		b.Port = int32(*br.Port)
	}
	extension := false
	target := model.ObjectRefTo{Group: written.Group, Kind: written.Kind, Namespace: b.Namespace, Name: b.Name}
	grant := g.RouteGrantRule(r)
	delegation := gk == model.GroupKind{Group: model.GatewayGroup, Kind: "HTTPRoute"}
	if grant.BeforeLookup && !delegation && !g.Model.GrantAllowsBy(grant, model.GatewayGroup, r.Kind, r.Meta.Namespace, target) {
		b.fail("RefNotPermitted", fmt.Sprintf("%s %s/%s is in another namespace and no ReferenceGrant there allows it", b.Kind, b.Namespace, b.Name))
		return b
	}
	switch {
	case gk == model.GroupKind{Group: "", Kind: "Service"}:
		b.Service = g.Model.Service(b.Namespace, b.Name)
		switch {
		case b.Service == nil:
			b.fail("BackendNotFound", fmt.Sprintf("Service %s/%s not found", b.Namespace, b.Name))
			return b
		case br.Port == nil:
			b.fail("UnsupportedValue", fmt.Sprintf("backendRef to Service %s/%s needs a port", b.Namespace, b.Name))
			return b
		case !b.Service.HasPort(b.Port) && b.Service.Spec.Type != "ExternalName":
			b.fail("BackendNotFound", fmt.Sprintf("Service %s/%s has no port %d", b.Namespace, b.Name, b.Port))
			return b
		}
	case gk == model.GroupKind{Group: model.GatewayGroup, Kind: "HTTPRoute"}:
		// Route delegation: the child route is resolved by the delegation
		// stage; here it only has to exist.
		if g.Model.Route("HTTPRoute", b.Namespace, b.Name) == nil && b.Name != "" {
			b.fail("BackendNotFound", fmt.Sprintf("HTTPRoute %s/%s not found", b.Namespace, b.Name))
			return b
		}
	case opt.BackendKinds[gk]:
		// a kind that defines its own port refuses a ref giving one
		// before the lookup: the ref is wrong whatever it finds
		if br.Port != nil && opt.PortlessBackendKinds[gk] {
			b.fail("BackendNotFound", fmt.Sprintf("BackendRef to %q includes a port. Do not specify a port when referencing a %s resource, as it defines its own port configuration", b.Name, b.Kind))
			return b
		}
		if _, ok := g.Model.Object(model.Key{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}); !ok {
			b.fail("BackendNotFound", fmt.Sprintf("%s %s/%s not found", b.Kind, b.Namespace, b.Name))
			return b
		}
	case extensionKind(opt.ExtensionBackends, gk):
		// The plugin's backends are keyed by namespace, name and port
		// together: a ref without its port, or with another, finds none.
		if !slices.Contains(opt.ExtensionBackends, ExtensionBackend{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name, Port: b.Port}) {
			b.fail("BackendNotFound", fmt.Sprintf("%s %s/%s port %d is not among the backends the controller's extensions register", b.Kind, b.Namespace, b.Name, b.Port))
			return b
		}
		extension = true
	default:
		b.fail("InvalidKind", fmt.Sprintf("backendRef kind %s is not supported", gk))
		return b
	}
	if !g.Model.GrantAllowsBy(grant, model.GatewayGroup, r.Kind, r.Meta.Namespace, target) {
		b.fail("RefNotPermitted", fmt.Sprintf("%s %s/%s is in another namespace and no ReferenceGrant there allows it", b.Kind, b.Namespace, b.Name))
		return b
	}
	b.Resolved, b.Extension = true, extension
	return b
}

// byKind is the backend kind a reference of kind gk names where the
// controller reads a backendRef of one of groups by its kind alone
// (Controller.BackendGroups): the Service, or the kind of that name
// registered in one of them; gk itself otherwise.
func byKind(gk model.GroupKind, groups []string, opt Options) model.GroupKind {
	if !slices.Contains(groups, gk.Group) {
		return gk
	}
	if gk.Kind == "Service" {
		return model.GroupKind{Kind: "Service"}
	}
	out := gk
	for k := range opt.BackendKinds {
		// the first of the groups that registers it, whatever the map's order
		if k.Kind == gk.Kind && slices.Contains(groups, k.Group) && (out == gk || slices.Index(groups, k.Group) < slices.Index(groups, out.Group)) {
			out = k
		}
	}
	return out
}

// extensionKind reports whether an extension plugin registers kind gk.
func extensionKind(ebs []ExtensionBackend, gk model.GroupKind) bool {
	return slices.ContainsFunc(ebs, func(e ExtensionBackend) bool { return e.Group == gk.Group && e.Kind == gk.Kind })
}

func (b *Backend) fail(reason, msg string) { b.Reason, b.Message = reason, msg }
