package topology

import (
	"fmt"
	"slices"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/secret"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func cond(typ string, ok bool, reason, msg string) metav1.Condition {
	st := metav1.ConditionTrue
	if !ok {
		st = metav1.ConditionFalse
	}
	return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: msg}
}

// listenerConditions are the conditions the Gateway API asks for on a
// listener — Accepted, Conflicted, Programmed and ResolvedRefs — before its
// controller judges it by rules of its own (Controller.Listeners): a
// protocol without a route kind of the spec is not supported, a
// port/protocol/hostname clash is a conflict, an allowedRoutes kind the
// protocol cannot carry is an invalid route kind, and an HTTPS listener's
// certificates, frontend CAs and tls.options must resolve
// (TLSConditions). A listener not accepted or conflicted is not
// programmed, and one that can carry none of its allowed kinds, or none
// of whose certificates resolves, is not served (Unserved).
func listenerConditions(g *Graph, l *Listener) []metav1.Condition {
	l.Unserved = ""
	accepted := cond("Accepted", true, "Accepted", "Listener is accepted")
	programmedOK := true
	if !specProtocol(l.Protocol) {
		accepted = cond("Accepted", false, "UnsupportedProtocol", fmt.Sprintf("protocol %s is not supported; a listener is HTTP, HTTPS, TLS, TCP or UDP", l.Protocol))
		programmedOK = false
	}
	conflicted := ConflictCondition(l)
	if l.Conflicted {
		accepted = cond("Accepted", false, conflicted.Reason, conflicted.Message)
		programmedOK = false
	}
	refs := cond("ResolvedRefs", true, "ResolvedRefs", "All references resolved")
	if kinds := InvalidRouteKinds(l); len(kinds) > 0 {
		refs = cond("ResolvedRefs", false, "InvalidRouteKinds", fmt.Sprintf("Found invalid route kinds: %v", kinds))
		if len(kinds) == len(l.AllowedRoutes.Kinds) {
			l.Unserved = UnservedRouteKinds // nothing it could carry
		}
	}
	accepted, programmedOK, refs = g.TLSConditions(l, accepted, programmedOK, refs, NoUsableCARefuses)
	return []metav1.Condition{accepted, conflicted, ProgrammedCondition(l, accepted, programmedOK, refs), refs}
}

// specProtocol: the protocols the Gateway API defines route kinds for.
func specProtocol(p gwv1.ProtocolType) bool {
	switch p {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType:
		return true
	}
	return false
}

// ConflictCondition is the listener's Conflicted condition, from the
// Gateway API's rules for listeners sharing a port (markConflicts).
func ConflictCondition(l *Listener) metav1.Condition {
	if !l.Conflicted {
		return cond("Conflicted", false, "NoConflicts", "No conflicts")
	}
	msg := fmt.Sprintf("another listener uses port %d with a protocol that cannot share it", l.Port)
	if l.ConflictReason == "HostnameConflict" {
		msg = fmt.Sprintf("another listener uses port %d with the same hostname %q", l.Port, hostOf(l.Hostname))
	}
	return cond("Conflicted", true, l.ConflictReason, msg)
}

// ProgrammedCondition is the Programmed condition that follows from the
// others: True when nothing refused the listener (programmedOK); else
// Invalid, with the refusal's own message when it names one. A listener
// served with only some of its certificates is reported Invalid although
// programmed.
func ProgrammedCondition(l *Listener, accepted metav1.Condition, programmedOK bool, refs metav1.Condition) metav1.Condition {
	programmed := cond("Programmed", programmedOK, "Programmed", "Listener is programmed")
	if !programmedOK {
		programmed.Reason, programmed.Message = "Invalid", "Listener is not accepted or has unresolved references"
		if accepted.Reason == "Invalid" || accepted.Reason == "NoValidCACertificate" {
			programmed.Message = accepted.Message
		}
	}
	if refs.Reason == "InvalidCertificateRef" && accepted.Reason == "Invalid" && accepted.Status == metav1.ConditionTrue {
		programmed.Reason = "Invalid" // some certificates resolve: served with those, reported Invalid
	}
	return programmed
}

// InvalidRouteKinds are the allowedRoutes.kinds the listener's protocol
// cannot carry (or of a group not the Gateway API's), by kind name.
func InvalidRouteKinds(l *Listener) []string {
	if l.AllowedRoutes == nil {
		return nil
	}
	var out []string
	for _, k := range l.AllowedRoutes.Kinds {
		if k.Group != nil && string(*k.Group) != model.GatewayGroup || !protocolCarries(l, string(k.Kind)) {
			out = append(out, string(k.Kind))
		}
	}
	return out
}

// Cond is a condition of type typ, True when ok.
func Cond(typ string, ok bool, reason, msg string) metav1.Condition {
	return cond(typ, ok, reason, msg)
}

// CARule is how a controller treats an HTTPS listener whose frontend
// validation names a CA certificate it cannot use.
type CARule uint8

const (
	// NoUsableCARefuses is the Gateway API's rule: ResolvedRefs is False
	// with the reference's reason, the listener validates clients with
	// the usable CAs, and it is refused (Accepted False,
	// NoValidCACertificate, not served) only when none is usable.
	NoUsableCARefuses CARule = iota
	// AnyUnusableCARefuses: one unusable CA refuses the listener, which
	// the controller then does not serve at all.
	AnyUnusableCARefuses
)

// TLSConditions adds what an HTTPS listener's TLS makes of its
// conditions: its certificates (none resolving: not served; some: served
// with those, reported Invalid), its frontend validation CAs (by the
// controller's rule cas) and its tls.options (unusable: not served); it
// sets l.Unserved when the listener is not served for it. A listener
// already not served is left as it is.
func (g *Graph) TLSConditions(l *Listener, accepted metav1.Condition, programmedOK bool, refs metav1.Condition, cas CARule) (metav1.Condition, bool, metav1.Condition) {
	if l.Protocol != gwv1.HTTPSProtocolType || l.Unserved != "" {
		return accepted, programmedOK, refs
	}
	// The frontend CAs first: without them no client can be validated,
	// whatever the certificates.
	if usable, ok, reason, msg := g.FrontendCAs(l); !ok {
		if cas == AnyUnusableCARefuses || len(usable) == 0 {
			l.Unserved = UnservedTLS
			return cond("Accepted", false, "NoValidCACertificate", msg), false, cond("ResolvedRefs", false, reason, msg)
		}
		refs = cond("ResolvedRefs", false, reason, msg)
	}
	if ok, reason, msg := g.certificatesResolve(l); !ok {
		refs = cond("ResolvedRefs", false, reason, msg)
		if len(g.ResolvedCertificates(l)) > 0 {
			return cond("Accepted", true, "Invalid", msg), programmedOK, refs
		}
		l.Unserved = UnservedTLS
		return cond("Accepted", false, "Invalid", msg), false, refs
	}
	if _, err := l.TLSOptions(); err != nil {
		l.Unserved = UnservedTLS
		return cond("Accepted", false, "Invalid", err.Error()), false, refs
	}
	return accepted, programmedOK, refs
}

// ResolvedCertificates are the listener's certificateRefs that resolve:
// the certificates it is served with.
func (g *Graph) ResolvedCertificates(l *Listener) []CARef {
	if l.TLS == nil {
		return nil
	}
	var out []CARef
	for _, ref := range l.TLS.CertificateRefs {
		if ok, _, _ := g.certificateResolves(l, ref); ok {
			out = append(out, CARef{Kind: "Secret", Namespace: certNamespace(l, ref), Name: string(ref.Name)})
		}
	}
	return out
}

// secretKind is the one kind a listener's certificateRef may name: the
// Gateway API's core support is a Secret, the controllers look the
// reference up by its group and kind among the core Secrets, and anything
// else does not resolve (InvalidCertificateRef).
var secretKind = model.GroupKind{Group: model.CoreGroup, Kind: "Secret"}

// certNamespace is a certificateRef's namespace: its own, else its
// listener owner's.
func certNamespace(l *Listener, ref gwv1.SecretObjectReference) string {
	if ref.Namespace != nil && *ref.Namespace != "" {
		return string(*ref.Namespace)
	}
	if l.Set != nil {
		return l.Set.Namespace
	}
	return l.Gateway.Namespace
}

// certificatesResolve checks an HTTPS listener's certificateRefs: each
// Secret must exist, and one in another namespace needs a ReferenceGrant.
func (g *Graph) certificatesResolve(l *Listener) (bool, string, string) {
	if l.Protocol != gwv1.HTTPSProtocolType {
		return true, "", ""
	}
	if l.TLS == nil {
		// nothing to report: the API server's validation rejects such a
		// listener before a controller would see it
		return true, "", ""
	}
	if len(l.TLS.CertificateRefs) == 0 {
		return false, "InvalidCertificateRef", "HTTPS listener has no tls.certificateRefs"
	}
	for _, ref := range l.TLS.CertificateRefs {
		if ok, reason, msg := g.certificateResolves(l, ref); !ok {
			return false, reason, msg
		}
	}
	return true, "", ""
}

func (g *Graph) certificateResolves(l *Listener, ref gwv1.SecretObjectReference) (bool, string, string) {
	owner, fromKind := l.Gateway.Namespace, "Gateway"
	if l.Set != nil {
		owner, fromKind = l.Set.Namespace, "ListenerSet"
	}
	ns := certNamespace(l, ref)
	if gk := model.RefGroupKind(ref.Group, ref.Kind, secretKind); gk != secretKind {
		return false, "InvalidCertificateRef", fmt.Sprintf("certificateRef to %s is not supported; use a Secret (group \"\")", gk)
	}
	s := g.Model.Secret(ns, string(ref.Name))
	if s == nil {
		return false, "InvalidCertificateRef", fmt.Sprintf("Secret %s/%s not found", ns, ref.Name)
	}
	if !g.Model.GrantAllowsBy(g.GrantRule(l.Gateway), model.GatewayGroup, fromKind, owner, model.ObjectRefTo{Kind: "Secret", Namespace: ns, Name: string(ref.Name)}) {
		return false, "RefNotPermitted", fmt.Sprintf("Secret %s/%s is in another namespace and no ReferenceGrant allows it", ns, ref.Name)
	}
	if err := checkTLSSecret(s); err != nil {
		return false, "InvalidCertificateRef", fmt.Sprintf("invalid TLS secret %s/%s: %v", ns, ref.Name, err)
	}
	return true, "", ""
}

// checkTLSSecret checks what a certificate Secret holds (tls.crt, tls.key,
// ca.crt) through internal/secret, the one package that reads Secret
// values; the error names keys and types only. A Secret whose data is
// not in the input is taken as valid: one config assumeExist declares,
// and one written with metadata only (no data or stringData entry at
// all: a stand-in for a Secret whose content is managed elsewhere, e.g.
// by cert-manager). Any entry present means the content is given, and it
// is checked as a controller loading it into Envoy checks it.
func checkTLSSecret(s *model.Opaque) error {
	if s.Assumed || len(s.Keys) == 0 {
		return nil
	}
	crt, _ := s.Value("tls.crt")
	key, _ := s.Value("tls.key")
	ca, _ := s.Value("ca.crt")
	return secret.CheckTLSSecret(crt, key, ca)
}

// RouteParentConditions are the conditions for one parentRef of a route:
// Accepted and ResolvedRefs.
func RouteParentConditions(r *Route, p *Parent) []metav1.Condition {
	accepted := cond("Accepted", true, "Accepted", "Route is accepted")
	if !p.Accepted {
		accepted = cond("Accepted", false, p.Reason, p.Message)
	}
	refs := cond("ResolvedRefs", true, "ResolvedRefs", "All references resolved")
	for _, rule := range r.Rules {
		for _, b := range rule.Backends {
			if !b.Resolved {
				refs = cond("ResolvedRefs", false, b.Reason, b.Message)
				return []metav1.Condition{accepted, refs}
			}
		}
	}
	return []metav1.Condition{accepted, refs}
}

// GatewayConditions are the Gateway-level conditions every controller
// writes: Accepted and Programmed.
func GatewayConditions(g *Graph, gw *Gateway) []metav1.Condition {
	if gw.Refused.Reason != "" {
		// refused before anything of it is translated: Accepted False
		// alone, no Programmed (nothing is deployed for it), unless the
		// controller writes conditions of its own for it
		if gw.Refused.Conditions != nil {
			return slices.Clone(gw.Refused.Conditions)
		}
		return []metav1.Condition{cond("Accepted", false, gw.Refused.Reason, gw.Refused.Message)}
	}
	if v := g.ClassRefusal(gw); v != nil {
		return pendingConditions(fmt.Sprintf("Waiting for controller: %s does not accept GatewayClass %s (%s); nothing reconciles this Gateway, and gwpol neither reports nor renders it", v.Controller, gw.Spec.GatewayClassName, v.Why))
	}
	accepted := cond("Accepted", true, "Accepted", "Gateway is accepted")
	if gc := g.gatewayClass(string(gw.Spec.GatewayClassName)); gc == nil {
		if _, managed := g.Controller(gw, ""); !managed {
			return unmanagedGatewayConditions(gw)
		}
		accepted = cond("Accepted", true, "Accepted", fmt.Sprintf("Gateway is accepted (GatewayClass %s is not in the input; assumed to be served)", gw.Spec.GatewayClassName))
	}
	programmed := cond("Programmed", true, "Programmed", "Gateway is programmed")
	for _, l := range gw.Listeners {
		if l.Set == nil && len(l.Conditions) > 0 && (!conditionTrue(l.Conditions, "Accepted") || !conditionTrue(l.Conditions, "Programmed")) {
			accepted = cond("Accepted", true, "ListenersNotValid", "Some listeners are not valid")
		}
	}
	if len(gw.Listeners) == 0 && !g.controllerOf(gw).NoListenersNotValid {
		return withReported(gw, []metav1.Condition{accepted, programmed})
	}
	valid, programmable := 0, 0
	for _, l := range gw.Listeners {
		if !refusedOnValidation(l) {
			valid++
		}
		if l.Unserved != UnservedRouteKinds && l.Unserved != UnservedReservedPort && l.Unserved != UnservedProtocol {
			programmable++
		}
	}
	if valid == 0 {
		accepted = cond("Accepted", false, "ListenersNotValid", "No valid listeners")
	}
	if programmable == 0 {
		programmed = cond("Programmed", false, "Invalid", "no listener can be programmed")
	}
	return withReported(gw, []metav1.Condition{accepted, programmed})
}

// withReported replaces each of cs by the condition of its type its
// controller's status reporter writes on gw (Gateway.Reported), the last
// of a type standing, as Kubernetes' SetStatusCondition sets them; a
// reported condition of another type is added after them, and one with
// no Status withdraws cs's of its type (the reporter writes none).
func withReported(gw *Gateway, cs []metav1.Condition) []metav1.Condition {
	for _, r := range gw.Reported {
		found := false
		for i := range cs {
			if cs[i].Type == r.Type {
				cs[i], found = r, true
			}
		}
		if !found {
			cs = append(cs, r)
		}
	}
	return slices.DeleteFunc(cs, func(c metav1.Condition) bool { return c.Status == "" })
}

// refusedOnValidation: the listener's controller refuses it while it
// validates the Gateway (Unserved RouteKinds or Protocol; ReservedPort on
// a ListenerSet's listener), before translating it.
func refusedOnValidation(l *Listener) bool {
	return l.Unserved == UnservedRouteKinds || l.Unserved == UnservedProtocol || (l.Unserved == UnservedReservedPort && l.Set != nil)
}

// GatewayResolvedRefs is the Gateway-level ResolvedRefs a controller with
// conditions of its own adds (policy.Controller.ExtraConditions): False
// (ListenersNotResolved) when one of the Gateway's own listeners has an
// unresolved reference.
func GatewayResolvedRefs(gw *Gateway) metav1.Condition {
	for _, l := range gw.Listeners {
		if c := meta(l.Conditions, "ResolvedRefs"); l.Set == nil && c != nil && c.Status == metav1.ConditionFalse {
			return cond("ResolvedRefs", false, "ListenersNotResolved", fmt.Sprintf("listener %s has unresolved references", l.Name))
		}
	}
	return cond("ResolvedRefs", true, "ResolvedRefs", "All references resolved")
}

// meta finds a condition by type.
func meta(cs []metav1.Condition, typ string) *metav1.Condition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}

// unmanagedGatewayConditions are those of a Gateway whose GatewayClass is
// not in an input that has other GatewayClasses: no controller in view
// reconciles it, so its conditions stay as the API server defaults them
// (Unknown, Pending), and render leaves it out. Saying Accepted would
// contradict render. A Gateway whose class its controller refuses
// (ClassVerdict) is left so too.
func unmanagedGatewayConditions(gw *Gateway) []metav1.Condition {
	return pendingConditions(fmt.Sprintf("Waiting for controller: GatewayClass %s is not in the input, and the input's GatewayClasses name other controllers; gwpol neither reports nor renders this Gateway (add its GatewayClass to analyse it)", gw.Spec.GatewayClassName))
}

// pendingConditions are a Gateway's conditions as the API server
// defaults them, which no controller has changed.
func pendingConditions(msg string) []metav1.Condition {
	return []metav1.Condition{
		{Type: "Accepted", Status: metav1.ConditionUnknown, Reason: "Pending", Message: msg},
		{Type: "Programmed", Status: metav1.ConditionUnknown, Reason: "Pending", Message: msg},
	}
}

func (g *Graph) gatewayClass(name string) *model.GatewayClass {
	for _, c := range g.Model.GatewayClasses {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// ListenerSetConditions are a ListenerSet's Accepted and Programmed: the parent's refusal when it is not attached;
// ListenersNotValid, False on both when none of its listeners is valid and
// on Accepted only (True) when some are; else Accepted and Programmed.
func ListenerSetConditions(s *ListenerSet) []metav1.Condition {
	if s.own != nil {
		return s.own(s)
	}
	if s.Parent == nil {
		return []metav1.Condition{cond("Accepted", false, s.Reason, s.Message), cond("Programmed", false, s.Reason, s.Message)}
	}
	total, invalid := 0, 0
	for _, l := range s.Parent.Listeners {
		if l.Set != s {
			continue
		}
		total++
		if !conditionTrue(l.Conditions, "Accepted") || !conditionTrue(l.Conditions, "Programmed") {
			invalid++
		}
	}
	switch {
	case invalid > 0 && invalid == total:
		msg := "no listener of the ListenerSet is valid"
		return []metav1.Condition{cond("Accepted", false, "ListenersNotValid", msg), cond("Programmed", false, "ListenersNotValid", msg)}
	case invalid > 0:
		return []metav1.Condition{cond("Accepted", true, "ListenersNotValid", "some listeners of the ListenerSet are not valid"), cond("Programmed", true, "Programmed", "ListenerSet is programmed")}
	}
	return []metav1.Condition{cond("Accepted", true, "Accepted", "ListenerSet is accepted"), cond("Programmed", true, "Programmed", "ListenerSet is programmed")}
}

func conditionTrue(cs []metav1.Condition, typ string) bool {
	c := meta(cs, typ)
	return c != nil && c.Status == metav1.ConditionTrue
}

// IsStream: a TCP or TLS listener, served with filter chains of its
// routes' own.
func IsStream(p gwv1.ProtocolType) bool {
	return p == gwv1.TCPProtocolType || p == gwv1.TLSProtocolType
}

// Controller is the controller whose semantics apply to gw: its
// GatewayClass's controllerName when the input has the class; fallback
// (the configured controller) when the input has no GatewayClass at all.
// When the input has GatewayClasses but not gw's, no controller in view
// manages gw (managed is false): none of them would write its status.
// For a Gateway not in the input (gw nil) it is fallback, in view when the
// input has no GatewayClass or one of fallback's: a controller reports a
// parentRef to a Gateway it does not know only when it runs at all.
func (g *Graph) Controller(gw *Gateway, fallback string) (name string, managed bool) {
	if gw == nil || gw.Gateway == nil {
		return fallback, g.inView(fallback)
	}
	if gc := g.gatewayClass(string(gw.Spec.GatewayClassName)); gc != nil {
		return string(gc.Spec.ControllerName), g.ClassRefusal(gw) == nil
	}
	return fallback, len(g.Model.GatewayClasses) == 0
}

// inView reports whether the input lets controller run: it has no
// GatewayClass at all, or one naming controller.
func (g *Graph) inView(controller string) bool {
	if len(g.Model.GatewayClasses) == 0 {
		return true
	}
	for _, c := range g.Model.GatewayClasses {
		if string(c.Spec.ControllerName) == controller {
			return true
		}
	}
	return false
}
