package envoygateway

import (
	"regexp"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
)

// rewriteState is what a rule's filters have rewritten so far, as Envoy
// Gateway's HTTPFiltersContext.URLRewrite records it: the Gateway API's
// URLRewrite (a path, a hostname) and an HTTPRouteFilter's (a regex path;
// a hostname from a header, the backend or a path regex).
type rewriteState struct {
	corePath, coreHost, extPath, extHost bool
	// hostFromPath: the hostname is rewritten from the request path
	// (PathRegex), which a dynamic resolver may not take.
	hostFromPath bool
}

// coreRewriteProblem is processURLRewriteFilter's check: a second core
// rewrite of anything (hasMultipleCoreRewrites), or a core rewrite of what
// an HTTPRouteFilter rewrote (hasConflictingCoreAndExtensionRewrites).
func (st *filterState) coreRewriteProblem(rw *gwv1.HTTPURLRewriteFilter, path string) *routeProblem {
	if rw == nil {
		return nil
	}
	host, p := rw.Hostname != nil, rw.Path != nil
	r := &st.rewrite
	if (r.corePath || r.coreHost) && (host || p) || host && r.extHost || p && r.extPath {
		return dropRule("UnsupportedValue", path, "Cannot configure multiple urlRewrite filters for a single HTTPRouteRule.")
	}
	r.corePath, r.coreHost = r.corePath || p, r.coreHost || host
	return nil
}

// routeFilterRewriteProblem is processExtensionRefHTTPFilter's check of an
// HTTPRouteFilter's urlRewrite: not beside another extension rewrite nor a
// core rewrite of the same part; a ReplaceRegexMatch path with a pattern
// that compiles; a Header hostname with its header; a PathRegex hostname
// with a pattern that compiles and a substitution.
func (st *filterState) routeFilterRewriteProblem(rw *egv1a1.HTTPURLRewriteFilter, path string) *routeProblem {
	if rw == nil {
		return nil
	}
	host, p := rw.Hostname != nil, rw.Path != nil
	r := &st.rewrite
	if (r.extPath || r.extHost) && (host || p) || host && r.coreHost || p && r.corePath {
		return dropRule("UnsupportedValue", path, "Cannot configure multiple urlRewrite filters for a single HTTPRouteRule.")
	}
	if p && rw.Path.Type == egv1a1.RegexHTTPPathModifier {
		if rm := rw.Path.ReplaceRegexMatch; rm == nil || rm.Pattern == "" {
			return dropRule("UnsupportedValue", path, "ReplaceRegexMatch Pattern must be set when rewrite path type is \"ReplaceRegexMatch\".")
		} else if _, err := regexp.Compile(rm.Pattern); err != nil {
			return dropRule("UnsupportedValue", path, "ReplaceRegexMatch must be a valid RE2 regular expression.")
		}
		r.extPath = true
	}
	if host {
		switch h := rw.Hostname; h.Type {
		case egv1a1.HeaderHTTPHostnameModifier:
			if h.Header == nil {
				return dropRule("UnsupportedValue", path, "Header must be set when rewrite path type is \"Header\".")
			}
		case egv1a1.BackendHTTPHostnameModifier:
		case egv1a1.PathRegexHTTPHostnameModifier:
			if h.PathRegex == nil || h.PathRegex.Pattern == "" || h.PathRegex.Substitution == "" {
				return dropRule("UnsupportedValue", path, "PathRegex Pattern and Substitution must be set when rewrite hostname type is \"PathRegex\".")
			} else if _, err := regexp.Compile(h.PathRegex.Pattern); err != nil {
				return dropRule("UnsupportedValue", path, "PathRegex must be a valid RE2 regular expression.")
			}
			r.hostFromPath = true
		default:
			return nil
		}
		r.extHost = true
	}
	return nil
}

// routeFilterBodyProblem is getCustomResponseBody for a direct response's
// body: a ValueRef body's ConfigMap, in the route's namespace, exists and
// holds an entry. Envoy Gateway reports it as an invalid filter.
func (rv *routeValidation) routeFilterBodyProblem(body *egv1a1.CustomResponseBody, ns, path string) *routeProblem {
	if body == nil || body.Type == nil || *body.Type != egv1a1.ResponseValueTypeValueRef || body.ValueRef == nil {
		return nil
	}
	name := string(body.ValueRef.Name)
	cm := rv.m.ConfigMap(ns, name)
	switch {
	case cm == nil:
		return dropRule("UnsupportedValue", path, "Invalid filter HTTPRouteFilter: can't find the referenced configmap %s/%s.", ns, name)
	case !cm.Assumed && len(cm.Keys) == 0:
		return dropRule("UnsupportedValue", path, "Invalid filter HTTPRouteFilter: can't find the key %s in the referenced configmap %s/%s.", responseBodyKey, ns, name)
	}
	return nil
}

// credentialRefProblem is validateSecretRef from the HTTPRouteFilter's
// namespace for its injected credential: no group, kind Secret, a
// ReferenceGrant for another namespace, the Secret exists and holds a
// non-empty "credential".
func (rv *routeValidation) credentialRefProblem(r gwv1.SecretObjectReference, ns, path string) *routeProblem {
	invalid := func(format string, args ...any) *routeProblem {
		return dropRule("UnsupportedValue", path, "Invalid filter HTTPRouteFilter: "+format, args...)
	}
	kind := ""
	if r.Kind != nil {
		kind = string(*r.Kind)
	}
	switch {
	case r.Group != nil && *r.Group != "":
		return invalid("secret ref group must be unspecified/empty.")
	case kind == "":
		kind = "Secret"
	case kind != "Secret" && kind != "ConfigMap":
		return invalid("secret ref kind must be Secret.")
	}
	to, name := ns, string(r.Name)
	if r.Namespace != nil && *r.Namespace != "" {
		to = string(*r.Namespace)
	}
	if to != ns && !rv.m.GrantAllows(Group, httpRouteFilter.name, ns, model.ObjectRefTo{Kind: kind, Namespace: to, Name: name}) {
		return invalid("ref to %s %s/%s not permitted by any ReferenceGrant.", kind, to, name)
	}
	s := rv.m.Secret(to, name)
	switch {
	case s == nil:
		return invalid("secret %s/%s does not exist.", to, name)
	case !nonEmpty(s, "credential"):
		return invalid("credential key credential not found in secret %s/%s.", to, name)
	}
	return nil
}
