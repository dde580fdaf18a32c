package wso2

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// The gateway-controller's API checks (gateway/gateway-controller/pkg/config/
// api_validator.go at the commit of ../shared/conformance/wso2: APIValidator,
// validateRestData and the functions it calls). A RestApi that fails one is
// refused whole, as the controller answers 400 to its deployment; each
// failure is GWP401 at its field with the controller's own message. A
// field holding a controller template is checked only as a template
// (specTemplates): the controller validates its rendered value.
var (
	// apiVersionPattern is the controller's versionRegex: v1, 1.0, v2.1.3.
	apiVersionPattern = regexp.MustCompile(`^v?\d+(\.\d+)?(\.\d+)?$`)
	// displayNamePattern is its urlFriendlyNameRegex.
	displayNamePattern = regexp.MustCompile(`^[a-zA-Z0-9\-_\. ]+$`)
)

// operationMethods are the methods validateOperations accepts (compared
// in capitals).
var operationMethods = map[string]bool{"GET": true, "POST": true, "PUT": true, "DELETE": true, "PATCH": true, "HEAD": true, "OPTIONS": true}

// upstreamTarget is spec.upstream.main / .sandbox: a URL or the name of an
// upstream definition.
type upstreamTarget struct {
	URL *string `json:"url"`
	Ref *string `json:"ref"`
}

// apiUpstreams is what the checks read of spec.upstream and
// spec.upstreamDefinitions.
type apiUpstreams struct {
	Upstream struct {
		Main    *upstreamTarget `json:"main"`
		Sandbox *upstreamTarget `json:"sandbox"`
	} `json:"upstream"`
	Definitions *[]struct {
		Name      string `json:"name"`
		Upstreams []struct {
			URL    string `json:"url"`
			Weight *int64 `json:"weight"`
		} `json:"upstreams"`
		Timeout *struct {
			Connect *string `json:"connect"`
		} `json:"timeout"`
	} `json:"upstreamDefinitions"`
}

// checkRestAPI makes the gateway-controller's checks of a RestApi's own
// fields (its policies are checked where they resolve): display name,
// version, context, upstream definitions, upstreams and operations, in the
// controller's order. An operation written in the match form (RestApi v1,
// after the controller version these checks come from) is left to its
// CRD.
func checkRestAPI(p *policy.Policy, spec RestAPISpec) {
	deferred := specTemplates(p)
	bad := func(field, format string, args ...any) {
		if deferred[field] {
			return // checked by the controller once rendered
		}
		p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, field, format, args...))
	}
	checkDisplayName(spec.DisplayName, "API display name", bad)
	checkSemanticVersion(string(spec.Version), "API version", bad)
	checkContext(spec.Context, bad)
	var ups apiUpstreams
	raw, err := json.Marshal(struct {
		Upstream    json.RawMessage `json:"upstream,omitempty"`
		Definitions json.RawMessage `json:"upstreamDefinitions,omitempty"`
	}{spec.Upstream, spec.UpstreamDefinitions})
	if err == nil && json.Unmarshal(raw, &ups) == nil {
		checkUpstreamDefinitions(ups, bad)
		main := ups.Upstream.Main
		if main == nil {
			main = &upstreamTarget{}
		}
		checkUpstream("main", main, ups, bad)
		if ups.Upstream.Sandbox != nil {
			checkUpstream("sandbox", ups.Upstream.Sandbox, ups, bad)
		}
	}
	checkOperations(spec.Operations, bad)
}

// checkDisplayName and checkSemanticVersion are the name and version checks the
// controller's RestApi and MCP validators both make, each naming the
// field its own way (what).
func checkDisplayName(name, what string, bad func(string, string, ...any)) {
	switch {
	case name == "":
		bad("spec.displayName", "%s is required", what)
	case len(name) > 100:
		bad("spec.displayName", "%s must be 1-100 characters", what)
	case !displayNamePattern.MatchString(name):
		bad("spec.displayName", "%s must be URL-friendly (only letters, numbers, spaces, hyphens, underscores, and dots allowed)", what)
	}
}

func checkSemanticVersion(v, what string, bad func(string, string, ...any)) {
	switch {
	case v == "":
		bad("spec.version", "%s is required", what)
	case !apiVersionPattern.MatchString(v):
		bad("spec.version", "%s must follow semantic versioning pattern (e.g., v1.0, v2.1.3)", what)
	}
}

func checkContext(c string, bad func(string, string, ...any)) {
	if c == "" {
		bad("spec.context", "Context is required")
		return
	}
	if !strings.HasPrefix(c, "/") {
		bad("spec.context", "Context must start with /")
	}
	if strings.HasSuffix(c, "/") && c != "/" {
		bad("spec.context", "Context cannot end with / (except for root context)")
	}
	if len(c) > 200 {
		bad("spec.context", "Context must be 1-200 characters")
	}
}

// checkURL is validateUpstreamUrl's test of a URL's form; "" when it
// passes.
func checkURL(u, prefix string) []string {
	parsed, err := url.Parse(u)
	if err != nil {
		return []string{fmt.Sprintf("Invalid URL format: %v", err)}
	}
	var out []string
	if parsed.Scheme != "http" && parsed.Scheme != "https" {
		out = append(out, prefix+" must use http or https scheme")
	}
	if parsed.Host == "" {
		out = append(out, prefix+" must include a host")
	}
	return out
}

func checkUpstream(label string, t *upstreamTarget, ups apiUpstreams, bad func(string, string, ...any)) {
	field := "spec.upstream." + label
	switch {
	case t.Ref != nil && t.URL != nil:
		bad(field, "Specify exactly one of 'url' or 'ref'")
		return
	case t.Ref == nil && t.URL == nil:
		bad(field, "Must specify either 'url' or 'ref'")
		return
	case t.URL != nil:
		if strings.TrimSpace(*t.URL) == "" {
			bad(field+".url", "Upstream URL is required")
			return
		}
		for _, m := range checkURL(*t.URL, "Upstream URL") {
			bad(field+".url", "%s", m)
		}
		return
	}
	ref := strings.TrimSpace(*t.Ref)
	switch {
	case ref == "":
		bad(field+".ref", "Upstream reference is required")
	case ups.Definitions == nil || len(*ups.Definitions) == 0:
		bad(field+".ref", "Referenced upstream definition '%s' not found: no upstreamDefinitions provided", ref)
	default:
		for _, d := range *ups.Definitions {
			if d.Name == ref {
				return
			}
		}
		bad(field+".ref", "Referenced upstream definition '%s' not found in upstreamDefinitions", ref)
	}
}

func checkUpstreamDefinitions(ups apiUpstreams, bad func(string, string, ...any)) {
	if ups.Definitions == nil {
		return
	}
	seen := map[string]bool{}
	for i, d := range *ups.Definitions {
		at := fmt.Sprintf("spec.upstreamDefinitions[%d]", i)
		if d.Name == "" {
			bad(at+".name", "Upstream definition name is required")
			continue
		}
		if seen[d.Name] {
			bad(at+".name", "Duplicate upstream definition name '%s'", d.Name)
			continue
		}
		seen[d.Name] = true
		if len(d.Upstreams) == 0 {
			bad(at+".upstreams", "At least one upstream target is required")
		}
		for j, u := range d.Upstreams {
			uat := fmt.Sprintf("%s.upstreams[%d]", at, j)
			if u.URL == "" {
				bad(uat+".url", "URL is required")
				continue
			}
			for _, m := range checkURL(u.URL, "URL") {
				bad(uat+".url", "%s", m)
			}
			if u.Weight != nil && (*u.Weight < 0 || *u.Weight > 100) {
				bad(uat+".weight", "Weight must be between 0 and 100")
			}
		}
		if d.Timeout != nil && d.Timeout.Connect != nil {
			if s := strings.TrimSpace(*d.Timeout.Connect); s != "" {
				if _, err := time.ParseDuration(s); err != nil {
					bad(at+".timeout.connect", "Invalid timeout format: %v (expected format: '30s', '1m', '500ms')", err)
				}
			}
		}
	}
}

func checkOperations(ops []Operation, bad func(string, string, ...any)) {
	if len(ops) == 0 {
		bad("spec.operations", "At least one operation is required")
		return
	}
	for i, op := range ops {
		if op.Match != nil {
			continue
		}
		at := fmt.Sprintf("spec.operations[%d]", i)
		switch {
		case op.Method == "":
			bad(at+".method", "HTTP method is required")
		case !operationMethods[strings.ToUpper(op.Method)]:
			bad(at+".method", "Invalid HTTP method '%s' (must be GET, POST, PUT, DELETE, PATCH, HEAD, or OPTIONS)", op.Method)
		}
		if op.Path == "" {
			bad(at+".path", "Operation path is required")
			continue
		}
		if !strings.HasPrefix(op.Path, "/") {
			bad(at+".path", "Operation path must start with /")
		}
		if strings.Count(op.Path, "{") != strings.Count(op.Path, "}") {
			bad(at+".path", "Operation path has unbalanced braces in parameters")
		}
	}
}
