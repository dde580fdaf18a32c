package diag

import "testing"

func TestNearest(t *testing.T) {
	tests := []struct {
		s    string
		in   []string
		want string
	}{
		{"rateLimt", []string{"rateLimit", "retry", "rbac"}, "rateLimit"},
		{"failOnn", []string{"failOn", "ignore", "severity"}, "failOn"},
		{"timeout", []string{"timeouts", "retry"}, "timeouts"},
		{"completelydifferent", []string{"cors", "csrf"}, ""},
		{"x", nil, ""},
		{"über", []string{"uber"}, "uber"},
		// a tie is the name that sorts first, in either order (FuzzViews:
		// a schema's properties come from a map)
		{"allowCtndaeirels", []string{"allowHeaders", "allowCredentials"}, "allowCredentials"},
		{"allowCtndaeirels", []string{"allowCredentials", "allowHeaders"}, "allowCredentials"},
	}
	for _, tt := range tests {
		if got := Nearest(tt.s, tt.in); got != tt.want {
			t.Errorf("Nearest(%q, %v) = %q, want %q", tt.s, tt.in, got, tt.want)
		}
	}
	if d := EditDistance("kitten", "sitting"); d != 3 {
		t.Errorf("EditDistance(kitten, sitting) = %d, want 3", d)
	}
}

// TestNearestTieOrderIndependent: candidates at one distance — a
// schema's properties, read from a map — give the same suggestion in
// every order, the one that sorts first (FuzzViews' find: "name( web"
// is five edits from both name and namespace, and the GWP102 message
// said either, run to run); a tie at the threshold is still no
// suggestion.
func TestNearestTieOrderIndependent(t *testing.T) {
	for _, tc := range []struct {
		s    string
		in   []string
		want string
	}{
		{"name( web", []string{"name", "namespace", "port", "weight"}, "name"},
		{"name( web", []string{"weight", "namespace", "name", "port"}, "name"},
		{"nam", []string{"nbm", "nam2", "nama"}, "nam2"},
		{"nam", []string{"nama", "nbm", "nam2"}, "nam2"},
		{"abcdef", []string{"zzzzzf", "yyyyyf"}, ""}, // both at the threshold (5): neither
	} {
		if got := Nearest(tc.s, tc.in); got != tc.want {
			t.Errorf("Nearest(%q, %v) = %q, want %q", tc.s, tc.in, got, tc.want)
		}
	}
}
