package envoygateway

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// checkDynamicModules is buildDynamicModules: each dynamic module must be
// registered in the dynamicModules allowlist of the EnvoyProxy of every
// Gateway the policy reaches, and the registered entry's source must be
// usable — a Local source with its local path, a Remote one with a URL,
// a sha256 and a URL Envoy Gateway accepts (validateDynamicModuleRemoteURL).
// Every module's problem is reported (errors.Join). A Gateway with no
// EnvoyProxy of the input in effect (none named, or the one named
// missing: attachEnvoyProxy finds none in its map) has Envoy Gateway's
// default settings, whose default configuration registers no module
// (MergeEnvoyProxyConfigs with no default spec gives nil, and
// buildDynamicModules' registry is then empty).
func checkDynamicModules(p *policy.Policy, spec *egv1a1.EnvoyExtensionPolicySpec, m *model.Model) {
	if len(spec.DynamicModule) == 0 {
		return
	}
	for _, gs := range reachedGateways(p, m) {
		if !managedGateway(gs.gw, m) {
			continue // another controller's Gateway builds nothing of the policy
		}
		entries, known := registeredModules(gs.gw, m)
		if !known {
			continue
		}
		found := false
		for i, mod := range spec.DynamicModule {
			if msg := moduleProblem(mod.Name, entries); msg != "" {
				p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, fmt.Sprintf("spec.dynamicModule[%d].name", i), "DynamicModule: %s.", msg))
				found = true
			}
		}
		if found {
			return // one Gateway's verdict: the policy's findings are its own, not per Gateway
		}
	}
}

// moduleProblem is what buildDynamicModules finds wrong with the module
// named name, given the allowlist's entries; "" when it is usable.
func moduleProblem(name string, entries []egv1a1.DynamicModuleEntry) string {
	i := slices.IndexFunc(entries, func(e egv1a1.DynamicModuleEntry) bool { return e.Name == name })
	if i < 0 {
		return fmt.Sprintf("dynamic module %q is not registered in the EnvoyProxy dynamicModules allowlist", name)
	}
	src := entries[i].Source
	typ := egv1a1.LocalDynamicModuleSourceType
	if src.Type != nil {
		typ = *src.Type
	}
	switch typ {
	case egv1a1.RemoteDynamicModuleSourceType:
		r := src.Remote
		switch {
		case r == nil:
			return fmt.Sprintf("dynamic module %q has no remote source configured", name)
		case r.URL == "":
			return fmt.Sprintf("dynamic module %q has no remote source URL configured", name)
		case r.SHA256 == "":
			return fmt.Sprintf("dynamic module %q has no remote source SHA256 configured", name)
		}
		if err := remoteModuleURLProblem(r.URL); err != nil {
			return fmt.Sprintf("dynamic module %q has invalid remote source URL %q: %v", name, r.URL, err)
		}
	case egv1a1.LocalDynamicModuleSourceType:
		if src.Local == nil {
			return fmt.Sprintf("dynamic module %q has no local source configured", name)
		}
	default:
		return fmt.Sprintf("dynamic module %q has unsupported source type %q", name, typ)
	}
	return ""
}

// remoteModuleURLProblem is validateDynamicModuleRemoteURL: a request URI
// (url.ParseRequestURI), scheme http or https, with a host name and, when
// it has a port, a numeric one.
func remoteModuleURLProblem(raw string) error {
	u, err := url.ParseRequestURI(raw)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("unsupported URL scheme %q", u.Scheme)
	}
	if u.Hostname() == "" {
		return errors.New("URL must include a hostname")
	}
	if port := u.Port(); port != "" {
		if _, err := strconv.Atoi(port); err != nil {
			return fmt.Errorf("invalid URL port %q: %w", port, err)
		}
	}
	return nil
}

// registeredModules are the entries of gw's EnvoyProxy's dynamicModules
// allowlist, none when no EnvoyProxy of the input is in effect on gw;
// known is false when that EnvoyProxy's spec cannot be read.
func registeredModules(gw *model.Gateway, m *model.Model) (entries []egv1a1.DynamicModuleEntry, known bool) {
	o, ok := effectiveProxy(gw, m)
	if !ok {
		return nil, true
	}
	var d struct {
		DynamicModules []egv1a1.DynamicModuleEntry `json:"dynamicModules"`
	}
	if o.DecodeField("spec", &d) != nil {
		return nil, false
	}
	return d.DynamicModules, true
}

// managedGateway reports whether Envoy Gateway handles gw: its
// GatewayClass has Envoy Gateway's controllerName, or the input has no
// GatewayClass (as status reads it, statusRun.managed).
func managedGateway(gw *model.Gateway, m *model.Model) bool {
	if len(m.GatewayClasses) == 0 {
		return true
	}
	for _, c := range m.GatewayClasses {
		if c.Name == string(gw.Spec.GatewayClassName) {
			return string(c.Spec.ControllerName) == ControllerName
		}
	}
	return false
}
