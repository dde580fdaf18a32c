package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/wso2"
	"github.com/gwpol/gwpol/internal/policyversion"
	"github.com/gwpol/gwpol/internal/topology"
)

// restAPIExplain is `gwpol explain restapi/NS/NAME -o json`: per
// operation, the chain the policy engine runs (system policies, then API
// level, then operation level), each entry with its name:vN identity and
// the full version it resolves to in the controller's policy definitions
// and in the engine build.
type restAPIExplain struct {
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
	Definitions    string               `json:"definitions,omitempty"`
	EngineManifest string               `json:"engineManifest,omitempty"`
	Operations     []restAPIOperationEx `json:"operations"`
}

type restAPIOperationEx struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// PathType and Headers are set for an operation in the match form.
	PathType string       `json:"pathType,omitempty"`
	Headers  []string     `json:"headers,omitempty"`
	Chain    []wso2.Entry `json:"chain"`
}

// heading is the operation's title line: METHOD PATH, with the match
// form's path type and header matches when it has them.
func (op restAPIOperationEx) heading() string {
	h := strings.TrimSpace(orNone(op.Method, "(any method)") + " " + orNone(op.Path, "(no path)"))
	if op.PathType != "" {
		h += " (" + op.PathType + ")"
	}
	if len(op.Headers) > 0 {
		h += " [headers " + strings.Join(op.Headers, ", ") + "]"
	}
	return h
}

// explainRestAPI writes the chains of RestApi ns/name in format text or
// json; with showValues each entry carries its params as written.
func explainRestAPI(c *pipeline.Compiled, ns, name string, w io.Writer, format string, showValues bool, width int) error {
	if c.WSO2 == nil || c.Versions == nil { // not from CompileWith
		return diag.Errorf(diag.Internal, "explain restapi: the input was compiled without the WSO2 kinds")
	}
	key := model.Key{Group: wso2.Group, Kind: wso2.KindRestAPI, Namespace: ns, Name: name}
	p := c.Policies.Get(key)
	api, ok := wso2.RestAPIOf(p)
	if !ok {
		if p != nil {
			return diag.Errorf(diag.Invalid, "RestApi %s/%s cannot be read: %s", ns, name, diagMessages(p.Invalid))
		}
		var names []string
		for _, q := range c.Policies.Policies {
			if q.Kind == policy.Kind(c.WSO2.RestAPI()) {
				names = append(names, q.Obj.Namespace+"/"+q.Obj.Name)
			}
		}
		msg := fmt.Sprintf("RestApi %s/%s not found", ns, name)
		if best := closest(ns+"/"+name, names); best != "" {
			msg += fmt.Sprintf("; did you mean %q?", best)
		}
		return diag.Errorf(diag.NotFound, "%s", msg)
	}
	rep := restAPIExplain{Accepted: p.IsValid(), Operations: []restAPIOperationEx{}}
	r := &rep.RestAPI
	r.Group, r.Kind, r.Namespace, r.Name = wso2.Group, wso2.KindRestAPI, ns, name
	r.DisplayName, r.Version, r.Context, r.Upstream = api.Spec.DisplayName, string(api.Spec.Version), api.Spec.Context, api.Upstream
	for _, d := range p.Invalid {
		rep.Problems = append(rep.Problems, d.Code+" "+d.Field+": "+d.Message)
	}
	if c.Versions.Definitions != nil {
		rep.Definitions = c.Versions.DefinitionsDir
	}
	if c.Versions.Engine != nil {
		rep.EngineManifest = c.Versions.EngineFile
	}
	sys, _ := c.WSO2.System(c.Config.PolicyConfig(), c.Versions.ConfigPos(c.Config))
	for _, op := range api.Operations {
		chain := wso2.Effective(sys, api.API, op.Chain)
		for i := range chain {
			if showValues && len(chain[i].Params) > 0 {
				chain[i].Params = json.RawMessage(compactJSON(chain[i].Params)) // keys sorted
			} else {
				chain[i].Params = nil
			}
		}
		rep.Operations = append(rep.Operations, restAPIOperationEx{Method: op.Method, Path: op.Path, PathType: op.PathType, Headers: op.Headers, Chain: chain})
	}
	if format == "json" {
		data, err := encode("json", rep)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	_, err := io.WriteString(w, restAPIText(&rep, width))
	return err
}

func diagMessages(ds []diag.Diagnostic) string {
	var ms []string
	for _, d := range ds {
		ms = append(ms, d.Message)
	}
	return strings.Join(ms, "; ")
}

func restAPIText(rep *restAPIExplain, width int) string {
	var b strings.Builder
	r := rep.RestAPI
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
	fmt.Fprintf(&b, "  definitions: %s; engine build: %s\n", orNone(rep.Definitions, "not given (--policy-definitions)"), orNone(rep.EngineManifest, "not given (--engine-manifest)"))
	if !rep.Accepted {
		fmt.Fprintf(&b, "  the gateway-controller rejects this RestApi (%d problem(s); see gwpol lint)\n", len(rep.Problems))
	}
	if len(rep.Operations) == 0 {
		b.WriteString("  no operations\n")
	}
	for _, op := range rep.Operations {
		fmt.Fprintf(&b, "\n%s\n", op.heading())
		b.WriteString(chainTable(op.Chain, rep.Definitions != "", rep.EngineManifest != "", width))
		b.WriteByte('\n')
		for i, e := range op.Chain {
			if len(e.Params) > 0 {
				fmt.Fprintf(&b, "  %d. %s params: %s\n", i+1, e.Identity, compactJSON(e.Params))
			}
		}
	}
	return b.String()
}

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

// chainHeaders are the chain table's columns.
var chainHeaders = []string{"#", "POLICY", "DEFINITION", "ENGINE", "LEVEL", "SOURCE", "PROBLEMS"}

// chainTable renders a chain: one row per policy, in execution order.
// On a terminal (width > 0) the table must fit whole: where it is wider
// than the terminal, each policy becomes a list entry with its cells on
// lines of their own, wrapped at the width. Nothing is cut.
func chainTable(chain []wso2.Entry, defs, engine bool, width int) string {
	if len(chain) == 0 {
		return "  empty chain\n"
	}
	rows := chainRows(chain, defs, engine)
	out := table.New().Border(lipgloss.NormalBorder()).BorderStyle(lipgloss.NewStyle()).Headers(chainHeaders...).Rows(rows...).Render()
	if width <= 0 || lipgloss.Width(out) <= width {
		return out
	}
	var list []fieldRow
	for _, r := range rows {
		fr := fieldRow{Key: r[0] + ". " + r[1]}
		for i, h := range chainHeaders[2:] {
			fr.Lines = append(fr.Lines, strings.ToLower(h)+": "+r[i+2])
		}
		list = append(list, fr)
	}
	var b strings.Builder
	writeList(&b, list, width)
	return strings.TrimSuffix(b.String(), "\n")
}

// chainRows are the chain table's cells.
func chainRows(chain []wso2.Entry, defs, engine bool) [][]string {
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
		rows = append(rows, []string{fmt.Sprint(i + 1), e.Identity, def, eng, string(e.Level), shortID(e.Source), problems})
	}
	return rows
}

// wso2RuleChain is the chain the policy engine runs for a route rule:
// system policies, then the APIPolicies targeting the route (API level),
// then those the rule references (rule level, in filter order). Nil when
// no APIPolicy applies to the rule.
func wso2RuleChain(c *pipeline.Compiled, rule *topology.Rule) []wso2.Entry {
	if c.WSO2 == nil {
		return nil
	}
	var chains []*wso2.Chain
	if rp := c.Result.Rule(rule); rp != nil {
		if f := rp.Own.Of(c.WSO2.APIPolicy()).Field(wso2.FieldChain); f != nil {
			chains = wso2.ChainsOf(f.Values)
		}
	}
	if gen := c.WSO2Generated[rule.Rule]; gen != nil {
		chains = append(chains, gen)
	}
	if len(chains) == 0 {
		return nil
	}
	sys, _ := c.WSO2.System(c.Config.PolicyConfig(), c.Versions.ConfigPos(c.Config))
	return wso2.Effective(append([]*wso2.Chain{sys}, chains...)...)
}

// explainWSO2Notes are explain's notes for a route rule with APIPolicies:
// one line per chain entry, for explain's Notes hook.
func explainWSO2Notes(c *pipeline.Compiled) func(*topology.Route, *topology.Rule) []string {
	return func(_ *topology.Route, rule *topology.Rule) []string {
		chain := wso2RuleChain(c, rule)
		if len(chain) == 0 {
			return nil
		}
		out := []string{fmt.Sprintf("WSO2 policy chain (%d, in execution order):", len(chain))}
		for i, e := range chain {
			line := fmt.Sprintf("%d. %s → definition %s, engine %s [%s, %s]", i+1, e.Identity,
				orNone(e.Definition, "-"), orNone(e.Engine, "-"), e.Level, shortID(e.Source))
			if len(e.Problems) > 0 {
				line += " " + strings.Join(e.Problems, " ")
			}
			out = append(out, line)
		}
		return out
	}
}

// runExplainRestAPI is explain's restapi target: TARGET is
// restapi/NAMESPACE/NAME, or restapi/NAME with -n. It has the shape of
// explainRestAPIHook.
func runExplainRestAPI(o *explainOptions, c *pipeline.Compiled) error {
	parts := strings.Split(o.Target, "/")
	var ns, name string
	switch {
	case len(parts) == 3:
		ns, name = parts[1], parts[2]
	case len(parts) == 2:
		ns, name = c.Config.Namespace, parts[1]
	}
	if ns == "" || name == "" {
		return usageError("target %q: want restapi/NAMESPACE/NAME (or restapi/NAME with -n)", o.Target)
	}
	return explainRestAPI(c, ns, name, o.IO.Out, o.Output, o.ShowValues, o.IO.Width)
}
