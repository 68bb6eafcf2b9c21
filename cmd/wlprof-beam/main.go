package main

import (
	"context"
	"flag"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
)

func main() {
	if workerMode(os.Args[1:]) {
		// Started by a runner as an SDK harness (not in loopback): Beam's
		// own flags, and beam.Init serves the runner until it is done.
		flag.Parse()
		beam.Init()
		return
	}
	beam.Init()
	os.Exit(run(context.Background(), os.Args[1:], streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}))
}

// workerMode says whether the binary was started as a Beam worker.
func workerMode(args []string) bool {
	for _, a := range args {
		if a == "--worker" || a == "-worker" || a == "--worker=true" || a == "-worker=true" {
			return true
		}
	}
	return false
}
