package kgateway

import (
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	awslambdav3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/aws_lambda/v3"
	awssigningv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/aws_request_signing/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

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

// TestLambdaSessionToken: a Lambda Backend's credentials Secret signs with
// its access key and secret key, and with its session token when it holds
// one (kgateway's configureAWSAuth writes deriveStaticSecret's session
// beside the keys; an empty one is none) — each a placeholder naming the
// Secret's key, never its value. A Secret whose data is not in the input
// is taken to hold none. Before, the session token was never written, so
// temporary credentials signed without it. Shapes no public case has (the
// public Lambda Secret holds the two keys only).
func TestLambdaSessionToken(t *testing.T) {
	const backend = "apiVersion: gateway.kgateway.dev/v1alpha1\nkind: Backend\nmetadata: {name: fn, namespace: apps}\n" +
		"spec: {aws: {accountId: \"000000000000\", auth: {type: Secret, secretRef: {name: creds}}, lambda: {functionName: f}}}\n"
	for _, tc := range []struct {
		name, secret string
		want         string
	}{
		{"with a session token", "stringData: {accessKey: a, secretKey: s, sessionToken: t}", "${secret:apps/creds#sessionToken}"},
		{"without one", "stringData: {accessKey: a, secretKey: s}", ""},
		{"an empty one is none", "data: {accessKey: YQ==, secretKey: cw==, sessionToken: \"\"}", ""},
		{"data not in the input", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := backend + "---\napiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: apps}\n" + tc.secret + "\n"
			objs, err := manifest.Parse("in.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			m := model.Build(&manifest.Set{Objects: objs}, model.Options{})
			build, err := Kind{}.BackendCluster(objs[0], "backend_apps_fn_0", &policy.Env{Model: m})
			if err != nil {
				t.Fatal(err)
			}
			c, ok := build.Cluster.(*clusterv3.Cluster)
			if !ok {
				t.Fatalf("cluster %T", build.Cluster)
			}
			var opts upstreamhttpv3.HttpProtocolOptions
			if err := c.GetTypedExtensionProtocolOptions()[HTTPProtocolOptionsKey].UnmarshalTo(&opts); err != nil {
				t.Fatal(err)
			}
			var signing awssigningv3.AwsRequestSigning
			for _, f := range opts.GetHttpFilters() {
				if f.GetName() == "envoy.filters.http.aws_request_signing" {
					if err := f.GetTypedConfig().UnmarshalTo(&signing); err != nil {
						t.Fatal(err)
					}
				}
			}
			inline := signing.GetCredentialProvider().GetInlineCredential()
			if inline.GetAccessKeyId() != "${secret:apps/creds#accessKey}" || inline.GetSecretAccessKey() != "${secret:apps/creds#secretKey}" {
				t.Errorf("keys %q %q", inline.GetAccessKeyId(), inline.GetSecretAccessKey())
			}
			if got := inline.GetSessionToken(); got != tc.want {
				t.Errorf("session token %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLambdaAccount: the function's ARN names lambda's own accountId,
// else the deprecated aws.accountId beside it; lambda's wins when both
// are set (kgateway's getLambdaAccountID; the pinned CRD: "When both
// fields are set, spec.aws.lambda.accountId takes precedence"). Before,
// aws.accountId won. Shapes no public case has (the public Lambda
// Backends set one of the two).
func TestLambdaAccount(t *testing.T) {
	for _, tc := range []struct {
		name, aws, lambda, want string
	}{
		{"both: lambda's", "111111111111", "222222222222", "222222222222"},
		{"lambda's only", "", "222222222222", "222222222222"},
		{"the deprecated one only", "111111111111", "", "111111111111"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &AwsBackend{AccountID: tc.aws, Lambda: &AwsLambda{AccountID: tc.lambda, FunctionName: "f"}}
			c, err := lambdaCluster(a, "apps", "backend_apps_fn_0", nil)
			if err != nil {
				t.Fatal(err)
			}
			var opts upstreamhttpv3.HttpProtocolOptions
			if err := c.GetTypedExtensionProtocolOptions()[HTTPProtocolOptionsKey].UnmarshalTo(&opts); err != nil {
				t.Fatal(err)
			}
			var invoke awslambdav3.Config
			if err := opts.GetHttpFilters()[0].GetTypedConfig().UnmarshalTo(&invoke); err != nil {
				t.Fatal(err)
			}
			if want := "arn:aws:lambda:us-east-1:" + tc.want + ":function:f:$LATEST"; invoke.GetArn() != want {
				t.Errorf("arn %s, want %s", invoke.GetArn(), want)
			}
		})
	}
}
