package envoygateway

import (
	"encoding/json"
	"reflect"

	jsonpatch "github.com/evanphx/json-patch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// mergeSpecs is Envoy Gateway's utils.Merge of two spec documents of
// type spec (nil: untyped): each as the API type marshals it (fields it
// does not define, and empty optional ones, left out), then patch laid
// over doc — a JSON merge patch (RFC 7386: objects merge key by key,
// lists and scalars are replaced), or a strategic merge patch, which
// merges only the lists the API type marks patchStrategy=merge, item by
// item on their patchMergeKey (a BackendTrafficPolicy's compressor and
// httpUpgrade, by type), and replaces the others as JSON merge does.
func mergeSpecs(spec reflect.Type, doc, patch []byte, strategic bool) ([]byte, error) {
	if spec != nil {
		doc, patch = typedJSON(spec, doc), typedJSON(spec, patch)
	}
	if strategic && spec != nil {
		return strategicpatch.StrategicMergePatch(doc, patch, reflect.New(spec).Interface())
	}
	return jsonpatch.MergePatch(doc, patch)
}

// typedJSON is raw as the API type spec marshals it; raw itself when it
// does not decode as one (an invalid policy, which merges nowhere).
func typedJSON(spec reflect.Type, raw []byte) []byte {
	v := reflect.New(spec).Interface()
	if json.Unmarshal(raw, v) != nil {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}
