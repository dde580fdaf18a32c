// Command gwpol compiles, explains and lints Gateway API policies offline.
package main

import (
	"os"

	"github.com/gwpol/gwpol/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.System()))
}
