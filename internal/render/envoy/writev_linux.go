package envoy

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// writev writes bufs to fd in one system call, through *iov, an iovec
// array reused from call to call: unix.Writev makes one per call and
// grows it to a thousand entries, the largest of what writing a 30k-route
// platform's output allocated. The entries are cleared after the call,
// so the array holds none of the caller's bytes.
func writev(fd uintptr, bufs [][]byte, iov *[]unix.Iovec) (int, error) {
	v := (*iov)[:0]
	for _, b := range bufs {
		var e unix.Iovec
		if len(b) > 0 {
			e.Base = &b[0]
			e.SetLen(len(b))
		}
		v = append(v, e)
	}
	*iov = v
	defer clear(v)
	if len(v) == 0 {
		return 0, nil
	}
	n, _, errno := unix.Syscall(unix.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&v[0])), uintptr(len(v)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}
