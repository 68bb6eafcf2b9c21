package placement

import (
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Contract is the placement stage as the command runs it.
var Contract = stage.Define("placement", DefaultOptions, Load, Run, (*Result).Document, ErrNoEvents)

// AddFlags registers the stage's options on fs, with their current values
// as defaults.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.Var(storage{&o.ServerStorageBytes}, "server-storage", "storage each server offers for harvesting (4T = 4 TiB, 500G, bytes; binary units, as every size flag)")
	fs.Var(timeflag.NewDuration(&o.StabilityWindow, o.StabilityWindow), "stability-window", "window of the reimage-group stability measure")
	fs.Var(timeflag.NewDuration(&o.Classify.Step, o.Classify.Step), "step", "grid step of the tenants' series (as wlprof classify)")
	fs.IntVar(&o.Blocks, "blocks", o.Blocks, "replay: blocks written at the start (0: no replay)")
	fs.IntVar(&o.Replicas, "replicas", o.Replicas, "replay: replicas per block")
	fs.Float64Var(&o.BusyThreshold, "busy", o.BusyThreshold, "replay: a replica is unavailable while its tenant's CPU is above this fraction")
	fs.Float64Var(&o.BlocksPerHour, "blocks-per-hour", o.BlocksPerHour, "replay: re-replication rate per source server (§6: 30)")
	fs.Var(timeflag.NewDuration(&o.Detect, o.Detect), "detect", "replay: time from a replica's loss to its detection")
	fs.IntVar(&o.Accesses, "accesses", o.Accesses, "replay: block accesses, uniform over the window")
	fs.Uint64Var(&o.Seed, "seed", o.Seed, "replay: first seed")
	fs.IntVar(&o.Seeds, "seeds", o.Seeds, "replay: seeds (runs) per policy")
}

// storage is --server-storage: a size as ParseBytes reads it, written with
// a binary suffix and B (4TB) as the flag has always shown its default.
type storage struct{ b *float64 }

func (s storage) String() string {
	if s.b == nil {
		return ""
	}
	b := *s.b
	if b != math.Trunc(b) || b >= 1<<62 {
		return strconv.FormatFloat(b, 'g', -1, 64)
	}
	f := bytesize.Format(int64(b))
	if strings.IndexAny(f, "KMGT") > 0 {
		f += "B"
	}
	return f
}

func (s storage) Set(v string) error {
	b, err := ParseBytes(v)
	if err != nil {
		return err
	}
	*s.b = b
	return nil
}

// Type is "string", as the flag's help has always named it.
func (storage) Type() string { return "string" }

// Document is what wlprof placement prints: the result is its own -o json
// document.
type Document struct{ *Result }

// Document returns the result as wlprof placement prints it.
func (r *Result) Document() Document { return Document{r} }

// WriteText writes the document as wlprof placement prints it.
func (d Document) WriteText(w io.Writer) error { return d.Result.WriteText(w) }

// WriteCSV writes the document as wlprof placement -o csv prints it.
func (d Document) WriteCSV(w io.Writer) error { return d.Result.WriteCSV(w) }
