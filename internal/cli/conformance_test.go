package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/status"
)

// conformanceDir holds kgateway's golden cases, beside the repository.
const conformanceDir = "../../../shared/conformance/kgateway/cases"

type caseSettings struct {
	Gateway  string `json:"gateway"`
	Settings struct {
		PolicyMerge           map[string]map[string]string `json:"PolicyMerge"`
		GlobalPolicyNamespace string                       `json:"GlobalPolicyNamespace"`
		ReferenceGrantMode    string                       `json:"ReferenceGrantMode"`
		ValidationMode        string                       `json:"ValidationMode"`
		// The flags gwpol reads as config keys; nil: kgateway's default.
		EnableAuthMetadata                   *bool   `json:"EnableAuthMetadata"`
		EnableExperimentalGatewayAPIFeatures *bool   `json:"EnableExperimentalGatewayAPIFeatures"`
		WeightedRoutePrecedence              *bool   `json:"WeightedRoutePrecedence"`
		EnableRouteSourceMetadata            *bool   `json:"EnableRouteSourceMetadata"`
		EnableAwsEc2Discovery                *bool   `json:"EnableAwsEc2Discovery"`
		DiscoveryNamespaceSelectors          []any   `json:"DiscoveryNamespaceSelectors"`
		ListenerBindIpv6                     *bool   `json:"ListenerBindIpv6"`
		DnsLookupFamily                      *string `json:"DnsLookupFamily"`
	} `json:"settings"`
}

type expectedAncestor struct {
	Ancestor   string   `json:"ancestor"`
	Controller string   `json:"controller"`
	Accepted   []string `json:"Accepted"`
	Attached   []string `json:"Attached"`
}

type expectedCase struct {
	Policies     map[string][]expectedAncestor             `json:"policies"`
	Routes       map[string]map[string]map[string][]string `json:"routes"`
	VirtualHosts map[string]map[string]map[string][]string `json:"virtualHosts"`
	RouteConfigs map[string]map[string]map[string][]string `json:"routeConfigs"`
	Listeners    map[string]map[string]map[string][]string `json:"listeners"`
}

// loadCase reads a case the way kgateway's harness does: every object's
// creationTimestamp is replaced by 0001-01-01T00:00:00Z + N seconds in
// document order, so "older wins" means "earlier in the file wins".
func loadCase(t *testing.T, dir string) (*manifest.Set, *Config, caseSettings, expectedCase) {
	t.Helper()
	set, cfg, cs, exp, err := readCase(dir)
	if err != nil {
		t.Fatal(err)
	}
	return set, cfg, cs, exp
}

// readCase is loadCase returning, not failing on, an input gwpol cannot
// read (the status summary counts such a case as differing).
func readCase(dir string) (*manifest.Set, *Config, caseSettings, expectedCase, error) {
	var cs caseSettings
	var exp expectedCase
	raw, err := os.ReadFile(filepath.Join(dir, "input.yaml"))
	if err != nil {
		return nil, nil, cs, exp, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	var out bytes.Buffer
	n := 0
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			break
		}
		if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue
		}
		n++
		stamp := time.Time{}.Add(time.Duration(n) * time.Second).UTC().Format(time.RFC3339)
		setTimestamp(doc.Content[0], stamp)
		b, err := yaml.Marshal(&doc)
		if err != nil {
			return nil, nil, cs, exp, err
		}
		out.WriteString("---\n")
		out.Write(b)
	}
	objs, err := manifest.Parse(filepath.Join(dir, "input.yaml"), out.Bytes(), manifest.Limits{})
	if err != nil {
		return nil, nil, cs, exp, err
	}
	if err := decodeJSON(filepath.Join(dir, "case.json"), &cs); err != nil {
		return nil, nil, cs, exp, err
	}
	if err := decodeJSON(filepath.Join(dir, "expected.json"), &exp); err != nil {
		return nil, nil, cs, exp, err
	}
	cfg := &Config{Namespace: "default", ControllerName: "kgateway.dev/kgateway", Settings: caseKgatewaySettings(cs)}
	return &manifest.Set{Objects: objs}, cfg, cs, exp, nil
}

// caseKgatewaySettings are a case's controller flags as gwpol config
// (kgateway's family settings, by key), with kgateway's defaults where
// the case sets none (as tools/kgw_case.py prepare writes them).
func caseKgatewaySettings(cs caseSettings) map[string]any {
	or := func(b *bool, def bool) bool {
		if b == nil {
			return def
		}
		return *b
	}
	s := cs.Settings
	selectors := s.DiscoveryNamespaceSelectors
	dnsFamily := "V4_PREFERRED"
	if s.DnsLookupFamily != nil {
		dnsFamily = *s.DnsLookupFamily
	}
	if selectors == nil {
		selectors = []any{}
	}
	orString := func(v, def string) string {
		if v == "" {
			return def
		}
		return v
	}
	merge := map[string]any{} // as the config file's policyMerge: section gives it
	for kind, fields := range s.PolicyMerge {
		m := map[string]any{}
		for f, v := range fields {
			m[f] = v
		}
		merge[kind] = m
	}
	return map[string]any{
		"policyMerge":                          merge,
		"globalPolicyNamespace":                s.GlobalPolicyNamespace,
		"referenceGrantMode":                   orString(s.ReferenceGrantMode, "Permissive"),
		"validationMode":                       orString(s.ValidationMode, "Standard"),
		"enableAuthMetadata":                   or(s.EnableAuthMetadata, false),
		"enableExperimentalGatewayAPIFeatures": or(s.EnableExperimentalGatewayAPIFeatures, true),
		"weightedRoutePrecedence":              or(s.WeightedRoutePrecedence, false),
		"enableRouteSourceMetadata":            or(s.EnableRouteSourceMetadata, false),
		"enableAwsEc2Discovery":                or(s.EnableAwsEc2Discovery, false),
		"discoveryNamespaceSelectors":          selectors,
		"listenerBindIpv6":                     or(s.ListenerBindIpv6, true),
		"dnsLookupFamily":                      dnsFamily,
		// kgateway's TestBasic runs as version v1.0.0-ci1 (README of the
		// conformance data), which its OpenTelemetry access logs report.
		"kgatewayVersion": "v1.0.0-ci1",
		// kgateway's translator harness (test/translator/test.go) runs
		// every case with one extension backend plugin registered: kind
		// test-backend-plugin (core group), one backend default/example-svc
		// port 80 (the setup more/backends-basic's case.json records).
		"extensionBackends": []any{map[string]any{"group": "", "kind": "test-backend-plugin", "namespace": "default", "name": "example-svc", "port": 80}},
	}
}

func setTimestamp(obj *yaml.Node, stamp string) {
	for i := 0; i+1 < len(obj.Content); i += 2 {
		if obj.Content[i].Value != "metadata" {
			continue
		}
		md := obj.Content[i+1]
		for j := 0; j+1 < len(md.Content); j += 2 {
			if md.Content[j].Value == "creationTimestamp" {
				md.Content[j+1].Value, md.Content[j+1].Tag = stamp, "!!str"
				return
			}
		}
		md.Content = append(md.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "creationTimestamp"}, &yaml.Node{Kind: yaml.ScalarNode, Value: stamp, Tag: "!!str"})
		return
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := decodeJSON(path, v); err != nil {
		t.Fatal(err)
	}
}

func decodeJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// divergences reads the TrafficPolicy cases' section of
// testdata/conformance-divergences.txt: the "case: reason" lines before the
// first named section.
func divergences(t *testing.T) map[string]string {
	return divergenceSection(t, "")
}

// policyStatuses flattens gwpol's status report into expected.json's shape.
func policyStatuses(rep *status.Report) map[string][]expectedAncestor {
	out := map[string][]expectedAncestor{}
	for _, p := range rep.Policies {
		key := p.Kind + "/" + p.Namespace + "/" + p.Name
		for _, a := range p.Ancestors {
			ea := expectedAncestor{Ancestor: a.AncestorRef.String(), Controller: a.ControllerName}
			for _, c := range a.Conditions {
				switch c.Type {
				case "Accepted":
					ea.Accepted = []string{c.Status, c.Reason}
				case "Attached":
					ea.Attached = []string{c.Status, c.Reason}
				}
			}
			out[key] = append(out[key], ea)
		}
	}
	return out
}

func TestConformanceKgateway(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(conformanceDir, "*"))
	if len(dirs) == 0 {
		t.Skipf("conformance cases not found at %s (they live in ../shared beside the repository); skipping", conformanceDir)
	}
	div := divergences(t)
	agree, total := 0, 0
	for _, dir := range dirs {
		name := filepath.Base(dir)
		total++
		ok := t.Run(name, func(t *testing.T) {
			if reason, listed := div[name]; listed {
				t.Skipf("listed in testdata/conformance-divergences.txt: %s", reason)
			}
			set, cfg, _, exp := loadCase(t, dir)
			c := families.Compile(set, cfg)
			rep := status.Compute(c.Result, status.Options{ControllerName: cfg.ControllerName})
			got := policyStatuses(rep)
			for key, want := range exp.Policies {
				if diff := cmp.Diff(want, got[key]); diff != "" {
					t.Errorf("policy %s status (-kgateway +gwpol):\n%s", key, diff)
				}
			}
			checkOrigins(t, c, exp)
		})
		if ok && !slices.Contains(keys(div), name) {
			agree++
		}
	}
	t.Logf("conformance: %d/%d cases agree", agree, total)
	fmt.Printf("conformance: %d/%d cases agree\n", agree, total)
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
