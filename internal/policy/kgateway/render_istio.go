package kgateway

import (
	"strconv"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rawbufferv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/raw_buffer/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// AnnotationDisableIstioAutoMTLS is the Service or Backend annotation
// that keeps Istio's auto mTLS off its cluster (a value strconv.ParseBool
// reads as true).
const AnnotationDisableIstioAutoMTLS = "kgateway.dev/disable-istio-auto-mtls"

// The names kgateway's Istio integration writes (pkg/kgateway/wellknown):
// the endpoint metadata key and value Istio labels mesh workloads with,
// the SDS secrets of Istio's workload certificate and root, and the SDS
// cluster of the gateway proxy.
const (
	istioTLSModeKey        = "tlsMode"
	istioMutualTLSMode     = "istio"
	istioCertSecret        = "istio_server_cert"
	istioValidationContext = "istio_validation_context"
	istioSDSCluster        = "gateway_proxy_sds"
)

// istioTransportMatches implements policy.Target.BackendTransportMatches:
// kgateway's Istio plugin (extensions2/plugins/istio/plugin.go@204f6456:
// istioPlugin.processBackend, a global policy run on every backend) adds
// two transport socket matches to a backend's cluster when the deployment
// enables Istio auto mTLS and the backend does not opt out
// (DisableIstioAutoMTLS, from the annotation, ir.ParseObjectAnnotations):
// mutual TLS with Istio's SDS certificates, ALPN "istio", to endpoints
// whose metadata says tlsMode istio, then plain text to any other. The
// SNI is Istio's outbound name of a Service port
// (outbound_.<port>_._.<name>.<namespace>.svc.cluster.local); a backend
// object, whose backend kgateway builds on port 0, has none.
func istioTransportMatches(k model.Key, port int32, annotations map[string]string, cfg policy.Config) []proto.Message {
	if !EnableIstioAutoMtls.Bool(cfg) {
		return nil
	}
	if off, err := strconv.ParseBool(annotations[AnnotationDisableIstioAutoMTLS]); err == nil && off {
		return nil
	}
	sni := ""
	if k.Group == "" && k.Kind == "Service" && port != 0 {
		sni = "outbound_." + strconv.Itoa(int(port)) + "_._." + k.Name + "." + k.Namespace + ".svc.cluster.local"
	}
	mtls := &tlsv3.UpstreamTlsContext{Sni: sni, CommonTlsContext: &tlsv3.CommonTlsContext{
		AlpnProtocols: []string{"istio"},
		TlsParams:     &tlsv3.TlsParameters{},
		ValidationContextType: &tlsv3.CommonTlsContext_ValidationContextSdsSecretConfig{
			ValidationContextSdsSecretConfig: &tlsv3.SdsSecretConfig{Name: istioValidationContext, SdsConfig: istioSDS()},
		},
		TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{{Name: istioCertSecret, SdsConfig: istioSDS()}},
	}}
	return []proto.Message{
		&clusterv3.Cluster_TransportSocketMatch{
			Name:            istioTLSModeKey + "-" + istioMutualTLSMode,
			Match:           &structpb.Struct{Fields: map[string]*structpb.Value{istioTLSModeKey: structpb.NewStringValue(istioMutualTLSMode)}},
			TransportSocket: &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: pack(mtls)}},
		},
		&clusterv3.Cluster_TransportSocketMatch{
			Name:            istioTLSModeKey + "-disabled",
			Match:           &structpb.Struct{},
			TransportSocket: &corev3.TransportSocket{Name: "envoy.transport_sockets.raw_buffer", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: pack(&rawbufferv3.RawBuffer{})}},
		},
	}
}

// istioSDS is the SDS source of Istio's secrets: the gateway proxy's SDS
// cluster over gRPC, the node sent on the first message only.
func istioSDS() *corev3.ConfigSource {
	return &corev3.ConfigSource{ResourceApiVersion: corev3.ApiVersion_V3, ConfigSourceSpecifier: &corev3.ConfigSource_ApiConfigSource{
		ApiConfigSource: &corev3.ApiConfigSource{
			ApiType: corev3.ApiConfigSource_GRPC, TransportApiVersion: corev3.ApiVersion_V3, SetNodeOnFirstMessageOnly: true,
			GrpcServices: []*corev3.GrpcService{{TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: istioSDSCluster}}}},
		},
	}}
}
