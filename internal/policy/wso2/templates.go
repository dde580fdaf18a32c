package wso2

import (
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policyversion"
	yaml "go.yaml.in/yaml/v3"
)

// specTemplates follows what the gateway-controller does to an API's spec
// before it validates it: every string of the spec that contains "{{" is
// rendered as a Go template with the controller's functions
// (pkg/templateengine/spec.go: renderSpec → renderValue, called by
// pkg/utils/api_deployment.go: DeployAPIConfiguration and
// mcp_deployment.go: parseValidateAndTransform before Validate, at the
// commit of ../shared/conformance/wso2). A template that does not parse
// fails the render, and the controller refuses the API before any other
// check: GWP401 at the field. One that parses yields a value known only at deploy time (env,
// secrets), and the validator checks that value, not the template text:
// specTemplates returns the fields holding a template of either kind,
// whose own checks gwpol does not make.
// Policy params are left to policyversion, which checks them against the
// definition's schema (GWP509, GWP506).
func specTemplates(p *policy.Policy) map[string]bool {
	deferred := map[string]bool{}
	var walk func(n *yaml.Node, path string, inRef bool)
	walk = func(n *yaml.Node, path string, inRef bool) {
		n = manifest.Resolve(n)
		if n == nil {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := manifest.Resolve(n.Content[i]).Value
				if inRef && k == "params" {
					continue
				}
				walk(n.Content[i+1], path+"."+k, false)
			}
		case yaml.SequenceNode:
			refs := strings.HasSuffix(path, ".policies")
			for i, c := range n.Content {
				walk(c, path+"["+strconv.Itoa(i)+"]", refs)
			}
		case yaml.ScalarNode:
			if n.ShortTag() != "!!str" || !strings.Contains(n.Value, "{{") {
				return
			}
			if problem := policyversion.TemplateProblem(n.Value); problem != "" {
				d := p.Diag(policy.LintPolicyInvalid.Code, diag.Error, path, "%s", problem)
				p.Invalid = append(p.Invalid, d)
			}
			// Either way the value as written is not what the validator
			// sees: the render fails first, or it yields another string.
			deferred[path] = true
		}
	}
	walk(p.Obj.Lookup("spec"), "spec", false)
	return deferred
}
