// Command wlprof is the workload analytics and profiling toolkit: see
// `wlprof --help` and the README.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], systemStreams())
	stop()
	os.Exit(code)
}
