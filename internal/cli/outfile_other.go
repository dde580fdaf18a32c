//go:build !linux

package cli

import "os"

// createUnnamed: unnamed temporary files are a Linux feature (O_TMPFILE);
// elsewhere a named temporary is used and a later run removes what a
// killed one left.
func createUnnamed(*os.Root, string, os.FileMode, *tempGuard) (outFile, error) {
	return nil, errNoUnnamed
}
