package kgateway

import (
	"strings"
	"time"
	"unicode"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	statefulsessionv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/stateful_session/v3"
	cookiev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/cookie/v3"
	headerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/stateful_session/header/v3"
	httpv3 "github.com/envoyproxy/go-control-plane/envoy/type/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
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
// session, whatever the route (kgateway's translation reads the rule
// alone). The default stands only for a sessionName left out: a name
// given, empty included, is written as sessionCookieName or
// sessionHeaderName make it.
func sessionPersistence(sp *gwv1.SessionPersistence, _ policy.SessionSite) proto.Message {
	kind := gwv1.CookieBasedSessionPersistence
	if sp.Type != nil && *sp.Type == gwv1.HeaderBasedSessionPersistence {
		kind = gwv1.HeaderBasedSessionPersistence
	}
	var state proto.Message
	switch kind {
	case gwv1.HeaderBasedSessionPersistence:
		state = &headerv3.HeaderBasedSessionState{Name: sessionHeaderName(valueOr(sp.SessionName, "x-session-persistence"))}
	default:
		c := &httpv3.Cookie{Name: sessionCookieName(valueOr(sp.SessionName, "sessionPersistence")), Path: "/"}
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

// valueOr is *s, or def when s is unset (an empty string is a value).
func valueOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}

// cookieSeparators are the characters RFC 2616 (section 2.2) calls
// separators, which a cookie name, a token, may not hold.
const cookieSeparators = "()<>@,;:\\\"/[]?={} \t"

// sessionCookieName is the cookie name kgateway writes for a sessionName
// (pkg/kgateway/utils/sanitize.go: SanitizeCookieName, called by
// krtcollections/builtin.go: convertSessionPersistence): "cookie" for an
// empty name, else the name with each control character, each rune
// beyond ASCII and each separator made "_". The Gateway API bounds only
// the name's length, so all of these reach it.
func sessionCookieName(name string) string {
	if name == "" {
		return "cookie"
	}
	return strings.Map(func(r rune) rune {
		if r > unicode.MaxASCII || unicode.IsControl(r) || strings.ContainsRune(cookieSeparators, r) {
			return '_'
		}
		return r
	}, name)
}

// sessionHeaderName is the header name kgateway writes for a sessionName
// (utils/sanitize.go: SanitizeHeaderName): "header" for an empty name,
// else the name with each rune that is no RFC 7230 token character made
// "-".
func sessionHeaderName(name string) string {
	if name == "" {
		return "header"
	}
	return strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return r
		}
		return '-'
	}, name)
}
