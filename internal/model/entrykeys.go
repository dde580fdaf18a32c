package model

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"k8s.io/apimachinery/pkg/util/validation"
)

// entryKeys reports every key of a Secret's or ConfigMap's data (and
// stringData, binaryData) the API server refuses, at the key. The key is
// not quoted: a name the API server refuses is not one gwpol may say (it
// may be a value written in the wrong place).
func entryKeys(o *manifest.Object) []diag.Diagnostic {
	var out []diag.Diagnostic
	for _, field := range []string{"data", "stringData", "binaryData"} {
		for i, k := range o.MapKeys(field) {
			if len(validation.IsConfigMapKey(k.Name)) == 0 {
				continue
			}
			out = append(out, diag.Diagnostic{Code: LintInvalidDocument.Code, Severity: diag.Error, Object: o.Ref(), Field: field, Pos: k.Pos,
				Message: fmt.Sprintf("%s key %d is not a valid key name (1 to 253 of a-z A-Z 0-9 '-' '_' '.', not '.' or '..' nor starting with '..'); the API server rejects this %s, and gwpol reads nothing from it", field, i+1, o.Kind)})
		}
	}
	return out
}
