package model

import "slices"

// KnownKinds are the kinds model decodes itself (Gateway API and core),
// sorted by group and kind: for help text and man pages, which list what
// gwpol reads from the kinds' registrations rather than by hand.
func KnownKinds() []GroupKind {
	out := make([]GroupKind, 0, len(kinds))
	for gk := range kinds {
		out = append(out, gk)
	}
	slices.SortFunc(out, func(a, b GroupKind) int {
		return Key{Group: a.Group, Kind: a.Kind}.Compare(Key{Group: b.Group, Kind: b.Kind})
	})
	return out
}
