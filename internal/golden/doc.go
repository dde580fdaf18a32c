// Package golden is the test helper for golden files: Check compares a
// test's output with a file under testdata and, with the -update flag,
// rewrites it; Dirs owns whole golden directories so that -update also
// removes the goldens no test writes any more.
//
// The -update flag is defined here and nowhere else. Every package with
// tests links this package (a blank import in its update_test.go, which a
// test here enforces), so `go test ./... -update` reaches every test binary
// and refreshes every golden in the repository.
//
// golden is a test helper, no stage of the pipeline: only _test.go files import
// it, and it imports only the standard library.
package golden
