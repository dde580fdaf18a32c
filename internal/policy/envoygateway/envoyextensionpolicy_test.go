package envoygateway

import (
	"slices"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/backendtlspolicy"
)

// decodeExtension decodes an EnvoyExtensionPolicy of the spec given,
// beside extensionObjects and extra documents, through a registry that
// holds BackendTLSPolicy too (so the policy governing a backend port is known).
func decodeExtension(t *testing.T, spec, extra string) *policy.Policy {
	t.Helper()
	doc := extensionObjects + extra + "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyExtensionPolicy\nmetadata: {name: p, namespace: app}\nspec:\n" + spec
	objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	reg := policy.NewRegistry(append(All(), backendtlspolicy.New())...)
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: reg.GroupKinds()})
	set := reg.Decode(&policy.Env{Model: m})
	p := set.Get(model.Key{Group: Group, Kind: "EnvoyExtensionPolicy", Namespace: "app", Name: "p"})
	if p == nil {
		t.Fatal("policy not decoded")
	}
	return p
}

// TestMarkFailOpen: a policy whose only problems are in external
// processors set to failOpen applies without them (FailOpen, the failed
// indexes on its extProc value) while it stays Invalid; any other problem
// keeps it out.
func TestMarkFailOpen(t *testing.T) {
	const target = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n"
	tests := []struct {
		name, spec string
		failOpen   bool
		failed     []int
	}{
		{"valid", target + "  extProc: [{backendRefs: [{name: svc, port: 9000}]}]\n", false, nil},
		{"missing service, fail open", target + "  extProc: [{backendRefs: [{name: svc, port: 9000}]}, {failOpen: true, backendRefs: [{name: gone, port: 9000}]}]\n", true, []int{1}},
		{"missing service, fail closed", target + "  extProc: [{backendRefs: [{name: gone, port: 9000}]}]\n", false, nil},
		{"one fails open, one fails closed", target + "  extProc: [{failOpen: true, backendRefs: [{name: gone, port: 9000}]}, {backendRefs: [{name: gone2, port: 9000}]}]\n", false, nil},
		{"fails open beside a bad Lua script", target + "  extProc: [{failOpen: true, backendRefs: [{name: gone, port: 9000}]}]\n  lua: [{type: Inline, inline: \"function envoy_on_request(h) if end\"}]\n", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := decodeExtension(t, tc.spec, "")
			if p.FailOpen != tc.failOpen {
				t.Fatalf("FailOpen = %v, want %v (invalid: %v)", p.FailOpen, tc.failOpen, p.Invalid)
			}
			if tc.failOpen && (p.IsValid() || !p.Applies()) {
				t.Errorf("a policy failing open stays Invalid and applies: valid %v, applies %v", p.IsValid(), p.Applies())
			}
			var got []int
			if v, ok := p.Values["extProc"].(*fieldValue); ok {
				got = v.failed
			}
			if !slices.Equal(got, tc.failed) {
				t.Errorf("failed entries %v, want %v", got, tc.failed)
			}
		})
	}
}

// TestExtensionBackendTLS: the BackendTLSPolicy on an external
// processor's Service port must have its CA ConfigMap in the input — the
// policy for the port's section before one for the whole Service — or the
// calling policy is Invalid with Envoy Gateway's message.
func TestExtensionBackendTLS(t *testing.T) {
	const spec = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  extProc: [{backendRefs: [{name: named, port: 9000}]}]\n"
	const svc = "---\napiVersion: v1\nkind: Service\nmetadata: {name: named, namespace: app}\nspec: {ports: [{name: grpc, port: 9000}]}\n"
	btp := func(name, section, ca string) string {
		s := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n  targetRefs: [{group: '', kind: Service, name: named"
		if section != "" {
			s += ", sectionName: " + section
		}
		return s + "}]\n  validation: {hostname: named, caCertificateRefs: [{group: '', kind: ConfigMap, name: " + ca + "}]}\n"
	}
	const cm = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ca, namespace: app}\ndata: {ca.crt: x}\n"
	tests := []struct{ name, extra, invalid string }{
		{"no BackendTLSPolicy", svc, ""},
		{"CA present", svc + cm + btp("t", "grpc", "ca"), ""},
		{"CA missing", svc + btp("t", "grpc", "gone"), "ExtProc: configmap gone not found in namespace app."},
		{"whole Service, CA missing", svc + btp("t", "", "gone"), "ExtProc: configmap gone not found in namespace app."},
		{"the section's policy wins", svc + cm + btp("a-whole", "", "gone") + btp("b-port", "grpc", "ca"), ""},
		{"another section", svc + btp("t", "http", "gone"), ""},
		{"CA ConfigMap holding no CA", svc + btp("t", "grpc", "noca") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: noca, namespace: app}\ndata: {a: x, b: y}\n",
			"ExtProc: no ca found in configmap noca."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := decodeExtension(t, spec, tc.extra)
			got := ""
			if len(p.Invalid) > 0 {
				got = p.Invalid[0].Message
			}
			if got != tc.invalid {
				t.Errorf("invalid = %q, want %q", got, tc.invalid)
			}
		})
	}
}

// TestExtensionServiceImportEndpoints: an external processor's
// ServiceImport is built as a route's is (processServiceImportDestinationSetting):
// EndpointSlices in the input that list no address for its port make the
// calling policy Invalid.
func TestExtensionServiceImportEndpoints(t *testing.T) {
	const spec = "  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  extProc: [{backendRefs: [{group: multicluster.x-k8s.io, kind: ServiceImport, name: si, port: 9000}]}]\n"
	const si = "---\napiVersion: multicluster.x-k8s.io/v1alpha1\nkind: ServiceImport\nmetadata: {name: si, namespace: app}\nspec: {type: ClusterSetIP, ports: [{name: grpc, port: 9000, protocol: TCP}]}\n"
	slice := func(addrs string) string {
		return "---\napiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata: {name: si-a, namespace: app, labels: {multicluster.kubernetes.io/service-name: si}}\n" +
			"addressType: IPv4\nports: [{name: grpc, port: 9000, protocol: TCP}]\nendpoints: [{addresses: [" + addrs + "]}]\n"
	}
	tests := []struct{ name, extra, invalid string }{
		{"endpoints", si + slice("10.0.0.1"), ""},
		{"no address", si + slice(""), "ExtProc: no ready endpoints for the related ServiceImport app/si."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := decodeExtension(t, spec, tc.extra)
			got := ""
			if len(p.Invalid) > 0 {
				got = p.Invalid[0].Message
			}
			if got != tc.invalid {
				t.Errorf("invalid = %q, want %q", got, tc.invalid)
			}
		})
	}
}

// TestExtensionEntry reads the entry a diagnostic's path names.
func TestExtensionEntry(t *testing.T) {
	tests := []struct {
		path, field string
		i           int
		ok          bool
	}{
		{"spec.extProc[2]", "extProc", 2, true},
		{"spec.wasm[0].code", "wasm", 0, true},
		{"spec.lua[0].inline", "", 0, false},
		{"spec.extProc", "", 0, false},
	}
	for _, tc := range tests {
		f, i, ok := extensionEntry(tc.path)
		if f != tc.field || i != tc.i || ok != tc.ok {
			t.Errorf("%s: got %q %d %v, want %q %d %v", tc.path, f, i, ok, tc.field, tc.i, tc.ok)
		}
	}
}
