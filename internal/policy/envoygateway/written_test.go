package envoygateway

import (
	"encoding/json"
	"reflect"
	"testing"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/schema"
)

// stored parses doc and runs the schema stage on it, so that each object
// is what the API server stores: its CRD's defaults recorded
// (manifest.Object.Defaults) and decoded by every typed read.
func stored(t *testing.T, doc string) []*manifest.Object {
	t.Helper()
	objs, err := manifest.Parse("in.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	res := schema.Validate(objs, schema.NewCatalog(true), schema.Options{DefaultNamespace: "default"})
	for _, d := range res.Diagnostics {
		if d.Severity == diag.Error {
			t.Fatalf("schema: %v", d)
		}
	}
	return objs
}

// TestUnrenderedJudgesWhatIsWritten: the checks that name a setting gwpol
// does not render (unrenderedFields, unrendered) judge what the user
// wrote. A field the CRD's default alone sets (which the API server
// writes, so the typed value holds it) is no setting of the user's: the
// value renders as if the field were left out, and the renderer reads
// the defaulted value as any other. The same field written is judged:
// an extAuth backendRef's weight, which renderExtAuth does not read
// (Envoy Gateway builds no destination for weight 0), is unsupported
// when written; a Backend's tls.insecureSkipVerify, read as Envoy Gateway
// reads it, renders false and refuses true whether written or defaulted.
func TestUnrenderedJudgesWhatIsWritten(t *testing.T) {
	const backends = `---
apiVersion: v1
kind: Service
metadata: {name: authz, namespace: default}
spec: {ports: [{port: 9000}]}
`
	t.Run("extAuth", func(t *testing.T) {
		for _, tc := range []struct {
			name, extAuth string
			defaulted     string // a path the CRD defaults in this shape
			capability    string // the unsupported part; "" renders
		}{
			{name: "backendRef weight left to the CRD (1)", extAuth: `{grpc: {backendRefs: [{name: authz, port: 9000}]}}`,
				defaulted: "spec.extAuth.grpc.backendRefs[0].weight"},
			{name: "backendRef weight written", extAuth: `{grpc: {backendRefs: [{name: authz, port: 9000, weight: 1}]}}`,
				capability: "envoygateway.SecurityPolicy.extAuth.grpc.backendRefs.weight"},
			{name: "failOpen left to the CRD (false)", extAuth: `{http: {backendRefs: [{name: authz, port: 9000}]}, headersToExtAuth: [x-a]}`,
				defaulted: "spec.extAuth.failOpen"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				objs := stored(t, "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: p, namespace: default}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]\n  extAuth: "+tc.extAuth+"\n"+backends)
				if tc.defaulted != "" && (!objs[0].Defaulted(tc.defaulted) || objs[0].Has(tc.defaulted)) {
					t.Fatalf("%s: defaulted %v, written %v; the shape must leave it to the CRD", tc.defaulted, objs[0].Defaulted(tc.defaulted), objs[0].Has(tc.defaulted))
				}
				k := SecurityPolicy()
				m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default"})
				env := &policy.Env{Model: m}
				p := k.Decode(objs[0], env)
				if len(p.Invalid) > 0 {
					t.Fatalf("invalid: %v", p.Invalid)
				}
				frags, err := k.RenderField(policy.FieldInput{Key: "extAuth", Values: []any{p.Values["extAuth"]}, Contributors: []string{p.ID()}}, env)
				if err != nil {
					t.Fatal(err)
				}
				if len(frags) != 1 {
					t.Fatalf("fragments %+v", frags)
				}
				got := frags[0].Capability
				want := tc.capability
				if want == "" {
					want = "ext_authz"
				}
				if got != want {
					t.Errorf("capability %q, want %q", got, want)
				}
			})
		}
	})
	t.Run("Backend tls", func(t *testing.T) {
		for _, tc := range []struct {
			name, tls string
			written   bool // insecureSkipVerify is written
			err       diag.Kind
		}{
			{name: "insecureSkipVerify left to the CRD (false)", tls: `{wellKnownCACertificates: System}`},
			{name: "insecureSkipVerify false written", tls: `{wellKnownCACertificates: System, insecureSkipVerify: false}`, written: true},
			{name: "insecureSkipVerify true written", tls: `{insecureSkipVerify: true}`, written: true, err: diag.Unsupported},
		} {
			t.Run(tc.name, func(t *testing.T) {
				objs := stored(t, "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: Backend\nmetadata: {name: b, namespace: app}\nspec: {type: DynamicResolver, tls: "+tc.tls+"}\n")
				const path = "spec.tls.insecureSkipVerify"
				if objs[0].Has(path) != tc.written || objs[0].Defaulted(path) == tc.written {
					t.Fatalf("%s: written %v, defaulted %v", path, objs[0].Has(path), objs[0].Defaulted(path))
				}
				build, err := backendTrafficPolicy.BackendCluster(objs[0], "backend_app_b_0", nil)
				if tc.err != "" {
					if diag.KindOf(err) != tc.err {
						t.Fatalf("got %v, %v; want a %s error", build, err, tc.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if c, ok := build.Cluster.(*clusterv3.Cluster); !ok || c.GetTransportSocket() == nil {
					t.Errorf("cluster %v: want the verified TLS", build.Cluster)
				}
			})
		}
	})
}

// TestWrittenAt: writtenAt.byDefault is true of a field (or one below
// it) the CRD's default alone gives, false of one the object writes —
// under its own name or one in another case that encoding/json reads as
// the field — and false everywhere for a value with no object (a merge's).
// unrenderedFields names the first written field outside the known ones,
// passing over the defaulted ones.
func TestWrittenAt(t *testing.T) {
	objs, err := manifest.Parse("in.yaml", []byte("apiVersion: example.com/v1\nkind: X\nmetadata: {name: x}\nspec:\n  circuitBreaker: {maxConnections: 5, PerEndpoint: {maxConnections: 2}}\n"), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	cb := []manifest.Step{{Key: "spec", Index: -1}, {Key: "circuitBreaker", Index: -1}}
	at := func(k string) []manifest.Step {
		return append(append([]manifest.Step{}, cb...), manifest.Step{Key: k, Index: -1})
	}
	o.SetDefaults(manifest.NewDefaults([]manifest.Default{
		{Path: at("maxParallelRetries"), Value: manifest.NewValue(int64(1024))},
		{Path: at("perEndpoint"), Value: manifest.NewValue(map[string]any{"maxConnections": int64(1024)})},
		{Path: at("retryBudget"), Value: manifest.NewValue(map[string]any{"percent": map[string]any{"denominator": int64(100)}})},
	}))
	w := writtenAt{obj: o, path: "spec.circuitBreaker", key: "circuitBreaker"}
	for _, tc := range []struct {
		at   writtenAt
		want bool
	}{
		{w, false},
		{w.field("maxConnections"), false},
		{w.field("maxParallelRetries"), true},
		{w.field("retryBudget").field("percent").field("denominator"), true},
		// written as PerEndpoint, which a case-folding decoder reads
		{w.field("perEndpoint"), false},
		{writtenAt{}.field("maxParallelRetries"), false},
	} {
		if got := tc.at.byDefault(); got != tc.want {
			t.Errorf("%s: byDefault %v, want %v", tc.at.path, got, tc.want)
		}
	}
	var v egv1a1.CircuitBreaker
	if err := o.DecodeField("spec.circuitBreaker", &v); err != nil {
		t.Fatal(err)
	}
	if v.MaxParallelRetries == nil || v.RetryBudget == nil {
		t.Fatalf("defaults not decoded: %+v", v)
	}
	if got := unrenderedFields(w, &v, "maxConnections", "perEndpoint"); got != "" {
		t.Errorf("unrenderedFields named %q; every other field is the CRD's default", got)
	}
	if got := unrenderedFields(writtenAt{}, &v, "maxConnections", "perEndpoint"); got != "maxParallelRetries" {
		t.Errorf("without the object: %q, want maxParallelRetries (taken as written)", got)
	}
	type record struct {
		MaxConnections *uint32         `json:"maxConnections"`
		PerEndpoint    json.RawMessage `json:"perEndpoint"`
	}
	if got := unrendered(w, &v, reflect.TypeFor[record]()); got != "" {
		t.Errorf("unrendered named %q; every other field is the CRD's default", got)
	}
	if got := unrendered(writtenAt{}, &v, reflect.TypeFor[record]()); got != "maxParallelRetries" {
		t.Errorf("unrendered without the object: %q, want maxParallelRetries", got)
	}
}
