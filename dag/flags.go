package dag

import (
	"io"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/stage"
)

// Contract is the dag stage as the command runs it.
var Contract = stage.Define("dag", DefaultOptions, Load, Run, (*Result).Document, ErrNoDAGs)

// AddFlags registers the stage's options on fs, with their current values
// as defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Job, "job", o.Job, "only this job's runs")
}

// Document is what wlprof dag prints: the result itself, a row per run
// (its -o json document is the Result's fields).
type Document struct{ *Result }

// Document is the result as wlprof dag prints it.
func (r *Result) Document() Document { return Document{r} }

// WriteText writes a row per run, then the rule.
func (d Document) WriteText(w io.Writer) error { return d.Result.WriteText(w) }

// WriteCSV writes a row per run.
func (d Document) WriteCSV(w io.Writer) error { return d.Result.WriteCSV(w) }
