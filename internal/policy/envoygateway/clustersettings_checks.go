package envoygateway

import (
	"slices"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
)

// trafficFeatures is translateTrafficFeatures (clustersettings.go), which
// builds the backendSettings of a service a policy calls — a remote JWKS,
// an OIDC provider, an ext auth or external processing service: the
// timeouts (their errors joined), the backend connection, the TCP
// keepalive, the circuit breaker, the load balancer, HTTP/2 and retry, in
// that order, up to the first builder that fails. Its errors carry no
// builder prefix of their own, only the caller's feature ("JWT: invalid
// ConnectTimeout value x."). at is the settings' path under spec. It
// reports whether a builder failed.
func (v valueChecks) trafficFeatures(cs *egv1a1.ClusterSettings, feature string, at ...string) bool {
	if cs == nil {
		return false
	}
	w := valueChecks{p: v.p, at: slices.Concat(v.at, at), feature: feature, bare: v.bare}
	n := len(v.p.Invalid)
	for _, build := range []func(){
		func() { w.clusterTimeout(cs.Timeout) },
		func() { w.backendConnection(cs.Connection) },
		func() { w.tcpKeepalive(cs.TCPKeepalive) },
		func() { w.circuitBreaker(cs.CircuitBreaker) },
		func() { w.loadBalancer(cs.LoadBalancer) },
		func() { w.http2Settings(cs.HTTP2) },
		func() { w.retry(cs.Retry) },
	} {
		build()
		if len(v.p.Invalid) > n {
			return true
		}
	}
	return false
}

// clusterTimeout is buildClusterSettingsTimeout: every timeout a Go
// duration, every error reported.
func (v valueChecks) clusterTimeout(t *egv1a1.Timeout) {
	if t == nil {
		return
	}
	if t.TCP != nil {
		duration(v, t.TCP.ConnectTimeout, "Timeout: invalid ConnectTimeout value %s.", "timeout", "tcp", "connectTimeout")
	}
	if h := t.HTTP; h != nil {
		duration(v, h.ConnectionIdleTimeout, "Timeout: invalid ConnectionIdleTimeout value %s.", "timeout", "http", "connectionIdleTimeout")
		duration(v, h.MaxConnectionDuration, "Timeout: invalid MaxConnectionDuration value %s.", "timeout", "http", "maxConnectionDuration")
		duration(v, h.RequestTimeout, "Timeout: invalid RequestTimeout value %s.", "timeout", "http", "requestTimeout")
		duration(v, h.MaxStreamDuration, "Timeout: invalid MaxStreamDuration value %s.", "timeout", "http", "maxStreamDuration")
		duration(v, h.StreamIdleTimeout, "Timeout: invalid StreamIdleTimeout value %s.", "timeout", "http", "streamIdleTimeout")
	}
}

// backendConnection is buildBackendConnection: the buffer limit a whole
// number of bytes that fits in 32 bits.
func (v valueChecks) backendConnection(c *egv1a1.BackendConnection) {
	if c != nil {
		v.bytes(c.BufferLimit, "BackendConnection: invalid BufferLimit value %s.", "BackendConnection: BufferLimit value %s is out of range.", "connection", "bufferLimit")
	}
}

// tcpKeepalive is buildTCPKeepAlive: idle time, then interval, Go
// durations, up to the first that is not.
func (v valueChecks) tcpKeepalive(ka *egv1a1.TCPKeepalive) {
	if ka == nil {
		return
	}
	v.first(
		v.dur(ka.IdleTime, "TCPKeepalive: invalid IdleTime value %s.", "tcpKeepalive", "idleTime"),
		v.dur(ka.Interval, "TCPKeepalive: invalid Interval value %s.", "tcpKeepalive", "interval"),
	)
}
