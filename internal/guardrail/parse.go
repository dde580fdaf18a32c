package guardrail

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
	yaml "go.yaml.in/yaml/v3"
)

// ruleKeys are the keys of a guardrails entry.
var ruleKeys = []string{"name", "fields", "setOnlyBy", "max", "min", "oneOf", "require", "gateways", "routes", "severity", "message"}

// Parse reads the guardrails: section of the config (n, a YAML sequence
// node of file) against the fields of reg's kinds. Every problem is a
// usage error at its line: an unknown key, an unknown field name (with
// the nearest), a malformed bound, an entry that is not exactly one type
// of guardrail. A nil or null node is no guardrails.
func Parse(file string, n *yaml.Node, reg *policy.Registry) ([]Rule, error) {
	if n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return nil, nil
	}
	p := parser{file: file, reg: reg}
	if n.Kind != yaml.SequenceNode {
		return nil, p.errorf(n, "guardrails must be a list of named rules ({name, fields, setOnlyBy | max/min | oneOf, …} or {name, require, …})")
	}
	var out []Rule
	names := map[string]bool{}
	for i, e := range n.Content {
		r, err := p.rule(i, e)
		if err != nil {
			return nil, err
		}
		if names[r.Name] {
			return nil, p.errorf(e, "guardrails[%d]: a second rule named %q; names identify rules in findings, so each must be unique", i, r.Name)
		}
		names[r.Name] = true
		out = append(out, r)
	}
	return out, nil
}

type parser struct {
	file string
	reg  *policy.Registry
}

func (p parser) errorf(n *yaml.Node, format string, args ...any) error {
	return diag.Errorf(diag.Usage, "config %s:%d:%d: %s", p.file, n.Line, n.Column, fmt.Sprintf(format, args...))
}

// unknownKey is the error for a key not in known, with the nearest.
func (p parser) unknownKey(k *yaml.Node, where string, known []string) error {
	msg := fmt.Sprintf("unknown key %q in %s", k.Value, where)
	if best := diag.Nearest(k.Value, known); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	} else {
		msg += fmt.Sprintf(" (keys: %s)", strings.Join(known, ", "))
	}
	return p.errorf(k, "%s", msg)
}

func (p parser) rule(i int, n *yaml.Node) (Rule, error) {
	at := fmt.Sprintf("guardrails[%d]", i)
	r := Rule{Severity: diag.Error}
	if n.Kind != yaml.MappingNode {
		return r, p.errorf(n, "%s must be a mapping with a name", at)
	}
	var bound *yaml.Node
	seen := map[string]*yaml.Node{}
	for j := 0; j+1 < len(n.Content); j += 2 {
		k, v := n.Content[j], n.Content[j+1]
		if !slices.Contains(ruleKeys, k.Value) {
			return r, p.unknownKey(k, "a guardrails entry", ruleKeys)
		}
		seen[k.Value] = k
		var err error
		switch k.Value {
		case "name":
			r.Name, err = p.scalar(v, at+".name")
			if err == nil && r.Name == "" {
				err = p.errorf(v, "%s.name is empty", at)
			}
		case "fields":
			r.Fields, err = p.fieldList(v, at+".fields")
		case "require":
			var req []string
			req, err = p.fieldList(v, at+".require")
			r.Fields = append(r.Fields, req...)
		case "setOnlyBy":
			err = p.setOnlyBy(&r, v, at+".setOnlyBy")
		case "max", "min":
			var s string
			if s, err = p.scalar(v, at+"."+k.Value); err == nil {
				var b *Bound
				if b, err = parseBound(s); err != nil {
					err = p.errorf(v, "%s.%s: %v", at, k.Value, err)
				} else if k.Value == "max" {
					r.Max = b
				} else {
					r.Min = b
				}
			}
			bound = v
		case "oneOf":
			r.OneOf, err = p.list(v, at+".oneOf")
			if err == nil && len(r.OneOf) == 0 {
				err = p.errorf(v, "%s.oneOf lists no value", at)
			}
		case "gateways":
			r.Gateways, err = p.list(v, at+".gateways")
			for _, g := range r.Gateways {
				if ns, name, ok := strings.Cut(g, "/"); err == nil && (!ok || ns == "" || name == "" || strings.Contains(name, "/")) {
					err = p.errorf(v, "%s.gateways: %q is not NAMESPACE/NAME", at, g)
				}
			}
		case "routes":
			err = p.routes(&r, v, at+".routes")
		case "severity":
			var s string
			if s, err = p.scalar(v, at+".severity"); err == nil {
				sev, perr := diag.ParseSeverity(s)
				if perr != nil || sev == diag.None {
					err = p.errorf(v, "%s.severity must be error, warning or info, not %q", at, s)
				}
				r.Severity = sev
			}
		case "message":
			r.Message, err = p.scalar(v, at+".message")
		}
		if err != nil {
			return r, err
		}
	}
	if r.Name == "" {
		return r, p.errorf(n, "%s has no name; findings name the rule they report", at)
	}
	at = fmt.Sprintf("guardrail %q", r.Name)
	var types []string
	if seen["setOnlyBy"] != nil {
		r.Type, types = SetOnlyBy, append(types, "setOnlyBy")
	}
	if r.Max != nil || r.Min != nil {
		r.Type, types = Bounds, append(types, "max/min")
	}
	if seen["oneOf"] != nil {
		r.Type, types = OneOf, append(types, "oneOf")
	}
	if seen["require"] != nil {
		r.Type, types = Require, append(types, "require")
	}
	switch {
	case len(types) == 0:
		return r, p.errorf(n, "%s says nothing to check: give fields with setOnlyBy, max/min or oneOf, or require", at)
	case len(types) > 1:
		return r, p.errorf(n, "%s has %s; a rule is one of setOnlyBy, max/min, oneOf or require (write several rules)", at, strings.Join(types, " and "))
	case r.Type == Require && seen["fields"] != nil:
		return r, p.errorf(seen["fields"], "%s: require lists the required fields itself; fields goes with setOnlyBy, max/min or oneOf", at)
	case r.Type != Require && len(r.Fields) == 0:
		return r, p.errorf(n, "%s names no fields", at)
	case r.Max != nil && r.Min != nil && r.Max.IsDuration != r.Min.IsDuration:
		return r, p.errorf(bound, "%s: max %s and min %s are not both durations or both numbers", at, r.Max.Text, r.Min.Text)
	case r.Max != nil && r.Min != nil && ((r.Max.IsDuration && r.Max.Duration < r.Min.Duration) || (!r.Max.IsDuration && r.Max.Number < r.Min.Number)):
		return r, p.errorf(bound, "%s: max %s is below min %s", at, r.Max.Text, r.Min.Text)
	}
	return r, nil
}

func (p parser) scalar(v *yaml.Node, at string) (string, error) {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return "", p.errorf(v, "%s must be a single value", at)
	}
	return v.Value, nil
}

// list reads a list of scalars (a single scalar is a list of one).
func (p parser) list(v *yaml.Node, at string) ([]string, error) {
	if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
		return []string{v.Value}, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, p.errorf(v, "%s must be a list", at)
	}
	var out []string
	for _, e := range v.Content {
		s, err := p.scalar(e, at+" entry")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// fieldList reads a list of field names, each checked against the kinds.
func (p parser) fieldList(v *yaml.Node, at string) ([]string, error) {
	fs, err := p.list(v, at)
	if err != nil {
		return nil, err
	}
	if len(fs) == 0 {
		return nil, p.errorf(v, "%s lists no field", at)
	}
	nodes := v.Content
	if v.Kind == yaml.ScalarNode {
		nodes = []*yaml.Node{v}
	}
	for i, f := range fs {
		if err := checkField(p.reg, f); err != nil {
			return nil, p.errorf(nodes[i], "%s: %v", at, err)
		}
	}
	return fs, nil
}

func (p parser) setOnlyBy(r *Rule, v *yaml.Node, at string) error {
	if v.Kind != yaml.MappingNode {
		return p.errorf(v, "%s must be a mapping {namespaces: [...]} or {policies: [KIND/NAMESPACE/NAME, ...]}", at)
	}
	known := []string{"namespaces", "policies"}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		var err error
		switch k.Value {
		case "namespaces":
			r.Namespaces, err = p.list(val, at+".namespaces")
		case "policies":
			r.Policies, err = p.list(val, at+".policies")
			for i, ref := range r.Policies {
				if err == nil {
					err = p.policyRef(val, i, ref, at)
				}
			}
		default:
			return p.unknownKey(k, at, known)
		}
		if err != nil {
			return err
		}
	}
	if len(r.Namespaces)+len(r.Policies) == 0 {
		return p.errorf(v, "%s names no namespace and no policy", at)
	}
	return nil
}

// policyRef checks a setOnlyBy policy: KIND/NAMESPACE/NAME of a
// registered kind, or a full policy ID.
func (p parser) policyRef(list *yaml.Node, i int, ref, at string) error {
	n := list
	if list.Kind == yaml.SequenceNode {
		n = list.Content[i]
	}
	parts := strings.Split(ref, "/")
	if len(parts) == 4 {
		parts = parts[1:]
	}
	if len(parts) != 3 || slices.Contains(parts, "") {
		return p.errorf(n, "%s.policies: %q is not KIND/NAMESPACE/NAME (or GROUP/KIND/NAMESPACE/NAME)", at, ref)
	}
	var kinds []string
	for _, k := range p.reg.Kinds() {
		if strings.EqualFold(k.GroupKind().Kind, parts[0]) {
			return nil
		}
		kinds = append(kinds, k.GroupKind().Kind)
	}
	msg := fmt.Sprintf("%s.policies: %q names no policy kind gwpol reads", at, ref)
	if best := diag.Nearest(parts[0], kinds); best != "" {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return p.errorf(n, "%s", msg)
}

func (p parser) routes(r *Rule, v *yaml.Node, at string) error {
	if v.Kind != yaml.MappingNode {
		return p.errorf(v, "%s must be a mapping {namespaces: [...]}", at)
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, val := v.Content[j], v.Content[j+1]
		if k.Value != "namespaces" {
			return p.unknownKey(k, at, []string{"namespaces"})
		}
		var err error
		if r.RouteNamespaces, err = p.list(val, at+".namespaces"); err != nil {
			return err
		}
	}
	return nil
}
