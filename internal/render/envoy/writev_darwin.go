package envoy

import "golang.org/x/sys/unix"

// writev writes bufs to fd in one system call; on macOS through
// unix.Writev (system calls go through libc there), iov unused.
func writev(fd uintptr, bufs [][]byte, _ *[]unix.Iovec) (int, error) {
	return unix.Writev(int(fd), bufs)
}
