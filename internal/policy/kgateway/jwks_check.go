package kgateway

import (
	"errors"
	"fmt"
)

// errJWKS is what a local key set that kgateway's TranslateKey cannot
// read is told; the key material itself is never quoted.
var errJWKS = errors.New("cannot parse local jwks: it is neither a PEM public key (RSA, ECDSA or Ed25519), a JWKS document with at least one valid key, nor a single JWK")

// jwksProblem reads a local key set as kgateway does (translateKey, the
// reading render writes from too). It returns nil when it reads.
func jwksProblem(s string) error {
	_, err := translateKey(s)
	return err
}

// jwtProviders checks the key sets of the jwt GatewayExtension a policy
// uses, as kgateway's translateJwks does when it builds the extension (an
// extension that fails to build makes every policy using it invalid): an
// inline key set must read (jwksProblem); a configMapRef must name a
// ConfigMap in the extension's namespace holding a non-empty "jwks" entry
// that reads.
func (v *validator) jwtProviders(path string, ref *NamespacedObjectReference) {
	ext, ns, err := lookupExtension(v.env.Model, ref, v.p.Obj.Namespace)
	if err != nil || ext.Spec.JWT == nil {
		return // reported by the reference check
	}
	for _, p := range ext.Spec.JWT.Providers {
		l := p.JWKS.Local
		if l == nil {
			continue
		}
		where := fmt.Sprintf("jwt: GatewayExtension %s/%s provider %s", ns, ext.Name, p.Name)
		switch {
		case l.Inline != nil:
			if err := jwksProblem(*l.Inline); err != nil {
				v.invalid(path, "%s: %v", where, err)
			}
		case l.ConfigMapRef != nil:
			cm := v.env.Model.ConfigMap(ns, l.ConfigMapRef.Name)
			if cm == nil {
				v.invalid(path, "%s: failed to find configmap %s: ConfigMap %s/%s not found", where, l.ConfigMapRef.Name, ns, l.ConfigMapRef.Name)
				continue
			}
			if cm.Assumed || cm.Src == nil {
				continue
			}
			var data map[string]string
			if cm.Src.DecodeField("data", &data) != nil || data["jwks"] == "" {
				v.invalid(path, "%s: configmap key 'jwks' not found in ConfigMap %s/%s", where, ns, l.ConfigMapRef.Name)
				continue
			}
			if err := jwksProblem(data["jwks"]); err != nil {
				v.invalid(path, "%s: ConfigMap %s/%s: %v", where, ns, l.ConfigMapRef.Name, err)
			}
		}
	}
}
