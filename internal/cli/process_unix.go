//go:build unix

package cli

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has this ID (so a temporary it
// named is a leftover).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
