// Command wlprof is the workload analytics and profiling toolkit: see
// `wlprof --help` and the README.
package main

import (
	"context"
	"fmt"
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
	var prof *os.File
	if path := os.Getenv("WLPROF_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "wlprof: WLPROF_CPUPROFILE: %v\n", err)
			os.Exit(1)
		}
		prof = f
	}
	// WLPROF_TRACE=FILE writes a Go execution trace (go tool trace FILE):
	// where a command's cores sit idle, which a CPU profile does not show.
	var tr *os.File
	if path := os.Getenv("WLPROF_TRACE"); path != "" {
		f, err := os.Create(path)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "wlprof: WLPROF_TRACE: %v\n", err)
			os.Exit(1)
		}
		tr = f
	}
	code := run(ctx, os.Args[1:], systemStreams())
	stop()
	if prof != nil {
		pprof.StopCPUProfile()
		prof.Close()
	}
	if tr != nil {
		trace.Stop()
		tr.Close()
	}
	os.Exit(code)
}
