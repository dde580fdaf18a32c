package envoygateway

import (
	"strconv"
	"strings"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	statefulsessionv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/stateful_session/v3"
	cookiev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/cookie/v3"
	headerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/header/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/type/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// sessionPersistence translates a route rule's sessionPersistence as
// Envoy Gateway v1.9 does (policy.Target.SessionPersistence): gatewayapi
// route.go processHTTPRouteRule builds it for an HTTPRoute's rules only
// (a GRPCRoute's is not read), and xds/translator session_persistence.go
// buildStatefulSessionFilterConfig writes it on each of the rule's
// routes. The session's name is sessionName as given, else the rule's
// own, <route kind>-<namespace>-<name>-rule-<index> (irRouteDestinationName
// with its "/" made "-"); a cookie carries it by default, its path the
// route's path match (routePathToCookiePath), with a lifetime only where
// the cookie is Permanent and absoluteTimeout gives one; else a header
// of that name.
func sessionPersistence(sp *gwv1.SessionPersistence, at policy.SessionSite) proto.Message {
	if at.Kind != "HTTPRoute" {
		return nil
	}
	name := strings.ToLower(at.Kind) + "-" + at.Namespace + "-" + at.Name + "-rule-" + strconv.Itoa(at.Rule)
	if sp.SessionName != nil {
		name = *sp.SessionName
	}
	var state proto.Message
	kind := "cookie"
	if sp.Type != nil && *sp.Type == gwv1.HeaderBasedSessionPersistence {
		kind = "header"
		state = &headerv3.HeaderBasedSessionState{Name: name}
	} else {
		c := &httpv3.Cookie{Name: name, Path: cookiePath(at.Path)}
		if sp.AbsoluteTimeout != nil && sp.CookieConfig != nil && sp.CookieConfig.LifetimeType != nil &&
			*sp.CookieConfig.LifetimeType == gwv1.PermanentCookieLifetimeType {
			// the route's validation refuses a timeout that does not parse
			if d, err := time.ParseDuration(string(*sp.AbsoluteTimeout)); err == nil {
				c.Ttl = durationpb.New(d)
			}
		}
		state = &cookiev3.CookieBasedSessionState{Cookie: c}
	}
	a, err := anypb.New(state)
	if err != nil {
		return nil
	}
	return &statefulsessionv3.StatefulSessionPerRoute{Override: &statefulsessionv3.StatefulSessionPerRoute_StatefulSession{
		StatefulSession: &statefulsessionv3.StatefulSession{SessionState: &corev3.TypedExtensionConfig{
			Name: "envoy.http.stateful_session." + kind, TypedConfig: a,
		}},
	}}
}

// cookiePath is the session cookie's path for a route's path match (xds
// translator session_persistence.go routePathToCookiePath): an exact
// path or a prefix as written, a regular expression's segments before
// the first holding a "*" (getLongestNonRegexPrefix), "/" where the
// route matches no path.
func cookiePath(p *gwv1.HTTPPathMatch) string {
	if p == nil || p.Value == nil {
		return "/"
	}
	if p.Type != nil && *p.Type == gwv1.PathMatchRegularExpression {
		var kept []string
		for part := range strings.SplitSeq(*p.Value, "/") {
			if strings.Contains(part, "*") {
				break
			}
			kept = append(kept, part)
		}
		return strings.Join(kept, "/")
	}
	return *p.Value
}
