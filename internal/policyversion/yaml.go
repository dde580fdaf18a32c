package policyversion

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"

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

// describeNode names what a node is, for "must be a mapping, found …".
func describeNode(n *yaml.Node) string {
	switch manifest.Resolve(n).Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a sequence"
	}
	return "a scalar"
}

// nodeJSON renders a node as JSON the way manifest renders an object's
// fields (manifest.NodeJSON: numbers keep their literal, timestamps their
// text), with object keys sorted so that the bytes do not depend on the
// order the file lists them in. The error has no position: the caller
// gives it.
func nodeJSON(file string, n *yaml.Node) (json.RawMessage, error) {
	raw, err := manifest.NodeJSON(file, n)
	if pe, ok := errors.AsType[*manifest.PosError](err); ok {
		return nil, errors.New(pe.Msg)
	}
	if err != nil || raw == nil {
		return raw, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}
