package envoy

import (
	"bufio"
	"io"
	"syscall"
)

// outSink is the buffer the document goes out through. Over a file (a
// writer with a file descriptor: stdout, --out) it can also hand a run of
// already written byte slices to the kernel in one vectored write
// (writeRun), without copying them into the buffer first: under a target
// whose every Gateway lists the clusters of every Service port a backend
// policy targets (policy.Target.UnroutedBackendClusters), those are the
// same kept bytes written again for each Gateway — 480 MB of the 10k
// generated platform's output, 3.8 GB at 30k — and copying them through
// the buffer was most of what writing them cost.
//
// Its write errors are sticky, as bufio's are: after one, every write and
// Flush reports it.
type outSink struct {
	*bufio.Writer
	// vectored writes bufs out in order, in as few system calls as it
	// can; nil where there is no file descriptor (or no writev).
	vectored func(bufs [][]byte) error
	err      error
}

// minRunBytes is the least a run of kept slices must hold to go out in a
// vectored write: below it, copying into the buffer costs less than the
// flush and the system call.
const minRunBytes = 32 << 10

func newOutSink(dst io.Writer) *outSink {
	s := &outSink{Writer: bufio.NewWriterSize(dst, 1<<16)}
	if f, ok := dst.(interface {
		SyscallConn() (syscall.RawConn, error)
	}); ok {
		if rc, err := f.SyscallConn(); err == nil {
			s.vectored = vectoredWriter(rc)
		}
	}
	return s
}

// writeRun writes bufs, in order, after what is buffered.
func (s *outSink) writeRun(bufs [][]byte) error {
	if s.err != nil {
		return s.err
	}
	if s.err = s.Writer.Flush(); s.err != nil {
		return s.err
	}
	s.err = s.vectored(bufs)
	return s.err
}

func (s *outSink) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	return s.Writer.Write(p)
}

func (s *outSink) WriteByte(c byte) error {
	if s.err != nil {
		return s.err
	}
	return s.Writer.WriteByte(c)
}

func (s *outSink) WriteString(str string) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	return s.Writer.WriteString(str)
}

// Flush writes out what is buffered.
func (s *outSink) Flush() error {
	if s.err != nil {
		return s.err
	}
	return s.Writer.Flush()
}
