package policy

import "github.com/gwpol/gwpol/internal/model"

// DeploymentTraits are what a controller's deployment settings change in
// the generic stages, each read under the configuration of one compile:
// the family declares the settings (Family.Settings) and answers from
// their values, so that attach, topology and merge ask what to do and
// never read a controller's key.
type DeploymentTraits struct {
	// AllNamespacesPolicies is the namespace whose policies of the
	// family's kinds select targets by label in every namespace rather
	// than in their own ("": none).
	AllNamespacesPolicies func(cfg Config) string
	// Ungranted reports whether the controller checks no ReferenceGrant:
	// every reference into another namespace — a route's backendRef, a
	// listener's certificate, a policy's Secret or backend — is allowed
	// (its grant rule under cfg has Off: Family.GrantsUnder).
	Ungranted func(cfg Config) bool
	// FieldStrategy is the strategy the deployment gives a field of one of
	// the family's kinds that may merge deep (FieldSpec.Deep), by the
	// field's config name (FieldSpec.ConfigName, else its key); false:
	// the field's default.
	FieldStrategy func(cfg Config, k Kind, field string) (Strategy, bool)
}

// SelectsInAllNamespaces reports whether p's label selectors select
// targets in every namespace under cfg (DeploymentTraits.
// AllNamespacesPolicies of the family of p's kind).
func (r *Registry) SelectsInAllNamespaces(p *Policy, cfg Config) bool {
	f := r.FamilyOf(p.Kind)
	if f == nil || f.Deployment.AllNamespacesPolicies == nil {
		return false
	}
	ns := f.Deployment.AllNamespacesPolicies(cfg)
	return ns != "" && ns == p.Obj.Namespace
}

// GrantsUnder is how the family's controller matches ReferenceGrants
// under cfg (Family.Grants; Off when its deployment checks none:
// DeploymentTraits.Ungranted), the rule topology and the family's own
// checks apply.
func (f *Family) GrantsUnder(cfg Config) model.GrantRule {
	g := f.Grants
	if f.Deployment.Ungranted != nil && f.Deployment.Ungranted(cfg) {
		g.Off = true
	}
	return g
}

// FieldStrategy is the strategy the deployment under cfg gives field f of
// kind k, when f may merge deep and the family of k sets one
// (DeploymentTraits.FieldStrategy).
func (r *Registry) FieldStrategy(cfg Config, k Kind, f FieldSpec) (Strategy, bool) {
	if !f.Deep {
		return "", false
	}
	fam := r.FamilyOf(k)
	if fam == nil || fam.Deployment.FieldStrategy == nil {
		return "", false
	}
	name := f.ConfigName
	if name == "" {
		name = f.Key
	}
	return fam.Deployment.FieldStrategy(cfg, k, name)
}

// Section is a section setting's value in c (its keys as written); nil
// when c holds none.
func (s Setting) Section(c Config) map[string]any {
	m, _ := s.value(c).(map[string]any)
	return m
}
