package plan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/skyline"
	"github.com/wlprof/wlprof/slo"
)

// Options of the plan stage. Start from DefaultOptions.
type Options struct {
	// Skyline are the fit's options (--alpha --beta --step --min-runs):
	// every job is fitted on its training runs with them.
	Skyline skyline.Options
	// SLO are the slo stage's options, Overrides included (or read by
	// Load from OverridesFile): a job whose override gives period_s,
	// arrival_s and deadline_s is plannable without provenance.
	SLO slo.Options
	// Holdout is the share of each job's runs, the latest, held out of the
	// fit and replayed (Jyothi et al., OSDI'16 §9 trains on 70%). 0 replays nothing.
	Holdout float64
	// LCMCap caps the LCM of the periods (default a day, as §6).
	LCMCap time.Duration
	// EndPoints is how many end points LowCost tries per job (default 64).
	EndPoints int
	// DRA are the dynamic reprovisioning parameters (§7 defaults).
	DRA DRA
	// AlphaSweep are the α the held-out trade-off is evaluated at.
	AlphaSweep []float64
	// Capacity, when set, makes the packing's cost the largest share of a
	// resource it names (Jyothi et al., OSDI'16 §6; see Capacity and PackOptions);
	// unset, the cost is the load in containers.
	Capacity Capacity
	// Job, when set, restricts Load to that job; a job without skylines
	// is then an error (dataset.ErrUnknownJob).
	Job string
}

// DefaultOptions: the skyline stage's fit with a 1% α (Jyothi et al., OSDI'16 §9 finds
// it the best balance), 30% held out, a one-day LCM cap, the paper's DRA.
func DefaultOptions() Options {
	sk := skyline.DefaultOptions()
	sk.SkipBadJobs = true
	return Options{Skyline: sk, SLO: slo.DefaultOptions(), Holdout: 0.3, LCMCap: 24 * time.Hour, EndPoints: 64,
		DRA: DefaultDRA(), AlphaSweep: []float64{0.01, 0.1, 0.5, 0.9}}
}

// Validate reports every bad option at once.
func (o *Options) Validate() error {
	var errs []error
	if err := o.Skyline.Validate(); err != nil {
		errs = append(errs, err)
	}
	if !(o.Holdout >= 0 && o.Holdout < 1) {
		errs = append(errs, fmt.Errorf("holdout %g: want a share in [0, 1)", o.Holdout))
	}
	if o.LCMCap <= 0 || o.LCMCap.Seconds() < o.Skyline.StepS {
		errs = append(errs, fmt.Errorf("lcm-cap %s: want at least one step (%s)", timeflag.FormatDuration(o.LCMCap), timeflag.FormatSeconds(o.Skyline.StepS)))
	}
	if o.EndPoints < 1 {
		errs = append(errs, fmt.Errorf("end-points %d: want at least 1", o.EndPoints))
	}
	if !(o.DRA.Rho >= 0) || !(o.DRA.RecentS > 0) || !(o.DRA.TS > 0) {
		errs = append(errs, fmt.Errorf("dra: rho %g ≥ 0, recent %gs and T %gs > 0 wanted", o.DRA.Rho, o.DRA.RecentS, o.DRA.TS))
	}
	for _, a := range o.AlphaSweep {
		if !(a >= 0 && a <= 1) {
			errs = append(errs, fmt.Errorf("alpha-sweep: %g is not an alpha in [0,1]", a))
		}
	}
	errs = append(errs, o.Capacity.validate()...)
	return errors.Join(errs...)
}

// JobInput is one recurring job as Load finds it: its window, where it
// came from, and its runs in time order.
type JobInput struct {
	Job
	// Source is where the window came from: "slo" or "override".
	Source string
	Runs   []skyline.JobRun
	// Sizes are each run's skyline samples with their memory and vcores,
	// by run id: read only under a Capacity, for the size of a container
	// in each step of the fitted skyline (see stepSizes).
	Sizes map[string][]SizeSample
}

// Input is what Run plans: jobs with a window and runs, and the jobs Load
// found no window for.
type Input struct {
	Jobs       []JobInput
	NotPlanned []NotPlanned
}

// Load reads every job with skylines and gives it its window: from an
// actionable SLO the slo stage infers (its period, arrival, deadline and
// period anchor), else from an override with period_s, arrival_s and
// deadline_s; jobs with neither are not planned, with the reason. Runs
// are put in time order by their start in the runs table (by id when it
// has none).
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	if opts.SLO.OverridesFile != "" && opts.SLO.Overrides == nil {
		ov, err := slo.LoadOverrides(opts.SLO.OverridesFile)
		if err != nil {
			return Input{}, err
		}
		opts.SLO.Overrides = ov
	}
	sk := opts.Skyline
	sk.Job = opts.Job
	skin, err := skyline.Load(ctx, ds, sk)
	if err != nil {
		return Input{}, err
	}
	windows, err := slo.ByJob(ctx, ds, opts.SLO)
	if err != nil {
		return Input{}, err
	}
	starts := map[string]int64{}
	err = dataset.Scan(ctx, ds, dataset.RunsTable, func(r *dataset.Run) error {
		if r.StartMs != dataset.NoTime {
			starts[r.Job+"\x00"+r.Run] = r.StartMs
		}
		return nil
	})
	if err != nil {
		return Input{}, err
	}
	sizes := map[string]map[string][]SizeSample{}
	if opts.Capacity.Set() {
		err = dataset.Scan(ctx, ds, dataset.SkylinesTable, func(s *dataset.SkylineSample) error {
			if opts.Job != "" && s.Job != opts.Job {
				return nil
			}
			if sizes[s.Job] == nil {
				sizes[s.Job] = map[string][]SizeSample{}
			}
			sizes[s.Job][s.Run] = append(sizes[s.Job][s.Run], SizeSample{OffsetS: s.OffsetS, Containers: s.Containers, MemoryBytes: s.MemoryBytes, VCores: s.VCores})
			return nil
		})
		if err != nil {
			return Input{}, err
		}
	}
	var in Input
	for _, j := range skin.Jobs {
		ji := JobInput{Job: Job{ID: j.ID}, Runs: append([]skyline.JobRun(nil), j.Runs...), Sizes: sizes[j.ID]}
		sort.SliceStable(ji.Runs, func(a, b int) bool {
			sa, oka := starts[j.ID+"\x00"+ji.Runs[a].ID]
			sb, okb := starts[j.ID+"\x00"+ji.Runs[b].ID]
			switch {
			case oka && okb && sa != sb:
				return sa < sb
			case oka != okb:
				return oka // runs with a start first
			}
			return ji.Runs[a].ID < ji.Runs[b].ID
		})
		if reason := window(&ji, windows[j.ID], opts.SLO.Overrides); reason != "" {
			in.NotPlanned = append(in.NotPlanned, NotPlanned{j.ID, reason})
			continue
		}
		in.Jobs = append(in.Jobs, ji)
	}
	return in, nil
}

// window sets ji's period, arrival, deadline and phase, or says why the
// job has none.
func window(ji *JobInput, sj *slo.Job, ov *slo.Overrides) string {
	if sj != nil && sj.Actionable && sj.PeriodS != nil && sj.ArrivalS != nil && sj.DeadlineS != nil {
		ji.PeriodS, ji.ArrivalS, ji.DeadlineS, ji.Source = *sj.PeriodS, *sj.ArrivalS, *sj.DeadlineS, "slo"
		if pm, am, ok := sj.Anchor(); ok && pm > 0 {
			ji.PhaseS = float64(((am%pm)+pm)%pm) / 1000
		}
		return ""
	}
	if o := ov.Find(ji.ID); o != nil && o.PeriodS != nil && o.ArrivalS != nil && o.DeadlineS != nil {
		ji.PeriodS, ji.ArrivalS, ji.DeadlineS, ji.Source = *o.PeriodS, *o.ArrivalS, *o.DeadlineS, "override"
		return ""
	}
	switch {
	case sj == nil:
		return "no SLO: the job is not in the runs and provenance (give period_s, arrival_s and deadline_s in --overrides)"
	case !sj.Actionable:
		return "no actionable SLO: " + sj.Reason + " (give period_s, arrival_s and deadline_s in --overrides)"
	}
	return "the SLO has no period, arrival or deadline (give them in --overrides)"
}

// JobReplay is the held-out replay of one job (Jyothi et al., OSDI'16 §9): runs are
// served by the reservation alone, at its planned offset.
type JobReplay struct {
	Job       string `json:"job"`
	TrainRuns int    `json:"train_runs"`
	TestRuns  int    `json:"test_runs"`
	SLOMisses int    `json:"slo_misses"`
	// SLOMissesDRA are the misses with dynamic reprovisioning (§7), and
	// DRAAddedContainerS what it granted, container·seconds.
	SLOMissesDRA       int     `json:"slo_misses_dra"`
	DRAAddedContainerS float64 `json:"dra_added_container_s"`
	// OverAllocation and UnderAllocation are means over the held-out runs,
	// container·steps (see Outcome).
	OverAllocation  float64 `json:"over_allocation"`
	UnderAllocation float64 `json:"under_allocation"`
	// Runs is each held-out run's outcome.
	Runs []RunReplay `json:"runs"`
	Note string      `json:"note,omitempty"`
}

// RunReplay is one held-out run's outcome.
type RunReplay struct {
	Run             string  `json:"run"`
	Miss            bool    `json:"miss"`
	MissDRA         bool    `json:"miss_dra"`
	OverAllocation  float64 `json:"over_allocation"`
	UnderAllocation float64 `json:"under_allocation"`
	DRAAddedS       float64 `json:"dra_added_container_s"`
}

// AlphaPoint is the α trade-off on held-out runs: every job refitted at α
// on its training runs, its skyline at its arrival (not repacked), the
// held-out runs replayed against it without DRA.
type AlphaPoint struct {
	Alpha           float64 `json:"alpha"`
	TestRuns        int     `json:"test_runs"`
	SLOMisses       int     `json:"slo_misses"`
	OverAllocation  float64 `json:"over_allocation"`
	UnderAllocation float64 `json:"under_allocation"`
}

// Result is the plan: the packing, the replay, the α trade-off.
type Result struct {
	Version int `json:"version"`
	*Packing
	Alpha         float64      `json:"alpha"`
	Replay        []JobReplay  `json:"replay"`
	AlphaTradeoff []AlphaPoint `json:"alpha_tradeoff"`
}

// Run fits each job on its training runs (the first 1 − Holdout of them
// in time order; all of them, with nothing replayed, when that leaves
// fewer than the fit's min-runs), packs the fitted skylines over the LCM,
// and replays the held-out runs. ErrNoSkylines when in has no job at all,
// planned or not.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.Jobs) == 0 && len(in.NotPlanned) == 0 {
		return nil, ErrNoSkylines
	}
	res := &Result{Version: 1, Alpha: opts.Skyline.Alpha, Replay: []JobReplay{}, AlphaTradeoff: []AlphaPoint{}}
	type prepared struct {
		ji          JobInput
		train, test []skyline.JobRun
		note        string
	}
	var jobs []Job
	var preps []prepared
	notPlanned := append([]NotPlanned(nil), in.NotPlanned...)
	for _, ji := range in.Jobs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		nTest := int(math.Floor(float64(len(ji.Runs)) * opts.Holdout))
		pr := prepared{ji: ji, train: ji.Runs[:len(ji.Runs)-nTest], test: ji.Runs[len(ji.Runs)-nTest:]}
		if len(pr.train) < opts.Skyline.MinRuns && nTest > 0 {
			pr.train, pr.test = ji.Runs, nil
			pr.note = fmt.Sprintf("%d runs: too few to hold %.0f%% out and keep %d to fit; fitted on all, nothing replayed", len(ji.Runs), 100*opts.Holdout, opts.Skyline.MinRuns)
		}
		fit, err := skyline.Solve(ctx, skyline.Job{ID: ji.ID, Runs: pr.train}, opts.Skyline)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			notPlanned = append(notPlanned, NotPlanned{ji.ID, "skyline not fitted: " + err.Error()})
			continue
		}
		j := ji.Job
		j.Skyline = fit.Reservation
		if opts.Capacity.Set() {
			var runs [][]SizeSample
			for _, r := range pr.train {
				runs = append(runs, ji.Sizes[r.ID])
			}
			j.MemoryPerContainer, j.MilliVCoresPerContainer = stepSizes(runs, len(j.Skyline), opts.Skyline.StepS)
		}
		jobs = append(jobs, j)
		preps = append(preps, pr)
	}
	pk, err := Pack(jobs, PackOptions{StepS: opts.Skyline.StepS, LCMCapS: opts.LCMCap.Seconds(), EndPoints: opts.EndPoints, Capacity: opts.Capacity})
	if err != nil {
		return nil, err
	}
	pk.NotPlanned = append(pk.NotPlanned, notPlanned...)
	sort.SliceStable(pk.NotPlanned, func(a, b int) bool { return pk.NotPlanned[a].Job < pk.NotPlanned[b].Job })
	res.Packing = pk
	first := map[string]*Placement{} // the first placement of each job
	for i := range pk.Placements {
		if _, ok := first[pk.Placements[i].Job]; !ok {
			first[pk.Placements[i].Job] = &pk.Placements[i]
		}
	}
	step := opts.Skyline.StepS
	for _, pr := range preps {
		pl := first[pr.ji.ID]
		if pl == nil {
			continue // not planned (its reason is listed)
		}
		jr := JobReplay{Job: pr.ji.ID, TrainRuns: len(pr.train), TestRuns: len(pr.test), Runs: []RunReplay{}, Note: pr.note}
		start := int(math.Round((pl.OffsetS - pl.WindowStartS) / step))
		window := int(math.Floor((pl.WindowEndS-pl.WindowStartS)/step + 1e-9))
		alloc := make([]int64, start+len(pl.Allocation))
		copy(alloc[start:], pl.Allocation)
		for _, r := range pr.test {
			c, err := skyline.Quantise([]skyline.JobRun{r}, step)
			if err != nil {
				jr.Note = joinNote(jr.Note, fmt.Sprintf("run %s not replayed: %v", r.ID, err))
				jr.TestRuns--
				continue
			}
			o := Replay(c[0], alloc, start, window, step, opts.DRA)
			jr.Runs = append(jr.Runs, RunReplay{Run: r.ID, Miss: o.Miss, MissDRA: o.MissDRA, OverAllocation: o.OverAllocation,
				UnderAllocation: o.UnderAllocation, DRAAddedS: o.DRAAdded * step})
			if o.Miss {
				jr.SLOMisses++
			}
			if o.MissDRA {
				jr.SLOMissesDRA++
			}
			jr.DRAAddedContainerS += o.DRAAdded * step
			jr.OverAllocation += o.OverAllocation
			jr.UnderAllocation += o.UnderAllocation
		}
		if n := float64(len(jr.Runs)); n > 0 {
			jr.OverAllocation /= n
			jr.UnderAllocation /= n
		}
		res.Replay = append(res.Replay, jr)
	}
	for _, a := range opts.AlphaSweep {
		pt := AlphaPoint{Alpha: a}
		o := opts.Skyline
		o.Alpha = a
		for _, pr := range preps {
			if len(pr.test) == 0 || first[pr.ji.ID] == nil {
				continue
			}
			fit, err := skyline.Solve(ctx, skyline.Job{ID: pr.ji.ID, Runs: pr.train}, o)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			pl := first[pr.ji.ID]
			window := int(math.Floor((pl.WindowEndS-pl.WindowStartS)/step + 1e-9))
			for _, r := range pr.test {
				c, err := skyline.Quantise([]skyline.JobRun{r}, step)
				if err != nil {
					continue
				}
				out := Replay(c[0], fit.Reservation, 0, window, step, opts.DRA)
				pt.TestRuns++
				if out.Miss {
					pt.SLOMisses++
				}
				pt.OverAllocation += out.OverAllocation
				pt.UnderAllocation += out.UnderAllocation
			}
		}
		if pt.TestRuns > 0 {
			pt.OverAllocation /= float64(pt.TestRuns)
			pt.UnderAllocation /= float64(pt.TestRuns)
		}
		res.AlphaTradeoff = append(res.AlphaTradeoff, pt)
	}
	return res, nil
}

func joinNote(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// Profile sets each planned job's planned offset and held-out miss rate.
func (r *Result) Profile(jobs profile.Jobs) error {
	for _, pl := range r.Placements {
		p := jobs.Get(pl.Job)
		if p.Plan != nil {
			continue // a job placed instance by instance: its first
		}
		p.Plan = &profile.Plan{PlannedOffsetS: pl.OffsetS, PeriodS: pl.PeriodS, Naive: pl.Naive}
	}
	for _, jr := range r.Replay {
		p := jobs.Get(jr.Job)
		if p.Plan == nil || jr.TestRuns == 0 {
			continue
		}
		rate := float64(jr.SLOMisses) / float64(jr.TestRuns)
		rateDRA := float64(jr.SLOMissesDRA) / float64(jr.TestRuns)
		p.Plan.HeldOutRuns, p.Plan.HeldOutMissRate, p.Plan.HeldOutMissRateDRA = jr.TestRuns, &rate, &rateDRA
	}
	return nil
}

// Document is what wlprof plan prints: the Result itself, as text, CSV or
// JSON.
type Document struct{ *Result }

// Document is r as the command prints it.
func (r *Result) Document() Document { return Document{r} }

// WriteText writes the plan as tables (Result.WriteText).
func (d Document) WriteText(w io.Writer) error { return d.Result.WriteText(w) }

// WriteCSV writes the plan's placements (Result.WriteCSV).
func (d Document) WriteCSV(w io.Writer) error { return d.Result.WriteCSV(w) }
