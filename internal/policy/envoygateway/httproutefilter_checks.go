package envoygateway

import (
	"encoding/json"
	"regexp"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
)

// rewriteState is what a rule's filters have rewritten so far, as Envoy
// Gateway's HTTPFiltersContext.URLRewrite records it: the Gateway API's
// URLRewrite (a path, a hostname) and an HTTPRouteFilter's (a regex path;
// a hostname from a header, the backend or a path regex).
type rewriteState struct {
	corePath, coreHost, extPath, extHost bool
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

// routeFilterRewrite is an HTTPRouteFilter's spec.urlRewrite.
type routeFilterRewrite struct {
	Path *struct {
		Type              string `json:"type"`
		ReplaceRegexMatch *struct {
			Pattern string `json:"pattern"`
		} `json:"replaceRegexMatch"`
	} `json:"path"`
	Hostname *struct {
		Type      string  `json:"type"`
		Header    *string `json:"header"`
		PathRegex *struct {
			Pattern      string `json:"pattern"`
			Substitution string `json:"substitution"`
		} `json:"pathRegex"`
	} `json:"hostname"`
}

// routeFilterRewriteProblem is processExtensionRefHTTPFilter's check of an
// HTTPRouteFilter's urlRewrite: not beside another extension rewrite nor a
// core rewrite of the same part; a ReplaceRegexMatch path with a pattern
// that compiles; a Header hostname with its header; a PathRegex hostname
// with a pattern that compiles and a substitution.
func (st *filterState) routeFilterRewriteProblem(rw *routeFilterRewrite, path string) *routeProblem {
	if rw == nil {
		return nil
	}
	host, p := rw.Hostname != nil, rw.Path != nil
	r := &st.rewrite
	if (r.extPath || r.extHost) && (host || p) || host && r.coreHost || p && r.corePath {
		return dropRule("UnsupportedValue", path, "Cannot configure multiple urlRewrite filters for a single HTTPRouteRule.")
	}
	if p && rw.Path.Type == "ReplaceRegexMatch" {
		if rm := rw.Path.ReplaceRegexMatch; rm == nil || rm.Pattern == "" {
			return dropRule("UnsupportedValue", path, "ReplaceRegexMatch Pattern must be set when rewrite path type is \"ReplaceRegexMatch\".")
		} else if _, err := regexp.Compile(rm.Pattern); err != nil {
			return dropRule("UnsupportedValue", path, "ReplaceRegexMatch must be a valid RE2 regular expression.")
		}
		r.extPath = true
	}
	if host {
		switch h := rw.Hostname; h.Type {
		case "Header":
			if h.Header == nil {
				return dropRule("UnsupportedValue", path, "Header must be set when rewrite path type is \"Header\".")
			}
		case "Backend":
		case "PathRegex":
			if h.PathRegex == nil || h.PathRegex.Pattern == "" || h.PathRegex.Substitution == "" {
				return dropRule("UnsupportedValue", path, "PathRegex Pattern and Substitution must be set when rewrite hostname type is \"PathRegex\".")
			} else if _, err := regexp.Compile(h.PathRegex.Pattern); err != nil {
				return dropRule("UnsupportedValue", path, "PathRegex must be a valid RE2 regular expression.")
			}
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
func (rv *routeValidation) routeFilterBodyProblem(raw json.RawMessage, ns, path string) *routeProblem {
	var body struct {
		Type     string `json:"type"`
		ValueRef *struct {
			Name string `json:"name"`
		} `json:"valueRef"`
	}
	if json.Unmarshal(raw, &body) != nil || body.Type != "ValueRef" || body.ValueRef == nil {
		return nil
	}
	cm := rv.m.ConfigMap(ns, body.ValueRef.Name)
	switch {
	case cm == nil:
		return dropRule("UnsupportedValue", path, "Invalid filter HTTPRouteFilter: can't find the referenced configmap %s/%s.", ns, body.ValueRef.Name)
	case !cm.Assumed && len(cm.Keys) == 0:
		return dropRule("UnsupportedValue", path, "Invalid filter HTTPRouteFilter: can't find the key %s in the referenced configmap %s/%s.", responseBodyKey, ns, body.ValueRef.Name)
	}
	return nil
}

// credentialRefProblem is validateSecretRef from the HTTPRouteFilter's
// namespace for its injected credential: no group, kind Secret, a
// ReferenceGrant for another namespace, the Secret exists and holds a
// non-empty "credential".
func (rv *routeValidation) credentialRefProblem(r secretRef, group *string, ns, path string) *routeProblem {
	invalid := func(format string, args ...any) *routeProblem {
		return dropRule("UnsupportedValue", path, "Invalid filter HTTPRouteFilter: "+format, args...)
	}
	kind := r.Kind
	switch {
	case group != nil && *group != "":
		return invalid("secret ref group must be unspecified/empty.")
	case kind == "":
		kind = "Secret"
	case kind != "Secret" && kind != "ConfigMap":
		return invalid("secret ref kind must be Secret.")
	}
	to := ns
	if r.Namespace != nil && *r.Namespace != "" {
		to = *r.Namespace
	}
	if to != ns && !rv.m.GrantAllows(Group, httpRouteFilter.name, ns, model.ObjectRefTo{Kind: kind, Namespace: to, Name: r.Name}) {
		return invalid("ref to %s %s/%s not permitted by any ReferenceGrant.", kind, to, r.Name)
	}
	s := rv.m.Secret(to, r.Name)
	switch {
	case s == nil:
		return invalid("secret %s/%s does not exist.", to, r.Name)
	case !nonEmpty(s, "credential"):
		return invalid("credential key credential not found in secret %s/%s.", to, r.Name)
	}
	return nil
}
