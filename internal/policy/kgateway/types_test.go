package kgateway

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"sigs.k8s.io/yaml"
)

// conformanceDir is shared/conformance/kgateway relative to this package
// (internal/policy/kgateway inside the repo, shared next to the repo).
const conformanceDir = "../../../../shared/conformance/kgateway/cases"

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// TestConformanceInputsDecodeStrictly checks that every kgateway object in
// the conformance inputs decodes into the typed API without unknown fields.
func TestConformanceInputsDecodeStrictly(t *testing.T) {
	if _, err := os.Stat(conformanceDir); err != nil {
		t.Skipf("conformance cases not available at %s: %v", conformanceDir, err)
	}
	inputs, err := filepath.Glob(filepath.Join(conformanceDir, "*", "input.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Skipf("no conformance inputs under %s", conformanceDir)
	}

	counts := map[string]int{}
	for _, path := range inputs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		caseName := filepath.Base(filepath.Dir(path))
		for i, doc := range docSeparator.Split(string(data), -1) {
			js, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				t.Errorf("%s doc %d: yaml: %v", caseName, i, err)
				continue
			}
			var head struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := json.Unmarshal(js, &head); err != nil || head.Kind == "" {
				continue // empty or comment-only document
			}
			if head.APIVersion != APIVersion {
				continue
			}
			var target any
			switch head.Kind {
			case KindTrafficPolicy:
				target = &TrafficPolicy{}
			case KindGatewayExtension:
				target = &GatewayExtension{}
			case KindListenerPolicy:
				target = &ListenerPolicy{}
			case KindBackend:
				target = &Backend{}
			default:
				t.Errorf("%s doc %d: unexpected %s kind %q", caseName, i, APIVersion, head.Kind)
				continue
			}
			dec := json.NewDecoder(bytes.NewReader(js))
			dec.DisallowUnknownFields()
			if err := dec.Decode(target); err != nil {
				t.Errorf("%s doc %d (%s): %v", caseName, i, head.Kind, err)
				continue
			}
			counts[head.Kind]++
		}
	}
	if counts[KindTrafficPolicy] == 0 {
		t.Errorf("no TrafficPolicy decoded from %d inputs", len(inputs))
	}
	t.Logf("decoded %v from %d inputs", counts, len(inputs))
}

// TestRoundTrip spot-checks decoded values and that re-encoding keeps the
// shapes (inline embeds, PolicyDisable markers, quantities).
func TestRoundTrip(t *testing.T) {
	const in = `
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: p, namespace: ns}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r, sectionName: rule0}
  targetSelectors:
  - {group: gateway.networking.k8s.io, kind: Gateway, matchLabels: {a: b}}
  cors:
    allowOrigins: ["https://example.com"]
    allowCredentials: true
  buffer:
    maxRequestSize: 64Ki
  extAuth:
    disable: {}
  headerModifiers:
    request:
      set:
      - name: x-a
        secretRef: {name: s, key: k}
  rateLimit:
    local:
      tokenBucket: {maxTokens: 5, fillInterval: 1s}
  statPrefix: "{{route_name}}"
`
	js, err := yaml.YAMLToJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var tp TrafficPolicy
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tp); err != nil {
		t.Fatal(err)
	}
	s := tp.Spec
	if got := *s.TargetRefs[0].SectionName; got != "rule0" || s.TargetRefs[0].Kind != "HTTPRoute" {
		t.Errorf("targetRef = %+v", s.TargetRefs[0])
	}
	if s.TargetSelectors[0].MatchLabels["a"] != "b" {
		t.Errorf("targetSelector = %+v", s.TargetSelectors[0])
	}
	if len(s.Cors.AllowOrigins) != 1 || s.Cors.AllowCredentials == nil || !*s.Cors.AllowCredentials {
		t.Errorf("cors = %+v", s.Cors)
	}
	if v := s.Buffer.MaxRequestSize.Value(); v != 64*1024 {
		t.Errorf("buffer = %d", v)
	}
	if s.ExtAuth == nil || s.ExtAuth.Disable == nil {
		t.Errorf("extAuth.disable not decoded: %+v", s.ExtAuth)
	}
	if h := s.HeaderModifiers.Request.Set[0]; h.SecretRef == nil || *h.SecretRef.Key != "k" {
		t.Errorf("header = %+v", h)
	}
	if s.RateLimit.Local.TokenBucket.FillInterval != "1s" {
		t.Errorf("tokenBucket = %+v", s.RateLimit.Local.TokenBucket)
	}

	out, err := json.Marshal(&tp)
	if err != nil {
		t.Fatal(err)
	}
	var back TrafficPolicy
	dec = json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatalf("re-decode: %v\n%s", err, out)
	}
	for _, want := range []string{`"allowOrigins":["https://example.com"]`, `"disable":{}`, `"maxRequestSize":"64Ki"`, `"sectionName":"rule0"`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("re-encoded JSON lacks %s:\n%s", want, out)
		}
	}
}

// TestUnknownFieldsRejected makes sure strict decoding sees through the
// inline embeds, so misspelled fields are reported rather than dropped.
func TestUnknownFieldsRejected(t *testing.T) {
	for _, doc := range []string{
		`{"spec":{"bogus":1}}`,
		`{"spec":{"cors":{"allowOrigin":["x"]}}}`,
		`{"spec":{"targetRefs":[{"group":"g","kind":"k","name":"n","section":"s"}]}}`,
		`{"spec":{"extAuth":{"disable":{"now":true}}}}`,
	} {
		dec := json.NewDecoder(bytes.NewReader([]byte(doc)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&TrafficPolicy{}); err == nil {
			t.Errorf("%s: decoded without error", doc)
		}
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(`{"spec":{"default":{"httpSettings":{"accessLog":[{"grpcService":{"logName":"l","backendRef":{"name":"s"},"bogus":1}}]}}}}`)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ListenerPolicy{}); err == nil {
		t.Error("ListenerPolicy: unknown field inside inlined gRPC service accepted")
	}
}
