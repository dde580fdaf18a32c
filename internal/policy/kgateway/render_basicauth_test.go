package kgateway

import (
	"testing"

	basicauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/basic_auth/v3"
)

// TestBasicAuthInlineUsersAsWritten: inline basicAuth users reach the
// route as kgateway writes them (validateAndFilterSHAUsers' kept
// entries): each trimmed, blank lines and comments left out, an entry
// listed twice written once, entries joined by newlines — also when one
// list item holds several lines.
func TestBasicAuthInlineUsersAsWritten(t *testing.T) {
	const (
		alice = "alice:{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="
		bob   = "bob:{SHA}qUqP5cyxm6YcTAhz05Hph5gvu9M="
	)
	tests := []struct {
		name  string
		users []string
		want  string
	}{
		{"as given", []string{alice, bob}, alice + "\n" + bob},
		{"surrounding spaces trimmed", []string{"  " + alice + "\t", bob + " "}, alice + "\n" + bob},
		{"a comment and a blank entry left out", []string{"# team A", alice, "", bob}, alice + "\n" + bob},
		{"an entry twice written once", []string{alice, bob, alice}, alice + "\n" + bob},
		{"several lines in one item", []string{alice + "\n\n# x\n" + bob}, alice + "\n" + bob},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, problem := htpasswdUsers(tt.users); problem != "" {
				t.Fatalf("users refused: %s", problem)
			}
			frs := renderField(t, "basicAuth", &BasicAuthPolicy{Users: tt.users})
			per, ok := frs[0].TypedPerFilterConfig["envoy.filters.http.basic_auth"].(*basicauthv3.BasicAuthPerRoute)
			if !ok {
				t.Fatalf("per-route config %v", frs[0].TypedPerFilterConfig)
			}
			if got := per.GetUsers().GetInlineString(); got != tt.want {
				t.Errorf("users %q, want %q", got, tt.want)
			}
		})
	}
}
