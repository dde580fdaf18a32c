package envoygateway

import (
	"fmt"
	"net/netip"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// backendJudge is what Envoy Gateway's Backend validation (backend.go:
// validateBackend) reads besides the Backend: the BackendTLSPolicies that
// may give it a CA (the input's, backendTLSCovers), and whether Envoy
// Gateway runs on the host.
type backendJudge struct {
	env    *policy.Env
	onHost bool
}

// backendVerdict is validateBackend's verdict on one Backend: nil problem
// when it accepts it. The problem's path is the Backend's field at fault.
type backendVerdict struct {
	problem *routeProblem
}

// backendVerdictKey is the Env.Memo key of a Backend's verdict.
type backendVerdictKey struct{ namespace, name string }

// verdict is the Backend's verdict, decided once per pass: Envoy Gateway
// runs validateBackend for the Backend's own status (ProcessBackends) and
// again for every backendRef to it (validateBackendRefBackend), with the
// same answer, so gwpol decides it once and both read it.
func (j backendJudge) verdict(ns, name string, spec *egv1a1.BackendSpec) backendVerdict {
	return j.env.Memo(backendVerdictKey{ns, name}, func() any {
		return backendVerdict{problem: j.judge(ns, name, spec)}
	}).(backendVerdict)
}

// judge is validateBackend, in its order: a DynamicResolver has no
// endpoints; TLS that verifies its peer has a CA and a client certificate
// in the Backend's namespace; each endpoint's hostname and FQDN is a
// domain of two labels or more (unless on the host) and not an IP
// address; each IP address parses and is not loopback (unless on the
// host).
func (j backendJudge) judge(ns, name string, spec *egv1a1.BackendSpec) *routeProblem {
	if isDynamicResolver(spec) && len(spec.Endpoints) > 0 {
		return unresolved("InvalidBackendRef", "spec.endpoints", "DynamicResolver type cannot have endpoints specified.")
	}
	if p := j.backendTLSProblem(ns, name, spec); p != nil {
		return p
	}
	for i, ep := range spec.Endpoints {
		at := fmt.Sprintf("spec.endpoints[%d]", i)
		if ep.Hostname != nil {
			if p := j.endpointHostnameProblem(*ep.Hostname, "hostname", at+".hostname"); p != nil {
				return p
			}
		}
		switch {
		case ep.FQDN != nil:
			if p := j.endpointHostnameProblem(ep.FQDN.Hostname, "FQDN", at+".fqdn.hostname"); p != nil {
				return p
			}
		case ep.IP != nil:
			if p := j.ipProblem(ep.IP.Address, at+".ip.address"); p != nil {
				return p
			}
		}
	}
	return nil
}

// ipProblem is backend.go's validateIP.
func (j backendJudge) ipProblem(address, path string) *routeProblem {
	a, err := netip.ParseAddr(address)
	switch {
	case err != nil:
		return unresolved("InvalidAddress", path, "IP address %s is invalid.", address)
	case a.IsLoopback() && !j.onHost:
		return unresolved("InvalidAddress", path, "IP address %s in the loopback range is only supported when using the Host infrastructure.", address)
	}
	return nil
}

// LintBackendNotAccepted is the finding of a Backend whose own status
// Envoy Gateway writes Accepted False (backend.go: ProcessBackends).
var LintBackendNotAccepted = diag.Rule{Code: "GWP220", Name: "backend-not-accepted", Severity: diag.Warning,
	Title: "Envoy Gateway Backend its controller does not accept",
	Doc: "An Envoy Gateway Backend that Envoy Gateway's translator refuses, as its status says (Accepted False, Invalid): Backends are disabled in the deployment (envoyGateway.enableBackend), " +
		"a DynamicResolver lists endpoints, TLS that verifies its peer has no CA (its own or a BackendTLSPolicy's) or a client certificate in another namespace, " +
		"a hostname is not a domain of two labels or more or is an IP address, or an IP address does not parse or is loopback (unless Envoy Gateway runs on the host). " +
		"Every backendRef to it is refused too (ResolvedRefs False: its share of the requests is answered 500), which each route's finding reports."}

// objectVerdicts implements policy.Family.ObjectVerdicts: the Accepted
// condition Envoy Gateway writes on every Backend (backend.go:
// ProcessBackends), whichever routes use it.
func objectVerdicts(env *policy.Env, set *policy.Set) []policy.ObjectVerdict {
	j := backendJudge{env: env, onHost: RunningOnHost.Bool(env.Config)}
	enabled := EnableBackend.Bool(env.Config)
	var out []policy.ObjectVerdict
	for _, o := range env.Model.OfKind(backend) {
		k := model.KeyOf(o)
		var p *routeProblem
		switch spec, _ := readBackend(env, env.Model, k.Namespace, k.Name); {
		case !enabled:
			out = append(out, backendRefused(o, k, "kind", "The Backend was not accepted since Backend is not enabled in Envoy Gateway Config",
				fmt.Sprintf("Envoy Gateway does not accept Backend %s/%s: Backend is disabled in its configuration (%s)", k.Namespace, k.Name, enables(EnableBackend))))
			continue
		case spec == nil:
			continue // its own findings say why it does not decode
		default:
			p = j.verdict(k.Namespace, k.Name, spec).problem
		}
		if p == nil {
			out = append(out, policy.ObjectVerdict{Object: k, Conditions: []policy.ObjectCondition{{Type: "Accepted", Status: "True", Reason: "Accepted", Message: "The Backend was accepted"}}})
			continue
		}
		why := strings.TrimSuffix(p.message, ".")
		out = append(out, backendRefused(o, k, p.path, "The Backend was not accepted: "+why,
			fmt.Sprintf("Envoy Gateway does not accept Backend %s/%s: %s; every backendRef to it is refused (ResolvedRefs False, %s)", k.Namespace, k.Name, why, p.reason)))
	}
	return out
}

// backendRefused is the verdict of a Backend Envoy Gateway does not
// accept: its condition, and the finding at path.
func backendRefused(o *manifest.Object, k model.Key, path, condition, finding string) policy.ObjectVerdict {
	rule := LintBackendNotAccepted
	return policy.ObjectVerdict{Object: k,
		Conditions:  []policy.ObjectCondition{{Type: "Accepted", Status: "False", Reason: "Invalid", Message: condition}},
		Diagnostics: []diag.Diagnostic{{Code: rule.Code, Severity: rule.Severity, Object: o.Ref(), Field: path, Pos: o.FieldPos(path), Message: finding}},
	}
}
