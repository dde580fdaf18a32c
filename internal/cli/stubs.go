package cli

import "github.com/spf13/cobra"

func newRenderCmd(g *globalOptions, run func(any) error) *cobra.Command {
	return &cobra.Command{Use: "render", Short: "Render Envoy xDS config"}
}
