package envoy

import (
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TestValidateWalksPolicyShapedClusters: Gateway.validate walks the
// packed configs of the clusters policies shaped, and only those (and
// those with protocol options): a cluster built here holds no Any.
func TestValidateWalksPolicyShapedClusters(t *testing.T) {
	bad := &clusterv3.Cluster{Name: "kube_apps_api_8080", ConnectTimeout: durationpb.New(time.Second),
		TransportSocket: &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{
			TypedConfig: mustAny(&tlsv3.UpstreamTlsContext{Sni: strings.Repeat("a", 256)})}}}
	for _, c := range []struct {
		name                   string
		shaped, fragmentCalled map[string]bool
		refused                bool
	}{
		{"not shaped", nil, nil, false},
		{"shaped", map[string]bool{bad.Name: true}, nil, true},
		{"in a scoped render's set alone", nil, map[string]bool{bad.Name: true}, false},
	} {
		g := &Gateway{Namespace: "infra", Name: "gw", Clusters: []*clusterv3.Cluster{bad}, policyShaped: c.shaped, fragmentClusters: c.fragmentCalled}
		if err := g.validate(); (err != nil) != c.refused {
			t.Errorf("%s: validate: %v, want refused %v", c.name, err, c.refused)
		}
	}
}
