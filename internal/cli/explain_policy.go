package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
)

// policyKindOf finds the registered policy kind a target's KIND names:
// the kind's name in any case, or its plural (trafficpolicies).
func policyKindOf(target string, reg *policy.Registry) (policy.Kind, bool) {
	word, _, _ := strings.Cut(strings.ToLower(target), "/")
	for _, k := range reg.Kinds() {
		name := strings.ToLower(k.GroupKind().Kind)
		if word == name || word == name+"s" || word == strings.TrimSuffix(name, "y")+"ies" {
			return k, true
		}
	}
	return nil, false
}

// policyKindWords lists the registered policy kinds as explain accepts
// them, for help text.
func policyKindWords() string {
	var out []string
	for _, k := range pipeline.Registry().Kinds() {
		out = append(out, strings.ToLower(k.GroupKind().Kind))
	}
	return strings.Join(out, ", ")
}

// lookupPolicy finds the policy a POLICYKIND/NS/NAME (or POLICYKIND/NAME
// with -n) names; an unknown kind or name is a usage error with the
// nearest one.
func lookupPolicy(c *pipeline.Compiled, ref, namespace string) (*policy.Policy, error) {
	k, ok := policyKindOf(ref, c.Result.Registry)
	if !ok {
		return nil, usageError("%q: want POLICYKIND/NAMESPACE/NAME with POLICYKIND one of %s", ref, policyKindWords())
	}
	parts := strings.Split(ref, "/")
	key := model.Key{Group: k.GroupKind().Group, Kind: k.GroupKind().Kind}
	switch {
	case len(parts) == 2 && namespace != "":
		key.Namespace, key.Name = namespace, parts[1]
	case len(parts) == 3:
		key.Namespace, key.Name = parts[1], parts[2]
	default:
		return nil, usageError("%q: want %s/NAMESPACE/NAME (or %s/NAME with -n)", ref, parts[0], parts[0])
	}
	p := c.Policies.Get(key)
	if p == nil {
		var names []string
		for _, q := range c.Policies.Policies {
			if q.Kind == k {
				names = append(names, q.Obj.Namespace+"/"+q.Obj.Name)
			}
		}
		return nil, notFound(targetSpec{Kind: key.Kind, Namespace: key.Namespace, Name: key.Name}, names)
	}
	return p, nil
}

// explainPolicy answers explain POLICYKIND/NS/NAME.
func explainPolicy(o *explainOptions, c *pipeline.Compiled) error {
	p, err := lookupPolicy(c, o.Target, o.Namespace)
	if err != nil {
		return err
	}
	rep := explain.Policy(c.Result, p)
	for i := range rep.Targets {
		rep.Targets[i].Fields = selectFields(rep.Targets[i].Fields, o.Field)
	}
	if o.Output == "json" {
		return writeData(o.globalOptions, "", "json", rep)
	}
	return writePolicyText(o.IO.Out, rep)
}

func selectFields(fs []explain.PolicyField, want string) []explain.PolicyField {
	out := []explain.PolicyField{}
	for _, f := range fs {
		if explain.MatchField(f.Field, want) {
			out = append(out, f)
		}
	}
	return out
}

// writePolicyText is a list rather than a table: one line per target and
// per field, so it reads at any terminal width.
func writePolicyText(w io.Writer, rep explain.PolicyReport) error {
	var b strings.Builder
	state := "accepted"
	if !rep.Accepted {
		state = "not accepted"
	}
	fmt.Fprintf(&b, "%s (%s)\n", shortID(rep.Policy), state)
	if len(rep.Targets) == 0 {
		b.WriteString("  reaches no target\n")
	}
	for _, t := range rep.Targets {
		fmt.Fprintf(&b, "  %s: %s\n", refText(t.Target), howReached(t))
		if t.Invalid {
			b.WriteString("    invalid here: takes no part in the merge\n")
		}
		for _, f := range t.Fields {
			b.WriteString("    " + fieldText(f) + "\n")
			for _, s := range f.ShadowedAt {
				fmt.Fprintf(&b, "      shadowed at %s by %s\n", s.Target, shortID(s.By))
			}
		}
	}
	for _, u := range rep.Problems {
		b.WriteString("  problem: " + u + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func refText(r explain.Ref) string {
	s := r.Kind + " " + r.Namespace + "/" + r.Name
	if r.Section != "" {
		s += " " + sectionWord(r.Kind) + " " + r.Section
	}
	return s
}

func howReached(t explain.PolicyTarget) string {
	s := "via " + t.Via
	if t.Path != "" {
		s += " (" + t.Path + ")"
	}
	if t.From != "" {
		s += " from parent route " + t.From
	}
	return s + ", " + t.Level + " level"
}

func fieldText(f explain.PolicyField) string {
	switch f.Outcome {
	case "lost":
		return fmt.Sprintf("%s: lost to %s: %s", f.Field, shortID(f.Owner), f.Reason)
	case "merged":
		if f.Owner != "" {
			return fmt.Sprintf("%s: merged (owner %s)", f.Field, shortID(f.Owner))
		}
		return f.Field + ": merged (owner)"
	}
	return f.Field + ": " + f.Outcome
}
