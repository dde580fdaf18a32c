package kgateway

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// settingError is a ListenerPolicy setting kgateway cannot build, in the
// controller's words; field is where under the failing value it is (e.g.
// initialStreamWindowSize under http2ProtocolOptions), for the position.
type settingError struct{ field, msg string }

func (e *settingError) Error() string { return e.msg }

// settingErrors are several settingErrors of one value, reported one by
// one, as kgateway reports each (its status message joins them with "; ").
type settingErrors []*settingError

func (e settingErrors) Error() string {
	ms := make([]string, len(e))
	for i, x := range e {
		ms[i] = x.msg
	}
	return strings.Join(ms, "; ")
}

func (e settingErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, x := range e {
		out[i] = x
	}
	return out
}

// cidrError is Go's net.ParseCIDR error text, which kgateway reports.
func cidrError(s string) string { return "invalid CIDR address: " + s }

// withValidCIDRs drops the xffTrustedCIDRs that are not CIDRs: kgateway
// skips each one (reporting it) and trusts the others. bad are the
// indexes dropped.
func withValidCIDRs(x *xffSettings) (*xffSettings, []int) {
	if x == nil {
		return nil, nil
	}
	var bad []int
	var good []string
	for i, c := range x.XffTrustedCIDRs {
		if _, err := netip.ParsePrefix(c); err != nil {
			bad = append(bad, i)
			continue
		}
		good = append(good, c)
	}
	if len(bad) == 0 {
		return x, nil
	}
	out := *x
	out.XffTrustedCIDRs = good
	return &out, bad
}

// checkListenerValues finds the settings kgateway's controller cannot
// build into a listener when it reads the policy. Each is an error on the
// policy (Accepted=False, reason Invalid, with kgateway's message) and is
// left out while the policy's other settings still apply
// (KindSpec.InvalidKeepsValidFields): a default-section value is removed
// from Values, so a less preferred policy's value may take its place as
// it does in kgateway, where the setting is absent from the policy; a
// perPort entry keeps its other settings (render skips the failing ones).
// The check is the setting's own rendering, so what status and lint call
// invalid is exactly what render leaves out.
func checkListenerValues(p *policy.Policy, env *policy.Env, perPort []ListenerPortConfig) {
	report := func(path string, err error) {
		var list []error
		if u, ok := err.(interface{ Unwrap() []error }); ok {
			list = u.Unwrap()
		} else {
			list = []error{err}
		}
		for _, e := range list {
			at := path
			var se *settingError
			if errors.As(e, &se) && se.field != "" {
				at = path + "." + se.field
			}
			p.Invalid = append(p.Invalid, p.Diag(policy.LintPolicyInvalid.Code, diag.Error, at, "%s", e.Error()))
		}
	}
	keys := make([]string, 0, len(listenerFields)+1)
	for _, f := range listenerFields {
		keys = append(keys, f.key)
	}
	keys = append(keys, keyClientCertValidation)
	for _, key := range keys {
		v, ok := p.Values[key]
		if !ok {
			continue
		}
		path := p.FieldPath(key)
		if x, ok := v.(*xffSettings); ok {
			fixed, bad := withValidCIDRs(x)
			for _, i := range bad {
				report(pathUnder(path, "useRemoteAddress", fmt.Sprintf("xffTrustedCIDRs[%d]", i)), errors.New(cidrError(x.XffTrustedCIDRs[i])))
			}
			p.Values[key], v = fixed, fixed
		}
		if err := probeListenerField(p, env, key, v); err != nil {
			report(path, err)
			delete(p.Values, key)
			if key == keyAccessLog {
				delete(p.Values, keyAccessLogConfig) // kgateway's second record of the same sinks
			}
		}
	}
	for i := range perPort {
		cfg := &perPort[i].Listener
		for _, f := range listenerFields {
			v := f.get(cfg)
			if !isSet(v) {
				continue
			}
			path := fmt.Sprintf("spec.perPort[%d].listener.%s", i, strings.TrimPrefix(f.path, "spec.default."))
			part := perPortPartKey(perPort[i].Port, f.key)
			if x, ok := v.(*xffSettings); ok {
				fixed, bad := withValidCIDRs(x)
				for _, j := range bad {
					report(pathUnder(path, "useRemoteAddress", fmt.Sprintf("xffTrustedCIDRs[%d]", j)), errors.New(cidrError(x.XffTrustedCIDRs[j])))
				}
				v = fixed
				p.Values[part] = fixed
			}
			if err := probeListenerField(p, env, f.key, v); err != nil {
				report(path, err)
				// not built, so not merged: it fills nothing another
				// policy's entry for the port leaves unset
				delete(p.Values, part)
				if f.key == keyAccessLog {
					delete(p.Values, perPortPartKey(perPort[i].Port, keyAccessLogConfig))
				}
			}
		}
	}
}

// pathUnder replaces the last element of path, leaf, by sibling: the
// xff settings are read from useRemoteAddress's siblings.
func pathUnder(path, leaf, sibling string) string {
	return strings.TrimSuffix(path, leaf) + sibling
}

// probeListenerField renders one setting of the policy on its own and
// returns why kgateway would not build it; nil when it builds, or when
// gwpol cannot render it (that is unsupported, GWP404, which render
// reports, not an error in the policy).
func probeListenerField(p *policy.Policy, env *policy.Env, key string, v any) error {
	if !isSet(v) {
		return nil
	}
	in := policy.FieldInput{
		Key: key, Strategy: policy.AugmentedShallow, Values: []any{v},
		Contributors: []string{p.ID()}, Namespaces: []string{p.Obj.Namespace}, Scope: policy.ScopeListener,
		// Settings named after their Gateway (tracers, OpenTelemetry
		// logs) build alike for any: the policy's own name stands in.
		Gateway: policy.GatewayName{Namespace: p.Obj.Namespace, Name: p.Obj.Name},
	}
	_, err := ListenerKind{}.RenderField(in, env)
	if err == nil || diag.KindOf(err) == diag.Unsupported {
		return nil
	}
	return err
}
