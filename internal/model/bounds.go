package model

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Numeric ranges the Gateway API CRDs enforce. The API server rejects an
// object outside them, so gwpol does too, in every validation mode: a
// negative weight or port would otherwise be clamped or wrapped silently
// into config nobody wrote.
const (
	minPort, maxPort     = 1, 65535
	minWeight, maxWeight = 0, 1_000_000
)

// headerName is the Gateway API HeaderName: header and query parameter
// names in matches and header filters (1 to 256 token characters). An
// empty name would otherwise reach Envoy, whose validation refuses it.
var headerName = regexp.MustCompile("^[A-Za-z0-9!#$%&'*+\\-.^_`|~]{1,256}$")

// sectionName is the Gateway API SectionName a listener's name must be (a
// DNS-1123 subdomain of at most 253 characters). A listener without one
// would otherwise name its Envoy resources "".
var sectionName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// hostname and preciseHostname are the Gateway API's Hostname (a
// wildcard allowed as the first label) and PreciseHostname, at most 253
// characters.
var (
	hostname        = regexp.MustCompile(`^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	preciseHostname = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// duration is the Gateway API's Duration (GEP-2257): 1 to 4 groups of
// up to 5 digits and a unit h, m, s or ms. A value outside it would
// otherwise render as a negative or missing Envoy timeout.
var duration = regexp.MustCompile(`^([0-9]{1,5}(h|m|s|ms)){1,4}$`)

// pathValue is what the Gateway API's CEL rules allow an Exact or
// PathPrefix path match value to be: an absolute path of URI path
// characters and percent-encodings, without "//", dot segments, an
// encoded "/" or a fragment.
var pathValue = regexp.MustCompile(`^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$`)

// pathProblem says why an Exact or PathPrefix value is refused, "" when
// it is not.
func pathProblem(v string) string {
	switch {
	case !strings.HasPrefix(v, "/"):
		return "must be an absolute path (start with /)"
	case !pathValue.MatchString(v):
		return "must only contain valid URI path characters and percent-encodings"
	case strings.Contains(v, "//"), strings.Contains(v, "/./"), strings.Contains(v, "/../"), strings.HasSuffix(v, "/."), strings.HasSuffix(v, "/.."):
		return `must not contain "//" or a "." or ".." segment`
	case strings.Contains(strings.ToLower(v), "%2f"):
		return `must not contain an encoded "/" (%2f)`
	}
	return ""
}

// crdBounds reports every number of a decoded Gateway API object that its
// CRD's validation would reject, and every header or query parameter name
// it would, at the value's position.
func crdBounds(o *manifest.Object, v any) []diag.Diagnostic {
	var out []diag.Diagnostic
	check := func(path string, n, lo, hi int64) {
		if n < lo || n > hi {
			out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: o.FieldPos(path),
				Message: fmt.Sprintf("%s is %d, outside %d..%d; the API server's CRD validation rejects this %s", path, n, lo, hi, o.Kind)})
		}
	}
	name := func(path, s string) {
		if !headerName.MatchString(s) {
			out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: o.FieldPos(path),
				Message: fmt.Sprintf("%s is %q, not a header or query parameter name (1 to 256 of A-Z a-z 0-9 !#$%%&'*+-.^_`|~); the API server's CRD validation rejects this %s", path, s, o.Kind)})
		}
	}
	dur := func(path string, d *gwv1.Duration) {
		if d != nil && !duration.MatchString(string(*d)) {
			out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: o.FieldPos(path),
				Message: fmt.Sprintf("%s is %q, not a Gateway API duration (like 500ms, 10s, 1m30s); the API server's CRD validation rejects this %s", path, *d, o.Kind)})
		}
	}
	listener := func(path string, n gwv1.SectionName) {
		if !sectionName.MatchString(string(n)) || len(n) > 253 {
			out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: o.FieldPos(path),
				Message: fmt.Sprintf("%s is %q; a listener needs a name of lower-case letters, digits, '-' and '.' (a DNS subdomain, at most 253 characters), which the API server's CRD validation requires of this %s", path, n, o.Kind)})
		}
	}
	host := func(path, h string, re *regexp.Regexp) {
		if !re.MatchString(h) || len(h) > 253 {
			what := "a hostname"
			if re == preciseHostname {
				what = "a hostname without wildcard"
			}
			out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: o.FieldPos(path),
				Message: fmt.Sprintf("%s is %q, not %s (lower-case DNS labels, at most 253 characters); the API server's CRD validation rejects this %s", path, h, what, o.Kind)})
		}
	}
	hosts := func(hs []gwv1.Hostname) {
		for i, h := range hs {
			host(fmt.Sprintf("spec.hostnames[%d]", i), string(h), hostname)
		}
	}
	modifier := func(path string, m *gwv1.HTTPHeaderFilter) {
		if m == nil {
			return
		}
		for k, h := range m.Set {
			name(fmt.Sprintf("%s.set[%d].name", path, k), string(h.Name))
		}
		for k, h := range m.Add {
			name(fmt.Sprintf("%s.add[%d].name", path, k), string(h.Name))
		}
	}
	backend := func(path string, b gwv1.BackendRef) {
		if b.Weight != nil {
			check(path+".weight", int64(*b.Weight), minWeight, maxWeight)
		}
		if b.Port != nil {
			check(path+".port", int64(*b.Port), minPort, maxPort)
		}
	}
	switch x := v.(type) {
	case *gwv1.HTTPRoute:
		for i, r := range x.Spec.Rules {
			rule := fmt.Sprintf("spec.rules[%d]", i)
			for j, b := range r.BackendRefs {
				backend(backendPath(rule, j), b.BackendRef)
			}
			for j, m := range r.Matches {
				if p := m.Path; p != nil && p.Value != nil && (p.Type == nil || *p.Type != gwv1.PathMatchRegularExpression) {
					if why := pathProblem(*p.Value); why != "" {
						path := fmt.Sprintf("%s.matches[%d].path.value", rule, j)
						out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: path, Pos: o.FieldPos(path),
							Message: fmt.Sprintf("%s is %q: an Exact or PathPrefix path %s; the API server's CRD validation rejects this %s", path, *p.Value, why, o.Kind)})
					}
				}
				for k, h := range m.Headers {
					name(fmt.Sprintf("%s.matches[%d].headers[%d].name", rule, j, k), string(h.Name))
				}
				for k, q := range m.QueryParams {
					name(fmt.Sprintf("%s.matches[%d].queryParams[%d].name", rule, j, k), string(q.Name))
				}
			}
			if t := r.Timeouts; t != nil {
				dur(rule+".timeouts.request", t.Request)
				dur(rule+".timeouts.backendRequest", t.BackendRequest)
			}
			if rt := r.Retry; rt != nil {
				if rt.Attempts != nil {
					check(rule+".retry.attempts", int64(*rt.Attempts), 1, 1<<31-1)
				}
				for k, c := range rt.Codes {
					check(fmt.Sprintf("%s.retry.codes[%d]", rule, k), int64(c), 400, 599)
				}
				dur(rule+".retry.backoff", rt.Backoff)
			}
			if sp := r.SessionPersistence; sp != nil {
				dur(rule+".sessionPersistence.absoluteTimeout", sp.AbsoluteTimeout)
			}
			for j, f := range r.Filters {
				modifier(fmt.Sprintf("%s.filters[%d].requestHeaderModifier", rule, j), f.RequestHeaderModifier)
				modifier(fmt.Sprintf("%s.filters[%d].responseHeaderModifier", rule, j), f.ResponseHeaderModifier)
				if rd := f.RequestRedirect; rd != nil && rd.Port != nil {
					check(fmt.Sprintf("%s.filters[%d].requestRedirect.port", rule, j), int64(*rd.Port), minPort, maxPort)
				}
				if f.URLRewrite != nil && f.URLRewrite.Hostname != nil {
					host(fmt.Sprintf("%s.filters[%d].urlRewrite.hostname", rule, j), string(*f.URLRewrite.Hostname), preciseHostname)
				}
				if f.RequestRedirect != nil && f.RequestRedirect.Hostname != nil {
					host(fmt.Sprintf("%s.filters[%d].requestRedirect.hostname", rule, j), string(*f.RequestRedirect.Hostname), preciseHostname)
				}
			}
			for j, b := range r.BackendRefs {
				for k, f := range b.Filters {
					modifier(fmt.Sprintf("%s.filters[%d].requestHeaderModifier", backendPath(rule, j), k), f.RequestHeaderModifier)
					modifier(fmt.Sprintf("%s.filters[%d].responseHeaderModifier", backendPath(rule, j), k), f.ResponseHeaderModifier)
				}
			}
		}
		hosts(x.Spec.Hostnames)
	case *gwv1.GRPCRoute:
		for i, r := range x.Spec.Rules {
			rule := fmt.Sprintf("spec.rules[%d]", i)
			for j, b := range r.BackendRefs {
				backend(backendPath(rule, j), b.BackendRef)
			}
			for j, m := range r.Matches {
				for k, h := range m.Headers {
					name(fmt.Sprintf("%s.matches[%d].headers[%d].name", rule, j, k), string(h.Name))
				}
			}
			for j, f := range r.Filters {
				modifier(fmt.Sprintf("%s.filters[%d].requestHeaderModifier", rule, j), f.RequestHeaderModifier)
				modifier(fmt.Sprintf("%s.filters[%d].responseHeaderModifier", rule, j), f.ResponseHeaderModifier)
			}
			for j, b := range r.BackendRefs {
				for k, f := range b.Filters {
					modifier(fmt.Sprintf("%s.filters[%d].requestHeaderModifier", backendPath(rule, j), k), f.RequestHeaderModifier)
					modifier(fmt.Sprintf("%s.filters[%d].responseHeaderModifier", backendPath(rule, j), k), f.ResponseHeaderModifier)
				}
			}
		}
		hosts(x.Spec.Hostnames)
	case *gwv1.Gateway:
		for i, l := range x.Spec.Listeners {
			if l.Hostname != nil {
				host(fmt.Sprintf("spec.listeners[%d].hostname", i), string(*l.Hostname), hostname)
			}
			check(fmt.Sprintf("spec.listeners[%d].port", i), int64(l.Port), minPort, maxPort)
			listener(fmt.Sprintf("spec.listeners[%d].name", i), l.Name)
		}
	case *gwv1.ListenerSet:
		for i, l := range x.Spec.Listeners {
			if l.Hostname != nil {
				host(fmt.Sprintf("spec.listeners[%d].hostname", i), string(*l.Hostname), hostname)
			}
			check(fmt.Sprintf("spec.listeners[%d].port", i), int64(l.Port), minPort, maxPort)
			listener(fmt.Sprintf("spec.listeners[%d].name", i), l.Name)
		}
	}
	return out
}

// entryKeys reports every key of a Secret's or ConfigMap's data (and
// stringData, binaryData) the API server refuses, at the key. The key is
// not quoted: a name the API server refuses is not one gwpol may say (it
// may be a value written in the wrong place).
func entryKeys(o *manifest.Object) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, field := range []string{"data", "stringData", "binaryData"} {
		for i, k := range o.MapKeys(field) {
			if len(validation.IsConfigMapKey(k.Name)) == 0 {
				continue
			}
			out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: field, Pos: k.Pos,
				Message: fmt.Sprintf("%s key %d is not a valid key name (1 to 253 of a-z A-Z 0-9 '-' '_' '.', not '.' or '..' nor starting with '..'); the API server rejects this %s, and gwpol reads nothing from it", field, i+1, o.Kind)})
		}
	}
	return out
}
