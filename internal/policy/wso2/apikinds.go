package wso2

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	yaml "go.yaml.in/yaml/v3"
)

// The API kinds other than RestApi that carry policy references. The
// gateway-controller resolves the references of LlmProvider, LlmProxy and
// Mcp like a RestApi's (the same definitions and engine); a WebSubApi
// belongs to the event gateway, whose policy definitions gwpol is not
// given, so its references are listed but not resolved (GWP511 says so).
const (
	KindLlmProvider = "LlmProvider"
	KindLlmProxy    = "LlmProxy"
	KindMcp         = "Mcp"
	KindWebSubAPI   = "WebSubApi"
)

// APIKind is one of those kinds: it attaches to nothing, and its policy
// references are wherever a `policies` list appears under spec (LLM kinds
// also give params per path: policies[].paths[].params).
type APIKind struct {
	ks *Kinds
	// kind is the Kind; resolved is false when the references cannot be
	// checked against the loaded definitions.
	kind     string
	resolved bool
}

// The hooks of the policy-kind contract (internal/policy/kind.go) that
// the API kinds implement.
var (
	_ policy.Kind           = (*APIKind)(nil)
	_ policy.ObjectStatuser = (*APIKind)(nil)
	_ policy.Standalone     = (*APIKind)(nil)
)

// GroupKind implements policy.Kind.
func (k *APIKind) GroupKind() model.GroupKind { return model.GroupKind{Group: Group, Kind: k.kind} }

// Spec implements policy.Kind.
func (k *APIKind) Spec() policy.KindSpec { return kindSpec(k.kind, nil, false) }

// OtherAPI is a decoded LlmProvider, LlmProxy, Mcp or WebSubApi: its
// policy references, one chain per policies list, in document order.
type OtherAPI struct {
	Chains []*Chain
	// Resolved is false for a kind whose references gwpol does not check.
	Resolved bool
}

// OtherAPIOf returns the decoded API of a policy of one of these kinds.
func OtherAPIOf(p *policy.Policy) (*OtherAPI, bool) {
	if p == nil {
		return nil, false
	}
	a, ok := p.Data.(*OtherAPI)
	return a, ok
}

// PolicyEntry is one entry of a policies list in these kinds: a policy
// reference, with params per path for the LLM kinds.
type PolicyEntry struct {
	PolicyRef `json:",inline"`
	Paths     []PathParams `json:"paths,omitempty"`
}

// PathParams are an LLM kind's params of a policy for one path.
type PathParams struct {
	Path   string          `json:"path,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Decode implements policy.Kind.
func (k *APIKind) Decode(o *manifest.Object, _ *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	if !checkVersion(p) {
		return p
	}
	if k.kind == KindMcp && o.Version == "v1alpha1" {
		// The pinned controller's MCP validator reads v1alpha1; a v1 Mcp
		// follows a later API, whose checks gwpol does not have.
		checkMcp(p)
	}
	api := &OtherAPI{Resolved: k.resolved}
	p.Data = api
	var lists []string
	policyLists(o.Lookup("spec"), "spec", &lists)
	refs := 0
	for _, path := range lists {
		ch := &Chain{Level: LevelAPI, Source: p.ID()}
		n := o.Lookup(path)
		for i := range n.Content {
			at := path + "[" + strconv.Itoa(i) + "]"
			var r PolicyEntry
			if err := o.DecodeField(at, &r); err != nil {
				p.ReportDecodeErrors([]error{err})
				continue
			}
			refs++
			if !k.resolved {
				ch.Refs = append(ch.Refs, &Reference{Name: r.Name, Version: string(r.Version), Params: r.Params, Path: at, Pos: o.FieldPos(at + ".version")})
				continue
			}
			ch.Refs = append(ch.Refs, k.references(p, at, r)...)
		}
		api.Chains = append(api.Chains, ch)
	}
	if !k.resolved && refs > 0 {
		p.Findings = append(p.Findings, p.Diag(LintPoliciesNotChecked.Code, diag.Info, "spec",
			"%d policy reference(s) of this %s are resolved by the WSO2 event gateway against its own policy definitions, which gwpol does not load; they are not checked", refs, k.kind))
	}
	return p
}

// references checks one entry: its own params, or each path's params
// (LLM kinds run the policy once per path with that path's params). The
// version findings of one entry are the same for each path and are kept
// once.
func (k *APIKind) references(p *policy.Policy, at string, r PolicyEntry) []*Reference {
	if len(r.Paths) == 0 {
		return []*Reference{k.ks.reference(p, at, r.PolicyRef)}
	}
	var out []*Reference
	for j, path := range r.Paths {
		ref := &Reference{Name: r.Name, Version: string(r.Version), ExecutionCondition: r.ExecutionCondition, Path: at,
			ParamsPath: fmt.Sprintf("%s.paths[%d].params", at, j), Pos: p.Obj.FieldPos(at + ".version")}
		if len(path.Params) > 0 && string(path.Params) != "null" {
			ref.Params = path.Params
		}
		invalid, findings := k.ks.check(ref, p.Ref(), p.Obj.FieldPos)
		p.Invalid = appendNew(p.Invalid, invalid...)
		p.Findings = appendNew(p.Findings, findings...)
		out = append(out, ref)
	}
	return out
}

// appendNew appends the diagnostics ds does not hold yet.
func appendNew(ds []diag.Diagnostic, more ...diag.Diagnostic) []diag.Diagnostic {
	for _, d := range more {
		if !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	return ds
}

// policyLists collects the field paths of every `policies` sequence under
// n, depth first in document order; a `policies` mapping (WebSubApi:
// subscribe/inbound/outbound) contributes each of its lists.
func policyLists(n *yaml.Node, path string, out *[]string) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, val := n.Content[i].Value, n.Content[i+1]
			if val.Kind == yaml.AliasNode {
				val = val.Alias
			}
			child := path + "." + key
			switch {
			case key == "policies" && val.Kind == yaml.SequenceNode:
				*out = append(*out, child)
			case key == "policies" && val.Kind == yaml.MappingNode:
				// Lists by flow (WebSubApi subscribe/inbound/outbound).
				for j := 0; j+1 < len(val.Content); j += 2 {
					if val.Content[j+1].Kind == yaml.SequenceNode {
						*out = append(*out, child+"."+val.Content[j].Value)
					}
				}
			default:
				policyLists(val, child, out)
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			policyLists(c, path+"["+strconv.Itoa(i)+"]", out)
		}
	}
}
