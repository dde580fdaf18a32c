package envoygateway

import (
	"encoding/json"
	"fmt"
	"net"
	"net/netip"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
)

// LintGatewayNotAccepted is the finding of a Gateway Envoy Gateway
// refuses whole before translating any of it.
var LintGatewayNotAccepted = diag.Rule{Code: "GWP222", Name: "gateway-not-accepted", Severity: diag.Error,
	Title: "Envoy Gateway Gateway its controller refuses whole",
	Doc: "A Gateway Envoy Gateway refuses before it translates any of it, as its status says (Accepted False): the EnvoyProxy in effect on it (the Gateway's own, else its GatewayClass's) fails Envoy Gateway's validation " +
		"(a filterOrder with a cycle, a clusterStatName with an unsupported operator, an access log or metrics sink without its settings, a Kubernetes service, deployment, HPA or PDB setting or patch it refuses; InvalidParameters), " +
		"its class's EnvoyProxy merges Gateways and sets mergeBackends too, its parametersRef is not an EnvoyProxy or is set while its class merges Gateways, " +
		"or it has an address of a type other than IPAddress and Hostname (UnsupportedAddress). It gets no listener status; nothing of it is rendered; a route's parentRef to it attaches nowhere and gets no status from Envoy Gateway; " +
		"a policy targeting it attaches to nothing."}

// gatewayVerdict implements policy.Family.Gateway: Envoy Gateway's
// refusals of a whole Gateway, in the order its provider and translator
// make them (provider/kubernetes/controller.go: processGatewayParamsRef;
// translator.go: GetRelevantGateways), the first one standing. The
// finding is at the field at fault: the Gateway's, or the EnvoyProxy's
// for an EnvoyProxy Envoy Gateway refuses.
func gatewayVerdict(m *model.Model, gw *model.Gateway) (topology.Refusal, []diag.Diagnostic) {
	refuse := func(reason, msg string, src *manifest.Object, path string) (topology.Refusal, []diag.Diagnostic) {
		d := diag.Diagnostic{Code: LintGatewayNotAccepted.Code, Severity: LintGatewayNotAccepted.Severity, Object: src.Ref(), Field: path, Pos: src.FieldPos(path),
			Message: fmt.Sprintf("Gateway %s/%s is not accepted by Envoy Gateway (%s): %s; it translates nothing of it: no listener, and no route or policy attaches to it", gw.Namespace, gw.Name, reason, msg)}
		return topology.Refusal{Reason: reason, Message: msg}, []diag.Diagnostic{d}
	}
	classKey, hasClass := classProxy(gw, m)
	var class *manifest.Object
	if hasClass {
		class, _ = m.Object(classKey)
	}
	merging := mergesGateways(class)
	// The provider's reading of the Gateway's parametersRef, before the
	// translator sees the Gateway (processGatewayParamsRef).
	if inf := gw.Spec.Infrastructure; inf != nil && inf.ParametersRef != nil {
		const path = "spec.infrastructure.parametersRef"
		ref := inf.ParametersRef
		switch {
		case merging:
			return refuse("InvalidParameters", "infrastructure.parametersref must be nil when MergeGateways feature is enabled by gatewayclass", gw.Src, path)
		case string(ref.Group) != Group || string(ref.Kind) != envoyProxy.Kind || ref.Name == "":
			return refuse("InvalidParameters", fmt.Sprintf("unsupported parametersRef for gateway %s/%s", gw.Namespace, gw.Name), gw.Src, path)
		}
	}
	pc, hasProxy := effectiveProxy(gw, m)
	if merging && hasProxy {
		var mb json.RawMessage
		if pc.DecodeField("spec.mergeBackends", &mb) == nil && len(mb) > 0 && string(mb) != "null" {
			return refuse("InvalidParameters", "mergeGateways and mergeBackends cannot both be enabled", class, "spec.mergeBackends")
		}
	}
	if hasProxy {
		// Envoy Gateway validates each EnvoyProxy as written and refuses
		// the Gateway whose merged one is named after an invalid one: the
		// Gateway's own when it has one, else its class's.
		if owner, ok := m.Object(pc.owner); ok {
			if msg, path := invalidEnvoyProxy(owner); msg != "" {
				return refuse("InvalidParameters", "Invalid parametersRef:: "+msg, owner, path)
			}
		}
	}
	for i, a := range gw.Spec.Addresses {
		if a.Type != nil && *a.Type != gwv1.IPAddressType && *a.Type != gwv1.HostnameAddressType {
			return refuse("UnsupportedAddress", fmt.Sprintf("Gateway has an address with an unsupported type: %s", *a.Type), gw.Src, fmt.Sprintf("spec.addresses[%d].type", i))
		}
	}
	return topology.Refusal{}, nil
}

// invalidEnvoyProxy is why Envoy Gateway's validation of an EnvoyProxy
// (translator.go: validateEnvoyProxy → api/v1alpha1/validation:
// ValidateEnvoyProxy) refuses it, in its words ("" when it does not),
// and the field of the first problem. Several problems are joined as
// Kubernetes' aggregate error joins them: "[a, b]", each message once.
// The bootstrap's own validation (bootstrap.Validate, which renders
// Envoy Gateway's default bootstrap) is not made.
func invalidEnvoyProxy(o *manifest.Object) (msg, path string) {
	var spec egv1a1.EnvoyProxySpec
	if err := o.DecodeField("spec", &spec); err != nil {
		return "", ""
	}
	probs := envoyProxyProblems(&spec)
	if len(probs) == 0 {
		return "", ""
	}
	var msgs []string
	seen := map[string]bool{}
	for _, p := range probs {
		if !seen[p.msg] {
			seen[p.msg] = true
			msgs = append(msgs, p.msg)
		}
	}
	if len(msgs) == 1 {
		return msgs[0], probs[0].path
	}
	return "[" + strings.Join(msgs, ", ") + "]", probs[0].path
}

type proxyProblem struct{ msg, path string }

// envoyProxyProblems are the problems of spec in the order Envoy
// Gateway's validation finds them: the provider, the telemetry, the
// filter order.
func envoyProxyProblems(spec *egv1a1.EnvoyProxySpec) []proxyProblem {
	var out []proxyProblem
	add := func(path, format string, args ...any) {
		out = append(out, proxyProblem{msg: fmt.Sprintf(format, args...), path: path})
	}
	if p := spec.Provider; p != nil {
		switch p.Type {
		case egv1a1.EnvoyProxyProviderTypeKubernetes:
			kubernetesProblems(p.Kubernetes, add)
		case egv1a1.EnvoyProxyProviderTypeHost:
			if p.Host == nil {
				add("spec.provider.host", "field 'host' should be specified when provider type is 'Host'")
			}
		default:
			add("spec.provider.type", "unsupported provider type %v", p.Type)
		}
	}
	if t := spec.Telemetry; t != nil {
		if al := t.AccessLog; al != nil && (al.Disable == nil || !*al.Disable) {
			for i, s := range al.Settings {
				at := fmt.Sprintf("spec.telemetry.accessLog.settings[%d]", i)
				if f := s.Format; f != nil && f.Type != nil && *f.Type == egv1a1.ProxyAccessLogFormatTypeText && f.Text == nil {
					add(at+".format.text", "unable to configure access log when using Text format but \"text\" field being empty")
				}
				for j, sink := range s.Sinks {
					st := fmt.Sprintf("%s.sinks[%d]", at, j)
					switch {
					case sink.Type == egv1a1.ProxyAccessLogSinkTypeFile && sink.File == nil:
						add(st+".file", "unable to configure access log when using File sink type but \"file\" field being empty")
					case sink.Type == egv1a1.ProxyAccessLogSinkTypeOpenTelemetry && sink.OpenTelemetry == nil:
						add(st+".openTelemetry", "unable to configure access log when using OpenTelemetry sink type but \"openTelemetry\" field being empty")
					}
				}
			}
		}
		if mt := t.Metrics; mt != nil {
			for i, sink := range mt.Sinks {
				if sink.Type == egv1a1.MetricSinkTypeOpenTelemetry && sink.OpenTelemetry == nil {
					add(fmt.Sprintf("spec.telemetry.metrics.sinks[%d].openTelemetry", i), "opentelemetry is required if the sink type is OpenTelemetry")
				}
			}
			if mt.ClusterStatName != nil {
				if why := statNameProblem(*mt.ClusterStatName, clusterStatOperators); why != "" {
					add("spec.telemetry.metrics.clusterStatName", "unable to configure Cluster Stat Name: %s", why)
				}
			}
		}
	}
	if len(spec.FilterOrder) > 0 {
		if i, from, to, ok := filterOrderCycle(spec.FilterOrder); ok {
			add(fmt.Sprintf("spec.filterOrder[%d]", i), "there is a cycle in the filter order: %s -> %s", from, to)
		}
	}
	return out
}

// kubernetesProblems are the problems of the Kubernetes provider's
// settings Envoy Gateway refuses: patches without a value or of a type
// it does not apply, a service type it does not deploy, and service
// settings only a LoadBalancer Service takes, or that do not parse.
func kubernetesProblems(k *egv1a1.EnvoyProxyKubernetesProvider, add func(path, format string, args ...any)) {
	if k == nil {
		return
	}
	const base = "spec.provider.kubernetes"
	patch := func(p *egv1a1.KubernetesPatchSpec, field, what string) {
		if p == nil {
			return
		}
		if p.Value.Raw == nil {
			add(base+"."+field+".patch.value", "envoy %s patch object cannot be empty", what)
		}
		if p.Type != nil && *p.Type != egv1a1.JSONMerge && *p.Type != egv1a1.StrategicMerge {
			add(base+"."+field+".patch.type", "unsupported envoy %s patch type %s", what, *p.Type)
		}
	}
	if d := k.EnvoyDeployment; d != nil {
		patch(d.Patch, "envoyDeployment", "deployment")
	}
	if h := k.EnvoyHpa; h != nil {
		patch(h.Patch, "envoyHpa", "hpa")
	}
	if p := k.EnvoyPDB; p != nil {
		patch(p.Patch, "envoyPDB", "pdb")
	}
	svc := k.EnvoyService
	if svc == nil {
		return
	}
	const sp = base + ".envoyService"
	lb := string(egv1a1.ServiceTypeLoadBalancer)
	if t := svc.Type; t != nil {
		switch *t {
		case egv1a1.ServiceTypeLoadBalancer, egv1a1.ServiceTypeClusterIP, egv1a1.ServiceTypeNodePort:
		default:
			// Envoy Gateway formats the type's pointer here, not its
			// value; gwpol names the value.
			add(sp+".type", "unsupported envoy service type %v", *t)
		}
		if svc.AllocateLoadBalancerNodePorts != nil && *t != egv1a1.ServiceTypeLoadBalancer {
			add(sp+".allocateLoadBalancerNodePorts", "allocateLoadBalancerNodePorts can only be set for %s type", lb)
		}
		if svc.LoadBalancerSourceRanges != nil {
			if *t != egv1a1.ServiceTypeLoadBalancer {
				add(sp+".loadBalancerSourceRanges", "loadBalancerSourceRanges can only be set for %s type", lb)
			}
			for i, r := range svc.LoadBalancerSourceRanges {
				if _, _, err := net.ParseCIDR(r); err != nil {
					add(fmt.Sprintf("%s.loadBalancerSourceRanges[%d]", sp, i), "loadBalancerSourceRange:%s is an invalid IP subnet", r)
				}
			}
		}
		if ip := svc.LoadBalancerIP; ip != nil {
			if *t != egv1a1.ServiceTypeLoadBalancer {
				add(sp+".loadBalancerIP", "loadBalancerIP can only be set for %s type", lb)
			}
			if a, err := netip.ParseAddr(*ip); err != nil || !a.Unmap().Is4() {
				add(sp+".loadBalancerIP", "loadBalancerIP:%s is an invalid IP address", *ip)
			}
		}
	}
	patch(svc.Patch, "envoyService", "service")
}

// clusterStatOperators are the command operators a clusterStatName may
// use (api/v1alpha1: the StatFormatter constants a cluster's stat name
// takes).
var clusterStatOperators = map[string]bool{
	egv1a1.StatFormatterRouteName: true, egv1a1.StatFormatterRouteNamespace: true, egv1a1.StatFormatterRouteKind: true,
	egv1a1.StatFormatterRouteRuleName: true, egv1a1.StatFormatterRouteRuleNumber: true, egv1a1.StatFormatterBackendRefs: true,
}

// statNameProblem is why a stat name is refused: a % that opens no
// operator, or operators it does not take ("" when none).
func statNameProblem(name string, supported map[string]bool) string {
	ops := statOperator.FindAllString(name, -1)
	if len(ops) == 0 && strings.Contains(name, "%") {
		return "unable to configure stat name with invalid operator"
	}
	var bad []string
	for _, op := range ops {
		if !supported[op] {
			bad = append(bad, op)
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("unsupported operators: %v", bad)
	}
	return ""
}

// filterOrderCycle finds the first filterOrder entry whose edge would
// close a cycle among the ones before it, as Envoy Gateway adds them to
// a graph that refuses cycles (validateFilterOrder): an entry orders
// name before its before filter, or its after filter before name; an
// edge already there is skipped, and one from a filter to itself is a
// cycle. It returns the entry's index and the edge.
func filterOrderCycle(order []egv1a1.FilterPosition) (int, string, string, bool) {
	next := map[string][]string{}
	has := map[[2]string]bool{}
	reaches := func(from, to string) bool {
		seen := map[string]bool{from: true}
		stack := []string{from}
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == to {
				return true
			}
			for _, m := range next[n] {
				if !seen[m] {
					seen[m] = true
					stack = append(stack, m)
				}
			}
		}
		return false
	}
	for i, f := range order {
		var from, to string
		switch {
		case f.Before != nil:
			from, to = string(f.Name), string(*f.Before)
		case f.After != nil:
			from, to = string(*f.After), string(f.Name)
		default:
			continue // the CRD requires one of them
		}
		if has[[2]string{from, to}] {
			continue
		}
		if from == to || reaches(to, from) {
			return i, from, to, true
		}
		has[[2]string{from, to}] = true
		next[from] = append(next[from], to)
	}
	return 0, "", "", false
}
