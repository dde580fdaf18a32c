package families

import "testing"

// TestEveryFieldDeclaresWrites: every field of every registered kind
// declares the Envoy paths it writes (policy.FieldSpec.Writes), or
// policy.WritesNothing, so that merge can judge two kinds of different
// families writing one path (TestFieldWritesDeclared in internal/cli
// checks the declarations against what render builds).
func TestEveryFieldDeclaresWrites(t *testing.T) {
	for _, k := range Registry().Kinds() {
		for _, f := range k.Spec().Fields {
			if len(f.Writes) == 0 {
				t.Errorf("%s field %s declares no Envoy paths (FieldSpec.Writes; policy.WritesNothing if it renders none)", k.GroupKind().Kind, f.Key)
			}
			for _, w := range f.Writes {
				if w == "" || (w == "-") != (len(f.Writes) == 1 && f.Writes[0] == "-") {
					t.Errorf("%s field %s: %q is not a path (policy.WritesNothing stands alone)", k.GroupKind().Kind, f.Key, w)
				}
			}
		}
	}
}
