package cli

import (
	"strings"
	"testing"
)

// TestMaxFileSize (issue 16): the size error names the flag and config
// key that exist, and they do raise (or lower) the limit.
func TestMaxFileSize(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		code int
		want string
	}{
		{[]string{"--max-file-size", "100"}, "", ExitInput, "raise the limit with --max-file-size BYTES or config maxFileSize (GWPOL_MAXFILESIZE)"},
		{nil, "GWPOL_MAXFILESIZE=100", ExitInput, "larger than 100 bytes"},
		{[]string{"--max-file-size", "100000"}, "GWPOL_MAXFILESIZE=100", ExitOK, ""},
		{[]string{"--max-file-size", "-1"}, "", ExitUsage, "--max-file-size must be a positive number of bytes"},
	} {
		args := append([]string{"status", "-f", "testdata/examples"}, c.args...)
		var env []string
		if c.env != "" {
			env = []string{c.env}
		}
		_, stderr, code := runEnv(t, env, args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want %d and %q", c.env, c.args, code, stderr, c.code, c.want)
		}
	}
}
