// Command wlprof is the workload analytics and profiling toolkit: see
// `wlprof --help` and the README.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// WLPROF_CPUPROFILE=FILE writes a Go CPU profile of the command (go tool
	// pprof FILE): how the speed numbers in the issues were broken down.
	stopProfile := fromEnv("WLPROF_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile)
	// WLPROF_TRACE=FILE writes a Go execution trace (go tool trace FILE):
	// where a command's cores sit idle, which a CPU profile does not show.
	stopTrace := fromEnv("WLPROF_TRACE", trace.Start, trace.Stop)
	code := run(ctx, os.Args[1:], systemStreams())
	stop()
	stopProfile()
	stopTrace()
	os.Exit(code)
}

// fromEnv starts writing to the file the environment variable names, when
// it is set, and returns what finishes the file.
func fromEnv(name string, start func(io.Writer) error, end func()) (finish func()) {
	path := os.Getenv(name)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = start(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "wlprof: %s: %v\n", name, err)
		os.Exit(1)
	}
	return func() {
		end()
		f.Close()
	}
}
