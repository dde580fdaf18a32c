package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/inert"
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
		return inert.JSON(b.Bytes()), nil
	}
	// The YAML emitter writes bidi controls raw and refuses DEL and C1
	// controls: those reach it as escapes written out (inert.JSONForYAML).
	return yaml.JSONToYAML(inert.JSONForYAML(b.Bytes()))
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
	path, mode, err := outTarget(path)
	if err != nil {
		return err
	}
	guard := guardTemporary()
	defer guard.stop()
	dir := filepath.Dir(path)
	tmp, err := guard.create(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return outError(path, dir, err)
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file private; the output keeps the mode of the
	// file it replaces, or is an ordinary one.
	if err := tmp.Chmod(mode); err != nil {
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
	fmt.Fprintf(g.IO.ErrOut, "wrote %s\n", inert.String(path))
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

// outTarget is the file --out replaces and the mode it is written with.
// Only a regular file is replaced: renaming over a device, a FIFO or a
// socket would destroy it. A symlink is followed, so the link stays and
// the file it names is what is written.
func outTarget(path string) (string, os.FileMode, error) {
	st, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, 0o644, nil
	}
	if err != nil {
		return "", 0, diag.Errorf(diag.Usage, "cannot write %s: %v", path, err)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", 0, diag.Errorf(diag.Invalid, "--out %s: a symlink that cannot be followed: %v", path, err)
		}
		if st, err = os.Stat(resolved); err != nil {
			return "", 0, diag.Errorf(diag.Usage, "cannot write %s: %v", path, err)
		}
		path = resolved
	}
	if !st.Mode().IsRegular() {
		return "", 0, diag.Errorf(diag.Invalid, "--out %s: not a regular file (%s); gwpol replaces only regular files", path, fileKind(st.Mode()))
	}
	return path, st.Mode().Perm(), nil
}

// fileKind names a file type for a message.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
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

// tempGuard removes the temporary file when SIGINT or SIGTERM arrives
// before stop is called, then lets the signal end the process as it
// would have: a deferred Remove does not run on a signal. It listens
// before the file exists, so no signal slips between the two.
type tempGuard struct {
	mu     sync.Mutex
	name   string
	caught chan os.Signal
	done   chan struct{}
}

func guardTemporary() *tempGuard {
	g := &tempGuard{caught: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(g.caught, os.Interrupt, syscall.SIGTERM)
	go g.wait()
	return g
}

// create makes the temporary file under the guard's lock, so a signal
// arriving meanwhile waits for its name and removes it.
func (g *tempGuard) create(dir, pattern string) (*os.File, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f, err := os.CreateTemp(dir, pattern)
	if err == nil {
		g.name = f.Name()
	}
	return f, err
}

func (g *tempGuard) wait() {
	select {
	case sig := <-g.caught:
		g.mu.Lock() // held until the process ends: no new file is tracked
		if g.name != "" {
			os.Remove(g.name)
		}
		signal.Reset(sig)
		self, err := os.FindProcess(os.Getpid())
		if err == nil {
			err = self.Signal(sig)
		}
		if err != nil {
			os.Exit(ExitInternal) // the signal cannot be re-raised: end anyway
		}
	case <-g.done:
	}
}

func (g *tempGuard) stop() {
	signal.Stop(g.caught)
	close(g.done)
}
