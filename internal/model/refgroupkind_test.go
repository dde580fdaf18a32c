package model

import "testing"

// TestRefGroupKind: a reference's group and kind are each as written, an
// explicit "" group is the core group (kept, not defaulted), and an
// unset one (or an empty kind) takes the default.
func TestRefGroupKind(t *testing.T) {
	str := func(s string) *string { return &s }
	def := GroupKind{Group: GatewayGroup, Kind: "Gateway"}
	for _, tc := range []struct {
		group, kind *string
		want        GroupKind
	}{
		{nil, nil, def},
		{str(""), nil, GroupKind{Kind: "Gateway"}},
		{str("example.com"), str("Secret"), GroupKind{Group: "example.com", Kind: "Secret"}},
		{nil, str(""), def},
		{nil, str("ListenerSet"), GroupKind{Group: GatewayGroup, Kind: "ListenerSet"}},
	} {
		if got := RefGroupKind(tc.group, tc.kind, def); got != tc.want {
			t.Errorf("RefGroupKind(%v, %v) = %v, want %v", deref(tc.group), deref(tc.kind), got, tc.want)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return "\"" + *s + "\""
}
