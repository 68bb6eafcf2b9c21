package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/internal/synth"
	"github.com/wlprof/wlprof/internal/timeflag"
)

type synthOptions struct {
	g       *globalOptions
	Out     string
	World   synth.Options
	Seed    uint64
	Compact bool
}

func newSynthCmd(g *globalOptions) *cobra.Command {
	o := &synthOptions{g: g, World: synth.Default()}
	cmd := &cobra.Command{
		Use:   "synth --out DIR",
		Short: "Generate a synthetic utilisation world with known ground truth",
		Long: `Write DIR/usage.csv (generic utilisation CSV) and DIR/truth.json: tenants
whose average-server CPU follows a daily cycle, a weekly+daily cycle, a
6-hourly spike train, a constant level, or an unpredictable random process,
with per-sample noise and missing samples. The same options and seed give
the same bytes.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof synth --out world
  wlprof synth --out big --tenants 1000 --days 30 --noise 0.05 --seed 7
  wlprof synth --out shifted --shifts 0.5
  wlprof synth --out world && wlprof ingest csv world/usage.csv -d ds`,
		Args:        args(cobra.NoArgs),
		Annotations: map[string]string{annotationHide: "dataset"},
		RunE:        func(cmd *cobra.Command, _ []string) error { return runSynth(o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Out, "out", "", "output directory (required)")
	f.IntVar(&o.World.Tenants, "tenants", o.World.Tenants, "number of tenants")
	f.Float64Var(&o.World.Days, "days", o.World.Days, "length of the trace in days")
	f.Var(timeflag.NewDuration(&o.World.Step, o.World.Step), "step", "sampling step")
	f.IntVar(&o.World.MinServers, "min-servers", o.World.MinServers, "fewest servers per tenant")
	f.IntVar(&o.World.MaxServers, "max-servers", o.World.MaxServers, "most servers per tenant")
	f.Float64Var(&o.World.Noise, "noise", o.World.Noise, "per-sample noise (standard deviation, fraction of a server)")
	f.Float64Var(&o.World.Missing, "missing", o.World.Missing, "probability that a sample is missing")
	f.Uint64Var(&o.World.Seed, "seed", o.World.Seed, "random seed")
	f.BoolVar(&o.World.Compact, "compact", false, "short tenant and server names")
	f.Float64Var(&o.World.Shifts, "shifts", o.World.Shifts, "probability that a periodic or random tenant's level jumps once (by 0.1-0.25); its pattern stays the same")
	return cmd
}

func runSynth(o *synthOptions) error {
	if o.Out == "" {
		return usagef("synth: --out DIR is required")
	}
	if err := o.World.Validate(); err != nil {
		return usageError{err}
	}
	wd, err := synth.Write(o.Out, o.World)
	if err != nil {
		return err
	}
	return printDoc(o.g, wd, wd.WriteCSV, wd.WriteText)
}
