package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/stage"
)

// annotationStage marks a command that runStage runs, naming its stage.
const annotationStage = "wlprof-stage"

// stageCommand makes cmd run st: the stage's flags on cmd (from its
// defaults), then runStage. The command's own text (Use, help, examples)
// is cmd's.
func stageCommand[O, I, R any, D stage.Document](g *globalOptions, st stage.Stage[O, I, R, D], cmd *cobra.Command) (*cobra.Command, *O) {
	opts := st.Defaults()
	st.AddFlags(&opts, cmd.Flags())
	if cmd.Args == nil {
		cmd.Args = args(cobra.NoArgs)
	}
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return runStage(cmd.Context(), g, st, &opts) }
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[annotationStage] = st.Name
	return cmd, &opts
}

// runStage is every stage command: validate the options (a bad value is a
// usage error, before anything is read), open the dataset (a missing one
// as the stage's NoDataset says, where it has one), load and run
// the stage, print its warnings and its document. The stage's "nothing to
// work on" error is said with the dataset's path.
func runStage[O, I, R any, D stage.Document](ctx context.Context, g *globalOptions, st stage.Stage[O, I, R, D], opts *O) error {
	if err := st.Validate(opts); err != nil {
		return usageError{err}
	}
	ds, err := dataset.Open(g.Dataset)
	if errors.Is(err, dataset.ErrNoDataset) && st.NoDataset != nil {
		var note string
		if note, err = st.NoDataset(opts, g.Dataset, err); err == nil {
			ds = nil
			if note != "" {
				g.progressf("%s\n", note)
			}
		}
	}
	if err != nil {
		return err
	}
	var res *R
	err = g.stage(st.Name, func() (err error) {
		res, err = st.Execute(ctx, ds, *opts)
		return err
	})
	if st.IsEmpty(err) {
		return fmt.Errorf("%s: %w", g.Dataset, err)
	}
	if err != nil {
		return err
	}
	if !g.Quiet && st.Warnings != nil {
		for _, w := range st.Warnings(res) {
			fmt.Fprintf(g.io.Err, "warning: %s\n", w)
		}
	}
	doc := st.Document(res)
	return printDoc(g, doc, doc.WriteCSV, doc.WriteText)
}
