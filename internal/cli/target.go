package cli

import "github.com/gwpol/gwpol/internal/render/envoy"

// inferredTarget is the --target default: the target is then the one the
// rendered Gateways' GatewayClasses name.
const inferredTarget = "inferred"

// targetFlagHelp describes --target for render and lint.
const targetFlagHelp = "render target: envoy (upstream filters), kgateway (adds transformation and acl) or haptic (HAPTIC's route-policy features, WAF included); default: haptic when every Gateway's class is HAPTIC's controller, else envoy"

// targetChoices are the values --target accepts.
func targetChoices() []string { return append([]string{inferredTarget}, envoy.TargetNames()...) }

// targetFor is the target asked for, or, when none was, the one whose data
// plane the GatewayClasses of the Gateways rendered (all of them when
// gateways is empty) name. Mixed or unknown classes, and kgateway's (whose
// default rendering stays upstream Envoy), give envoy.
func targetFor(asked string, c *Compiled, gateways []string) string {
	if asked != inferredTarget && asked != "" {
		return asked
	}
	controllers := map[string]string{}
	for _, gc := range c.Model.GatewayClasses {
		controllers[gc.Name] = string(gc.Spec.ControllerName)
	}
	want := func(ns, name string) bool {
		if len(gateways) == 0 {
			return true
		}
		for _, g := range gateways {
			if g == ns+"/"+name {
				return true
			}
		}
		return false
	}
	target := ""
	for _, gw := range c.Model.Gateways {
		if !want(gw.Namespace, gw.Name) {
			continue
		}
		t := envoy.TargetForController(controllers[string(gw.Spec.GatewayClassName)])
		if t == "" || (target != "" && t != target) {
			return "envoy"
		}
		target = t
	}
	if target == "" {
		return "envoy"
	}
	return target
}
