package policy

import (
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/model"
)

// ServicePortProtocol is the application protocol a Service port speaks
// under the target: its appProtocol, else its name where the target
// reads names as protocols (PortNameIsAppProtocol); "" when none, or when
// the Service or port is not there. It is the one place a Service port's
// protocol is decided: render's clusters and lint's findings read it.
func (t *Target) ServicePortProtocol(s *model.Service, port int32) string {
	if s == nil {
		return ""
	}
	for _, p := range s.Spec.Ports {
		if p.Port != port {
			continue
		}
		if p.AppProtocol != nil {
			return *p.AppProtocol
		}
		if t.PortNameIsAppProtocol {
			return p.Name
		}
		return ""
	}
	return ""
}

// UpstreamProtocol is the upstream HTTP protocol a backend of that
// application protocol speaks under the target: ClusterHTTP2 for one of
// HTTP2AppProtocols, ClusterHTTP1 for any other (no appProtocol
// included). "" where the target does not decide a backend's protocol by
// what the backend says (HTTP2AppProtocols unset: the protocol follows
// what uses the cluster).
func (t *Target) UpstreamProtocol(appProtocol string) string {
	if len(t.HTTP2AppProtocols) == 0 {
		return ""
	}
	if t.AppProtocolIn(t.HTTP2AppProtocols, appProtocol) {
		return ClusterHTTP2
	}
	return ClusterHTTP1
}

// AppProtocolIn reports whether appProtocol is one of protocols under
// the target: as written, or whatever its case where the target folds
// it (AppProtocolsFoldCase). "" is none.
func (t *Target) AppProtocolIn(protocols []string, appProtocol string) bool {
	if appProtocol == "" {
		return false
	}
	if !t.AppProtocolsFoldCase {
		return slices.Contains(protocols, appProtocol)
	}
	return slices.ContainsFunc(protocols, func(p string) bool { return strings.EqualFold(p, appProtocol) })
}

// BackendAppProtocol is the application protocol a backend names: a
// Service port's (ServicePortProtocol), or what the kind that defines a
// backend object reads from it (BackendAppProtocoler); "" when none.
func (r *Registry) BackendAppProtocol(t *Target, m *model.Model, k model.Key, port int32) string {
	if k.Group == "" && k.Kind == "Service" {
		return t.ServicePortProtocol(m.Service(k.Namespace, k.Name), port)
	}
	ap := r.backendAppProtocoler(model.GroupKind{Group: k.Group, Kind: k.Kind})
	if ap == nil {
		return ""
	}
	o, found := m.Object(k)
	if !found {
		return ""
	}
	return ap.BackendAppProtocol(o)
}

// backendAppProtocoler is the registered kind that defines backendRef
// kind gk (BackendProvider) and reads its objects' protocol; nil when
// none does.
func (r *Registry) backendAppProtocoler(gk model.GroupKind) BackendAppProtocoler {
	for _, k := range r.kinds {
		bp, ok := k.(BackendProvider)
		ap, ok2 := k.(BackendAppProtocoler)
		if ok && ok2 && slices.Contains(bp.BackendKinds(), gk) {
			return ap
		}
	}
	return nil
}

// BackendProtocol is the upstream HTTP protocol of a backend's cluster
// as the controller decides it before any policy, from what the backend
// says (UpstreamProtocol of BackendAppProtocol): kgateway keys the HTTP/1
// and HTTP/2 protocol options of a BackendConfigPolicy on it, whatever
// options the backend's own plugin wrote into the cluster (an AWS Lambda
// cluster speaks HTTP/2, yet its Backend names no protocol and takes
// HTTP/1 options). "" where the target does not decide it so.
func (r *Registry) BackendProtocol(t *Target, m *model.Model, k model.Key, port int32) string {
	if len(t.HTTP2AppProtocols) == 0 {
		return ""
	}
	return t.UpstreamProtocol(r.BackendAppProtocol(t, m, k, port))
}
