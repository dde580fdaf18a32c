package envoygateway

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/secret"
	"github.com/gwpol/gwpol/internal/topology"
)

// judgeListeners is Envoy Gateway's verdict on the listeners of one of its
// Gateways (policy.Family.Listeners): the conditions v1.9.0's listener
// translation writes — each listener's own checks (listener.go:
// validateListenerSpec), the conflicts between the Gateway's listeners
// (validate.go: validateConflictedProtocolsListeners,
// validateConflictedHostnameListeners, validateConflictedLayer4Listeners),
// then the conditions that follow from them (validateListenerConditions)
// — in place of the Gateway API's. Its conflicts are the listeners'
// (Listener.Conflicted, ConflictReason; Family.ConflictsInVerdict), as
// Envoy Gateway decides them: a listener its spec checks refuse takes no
// part (isSpecValidForConflictChecks), a route attaches to a conflicted
// listener all the same (route.go: processAllowedListenersForParentRefs
// judges kind and namespace alone) and counts there, and nothing is built
// for it (not IsReady), so status, render, lint and explain read one
// verdict.
func judgeListeners(g *topology.Graph, gw *topology.Gateway, cfg policy.Config) []diag.Diagnostic {
	ls := make([]*egListener, len(gw.Listeners))
	for i, l := range gw.Listeners {
		ls[i] = &egListener{l: l, cfg: cfg}
		l.DefaultALPN = nil
		if l.Unserved == topology.UnservedTLS && topology.RefusedForCAs(l) {
			// Envoy Gateway judges the frontend CAs by its own rule
			// (listenerFrontendProblem: getCaCertsFromCARefs reads the
			// CA's bytes and never parses them); the Gateway API's,
			// which refuses a CA that does not parse, is not its verdict
			l.Unserved = ""
		}
		ls[i].specValid = ls[i].validateSpec(g, g.Model)
	}
	protocolConflicts(ls)
	hostnameConflicts(ls)
	layer4Conflicts(ls, gwv1.TCPProtocolType)
	layer4Conflicts(ls, gwv1.UDPProtocolType)
	for _, e := range ls {
		e.finish()
	}
	overlappingTLS(ls)
	for _, e := range ls {
		e.l.Conditions = make([]metav1.Condition, len(e.conds))
		e.l.Conflicted, e.l.ConflictReason = false, ""
		for i, c := range e.conds {
			e.l.Conditions[i] = metav1.Condition{Type: c.Type, Status: metav1.ConditionStatus(c.Status), Reason: c.Reason, Message: c.Message}
			if c.Type == "Conflicted" && c.Status == string(metav1.ConditionTrue) {
				e.l.Conflicted, e.l.ConflictReason = true, c.Reason
			}
		}
		e.unserveUnprogrammed()
	}
	return nil
}

// unserveUnprogrammed: Envoy Gateway builds nothing for a listener it
// does not program (listener.go: translateGatewayListeners skips one that
// is not ListenerContext.IsReady, Programmed True), so a listener its
// verdict leaves unprogrammed for a problem of its own rules (an
// allowedRoutes selector that does not parse, …) is not served
// (topology.UnservedInvalid): render leaves it out and lint says so, as
// status does. A conflicted listener is left to the conflict's own
// verdict and finding.
func (e *egListener) unserveUnprogrammed() {
	if e.l.Unserved != "" || e.l.Conflicted || e.programmed() {
		return
	}
	e.l.Unserved = topology.UnservedInvalid
	if e.refusedForCAs() {
		e.l.Unserved = topology.UnservedTLS // reported at the Gateway's frontend validation
	}
}

// refusedForCAs: its verdict refuses it for its frontend validation's
// CAs (Accepted False, NoValidCACertificate; topology.RefusedForCAs).
func (e *egListener) refusedForCAs() bool {
	return slices.ContainsFunc(e.conds, func(c policy.Condition) bool {
		return c.Type == "Accepted" && c.Status == string(metav1.ConditionFalse) && c.Reason == "NoValidCACertificate"
	})
}

// programmed: its Programmed condition is True.
func (e *egListener) programmed() bool {
	return slices.ContainsFunc(e.conds, func(c policy.Condition) bool {
		return c.Type == "Programmed" && c.Status == string(metav1.ConditionTrue)
	})
}

// egListener is one listener while Envoy Gateway translates it: the
// conditions set so far, in the order they were first set.
type egListener struct {
	l                  *topology.Listener
	cfg                policy.Config
	conds              []policy.Condition
	specValid          bool
	protocolConflicted bool
	// sds: one of its certificates is an SDS reference Envoy Gateway
	// accepts, whose DNS names it cannot read.
	sds bool
	// sans are the DNS SANs of its valid certificates, to compare with
	// the other listeners' of its port (never printed).
	sans []string
}

// set is Envoy Gateway's ListenerContext.SetCondition: a condition of a
// type already set replaces it in place.
func (e *egListener) set(typ string, ok bool, reason, msg string) {
	c := policy.Condition{Type: typ, Status: string(metav1.ConditionFalse), Reason: reason, Message: msg}
	if ok {
		c.Status = string(metav1.ConditionTrue)
	}
	for i := range e.conds {
		if e.conds[i].Type == typ {
			e.conds[i] = c
			return
		}
	}
	e.conds = append(e.conds, c)
}

func (e *egListener) has(typ string) bool {
	return slices.ContainsFunc(e.conds, func(c policy.Condition) bool { return c.Type == typ })
}

func (e *egListener) fromSet() bool { return e.l.Set != nil }

// namespace is the namespace of the listener's owner (Gateway or
// ListenerSet).
func (e *egListener) namespace() string {
	if e.l.Set != nil {
		return e.l.Set.Namespace
	}
	return e.l.Gateway.Namespace
}

// displayName is validate.go's listenerDisplayName: ns/owner/listener.
func (e *egListener) displayName() string {
	if e.l.Set != nil {
		return e.l.Set.Namespace + "/" + e.l.Set.Name + "/" + string(e.l.Name)
	}
	return e.l.Gateway.Namespace + "/" + e.l.Gateway.Name + "/" + string(e.l.Name)
}

func (e *egListener) hostname() string {
	if e.l.Hostname == nil {
		return ""
	}
	return string(*e.l.Hostname)
}

// supportedProtocol is validate.go's isSupportedListenerProtocol.
func supportedProtocol(p gwv1.ProtocolType) bool {
	switch p {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, gwv1.TLSProtocolType, gwv1.TCPProtocolType, gwv1.UDPProtocolType:
		return true
	}
	return false
}

// kindsForProtocol is listener.go's allowedRouteKindsForProtocol.
func kindsForProtocol(p gwv1.ProtocolType, tls *gwv1.ListenerTLSConfig) []string {
	switch p {
	case gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType:
		return []string{"HTTPRoute", "GRPCRoute"}
	case gwv1.TLSProtocolType:
		if tls != nil && tls.Mode != nil && *tls.Mode == gwv1.TLSModePassthrough {
			return []string{"TLSRoute"}
		}
		return []string{"TCPRoute", "TLSRoute"}
	case gwv1.TCPProtocolType:
		return []string{"TCPRoute"}
	case gwv1.UDPProtocolType:
		return []string{"UDPRoute"}
	}
	return nil
}

// validateSpec is listener.go's validateListenerSpec: the namespaces
// selector, the protocol and the route kinds it carries, TLS, the
// hostname. It reports whether the spec is valid.
func (e *egListener) validateSpec(g *topology.Graph, m *model.Model) bool {
	valid := e.validateNamespaces()
	if supportedProtocol(e.l.Protocol) {
		if !e.validateKinds() {
			valid = false
		}
	} else {
		valid = false
		e.set("Accepted", false, "UnsupportedProtocol", fmt.Sprintf("Protocol %s is unsupported, must be HTTP, HTTPS, TCP or UDP.", e.l.Protocol))
	}
	if !e.validateTLS(g, m) {
		valid = false
	}
	if (e.l.Protocol == gwv1.UDPProtocolType || e.l.Protocol == gwv1.TCPProtocolType) && e.l.Hostname != nil {
		e.set("Programmed", false, "Invalid", fmt.Sprintf("Listener must not have hostname set when protocol is %s.", e.l.Protocol))
		valid = false
	}
	return valid
}

// validateNamespaces is validate.go's validateAllowedNamespaces.
func (e *egListener) validateNamespaces() bool {
	ar := e.l.AllowedRoutes
	if ar == nil || ar.Namespaces == nil || ar.Namespaces.From == nil || *ar.Namespaces.From != gwv1.NamespacesFromSelector {
		return true
	}
	if ar.Namespaces.Selector == nil {
		e.set("Programmed", false, "Invalid", `The allowedRoutes.namespaces.selector field must be specified when allowedRoutes.namespaces.from is set to "Selector".`)
		return false
	}
	if _, err := metav1.LabelSelectorAsSelector(ar.Namespaces.Selector); err != nil {
		e.set("Programmed", false, "Invalid", fmt.Sprintf("The allowedRoutes.namespaces.selector could not be parsed: %v.", err))
		return false
	}
	return true
}

// validateKinds is validate.go's validateAllowedRoutes: every
// allowedRoutes kind must be of the Gateway API group and one the
// protocol carries; the last problem is the one reported.
func (e *egListener) validateKinds() bool {
	ar := e.l.AllowedRoutes
	if ar == nil || len(ar.Kinds) == 0 {
		return true
	}
	can := kindsForProtocol(e.l.Protocol, e.l.TLS)
	valid := true
	var supported, unsupported []string
	for _, k := range ar.Kinds {
		if k.Group != nil && string(*k.Group) != model.GatewayGroup {
			e.set("ResolvedRefs", false, "InvalidRouteKinds", "Group is not supported, group must be "+model.GatewayGroup)
			valid = false
			continue
		}
		if slices.Contains(can, string(k.Kind)) {
			supported = append(supported, string(k.Kind))
		} else {
			unsupported = append(unsupported, string(k.Kind))
		}
	}
	kinds := can
	if len(supported) > 0 {
		kinds = supported
	}
	for _, k := range unsupported {
		e.set("ResolvedRefs", false, "InvalidRouteKinds", fmt.Sprintf("%s is not supported, kind must be one of [%s]", k, strings.Join(kinds, " ")))
		valid = false
	}
	return valid
}

// validateTLS is validate.go's validateTLSConfiguration.
func (e *egListener) validateTLS(g *topology.Graph, m *model.Model) bool {
	tls, valid := e.l.TLS, true
	invalid := func(reason, msg string) {
		e.set("Programmed", false, reason, msg)
		valid = false
	}
	switch e.l.Protocol {
	case gwv1.HTTPProtocolType, gwv1.UDPProtocolType, gwv1.TCPProtocolType:
		if tls != nil {
			invalid("Invalid", fmt.Sprintf("Listener must not have TLS set when protocol is %s.", e.l.Protocol))
		}
	case gwv1.HTTPSProtocolType:
		switch {
		case tls == nil:
			invalid("Invalid", fmt.Sprintf("Listener must have TLS set when protocol is %s.", e.l.Protocol))
		case tls.Mode != nil && *tls.Mode != gwv1.TLSModeTerminate:
			invalid("UnsupportedTLSMode", fmt.Sprintf("TLS %s mode is not supported, TLS mode must be Terminate.", *tls.Mode))
		case !e.validateCertificates(m):
			valid = false
		}
	case gwv1.TLSProtocolType:
		switch {
		case tls == nil:
			invalid("Invalid", fmt.Sprintf("Listener must have TLS set when protocol is %s.", e.l.Protocol))
		case tls.Mode != nil && *tls.Mode == gwv1.TLSModePassthrough && len(tls.CertificateRefs) > 0:
			invalid("Invalid", "Listener must not have TLS certificate refs set for TLS mode Passthrough.")
		case tls.Mode != nil && *tls.Mode == gwv1.TLSModeTerminate && len(tls.CertificateRefs) == 0:
			invalid("Invalid", "Listener must have TLS certificate refs set for TLS mode Terminate.")
		case tls.Mode != nil && *tls.Mode == gwv1.TLSModeTerminate && !e.validateCertificates(m):
			valid = false
		}
	}
	// The Gateway's frontend validation is given to its HTTPS listeners
	// only (listener.go: ProcessGatewayTLS), its CA read by
	// getCaCertsFromCARefs (frontendCAProblem).
	if e.l.Protocol == gwv1.HTTPSProtocolType {
		env := &policy.Env{Model: m, Config: e.cfg}
		if problem := listenerFrontendProblem(env, e.l.Gateway.Gateway, e.l.Port); problem != "" {
			reason := frontendCAReason(problem)
			msg := "Listener has invalid caCertificateRef for frontend TLS validation: " + problem
			e.set("ResolvedRefs", false, reason, msg)
			e.set("Programmed", false, reason, msg)
			e.set("Accepted", false, "NoValidCACertificate", msg)
			valid = false
		}
	}
	return valid
}

// sdsSecretType is Envoy Gateway's Secret type for a reference to a
// certificate an SDS server holds (egv1a1.SDSSecretType).
const sdsSecretType = "gateway.envoyproxy.io/sds"

// validateCertificates is validate.go's validateTerminateModeAndGetTLSSecrets:
// each certificateRef a Secret (no group, kind Secret), permitted by a
// ReferenceGrant from another namespace, in the input, of type
// kubernetes.io/tls with a tls.crt and a tls.key that are not empty (or of
// Envoy Gateway's SDS reference type, when the deployment enables it
// (EnableSDSSecretRef), with a secretName and a unix url); then the TLS
// Secrets' PEM data as parseCertsFromTLSSecretsData reads it (tls.go):
// every certificate of tls.crt valid now, tls.key of a supported format
// that matches it, and no two certificates of one public key algorithm
// for one domain. None usable: ResolvedRefs False (RefNotPermitted when
// every problem is a grant, else InvalidCertificateRef); some:
// PartiallyInvalidCertificateRef. A Secret assumed to exist (config
// assumeExist) is taken as valid: its data is outside the input.
func (e *egListener) validateCertificates(m *model.Model) bool {
	refs := e.l.TLS.CertificateRefs
	if len(refs) == 0 {
		e.set("Programmed", false, "Invalid", "Listener must have at least 1 TLS certificate ref")
		return false
	}
	type refErr struct{ reason, msg string }
	var errs []refErr
	var tlsSecrets []*model.Opaque
	others := 0 // resolved refs whose data is not read here: SDS references, assumed Secrets
	ns := e.namespace()
	fromGroup, fromKind := model.GatewayGroup, "Gateway"
	if e.fromSet() {
		fromKind = "ListenerSet"
	}
	sdsSeen := map[string]bool{}
	for i, r := range refs {
		bad := func(reason, format string, args ...any) {
			errs = append(errs, refErr{reason, fmt.Sprintf("certificate refs %d: ", i) + fmt.Sprintf(format, args...)})
		}
		if r.Group != nil && *r.Group != "" {
			bad("InvalidCertificateRef", "Listener's TLS certificate ref group must be unspecified/empty.")
			continue
		}
		if r.Kind != nil && *r.Kind != "Secret" {
			bad("InvalidCertificateRef", "Listener's TLS certificate ref kind must be Secret.")
			continue
		}
		sns := ns
		if r.Namespace != nil && *r.Namespace != "" && string(*r.Namespace) != ns {
			if !m.GrantAllows(fromGroup, fromKind, ns, model.ObjectRefTo{Kind: "Secret", Namespace: string(*r.Namespace), Name: string(r.Name)}) {
				bad("RefNotPermitted", "Certificate ref to secret %s/%s not permitted by any ReferenceGrant.", *r.Namespace, r.Name)
				continue
			}
			sns = string(*r.Namespace)
		}
		s := m.Secret(sns, string(r.Name))
		if s == nil {
			bad("InvalidCertificateRef", "Secret %s/%s does not exist.", sns, r.Name)
			continue
		}
		if s.Assumed {
			others++
			continue
		}
		switch typ := secretType(s); {
		case typ == sdsSecretType:
			if !EnableSDSSecretRef.Bool(e.cfg) {
				bad("InvalidCertificateRef", "SDS Secret %s/%s cannot be used because SDS Secret references are not enabled in EnvoyGateway configuration (%s).", sns, r.Name, enables(EnableSDSSecretRef))
				continue
			}
			if err := sdsReference(s); err != nil {
				bad("InvalidCertificateRef", "Secret %s/%s is not a valid SDS reference secret: %v.", sns, r.Name, err)
				continue
			}
			if !sdsSeen[sns+"/"+string(r.Name)] { // a repeated SDS reference is one
				sdsSeen[sns+"/"+string(r.Name)] = true
				others++
			}
			continue
		case typ != "kubernetes.io/tls":
			bad("InvalidCertificateRef", "Secret %s/%s must be of type kubernetes.io/tls.", sns, r.Name)
			continue
		}
		if !nonEmpty(s, "tls.crt") || !nonEmpty(s, "tls.key") {
			bad("InvalidCertificateRef", "Secret %s/%s must contain tls.crt and tls.key.", sns, r.Name)
			continue
		}
		tlsSecrets = append(tlsSecrets, s)
	}
	joined := func() string {
		msgs := make([]error, len(errs))
		for i, err := range errs {
			msgs[i] = errors.New(err.msg)
		}
		return errors.Join(msgs...).Error()
	}
	if len(tlsSecrets)+others == 0 {
		reason := "RefNotPermitted"
		for _, err := range errs {
			if err.reason != "RefNotPermitted" {
				reason = "InvalidCertificateRef"
				break
			}
		}
		e.set("ResolvedRefs", false, reason, "No valid secrets exist: "+joined())
		return false
	}
	e.sds = len(sdsSeen) > 0
	valid, sans, parseErr := tlsSecretsData(tlsSecrets)
	e.sans = sans
	if parseErr != nil {
		if valid == 0 && others == 0 {
			e.set("ResolvedRefs", false, "InvalidCertificateRef", fmt.Sprintf("No valid secrets exist: %v.", parseErr))
			return false
		}
		errs = append(errs, refErr{"PartiallyInvalidCertificateRef", parseErr.Error()})
	}
	if len(errs) > 0 {
		e.set("ResolvedRefs", false, "PartiallyInvalidCertificateRef", "Some secrets are invalid: "+joined())
	}
	return true
}

// certificatesNow is the time certificates are checked at: now, as Envoy
// Gateway checks them when it translates (a test may fix it).
var certificatesNow = time.Now

// tlsSecretsData is tls.go's parseCertsFromTLSSecretsData over a
// listener's TLS Secrets, which have a tls.crt and a tls.key: how many
// are valid, the DNS SANs of their certificates (to compare, never to
// print), and every problem of the others, joined.
func tlsSecretsData(secrets []*model.Opaque) (valid int, sans []string, err error) {
	var errs []error
	algorithmDomains := map[string]bool{}
	now := certificatesNow()
	for _, s := range secrets {
		crt, _ := s.Value("tls.crt")
		key, _ := s.Value("tls.key")
		if err := secret.CheckServingChain(crt, now); err != nil {
			errs = append(errs, fmt.Errorf("%s/%s must contain valid tls.crt and tls.key, unable to validate certificate in tls.crt: %v", s.Namespace, s.Name, err))
			continue
		}
		leaf, err := secret.CheckServingKeyPair(crt, key)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s/%s must contain valid tls.crt and tls.key, %v", s.Namespace, s.Name, err))
			continue
		}
		conflict := false
		seen := map[string]bool{}
		for _, d := range leaf.Domains {
			if seen[d] {
				continue
			}
			seen[d] = true
			k := leaf.Algorithm + "/" + d
			if algorithmDomains[k] {
				// Envoy Gateway names the domain; gwpol says nothing a Secret
				// holds but what internal/secret allows
				errs = append(errs, fmt.Errorf("%s/%s public key algorithm must be unique, a certificate domain of it has a conflicting algorithm [%s]", s.Namespace, s.Name, leaf.Algorithm))
				conflict = true
				break
			}
			algorithmDomains[k] = true
		}
		if !conflict {
			valid++
			sans = append(sans, leaf.SANs...)
		}
	}
	return valid, sans, errors.Join(errs...)
}

// sdsReference is ir.NewSDSConfig's check of an SDS reference Secret: a
// secretName and a url, the url a unix socket (netutil.ParseURL).
func sdsReference(s *model.Opaque) error {
	switch {
	case !nonEmpty(s, "secretName"):
		return fmt.Errorf("no secretName found in SDS reference secret %s/%s", s.Namespace, s.Name)
	case !nonEmpty(s, "url"):
		return fmt.Errorf("no url found in SDS reference secret %s/%s", s.Namespace, s.Name)
	}
	u, _ := s.Value("url")
	if err := secret.CheckUnixURL(u); err != nil {
		return fmt.Errorf("invalid URL in SDS reference secret %s/%s: %v", s.Namespace, s.Name, err)
	}
	return nil
}

// secretType is a Secret's type as written, Opaque when unset.
func secretType(s *model.Opaque) string {
	if s.Type == "" {
		return "Opaque"
	}
	return s.Type
}

// invalidCondition is validate.go's hasInvalidCondition.
func (e *egListener) invalidCondition() bool {
	for _, c := range e.conds {
		switch {
		case c.Type == "Programmed" && c.Status == string(metav1.ConditionFalse),
			c.Type == "Accepted" && c.Status == string(metav1.ConditionFalse),
			c.Type == "ResolvedRefs" && c.Status == string(metav1.ConditionFalse) && c.Reason != "PartiallyInvalidCertificateRef":
			return true
		}
	}
	return false
}

// conflictCandidate is validate.go's isSpecValidForConflictChecks.
func (e *egListener) conflictCandidate() bool { return e.specValid || !e.invalidCondition() }

// conflicted is validate.go's setConflictedConditions: a ListenerSet's
// listener is also not accepted and not programmed.
func (e *egListener) conflicted(reason, msg string) {
	e.set("Conflicted", true, reason, msg)
	if e.fromSet() {
		e.set("Accepted", false, reason, msg)
		e.set("Programmed", false, reason, msg)
	}
	if reason == "ProtocolConflict" {
		e.protocolConflicted = true
	}
}

// protocolFamily is validate.go's getProtocolForListener: HTTPS and TLS
// share a port.
func protocolFamily(p gwv1.ProtocolType) string {
	if p == gwv1.HTTPSProtocolType || p == gwv1.TLSProtocolType {
		return "https/tls"
	}
	return string(p)
}

// byPort groups the listeners that take part in a conflict check by port,
// in listener order.
func byPort(ls []*egListener, take func(*egListener) bool) (ports []gwv1.PortNumber, groups map[gwv1.PortNumber][]*egListener) {
	groups = map[gwv1.PortNumber][]*egListener{}
	for _, e := range ls {
		if !take(e) {
			continue
		}
		if _, seen := groups[e.l.Port]; !seen {
			ports = append(ports, e.l.Port)
		}
		groups[e.l.Port] = append(groups[e.l.Port], e)
	}
	return ports, groups
}

// protocolConflicts is validate.go's validateConflictedProtocolsListeners
// for one Gateway: the listeners of a port must share a protocol family
// (UDP aside). Among the Gateway's own listeners all of them conflict;
// a ListenerSet's listener loses to the Gateway's protocol, or to the
// first protocol on the port when the Gateway has none there.
func protocolConflicts(ls []*egListener) {
	ports, groups := byPort(ls, func(e *egListener) bool { return e.conflictCandidate() && supportedProtocol(e.l.Protocol) })
	for _, port := range ports {
		on := groups[port]
		families, gatewayFamilies := map[string]bool{}, map[string]bool{}
		setFamilies := map[string]map[string]bool{}
		setConflicts := map[string]bool{}
		var names []string
		for _, e := range on {
			f := protocolFamily(e.l.Protocol)
			if f == string(gwv1.UDPProtocolType) {
				continue
			}
			families[f] = true
			names = append(names, e.displayName())
			if !e.fromSet() {
				gatewayFamilies[f] = true
				continue
			}
			key := e.l.Set.Namespace + "/" + e.l.Set.Name
			if setFamilies[key] == nil {
				setFamilies[key] = map[string]bool{}
			}
			setFamilies[key][f] = true
			if len(setFamilies[key]) > 1 {
				setConflicts[key] = true
			}
		}
		if len(families) <= 1 {
			continue
		}
		slices.Sort(names)
		msg := "All listeners for a given port must use a compatible protocol, conflicting listeners: " + strings.Join(names, ", ")
		winner := ""
		if len(gatewayFamilies) > 1 {
			for _, e := range on {
				if protocolFamily(e.l.Protocol) != string(gwv1.UDPProtocolType) {
					e.conflicted("ProtocolConflict", msg)
				}
			}
			continue
		}
		for f := range gatewayFamilies {
			winner = f
		}
		for _, e := range on {
			f := protocolFamily(e.l.Protocol)
			if f == string(gwv1.UDPProtocolType) {
				continue
			}
			if e.fromSet() && len(gatewayFamilies) == 0 && setConflicts[e.l.Set.Namespace+"/"+e.l.Set.Name] {
				e.conflicted("ProtocolConflict", msg)
				continue
			}
			switch {
			case winner == "":
				winner = f
			case f != winner:
				e.conflicted("ProtocolConflict", msg)
			}
		}
	}
}

// hostnameConflicts is validate.go's validateConflictedHostnameListeners
// for one Gateway: the HTTP, HTTPS and TLS listeners of a port must have
// distinct hostnames. Two of the Gateway's own with one hostname both
// conflict; otherwise the Gateway's listener (or the first of a
// ListenerSet's) keeps it and the others conflict.
func hostnameConflicts(ls []*egListener) {
	ports, groups := byPort(ls, func(e *egListener) bool {
		return e.l.Protocol != gwv1.UDPProtocolType && e.l.Protocol != gwv1.TCPProtocolType && e.conflictCandidate() && !e.protocolConflicted
	})
	for _, port := range ports {
		on := groups[port]
		count := map[string]int{}
		for _, e := range on {
			count[e.hostname()]++
		}
		gatewayCount := map[string]int{}
		setCount := map[string]map[string]int{}
		setConflicts := map[string]bool{}
		names := map[string][]string{}
		for _, e := range on {
			h := e.hostname()
			if count[h] <= 1 {
				continue
			}
			names[h] = append(names[h], e.displayName())
			if !e.fromSet() {
				gatewayCount[h]++
				continue
			}
			key := e.l.Set.Namespace + "/" + e.l.Set.Name
			if setCount[key] == nil {
				setCount[key] = map[string]int{}
			}
			setCount[key][h]++
			if setCount[key][h] > 1 {
				setConflicts[h] = true
			}
		}
		winners := map[string]*egListener{}
		for _, e := range on {
			h := e.hostname()
			if count[h] <= 1 || gatewayCount[h] > 1 || (setConflicts[h] && e.fromSet()) {
				continue
			}
			if w, ok := winners[h]; !ok || (w.fromSet() && !e.fromSet()) {
				winners[h] = e
			}
		}
		for _, e := range on {
			h := e.hostname()
			if count[h] <= 1 {
				continue
			}
			list := slices.Clone(names[h])
			slices.Sort(list)
			msg := "All listeners for a given port must use a unique hostname, conflicting listeners: " + strings.Join(list, ", ")
			if w, ok := winners[h]; !ok || w != e {
				e.conflicted("HostnameConflict", msg)
			}
		}
	}
}

// layer4Conflicts is validate.go's validateConflictedLayer4Listeners: one
// TCP (or UDP) listener per port; the later ones conflict.
func layer4Conflicts(ls []*egListener, p gwv1.ProtocolType) {
	ports, groups := byPort(ls, func(e *egListener) bool { return e.conflictCandidate() && e.l.Protocol == p })
	for _, port := range ports {
		for _, e := range groups[port][1:] {
			e.conflicted("ProtocolConflict", fmt.Sprintf("Only one %s listener is allowed in a given port", p))
		}
	}
}

// finish is validate.go's validateListenerConditions: a listener without
// problems is Programmed, Accepted and ResolvedRefs (and, from a
// ListenerSet, not Conflicted); an invalid certificate alone keeps it
// Accepted; any other problem makes it not Programmed, and references
// not reported otherwise count as resolved.
func (e *egListener) finish() {
	if len(e.conds) == 0 {
		e.set("Programmed", true, "Programmed", "Sending translated listener configuration to the data plane")
		e.set("Accepted", true, "Accepted", "Listener has been successfully translated")
		e.set("ResolvedRefs", true, "ResolvedRefs", "Listener references have been resolved")
		if e.fromSet() {
			e.set("Conflicted", false, "NoConflicts", "No conflicts detected")
		}
		return
	}
	if len(e.conds) == 1 && e.conds[0].Type == "ResolvedRefs" {
		switch e.conds[0].Reason {
		case "PartiallyInvalidCertificateRef":
			e.set("Accepted", true, "Accepted", "Listener has been successfully translated")
			e.set("Programmed", true, "Programmed", "Sending translated listener configuration to the data plane")
			return
		case "InvalidCertificateRef":
			e.set("Accepted", true, "Accepted", "Listener has been successfully translated")
			e.set("Programmed", false, "Invalid", "Listener is invalid, see other Conditions for details.")
			return
		}
	}
	if first := e.conds[0]; first.Type != "Programmed" || first.Status != string(metav1.ConditionTrue) {
		if !e.has("Programmed") {
			e.set("Programmed", false, "Invalid", "Listener is invalid, see other Conditions for details.")
		}
		if !e.has("ResolvedRefs") {
			e.set("ResolvedRefs", true, "ResolvedRefs", "Listener references have been resolved")
		}
	}
}

// overlappingTLS is listener.go: checkOverlappingTLSConfig over a
// Gateway's HTTPS listeners (its ListenerSets' too), once their
// conditions are final: overlapping hostnames, then certificates Envoy
// Gateway cannot read (SDS), then overlapping certificate SANs, each
// replacing the one before on a listener (OverlappingTLSConfig True).
// Only listeners without an invalid condition take part.
func overlappingTLS(ls []*egListener) {
	var https []*egListener
	for _, e := range ls {
		if e.l.Protocol == gwv1.HTTPSProtocolType && !e.invalidCondition() {
			https = append(https, e)
		}
	}
	pairs(https, func(a, b *egListener) bool { return hostnamesOverlap(a.l.Hostname, b.l.Hostname) }, func(e, o *egListener) {
		e.set("OverlappingTLSConfig", true, "OverlappingHostnames", fmt.Sprintf("The hostname %s overlaps with the hostname %s in listener %s.", e.hostname(), o.hostname(), o.l.Name))
	})
	opaqueCertificates(https)
	pairs(https, func(a, b *egListener) bool { return sansOverlap(a.sans, b.sans) }, func(e, o *egListener) {
		// Envoy Gateway names both SANs; gwpol prints nothing a Secret holds
		e.set("OverlappingTLSConfig", true, "OverlappingCertificates", fmt.Sprintf("A certificate SAN overlaps with a certificate SAN in listener %s. "+
			"ALPN will default to HTTP/1.1 to prevent HTTP/2 connection coalescing, unless explicitly configured via ClientTrafficPolicy", o.l.Name))
		e.l.DefaultALPN = http11Only
	})
}

// http11Only is the ALPN a listener whose certificates may overlap
// another's of its port offers (topology.Listener.DefaultALPN): Envoy
// Gateway marks it TLSOverlaps with SDSCertificateOpaque or
// OverlappingCertificates (not with OverlappingHostnames alone), and its
// xDS translator (listener.go: addXdsHTTPFilterChain) then offers
// http/1.1 where no ClientTrafficPolicy sets alpnProtocols.
var http11Only = []string{"http/1.1"}

// pairs is the pairing of checkOverlappingHostnames and
// checkOverlappingCertificates: listeners of one port that overlap are
// paired, each once as the first of a pair, and mark is called for each
// with its pair (for a listener several overlap, the last one paired).
func pairs(ls []*egListener, overlap func(a, b *egListener) bool, mark func(e, other *egListener)) {
	other := make([]*egListener, len(ls))
	for i, a := range ls {
		if other[i] != nil {
			continue
		}
		for j := i + 1; j < len(ls); j++ {
			if b := ls[j]; other[j] == nil && a.l.Port == b.l.Port && overlap(a, b) {
				// no break: a later overlapping listener renames the pair
				other[i], other[j] = b, a
			}
		}
	}
	for i, e := range ls {
		if other[i] != nil {
			mark(e, other[i])
		}
	}
}

// opaqueCertificates is checkOverlappingCertificates' first step: on a
// port with two valid HTTPS listeners or more, a listener whose
// certificate is an SDS reference, and every listener whose SANs may
// overlap such a listener's hostname (any, when it has none), gets
// OverlappingTLSConfig SDSCertificateOpaque: Envoy Gateway cannot read
// those certificates' names.
func opaqueCertificates(https []*egListener) {
	count := map[gwv1.PortNumber]int{}
	sds := map[gwv1.PortNumber][]*egListener{}
	for _, e := range https {
		count[e.l.Port]++
		if e.sds {
			sds[e.l.Port] = append(sds[e.l.Port], e)
		}
	}
	for _, e := range https {
		if count[e.l.Port] < 2 || !slices.ContainsFunc(sds[e.l.Port], func(s *egListener) bool {
			return s == e || s.l.Hostname == nil || slices.ContainsFunc(e.sans, func(n string) bool { h := gwv1.Hostname(n); return hostnamesOverlap(s.l.Hostname, &h) })
		}) {
			continue
		}
		e.set("OverlappingTLSConfig", true, "SDSCertificateOpaque", "HTTP/2 is disabled by default because one or more HTTPS listeners on this port use an SDS-backed certificate "+
			"whose DNS names cannot be inspected. Configure ALPN explicitly with ClientTrafficPolicy to override this default.")
		e.l.DefaultALPN = http11Only
	}
}

// sansOverlap is isOverlappingCertificate: a SAN of one overlaps a SAN
// of the other.
func sansOverlap(a, b []string) bool {
	return slices.ContainsFunc(a, func(x string) bool {
		return slices.ContainsFunc(b, func(y string) bool { hx, hy := gwv1.Hostname(x), gwv1.Hostname(y); return hostnamesOverlap(&hx, &hy) })
	})
}

// hostnamesOverlap is listener.go: areOverlappingHostnames: a listener
// without a hostname overlaps every other; a wildcard covers the names
// one label below it.
func hostnamesOverlap(a, b *gwv1.Hostname) bool {
	if a == nil || b == nil {
		return true
	}
	return hostnameCovers(string(*a), string(*b)) || hostnameCovers(string(*b), string(*a))
}

// hostnameCovers is hostnameMatchesWithOther: h equals pattern, or
// pattern is a wildcard and h, not one, is a single label below it.
func hostnameCovers(h, pattern string) bool {
	wild := func(s string) bool { return len(s) > 1 && s[0] == '*' }
	if wild(pattern) && !wild(h) {
		label, ok := strings.CutSuffix(h, pattern[1:])
		return ok && !strings.Contains(label, ".")
	}
	return h == pattern
}
