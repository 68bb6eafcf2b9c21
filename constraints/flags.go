package constraints

import (
	"io"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Contract is the constraints stage as the command runs it.
var Contract = stage.Define("constraints", DefaultOptions, Load, Run, (*Result).Document, ErrNoEvents)

// AddFlags registers the stage's options on fs, with their current values
// as defaults. MaxWindows is a bound for library callers, not a flag.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.Var(timeflag.NewDuration(&o.Window, o.Window), "window", "step of the demand/supply series")
}

// Document is what wlprof constraints prints: the result itself (its -o
// json document is the Result's fields).
type Document struct{ *Result }

// Document is the result as wlprof constraints prints it.
func (r *Result) Document() Document { return Document{r} }

// WriteText writes the profile, the CRV summary and the queue table.
func (d Document) WriteText(w io.Writer) error { return d.Result.WriteText(w) }

// WriteCSV writes one row per constraint; demand and supply are the
// series, values joined by ";".
func (d Document) WriteCSV(w io.Writer) error { return d.Result.WriteCSV(w) }
