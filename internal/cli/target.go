package cli

import (
	"slices"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// inferredTarget is the --target default: each Gateway then gets the
// target its GatewayClass's controller names (config render.target, when
// set, is the default instead).
const inferredTarget = "inferred"

// targetFlagHelp describes --target for render and lint.
const targetFlagHelp = "render target: envoy (upstream filters), kgateway (kgateway's build: adds transformation and acl), envoygateway (Envoy Gateway's data plane: upstream filters) or haptic (HAPTIC's route-policy features, WAF included); default: config render.target, else each Gateway's from its GatewayClass controller (kgateway.dev/kgateway: kgateway; gateway.envoyproxy.io/gatewayclass-controller: envoygateway; haproxy-haptic.org/controller: haptic), else envoy"

// targetChoices are the values --target accepts.
func targetChoices() []string {
	return append([]string{inferredTarget}, families.Registry().TargetNames()...)
}

// askedTarget is the target the flag names when given, else config
// render.target, else inferredTarget.
func askedTarget(flag string, changed bool, cfg *Config) string {
	if changed || cfg == nil || cfg.Render.Target == "" {
		return flag
	}
	return cfg.Render.Target
}

// targetGroup is the Gateways (NAMESPACE/NAME) that render with one target.
type targetGroup struct {
	target   string
	gateways []string
}

// targetGroups splits the Gateways to render (all when gateways is empty)
// by target: the one asked for, or, when none was, each Gateway's own —
// the target whose data plane its GatewayClass's controller is, envoy
// when the class is unknown or not in the input.
func targetGroups(asked string, c *pipeline.Compiled, gateways []string) []targetGroup {
	if asked != inferredTarget && asked != "" {
		return []targetGroup{{target: asked, gateways: gateways}}
	}
	controllers := map[string]string{}
	for _, gc := range c.Model.GatewayClasses {
		controllers[gc.Name] = string(gc.Spec.ControllerName)
	}
	byTarget := map[string][]string{}
	for _, gw := range c.Model.Gateways {
		name := gw.Namespace + "/" + gw.Name
		if len(gateways) > 0 && !slices.Contains(gateways, name) {
			continue
		}
		t := ""
		if ctl, ok := c.Result.Registry.Controller(controllers[string(gw.Spec.GatewayClassName)]); ok {
			t = ctl.RenderTarget
		}
		if t == "" {
			t = "envoy"
		}
		byTarget[t] = append(byTarget[t], name)
	}
	if len(byTarget) <= 1 {
		for t := range byTarget {
			return []targetGroup{{target: t, gateways: gateways}}
		}
		return []targetGroup{{target: "envoy", gateways: gateways}}
	}
	var out []targetGroup
	for _, t := range c.Result.Registry.TargetNames() {
		if gws := byTarget[t]; len(gws) > 0 {
			out = append(out, targetGroup{target: t, gateways: gws})
		}
	}
	return out
}

// renderPlatform renders the Gateways, each group with its target, into
// one output.
func renderPlatform(c *pipeline.Compiled, asked string, kgatewayKey bool, gateways []string) (*envoy.Output, error) {
	return renderPlatformWith(c, asked, kgatewayKey, gateways, nil)
}

// renderPlatformWith is renderPlatform handing each Gateway's resources
// to each (when not nil) instead of collecting them. Gateways of several
// render targets are rendered a target at a time, so each sees them in
// output order only when there is one target: with several it must not
// write them out (renderStreams says when it may).
func renderPlatformWith(c *pipeline.Compiled, asked string, kgatewayKey bool, gateways []string, each func(*envoy.Gateway) error) (*envoy.Output, error) {
	var outs []*envoy.Output
	for _, g := range targetGroups(asked, c, gateways) {
		out, err := renderCompiledWith(c, g.target, kgatewayKey, each, g.gateways...)
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
	}
	return envoy.Combine(outs...), nil
}

// renderStreams reports whether render can write the Gateways out as it
// builds them: one render target for all of them (see renderPlatformWith).
func renderStreams(c *pipeline.Compiled, asked string, gateways []string) bool {
	return len(targetGroups(asked, c, gateways)) == 1
}
