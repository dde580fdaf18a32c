package trafficpolicy

import (
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// ListenerKind is kgateway's ListenerPolicy: listener and HCM settings on
// a Gateway (or ListenerSet). It merges like a TrafficPolicy on a Gateway.
type ListenerKind struct{}

var _ policy.Kind = ListenerKind{}

// NewListenerPolicy returns the ListenerPolicy kind.
func NewListenerPolicy() ListenerKind { return ListenerKind{} }

// GroupKind implements policy.Kind.
func (ListenerKind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: Group, Kind: KindListenerPolicy}
}

// listenerFields: kgateway records the access log under two keys, the
// sinks and their compiled configuration.
var listenerFields = []struct {
	key, path string
	get       func(*ListenerConfig) any
}{
	{"default.httpSettings.accessLog", "spec.default.httpSettings.accessLog", func(c *ListenerConfig) any { return accessLog(c) }},
	{"default.httpSettings.accessLogConfig", "spec.default.httpSettings.accessLog", func(c *ListenerConfig) any { return accessLog(c) }},
	{"default.httpSettings.tracing", "spec.default.httpSettings.tracing", func(c *ListenerConfig) any {
		if c.HTTPSettings == nil {
			return nil
		}
		return c.HTTPSettings.Tracing
	}},
	{"default.proxyProtocol", "spec.default.proxyProtocol", func(c *ListenerConfig) any { return c.ProxyProtocol }},
	{"default.tcpKeepalive", "spec.default.tcpKeepalive", func(c *ListenerConfig) any { return c.TCPKeepalive }},
	{"default.perConnectionBufferLimitBytes", "spec.default.perConnectionBufferLimitBytes", func(c *ListenerConfig) any { return c.PerConnectionBufferLimitBytes }},
}

func accessLog(c *ListenerConfig) any {
	if c.HTTPSettings == nil || len(c.HTTPSettings.AccessLog) == 0 {
		return nil
	}
	return c.HTTPSettings.AccessLog
}

var listenerSpec = func() policy.KindSpec {
	s := policy.KindSpec{
		ConfigKey:         "listenerPolicy",
		MetadataKey:       "merge." + Group + "/" + KindListenerPolicy,
		MetadataKeyCompat: "merge." + KindListenerPolicy + "." + Group,
		TargetKinds:       []policy.TargetKind{policy.TargetGateway, policy.TargetListenerSet},
		Attached:          true,
		MaxAncestors:      16,
		Precedence:        true,
	}
	for _, f := range listenerFields {
		s.Fields = append(s.Fields, policy.FieldSpec{Key: f.key, SpecPath: f.path, Default: policy.AugmentedShallow})
	}
	return s
}()

// Spec implements policy.Kind.
func (ListenerKind) Spec() policy.KindSpec { return listenerSpec }

// Decode implements policy.Kind.
func (k ListenerKind) Decode(o *manifest.Object, env *policy.Env) *policy.Policy {
	p := &policy.Policy{Kind: k, Obj: o, Values: map[string]any{}}
	var lp ListenerPolicy
	if !decodeInto(p, &lp, env.Config) {
		return p
	}
	p.Weight, p.Created = weightAndAge(p, lp.Annotations, lp.CreationTimestamp.Time)
	p.Targets = targets(lp.Spec.TargetRefs, lp.Spec.TargetSelectors)
	if lp.Spec.Default != nil {
		for _, f := range listenerFields {
			if v := f.get(&lp.Spec.Default.ListenerConfig); isSet(v) {
				p.Values[f.key] = v
			}
		}
	}
	return p
}
