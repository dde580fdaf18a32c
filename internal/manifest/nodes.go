package manifest

import (
	"bytes"

	"github.com/gwpol/gwpol/internal/diag"
	yaml "go.yaml.in/yaml/v3"
)

// The node API: how YAML files that are not Kubernetes objects (WSO2
// policy definitions and engine build manifests, read by policyversion)
// are read from the nodes ParseNodes returns, with the rules objects are
// read by — aliases resolved, merge keys (<<) applied, scalars typed by
// their tags as sigs.k8s.io/yaml types them (a timestamp stays its text,
// a number its literal) — so that the two readers cannot disagree.

// Resolve returns the node an alias stands for, n itself otherwise.
func Resolve(n *yaml.Node) *yaml.Node { return resolve(n) }

// Field returns the value of key in mapping n (aliases resolved, merge
// keys applied, an own key before a merged one) and the key's node, or
// nils when n is not a mapping or has no such key.
func Field(n *yaml.Node, key string) (val, k *yaml.Node) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	eachPair(n, func(kn, vn *yaml.Node) {
		if k == nil && resolve(kn).Value == key {
			val, k = resolve(vn), kn
		}
	})
	return val, k
}

// Scalar returns a scalar node's text; ok is false for mappings,
// sequences and null.
func Scalar(n *yaml.Node) (text string, ok bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", false
	}
	return n.Value, true
}

// NodePos is the position of n in file (just the file for a nil node).
func NodePos(file string, n *yaml.Node) diag.Position {
	if n == nil {
		return diag.Position{File: file}
	}
	return diag.Position{File: file, Line: n.Line, Col: n.Column}
}

// NodeJSON renders n as JSON exactly as Object.FieldJSON renders a field
// of an object; errors are positioned in file. A nil node is nil.
func NodeJSON(file string, n *yaml.Node) ([]byte, error) {
	if n == nil {
		return nil, nil
	}
	var b bytes.Buffer
	if err := writeJSON(&b, n, &Object{File: file}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
