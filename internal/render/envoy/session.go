package envoy

import (
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

	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// statefulSessionFilter is Envoy's session persistence filter: in the
// chain, off unless a route's per-filter config (its rule's
// sessionPersistence) turns it on.
const statefulSessionFilter = "envoy.filters.http.stateful_session"

// orderStatefulSession runs the filter last before the router: it only
// picks the upstream host.
const orderStatefulSession = 900

// cookieLifetime is a Permanent session cookie's lifetime when the rule
// gives no absoluteTimeout (kgateway's).
const cookieLifetime = 365 * 24 * time.Hour

// ruleSession is a rule's own sessionPersistence (HTTPRoute or GRPCRoute).
func ruleSession(rule *topology.Rule) *gwv1.SessionPersistence {
	switch {
	case rule.HTTP != nil:
		return rule.HTTP.SessionPersistence
	case rule.GRPC != nil:
		return rule.GRPC.SessionPersistence
	}
	return nil
}

// statefulSession translates sessionPersistence as kgateway does: a cookie
// (path /, lifetime absoluteTimeout, none for a Session cookie) or a
// header carrying the session, named sessionName.
func statefulSession(sp *gwv1.SessionPersistence) *statefulsessionv3.StatefulSessionPerRoute {
	kind := gwv1.CookieBasedSessionPersistence
	if sp.Type != nil && *sp.Type == gwv1.HeaderBasedSessionPersistence {
		kind = gwv1.HeaderBasedSessionPersistence
	}
	var state proto.Message
	switch kind {
	case gwv1.HeaderBasedSessionPersistence:
		state = &headerv3.HeaderBasedSessionState{Name: orDefault(sp.SessionName, "x-session-persistence")}
	default:
		c := &httpv3.Cookie{Name: orDefault(sp.SessionName, "sessionPersistence"), Path: "/"}
		if sp.AbsoluteTimeout != nil {
			if d, err := time.ParseDuration(string(*sp.AbsoluteTimeout)); err == nil {
				c.Ttl = durationpb.New(d)
			}
		}
		if cc := sp.CookieConfig; cc != nil && cc.LifetimeType != nil {
			switch *cc.LifetimeType {
			case gwv1.SessionCookieLifetimeType:
				c.Ttl = nil
			case gwv1.PermanentCookieLifetimeType:
				if c.Ttl == nil {
					c.Ttl = durationpb.New(cookieLifetime)
				}
			}
		}
		state = &cookiev3.CookieBasedSessionState{Cookie: c}
	}
	return &statefulsessionv3.StatefulSessionPerRoute{Override: &statefulsessionv3.StatefulSessionPerRoute_StatefulSession{
		StatefulSession: &statefulsessionv3.StatefulSession{SessionState: &corev3.TypedExtensionConfig{
			Name: "envoy.http.stateful_session." + strings.ToLower(string(kind)), TypedConfig: mustAny(state),
		}},
	}}
}

// sessionFilter is the chain's stateful session filter, off by default.
func sessionFilter() filterDef {
	return filterDef{name: statefulSessionFilter, order: orderStatefulSession, config: mustAny(&statefulsessionv3.StatefulSession{})}
}

// withSession turns session persistence on for a route of a rule that
// asks for it, recording the filter the chain needs.
func (vb *vhostBuild) withSession(own map[string]*anypb.Any, rule *topology.Rule) map[string]*anypb.Any {
	sp := ruleSession(rule)
	if sp == nil {
		return own
	}
	if own == nil {
		own = map[string]*anypb.Any{}
	}
	own[statefulSessionFilter] = mustAny(statefulSession(sp))
	vb.filters = append(vb.filters, sessionFilter())
	return own
}

// orDefault is *s, or def when it is unset or empty.
func orDefault(s *string, def string) string {
	if s == nil || *s == "" {
		return def
	}
	return *s
}
