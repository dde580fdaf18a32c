package wso2

import (
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// The gateway-controller's checks of an Mcp proxy's own fields
// (gateway/gateway-controller/pkg/config/mcp_validator.go at the commit of
// ../shared/conformance/wso2: validateMCPConfiguration → validateSpec,
// validateContextAndVhost, validateUpstream, validateSupportedSpecVersion).
// An Mcp that fails one is refused whole, as a RestApi is; each failure is
// GWP401 at its field with the controller's own message. Its policy
// references are checked where they resolve, like a RestApi's. Only a
// v1alpha1 Mcp is checked: that is the version the validator reads.

// mcpSpecVersions are the MCP specification versions the controller
// serves (constants.SPEC_VERSION_2025_JUNE and _NOVEMBER).
var mcpSpecVersions = []string{"2025-06-18", "2025-11-25"}

// mcpSpec is what the checks read of an Mcp's spec.
type mcpSpec struct {
	DisplayName string  `json:"displayName"`
	Version     string  `json:"version"`
	SpecVersion *string `json:"specVersion"`
	Context     *string `json:"context"`
	Vhost       *string `json:"vhost"`
	Upstream    struct {
		URL  *string `json:"url"`
		Auth *struct {
			Type   string  `json:"type"`
			Header *string `json:"header"`
			Value  *string `json:"value"`
		} `json:"auth"`
	} `json:"upstream"`
}

// checkMcp makes the controller's checks of an Mcp's own fields, in its
// order.
func checkMcp(p *policy.Policy) {
	var spec mcpSpec
	if err := p.Obj.DecodeField("spec", &spec); err != nil {
		// The controller cannot read it either, and refuses it.
		p.ReportDecodeErrors([]error{err})
		return
	}
	deferred := specTemplates(p)
	bad := func(field, format string, args ...any) {
		if deferred[field] {
			return // checked by the controller once rendered
		}
		p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, field, format, args...))
	}
	checkDisplayName(spec.DisplayName, "MCP proxy displayName", bad)
	checkSemanticVersion(spec.Version, "Version", bad)
	if v := spec.SpecVersion; v != nil && !slices.Contains(mcpSpecVersions, *v) {
		bad("spec.specVersion", "Unsupported MCP spec version (supported versions: %s)", strings.Join(mcpSpecVersions, ", "))
	}
	checkMcpContext(spec.Context, spec.Vhost, bad)
	checkMcpUpstream(spec, bad)
}

// checkMcpContext: a context, when given, is a RestApi's context but
// optional; without one the proxy needs a vhost.
func checkMcpContext(context, vhost *string, bad func(string, string, ...any)) {
	if context == nil || *context == "" {
		if vhost == nil || *vhost == "" {
			bad("spec.vhost", "Vhost is required when context is not specified")
		}
		return
	}
	checkContext(*context, bad)
}

// checkMcpUpstream: the upstream needs a URL (a ref alone does not do:
// the controller reads only url), of http or https with a host, and an
// auth, when given, needs its type, header and value — a bearer value
// starting "Bearer " or "bearer ".
func checkMcpUpstream(spec mcpSpec, bad func(string, string, ...any)) {
	up := spec.Upstream
	if up.URL == nil || *up.URL == "" {
		bad("spec.upstream.url", "Upstream URL is required")
		return
	}
	for _, msg := range checkURL(*up.URL, "Upstream URL") {
		bad("spec.upstream.url", "%s", msg)
		if strings.HasPrefix(msg, "Invalid URL format") {
			return
		}
	}
	a := up.Auth
	if a == nil {
		return
	}
	if a.Type == "" {
		bad("spec.upstream.auth.type", "Auth type is required")
	}
	if a.Header == nil || *a.Header == "" {
		bad("spec.upstream.auth.header", "Auth header is required")
	}
	if a.Value == nil || *a.Value == "" {
		bad("spec.upstream.auth.value", "Auth value is required")
	}
	if a.Type == "bearer" && a.Value != nil && !strings.HasPrefix(*a.Value, "Bearer ") && !strings.HasPrefix(*a.Value, "bearer ") {
		bad("spec.upstream.auth.value", "Bearer token value must start with 'Bearer ' or 'bearer '")
	}
}
