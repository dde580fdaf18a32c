// Package backendconfigpolicy is kgateway's BackendConfigPolicy: the
// settings of the Envoy clusters built for a Service or a kgateway Backend
// (connect timeout, load balancer, health checks, outlier detection,
// circuit breakers, HTTP protocol options, upstream TLS, …).
//
// It is a policy kind (stage: policy): it imports diag, model, manifest
// and the policy contract, and its render file go-control-plane. Its
// targets are the backends themselves, so its status ancestor is the
// Service or Backend it configures, as kgateway reports it. It renders
// each field into the cluster of the backend (policy.ScopeCluster); a
// setting it does not render yet is reported unsupported (GWP404).
package backendconfigpolicy
