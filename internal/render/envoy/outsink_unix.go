//go:build darwin || linux

package envoy

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// maxIovecs is how many slices one writev takes (IOV_MAX on Linux and
// macOS).
const maxIovecs = 1024

// vectoredWriter writes slices to rc's descriptor with writev, through
// the runtime's poller (a non-blocking descriptor waits to be writable
// instead of failing), taking up where a short write stopped. What one
// system call needs (its iovec array, the function the poller calls) is
// made once per writer and reused: writeRun writes one run at a time.
func vectoredWriter(rc syscall.RawConn) func([][]byte) error {
	v := &vectored{iov: make([]unix.Iovec, 0, maxIovecs)}
	v.call = v.writev
	return func(bufs [][]byte) error {
		defer func() { v.bufs = nil }() // holds none of the caller's slices
		for len(bufs) > 0 {
			v.bufs = bufs[:min(len(bufs), maxIovecs)]
			err := rc.Write(v.call)
			n, werr := v.n, v.err
			switch {
			case err != nil:
				return err
			case werr == unix.EINTR:
				continue
			case werr != nil:
				return werr
			case n == 0:
				return unix.EIO // a write that takes nothing would loop forever
			}
			for n > 0 && len(bufs) > 0 {
				if n < len(bufs[0]) {
					bufs[0] = bufs[0][n:]
					n = 0
					break
				}
				n -= len(bufs[0])
				bufs = bufs[1:]
			}
		}
		return nil
	}
}

// vectored is one vectoredWriter's state between the poller's calls.
type vectored struct {
	iov  []unix.Iovec
	bufs [][]byte
	n    int
	err  error
	call func(fd uintptr) bool // writev, as the poller calls it
}

// writev writes bufs in one system call; false asks the poller to wait
// until the descriptor is writable.
func (v *vectored) writev(fd uintptr) bool {
	v.n, v.err = writev(fd, v.bufs, &v.iov)
	return v.err != unix.EAGAIN
}
