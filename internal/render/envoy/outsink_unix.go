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
// instead of failing), taking up where a short write stopped.
func vectoredWriter(rc syscall.RawConn) func([][]byte) error {
	return func(bufs [][]byte) error {
		for len(bufs) > 0 {
			var n int
			var werr error
			err := rc.Write(func(fd uintptr) bool {
				n, werr = unix.Writev(int(fd), bufs[:min(len(bufs), maxIovecs)])
				return werr != unix.EAGAIN
			})
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
