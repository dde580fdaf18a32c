package envoygateway

import (
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// envoyProxy is Envoy Gateway's EnvoyProxy, the data plane's settings a
// GatewayClass or Gateway points at (parametersRef).
var envoyProxy = model.GroupKind{Group: Group, Kind: "EnvoyProxy"}

// geoUsed reports whether an authorization rule matches client IP
// geolocations.
func geoUsed(a *egv1a1.Authorization) bool {
	if a == nil {
		return false
	}
	for _, r := range a.Rules {
		if r.Principal != nil && len(r.Principal.ClientIPGeoLocations) > 0 {
			return true
		}
	}
	return false
}

// gatewaySection is a Gateway a policy reaches, and the listener when one
// is named.
type gatewaySection struct {
	gw      *model.Gateway
	section string
}

// checkGeoLocations: an authorization rule on client IP geolocation needs
// the Gateway's EnvoyProxy to configure a geoIP provider, and every
// listener it applies to a ClientTrafficPolicy that detects the client IP
// other than by trusted X-Forwarded-For CIDRs. Envoy Gateway rejects the
// SecurityPolicy otherwise.
func checkGeoLocations(p *policy.Policy, spec *egv1a1.SecurityPolicySpec, m *model.Model) {
	if !geoUsed(spec.Authorization) {
		return
	}
	ctps := clientTrafficPolicies(m)
	for _, gs := range reachedGateways(p, m) {
		if msg := geoProblem(gs, ctps, m); msg != "" {
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, "spec.authorization", "Authorization: authorization clientIPGeoLocations %s", msg))
			// Envoy Gateway checks this after translating the rules: it
			// keeps the authorization beside the 500 (KeptWhenInvalid).
			decoded(p).geoInvalid = len(p.Invalid) - 1
			return
		}
	}
}

func geoProblem(gs gatewaySection, ctps []ctpDoc, m *model.Model) string {
	if !geoProvider(gs.gw, m) {
		return "requires EnvoyProxy.spec.geoIP.provider to be configured."
	}
	for _, l := range gs.gw.Spec.Listeners {
		if gs.section != "" && string(l.Name) != gs.section {
			continue
		}
		ctp := ctpFor(ctps, gs.gw, string(l.Name))
		switch {
		case ctp == nil || ctp.ClientIPDetection == nil:
			return "requires ClientTrafficPolicy.spec.clientIPDetection to be configured."
		case ctp.ClientIPDetection.XForwardedFor != nil && len(ctp.ClientIPDetection.XForwardedFor.TrustedCIDRs) > 0:
			return "does not support ClientIPDetection.XForwardedFor.TrustedCIDRs."
		}
	}
	return ""
}

// reachedGateways are the Gateways (and listeners) p's targetRefs reach:
// a Gateway directly, a route through its parentRefs.
func reachedGateways(p *policy.Policy, m *model.Model) []gatewaySection {
	var out []gatewaySection
	ns := p.Obj.Namespace
	for _, t := range p.Targets {
		if t.Group != model.GatewayGroup || t.Selector != nil {
			continue
		}
		if t.Kind == "Gateway" {
			if gw := m.Gateway(ns, t.Name); gw != nil {
				out = append(out, gatewaySection{gw, t.Section})
			}
			continue
		}
		rt := m.Route(t.Kind, ns, t.Name)
		if rt == nil {
			continue
		}
		for _, pr := range rt.ParentRefs {
			if pr.Kind != nil && *pr.Kind != "Gateway" {
				continue
			}
			pns := ns
			if pr.Namespace != nil {
				pns = string(*pr.Namespace)
			}
			if gw := m.Gateway(pns, string(pr.Name)); gw != nil {
				gs := gatewaySection{gw: gw}
				if pr.SectionName != nil {
					gs.section = string(*pr.SectionName)
				}
				out = append(out, gs)
			}
		}
	}
	return out
}

// geoProvider reports whether gw's EnvoyProxy (the Gateway's own
// parametersRef, else its class's) configures spec.geoIP.provider.
func geoProvider(gw *model.Gateway, m *model.Model) bool {
	key, ok := envoyProxyOf(gw, m)
	if !ok {
		return false
	}
	o, ok := m.Object(key)
	if !ok {
		return false
	}
	b, err := o.FieldJSON("spec.geoIP.provider")
	return err == nil && len(b) > 0 && string(b) != "null"
}

func envoyProxyOf(gw *model.Gateway, m *model.Model) (model.Key, bool) {
	if inf := gw.Spec.Infrastructure; inf != nil && inf.ParametersRef != nil && string(inf.ParametersRef.Kind) == envoyProxy.Kind {
		return model.Key{Group: Group, Kind: envoyProxy.Kind, Namespace: gw.Namespace, Name: inf.ParametersRef.Name}, true
	}
	for _, c := range m.GatewayClasses {
		if c.Name != string(gw.Spec.GatewayClassName) || c.Spec.ParametersRef == nil || string(c.Spec.ParametersRef.Kind) != envoyProxy.Kind {
			continue
		}
		// A class's reference without a namespace names the EnvoyProxy in
		// "default" (Envoy Gateway v1.9.0 provider/kubernetes/controller.go
		// processGatewayClassParamsRef), not none.
		ref, ns := c.Spec.ParametersRef, "default"
		if ref.Namespace != nil {
			ns = string(*ref.Namespace)
		}
		return model.Key{Group: Group, Kind: envoyProxy.Kind, Namespace: ns, Name: ref.Name}, true
	}
	return model.Key{}, false
}

// ctpDoc is one ClientTrafficPolicy as the check reads it.
type ctpDoc struct {
	ns string
	egv1a1.ClientTrafficPolicySpec
}

func clientTrafficPolicies(m *model.Model) []ctpDoc {
	var out []ctpDoc
	for _, o := range m.OfKind(model.GroupKind{Group: Group, Kind: clientTrafficPolicy.name}) {
		var spec egv1a1.ClientTrafficPolicySpec
		if o.DecodeField("spec", &spec) == nil {
			out = append(out, ctpDoc{ns: o.Namespace, ClientTrafficPolicySpec: spec})
		}
	}
	return out
}

// ctpFor is the ClientTrafficPolicy in effect on a listener: the first
// naming the listener, else the first naming the whole Gateway.
func ctpFor(ctps []ctpDoc, gw *model.Gateway, listener string) *ctpDoc {
	var whole *ctpDoc
	for i := range ctps {
		c := &ctps[i]
		if c.ns != gw.Namespace {
			continue
		}
		for _, t := range targets(c.PolicyTargetReferences) {
			if t.Kind != "Gateway" || t.Name != gw.Name {
				continue
			}
			if t.Section == listener {
				return c
			}
			if t.Section == "" && whole == nil {
				whole = c
			}
		}
	}
	return whole
}
