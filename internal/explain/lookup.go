package explain

import (
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// PolicyKindOf finds the registered policy kind a target's KIND names:
// the kind's name in any case, or its plural (trafficpolicies).
func PolicyKindOf(target string, reg *policy.Registry) (policy.Kind, bool) {
	word, _, _ := strings.Cut(strings.ToLower(target), "/")
	for _, k := range reg.Kinds() {
		name := strings.ToLower(k.GroupKind().Kind)
		if word == name || word == name+"s" || word == strings.TrimSuffix(name, "y")+"ies" {
			return k, true
		}
	}
	return nil, false
}

// KindWords lists the registered policy kinds as a TARGET names them,
// for help text and errors.
func KindWords(reg *policy.Registry) string {
	var out []string
	for _, k := range reg.Kinds() {
		out = append(out, strings.ToLower(k.GroupKind().Kind))
	}
	return strings.Join(out, ", ")
}

// LookupPolicy finds the policy a POLICYKIND/NS/NAME (or POLICYKIND/NAME
// with namespace, the -n one) names among set; an unknown kind or a
// malformed reference is a usage error, a name not in the input a
// not-found error with the nearest one (or, when m left it out as the
// API server refuses it, with why).
func LookupPolicy(m *model.Model, reg *policy.Registry, set *policy.Set, ref, namespace string) (*policy.Policy, error) {
	k, ok := PolicyKindOf(ref, reg)
	if !ok {
		return nil, diag.Errorf(diag.Usage, "%q: want POLICYKIND/NAMESPACE/NAME with POLICYKIND one of %s", ref, KindWords(reg))
	}
	parts := strings.Split(ref, "/")
	key := model.Key{Group: k.GroupKind().Group, Kind: k.GroupKind().Kind}
	switch {
	case len(parts) == 2 && namespace != "":
		key.Namespace, key.Name = namespace, parts[1]
	case len(parts) == 3:
		key.Namespace, key.Name = parts[1], parts[2]
	default:
		return nil, diag.Errorf(diag.Usage, "%q: want %s/NAMESPACE/NAME (or %s/NAME with -n)", ref, parts[0], parts[0])
	}
	p := set.Get(key)
	if p == nil {
		var names []string
		for _, q := range set.Policies {
			if q.Kind == k {
				names = append(names, q.Obj.Namespace+"/"+q.Obj.Name)
			}
		}
		return nil, Absent(m, TargetSpec{Kind: key.Kind, Namespace: key.Namespace, Name: key.Name}, names)
	}
	return p, nil
}

// SelectFields keeps the fields a --field value selects (all for "").
func SelectFields(fs []PolicyField, want string) []PolicyField {
	out := []PolicyField{}
	for _, f := range fs {
		if MatchField(f.Field, want) {
			out = append(out, f)
		}
	}
	return out
}
