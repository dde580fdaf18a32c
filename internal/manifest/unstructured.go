package manifest

import (
	"math"
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// Unstructured is the object as the Kubernetes API server holds a decoded
// request body: maps, slices, strings, bools, nil, int64 for integral
// numbers that fit and float64 for every other number — what
// k8s.io/apimachinery's util/json.Unmarshal makes of the object's JSON
// (JSON), read straight from the YAML nodes by the same scalar rules, so
// that schema validation sees what the API server would. The result is
// the caller's to change (defaulting and pruning do).
func (o *Object) Unstructured() (map[string]any, error) {
	v, err := unstructuredOf(o.tree(), o)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, Errorf(o.Pos, "object is not a mapping")
	}
	return m, nil
}

func unstructuredOf(n *yaml.Node, o *Object) (any, error) {
	n = resolve(n)
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return unstructuredOf(n.Content[0], o)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		if !hasMergeKey(n) {
			// eachPair's order without its closure, one per mapping of
			// every object the schema stage checks
			for i := 0; i+1 < len(n.Content); i += 2 {
				x, err := unstructuredOf(n.Content[i+1], o)
				if err != nil {
					return nil, err
				}
				m[resolve(n.Content[i]).Value] = x
			}
			return m, nil
		}
		var err error
		eachPair(n, func(k, v *yaml.Node) {
			if err != nil {
				return
			}
			var x any
			x, err = unstructuredOf(v, o)
			m[resolve(k).Value] = x
		})
		return m, err
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			x, err := unstructuredOf(c, o)
			if err != nil {
				return nil, err
			}
			s[i] = x
		}
		return s, nil
	case yaml.ScalarNode:
		typ, text, err := scalarJSON(n, o)
		if err != nil {
			return nil, err
		}
		switch typ {
		case jsonNull:
			return nil, nil
		case jsonBool:
			return text == "true", nil
		case jsonNumber:
			return jsonNumberValue(text), nil
		}
		return text, nil
	}
	return nil, Errorf(o.posOf(n), "unsupported YAML node")
}

// jsonNumberValue reads a JSON number literal as util/json.Unmarshal
// does: an integer that fits is an int64, anything else a float64.
func jsonNumberValue(text string) any {
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		return i
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !math.IsInf(f, 0) {
		return text // not reached: scalarJSON checked the literal
	}
	return f
}
