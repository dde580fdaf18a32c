package policyversion

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"time"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	yaml "go.yaml.in/yaml/v3"
)

// Bounds on what one definition or manifest file may cost.
const (
	maxFileBytes = 16 << 20
)

// readFile reads a file whole, refusing anything absurdly large.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, diag.Errorf(diag.Invalid, "%s: cannot read: %v", path, unwrapPathErr(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, diag.Errorf(diag.Invalid, "%s: cannot read: %v", path, unwrapPathErr(err))
	}
	if len(data) > maxFileBytes {
		return nil, diag.Errorf(diag.Invalid, "%s: larger than %d bytes; this is not a policy definition or build manifest", path, maxFileBytes)
	}
	return data, nil
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseDocs decodes every document of a YAML stream into root nodes, with
// manifest's FILE:LINE:COL errors and nesting bounds. Empty documents are
// dropped.
func parseDocs(file string, data []byte) ([]*yaml.Node, error) {
	return manifest.ParseNodes(file, data, manifest.Limits{})
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// field returns the value node of key in mapping n and the key node, or nils.
func field(n *yaml.Node, key string) (val, k *yaml.Node) {
	n = resolveAlias(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if resolveAlias(n.Content[i]).Value == key {
			return resolveAlias(n.Content[i+1]), n.Content[i]
		}
	}
	return nil, nil
}

// scalar reports a scalar node's text; ok is false for mappings, sequences
// and null.
func scalar(n *yaml.Node) (string, bool) {
	n = resolveAlias(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", false
	}
	return n.Value, true
}

func posOf(file string, n *yaml.Node) diag.Position {
	if n == nil {
		return diag.Position{File: file}
	}
	return diag.Position{File: file, Line: n.Line, Col: n.Column}
}

func describeNode(n *yaml.Node) string {
	switch resolveAlias(n).Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	}
	return "a scalar"
}

// nodeJSON renders a YAML node as JSON, decoding it the way yaml.v3 does
// (merge keys, aliases, YAML 1.1 numbers) and then making the result JSON:
// timestamps become their text, non-string keys their text.
func nodeJSON(n *yaml.Node) (json.RawMessage, error) {
	if n == nil {
		return nil, nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, err
	}
	v, err := jsonValue(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func jsonValue(v any) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			v[k] = c
		}
		return v, nil
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = c
		}
		return out, nil
	case []any:
		for i, e := range v {
			c, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			v[i] = c
		}
		return v, nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%v is not a JSON number", v)
		}
		return v, nil
	case time.Time:
		return v.Format(time.RFC3339Nano), nil
	case []byte:
		return string(v), nil
	}
	return v, nil
}
