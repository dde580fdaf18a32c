package wso2

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policyversion"
)

// empty stands in for missing definitions: references still get the
// version-form check (GWP501), and the "no definition" answer is dropped.
var empty = policyversion.NewDefinitions()

// check resolves one reference and returns the findings about it, placed
// with pos (a field path → position function for the object or file the
// reference is in). invalid are what make the gateway-controller reject
// the object (GWP501, GWP502, GWP503, GWP506); findings are what it
// accepts but the runtime or an operator should hear about (GWP504 drift,
// GWP505 missing from the engine, which fails at runtime).
func (ks *Kinds) check(r *Reference, obj diag.ObjectRef, pos func(string) diag.Position) (invalid, findings []diag.Diagnostic) {
	at := func(p policyversion.Problem, field string) diag.Diagnostic {
		r.Problems = append(r.Problems, p.Code)
		return p.Diagnostic(obj, field, pos(field))
	}
	verField := r.Path + ".version"
	if strings.TrimSpace(r.Name) == "" {
		invalid = append(invalid, diag.Diagnostic{Code: policy.LintPolicyInvalid.Code, Severity: diag.Error, Object: obj, Field: r.Path + ".name", Pos: pos(r.Path + ".name"),
			Message: "a policy reference needs a name (the policy definition's name, e.g. api-key-auth)"})
		r.Problems = append(r.Problems, policy.LintPolicyInvalid.Code)
		return invalid, nil
	}
	if field, tmpl := templatedRef(r); tmpl != "" && obj.Kind != KindAPIPolicy {
		// The gateway-controller renders the whole spec, the references'
		// names and versions too, before it resolves them
		// (api_deployment.go: DeployAPIConfiguration → RenderSpec, then
		// Validate): what this reference resolves to is known only at
		// deploy time. An APIPolicy's CRD allows no template there
		// (version ^v\d+$), so its references resolve as written.
		r.DefinitionsLoaded = ks.Definitions != nil
		r.Resolution = policyversion.Resolution{Name: r.Name, Ref: r.Version}
		findings = append(findings, at(policyversion.Problem{Code: policyversion.LintParamDeferred.Code, Severity: diag.Info,
			Message: fmt.Sprintf("policy reference %s is a gateway-controller template (%s), rendered at deploy time before the controller resolves it; gwpol does not resolve it, nor check its params", field, tmpl),
			Hint:    "write the name and a major-only version (vN) to have the reference resolved and its params checked before a rollout"}, r.Path+"."+field))
		r.Problems = slices.Compact(r.Problems)
		return invalid, findings
	}
	defs := ks.Definitions
	r.DefinitionsLoaded = defs != nil
	if defs == nil {
		defs = empty
	}
	r.Resolution = defs.Resolve(r.Name, r.Version)
	if p := r.Resolution.Problem; p != nil && (r.DefinitionsLoaded || p.Code == policyversion.LintVersionNotMajor.Code) {
		invalid = append(invalid, at(*p, verField))
	}
	if n := r.Resolution.Note; n != nil && r.DefinitionsLoaded {
		findings = append(findings, at(*n, verField))
	}
	// The engine only ever sees what the controller accepted: with
	// definitions loaded, a reference they do not resolve is rejected
	// before the engine could miss it.
	if r.Resolution.Major != "" && (!r.DefinitionsLoaded || r.Resolution.OK()) {
		r.Engine = ks.Engine.Check(r.Name, r.Resolution.Major, r.Resolution.Definition)
		if p := r.Engine.Problem; p != nil {
			findings = append(findings, at(*p, verField))
		}
	}
	if def := r.Resolution.Definition; def != nil {
		inv, fs := checkParams(r, def, at)
		invalid, findings = append(invalid, inv...), append(findings, fs...)
	}
	r.Problems = slices.Compact(r.Problems)
	return invalid, findings
}

// templatedRef names the first of a reference's name and version that
// holds a controller template which parses (one that does not parse
// refuses the API, see specTemplates), and the template; "" when neither
// does.
func templatedRef(r *Reference) (field, tmpl string) {
	for _, f := range []struct{ field, value string }{{"name", r.Name}, {"version", r.Version}} {
		if strings.Contains(f.value, "{{") && policyversion.TemplateProblem(f.value) == "" {
			return f.field, f.value
		}
	}
	return "", ""
}

// checkParams checks r's params against the definition it resolved to:
// the controller refuses a reference whose definition's schema it cannot
// compile, and checks the others' params against the schema.
func checkParams(r *Reference, def *policyversion.Definition, at func(policyversion.Problem, string) diag.Diagnostic) (invalid, findings []diag.Diagnostic) {
	if p := def.UncheckableProblem(); p != nil {
		return []diag.Diagnostic{at(*p, r.paramsPath())}, nil
	}
	errs, deferred := def.CheckParams(r.Params)
	for _, e := range errs {
		invalid = append(invalid, at(e.Problem(def), paramField(r.paramsPath(), e.Field())))
	}
	for _, d := range deferred {
		findings = append(findings, at(d.Problem(def), paramField(r.paramsPath(), d.Field())))
	}
	return invalid, findings
}

// paramField is the field path of a param inside the params at base.
func paramField(base, param string) string {
	if param == "" {
		return base
	}
	return base + "." + param
}

// reference builds and checks one reference of a policy object, adding
// its findings to the policy.
func (ks *Kinds) reference(p *policy.Policy, path string, pr PolicyRef) *Reference {
	r := &Reference{Name: pr.Name, Version: string(pr.Version), ExecutionCondition: pr.ExecutionCondition, Path: path}
	if len(pr.Params) > 0 && string(pr.Params) != "null" {
		r.Params = pr.Params
	}
	r.Pos = p.Obj.FieldPos(path + ".version")
	invalid, findings := ks.check(r, p.Ref(), p.Obj.FieldPos)
	if strings.TrimSpace(r.Version) == "" {
		invalid, findings = versionRequired(p, r, invalid, findings)
	}
	p.Invalid = append(p.Invalid, invalid...)
	p.Findings = append(p.Findings, findings...)
	return r
}

// versionRequired adjusts the findings about a reference without a
// version to the object it is in. The gateway-controller resolves it to
// the latest definition (GWP508) — that is how a RestApi sent to its REST
// API is read — but the operator's CRDs require version (pattern ^v\d+$)
// and the operator rejects an APIPolicy entry without one ("name and
// version are required"), so in an APIPolicy it is an error.
func versionRequired(p *policy.Policy, r *Reference, invalid, findings []diag.Diagnostic) ([]diag.Diagnostic, []diag.Diagnostic) {
	if p.Obj.Kind != KindAPIPolicy {
		for i, d := range findings {
			if d.Code == policyversion.LintVersionDefaulted.Code {
				findings[i].Message += "; applied as a Kubernetes object, the RestApi CRD requires version (the API server rejects it without one)"
			}
		}
		return invalid, findings
	}
	findings = slices.DeleteFunc(findings, func(d diag.Diagnostic) bool { return d.Code == policyversion.LintVersionDefaulted.Code })
	r.Problems = slices.DeleteFunc(r.Problems, func(c string) bool { return c == policyversion.LintVersionDefaulted.Code })
	hint := "set version: vN, the major of the definition to use"
	if r.Resolution.Major != "" {
		hint = "set version: " + r.Resolution.Major + " (the latest definition's major)"
	}
	problem := policyversion.Problem{Code: policyversion.LintVersionNotMajor.Code, Severity: diag.Error, Hint: hint,
		Message: fmt.Sprintf("policy %s has no version; the APIPolicy CRD requires one (^v\\d+$) and the gateway operator rejects the entry (\"name and version are required\")", r.Name)}
	r.Problems = slices.Compact(slices.Sorted(slices.Values(append(r.Problems, policyversion.LintVersionNotMajor.Code))))
	return append(invalid, problem.Diagnostic(p.Ref(), r.Path+".version", r.Pos)), findings
}

// ConfigKeySystemPolicies is the config key (under wso2:) of the system
// policies every chain starts with.
const ConfigKeySystemPolicies = "systemPolicies"

// configValue looks a wso2.<key> setting up case-insensitively (viper
// lower-cases keys).
func configValue(cfg policy.Config, key string) (any, bool) {
	want := "wso2." + key
	for k, v := range cfg.Values {
		if strings.EqualFold(k, want) {
			return v, true
		}
	}
	return nil, false
}

// SystemPolicy is one configured system policy.
type SystemPolicy struct {
	Name, Version string
	Params        json.RawMessage
}

// SystemPolicies reads config wso2.systemPolicies: a list of {name,
// version, params}. The error names the entry that does not fit.
func SystemPolicies(cfg policy.Config) ([]SystemPolicy, error) {
	v, ok := configValue(cfg, ConfigKeySystemPolicies)
	if !ok || v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("wso2.%s must be a list of {name, version, params}", ConfigKeySystemPolicies)
	}
	var out []SystemPolicy
	for i, it := range list {
		m, ok := stringMap(it)
		if !ok {
			return nil, fmt.Errorf("wso2.%s[%d] must be a mapping {name, version, params}", ConfigKeySystemPolicies, i)
		}
		sp := SystemPolicy{}
		for k, v := range m {
			switch strings.ToLower(k) {
			case "name":
				s, ok := v.(string)
				if !ok {
					return nil, fmt.Errorf("wso2.%s[%d].name must be a string", ConfigKeySystemPolicies, i)
				}
				sp.Name = s
			case "version":
				if v != nil {
					sp.Version = fmt.Sprint(v)
				}
			case "params":
				b, err := json.Marshal(jsonable(v))
				if err != nil {
					return nil, fmt.Errorf("wso2.%s[%d].params: %v", ConfigKeySystemPolicies, i, err)
				}
				sp.Params = b
			default:
				return nil, fmt.Errorf("wso2.%s[%d]: unknown key %q (want name, version, params)", ConfigKeySystemPolicies, i, k)
			}
		}
		if sp.Name == "" {
			return nil, fmt.Errorf("wso2.%s[%d] needs a name", ConfigKeySystemPolicies, i)
		}
		out = append(out, sp)
	}
	return out, nil
}

func stringMap(v any) (map[string]any, bool) {
	switch m := v.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[fmt.Sprint(k)] = e
		}
		return out, true
	}
	return nil, false
}

// jsonable turns map[any]any (from some YAML decoders) into map[string]any.
func jsonable(v any) any {
	switch t := v.(type) {
	case map[any]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = jsonable(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = jsonable(e)
		}
		return out
	}
	return v
}

// analyticsPath is where the analytics system policy is configured.
const analyticsPath = "wso2." + ConfigKeyAnalytics

// analyticsReference is the analytics system policy as the
// gateway-controller injects it when analytics is on: its name and
// version, and allow_payloads from analytics.allowPayloads
// (InjectSystemPolicies).
func analyticsReference(set Settings) *Reference {
	params, _ := json.Marshal(map[string]any{"allow_payloads": set.AllowPayloads})
	return &Reference{Name: AnalyticsPolicyName, Version: AnalyticsPolicyVersion, Params: params, Path: analyticsPath}
}

// System resolves the system policies, the start of every chain: the
// analytics policy when wso2.analytics.enabled is on, as the
// gateway-controller injects it, then the configured systemPolicies. pos places findings (the config file's field paths, e.g.
// wso2.systemPolicies[0].version); nil places them nowhere. A malformed
// setting is reported by SystemPolicies; here it yields no chain.
func (ks *Kinds) System(cfg policy.Config, pos func(string) diag.Position) (*Chain, []diag.Diagnostic) {
	sps, err := SystemPolicies(cfg)
	if err != nil {
		return nil, nil
	}
	var refs []*Reference
	if set, err := ParseSettings(cfg); err == nil && set.Analytics {
		refs = append(refs, analyticsReference(set))
	}
	for i, sp := range sps {
		refs = append(refs, &Reference{Name: sp.Name, Version: sp.Version, Params: sp.Params, Path: fmt.Sprintf("wso2.%s[%d]", ConfigKeySystemPolicies, i)})
	}
	if len(refs) == 0 {
		return nil, nil
	}
	if pos == nil {
		pos = func(string) diag.Position { return diag.Position{} }
	}
	ch := &Chain{Level: LevelSystem, Source: SourceConfig}
	var diags []diag.Diagnostic
	for _, r := range refs {
		if r.Path == analyticsPath {
			r.Pos = pos(r.Path + ".enabled")
		} else {
			r.Pos = pos(r.Path + ".version")
		}
		invalid, findings := ks.check(r, diag.ObjectRef{}, pos)
		diags = append(append(diags, invalid...), findings...)
		ch.Refs = append(ch.Refs, r)
	}
	return ch, diag.Sort(diags)
}
