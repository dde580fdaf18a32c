package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/inert"
)

// An --out file is written inside an os.Root opened on its directory, by
// one name that is a single path component: nothing a name holds (.., a
// separator, a symlink met on the way) can make the write leave that
// directory. The data goes first to a file no one else sees — on Linux an
// unnamed O_TMPFILE that the kernel frees if gwpol dies, elsewhere a
// temporary .NAME.tmp-PID-N beside the output — and becomes the output
// only when complete, by one link or rename.

// outFile is an output being written: Write it, then commit (it becomes
// the file) or discard it.
type outFile interface {
	io.Writer
	commit() error
	discard()
}

// errNoUnnamed: the platform or filesystem has no unnamed temporary files;
// a named temporary is used instead.
var errNoUnnamed = errors.New("no unnamed temporary files here")

// writeIn writes name in root: shown is the path the user knows it by,
// dir its directory (for messages), mode its permissions.
func writeIn(g *globalOptions, root *os.Root, name, shown, dir string, mode os.FileMode, write func(io.Writer) error) error {
	removeStaleTemporaries(root, name)
	guard := guardTemporary(root)
	defer guard.stop()
	f, err := createUnnamed(root, name, mode, guard)
	if errors.Is(err, errNoUnnamed) {
		f, err = createNamed(root, name, mode, guard)
	}
	if err != nil {
		return outError(shown, dir, err)
	}
	if err := write(f); err != nil {
		f.discard()
		if _, produced := errors.AsType[*diag.KindError](err); produced {
			return err // the output could not be produced, not written
		}
		return writeError(shown, err)
	}
	if err := f.commit(); err != nil {
		f.discard()
		return writeError(shown, err)
	}
	fmt.Fprintf(g.IO.ErrOut, "wrote %s\n", inert.String(shown))
	return nil
}

// writeDerived writes a file whose name gwpol derived from the input into
// the --out directory root (dir as the user gave it). The name must be
// one local path component; an existing file by that name is replaced
// only if it is a regular file — a symlink there is never followed.
func writeDerived(g *globalOptions, root *os.Root, dir, name string, write func(io.Writer) error) error {
	shown := filepath.Join(dir, name)
	if !filepath.IsLocal(name) || strings.ContainsAny(name, `/\`) || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return diag.Errorf(diag.Invalid, "refusing to write %q under --out %s: not a plain file name", name, dir)
	}
	mode := os.FileMode(0o644)
	st, err := root.Lstat(name)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return diag.Errorf(diag.Invalid, "--out %s: %s is %s; gwpol replaces only regular files in an output directory and never follows a symlink there", dir, name, fileKind(st.Mode()))
	case err == nil:
		mode = st.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return writeError(shown, err)
	}
	return writeIn(g, root, name, shown, dir, mode, write)
}

// tempPrefix is how the temporaries of name begin; the process ID follows,
// so a later run can tell a dead run's leftovers from a live one's.
func tempPrefix(name string) string { return "." + name + ".tmp-" }

func tempName(name string) string {
	return tempPrefix(name) + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(rand.Uint64(), 36)
}

// removeStaleTemporaries removes the temporaries of name that a gwpol run
// left behind when it was killed: regular files named .NAME.tmp-PID-N
// whose process is gone (or is this one: a container may give the same
// PID to every run).
func removeStaleTemporaries(root *os.Root, name string) {
	d, err := root.Open(".")
	if err != nil {
		return
	}
	entries, _ := d.ReadDir(-1)
	d.Close()
	prefix := tempPrefix(name)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 {
			continue // not one of gwpol's
		}
		if pid == os.Getpid() || processGone(pid) {
			_ = root.Remove(e.Name())
		}
	}
}

// namedFile is the portable temporary: a named file beside the output,
// renamed over it when complete.
type namedFile struct {
	*os.File
	root        *os.Root
	tmp, name   string
	guard       *tempGuard
	closed      bool
	committedOK bool
}

func createNamed(root *os.Root, name string, mode os.FileMode, guard *tempGuard) (outFile, error) {
	n := &namedFile{root: root, name: name, guard: guard}
	var err error
	guard.locked(func() {
		n.tmp = tempName(name)
		n.File, err = root.OpenFile(n.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			guard.name = n.tmp
		}
	})
	if err != nil {
		return nil, err
	}
	// The file is created private; the output keeps the mode of the file
	// it replaces, or is an ordinary one.
	if err := n.Chmod(mode); err != nil {
		n.discard()
		return nil, err
	}
	return n, nil
}

func (n *namedFile) commit() error {
	n.closed = true
	if err := n.Close(); err != nil {
		return err
	}
	return n.guard.commit(func() error {
		if err := n.root.Rename(n.tmp, n.name); err != nil {
			return err
		}
		n.guard.name = ""
		n.committedOK = true
		return nil
	})
}

func (n *namedFile) discard() {
	if !n.closed {
		n.Close()
	}
	if n.committedOK {
		return
	}
	n.guard.locked(func() {
		_ = n.root.Remove(n.tmp)
		n.guard.name = ""
	})
}

// tempGuard removes the named temporary when SIGINT or SIGTERM arrives
// before stop is called, then lets the signal end the process as it would
// have: a deferred Remove does not run on a signal. It listens before the
// file exists, so no signal slips between the two. A signal ignored when
// gwpol started stays ignored (listening would undo that) — as far as Go
// lets a program know: signal.Ignored sees SIGINT (and SIGHUP) ignored at
// start, but the runtime installs its own SIGTERM handler before main
// runs, so a SIGTERM ignored by the parent cannot be told apart and ends
// gwpol as it ends any Go program.
//
// The handler and the commit (the rename or link that makes the output)
// take one lock: a signal during the commit waits for it, and a commit
// after the signal never starts — the handler keeps the lock until the
// process ends, so the main goroutine cannot go on to fail its rename and
// exit with an error of its own.
type tempGuard struct {
	mu     sync.Mutex
	root   *os.Root
	name   string // the named temporary in root, "" when there is none
	caught chan os.Signal
	done   chan struct{}
	exited chan struct{}
}

// guardedSignals are the signals that end gwpol and are worth cleaning up
// after; SIGKILL cannot be caught (the unnamed temporary covers it).
var guardedSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

func guardTemporary(root *os.Root) *tempGuard {
	g := &tempGuard{root: root, caught: make(chan os.Signal, 1), done: make(chan struct{}), exited: make(chan struct{})}
	var sigs []os.Signal
	for _, s := range guardedSignals {
		if !signal.Ignored(s) {
			sigs = append(sigs, s)
		}
	}
	if len(sigs) > 0 {
		signal.Notify(g.caught, sigs...)
	}
	go g.wait()
	return g
}

// locked runs f under the guard's lock.
func (g *tempGuard) locked(f func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	f()
}

// commit runs f, the step that makes the output, under the guard's lock.
func (g *tempGuard) commit(f func() error) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return f()
}

func (g *tempGuard) wait() {
	defer close(g.exited)
	select {
	case sig := <-g.caught:
		g.die(sig)
	case <-g.done:
		// A signal caught just before stop is still honoured; the output
		// is complete by now, so there is nothing to remove.
		select {
		case sig := <-g.caught:
			g.die(sig)
		default:
		}
	}
}

// die removes the temporary and ends the process by sig. It never returns.
func (g *tempGuard) die(sig os.Signal) {
	g.mu.Lock() // held until the process ends: no commit starts after this
	if g.name != "" {
		_ = g.root.Remove(g.name)
	}
	signal.Reset(sig)
	if self, err := os.FindProcess(os.Getpid()); err == nil && self.Signal(sig) == nil {
		select {} // the signal ends the process
	}
	os.Exit(ExitInternal) // the signal cannot be re-raised: end anyway
}

// stop ends the guard; it returns once its goroutine has, so a signal
// already caught has ended the process before the caller goes on.
func (g *tempGuard) stop() {
	signal.Stop(g.caught)
	close(g.done)
	<-g.exited
}
