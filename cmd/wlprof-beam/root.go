package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
)

// Exit codes, as wlprof's.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitRejected = 3
)

type streams struct {
	In       io.Reader
	Out, Err io.Writer
}

type globalOptions struct {
	io     streams
	Output string
	Quiet  bool
}

// usageError is a bad flag or argument: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// rejectedError: the command finished, but input records were rejected
// (exit code 3; the count is on stderr).
type rejectedError struct {
	n    int64
	file string
}

func (e rejectedError) Error() string {
	return fmt.Sprintf("%d input record(s) rejected (see %s)", e.n, e.file)
}

func (g *globalOptions) progressf(format string, a ...any) {
	if !g.Quiet {
		fmt.Fprintf(g.io.Err, format, a...)
	}
}

func newRootCmd(g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "wlprof-beam",
		Short: "wlprof's per-tenant stages as an Apache Beam pipeline (Prism locally; Flink, Spark, Dataflow at scale)",
		Long: `wlprof-beam runs wlprof's per-tenant stages over raw trace shards as an
Apache Beam pipeline: in process on Prism by default, or on a Flink, Spark
or Dataflow job service. Results are those of wlprof on the same input.

Exit status: 0 success; 1 error; 2 usage error; 3 finished, but some input
records were rejected (the count is printed on stderr).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVarP(&g.Output, "output", "o", "text", "output format: text or json")
	root.PersistentFlags().BoolVarP(&g.Quiet, "quiet", "q", false, "no progress or warnings on stderr")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.SetOut(g.io.Out)
	root.SetErr(g.io.Err)
	root.AddCommand(newClassifyCmd(g), newSkylineCmd(g), newElasticityCmd(g))
	return root
}

// run executes the command line and returns the exit code.
func run(ctx context.Context, args []string, io streams) int {
	g := &globalOptions{io: io}
	root := newRootCmd(g)
	root.SetArgs(args)
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		if g.Output != "text" && g.Output != "json" {
			return usageError{fmt.Errorf("--output %q: want text or json", g.Output)}
		}
		return nil
	}
	err := root.ExecuteContext(ctx)
	var rej rejectedError
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &rej):
		fmt.Fprintf(io.Err, "wlprof-beam: %v\n", err)
		return exitRejected
	case errors.As(err, &ue):
		fmt.Fprintf(io.Err, "wlprof-beam: %v\n", err)
		return exitUsage
	}
	fmt.Fprintf(io.Err, "wlprof-beam: %v\n", err)
	return exitError
}

// writeJSON writes one indented JSON document, as wlprof -o json does.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// writeFileAtomic writes a file through a temporary name, synced, then
// renamed: an interrupted run leaves the previous file.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(dirOf(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
