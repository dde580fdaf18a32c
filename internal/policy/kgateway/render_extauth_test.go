package kgateway

import (
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestExtServiceRetries: an extension's retry reaches its client, whichever
// service it is (ext_authz over gRPC or HTTP, ext_proc, rate limiting),
// with one attempt when the policy gives none (the CRD's default) and the
// backoff as given; no retry, no retry policy.
func TestExtServiceRetries(t *testing.T) {
	three := int32(3)
	max := "2s"
	tests := []struct {
		name  string
		retry *ExtSvcRetryPolicy
		want  *corev3.RetryPolicy
	}{
		{"none", nil, nil},
		{"backoff only: one attempt", &ExtSvcRetryPolicy{Backoff: &RetryBackoff{BaseInterval: "100ms"}},
			&corev3.RetryPolicy{NumRetries: wrapperspb.UInt32(1), RetryBackOff: &corev3.BackoffStrategy{BaseInterval: durationpb.New(100 * time.Millisecond)}}},
		{"attempts and a bounded backoff", &ExtSvcRetryPolicy{Attempts: &three, Backoff: &RetryBackoff{BaseInterval: "1s", MaxInterval: &max}},
			&corev3.RetryPolicy{NumRetries: wrapperspb.UInt32(3), RetryBackOff: &corev3.BackoffStrategy{BaseInterval: durationpb.New(time.Second), MaxInterval: durationpb.New(2 * time.Second)}}},
		{"attempts only", &ExtSvcRetryPolicy{Attempts: &three}, &corev3.RetryPolicy{NumRetries: wrapperspb.UInt32(3)}},
	}
	ref := gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "authz", Port: new(gwv1.PortNumber(9000))}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			grpc := ExtGrpcService{BackendRef: ref, Retry: tt.retry}
			svc, _, err := extGrpcService(grpc, "infra", false)
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(svc.GetRetryPolicy(), tt.want) {
				t.Errorf("gRPC service (ext_proc, rate limit): retry %v, want %v", svc.GetRetryPolicy(), tt.want)
			}
			cfg, _, err := extAuthz(&ExtAuthProvider{GrpcService: &grpc}, "infra", "ea", false)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.GetGrpcService().GetRetryPolicy(); !proto.Equal(got, tt.want) {
				t.Errorf("ext_authz gRPC: retry %v, want %v", got, tt.want)
			}
			cfg, _, err = extAuthz(&ExtAuthProvider{HTTPService: &ExtHTTPService{BackendRef: ref, Retry: tt.retry}}, "infra", "ea", false)
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.GetHttpService().GetRetryPolicy(); !proto.Equal(got, tt.want) {
				t.Errorf("ext_authz HTTP: retry %v, want %v", got, tt.want)
			}
		})
	}
}

// TestExtAuthHeaders: which headers go to the authorization service
// (headersToForward, for either service kind; an HTTP service's added
// headers, sorted by name) and which of its response headers reach the
// backend and the client — each header name matched exactly.
func TestExtAuthHeaders(t *testing.T) {
	exact := func(names ...string) *matcherv3.ListStringMatcher {
		l := &matcherv3.ListStringMatcher{}
		for _, n := range names {
			l.Patterns = append(l.Patterns, &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: n}})
		}
		return l
	}
	ref := gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "authz", Port: new(gwv1.PortNumber(8080))}}
	http := &ExtHTTPService{BackendRef: ref,
		AuthorizationRequest:  &AuthorizationRequest{HeadersToAdd: map[string]string{"x-tenant": "%REQ(x-tenant)%", "x-a": "1"}},
		AuthorizationResponse: &AuthorizationResponse{HeadersToBackend: []string{"x-user"}, HeadersToClient: []string{"location", "set-cookie"}}}
	cfg, _, err := extAuthz(&ExtAuthProvider{HTTPService: http, HeadersToForward: []string{"cookie", "authorization"}}, "infra", "ea", false)
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(cfg.GetAllowedHeaders(), exact("cookie", "authorization")) {
		t.Errorf("allowed_headers %v", cfg.GetAllowedHeaders())
	}
	hs := cfg.GetHttpService()
	wantAdd := []*corev3.HeaderValue{{Key: "x-a", Value: "1"}, {Key: "x-tenant", Value: "%REQ(x-tenant)%"}}
	if got := hs.GetAuthorizationRequest().GetHeadersToAdd(); len(got) != 2 || !proto.Equal(got[0], wantAdd[0]) || !proto.Equal(got[1], wantAdd[1]) {
		t.Errorf("headers_to_add %v, want %v", got, wantAdd)
	}
	ar := hs.GetAuthorizationResponse()
	if !proto.Equal(ar.GetAllowedUpstreamHeaders(), exact("x-user")) || !proto.Equal(ar.GetAllowedClientHeaders(), exact("location", "set-cookie")) || ar.GetAllowedClientHeadersOnSuccess() != nil {
		t.Errorf("authorization_response %v", ar)
	}
	if err := cfg.ValidateAll(); err != nil {
		t.Errorf("Envoy would refuse it: %v", err)
	}
	cfg, _, err = extAuthz(&ExtAuthProvider{GrpcService: &ExtGrpcService{BackendRef: ref}}, "infra", "ea", false)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GetAllowedHeaders() != nil {
		t.Errorf("no headersToForward: allowed_headers %v, want none (every header)", cfg.GetAllowedHeaders())
	}
}
