package envoygateway

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// decodeKind decodes a policy of one of Envoy Gateway's kinds, named p in
// namespace default, beside other objects (ConfigMaps, Secrets,
// Services, ReferenceGrants), under the given settings.
func decodeKind(t *testing.T, k *Kind, spec, others string, cfg policy.Config) *policy.Policy {
	t.Helper()
	doc := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: " + k.name + "\nmetadata: {name: p, namespace: default}\nspec:\n" + spec + others
	objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
	if err != nil || len(objs) == 0 {
		t.Fatalf("parse: %v (%d objects)", err, len(objs))
	}
	// The kinds the family reads beside its policies (a ServiceImport, a
	// Backend) are kept, as the pipeline keeps them.
	extra := map[model.GroupKind]bool{}
	for _, gk := range k.AuxiliaryKinds() {
		extra[gk] = true
	}
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default", Extra: extra})
	return k.Decode(objs[0], &policy.Env{Model: m, Config: cfg})
}

// checkCase is one case of a kind's check table: the spec, the objects
// beside it, whether a global rate limit service is deployed, and every
// message the policy must be Invalid with (none: valid).
type checkCase struct {
	name, spec, others string
	noRateLimitService bool
	want               []string
}

// runChecks runs a check table against one kind.
func runChecks(t *testing.T, k *Kind, tests []checkCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := extensionsOn(policy.Config{Values: map[string]any{RateLimitEnabled.Key: !tc.noRateLimitService}})
			got := messages(decodeKind(t, k, tc.spec, tc.others, cfg))
			if !slices.Equal(got, tc.want) {
				t.Errorf("invalid =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// TestBackendTrafficPolicyChecks has one subtest per check of Envoy
// Gateway's BackendTrafficPolicy translation (buildTrafficFeatures and
// the builders it calls) that gwpol makes when it decodes the policy;
// docs/controllers/envoygateway-checks.md names them.
func TestBackendTrafficPolicyChecks(t *testing.T) {
	const rule = "{limit: {requests: 1, unit: Hour}}"
	sel := func(s string) string {
		return "  rateLimit: {global: {rules: [{clientSelectors: [" + s + "], limit: {requests: 1, unit: Hour}}]}}\n"
	}
	const cm = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: body, namespace: default}\ndata: {response.body: x}\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: empty, namespace: default}\n"
	override := func(body string) string {
		return "  responseOverride: [{match: {statusCodes: [{value: 500}]}, response: {contentType: text/plain, body: " + body + "}}]\n"
	}
	runChecks(t, BackendTrafficPolicy(), []checkCase{
		// rate limit (buildRateLimit, buildLocalRateLimit, buildGlobalRateLimit, buildRateLimitRule)
		{name: "rateLimit.type", spec: "  rateLimit: {type: Bogus, local: {rules: [" + rule + "]}}\n",
			want: []string{"RateLimit: invalid rateLimit type: Bogus."}},
		{name: "rateLimit.type-local-empty", spec: "  rateLimit: {type: Local, global: {rules: [" + rule + "]}}\n",
			want: []string{"RateLimit: local configuration empty for rateLimit."}},
		{name: "rateLimit.type-global-empty", spec: "  rateLimit: {type: Global, local: {rules: [" + rule + "]}}\n",
			want: []string{"RateLimit: global configuration empty for rateLimit."}},
		{name: "rateLimit.type-local-reads-local-only", spec: "  rateLimit: {type: Local, local: {rules: [" + rule + "]}, global: {rules: [{clientSelectors: [{}], limit: {requests: 1, unit: Hour}}]}}\n",
			noRateLimitService: true},
		{name: "rateLimit.global-disabled", spec: "  rateLimit: {global: {rules: [" + rule + "]}}\n", noRateLimitService: true,
			want: []string{"RateLimit: enable Ratelimit in the EnvoyGateway config to configure global rateLimit."}},
		{name: "rateLimit.local-two-defaults", spec: "  rateLimit: {local: {rules: [" + rule + ", " + rule + "]}}\n",
			want: []string{"RateLimit: local rateLimit can not have more than one rule without clientSelectors."}},
		{name: "rateLimit.local-unit-multiple", spec: "  rateLimit: {local: {rules: [{limit: {requests: 1, unit: Hour}}, {clientSelectors: [{headers: [{name: x, value: y}]}], limit: {requests: 2, unit: Minute}}]}}\n",
			want: []string{"RateLimit: local rateLimit rule limit unit must be a multiple of the default limit unit."}},
		{name: "rateLimit.local-before-global", spec: "  rateLimit: {local: {rules: [" + rule + ", " + rule + "]}, global: {rules: [{clientSelectors: [{}], limit: {requests: 1, unit: Hour}}]}}\n",
			want: []string{"RateLimit: local rateLimit can not have more than one rule without clientSelectors."}},
		{name: "rateLimit.selector-empty", spec: sel("{}"),
			want: []string{"RateLimit: unable to translate rateLimit. At least one of the header or method or path or sourceCIDR or queryParameters must be specified."}},
		{name: "rateLimit.header-no-value", spec: sel("{headers: [{name: x, type: Exact}]}"),
			want: []string{"RateLimit: unable to translate rateLimit. Either the header.Type is not valid or the header is missing a value."}},
		{name: "rateLimit.header-distinct-value", spec: sel("{headers: [{name: x, type: Distinct, value: y}]}"),
			want: []string{"RateLimit: unable to translate rateLimit. Either the header.Type is not valid or the header is missing a value."}},
		{name: "rateLimit.header-regex", spec: sel("{headers: [{name: x, type: RegularExpression, value: '('}]}"),
			want: []string{"RateLimit: regex \"(\" is invalid: error parsing regexp: missing closing ): `(`."}},
		{name: "rateLimit.header-distinct-invert", spec: sel("{headers: [{name: x, type: Distinct, invert: true}]}"),
			want: []string{"RateLimit: unable to translate rateLimit.Invert is not applicable for distinct header match type."}},
		{name: "rateLimit.path-type", spec: sel("{path: {type: Bogus, value: /x}}"),
			want: []string{"RateLimit: unable to translate rateLimit: invalid path type."}},
		{name: "rateLimit.path-regex", spec: sel("{path: {type: RegularExpression, value: '['}}"),
			want: []string{"RateLimit: regex \"[\" is invalid: error parsing regexp: missing closing ]: `[`."}},
		{name: "rateLimit.sourceCIDR", spec: sel("{sourceCIDR: {value: 10.0.0.0/33}}"),
			want: []string{"RateLimit: unable to translate rateLimit: invalid CIDR address: 10.0.0.0/33."}},
		{name: "rateLimit.query-name", spec: sel("{queryParams: [{name: '', value: v}]}"),
			want: []string{"RateLimit: name is required when QueryParamMatch is specified."}},
		{name: "rateLimit.query-exact-no-value", spec: sel("{queryParams: [{name: q}]}"),
			want: []string{"RateLimit: value is required for Exact query parameter match."}},
		{name: "rateLimit.query-regex-no-value", spec: sel("{queryParams: [{name: q, type: RegularExpression}]}"),
			want: []string{"RateLimit: value is required for RegularExpression query parameter match."}},
		{name: "rateLimit.query-regex", spec: sel("{queryParams: [{name: q, type: RegularExpression, value: '('}]}"),
			want: []string{"RateLimit: regex \"(\" is invalid: error parsing regexp: missing closing ): `(`."}},
		{name: "rateLimit.query-distinct-invert", spec: sel("{queryParams: [{name: q, type: Distinct, invert: true}]}"),
			want: []string{"RateLimit: unable to translate rateLimit.Invert is not applicable for distinct query parameter match type."}},
		{name: "rateLimit.query-distinct-value", spec: sel("{queryParams: [{name: q, type: Distinct, value: v}]}"),
			want: []string{"RateLimit: unable to translate rateLimit.Value is not applicable for distinct query parameter match type."}},
		{name: "rateLimit.query-type", spec: sel("{queryParams: [{name: q, type: Bogus, value: v}]}"),
			want: []string{"RateLimit: invalid query parameter match type: Bogus."}},
		{name: "rateLimit.first-error-only", spec: "  rateLimit: {global: {rules: [{clientSelectors: [{}], limit: {requests: 1, unit: Hour}}, {clientSelectors: [{path: {type: Bogus, value: /}}], limit: {requests: 1, unit: Hour}}]}}\n",
			want: []string{"RateLimit: unable to translate rateLimit. At least one of the header or method or path or sourceCIDR or queryParameters must be specified."}},
		{name: "rateLimit.valid", spec: sel("{methods: [{value: GET}], path: {value: /api}, sourceCIDR: {type: Distinct, value: 10.1.2.3/8}, queryParams: [{name: q, type: Distinct}], headers: [{name: x, type: RegularExpression, value: 'a.*'}]}")},

		// bandwidth limit (buildBandwidthLimit, bandwidthToKibps)
		{name: "bandwidthLimit.request-below-minimum", spec: "  bandwidthLimit: {request: {limit: {value: 1023, unit: Second}}}\n",
			want: []string{"BandwidthLimit: request: bandwidth limit of 1023 bytes per Second is below the minimum of 1 KiB/s."}},
		{name: "bandwidthLimit.response-below-minimum", spec: "  bandwidthLimit: {response: {limit: {value: 61439, unit: Minute}}}\n",
			want: []string{"BandwidthLimit: response: bandwidth limit of 61439 bytes per Minute is below the minimum of 1 KiB/s."}},
		{name: "bandwidthLimit.quantity", spec: "  bandwidthLimit: {request: {limit: {value: 2Ki, unit: Second}}, response: {limit: {value: 1Ki, unit: Hour}}}\n",
			want: []string{"BandwidthLimit: response: bandwidth limit of 1024 bytes per Hour is below the minimum of 1 KiB/s."}},
		{name: "bandwidthLimit.not-whole", spec: "  bandwidthLimit: {request: {limit: {value: 1500m, unit: Second}}}\n",
			want: []string{"BandwidthLimit: request limit value must be convertible to an int64."}},
		{name: "bandwidthLimit.negative", spec: "  bandwidthLimit: {response: {limit: {value: -4Ki, unit: Second}}}\n",
			want: []string{"BandwidthLimit: response limit value must be positive."}},
		{name: "bandwidthLimit.request-first", spec: "  bandwidthLimit: {request: {limit: {value: 1, unit: Second}}, response: {limit: {value: 1, unit: Second}}}\n",
			want: []string{"BandwidthLimit: request: bandwidth limit of 1 bytes per Second is below the minimum of 1 KiB/s."}},

		// load balancer (buildLoadBalancer, buildConsistentHashLoadBalancer)
		{name: "loadBalancer.tableSize", spec: "  loadBalancer: {type: ConsistentHash, consistentHash: {type: SourceIP, tableSize: 1024}}\n",
			want: []string{"LoadBalancer: ConsistentHash: invalid TableSize value 1024."}},
		{name: "loadBalancer.tableSize-prime", spec: "  loadBalancer: {type: ConsistentHash, consistentHash: {type: SourceIP, tableSize: 65537}}\n"},
		{name: "loadBalancer.slowStart", spec: "  loadBalancer: {type: RoundRobin, slowStart: {window: 5x}}\n",
			want: []string{"LoadBalancer: time: unknown unit \"x\" in duration \"5x\"."}},
		{name: "loadBalancer.slowStart-least-request", spec: "  loadBalancer: {type: LeastRequest, slowStart: {window: x}}\n",
			want: []string{"LoadBalancer: time: invalid duration \"x\"."}},
		{name: "loadBalancer.slowStart-random-unread", spec: "  loadBalancer: {type: Random, slowStart: {window: x}}\n"},
		{name: "loadBalancer.backendUtilization", spec: "  loadBalancer: {type: BackendUtilization, backendUtilization: {blackoutPeriod: 1s, weightExpirationPeriod: x}}\n",
			want: []string{"LoadBalancer: invalid WeightExpirationPeriod value x: time: invalid duration \"x\"."}},
		{name: "loadBalancer.backendUtilization-periods", spec: "  loadBalancer: {type: BackendUtilization, backendUtilization: {blackoutPeriod: a, weightUpdatePeriod: b}}\n",
			want: []string{"LoadBalancer: invalid BlackoutPeriod value a: time: invalid duration \"a\"."}},
		{name: "loadBalancer.backendUtilization-update", spec: "  loadBalancer: {type: BackendUtilization, backendUtilization: {weightUpdatePeriod: b}}\n",
			want: []string{"LoadBalancer: invalid WeightUpdatePeriod value b: time: invalid duration \"b\"."}},
		{name: "loadBalancer.outOfBand", spec: "  loadBalancer: {type: BackendUtilization, backendUtilization: {outOfBand: {reportingPeriod: y}}}\n",
			want: []string{"LoadBalancer: invalid OutOfBand ReportingPeriod value y: time: invalid duration \"y\"."}},

		// circuit breaker (buildCircuitBreaker)
		{name: "circuitBreaker.negative", spec: "  circuitBreaker: {maxConnections: -1}\n",
			want: []string{"CircuitBreaker: invalid MaxConnections value -1."}},
		{name: "circuitBreaker.range", spec: "  circuitBreaker: {maxRequestsPerConnection: 4294967296}\n",
			want: []string{"CircuitBreaker: invalid MaxRequestsPerConnection value 4294967296."}},
		{name: "circuitBreaker.first-error-only", spec: "  circuitBreaker: {maxPendingRequests: -2, maxParallelRequests: -1, maxParallelRetries: -3}\n",
			want: []string{"CircuitBreaker: invalid MaxParallelRequests value -1."}},

		// TCP keepalive (buildTCPKeepAlive)
		{name: "tcpKeepalive.idleTime", spec: "  tcpKeepalive: {idleTime: 5x}\n",
			want: []string{"TCPKeepalive: invalid IdleTime value 5x."}},
		{name: "tcpKeepalive.interval-first-error-only", spec: "  tcpKeepalive: {idleTime: a, interval: b}\n",
			want: []string{"TCPKeepalive: invalid IdleTime value a."}},
		{name: "tcpKeepalive.interval", spec: "  tcpKeepalive: {interval: 1y}\n",
			want: []string{"TCPKeepalive: invalid Interval value 1y."}},

		// retry (buildRetry)
		{name: "retry.perRetry.timeout", spec: "  retry: {perRetry: {timeout: x}}\n",
			want: []string{"Retry: time: invalid duration \"x\"."}},
		{name: "retry.backOff.baseInterval-zero", spec: "  retry: {perRetry: {backOff: {baseInterval: 0s}}}\n",
			want: []string{"Retry: baseInterval cannot be set to 0s."}},
		{name: "retry.backOff.maxInterval-zero", spec: "  retry: {perRetry: {backOff: {maxInterval: 0ms}}}\n",
			want: []string{"Retry: maxInterval cannot be set to 0s."}},
		{name: "retry.backOff.max-below-base", spec: "  retry: {perRetry: {backOff: {baseInterval: 2s, maxInterval: 1s}}}\n",
			want: []string{"Retry: maxInterval cannot be less than baseInterval."}},
		{name: "retry.backOff.valid", spec: "  retry: {numRetries: 3, perRetry: {timeout: 1s, backOff: {baseInterval: 100ms, maxInterval: 1s}}}\n"},

		// timeouts (buildClusterSettingsTimeout): every one is reported
		{name: "timeout.tcp.connectTimeout", spec: "  timeout: {tcp: {connectTimeout: 20kib}}\n",
			want: []string{"Timeout: invalid ConnectTimeout value 20kib."}},
		{name: "timeout.http", spec: "  timeout: {http: {connectionIdleTimeout: a, maxConnectionDuration: b, requestTimeout: c, maxStreamDuration: d, streamIdleTimeout: e}}\n",
			want: []string{
				"Timeout: invalid ConnectionIdleTimeout value a.",
				"Timeout: invalid MaxConnectionDuration value b.",
				"Timeout: invalid RequestTimeout value c.",
				"Timeout: invalid MaxStreamDuration value d.",
				"Timeout: invalid StreamIdleTimeout value e.",
			}},

		// backend connection (buildBackendConnection)
		{name: "connection.bufferLimit-not-whole", spec: "  connection: {bufferLimit: 100m}\n",
			want: []string{"BackendConnection: invalid BufferLimit value 100m."}},
		{name: "connection.bufferLimit-range", spec: "  connection: {bufferLimit: 5Gi}\n",
			want: []string{"BackendConnection: BufferLimit value 5Gi is out of range."}},

		// HTTP/2 (http.go: buildIRHTTP2Settings)
		{name: "http2.window", spec: "  http2: {initialStreamWindowSize: 1Ki, initialConnectionWindowSize: 100m}\n",
			want: []string{
				"HTTP2: InitialStreamWindowSize value 1Ki is out of range, must be between 65535 and 2147483647",
				"HTTP2: invalid InitialConnectionWindowSize value 100m",
			}},
		{name: "http2.connectionKeepalive", spec: "  http2: {connectionKeepalive: {interval: x}}\n",
			want: []string{"HTTP2: invalid ConnectionKeepalive.Interval: time: invalid duration \"x\"."}},

		// response override (buildResponseOverride, getCustomResponseBody)
		{name: "responseOverride.configmap-missing", spec: override("{type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: nope}}"), others: cm,
			want: []string{"ResponseOverride: can't find the referenced configmap default/nope."}},
		{name: "responseOverride.configmap-empty", spec: override("{type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: empty}}"), others: cm,
			want: []string{"ResponseOverride: can't find the key response.body in the referenced configmap default/empty."}},
		{name: "responseOverride.configmap", spec: override("{type: ValueRef, valueRef: {group: '', kind: ConfigMap, name: body}}"), others: cm},
		{name: "responseOverride.inline-ignores-valueRef", spec: override("{type: Inline, inline: x, valueRef: {group: '', kind: ConfigMap, name: nope}}"), others: cm},

		// request buffer (buildRequestBuffer) and HTTP upgrades
		{name: "requestBuffer.not-whole", spec: "  requestBuffer: {limit: 100m}\n",
			want: []string{"RequestBuffer: limit must be convertible to an int64."}},
		{name: "requestBuffer.range", spec: "  requestBuffer: {limit: 5000Mi}\n",
			want: []string{"RequestBuffer: limit value 5000Mi is out of range, must be between 0 and 4294967295."}},
		{name: "requestBuffer.httpUpgrade", spec: "  requestBuffer: {limit: 1Mi}\n  httpUpgrade: [{type: websocket}]\n",
			want: []string{"RequestBuffer: requestBuffer cannot be used together with httpUpgrade."}},

		// telemetry (validateTelemetry → ValidateRouteStatName)
		{name: "telemetry.routeStatName-operator", spec: "  telemetry: {metrics: {routeStatName: '%ROUTE_NAME%.%UPSTREAM_HOST%'}}\n",
			want: []string{"Telemetry: unable to configure Route Stat Name: unsupported operators: [%UPSTREAM_HOST%]."}},
		{name: "telemetry.routeStatName-percent", spec: "  telemetry: {metrics: {routeStatName: 'a%b'}}\n",
			want: []string{"Telemetry: unable to configure Route Stat Name: unable to configure stat name with invalid operator."}},
		{name: "telemetry.routeStatName", spec: "  telemetry: {metrics: {routeStatName: '%ROUTE_KIND%/%ROUTE_NAMESPACE%/%ROUTE_NAME%/%ROUTE_RULE_NAME%'}}\n"},

		// every builder runs and its errors are joined, in Envoy Gateway's order
		{name: "builders-in-order", spec: "  requestBuffer: {limit: 100m}\n  timeout: {tcp: {connectTimeout: a}}\n  retry: {perRetry: {timeout: b}}\n  tcpKeepalive: {idleTime: c}\n" +
			"  circuitBreaker: {maxConnections: -1}\n  loadBalancer: {type: RoundRobin, slowStart: {window: d}}\n  bandwidthLimit: {request: {limit: {value: 1, unit: Second}}}\n" +
			"  rateLimit: {type: Bogus}\n  connection: {bufferLimit: 100m}\n  http2: {initialStreamWindowSize: 1Ki}\n  telemetry: {metrics: {routeStatName: 'a%b'}}\n",
			want: []string{
				"RateLimit: invalid rateLimit type: Bogus.",
				"BandwidthLimit: request: bandwidth limit of 1 bytes per Second is below the minimum of 1 KiB/s.",
				"LoadBalancer: time: invalid duration \"d\".",
				"CircuitBreaker: invalid MaxConnections value -1.",
				"TCPKeepalive: invalid IdleTime value c.",
				"Retry: time: invalid duration \"b\".",
				"Timeout: invalid ConnectTimeout value a.",
				"BackendConnection: invalid BufferLimit value 100m.",
				"HTTP2: InitialStreamWindowSize value 1Ki is out of range, must be between 65535 and 2147483647",
				"RequestBuffer: limit must be convertible to an int64.",
				"Telemetry: unable to configure Route Stat Name: unable to configure stat name with invalid operator.",
			}},
	})
}

// TestBackendTrafficPolicyRetryUnused: a retry field set to a value
// Envoy Gateway's buildRetry and route retry policy take nothing from is
// a warning at the field, and the policy stays valid; a field that sets
// something is not.
func TestBackendTrafficPolicyRetryUnused(t *testing.T) {
	for _, tc := range []struct{ name, spec, field string }{
		{"numAttemptsPerPriority", "  retry: {numAttemptsPerPriority: 0}\n", "spec.retry.numAttemptsPerPriority"},
		{"retryOn-empty", "  retry: {retryOn: {}}\n", "spec.retry.retryOn"},
		{"perRetry-empty", "  retry: {perRetry: {}}\n", "spec.retry.perRetry"},
		{"backOff-empty", "  retry: {perRetry: {backOff: {}}}\n", "spec.retry.perRetry.backOff"},
		{"set", "  retry: {numAttemptsPerPriority: 2, retryOn: {triggers: []}, perRetry: {timeout: 1s, backOff: {maxInterval: 2s}}}\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decodeKind(t, BackendTrafficPolicy(), tc.spec, "", extensionsOn(policy.Config{}))
			var got []string
			for _, d := range p.Findings {
				if d.Severity == diag.Warning {
					got = append(got, d.Field)
				}
			}
			want := []string{}
			if tc.field != "" {
				want = []string{tc.field}
			}
			if len(p.Invalid) > 0 || !slices.Equal(got, want) {
				t.Errorf("warnings at %v, invalid %v; want warnings at %v and valid", got, messages(p), want)
			}
		})
	}
}
