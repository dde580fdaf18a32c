//go:build !(darwin || linux)

package envoy

import "syscall"

// vectoredWriter is nil where gwpol makes no vectored writes: the
// document goes out through the buffer alone.
func vectoredWriter(syscall.RawConn) func([][]byte) error { return nil }
