package cli

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// unnamedFile is the output written to an O_TMPFILE in the output's
// directory: it has no name until linkat gives it one, so a run killed
// by any signal, SIGKILL included, leaves nothing behind.
type unnamedFile struct {
	*os.File
	dir   *os.File // the output directory, opened through the root
	name  string
	guard *tempGuard
	done  bool
}

// createUnnamed opens an unnamed file in root's directory, or returns
// errNoUnnamed where the kernel, the filesystem or a missing /proc (the
// unprivileged way to link such a file) rules it out.
func createUnnamed(root *os.Root, name string, mode os.FileMode, guard *tempGuard) (outFile, error) {
	dir, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	fd, err := unix.Openat(int(dir.Fd()), ".", unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(mode.Perm()))
	if err != nil {
		dir.Close()
		if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
			return nil, errNoUnnamed
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	if _, err := os.Lstat(procFD(fd)); err != nil {
		unix.Close(fd)
		dir.Close()
		return nil, errNoUnnamed
	}
	// Created under the umask; the output keeps the mode of the file it
	// replaces, or is an ordinary one.
	if err := unix.Fchmod(fd, uint32(mode.Perm())); err != nil {
		unix.Close(fd)
		dir.Close()
		return nil, &os.PathError{Op: "chmod", Path: name, Err: err}
	}
	return &unnamedFile{File: os.NewFile(uintptr(fd), name), dir: dir, name: name, guard: guard}, nil
}

func procFD(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// commit links the complete file in as name: directly when there is no
// file by that name, else by a temporary name renamed over it (a link
// cannot replace a file). Only that last step has a name a SIGKILL could
// leave behind, and the next run removes it.
func (u *unnamedFile) commit() error {
	defer u.discard()
	src, dfd := procFD(int(u.Fd())), int(u.dir.Fd())
	return u.guard.commit(func() error {
		err := unix.Linkat(unix.AT_FDCWD, src, dfd, u.name, unix.AT_SYMLINK_FOLLOW)
		if !errors.Is(err, unix.EEXIST) {
			return linkError(u.name, err)
		}
		tmp := tempName(u.name)
		if err := unix.Linkat(unix.AT_FDCWD, src, dfd, tmp, unix.AT_SYMLINK_FOLLOW); err != nil {
			return linkError(tmp, err)
		}
		u.guard.name = tmp
		if err := unix.Renameat(dfd, tmp, dfd, u.name); err != nil {
			_ = unix.Unlinkat(dfd, tmp, 0)
			u.guard.name = ""
			return &os.LinkError{Op: "rename", Old: tmp, New: u.name, Err: err}
		}
		u.guard.name = ""
		return nil
	})
}

func linkError(name string, err error) error {
	if err == nil {
		return nil
	}
	return &os.PathError{Op: "link", Path: name, Err: err}
}

// discard closes the unnamed file: unless it was linked, the kernel frees it.
func (u *unnamedFile) discard() {
	if u.done {
		return
	}
	u.done = true
	u.Close()
	u.dir.Close()
}
