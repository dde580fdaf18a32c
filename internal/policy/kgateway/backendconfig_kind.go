package kgateway

import (
	"fmt"
	"time"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BackendConfigPolicy's kind name (its group is Group).
const (
	// BackendConfigKindName is the policy kind.
	BackendConfigKindName = "BackendConfigPolicy"
)

// BackendConfigKind is the BackendConfigPolicy kind.
type BackendConfigKind struct{}

// BackendConfigPolicy implements no optional hook of the policy-kind
// contract (internal/policy/kind.go).
var _ policy.Kind = BackendConfigKind{}

// NewBackendConfigPolicy returns the kind.
func NewBackendConfigPolicy() BackendConfigKind { return BackendConfigKind{} }

// GroupKind implements policy.Kind.
func (BackendConfigKind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: Group, Kind: BackendConfigKindName}
}

// backendConfigFields are the spec's top-level settings; each is one merge key, named
// as in the spec: which of several policies on one backend sets a
// cluster setting is decided per field.
var backendConfigFields = []string{
	"connectTimeout", "perConnectionBufferLimitBytes", "tcpKeepalive",
	"commonHttpProtocolOptions", "http1ProtocolOptions", "http2ProtocolOptions",
	"tls", "loadBalancer", "healthCheck", "outlierDetection", "circuitBreakers",
	"upstreamProxyProtocol", "dns.refreshRate", "dns.jitter", "dns.respectTTL",
}

// dnsFields are the parts of spec.dns, each its own merge key: kgateway
// merges them one by one (backendconfigpolicy/merge.go:
// mergeDnsRefreshRate, mergeDnsJitter, mergeRespectDnsTtl, with the
// merge origins dns.refreshRate, dns.jitter, dns.respectTTL), so one
// policy's refresh rate and another's jitter both apply.
var dnsFields = []string{"refreshRate", "jitter", "respectTTL"}

// clusterSettings are the Envoy cluster settings each field configures
// (policy.FieldSpec.Cluster); the HTTP protocol options are one
// extension's parts, so they are named by part.
var clusterSettings = map[string]string{
	"connectTimeout": "connect_timeout", "perConnectionBufferLimitBytes": "per_connection_buffer_limit_bytes",
	"tcpKeepalive": "upstream_connection_options.tcp_keepalive", "commonHttpProtocolOptions": policy.ClusterCommonHTTPOptions,
	"http1ProtocolOptions": "http_protocol_options", "http2ProtocolOptions": policy.ClusterHTTP2Options,
	"tls": policy.ClusterTransportSocket, "loadBalancer": policy.ClusterLoadBalancing, "healthCheck": "health_checks",
	"outlierDetection": "outlier_detection", "circuitBreakers": "circuit_breakers",
	"upstreamProxyProtocol": "transport_socket (upstream PROXY protocol, wrapping the TLS socket)",
	"dns.refreshRate":       "cluster_type (DNS resolution: dns_refresh_rate)", "dns.jitter": "cluster_type (DNS resolution: dns_jitter)",
	"dns.respectTTL": "cluster_type (DNS resolution: respect_dns_ttl)",
}

// clusterWrites are the Envoy paths each field writes on the backend's
// cluster (policy.FieldSpec.Writes): the settings clusterSettings names,
// the HTTP protocol options all in the one typed extension.
var clusterWrites = map[string][]string{
	"connectTimeout": {"cluster.connect_timeout"}, "perConnectionBufferLimitBytes": {"cluster.per_connection_buffer_limit_bytes"},
	"tcpKeepalive": {"cluster.upstream_connection_options"}, "commonHttpProtocolOptions": {"cluster.typed_extension_protocol_options"},
	"http1ProtocolOptions": {"cluster.typed_extension_protocol_options"}, "http2ProtocolOptions": {"cluster.typed_extension_protocol_options"},
	"tls": {"cluster.transport_socket"}, "loadBalancer": {"cluster.load_balancing_policy", "cluster.common_lb_config"}, "healthCheck": {"cluster.health_checks"},
	"outlierDetection": {"cluster.outlier_detection"}, "circuitBreakers": {"cluster.circuit_breakers"},
	"upstreamProxyProtocol": {"cluster.transport_socket"},
	"dns.refreshRate":       {"cluster.cluster_type"}, "dns.jitter": {"cluster.cluster_type"}, "dns.respectTTL": {"cluster.cluster_type"},
}

// protocolOnly are the fields kgateway applies to a backend of one
// upstream protocol only, leaving them out elsewhere with a log line and
// the policy accepted: applyHttp1ProtocolOptions skips a backend whose
// app protocol is HTTP/2, applyHttp2ProtocolOptions any other
// (protocoloptions.go).
var protocolOnly = map[string]string{
	"http1ProtocolOptions": policy.ClusterHTTP1,
	"http2ProtocolOptions": policy.ClusterHTTP2,
}

var backendConfigSpec = func() policy.KindSpec {
	s := policy.KindSpec{
		ConfigKey:         "backendConfigPolicy",
		MetadataKey:       "merge." + Group + "/" + BackendConfigKindName,
		MetadataKeyCompat: "merge." + BackendConfigKindName + "." + Group,
		TargetKinds:       []policy.TargetKind{policy.TargetService, "Backend"},
		Attached:          true,
		MaxAncestors:      16,
		// Ordered by age alone: kgateway reads no policy weight on this
		// kind (ignoredWeight).
		Precedence: true,
		// krtcollections/policy.go@6026ee98: BackendIndex.AddBackends
		// lists a Service's whole-object policies, then its port's
		// (sectionName) ones, each in age order; the plugin's merge keeps
		// the first setter of each field.
		WholeTargetFirst: true,
	}
	for _, f := range backendConfigFields {
		s.Fields = append(s.Fields, policy.FieldSpec{Key: f, SpecPath: "spec." + f, Default: policy.AugmentedShallow, Cluster: clusterSettings[f], Protocol: protocolOnly[f], Writes: clusterWrites[f]})
	}
	return s
}()

// Spec implements policy.Kind.
func (BackendConfigKind) Spec() policy.KindSpec { return backendConfigSpec }

// BackendConfigPolicy is the object as gwpol reads it.
type BackendConfigPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BackendConfigSpec `json:"spec"`
}

// TargetRef names a Service or Backend in the policy's namespace; a
// sectionName names a port of it.
type TargetRef struct {
	Group       string  `json:"group"`
	Kind        string  `json:"kind"`
	Name        string  `json:"name"`
	SectionName *string `json:"sectionName,omitempty"`
}

// TargetSelector selects Services or Backends by labels.
type TargetSelector struct {
	Group       string            `json:"group"`
	Kind        string            `json:"kind"`
	MatchLabels map[string]string `json:"matchLabels"`
	SectionName *string           `json:"sectionName,omitempty"`
}

// BackendConfigSpec holds the targets and the cluster settings. The settings are kept
// as written: gwpol decides which policy owns each of them, and does not
// build the cluster.
type BackendConfigSpec struct {
	TargetRefs                    []TargetRef      `json:"targetRefs,omitempty"`
	TargetSelectors               []TargetSelector `json:"targetSelectors,omitempty"`
	ConnectTimeout                any              `json:"connectTimeout,omitempty"`
	PerConnectionBufferLimitBytes any              `json:"perConnectionBufferLimitBytes,omitempty"`
	TCPKeepalive                  any              `json:"tcpKeepalive,omitempty"`
	CommonHTTPProtocolOptions     any              `json:"commonHttpProtocolOptions,omitempty"`
	HTTP1ProtocolOptions          any              `json:"http1ProtocolOptions,omitempty"`
	HTTP2ProtocolOptions          any              `json:"http2ProtocolOptions,omitempty"`
	TLS                           any              `json:"tls,omitempty"`
	LoadBalancer                  any              `json:"loadBalancer,omitempty"`
	HealthCheck                   any              `json:"healthCheck,omitempty"`
	OutlierDetection              any              `json:"outlierDetection,omitempty"`
	CircuitBreakers               any              `json:"circuitBreakers,omitempty"`
	UpstreamProxyProtocol         any              `json:"upstreamProxyProtocol,omitempty"`
	DNS                           any              `json:"dns,omitempty"`
}

func (s *BackendConfigSpec) values() map[string]any {
	out := map[string]any{
		"connectTimeout": s.ConnectTimeout, "perConnectionBufferLimitBytes": s.PerConnectionBufferLimitBytes,
		"tcpKeepalive": s.TCPKeepalive, "commonHttpProtocolOptions": s.CommonHTTPProtocolOptions,
		"http1ProtocolOptions": s.HTTP1ProtocolOptions, "http2ProtocolOptions": s.HTTP2ProtocolOptions,
		"tls": s.TLS, "loadBalancer": s.LoadBalancer, "healthCheck": s.HealthCheck,
		"outlierDetection": s.OutlierDetection, "circuitBreakers": s.CircuitBreakers,
		"upstreamProxyProtocol": s.UpstreamProxyProtocol,
	}
	if dns, ok := s.DNS.(map[string]any); ok {
		for _, f := range dnsFields {
			out["dns."+f] = dns[f]
		}
	}
	return out
}

// Decode implements policy.Kind.
func (k BackendConfigKind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	var bcp BackendConfigPolicy
	if !p.DecodeObject(&bcp, env.Config) {
		return p
	}
	p.Data = &bcp
	p.Created = bcp.CreationTimestamp.Time
	ignoredWeight(p, bcp.Annotations)
	p.Targets = backendConfigTargets(bcp.Spec)
	for key, v := range bcp.Spec.values() {
		if v != nil {
			p.Values[key] = v
		}
	}
	if d, ok := checkDuration(p, bcp.Spec.ConnectTimeout, "spec.connectTimeout"); !ok {
		p.Invalid = append(p.Invalid, d)
	}
	checkTLS(p, bcp.Spec.TLS, env.Model, o.Namespace, strictValidation(env.Config))
	return p
}

func backendConfigTargets(s BackendConfigSpec) []policy.TargetRef {
	var out []policy.TargetRef
	for i, t := range s.TargetRefs {
		r := policy.TargetRef{Group: t.Group, Kind: t.Kind, Name: t.Name, Path: fmt.Sprintf("spec.targetRefs[%d]", i)}
		if t.SectionName != nil {
			r.Section = *t.SectionName
		}
		out = append(out, r)
	}
	for i, t := range s.TargetSelectors {
		r := policy.TargetRef{Group: t.Group, Kind: t.Kind, Selector: t.MatchLabels, Path: fmt.Sprintf("spec.targetSelectors[%d]", i)}
		if r.Selector == nil {
			r.Selector = map[string]string{}
		}
		if t.SectionName != nil {
			r.Section = *t.SectionName
		}
		out = append(out, r)
	}
	return out
}

// checkDuration: connectTimeout is a duration string (kgateway's CRD
// validates it; an object that skipped admission would not translate).
func checkDuration(p *policy.Policy, v any, path string) (diag.Diagnostic, bool) {
	if v == nil {
		return diag.Diagnostic{}, true
	}
	s, ok := v.(string)
	if !ok {
		return p.Diag(policy.LintPolicyInvalid.Code, diag.Error, path, "%s must be a duration string such as 5s", path), false
	}
	if _, err := time.ParseDuration(s); err != nil {
		return p.Diag(policy.LintPolicyInvalid.Code, diag.Error, path, "%s %q is not a duration (use forms like 100ms, 5s, 1m)", path, s), false
	}
	return diag.Diagnostic{}, true
}
