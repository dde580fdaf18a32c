package kgateway

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_proc/v3"
	"google.golang.org/protobuf/proto"
)

// TestExtProcProviderSettings: an ExtProc extension's service client
// settings (deadline, retries) and processor settings (mode overrides,
// maximum message timeout, route cache action, forwarded metadata,
// attributes) reach the ext_proc filter; a route cache action Envoy does
// not have is an error naming the field.
func TestExtProcProviderSettings(t *testing.T) {
	var p ExtProcProvider
	spec := `{"grpcService": {"backendRef": {"name": "ep", "port": 9000}, "requestTimeout": "300ms",
	  "retry": {"attempts": 3, "backoff": {"baseInterval": "50ms", "maxInterval": "200ms"}}},
	  "allowProcessingModeOverride": true, "allowedProcessingModeOverrides": [{"requestBodyMode": "NONE"}],
	  "maxMessageTimeout": "500ms", "routeCacheAction": "Clear", "metadataOptions": {"forwarding": {"typed": ["io.x"]}},
	  "requestAttributes": ["source.address"]}`
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		t.Fatal(err)
	}
	svc, _, err := extGrpcService(p.GrpcService, "infra", false)
	if err != nil {
		t.Fatal(err)
	}
	if svc.GetTimeout().AsDuration() != 300*time.Millisecond || svc.GetRetryPolicy().GetNumRetries().GetValue() != 3 ||
		svc.GetRetryPolicy().GetRetryBackOff().GetMaxInterval().AsDuration() != 200*time.Millisecond {
		t.Errorf("service %v: want the 300ms deadline and 3 retries backing off up to 200ms", svc)
	}
	cfg := &extprocv3.ExternalProcessor{GrpcService: svc, RequestAttributes: p.RequestAttributes}
	if err := processorSettings(cfg, &p); err != nil {
		t.Fatal(err)
	}
	if !cfg.AllowModeOverride || len(cfg.AllowedOverrideModes) != 1 || cfg.AllowedOverrideModes[0].RequestBodyMode != extprocv3.ProcessingMode_NONE ||
		cfg.GetMaxMessageTimeout().AsDuration() != 500*time.Millisecond || cfg.RouteCacheAction != extprocv3.ExternalProcessor_CLEAR ||
		cfg.GetMetadataOptions().GetForwardingNamespaces().GetTyped()[0] != "io.x" {
		t.Errorf("processor %v does not carry the extension's settings", cfg)
	}
	if err := cfg.ValidateAll(); err != nil {
		t.Error(err)
	}
	p.RouteCacheAction = "Forget"
	if err := processorSettings(cfg, &p); err == nil || !strings.Contains(err.Error(), "routeCacheAction") {
		t.Errorf("route cache action %q: error %v, want one naming routeCacheAction", p.RouteCacheAction, err)
	}
}

// TestExtProcStage: an ext_proc filter runs at its extension's stage —
// by default after authorization (after RBAC, before rate limiting) — and
// before, during or after a stage in that order.
func TestExtProcStage(t *testing.T) {
	def := extProcOrder(nil)
	if def <= orderRBAC || def >= orderRateLimit {
		t.Errorf("default order %d, want between RBAC (%d) and rate limiting (%d)", def, orderRBAC, orderRateLimit)
	}
	before := extProcOrder(&FilterStageSpec{Stage: "AuthN", Predicate: "Before"})
	during := extProcOrder(&FilterStageSpec{Stage: "AuthN"})
	after := extProcOrder(&FilterStageSpec{Stage: "AuthN", Predicate: "After"})
	// Before the stage is OAuth2's place too: kgateway sorts the two by
	// name there (CompareStagedFilters), as render does filters of one order.
	if !(before == orderOAuth2 && before < during && during < after && after < orderRBAC) {
		t.Errorf("AuthN before/during/after %d/%d/%d: want increasing, before at OAuth2's place (%d) and all before RBAC (%d)", before, during, after, orderOAuth2, orderRBAC)
	}
	if late := extProcOrder(&FilterStageSpec{Stage: "RateLimit", Predicate: "After"}); late <= orderRateLimit {
		t.Errorf("after rate limiting: order %d, want above %d", late, orderRateLimit)
	}
}

// TestExtProcProcessingModeDefaults: a processing mode that leaves some
// modes out takes the CRD's defaults for them (headers SEND, trailers
// SKIP, bodies NONE), as the API server stores them and kgateway
// translates them — the TrafficPolicy's override, the extension's own
// mode and each allowed override alike; modes given are kept, DEFAULT
// included.
func TestExtProcProcessingModeDefaults(t *testing.T) {
	const (
		send = extprocv3.ProcessingMode_SEND
		skip = extprocv3.ProcessingMode_SKIP
		def  = extprocv3.ProcessingMode_DEFAULT
	)
	tests := []struct {
		name string
		in   ProcessingMode
		want *extprocv3.ProcessingMode
	}{
		{"empty: every default", ProcessingMode{},
			&extprocv3.ProcessingMode{RequestHeaderMode: send, ResponseHeaderMode: send, RequestTrailerMode: skip, ResponseTrailerMode: skip}},
		{"a body mode only", ProcessingMode{RequestBodyMode: "BUFFERED"},
			&extprocv3.ProcessingMode{RequestHeaderMode: send, ResponseHeaderMode: send, RequestBodyMode: extprocv3.ProcessingMode_BUFFERED, RequestTrailerMode: skip, ResponseTrailerMode: skip}},
		{"DEFAULT and a trailer given are kept", ProcessingMode{ResponseHeaderMode: "DEFAULT", RequestTrailerMode: "SEND", ResponseBodyMode: "FULL_DUPLEX_STREAMED"},
			&extprocv3.ProcessingMode{RequestHeaderMode: send, ResponseHeaderMode: def, ResponseBodyMode: extprocv3.ProcessingMode_FULL_DUPLEX_STREAMED, RequestTrailerMode: send, ResponseTrailerMode: skip}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := processingMode(&tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, tt.want) {
				t.Errorf("processingMode(%+v) = %v, want %v", tt.in, got, tt.want)
			}
			p := ExtProcProvider{AllowedProcessingModeOverrides: []*ProcessingMode{&tt.in}}
			cfg := &extprocv3.ExternalProcessor{}
			if err := processorSettings(cfg, &p); err != nil {
				t.Fatal(err)
			}
			if len(cfg.AllowedOverrideModes) != 1 || !proto.Equal(cfg.AllowedOverrideModes[0], tt.want) {
				t.Errorf("allowed override %v, want %v", cfg.AllowedOverrideModes, tt.want)
			}
		})
	}
}

// TestExtProcMetadataOptionsForms: an extension's metadataOptions is
// written whenever given — empty for `{}` or a forwarding without
// namespaces, with the namespaces when forwarding names them — and left
// out when not given, as kgateway's buildCompositeExtProcFilter writes it.
func TestExtProcMetadataOptionsForms(t *testing.T) {
	tests := []struct {
		name      string
		spec      string
		present   bool
		typed     []string
		untyped   []string
		forwarded bool
	}{
		{"not given", `{}`, false, nil, nil, false},
		{"empty", `{"metadataOptions": {}}`, true, nil, nil, false},
		{"forwarding without namespaces", `{"metadataOptions": {"forwarding": {}}}`, true, nil, nil, true},
		{"untyped namespaces", `{"metadataOptions": {"forwarding": {"untyped": ["io.a", "io.b"]}}}`, true, nil, []string{"io.a", "io.b"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p ExtProcProvider
			if err := json.Unmarshal([]byte(tt.spec), &p); err != nil {
				t.Fatal(err)
			}
			cfg := &extprocv3.ExternalProcessor{}
			if err := processorSettings(cfg, &p); err != nil {
				t.Fatal(err)
			}
			mo := cfg.GetMetadataOptions()
			if (mo != nil) != tt.present || (mo.GetForwardingNamespaces() != nil) != tt.forwarded {
				t.Fatalf("metadataOptions %v: want present %v, forwarding %v", mo, tt.present, tt.forwarded)
			}
			if got := mo.GetForwardingNamespaces().GetUntyped(); strings.Join(got, ",") != strings.Join(tt.untyped, ",") {
				t.Errorf("untyped %v, want %v", got, tt.untyped)
			}
			if got := mo.GetForwardingNamespaces().GetTyped(); strings.Join(got, ",") != strings.Join(tt.typed, ",") {
				t.Errorf("typed %v, want %v", got, tt.typed)
			}
		})
	}
}
