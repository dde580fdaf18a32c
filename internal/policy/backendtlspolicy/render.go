package backendtlspolicy

import (
	"fmt"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// BackendTLSPolicy renders its validation as the upstream TLS transport
// socket of the backend's cluster, as kgateway does.
var _ policy.Renderer = Kind{}

// systemCASecret is kgateway's SDS name of the system CA bundle.
const systemCASecret = "SYSTEM_CA_CERT"

// caEntry is the ConfigMap entry the CA is read from: ca.crt, else
// tls.crt, else its only entry (Envoy Gateway's getCaCertsFromCARefs;
// kgateway accepts the ConfigMap only with ca.crt, so it reads the same);
// ca.crt when the input does not hold the ConfigMap's data.
func caEntry(env *policy.Env, ns, name string) string {
	var cm *model.Opaque
	if env != nil && env.Model != nil {
		cm = env.Model.ConfigMap(ns, name)
	}
	if cm == nil || cm.Assumed {
		return "ca.crt"
	}
	for _, k := range []string{"ca.crt", "tls.crt"} {
		if _, ok := cm.Data(k); ok {
			return k
		}
	}
	if keys := cm.DataKeys(); len(keys) == 1 {
		return keys[0]
	}
	return "ca.crt"
}

// RenderField implements policy.Renderer. SNI is the validation
// hostname; the certificate must carry the subjectAltNames (else the
// hostname); the CA is the system bundle, or what the CA certificate
// references hold as the target's controller reads them (trustedCA) —
// which gwpol never reads: a ConfigMap's or ClusterTrustBundle's is a
// placeholder, a Secret's is read from where it is mounted.
func (Kind) RenderField(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	if len(in.Values) == 0 || len(in.Namespaces) == 0 {
		return nil, nil
	}
	v, ok := in.Values[0].(*Validation)
	if !ok {
		return nil, fmt.Errorf("validation is a %T", in.Values[0])
	}
	ns := in.Namespaces[0]
	sans, err := subjectAltNames(v)
	if err != nil {
		return nil, err
	}
	common := &tlsv3.CommonTlsContext{}
	switch {
	case v.WellKnownCACertificates != nil:
		if *v.WellKnownCACertificates != "System" {
			return nil, diag.Errorf(diag.Unsupported, "wellKnownCACertificates %q (only System is rendered)", *v.WellKnownCACertificates)
		}
		common.ValidationContextType = &tlsv3.CommonTlsContext_CombinedValidationContext{CombinedValidationContext: &tlsv3.CommonTlsContext_CombinedCertificateValidationContext{
			DefaultValidationContext:         &tlsv3.CertificateValidationContext{MatchTypedSubjectAltNames: sans},
			ValidationContextSdsSecretConfig: &tlsv3.SdsSecretConfig{Name: systemCASecret},
		}}
	case len(v.CACertificateRefs) > 0:
		ca, err := trustedCA(v.CACertificateRefs, ns, env)
		if err != nil {
			return nil, err
		}
		common.TlsParams = &tlsv3.TlsParameters{}
		common.ValidationContextType = &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: &tlsv3.CertificateValidationContext{
			MatchTypedSubjectAltNames: sans, TrustedCa: ca,
		}}
	default:
		return nil, fmt.Errorf("validation names no CA (caCertificateRefs or wellKnownCACertificates)")
	}
	ctx := &tlsv3.UpstreamTlsContext{CommonTlsContext: common, Sni: v.Hostname}
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(ctx)
	if err != nil {
		return nil, err
	}
	c := &clusterv3.Cluster{TransportSocket: &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{
		TypedConfig: &anypb.Any{TypeUrl: "type.googleapis.com/" + string(ctx.ProtoReflect().Descriptor().FullName()), Value: raw},
	}}}
	return []policy.Fragment{{Cluster: c}}, nil
}

// trustedCA is the CA bundle the references make, as the render target's
// controller reads them (policy.Target.AllCACertificateRefs): every
// reference, their certificates joined in order (Envoy Gateway's
// getCaCertsFromCARefs, which skips a reference of another kind); else
// the first reference alone, the one the kind's own verdict judges
// (kgateway's buildTranslateFunc). A Secret's CA is read from the file it
// is mounted as, so it can be joined with no other.
func trustedCA(refs []ObjectRef, ns string, env *policy.Env) (*corev3.DataSource, error) {
	if env != nil && env.Traits != nil && env.Traits.UsableCACertificate != nil && env.Model != nil {
		return usableCA(refs, ns, env)
	}
	if all := env != nil && env.Traits != nil && env.Traits.AllCACertificateRefs; len(refs) == 1 || !all {
		ref := refs[0]
		switch ref.Kind {
		case "ConfigMap":
			return &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: policy.ConfigMapPlaceholder(ns, ref.Name, caEntry(env, ns, ref.Name))}}, nil
		case "ClusterTrustBundle":
			return &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: policy.ClusterTrustBundlePlaceholder(ref.Name)}}, nil
		case "Secret":
			return &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: policy.SecretFile(ns, ref.Name, "ca.crt")}}, nil
		}
		return nil, fmt.Errorf("caCertificateRefs[0] is a %s, not a ConfigMap, Secret or ClusterTrustBundle", ref.Kind)
	}
	var bundle []string
	for i, ref := range refs {
		switch ref.Kind {
		case "ConfigMap":
			bundle = append(bundle, policy.ConfigMapPlaceholder(ns, ref.Name, caEntry(env, ns, ref.Name)))
		case "ClusterTrustBundle":
			bundle = append(bundle, policy.ClusterTrustBundlePlaceholder(ref.Name))
		case "Secret":
			return nil, diag.Errorf(diag.Unsupported, "caCertificateRefs[%d] is a Secret beside other CA references (gwpol reads a Secret's CA from its own file, and joins only ConfigMaps and ClusterTrustBundles)", i)
		}
	}
	if len(bundle) == 0 {
		return nil, fmt.Errorf("caCertificateRefs name no ConfigMap, Secret or ClusterTrustBundle")
	}
	return &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: strings.Join(bundle, "\n")}}, nil
}

// usableCA is the bundle of the references the target's controller finds
// usable (policy.Target.UsableCACertificate), in their order, each read
// from the entry it names; the others are skipped. The controller joins
// the certificates into one bundle whatever kind holds them, so a Secret
// among several stands as a placeholder in it (alone, it is read from
// where it is mounted).
func usableCA(refs []ObjectRef, ns string, env *policy.Env) (*corev3.DataSource, error) {
	type usable struct {
		ref   ObjectRef
		entry string
	}
	var use []usable
	for _, ref := range refs {
		if entry, ok := env.Traits.UsableCACertificate(env.Model, ns, model.Key{Group: ref.Group, Kind: ref.Kind, Namespace: ns, Name: ref.Name}); ok {
			use = append(use, usable{ref, entry})
		}
	}
	if len(use) == 0 {
		return nil, fmt.Errorf("no caCertificateRefs entry holds a CA certificate")
	}
	if len(use) == 1 && use[0].ref.Kind == "Secret" {
		return &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: policy.SecretFile(ns, use[0].ref.Name, use[0].entry)}}, nil
	}
	var bundle []string
	for _, u := range use {
		switch u.ref.Kind {
		case "ConfigMap":
			bundle = append(bundle, policy.ConfigMapPlaceholder(ns, u.ref.Name, u.entry))
		case "Secret":
			bundle = append(bundle, policy.SecretPlaceholder(ns, u.ref.Name, u.entry))
		case "ClusterTrustBundle":
			bundle = append(bundle, policy.ClusterTrustBundlePlaceholder(u.ref.Name))
		}
	}
	return &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: strings.Join(bundle, "\n")}}, nil
}

func subjectAltNames(v *Validation) ([]*tlsv3.SubjectAltNameMatcher, error) {
	exact := func(t tlsv3.SubjectAltNameMatcher_SanType, s string) *tlsv3.SubjectAltNameMatcher {
		return &tlsv3.SubjectAltNameMatcher{SanType: t, Matcher: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: s}}}
	}
	if len(v.SubjectAltNames) == 0 {
		return []*tlsv3.SubjectAltNameMatcher{exact(tlsv3.SubjectAltNameMatcher_DNS, v.Hostname)}, nil
	}
	var out []*tlsv3.SubjectAltNameMatcher
	for i, s := range v.SubjectAltNames {
		m, _ := s.(map[string]any)
		typ, _ := m["type"].(string)
		switch typ {
		case "Hostname":
			h, _ := m["hostname"].(string)
			out = append(out, exact(tlsv3.SubjectAltNameMatcher_DNS, h))
		case "URI":
			u, _ := m["uri"].(string)
			out = append(out, exact(tlsv3.SubjectAltNameMatcher_URI, u))
		default:
			return nil, fmt.Errorf("subjectAltNames[%d].type %q is not Hostname or URI", i, typ)
		}
	}
	return out, nil
}
