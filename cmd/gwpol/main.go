// Command gwpol compiles, explains and lints Gateway API policies offline.
// It is main only, outside the pipeline's stages: it imports internal/cli
// and nothing else of gwpol's.
package main

import (
	"os"

	"github.com/gwpol/gwpol/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.System()))
}
