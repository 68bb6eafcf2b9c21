package main

import (
	"io"
	"os"

	"github.com/wlprof/wlprof/internal/progress"
)

// streams is where a command reads and writes. Tests pass buffers; main
// passes the process's standard streams.
type streams struct {
	In  io.Reader
	Out io.Writer // data
	Err io.Writer // progress, warnings, summaries
	// Term is stderr as it is, when it is a terminal (progress may be
	// shown), for the progress line redrawn in place (\r); nil otherwise.
	Term io.Writer
}

func systemStreams() *streams {
	s := &streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr}
	if progress.IsTerminal(os.Stderr) {
		s.Term = os.Stderr
	}
	return s
}
