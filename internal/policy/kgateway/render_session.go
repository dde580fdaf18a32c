package kgateway

import (
	"strings"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	statefulsessionv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/stateful_session/v3"
	cookiev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/cookie/v3"
	headerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/header/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/type/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// cookieLifetime is the lifetime kgateway gives a Permanent session cookie
// when the rule gives no absoluteTimeout.
const cookieLifetime = 365 * 24 * time.Hour

// sessionPersistence translates a route rule's sessionPersistence as
// kgateway's translator does (policy.Target.SessionPersistence): Envoy's
// stateful session per route, with a cookie (named sessionName, default
// sessionPersistence; path /; lifetime absoluteTimeout, none for a
// Session cookie, a year for a Permanent one without a timeout) or a
// header (sessionName, default x-session-persistence) carrying the
// session.
func sessionPersistence(sp *gwv1.SessionPersistence) proto.Message {
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
			Name: "envoy.http.stateful_session." + strings.ToLower(string(kind)), TypedConfig: pack(state),
		}},
	}}
}

// orDefault is *s, or def when it is unset or empty.
func orDefault(s *string, def string) string {
	if s == nil || *s == "" {
		return def
	}
	return *s
}
