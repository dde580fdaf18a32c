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
