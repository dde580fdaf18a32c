package envoygateway

import (
	"fmt"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// The telemetry of the EnvoyProxy in effect on a Gateway, as Envoy
// Gateway v1.9.0 translates it for each Gateway it translates, before
// any route (listener.go: ProcessListeners → processProxyObservability):
// the access log settings (processAccessLog), the tracing provider
// (processTracing), the metrics sinks (processMetrics), each backend
// cluster through processBackendRefsForTelemetry. The first error stops
// the walk: the Gateway is then Accepted False (InvalidParameters), the
// later telemetry is not translated, and the Gateway's listeners are
// translated and served all the same. One walk (walkTelemetry) gives
// both the Gateway's condition (gatewayReport) and the BackendTLSPolicy
// ancestors the telemetry's destinations report (K17, proxyUses).

// LintGatewayTelemetryUnresolved is the finding of a Gateway Envoy Gateway reports
// not accepted for its EnvoyProxy's telemetry, while it translates it.
var LintGatewayTelemetryUnresolved = diag.Rule{Code: "GWP227", Name: "gateway-telemetry-unresolved", Severity: diag.Error,
	Title: "Envoy Gateway Gateway not accepted: its EnvoyProxy's telemetry does not resolve",
	Doc: "The EnvoyProxy in effect on an Envoy Gateway Gateway sends access logs, traces or metrics to a backend Envoy Gateway cannot build: an access log match that is not a CEL expression, " +
		"backendSettings that do not translate, a backendRef of a kind other than Service or Backend, a Service that is missing, of type ExternalName, without the TCP port or without endpoints, " +
		"a Backend that is missing, disabled, invalid or a DynamicResolver, or upstream TLS that does not resolve (the Backend's own, a BackendTLSPolicy's CA, the EnvoyProxy's client certificate). " +
		"Envoy Gateway writes the Gateway Accepted False (InvalidParameters) and no Programmed, and translates none of the telemetry from the failing one on; it still serves the Gateway's listeners and routes."}

// telemetryWalk is the outcome of walking one Gateway's telemetry.
type telemetryWalk struct {
	// reached are the destinations built up to their BackendTLSPolicy
	// lookup (processBackendTLSPolicy), in order: each reports the policy
	// governing it against the EnvoyProxy (owner).
	reached []telemetryDest
	owner   model.Key
	// section, problem and path: the failure that stopped the walk ("":
	// none) — which telemetry ("access log", "tracing", "metrics"),
	// Envoy Gateway's error as it words it, and the EnvoyProxy's field.
	section, problem, path string
}

// telemetryDest is a telemetry backend's port.
type telemetryDest struct {
	backend model.Key
	port    int32
}

// failed records the error that stops the walk.
func (w *telemetryWalk) failed(section, path, problem string) {
	w.section, w.path, w.problem = section, path, problem
}

// walkTelemetryKey is the Env.Memo key of a Gateway's walk.
type walkTelemetryKey struct{ gw *model.Gateway }

// walkTelemetry walks the telemetry of the EnvoyProxy in effect on gw,
// once per pass.
func walkTelemetry(env *policy.Env, gw *model.Gateway) telemetryWalk {
	return env.Memo(walkTelemetryKey{gw}, func() any { return walkTelemetryOnce(env, gw) }).(telemetryWalk)
}

func walkTelemetryOnce(env *policy.Env, gw *model.Gateway) telemetryWalk {
	pc, ok := effectiveProxy(gw, env.Model)
	if !ok {
		return telemetryWalk{}
	}
	var t egv1a1.ProxyTelemetry
	if pc.DecodeField("spec.telemetry", &t) != nil {
		return telemetryWalk{}
	}
	w := telemetryWalk{owner: pc.owner}
	c := telemetryCtx{env: env, gw: gw, proxy: pc, w: &w}
	if al := t.AccessLog; al != nil && (al.Disable == nil || !*al.Disable) {
		for i, setting := range al.Settings {
			at := fmt.Sprintf("spec.telemetry.accessLog.settings[%d]", i)
			var bad []string
			for _, expr := range setting.Matches {
				if !validCEL(expr) {
					bad = append(bad, "invalid CEL expression: "+expr)
				}
			}
			if len(bad) > 0 {
				w.failed("access log", at+".matches", aggregateMessage(bad))
				return w
			}
			for j, sink := range setting.Sinks {
				st := fmt.Sprintf("%s.sinks[%d]", at, j)
				switch {
				case sink.Type == egv1a1.ProxyAccessLogSinkTypeALS && sink.ALS != nil:
					if !c.cluster("access log", st+".als", sink.ALS.BackendCluster) {
						return w
					}
				case sink.Type == egv1a1.ProxyAccessLogSinkTypeOpenTelemetry && sink.OpenTelemetry != nil:
					if !c.cluster("access log", st+".openTelemetry", sink.OpenTelemetry.BackendCluster) {
						return w
					}
				}
			}
		}
	}
	if tr := t.Tracing; tr != nil {
		if !c.cluster("tracing", "spec.telemetry.tracing.provider", tr.Provider.BackendCluster) {
			return w
		}
	}
	if m := t.Metrics; m != nil {
		for i, sink := range m.Sinks {
			if sink.OpenTelemetry == nil {
				continue
			}
			if !c.cluster("metrics", fmt.Sprintf("spec.telemetry.metrics.sinks[%d].openTelemetry", i), sink.OpenTelemetry.BackendCluster) {
				return w
			}
		}
	}
	return w
}

// aggregateMessage is how Kubernetes' aggregate error words several
// errors: one as it is, more as "[a, b]", each message once.
func aggregateMessage(msgs []string) string {
	var uniq []string
	seen := map[string]bool{}
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			uniq = append(uniq, m)
		}
	}
	if len(uniq) == 1 {
		return uniq[0]
	}
	return "[" + strings.Join(uniq, ", ") + "]"
}

// telemetryCtx is what walking one Gateway's telemetry reads.
type telemetryCtx struct {
	env   *policy.Env
	gw    *model.Gateway
	proxy proxyConfig
	w     *telemetryWalk
}

// cluster is processBackendRefsForTelemetry on one backend cluster at
// path: its backendSettings (translateTrafficFeatures), then each
// backendRef — its kind, the Service or Backend it names
// (validateBackendRefService for TCP, processServiceDestinationSetting's
// endpoints; validateBackendRefBackend, the DynamicResolver refusal) and
// its upstream TLS (applyBackendTLSSetting). False where Envoy Gateway
// returns an error (recorded on the walk).
func (c telemetryCtx) cluster(section, path string, bc egv1a1.BackendCluster) bool {
	if msg := c.settingsProblem(path, bc.BackendSettings); msg != "" {
		c.w.failed(section, path+".backendSettings", msg)
		return false
	}
	for i, ref := range bc.BackendRefs {
		at := fmt.Sprintf("%s.backendRefs[%d]", path, i)
		if msg := c.backendRef(ref.BackendObjectReference); msg != "" {
			c.w.failed(section, at, msg)
			return false
		}
	}
	return true
}

// settingsProblem is translateTrafficFeatures' error for a telemetry
// cluster's backendSettings: its builders' errors bare (no builder or
// feature label, no full stop), a builder's several joined by new lines.
func (c telemetryCtx) settingsProblem(path string, cs *egv1a1.ClusterSettings) string {
	if cs == nil {
		return ""
	}
	o, ok := c.env.Model.Object(c.proxy.owner)
	if !ok {
		return ""
	}
	scratch := &policy.Policy{Obj: o}
	at := strings.Split(strings.TrimPrefix(path+".backendSettings", "spec."), ".")
	if !(valueChecks{p: scratch, bare: true}).trafficFeatures(cs, "", at...) {
		return ""
	}
	msgs := make([]string, len(scratch.Invalid))
	for i, d := range scratch.Invalid {
		msgs[i] = d.Message
	}
	return strings.Join(msgs, "\n")
}

// backendRef is Envoy Gateway's error for one telemetry backendRef ("":
// none), and records the destination when its BackendTLSPolicy is
// looked for.
func (c telemetryCtx) backendRef(ref gwapiv1.BackendObjectReference) string {
	m := c.env.Model
	ns := c.w.owner.Namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	kind := "Service"
	if ref.Kind != nil {
		kind = string(*ref.Kind)
	}
	group := ""
	if ref.Group != nil {
		group = string(*ref.Group)
	}
	var port int32
	if ref.Port != nil {
		port = int32(*ref.Port)
	}
	name := string(ref.Name)
	k := model.Key{Group: group, Kind: kind, Namespace: ns, Name: name}
	var spec *egv1a1.BackendSpec
	switch kind {
	case "Service":
		svc := m.Service(ns, name)
		switch {
		case svc == nil:
			return fmt.Sprintf("service %s/%s not found", ns, name)
		case svc.Spec.Type == "ExternalName":
			return fmt.Sprintf("Service %s/%s is of type ExternalName, which is not supported as a backend; use an Envoy Gateway Backend resource with an FQDN endpoint instead", ns, name)
		case ref.Port == nil || !hasPortFor(svc, port, "TCP"):
			return fmt.Sprintf("TCP Port %d not found on Service %s/%s", port, ns, name)
		case lacksEndpoints(m, "Service", ns, name, port, func() bool { return c.proxy.routesToServices() }):
			return fmt.Sprintf("no ready endpoints for the related Service %s/%s", ns, name)
		}
	case backend.Kind:
		if !EnableBackend.Bool(c.env.Config) {
			return "Backend is disabled in Envoy Gateway configuration"
		}
		var ok bool
		spec, ok = readBackend(c.env, m, ns, name)
		switch {
		case !ok:
			return fmt.Sprintf("Backend %s/%s not found", ns, name)
		case spec == nil:
			return "" // the Backend's own findings say why
		}
		if v := (backendJudge{env: c.env, onHost: RunningOnHost.Bool(c.env.Config)}).verdict(ns, name, spec); v.problem != nil {
			return strings.TrimSuffix(v.problem.message, ".")
		}
		if isDynamicResolver(spec) {
			return "dynamic resolver destinations are not supported"
		}
	default:
		return "unsupported kind for backendRefs: " + kind
	}
	// applyBackendTLSSetting: a Backend's own TLS first, then the
	// BackendTLSPolicy governing the port (its ancestor set before its
	// own references are judged), then the merged settings' CA and the
	// EnvoyProxy's client certificate.
	if spec != nil && spec.TLS != nil {
		if msg := backendOwnTLSProblem(c.env, k, spec); msg != "" {
			return msg
		}
	}
	c.w.reached = append(c.w.reached, telemetryDest{backend: k, port: port})
	msg := destinationTLSProblem(c.env, k, port, spec)
	if msg == "" && usesTLS(c.env, k, port, spec) {
		msg = gatewayClientCertProblem(c.env, c.gw)
	}
	return msg
}

// routesToServices: the EnvoyProxy sets routingType Service, so Envoy
// Gateway reaches a Service by its cluster IP, not its endpoints
// (IsServiceRouting, with no BackendTrafficPolicy for a telemetry
// destination).
func (p proxyConfig) routesToServices() bool {
	var t string
	return p.DecodeField("spec.routingType", &t) == nil && t == string(egv1a1.ServiceRoutingType)
}

// gatewayReport implements policy.Family.GatewayReport: what Envoy
// Gateway writes on a Gateway it translates besides its listeners'
// verdict, in its order — the Gateway's own TLS references
// (ProcessGatewayTLS: ResolvedRefs, InsecureFrontendValidationMode,
// gatewayTLSConditions), then its EnvoyProxy's telemetry: a walk that
// fails makes the Gateway Accepted False (InvalidParameters,
// processProxyObservability's message), and its provider writes no
// Programmed on a Gateway not accepted
// (provider/kubernetes/status.go: updateStatusForGateway); the listeners
// keep their status and are served.
func gatewayReport(env *policy.Env, gw *model.Gateway) ([]metav1.Condition, []diag.Diagnostic) {
	conds, ds := gatewayTLSConditions(env, gw)
	w := walkTelemetry(env, gw)
	if w.problem == "" {
		return conds, ds
	}
	msg := fmt.Sprintf("Invalid %s backendRefs in the referenced EnvoyProxy: %s", w.section, w.problem)
	conds = append(conds,
		metav1.Condition{Type: "Accepted", Status: metav1.ConditionFalse, Reason: string(gwapiv1.GatewayReasonInvalidParameters), Message: msg},
		metav1.Condition{Type: "Programmed"}, // none written
	)
	o, ok := env.Model.Object(w.owner)
	if !ok {
		return conds, ds
	}
	return conds, append(ds, diag.Diagnostic{Code: LintGatewayTelemetryUnresolved.Code, Severity: LintGatewayTelemetryUnresolved.Severity, Object: o.Ref(), Field: w.path, Pos: o.FieldPos(w.path),
		Message: fmt.Sprintf("Gateway %s/%s is not accepted by Envoy Gateway (InvalidParameters): %s; its %s and the telemetry after it are not translated, its listeners and routes are served",
			gw.Namespace, gw.Name, msg, w.section)})
}
