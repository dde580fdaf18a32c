package envoygateway

import (
	"encoding/json"
	"reflect"

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
	var d, p any
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	return json.Marshal(mergePatch(d, p))
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

// mergePatch applies a JSON merge patch (RFC 7386).
func mergePatch(doc, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	d, ok := doc.(map[string]any)
	if !ok {
		d = map[string]any{}
	}
	out := make(map[string]any, len(d)+len(p))
	for k, v := range d {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}
