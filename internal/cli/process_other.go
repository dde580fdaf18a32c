//go:build !unix

package cli

import "os"

// processGone reports whether no process has this ID (so a temporary it
// named is a leftover).
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	p.Release()
	return false
}
