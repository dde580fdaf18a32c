package envoygateway

import (
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/backendtlspolicy"
	"github.com/gwpol/gwpol/internal/topology"
)

// proxyUses reports the policy governing each telemetry backend of the
// EnvoyProxy in effect on each of the controller's Gateways, against that
// EnvoyProxy, as Envoy Gateway v1.9.0 does before it translates any route
// (listener.go: ProcessListeners → processProxyObservability →
// processAccessLog, processTracing, processMetrics →
// processBackendRefsForTelemetry → applyBackendTLSSetting, whose parent
// is the EnvoyProxy: group gateway.envoyproxy.io, its namespace and
// name). The sinks are walked in that order — access log settings and
// their ALS and OpenTelemetry sinks, the tracing provider, the metrics
// OpenTelemetry sinks — for each Gateway not refused whole (an invalid
// EnvoyProxy refuses it first), and the walk stops for it at the first
// failure Envoy Gateway returns (the Gateway is then not accepted, its
// later sinks untranslated): an access log setting with a match that is
// not CEL, a backendRef of a kind other than Service or Backend, a
// missing Service, an ExternalName one or one without the port for TCP,
// a missing Backend or a DynamicResolver one, a Backend whose own TLS
// fails before the policy is looked for, and the governing policy's own
// TLS failure (after its ancestor is set).
func (s *btlsRun) proxyUses(g *topology.Graph, own func(*topology.Gateway) bool) {
	for _, gw := range g.Gateways {
		if !own(gw) || gw.Refused.Reason != "" {
			continue // a refused Gateway is never translated (GetRelevantGateways)
		}
		pc, ok := effectiveProxy(gw.Gateway, g.Model)
		if !ok {
			continue
		}
		var t egv1a1.ProxyTelemetry
		if pc.DecodeField("spec.telemetry", &t) != nil {
			continue
		}
		ns := pc.owner.Namespace
		for _, c := range telemetryClusters(&t) {
			if c == nil {
				break // a failure before any backend is looked at
			}
			if !s.telemetryCluster(g.Model, *c, ns, pc.owner) {
				break
			}
		}
	}
}

// telemetryClusters are the backend clusters of an EnvoyProxy's
// telemetry in the order Envoy Gateway translates them; a nil entry
// stands where it fails first (an access log match that is not CEL).
func telemetryClusters(t *egv1a1.ProxyTelemetry) []*egv1a1.BackendCluster {
	var out []*egv1a1.BackendCluster
	if al := t.AccessLog; al != nil && (al.Disable == nil || !*al.Disable) {
		for _, setting := range al.Settings {
			for _, expr := range setting.Matches {
				if !validCEL(expr) {
					return append(out, nil)
				}
			}
			for _, sink := range setting.Sinks {
				switch sink.Type {
				case egv1a1.ProxyAccessLogSinkTypeALS:
					if sink.ALS != nil {
						out = append(out, &sink.ALS.BackendCluster)
					}
				case egv1a1.ProxyAccessLogSinkTypeOpenTelemetry:
					if sink.OpenTelemetry != nil {
						out = append(out, &sink.OpenTelemetry.BackendCluster)
					}
				}
			}
		}
	}
	if tr := t.Tracing; tr != nil {
		out = append(out, &tr.Provider.BackendCluster)
	}
	if m := t.Metrics; m != nil {
		for _, sink := range m.Sinks {
			if sink.OpenTelemetry != nil {
				out = append(out, &sink.OpenTelemetry.BackendCluster)
			}
		}
	}
	return out
}

// telemetryCluster is processBackendRefsForTelemetry on one cluster: each
// backendRef is validated, then its TLS looked for; false where Envoy
// Gateway returns an error.
func (s *btlsRun) telemetryCluster(m *model.Model, c egv1a1.BackendCluster, ns string, proxy model.Key) bool {
	for _, ref := range c.BackendRefs {
		k, port, ok := telemetryBackend(m, ref.BackendObjectReference, ns)
		if !ok {
			return false
		}
		gp := s.governing(k, backendtlspolicy.PortSection(m, k, port))
		if gp == nil {
			continue
		}
		if !reaches(gp, k) {
			return false // the Backend's own TLS fails first
		}
		s.report(gp, proxy, "", 0, false, nil)
		if tlsRefused(gp) {
			return false // getBackendTLSBundle's error, after the ancestor is set
		}
	}
	return true
}

// telemetryBackend is the backend a telemetry backendRef names and its
// port, ok when Envoy Gateway's checks before the TLS pass
// (validateBackendRefService for TCP, validateBackendRefBackend's lookup
// and the DynamicResolver refusal).
func telemetryBackend(m *model.Model, ref gwapiv1.BackendObjectReference, ns string) (model.Key, int32, bool) {
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
	port := int32(0)
	if ref.Port != nil {
		port = int32(*ref.Port)
	}
	name := string(ref.Name)
	switch kind {
	case "Service":
		svc := m.Service(ns, name)
		if svc == nil || svc.Spec.Type == "ExternalName" || ref.Port == nil || !hasPortFor(svc, port, "TCP") {
			return model.Key{}, 0, false
		}
		return model.Key{Group: group, Kind: kind, Namespace: ns, Name: name}, port, true
	case backend.Kind:
		k := model.Key{Group: group, Kind: kind, Namespace: ns, Name: name}
		o, ok := m.Object(model.Key{Group: backend.Group, Kind: backend.Kind, Namespace: ns, Name: name})
		if !ok {
			return model.Key{}, 0, false
		}
		var spec egv1a1.BackendSpec
		if o.DecodeField("spec", &spec) == nil && isDynamicResolver(&spec) {
			return model.Key{}, 0, false
		}
		return k, port, true
	}
	return model.Key{}, 0, false
}

// tlsRefused: Envoy Gateway's verdict on p's own references refuses it
// (processBackendTLSPolicy returns getBackendTLSBundle's error).
func tlsRefused(p *policy.Policy) bool {
	for _, c := range p.Judgements[ControllerName].Conditions {
		if c.Type == "Accepted" && c.Status == "False" {
			return true
		}
	}
	return false
}
