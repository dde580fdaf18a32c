// Command floor measures the decode floor of `gwpol render` in a fresh
// process, as users run gwpol: it reads manifests into position-carrying
// YAML nodes and nothing more, with the Go runtime's defaults as gwpol.
//
//	go run ./internal/benchgen/floor -write /tmp/platform.yaml -routes 10000
//	go run ./internal/benchgen/floor -write /tmp/eg.yaml -routes 10000 -flavour envoygateway
//	go build -o /tmp/floor ./internal/benchgen/floor
//	time /tmp/floor /tmp/platform.yaml              # documents in parallel
//	time /tmp/floor -sequential /tmp/platform.yaml  # one decoder
//	time gwpol render -f /tmp/platform.yaml -o json --target kgateway >/dev/null
//
// It is a measuring tool, no stage of the pipeline: it imports benchgen
// and manifest only.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"slices"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	yaml "go.yaml.in/yaml/v3"
)

func main() {
	write := flag.String("write", "", "write the generated platform to this file instead")
	routes := flag.Int("routes", 10000, "HTTPRoutes in the generated platform")
	sequential := flag.Bool("sequential", false, "decode with one YAML decoder, as issue #4 states the floor (render may decode in parallel)")
	flavour := flag.String("flavour", "kgateway", "platform to write: kgateway (TrafficPolicies) or envoygateway (BackendTrafficPolicies at gateway, listener, route and rule level)")
	flag.Parse()
	if *write != "" {
		i := slices.IndexFunc(benchgen.Flavours, func(f benchgen.Flavour) bool { return f.Target == *flavour })
		if i < 0 {
			fmt.Fprintf(os.Stderr, "unknown -flavour %q (kgateway, envoygateway)\n", *flavour)
			os.Exit(2)
		}
		if err := os.WriteFile(*write, benchgen.Flavours[i].Platform(*routes), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *sequential {
		var docs []*yaml.Node // kept, as a loader keeps them
		for _, path := range flag.Args() {
			data, err := os.ReadFile(path)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			for dec := yaml.NewDecoder(bytes.NewReader(data)); ; {
				var doc yaml.Node
				if err := dec.Decode(&doc); err != nil {
					break
				}
				docs = append(docs, &doc)
			}
		}
		fmt.Println(len(docs), "documents")
		return
	}
	set, err := manifest.Load(flag.Args(), manifest.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(len(set.Objects), "objects")
}
