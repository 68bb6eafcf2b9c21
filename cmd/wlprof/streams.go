package main

import (
	"io"
	"os"
)

// streams is where a command reads and writes. Tests pass buffers; main
// passes the process's standard streams.
type streams struct {
	In     io.Reader
	Out    io.Writer // data
	Err    io.Writer // progress, warnings, summaries
	ErrTTY bool      // Err is a terminal: progress may be shown
}

func systemStreams() *streams {
	return &streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, ErrTTY: isTerminal(os.Stderr)}
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
