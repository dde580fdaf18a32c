package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// kindGroup is one API group's kinds as gwpol reads them: the policy
// kinds registered for it and the other kinds it reads.
type kindGroup struct {
	Group    string
	Policies []string
	Others   []string
}

// supportedKinds lists every kind gwpol reads, by API group — one group
// per controller family and the Gateway API's and core's — from the
// registrations (model's kinds, the policy registry and each policy
// kind's auxiliary kinds), so help, man pages and docs cannot fall
// behind the code.
func supportedKinds() []kindGroup {
	byGroup := map[string]*kindGroup{}
	get := func(g string) *kindGroup {
		if byGroup[g] == nil {
			byGroup[g] = &kindGroup{Group: g}
		}
		return byGroup[g]
	}
	reg := families.Registry()
	for _, gk := range model.KnownKinds() {
		get(gk.Group).Others = append(get(gk.Group).Others, gk.Kind)
	}
	for _, k := range reg.Kinds() {
		gk := k.GroupKind()
		get(gk.Group).Policies = append(get(gk.Group).Policies, gk.Kind)
	}
	for _, k := range reg.Kinds() {
		a, ok := k.(policy.Auxiliary)
		if !ok {
			continue
		}
		for _, gk := range a.AuxiliaryKinds() {
			g := get(gk.Group)
			if !slices.Contains(g.Others, gk.Kind) && !slices.Contains(g.Policies, gk.Kind) {
				g.Others = append(g.Others, gk.Kind)
			}
		}
	}
	var out []kindGroup
	for _, g := range byGroup {
		slices.Sort(g.Others)
		g.Policies = slices.Compact(g.Policies)
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b kindGroup) int {
		// The Gateway API first, core next, then the families by group.
		rank := func(g string) int {
			switch g {
			case model.GatewayGroup:
				return 0
			case model.CoreGroup:
				return 1
			}
			return 2
		}
		if c := rank(a.Group) - rank(b.Group); c != 0 {
			return c
		}
		return strings.Compare(a.Group, b.Group)
	})
	return out
}

// supportedKindsText is supportedKinds for help text: one paragraph per
// group, wrapped for an 80-column terminal.
func supportedKindsText() string {
	var b strings.Builder
	for _, g := range supportedKinds() {
		name := g.Group
		if name == "" {
			name = "core (v1)"
		}
		var parts []string
		if len(g.Policies) > 0 {
			parts = append(parts, "policies: "+strings.Join(g.Policies, ", "))
		}
		if len(g.Others) > 0 {
			label := "kinds: "
			if len(g.Policies) > 0 {
				label = "also: "
			}
			parts = append(parts, label+strings.Join(g.Others, ", "))
		}
		for _, l := range wrapWords(fmt.Sprintf("  %s — %s", name, strings.Join(parts, "; ")), 78, "    ") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
