package kgateway

// The -update flag that `go test ./... -update` passes to every test
// binary is defined by internal/golden.
import _ "github.com/gwpol/gwpol/internal/golden"
