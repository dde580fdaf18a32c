package envoygateway

import (
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
)

// TestEnvoyProxyValidation: Envoy Gateway's validation of an EnvoyProxy
// (validateEnvoyProxy → ValidateEnvoyProxy), each check on a shape of
// its own, with the message and the field gwpol reports. Several of
// these the EnvoyProxy CRD's rules refuse already (GWP110), yet Envoy
// Gateway's translator checks them again, and so does gwpol.
func TestEnvoyProxyValidation(t *testing.T) {
	tests := []struct {
		name, spec string
		msg, path  string
	}{
		{"a valid EnvoyProxy", "  logging: {level: {default: info}}\n  filterOrder: [{name: envoy.filters.http.cors, before: envoy.filters.http.lua}, {name: envoy.filters.http.rbac, after: envoy.filters.http.lua}]\n", "", ""},
		{"a Host provider without host settings", "  provider: {type: Host}\n",
			"field 'host' should be specified when provider type is 'Host'", "spec.provider.host"},
		{"an unknown provider type", "  provider: {type: Nomad}\n", "unsupported provider type Nomad", "spec.provider.type"},
		{"a deployment patch without a value", "  provider: {type: Kubernetes, kubernetes: {envoyDeployment: {patch: {type: StrategicMerge}}}}\n",
			"envoy deployment patch object cannot be empty", "spec.provider.kubernetes.envoyDeployment.patch.value"},
		{"an HPA patch of a type Envoy Gateway does not apply", "  provider: {type: Kubernetes, kubernetes: {envoyHpa: {maxReplicas: 3, patch: {type: Replace, value: {}}}}}\n",
			"unsupported envoy hpa patch type Replace", "spec.provider.kubernetes.envoyHpa.patch.type"},
		{"a PDB patch without a value", "  provider: {type: Kubernetes, kubernetes: {envoyPDB: {patch: {}}}}\n",
			"envoy pdb patch object cannot be empty", "spec.provider.kubernetes.envoyPDB.patch.value"},
		{"a service type Envoy Gateway does not deploy", "  provider: {type: Kubernetes, kubernetes: {envoyService: {type: ExternalName}}}\n",
			"unsupported envoy service type ExternalName", "spec.provider.kubernetes.envoyService.type"},
		{"load balancer settings on a ClusterIP Service, each reported", "  provider: {type: Kubernetes, kubernetes: {envoyService: {type: ClusterIP, allocateLoadBalancerNodePorts: false, loadBalancerSourceRanges: [10.0.0.0/8], loadBalancerIP: 10.1.2.3}}}\n",
			"[allocateLoadBalancerNodePorts can only be set for LoadBalancer type, loadBalancerSourceRanges can only be set for LoadBalancer type, loadBalancerIP can only be set for LoadBalancer type]",
			"spec.provider.kubernetes.envoyService.allocateLoadBalancerNodePorts"},
		{"a source range and an IP that do not parse", "  provider: {type: Kubernetes, kubernetes: {envoyService: {type: LoadBalancer, loadBalancerSourceRanges: [10.0.0.0/33], loadBalancerIP: '2001:db8::1'}}}\n",
			"[loadBalancerSourceRange:10.0.0.0/33 is an invalid IP subnet, loadBalancerIP:2001:db8::1 is an invalid IP address]",
			"spec.provider.kubernetes.envoyService.loadBalancerSourceRanges[0]"},
		{"load balancer settings without a service type are not judged", "  provider: {type: Kubernetes, kubernetes: {envoyService: {loadBalancerIP: not-an-ip}}}\n", "", ""},
		{"a Text access log format without text", "  telemetry: {accessLog: {settings: [{format: {type: Text}, sinks: [{type: File, file: {path: /dev/stdout}}]}]}}\n",
			`unable to configure access log when using Text format but "text" field being empty`, "spec.telemetry.accessLog.settings[0].format.text"},
		{"access log sinks without their settings", "  telemetry: {accessLog: {settings: [{sinks: [{type: File}, {type: OpenTelemetry}]}]}}\n",
			`[unable to configure access log when using File sink type but "file" field being empty, unable to configure access log when using OpenTelemetry sink type but "openTelemetry" field being empty]`,
			"spec.telemetry.accessLog.settings[0].sinks[0].file"},
		{"a disabled access log is not judged", "  telemetry: {accessLog: {disable: true, settings: [{sinks: [{type: File}]}]}}\n", "", ""},
		{"an OpenTelemetry metrics sink without its settings", "  telemetry: {metrics: {sinks: [{type: OpenTelemetry}]}}\n",
			"opentelemetry is required if the sink type is OpenTelemetry", "spec.telemetry.metrics.sinks[0].openTelemetry"},
		{"a cluster stat name of supported operators", "  telemetry: {metrics: {clusterStatName: '%ROUTE_KIND%-%ROUTE_RULE_NUMBER%-%BACKEND_REFS%'}}\n", "", ""},
		{"a cluster stat name with an operator a route's takes only", "  telemetry: {metrics: {clusterStatName: '%ROUTE_NAME%.%UPSTREAM_HOST%'}}\n",
			"unable to configure Cluster Stat Name: unsupported operators: [%UPSTREAM_HOST%]", "spec.telemetry.metrics.clusterStatName"},
		{"a cycle through three filters, found at the edge that closes it", "  filterOrder:\n  - {name: envoy.filters.http.cors, before: envoy.filters.http.lua}\n  - {name: envoy.filters.http.lua, before: envoy.filters.http.rbac}\n  - {name: envoy.filters.http.cors, after: envoy.filters.http.rbac}\n",
			"there is a cycle in the filter order: envoy.filters.http.rbac -> envoy.filters.http.cors", "spec.filterOrder[2]"},
		{"the same order given twice is no cycle", "  filterOrder:\n  - {name: envoy.filters.http.cors, before: envoy.filters.http.lua}\n  - {name: envoy.filters.http.lua, after: envoy.filters.http.cors}\n", "", ""},
		{"problems in source order: provider, telemetry, filter order", "  filterOrder: [{name: envoy.filters.http.cors, before: envoy.filters.http.cors}]\n  telemetry: {metrics: {sinks: [{type: OpenTelemetry}]}}\n  provider: {type: Host}\n",
			"[field 'host' should be specified when provider type is 'Host', opentelemetry is required if the sink type is OpenTelemetry, there is a cycle in the filter order: envoy.filters.http.cors -> envoy.filters.http.cors]", "spec.provider.host"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: ep, namespace: infra}\nspec:\n" + tc.spec
			objs, err := manifest.Parse("ep.yaml", []byte(doc), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			msg, path := invalidEnvoyProxy(objs[0])
			if msg != tc.msg || path != tc.path {
				t.Errorf("got %q at %q, want %q at %q", msg, path, tc.msg, tc.path)
			}
		})
	}
}
