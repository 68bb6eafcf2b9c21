package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/safetext"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	Dataset string
	Output  string // text, json or csv
	Quiet   bool
	io      *streams
	// status owns the terminal's status line (statusline.go).
	status *statusOwner
}

// progressf writes progress to stderr unless --quiet; decoration only on a
// terminal is the caller's choice.
func (g *globalOptions) progressf(format string, a ...any) {
	if g.Quiet {
		return
	}
	if g.status != nil {
		g.status.around(func() { fmt.Fprintf(g.io.Err, format, a...) })
		return
	}
	fmt.Fprintf(g.io.Err, format, a...)
}

// stage runs a stage with the process-wide settings it runs best with
// (tuneStage), under a status line with its elapsed time on a terminal.
func (g *globalOptions) stage(stage string, run func() error) error {
	defer g.statusLine(stage, 0, nil)()
	return tuneStage(stage, run)
}

// statusLine draws a progress line (progress.Start) on stderr when it is
// a terminal, never with --quiet or -o json; it returns the function that
// clears it.
func (g *globalOptions) statusLine(label string, size int64, read func() int64) (stop func()) {
	if g.Quiet || g.Output == "json" || g.io.Term == nil {
		return func() {}
	}
	return g.status.push(label, size, read)
}

// watchInput is ingest's Options.Watch: a progress line per input.
func (g *globalOptions) watchInput(path string, size int64, read func() int64) func() {
	return g.statusLine("  "+path, size, read)
}

// completeJob completes cmd's --job with the jobs of table in the dataset
// (-d, else $WLPROF_DATASET, else the default), as kubectl completes
// resource names.
func completeJob(cmd *cobra.Command, g *globalOptions, table string) {
	cmd.RegisterFlagCompletionFunc("job", func(c *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		dir := g.Dataset
		if v := os.Getenv("WLPROF_DATASET"); v != "" && (c.Flag("dataset") == nil || !c.Flag("dataset").Changed) {
			dir = v
		}
		return dataset.CompleteJobs(c.Context(), dir, table, prefix), cobra.ShellCompDirectiveNoFileComp
	})
}

// run builds the command tree, runs it and maps the outcome to an exit code.
// It is what main and the tests call.
func run(ctx context.Context, argv []string, s *streams) int {
	// Names from input files reach stderr in warnings and errors: their
	// invisible characters (bidi overrides, controls) are shown escaped.
	errw := safetext.NewWriter(s.Err)
	defer errw.Flush()
	s2 := *s
	s2.Err = errw
	s = &s2
	root := newRootCmd(s)
	root.SetArgs(argv)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && ctx.Err() != nil {
		// Ctrl-C: said in words, not as "context canceled" (unless the
		// command says itself what it kept), with the shell's status for a
		// command ended by SIGINT.
		msg := "interrupted; what was under way is not written, what finished before is kept"
		if !errors.Is(err, ctx.Err()) {
			msg = err.Error()
		}
		fmt.Fprintf(s.Err, "wlprof: %s\n", msg)
		return exitInterrupted
	}
	if err != nil {
		var re rejectedError
		switch {
		case errors.As(err, &re):
			fmt.Fprintf(s.Err, "wlprof: %v\n", err)
		case exitCode(err) == exitUsage:
			if cmd == nil {
				cmd = root
			}
			fmt.Fprintf(s.Err, "wlprof: %v%s\nRun '%s --help' for usage.\n", err, usageHint(cmd, err), cmd.CommandPath())
		default:
			fmt.Fprintf(s.Err, "wlprof: %v\n", err)
		}
	}
	return exitCode(err)
}

func newRootCmd(s *streams) *cobra.Command {
	g := &globalOptions{io: s}
	if s.Term != nil {
		g.status = &statusOwner{w: s.Term}
	}
	dataset.Version = version
	root := &cobra.Command{
		Use:   "wlprof",
		Short: "Offline workload analytics and profiling for history-driven schedulers",
		Long: `wlprof turns what a cluster already records (utilisation traces, job logs,
file-access provenance, profiling runs) into tenant classes, inferred SLOs,
reservation skylines, memory elasticity models and a report.

Raw inputs are ingested into a dataset directory (Parquet tables plus a
manifest); every analysis command reads that dataset.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof synth --out demo && wlprof ingest csv demo/usage.csv -d ds
  wlprof classify -d ds -o json
  wlprof run --out report traces/`,
		Version:           version,
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			// WLPROF_DATASET is the default dataset, as KUBECONFIG is
			// kubectl's: -d wins. (wlprof run without -d still builds
			// OUT/dataset: it looks at whether -d was given, not at this.)
			if v := os.Getenv("WLPROF_DATASET"); v != "" && !cmd.Flags().Changed("dataset") {
				g.Dataset = v
			}
			if only := cmd.Annotations[annotationOutputs]; only != "" && cmd.Flags().Changed("output") && g.Output != only {
				return usagef("--output %q: %s writes %s only", g.Output, cmd.CommandPath(), only)
			}
			switch g.Output {
			case "text", "json", "csv":
				return nil
			}
			return usagef("--output %q: want text, json or csv", g.Output)
		},
	}
	root.SetVersionTemplate("wlprof {{.Version}}\n")
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.SetIn(s.In)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.Flags().BoolP("version", "v", false, "print the wlprof version (wlprof version -o json says more)")
	pf := root.PersistentFlags()
	pf.StringVarP(&g.Dataset, "dataset", "d", "./wlprof-data", "dataset directory ($WLPROF_DATASET when set)")
	pf.StringVarP(&g.Output, "output", "o", "text", "output format: text, json or csv")
	pf.BoolVarP(&g.Quiet, "quiet", "q", false, "no progress or summaries on stderr")
	_ = root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json", "csv"}, cobra.ShellCompDirectiveNoFileComp))

	root.AddCommand(
		newIngestCmd(g),
		newRejectsCmd(g),
		newClassifyCmd(g),
		newSLOCmd(g),
		newSkylineCmd(g),
		newElasticityCmd(g),
		newPlanCmd(g),
		newSimulateCmd(g),
		newEstimateCmd(g),
		newHarvestCmd(g),
		newDAGCmd(g),
		newPlacementCmd(g),
		newConstraintsCmd(g),
		newProfileCmd(g),
		newReportCmd(g),
		newExportCmd(g),
		newRunCmd(g),
		newSynthCmd(g),
		newSchemaCmd(g),
		newVersionCmd(g),
		newCompletionCmd(g),
	)
	root.AddCommand(helpTopics()...)
	hideFlagsInHelp(root)
	return root
}

// printDoc writes doc as -o asks: one JSON document, or the CSV or text
// table that the stage's result writes of itself.
func printDoc(g *globalOptions, doc any, csv, text func(io.Writer) error) error {
	switch g.Output {
	case "json":
		return writeJSON(g.io.Out, doc)
	case "csv":
		return csv(g.io.Out)
	}
	// A text document is for people: names are shown with their invisible
	// characters escaped (safetext); JSON and CSV keep every byte.
	w := safetext.NewWriter(g.io.Out)
	if err := text(w); err != nil {
		return err
	}
	return w.Flush()
}

// writeJSON writes one indented JSON document.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
