package policy

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
	// UngrantedBackendRefs reports whether the controller accepts a
	// route's backendRef into another namespace without a ReferenceGrant.
	UngrantedBackendRefs func(cfg Config) bool
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

// UngrantedBackendRefs reports whether a registered family's deployment
// under cfg lets backendRefs cross namespaces without a ReferenceGrant
// (topology.Options.UngrantedBackendRefs).
func (r *Registry) UngrantedBackendRefs(cfg Config) bool {
	for _, f := range r.Families() {
		if f.Deployment.UngrantedBackendRefs != nil && f.Deployment.UngrantedBackendRefs(cfg) {
			return true
		}
	}
	return false
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
