package cli

import (
	"bytes"
	"io"
	"os"
	"strconv"

	"github.com/charmbracelet/x/term"
	"github.com/mattn/go-isatty"
)

// IOStreams are the streams a command reads and writes. Data goes to Out,
// diagnostics and progress to ErrOut.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// IsTerminal: Out is a terminal (colour and tables may be used).
	IsTerminal bool
	// NoColor: NO_COLOR is set or --no-color was given.
	NoColor bool
	// Width is the terminal's width in columns when Out is a terminal, and
	// 0 otherwise: piped output is never wrapped (nor cut).
	Width int
	// Process: the streams are the process's own (System), so the run
	// may set the process's runtime (its memory budget, memoryBudget);
	// not when the CLI runs inside another program, a test.
	Process bool
}

// Color reports whether output may be coloured.
func (s *IOStreams) Color() bool { return s.IsTerminal && !s.NoColor }

// System returns the process's streams.
func System() *IOStreams {
	_, noColor := os.LookupEnv("NO_COLOR")
	s := &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		IsTerminal: isatty.IsTerminal(os.Stdout.Fd()) || isatty.IsCygwinTerminal(os.Stdout.Fd()),
		NoColor:    noColor,
		Process:    true,
	}
	if s.IsTerminal {
		s.Width = terminalWidth(os.Stdout.Fd(), os.Getenv("COLUMNS"))
	}
	return s
}

// terminalWidth asks the terminal, then $COLUMNS, then assumes 80.
func terminalWidth(fd uintptr, columns string) int {
	if w, _, err := term.GetSize(fd); err == nil && w > 0 {
		return w
	}
	if w, err := strconv.Atoi(columns); err == nil && w > 0 {
		return w
	}
	return 80
}

// Test returns in-memory streams for tests.
func Test(in string, terminal bool) (*IOStreams, *bytes.Buffer, *bytes.Buffer) {
	out, errOut := &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: bytes.NewBufferString(in), Out: out, ErrOut: errOut, IsTerminal: terminal}, out, errOut
}
