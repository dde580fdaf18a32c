package kgateway

import (
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// XDSNames are the names kgateway's translator gives the xDS resources it
// writes (internal/kgateway/translator/listener/gateway_listener_translator.go
// and translator/irtranslator/route.go in kgateway's source), so that
// gwpol's output diffs against a live config_dump:
//
//   - one Listener per port, listener~<port>, its HTTP listeners sharing
//     one filter chain and RouteConfiguration of that name;
//   - an HTTPS listener's filter chain and RouteConfiguration are named
//     after the listener (<ListenerSet namespace>/<name>/<listener> for a
//     ListenerSet's);
//   - a virtual host is <RouteConfiguration>~<hostname>, every "." of the
//     whole name "_" (makeVhostName sanitizes the joined name, so a dotted
//     listener or ListenerSet name loses its dots there too, while the
//     RouteConfiguration and filter chain keep them);
//   - a route is <virtual host>-route-<position>-<kind>-<name>-<namespace>-<rule>-<match>[-<rule name>]-matcher-<match>;
//   - a TCP or TLS route's filter chain is <listener>-<namespace>.<name>-rule-0
//     (kgateway programs a stream route's one rule);
//   - a Gateway's client-certificate variant of a TLS cluster
//     <base>_<port> is <base>_gw_backend_client_cert_<namespace>_<gateway>_<port>.
//
// The body of a resource an invalid policy replaces is kgateway's.
// Clusters of a rule's own are not kgateway's structure: the part is left
// to the family that writes them.
var XDSNames = policy.XDSNames{
	Listener:    func(port int32) string { return "listener~" + strconv.Itoa(int(port)) },
	HTTPSChain:  httpsChainName,
	VirtualHost: virtualHostName,
	Route:       routeName,
	StreamChain: func(listener, namespace, name string) string {
		return listener + "-" + namespace + "." + name + "-rule-0"
	},
	ClientCertCluster: clientCertCluster,
	InvalidBody:       InvalidBody,
}

// virtualHostName names a virtual host as kgateway's
// translator/listener/gateway_listener_translator.go: makeVhostName does:
// utils.SanitizeForEnvoy over "<RouteConfiguration>~<hostname>", which
// replaces every "." of the joined name (Envoy's stats tree splits names
// at dots).
func virtualHostName(rc, host string) string {
	return strings.ReplaceAll(rc+"~"+host, ".", "_")
}

// clientCertCluster names a Gateway's client-certificate variant of a
// cluster, the Gateway inserted before the port; a name without a port
// part has none.
func clientCertCluster(cluster, ns, gateway string) (string, bool) {
	i := strings.LastIndexByte(cluster, '_')
	if i < 0 {
		return "", false
	}
	return cluster[:i] + "_gw_backend_client_cert_" + ns + "_" + gateway + cluster[i:], true
}

// InvalidBody is the body of kgateway's 500 direct response replacing a
// resource an invalid policy merged into.
const InvalidBody = "invalid route configuration detected and replaced with a direct response."

// httpsChainName names an HTTPS listener's filter chain and
// RouteConfiguration.
func httpsChainName(l *topology.Listener) string {
	if l.Set != nil {
		return l.Set.Namespace + "/" + l.Set.Name + "/" + string(l.Name)
	}
	return string(l.Name)
}

// routeName names an Envoy route; it is called for every route, so it
// builds the name in one buffer.
func routeName(r policy.RouteName) string {
	var b strings.Builder
	b.Grow(len(r.VirtualHost) + 64)
	b.WriteString(r.VirtualHost)
	b.WriteString("-route-")
	b.WriteString(strconv.Itoa(r.Position))
	b.WriteByte('-')
	b.WriteString(strings.ToLower(r.Kind))
	b.WriteByte('-')
	b.WriteString(r.Name)
	b.WriteByte('-')
	b.WriteString(r.Namespace)
	b.WriteByte('-')
	b.WriteString(strconv.Itoa(r.Rule))
	b.WriteByte('-')
	b.WriteString(strconv.Itoa(r.Match))
	if r.RuleName != "" {
		b.WriteByte('-')
		b.WriteString(r.RuleName)
	}
	b.WriteString("-matcher-")
	b.WriteString(strconv.Itoa(r.Match))
	return b.String()
}
