package kgateway

import (
	"cmp"
	"fmt"
	"strconv"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// lookupExtension finds and decodes a GatewayExtension (namespace defaults
// to the policy's).
func lookupExtension(m *model.Model, ref *NamespacedObjectReference, policyNS string) (*GatewayExtension, string, error) {
	if ref == nil {
		return nil, "", fmt.Errorf("extensionRef is missing")
	}
	ns := policyNS
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = *ref.Namespace
	}
	o, ok := m.Object(model.Key{Group: Group, Kind: KindGatewayExtension, Namespace: ns, Name: ref.Name})
	if !ok {
		return nil, ns, fmt.Errorf("GatewayExtension %s/%s not found", ns, ref.Name)
	}
	var ext GatewayExtension
	if err := o.Decode(&ext); err != nil {
		return nil, ns, fmt.Errorf("GatewayExtension %s/%s: %v", ns, ref.Name, err)
	}
	ext.Name, ext.Namespace = ref.Name, ns
	return &ext, ns, nil
}

// filterWeight is the weight kgateway sorts an extension's filter by
// within its stage (higher first, then by filter name): for ext_authz and
// oauth2 the GatewayExtension's kgateway.dev/policy-weight annotation
// (kgateway's GatewayExtension PrecedenceWeight), for ext_proc its
// filterStage.weight. kgateway's annotation doc says that for
// extension-backed features "the weight on the GatewayExtension is used
// instead" of the policy's, but its translator reads it only in the
// listener's HTTP filters; the policies at a merge point stay ordered by
// their own weight (gwpol's Policy.Weight). An unreadable annotation
// counts as 0, as kgateway parses it.
func filterWeight(key string, ext *GatewayExtension) policy.FilterWeight {
	w := policy.FilterWeight{Object: KindGatewayExtension + " " + ext.Namespace + "/" + ext.Name, Source: "annotation " + AnnotationWeight}
	if key == "extProc" {
		w.Source, w.Stage = "spec.extProc.filterStage.weight", "AuthZ/After" // kgateway's default stage
		if p := ext.Spec.ExtProc; p != nil && p.FilterStage != nil {
			w.Weight = p.FilterStage.Weight
			w.Stage = p.FilterStage.Stage + "/" + cmp.Or(p.FilterStage.Predicate, "During")
		}
		return w
	}
	if n, err := strconv.ParseInt(ext.Annotations[AnnotationWeight], 10, 32); err == nil {
		w.Weight = int32(n)
	}
	return w
}

// filterWeights resolves, for a decoded policy, the extension each
// extension-backed field calls and the weight that orders its filter. A
// field whose extension cannot be found has none (validation reports it).
func filterWeights(m *model.Model, p *policy.Policy) map[string]policy.FilterWeight {
	var out map[string]policy.FilterWeight
	for _, key := range []string{"extAuth", "extProc", "oidc"} {
		v, ok := p.Values[key]
		if !ok || m == nil {
			continue
		}
		ext, _, err := lookupExtension(m, extensionRefOf(v), p.Obj.Namespace)
		if err != nil {
			continue
		}
		if out == nil {
			out = map[string]policy.FilterWeight{}
		}
		out[key] = filterWeight(key, ext)
	}
	return out
}

// extensionRefOf is the extension a field value calls; nil for a disable.
func extensionRefOf(v any) *NamespacedObjectReference {
	switch x := v.(type) {
	case *ExtAuthPolicy:
		if x.Disable == nil {
			return x.ExtensionRef
		}
	case *ExtProcPolicy:
		if x.Disable == nil {
			return x.ExtensionRef
		}
	case *OAuth2Policy:
		return &x.ExtensionRef
	}
	return nil
}
