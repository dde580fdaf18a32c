package envoygateway

import (
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// LintRoutesOverlap is the finding of Envoy Gateway's RouteRulesOverlap
// (route.go: checkRouteOverlaps), made where the condition is decided
// (overlap.go) so that lint and status say the same.
var LintRoutesOverlap = diag.Rule{Code: "GWP219", Name: "routes-overlap", Severity: diag.Warning,
	Title: "two routes on one listener match the same requests",
	Doc: "Two HTTPRoutes or GRPCRoutes attached to one listener have a rule each whose hostname, path, header, query parameter and cookie matches are the same, " +
		"so the data plane sends those requests to one of them only. Envoy Gateway warns with RouteRulesOverlap on the routes' status; " +
		"tell the rules apart by a match, or merge them into one route."}

// LintRules implements policy.LintRuleOwner: the findings only Envoy
// Gateway's translator makes.
func (k *Kind) LintRules() []diag.Rule {
	return []diag.Rule{LintRoutesOverlap, LintBackendNotAccepted, LintGatewayNotAccepted, LintGatewayTelemetryUnresolved, LintGatewayTLSUnresolved}
}

var _ policy.LintRuleOwner = (*Kind)(nil)
