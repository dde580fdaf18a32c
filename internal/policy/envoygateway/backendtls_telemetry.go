package envoygateway

import (
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
// name), for each Gateway not refused whole (an invalid EnvoyProxy
// refuses it first). The destinations are the Gateway's telemetry walk's
// (walkTelemetry, which also decides the Gateway's condition): those it
// built up to their policy lookup, before the first failure.
func (s *btlsRun) proxyUses(env *policy.Env, g *topology.Graph, own func(*topology.Gateway) bool) {
	for _, gw := range g.Gateways {
		if !own(gw) || gw.Refused.Reason != "" {
			continue // a refused Gateway is never translated (GetRelevantGateways)
		}
		w := walkTelemetry(env, gw.Gateway)
		for _, d := range w.reached {
			if gp := s.governing(d.backend, backendtlspolicy.PortSection(g.Model, d.backend, d.port)); gp != nil {
				s.report(gp, w.owner, "", 0, false, nil)
			}
		}
	}
}
