package envoygateway

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
)

// proxyConfig is the EnvoyProxy in effect on a Gateway, worked out as
// Envoy Gateway v1.9.0 does (contexts.go: attachEnvoyProxy →
// envoyproxy_merge.go: MergeEnvoyProxyConfigs): the Gateway's own
// EnvoyProxy (infrastructure.parametersRef) laid over its class's with the
// Gateway's EnvoyProxy's mergeType — unset or Replace, the Gateway's
// alone; StrategicMerge or JSONMerge, the two merged as utils.Merge does.
// A Gateway whose own EnvoyProxy is not in the input, or whose class's
// EnvoyProxy sets mergeGateways (the Gateway's parametersRef is then not
// read), takes its class's. owner is the EnvoyProxy the merged one is
// named after (the Gateway's when it has one), whose namespace the
// references it holds are read in.
type proxyConfig struct {
	owner model.Key
	obj   *manifest.Object // the one EnvoyProxy in effect, as written
	spec  []byte           // the merged spec, when two merge
}

// effectiveProxy is gw's proxyConfig; ok is false when no EnvoyProxy of
// the input is in effect on it.
func effectiveProxy(gw *model.Gateway, m *model.Model) (proxyConfig, bool) {
	class, hasClass := classProxy(gw, m)
	var classObj *manifest.Object
	if hasClass {
		classObj, _ = m.Object(class)
	}
	own, hasOwn := gatewayProxy(gw)
	var ownObj *manifest.Object
	if hasOwn && !mergesGateways(classObj) {
		ownObj, _ = m.Object(own)
	}
	switch {
	case ownObj == nil && classObj == nil:
		return proxyConfig{}, false
	case ownObj == nil:
		return proxyConfig{owner: class, obj: classObj}, true
	case classObj == nil:
		return proxyConfig{owner: own, obj: ownObj}, true
	}
	mt := proxyMergeType(ownObj)
	if mt == "" || mt == egv1a1.Replace {
		return proxyConfig{owner: own, obj: ownObj}, true
	}
	base, err1 := classObj.FieldJSON("spec")
	over, err2 := ownObj.FieldJSON("spec")
	if err1 != nil || err2 != nil {
		return proxyConfig{owner: own, obj: ownObj}, true
	}
	merged, err := mergeSpecs(reflect.TypeOf(egv1a1.EnvoyProxySpec{}), base, over, mt == egv1a1.StrategicMerge)
	if err != nil {
		// Envoy Gateway keeps the Gateway's configuration when the merge
		// fails (MergeEnvoyProxyConfigs' caller logs the error).
		return proxyConfig{owner: own, obj: ownObj}, true
	}
	return proxyConfig{owner: own, spec: merged}, true
}

// gatewayProxy names the EnvoyProxy gw's infrastructure.parametersRef
// points at, in gw's namespace.
func gatewayProxy(gw *model.Gateway) (model.Key, bool) {
	inf := gw.Spec.Infrastructure
	if inf == nil || inf.ParametersRef == nil || string(inf.ParametersRef.Kind) != envoyProxy.Kind || string(inf.ParametersRef.Group) != Group {
		return model.Key{}, false
	}
	return model.Key{Group: Group, Kind: envoyProxy.Kind, Namespace: gw.Namespace, Name: inf.ParametersRef.Name}, true
}

// classProxy names the EnvoyProxy gw's GatewayClass's parametersRef
// points at.
func classProxy(gw *model.Gateway, m *model.Model) (model.Key, bool) {
	for _, c := range m.GatewayClasses {
		if c.Name != string(gw.Spec.GatewayClassName) || c.Spec.ParametersRef == nil || string(c.Spec.ParametersRef.Kind) != envoyProxy.Kind {
			continue
		}
		// A class's reference without a namespace names the EnvoyProxy in
		// "default" (Envoy Gateway v1.9.0 provider/kubernetes/controller.go
		// processGatewayClassParamsRef), not none.
		ref, ns := c.Spec.ParametersRef, "default"
		if ref.Namespace != nil {
			ns = string(*ref.Namespace)
		}
		return model.Key{Group: Group, Kind: envoyProxy.Kind, Namespace: ns, Name: ref.Name}, true
	}
	return model.Key{}, false
}

// mergesGateways: the class's EnvoyProxy sets mergeGateways, so Envoy
// Gateway reads no Gateway's own EnvoyProxy (helpers.go:
// IsMergeGatewaysEnabled, checked in attachEnvoyProxy).
func mergesGateways(class *manifest.Object) bool {
	if class == nil {
		return false
	}
	b, err := class.FieldJSON("spec.mergeGateways")
	return err == nil && string(b) == "true"
}

func proxyMergeType(o *manifest.Object) egv1a1.MergeType {
	var mt egv1a1.MergeType
	if o.DecodeField("spec.mergeType", &mt) != nil {
		return ""
	}
	return mt
}

// FieldJSON is the field at path ("spec.…") of the EnvoyProxy in effect,
// "null" when it is not set.
func (p proxyConfig) FieldJSON(path string) ([]byte, error) {
	if p.obj != nil {
		return p.obj.FieldJSON(path)
	}
	rest, ok := strings.CutPrefix(path, "spec")
	if !ok {
		return []byte("null"), nil
	}
	cur := json.RawMessage(p.spec)
	for _, k := range strings.Split(strings.TrimPrefix(rest, "."), ".") {
		if k == "" {
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			return []byte("null"), nil
		}
		v, ok := obj[k]
		if !ok {
			return []byte("null"), nil
		}
		cur = v
	}
	return bytes.Clone(cur), nil
}

// DecodeField decodes the field at path of the EnvoyProxy in effect into v.
func (p proxyConfig) DecodeField(path string, v any) error {
	if p.obj != nil {
		return p.obj.DecodeField(path, v)
	}
	b, err := p.FieldJSON(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
