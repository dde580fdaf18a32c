package topology

// kgatewayKeys are the keys kgateway's family declares
// (trafficpolicy.TopologyKeys; a test in internal/cli holds the two
// equal). topology's tests cannot import a family, so they name them.
var kgatewayKeys = Keys{
	DelegationLabel: "delegation.kgateway.dev/label", DelegationLabelGroup: "delegation.kgateway.dev",
	InheritParentMatcher: "delegation.kgateway.dev/inherit-parent-matcher",
	RouteWeight:          "kgateway.dev/route-weight",
}

// Names the tests use.
var (
	DelegationLabel      = kgatewayKeys.DelegationLabel
	DelegationLabelGroup = kgatewayKeys.DelegationLabelGroup
)
