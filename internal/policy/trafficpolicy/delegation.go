package trafficpolicy

import "github.com/gwpol/gwpol/internal/model"

// RouteWildcard is the name of a delegating backendRef (kind HTTPRoute)
// that selects every HTTPRoute of its namespace as a child, rather than
// the one so named (kgateway's delegation: gateway2/delegation).
const RouteWildcard = "*"

// wildcards are the reference names kgateway reads as selecting rather
// than naming (policy.Family.Wildcards).
var wildcards = map[model.GroupKind]string{{Group: model.GatewayGroup, Kind: "HTTPRoute"}: RouteWildcard}
