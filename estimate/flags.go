package estimate

import (
	"io"
	"time"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Contract is the estimate stage as the command runs it.
var Contract = stage.Define("estimate", DefaultOptions, Load, Run, (*Result).Document, ErrNoJobs).
	// Without a dataset, --jobs alone gives the deadlines and phases: the
	// stage runs on none (Load takes a nil dataset).
	WithoutDataset(func(o *Options, dir string, missing error) (string, error) {
		if o.JobsPath == "" {
			return "", missing
		}
		return "note: no dataset at " + dir + ": deadlines and phases from --jobs only", nil
	})

// AddFlags registers the stage's options on fs, with their current values
// as defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Job, "job", o.Job, "show only this job (s_fit is still computed over every job)")
	fs.Var(&instant{o}, "at", "instant of the estimate (default: the latest submit, start or end in the runs table)")
	fs.Float64Var(&o.SlotCPU, "slot-cpu", o.SlotCPU, "a slot's CPU, as a share of a server")
	fs.Float64Var(&o.SlotMemory, "slot-memory", o.SlotMemory, "a slot's memory, as a share of a server (0: memory does not bound the slots)")
	fs.Float64Var(&o.Reserve, "reserve", o.Reserve, "share of every server kept from batch work")
	fs.Var(timeflag.NewDuration(&o.AvailabilityStep, o.AvailabilityStep), "availability-step", "bin of the daily availability profile; divides a day")
	fs.Var(timeflag.NewDuration(&o.PlacementCycle, o.PlacementCycle), "placement-cycle", "period of the scheduler's placement cycle: s_fit is what must start in the current one (Polo, PhD thesis, UPC 2014, §4.2.2: tens of seconds)")
	fs.StringVar(&o.AvailabilityFile, "availability", o.AvailabilityFile, "the daily availability instead of the periodic tenants': CSV start_s,slots")
	fs.StringVar(&o.JobsPath, "jobs", o.JobsPath, "deadlines, phases and progress the data lack (JSON or YAML; see estimate/jobsfile.go)")
	stage.AddPrefixed(fs, "", "(the slo stage's, as wlprof slo --overrides)", o.SLO.AddFlags, "overrides")
}

// instant is --at: an instant as timeflag reads it, which sets AtSet (so
// the epoch is an instant, not "no --at"); "" (its default text) is none.
type instant struct{ o *Options }

func (i *instant) String() string {
	if i.o == nil || !i.o.AtSet {
		return ""
	}
	return time.UnixMilli(i.o.AtMs).UTC().Format(time.RFC3339Nano)
}

func (i *instant) Set(s string) error {
	if s == "" {
		i.o.AtMs, i.o.AtSet = 0, false
		return nil
	}
	t, err := timeflag.ParseInstant(s)
	if err != nil {
		return err
	}
	i.o.AtMs, i.o.AtSet = t.UnixMilli(), true
	return nil
}

func (*instant) Type() string { return "instant" }

// Document is what wlprof estimate prints: the result is its own -o json
// document.
type Document struct{ *Result }

// Document returns the result as wlprof estimate prints it.
func (r *Result) Document() Document { return Document{r} }

// WriteText writes the document as wlprof estimate prints it.
func (d Document) WriteText(w io.Writer) error { return d.Result.WriteText(w) }

// WriteCSV writes the document as wlprof estimate -o csv prints it.
func (d Document) WriteCSV(w io.Writer) error { return d.Result.WriteCSV(w) }
