package topology

// kgatewayKeys are the keys kgateway's family declares
// (trafficpolicy.TopologyKeys): topology's tests cannot import a family,
// so they name them.
var kgatewayKeys = Keys{RouteWeight: "kgateway.dev/route-weight"}
