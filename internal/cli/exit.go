package cli

import (
	"errors"
	"fmt"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/inert"
)

// Exit codes, identical in every output format.
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitUsage    = 2
	ExitInput    = 3
	ExitInternal = 4
)

// errFindings is returned by commands whose result crossed --fail-on; it is
// a result, not a failure, and prints nothing more.
var errFindings = errors.New("findings at or above the --fail-on threshold")

// usageError marks flag and argument mistakes.
func usageError(format string, args ...any) error {
	return diag.Errorf(diag.Usage, format, args...)
}

// exitCode is the one place errors become exit codes.
func exitCode(err error) int {
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errFindings):
		return ExitFindings
	}
	switch diag.KindOf(err) {
	case diag.Usage, diag.NotFound:
		return ExitUsage
	case diag.Invalid, diag.Unsupported, diag.Conflict:
		return ExitInput
	}
	return ExitInternal
}

// errorText is the line printed for err; what the error quotes from the
// input or the command line is escaped (inert.Lines: an error of several
// lines keeps them).
func errorText(err error) string {
	if diag.KindOf(err) == diag.Internal {
		return inert.Lines(fmt.Sprintf("gwpol: internal error: %v (please report this)", err))
	}
	return inert.Lines("gwpol: " + err.Error())
}
