package envoy

import (
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestFragmentShellsValid: every shell passes Envoy's rules by itself, so
// that what fails inside one is the part merged over it.
func TestFragmentShellsValid(t *testing.T) {
	for name, shell := range fragmentShells {
		if err := validateDeep(shell); err != nil {
			t.Errorf("shell %s: %v", name, err)
		}
	}
}

// TestCheckFragment: a part that only the whole resource completes (a
// route without a match, connection manager settings without a route
// source) passes; a value Envoy refuses is named, whichever part holds it.
func TestCheckFragment(t *testing.T) {
	for _, c := range []struct {
		name string
		fr   policy.Fragment
		want string // "" when the fragment passes
	}{
		{"partial route", policy.Fragment{TypedRoute: &routev3.Route{Decorator: &routev3.Decorator{Operation: "op"}}}, ""},
		{"partial connection manager", policy.Fragment{HCM: &hcmv3.HttpConnectionManager{RequestTimeout: durationpb.New(5e9)}}, ""},
		{"direct response status", policy.Fragment{TypedRoute: &routev3.Route{Action: &routev3.Route_DirectResponse{DirectResponse: &routev3.DirectResponseAction{Status: 99}}}},
			"route settings: invalid Route.DirectResponse"},
		{"negative timeout", policy.Fragment{HCM: &hcmv3.HttpConnectionManager{RequestHeadersTimeout: durationpb.New(-5e9)}},
			"connection manager settings: invalid HttpConnectionManager.RequestHeadersTimeout"},
		{"header count", policy.Fragment{HCM: &hcmv3.HttpConnectionManager{MaxRequestHeadersKb: wrapperspb.UInt32(0)}},
			"connection manager settings: invalid HttpConnectionManager.MaxRequestHeadersKb"},
	} {
		err := checkFragment(c.fr)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}
