package version

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/gwpol/gwpol/internal/diag"
	yaml "go.yaml.in/yaml/v3"
)

// Bounds on what one definition or manifest file may cost.
const (
	maxFileBytes = 16 << 20
	maxDepth     = 64
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

var yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are yaml.v3's parser (not scanner) errors. yaml.v3 reports
// their line 0-based (scanner errors 1-based), the line where the construct
// that failed began.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// parseDocs decodes every document of a YAML stream into nodes, turning
// parser errors into FILE:LINE:COL errors. Empty documents are dropped.
func parseDocs(file string, data []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			msg := err.Error()
			if m := yamlLineErr.FindStringSubmatch(msg); m != nil {
				line, _ := strconv.Atoi(m[1])
				if parserProblems[m[2]] {
					line++ // yaml.v3 reports parser errors with 0-based lines
				}
				return nil, diag.Errorf(diag.Invalid, "%s:%d:%d: invalid YAML: %s", file, line, firstCol(data, line), m[2])
			}
			return nil, diag.Errorf(diag.Invalid, "%s:1:1: invalid YAML: %s", file, trimYAMLPrefix(msg))
		}
		root := &doc
		if root.Kind == yaml.DocumentNode {
			if len(root.Content) == 0 {
				continue
			}
			root = root.Content[0]
		}
		if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
			continue
		}
		if err := checkDepth(file, root); err != nil {
			return nil, err
		}
		docs = append(docs, root)
	}
}

func trimYAMLPrefix(s string) string {
	if len(s) > 6 && s[:6] == "yaml: " {
		return s[6:]
	}
	return s
}

// firstCol is the column of the first non-blank character of a 1-based
// line, the best column the parser's line-only errors allow.
func firstCol(data []byte, line int) int {
	for i := 1; i < line; i++ {
		nl := bytes.IndexByte(data, '\n')
		if nl < 0 {
			return 1
		}
		data = data[nl+1:]
	}
	for i, b := range data {
		if b != ' ' && b != '\t' {
			return i + 1
		}
	}
	return 1
}

// checkDepth bounds nesting before anything recurses over the tree. Aliases
// are not followed here; yaml.v3 itself refuses alias-expansion bombs.
func checkDepth(file string, root *yaml.Node) error {
	type frame struct {
		n     *yaml.Node
		depth int
	}
	stack := []frame{{root, 0}}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if f.depth > maxDepth {
			return diag.Errorf(diag.Invalid, "%s:%d:%d: nesting deeper than %d levels", file, f.n.Line, f.n.Column, maxDepth)
		}
		for _, c := range f.n.Content {
			stack = append(stack, frame{c, f.depth + 1})
		}
	}
	return nil
}

// resolveAlias follows an alias to its anchor.
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
