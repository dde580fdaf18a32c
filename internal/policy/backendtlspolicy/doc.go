// Package backendtlspolicy is the Gateway API BackendTLSPolicy
// (gateway.networking.k8s.io): how the gateway validates the TLS
// certificate of a Service or kgateway Backend it connects to.
//
// It is a policy kind (stage: policy) and imports only diag, model,
// manifest and the policy contract (hooks: policy.ConditionWriter,
// policy.Untranslator — its options, which no controller gwpol emulates
// reads at its pinned version, are reported where they are set — and
// policy.BackendReferrer, through which a controller building a
// destination to a backend port — an Envoy Gateway route backend or
// ext-proc service — finds the policy governing the port and the CA
// certificates it references, to judge them by its own rules). Its
// targets are backends; its status is the Gateway API's, written per
// Gateway whose routes use the backend: ResolvedRefs
// (the CA certificate references) and Accepted — False/Conflicted for a
// policy that targets the same backend as an older one, and
// False/NoValidCACertificate when no CA certificate resolves. It renders
// (policy.Renderer) the upstream TLS of the backend's cluster, its CA read
// as the render target's controller reads the references
// (policy.Target.FirstCACertificateRef).
package backendtlspolicy
