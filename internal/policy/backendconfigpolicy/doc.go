// Package backendconfigpolicy is kgateway's BackendConfigPolicy: the
// settings of the Envoy clusters built for a Service or a kgateway Backend
// (connect timeout, load balancer, health checks, outlier detection,
// circuit breakers, HTTP protocol options, upstream TLS, …).
//
// It is a policy kind (stage: policy) and imports only diag, model,
// manifest and the policy contract; it implements no optional hook. Its targets are the backends themselves, so its
// status ancestor is the Service or Backend it configures, as kgateway
// reports it. It does not render: the clusters it shapes are outside the
// xDS gwpol writes today.
package backendconfigpolicy
