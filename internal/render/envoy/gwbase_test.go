package envoy_test

// httpGateway is the Gateway most render tests start from: one HTTP
// listener on port 80 in infra, of the gwpol class (no controller in the
// input, so it renders with the envoy target). A test's own objects
// follow it after a document separator.
const httpGateway = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: gwpol
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`
