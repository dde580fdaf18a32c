package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	"sigs.k8s.io/yaml"
)

func checkFormat(got string, allowed ...string) error {
	if !slices.Contains(allowed, got) {
		return usageError("-o must be one of %v, not %q", allowed, got)
	}
	return nil
}

// encode renders v as indented JSON or as YAML (through JSON, so field
// names and order are the same in both).
func encode(format string, v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if format == "json" {
		return b.Bytes(), nil
	}
	return yaml.JSONToYAML(b.Bytes())
}

// writeData encodes v and writes it to stdout or, atomically, to path.
func writeData(g *globalOptions, path, format string, v any) error {
	data, err := encode(format, v)
	if err != nil {
		return err
	}
	return writeOut(g, path, data)
}

// writeOut writes data to stdout, or to path through a temporary file and a
// rename, so a failed run never leaves a truncated file.
func writeOut(g *globalOptions, path string, data []byte) error {
	return writeOutWith(g, path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeOutWith is writeOut for output written as it is produced.
func writeOutWith(g *globalOptions, path string, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		return write(g.IO.Out)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return outError(path, dir, err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file private; an output file is an ordinary one.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return diag.Errorf(diag.Usage, "cannot write %s: %v", path, err)
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		if _, produced := errors.AsType[*diag.KindError](err); produced {
			return err // the output could not be produced, not written
		}
		return diag.Errorf(diag.Usage, "cannot write %s: %v", path, err)
	}
	if err := tmp.Close(); err != nil {
		return diag.Errorf(diag.Usage, "cannot write %s: %v", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return diag.Errorf(diag.Usage, "cannot write %s: %v", path, err)
	}
	fmt.Fprintf(g.IO.ErrOut, "wrote %s\n", path)
	return nil
}

// outError says why --out cannot be written, naming the path the user gave
// (not the temporary file beside it). It is an input problem (exit 3),
// not a usage one: the flag was well formed.
func outError(path, dir string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return diag.Errorf(diag.Invalid, "cannot write %s: directory %s does not exist", path, dir)
	case errors.Is(err, fs.ErrPermission):
		return diag.Errorf(diag.Invalid, "cannot write %s: no permission to create files in %s", path, dir)
	}
	return diag.Errorf(diag.Invalid, "cannot write %s: %v", path, err)
}
