package kgateway

import "testing"

// TestLambdaEndpoint: invocations go to the region's endpoint over TLS,
// or to endpointURL at the port it names (TLS for https); a URL without a
// host, or without a port — kgateway gives no scheme default — is invalid.
func TestLambdaEndpoint(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		url     *string
		host    string
		port    uint32
		tls, ok bool
	}{
		{nil, "lambda.eu-west-1.amazonaws.com", 443, true, true},
		{str("http://172.18.0.2:31566"), "172.18.0.2", 31566, false, true},
		{str("https://lambda.local:8443/"), "lambda.local", 8443, true, true},
		{str("https://lambda.local"), "", 0, false, false},
		{str("http://lambda.local"), "", 0, false, false},
		{str("http://lambda.local:99999"), "", 0, false, false},
		{str("not a url"), "", 0, false, false},
	} {
		host, port, tls, err := lambdaEndpoint(tc.url, "eu-west-1")
		if (err == nil) != tc.ok || host != tc.host || port != tc.port || tls != tc.tls {
			t.Errorf("%v: got %s:%d tls=%v err=%v, want %s:%d tls=%v ok=%v", tc.url, host, port, tls, err, tc.host, tc.port, tc.tls, tc.ok)
		}
	}
}
