package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/inert"
	yaml "go.yaml.in/yaml/v3"
)

func checkFormat(got string, allowed ...string) error {
	if !slices.Contains(allowed, got) {
		return usageError("-o must be one of %v, not %q", allowed, got)
	}
	return nil
}

// encode renders v as indented JSON or as YAML (through JSON, so field
// names and order are the same in both: a Gateway's name comes before its
// listeners, as its struct lists them, not in alphabetical order).
func encode(format string, v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if format == "json" {
		return inert.JSON(b.Bytes()), nil
	}
	// The YAML emitter writes bidi controls raw and refuses DEL and C1
	// controls: those reach it as escapes written out (inert.JSONForYAML).
	return orderedYAML(inert.JSONForYAML(b.Bytes()))
}

// orderedYAML transcodes JSON to block-style YAML keeping the order of
// every object's keys.
func orderedYAML(data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var plain func(n *yaml.Node)
	plain = func(n *yaml.Node) {
		n.Style = 0 // block collections, plain scalars (quoted where YAML needs it)
		for _, c := range n.Content {
			plain(c)
		}
	}
	plain(&doc)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return out.Bytes(), enc.Close()
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
	dir, name, mode, err := outTarget(path, g.OutFollowSymlinks)
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return outError(path, dir, err)
	}
	defer root.Close()
	return writeIn(g, root, name, path, dir, mode, write)
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

// writeError is a write, close or rename of an --out file that failed:
// exit 3 naming the file, never the usage hint (the flag was well formed).
func writeError(path string, err error) error {
	return diag.Errorf(diag.Invalid, "cannot write %s: %v", path, err)
}

// outFollowHelp documents --out-follow-symlinks on every command with --out.
const outFollowHelp = "with --out FILE, write the file a symlink at FILE names (default: a symlink there is refused, so a link committed at the output path cannot redirect the write)"

// outTarget is the directory and name of the file --out replaces, and the
// mode it is written with. Only a regular file is replaced: renaming over
// a device, a FIFO or a socket would destroy it. A symlink is refused,
// unless follow (--out-follow-symlinks): then the link stays and the file
// it names is what is written.
func outTarget(path string, follow bool) (dir, name string, mode os.FileMode, err error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return filepath.Dir(path), filepath.Base(path), 0o644, nil
	}
	if err != nil {
		return "", "", 0, diag.Errorf(diag.Invalid, "cannot write %s: %v", path, err)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		if !follow {
			return "", "", 0, diag.Errorf(diag.Invalid, "--out %s is a symlink; gwpol does not write through a symlink unless --out-follow-symlinks is given", path)
		}
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", "", 0, diag.Errorf(diag.Invalid, "--out %s: a symlink that cannot be followed: %v", path, err)
		}
		if st, err = os.Stat(resolved); err != nil {
			return "", "", 0, diag.Errorf(diag.Invalid, "cannot write %s: %v", path, err)
		}
		path = resolved
	}
	if !st.Mode().IsRegular() {
		return "", "", 0, diag.Errorf(diag.Invalid, "--out %s: not a regular file (%s); gwpol replaces only regular files", path, fileKind(st.Mode()))
	}
	return filepath.Dir(path), filepath.Base(path), st.Mode().Perm(), nil
}

// fileKind names a file type for a message.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}
