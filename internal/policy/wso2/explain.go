package wso2

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policyversion"
	"github.com/gwpol/gwpol/internal/topology"
)

// This file is the kinds' part of explain: the chain the policy engine
// runs for a route rule (a note on explain's rule view), and explain
// restapi/NS/NAME, a view of its own of a RestApi's operations.

// The kinds' explain hooks are asserted with the others (kind.go,
// apikinds.go); this is the view they return.
var _ policy.ObjectView = (*RestAPIView)(nil)

// Found is what a compile found for these kinds beyond their policies,
// which explain shows: the pipeline records it once, after merging.
type Found struct {
	// System is the chain of config wso2.systemPolicies, positioned in the
	// config file (nil: none configured).
	System *Chain
	// DefinitionsDir and EngineFile name the policy definitions and the
	// engine build that were loaded ("" when not given).
	DefinitionsDir, EngineFile string
}

// SetFound records what the compile found (see Found).
func (ks *Kinds) SetFound(f Found) { ks.found = f }

// RuleChain is the chain the policy engine runs for a route rule: system
// policies, then the APIPolicies targeting the route (API level), then
// those the rule references (rule level, in filter order) — the operator
// at the pinned commit adds none of its own; own returns the rule's merged
// values of a field (as for policy.RuleNoter). Nil when no APIPolicy
// applies to the rule.
func (k *APIPolicyKind) RuleChain(rule *topology.Rule, own func(string) []any) []Entry {
	chains := ChainsOf(own(FieldChain))
	if len(chains) == 0 {
		return nil
	}
	return Effective(append([]*Chain{k.ks.found.System}, chains...)...)
}

// RuleNotes implements policy.RuleNoter: the rule's chain (RuleChain),
// one line per entry.
func (k *APIPolicyKind) RuleNotes(rule *topology.Rule, own func(string) []any) []string {
	ops := k.ks.operationNotes(rule)
	chain := k.RuleChain(rule, own)
	if len(chain) == 0 {
		return ops
	}
	out := append(ops, fmt.Sprintf("WSO2 policy chain (%d, in execution order):", len(chain)))
	for i, e := range chain {
		line := fmt.Sprintf("%d. %s → definition %s, engine %s [%s, %s]", i+1, e.Identity,
			orNone(e.Definition, "-"), orNone(e.Engine, "-"), e.Level, shortSource(e.Source))
		if e.ListedBy != "" {
			line += " (runs where " + shortSource(e.ListedBy) + " " + e.ListedAt + " is listed)"
		}
		if len(e.Problems) > 0 {
			line += " " + strings.Join(e.Problems, " ")
		}
		out = append(out, line)
	}
	return out
}

// RestAPIView is `gwpol explain restapi/NS/NAME`: per operation, the
// chain the policy engine runs (system policies, then API level, then
// operation level), each entry with its name:vN identity and the full
// version it resolves to in the controller's policy definitions and in
// the engine build. -o json writes it as it is.
type RestAPIView struct {
	RestAPI struct {
		Group       string `json:"group"`
		Kind        string `json:"kind"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		DisplayName string `json:"displayName,omitempty"`
		Version     string `json:"version,omitempty"`
		Context     string `json:"context,omitempty"`
		Upstream    string `json:"upstream,omitempty"`
	} `json:"restApi"`
	// Accepted is false when the gateway-controller would reject the API
	// (Problems say why).
	Accepted bool     `json:"accepted"`
	Problems []string `json:"problems,omitempty"`
	// Definitions and EngineManifest are what versions resolved against;
	// empty when not given (that side is then not checked).
	Definitions    string          `json:"definitions,omitempty"`
	EngineManifest string          `json:"engineManifest,omitempty"`
	Operations     []OperationView `json:"operations"`
}

// OperationView is one operation of a RestApi and its chain.
type OperationView struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// PathType and Headers are set for an operation in the match form.
	PathType string   `json:"pathType,omitempty"`
	Headers  []string `json:"headers,omitempty"`
	Chain    []Entry  `json:"chain"`
}

// heading is the operation's title line: METHOD PATH, with the match
// form's path type and header matches when it has them.
func (op OperationView) heading() string {
	h := strings.TrimSpace(orNone(op.Method, "(any method)") + " " + orNone(op.Path, "(no path)"))
	if op.PathType != "" {
		h += " (" + op.PathType + ")"
	}
	if len(op.Headers) > 0 {
		h += " [headers " + strings.Join(op.Headers, ", ") + "]"
	}
	return h
}

// ExplainObject implements policy.ObjectExplainer: the chains of a
// RestApi; with showValues each entry carries its params as written.
func (k *RestAPIKind) ExplainObject(p *policy.Policy, showValues bool) (policy.ObjectView, error) {
	api, ok := RestAPIOf(p)
	if !ok {
		var ms []string
		for _, d := range p.Invalid {
			ms = append(ms, d.Message)
		}
		return nil, diag.Errorf(diag.Invalid, "RestApi %s/%s cannot be read: %s", p.Obj.Namespace, p.Obj.Name, strings.Join(ms, "; "))
	}
	v := &RestAPIView{Accepted: p.IsValid(), Operations: []OperationView{}}
	r := &v.RestAPI
	r.Group, r.Kind, r.Namespace, r.Name = Group, KindRestAPI, p.Obj.Namespace, p.Obj.Name
	r.DisplayName, r.Version, r.Context, r.Upstream = api.Spec.DisplayName, string(api.Spec.Version), api.Spec.Context, api.Upstream
	for _, d := range p.Invalid {
		v.Problems = append(v.Problems, d.Code+" "+d.Field+": "+d.Message)
	}
	v.Definitions, v.EngineManifest = k.ks.found.DefinitionsDir, k.ks.found.EngineFile
	for _, op := range api.Operations {
		chain := Effective(k.ks.found.System, api.API, op.Chain)
		for i := range chain {
			if showValues && len(chain[i].Params) > 0 {
				chain[i].Params = json.RawMessage(compactJSON(chain[i].Params)) // keys sorted
			} else {
				chain[i].Params = nil
			}
		}
		v.Operations = append(v.Operations, OperationView{Method: op.Method, Path: op.Path, PathType: op.PathType, Headers: op.Headers, Chain: chain})
	}
	return v, nil
}

// Text implements policy.ObjectView.
func (v *RestAPIView) Text(width int, table policy.TableLayout) string {
	var b strings.Builder
	r := v.RestAPI
	fmt.Fprintf(&b, "RestApi %s/%s", r.Namespace, r.Name)
	if r.DisplayName != "" {
		fmt.Fprintf(&b, " %q", r.DisplayName)
	}
	if r.Version != "" {
		fmt.Fprintf(&b, " %s", r.Version)
	}
	if r.Context != "" {
		fmt.Fprintf(&b, ", context %s", r.Context)
	}
	if r.Upstream != "" {
		fmt.Fprintf(&b, " → %s", r.Upstream)
	}
	b.WriteByte('\n')
	fmt.Fprintf(&b, "  definitions: %s; engine build: %s\n", orNone(v.Definitions, "not given (--policy-definitions)"), orNone(v.EngineManifest, "not given (--engine-manifest)"))
	if !v.Accepted {
		fmt.Fprintf(&b, "  the gateway-controller rejects this RestApi (%d problem(s); see gwpol lint)\n", len(v.Problems))
	}
	if len(v.Operations) == 0 {
		b.WriteString("  no operations\n")
	}
	for _, op := range v.Operations {
		fmt.Fprintf(&b, "\n%s\n", op.heading())
		if len(op.Chain) == 0 {
			b.WriteString("  empty chain\n")
		} else {
			b.WriteString(table(chainHeaders, chainRows(op.Chain, v.Definitions != "", v.EngineManifest != ""), width))
		}
		b.WriteByte('\n')
		for i, e := range op.Chain {
			if len(e.Params) > 0 {
				fmt.Fprintf(&b, "  %d. %s params: %s\n", i+1, e.Identity, compactJSON(e.Params))
			}
		}
	}
	return b.String()
}

// chainHeaders are the chain table's columns.
var chainHeaders = []string{"#", "POLICY", "DEFINITION", "ENGINE", "LEVEL", "SOURCE", "PROBLEMS"}

// chainRows are the chain table's cells: one row per policy, in execution
// order.
func chainRows(chain []Entry, defs, engine bool) [][]string {
	var rows [][]string
	for i, e := range chain {
		def, eng := e.Definition, e.Engine
		switch {
		case !defs:
			def = "-"
		case def == "":
			def = "unresolved"
		}
		switch {
		case !engine:
			eng = "-"
		case eng != "":
		case slices.Contains(e.Problems, policyversion.LintEngineMissingMajor.Code):
			eng = "missing"
		default:
			eng = "-" // not checked: the controller rejects the reference first
		}
		problems := strings.Join(e.Problems, " ")
		if problems == "" {
			problems = "-"
		}
		rows = append(rows, []string{fmt.Sprint(i + 1), e.Identity, def, eng, string(e.Level), shortSource(e.Source), problems})
	}
	return rows
}

// ServedBy implements policy.Standalone.
func (*RestAPIKind) ServedBy() string { return servedBy }

// ServedBy implements policy.Standalone.
func (*APIKind) ServedBy() string { return servedBy }

const servedBy = "APIs the WSO2 gateway-controller serves itself, not Gateway API resources; `gwpol lint` checks their policy references and `gwpol explain restapi/NS/NAME` shows a RestApi's chains"

// compactJSON is params on one line, keys sorted (deterministic whatever
// order they were written in).
func compactJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// shortSource drops the API group from a policy ID for a table cell
// (APIPolicy/ns/name); "config" and "operator" stay as they are.
func shortSource(id string) string {
	if i := strings.Index(id, "/"); i >= 0 && strings.Contains(id[:i], ".") {
		return id[i+1:]
	}
	return id
}
