package policyversion

import (
	"errors"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The gateway-controller (at 1c84e11c) validates params with gojsonschema
// v1.2.0 (its go.mod), which asserts `format` with its own checkers, in
// every draft: a string of a format it knows must pass that format's
// check, a number under such a format fails it (the checkers read strings
// only), and a format it does not know passes anything. Those checks
// differ from the JSON Schema validator gwpol compiles with — looser for
// dates and times (a bare date or time is a date-time), e-mail addresses
// (a display name is allowed) and IP addresses, stricter for URIs (no
// backslash) and UUIDs (lower case only), and silent for duration, period
// and semver — so each format is registered here with the controller's
// rule (controllerFormats), and the validator's other formats pass.

// controllerFormats are the formats gojsonschema v1.2.0 checks, each with
// its rule for a string.
var controllerFormats = map[string]func(string) bool{
	"date": func(s string) bool { return parsesAs(s, "2006-01-02") },
	"time": func(s string) bool { return parsesAs(s, "15:04:05Z07:00", "15:04:05") },
	"date-time": func(s string) bool {
		return parsesAs(s, "15:04:05", "15:04:05Z07:00", "2006-01-02", time.RFC3339, time.RFC3339Nano)
	},
	"hostname":              isHostname,
	"email":                 isMailAddress,
	"idn-email":             isMailAddress,
	"ipv4":                  func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ".") },
	"ipv6":                  func(s string) bool { return net.ParseIP(s) != nil && strings.Contains(s, ":") },
	"uri":                   isAbsoluteURI,
	"iri":                   isAbsoluteURI,
	"uri-reference":         isURIReference,
	"iri-reference":         isURIReference,
	"uri-template":          isURITemplate,
	"uuid":                  uuidRE.MatchString,
	"json-pointer":          jsonPointerRE.MatchString,
	"relative-json-pointer": relJSONPointerRE.MatchString,
}

// passingFormats are formats the validator gwpol compiles with checks but
// gojsonschema does not know: they pass anything, as in the controller.
var passingFormats = []string{"duration", "period", "semver"}

var (
	uuidRE           = regexp.MustCompile(`^[a-f0-9]{8}(-[a-f0-9]{4}){3}-[a-f0-9]{12}$`)
	jsonPointerRE    = regexp.MustCompile(`^(/([^~/]|~[01])*)*$`)
	relJSONPointerRE = regexp.MustCompile(`^(0|[1-9][0-9]*)(#|(/([^~/]|~[01])*)*)$`)
	hostLabelRE      = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$`)
	templateRE       = regexp.MustCompile(`^([^{]*(\{[^}]*\})?)*$`)
)

// registerControllerFormats makes c check formats as the controller does.
func registerControllerFormats(c *jsonschema.Compiler) {
	for name, ok := range controllerFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(v any) error {
			switch s := v.(type) {
			case string:
				if !ok(s) {
					return errors.New("the gateway-controller's " + name + " check refuses it")
				}
			case bool, nil, map[string]any, []any:
			default: // a number: the controller's checkers read strings only
				return errors.New("a number is not of format " + name + " for the gateway-controller")
			}
			return nil
		}})
	}
	for _, name := range passingFormats {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
	}
}

func parsesAs(s string, layouts ...string) bool {
	for _, l := range layouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

func isMailAddress(s string) bool {
	_, err := mail.ParseAddress(s)
	return err == nil
}

// isHostname: dot-separated labels of letters, digits and inner hyphens,
// each at most 63 characters, shorter than 256 in all.
func isHostname(s string) bool {
	if len(s) >= 256 {
		return false
	}
	for _, l := range strings.Split(s, ".") {
		if !hostLabelRE.MatchString(l) {
			return false
		}
	}
	return true
}

func isAbsoluteURI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && !strings.Contains(s, `\`)
}

func isURIReference(s string) bool {
	_, err := url.Parse(s)
	return err == nil && !strings.Contains(s, `\`)
}

// isURITemplate: a URI reference whose path has balanced, unnested braces.
func isURITemplate(s string) bool {
	u, err := url.Parse(s)
	return err == nil && !strings.Contains(s, `\`) && templateRE.MatchString(u.Path)
}
