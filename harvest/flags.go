package harvest

import (
	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
	"io"
)

// Contract is the harvest stage as the command runs it.
var Contract = stage.Define("harvest", DefaultOptions, Load, Run, (*Result).Document, ErrNoSeries)

// AddFlags registers the stage's options on fs, with their current values
// as defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "seed of every random draw (placements, the Poisson stream)")
	fs.Float64Var(&o.Reserve, "reserve", o.Reserve, "share of each server's cores kept for the primary tenant")
	fs.IntVar(&o.Cores, "cores", o.Cores, "cores of a server")
	fs.StringVar(&o.Workload, "workload", o.Workload, "batch jobs from the dataset's runs table (runs) or a synthetic Poisson stream (poisson)")
	fs.Var(timeflag.NewDuration(&o.ShortBelow, o.ShortBelow), "short-below", "jobs whose last run was shorter are short (with --long-above; default: derived)")
	fs.Var(timeflag.NewDuration(&o.LongAbove, o.LongAbove), "long-above", "jobs whose last run was longer are long (with --short-below; default: derived)")
	fs.Var(timeflag.NewDuration(&o.Window, o.Window), "window", "replay this much of the data, up to its end (0: all of it; a classification per --reclassify in it)")
	fs.Var(timeflag.NewDuration(&o.Reclassify, o.Reclassify), "reclassify", "classify the tenants again at every multiple of this, from the data before it")
	fs.Var(timeflag.NewDuration(&o.ClassifyWindow, o.ClassifyWindow), "classify-window", "each classification sees this much of the data before it (the paper's month; 0: all of it)")
	fs.IntVar(&o.Containers, "containers", o.Containers, "containers of each run of the runs table (it records none)")
	fs.Var(timeflag.NewDuration(&o.MeanInterarrival, o.MeanInterarrival), "mean-interarrival", "poisson: mean time between job arrivals")
	fs.IntVar(&o.PoissonJobs, "poisson-jobs", o.PoissonJobs, "poisson: recurring jobs the arrivals are runs of")
	fs.Var(timeflag.NewDuration(&o.MinDuration, o.MinDuration), "min-duration", "poisson: shortest typical job duration")
	fs.Var(timeflag.NewDuration(&o.MaxDuration, o.MaxDuration), "max-duration", "poisson: longest typical job duration")
	fs.IntVar(&o.MaxContainers, "max-containers", o.MaxContainers, "poisson: most containers of a job")
	fs.Var(timeflag.NewDuration(&o.Classify.Step, o.Classify.Step), "step", "grid step of the tenants' series (as wlprof classify)")
	fs.BoolVar(&o.AverageServers, "average-servers", o.AverageServers, "decide free cores and kills on each tenant's average server, not each server's own usage")
}

// Document is what wlprof harvest prints: the result is its own -o json
// document.
type Document struct{ *Result }

// Document returns the result as wlprof harvest prints it.
func (r *Result) Document() Document { return Document{r} }

// WriteText writes the document as wlprof harvest prints it.
func (d Document) WriteText(w io.Writer) error { return d.Result.WriteText(w) }

// WriteCSV writes the document as wlprof harvest -o csv prints it.
func (d Document) WriteCSV(w io.Writer) error { return d.Result.WriteCSV(w) }
