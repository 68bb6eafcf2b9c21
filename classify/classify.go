package classify

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Pattern is a tenant's utilisation pattern (Zhang et al., OSDI'16 §3).
type Pattern string

const (
	Periodic      Pattern = "periodic"
	Constant      Pattern = "constant"
	Unpredictable Pattern = "unpredictable"
	// Insufficient: too little history to say; Tenant.Reason says why.
	Insufficient Pattern = "insufficient"
)

// ErrNoSeries is returned when the input holds no series at all; its
// message names the remedy.
var ErrNoSeries = errors.New("classify: no utilisation data to classify: ingest a trace first (wlprof ingest --help lists the formats)")

// Options of Load and Run. The zero value of every field means its default.
type Options struct {
	// MinHistory: shorter series are insufficient. Default 3 days, the
	// least that shows three daily cycles.
	MinHistory time.Duration
	// MinCoverage: series with a smaller share of grid slots holding a
	// sample are insufficient. Default 0.5.
	MinCoverage float64
	// MaxGap: gaps up to this long are filled by linear interpolation
	// silently; longer ones are filled too but reported in the tenant's
	// warnings. Default 1 hour.
	MaxGap time.Duration
	// Constant: a series is flat when the standard deviation of its
	// hourly means, less the part its sample-to-sample noise explains, is
	// at most max(ConstantRel × mean, ConstantAbs); a flat series is
	// constant unless it has a cycle of at least MinAmplitude. Defaults
	// 0.05 and 0.01 (one per cent of a server).
	ConstantRel, ConstantAbs float64
	// DetectLen: series longer than this are averaged down by an integer
	// factor to at most this many points for the spectrum (periods are
	// then refined on the full grid), a factor whose detection step
	// divides a day where one is near (detectFactor). Default 2160 (30
	// days at 20 min: periods from 40 minutes are seen; 4320 found the
	// same patterns and periods on the bench world and the fixtures at
	// twice the cost of the FFTs and autocorrelations).
	DetectLen int
	// Shuffles: shuffled copies whose largest spectral power a peak must
	// beat. Default 3.
	Shuffles int
	// MinCycles: a period must repeat at least this often in the window.
	// Default 3.
	MinCycles int
	// Candidates: spectral peaks examined, strongest first. Default 3.
	Candidates int
	// MaxHarmonic: largest multiple of a peak's period tried as the
	// fundamental. Default 12.
	MaxHarmonic int
	// MinStrength: the de-levelled autocorrelation at the period that
	// confirms it. Default 0.3.
	MinStrength float64
	// FundamentalShare: the fundamental of a harmonic family needs this
	// share of the shuffle threshold. Default 0.25.
	FundamentalShare float64
	// MinCyclesFree: a period that is not natural (minutes that divide
	// an hour, hours that divide a day, a day, a week; naturalPeriods)
	// must repeat at least this often in the window. Default 48.
	MinCyclesFree int
	// SplitStrength: a period must show in each half of the window on its
	// own (halves of at least two cycles, overlapping when the window
	// holds fewer than four), with a de-levelled autocorrelation at the
	// period of at least this much in the weaker half. Default 0.15.
	SplitStrength float64
	// FewCyclesStrength: the strength a period seen fewer than
	// 2·MinCycles times must reach (its halves are a pair of cycles or
	// two, which one coincidence can match). Default 0.6.
	FewCyclesStrength float64
	// MinAmplitude: a flat tenant (Constant) is periodic all the same
	// when it has an accepted cycle whose repeating part has at least
	// this standard deviation (fraction of a server; cycleSD). Whether a
	// cycle is there is judged against the noise (the shuffles and
	// MinStrength), never against the level, so a daily wave of ±2% on a
	// tenant at 85% is periodic, and a sub-hourly cycle, which leaves
	// hourly means flat, too; this floor only keeps ripples too small to
	// matter to a scheduler constant (NAB ec2 53ea38 at 1.8% has a real
	// 30-minute blip of 0.2%: a repeating part of 0.08%). Default 0.005
	// (a sine of ±0.7% of a server).
	MinAmplitude float64
	// ShortPeriod: periods up to this long are also searched on the
	// series' own grid (the most recent DetectLen slots), which sees
	// cycles of a few slots that the detection grid averages away.
	// Default 2 hours.
	ShortPeriod time.Duration
	// HarmonicTolerance: a shorter confirmed period wins when its folded
	// profile explains within this much of the best (adjusted R²).
	// Default 0.1.
	HarmonicTolerance float64
	// Seed of the shuffles (each tenant also mixes in its name, so results
	// do not depend on order or parallelism). Default 1.
	Seed uint64
	// K: classes per pattern; 0 chooses k from the data (see kmeans.go).
	K int
	// MaxK bounds the automatic k. Default 8.
	MaxK int
	// ClassSpread: the automatic k is the smallest whose tenants lie within
	// this root-mean-square distance of their class centre in (mean, peak).
	// Default 0.05 (five per cent of a server).
	ClassSpread float64
	// AtMs is the instant the classification is made at, a backtest:
	// pattern, period, classes, mean, peak and current use only the slots
	// at or before it (upTo). dataset.NoTime (or 0) means the end of the
	// data.
	AtMs int64
	// Workers: tenants analysed in parallel. Default GOMAXPROCS.
	Workers int
	// Step is the grid step of series built from the usage table; 0
	// means DefaultStep, or the data's own interval when coarser (see
	// SeriesOptions). A stored series table on another step is rebuilt.
	Step time.Duration
	// Tenants: the text also lists every tenant (Result.ListTenants).
	Tenants bool
}

func (o Options) withDefaults() Options {
	def := func(v *float64, d float64) {
		if *v <= 0 {
			*v = d
		}
	}
	defI := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if o.MinHistory <= 0 {
		o.MinHistory = 72 * time.Hour
	}
	if o.MaxGap <= 0 {
		o.MaxGap = time.Hour
	}
	def(&o.MinCoverage, 0.5)
	def(&o.ConstantRel, 0.05)
	def(&o.ConstantAbs, 0.01)
	def(&o.MinStrength, 0.3)
	def(&o.HarmonicTolerance, 0.1)
	def(&o.ClassSpread, 0.05)
	def(&o.FundamentalShare, 0.25)
	def(&o.SplitStrength, 0.15)
	def(&o.FewCyclesStrength, 0.6)
	def(&o.MinAmplitude, 0.005)
	if o.ShortPeriod <= 0 {
		o.ShortPeriod = 2 * time.Hour
	}
	defI(&o.DetectLen, 2160)
	defI(&o.Shuffles, 3)
	defI(&o.MinCycles, 3)
	defI(&o.MinCyclesFree, 48)
	defI(&o.Candidates, 3)
	defI(&o.MaxHarmonic, 12)
	defI(&o.MaxK, 8)
	defI(&o.Workers, runtime.GOMAXPROCS(0))
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.AtMs == 0 {
		o.AtMs = dataset.NoTime
	}
	return o
}

// Tenant is one tenant's classification.
type Tenant struct {
	Tenant  string   `json:"tenant"`
	Pattern Pattern  `json:"pattern"`
	PeriodS *float64 `json:"period_s"` // nil unless periodic
	// Strength in [0,1]: the autocorrelation, at the period, of the series
	// minus its moving average over one period (interpolated between
	// slots when the period falls between them); for an unpredictable
	// tenant, the same at its best rejected candidate (0 if none); for a
	// constant one, at a cycle too small to count (0 if none).
	Strength float64 `json:"strength"`
	Mean     float64 `json:"mean"` // mean utilisation over observed slots, fraction of a server
	Peak     float64 `json:"peak"` // 99th percentile of observed slots
	Class    string  `json:"class"`
	Servers  int     `json:"servers"`
	// StepS is the step the tenant was analysed on: the grid's, or, for
	// a tenant sampled more coarsely, the grid's times its typical gap
	// between samples, at most an hour (nativestep.go). Slots, Coverage,
	// Spread and the period search are on this step; Mean and Peak on
	// the grid's slots, which hold the same samples.
	StepS    float64 `json:"step_s"`
	Slots    int     `json:"slots"`    // slots of StepS from first to last sample
	Coverage float64 `json:"coverage"` // share of those slots with a sample
	// Spread is the noise-corrected standard deviation of hourly means that
	// the constant test compares with its threshold.
	Spread   float64  `json:"spread"`
	Reason   string   `json:"reason,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Headroom is free capacity (fraction of a server) per job type, or a
// per-job-type weight.
type Headroom struct {
	Short  float64 `json:"short"`
	Medium float64 `json:"medium"`
	Long   float64 `json:"long"`
}

// Class is a K-Means cluster of tenants of one pattern (Zhang et al., OSDI'16 §4.1).
type Class struct {
	Class   string  `json:"class"`
	Pattern Pattern `json:"pattern"`
	Tenants int     `json:"tenants"`
	Servers int     `json:"servers"`
	// Mean and Peak (99th percentile) of the class's average server: the
	// server-weighted mean of its tenants' series, slot by slot.
	Mean    float64 `json:"mean"`
	Peak    float64 `json:"peak"`
	Current float64 `json:"current"` // the class's average server at the "current" slot
	// Headroom per Zhang et al., OSDI'16 §4.1: short 1 − current, medium
	// 1 − max(mean, current), long 1 − max(peak, current), in [0,1].
	Headroom Headroom `json:"headroom"`
	// Weights are the ranking weights W[type, pattern] of Algorithm 1.
	Weights Headroom `json:"weights"`
	// Weighted is Headroom × Weights, what Algorithm 1 draws classes by.
	Weighted Headroom `json:"weighted_headroom"`
}

// Result of Run.
type Result struct {
	StepS float64 `json:"step_s"`
	AtMs  int64   `json:"-"`
	// Built: the series were built from the usage table (and stored as
	// the new series table), not read from a fresh series table.
	Built bool `json:"-"`
	// ListTenants: the text lists every tenant (Options.Tenants).
	ListTenants bool `json:"-"`
	// Units and UnitsNote: what a utilisation of 1 is (CapacityUnits);
	// tenants.json carries them.
	Units     string   `json:"-"`
	UnitsNote string   `json:"-"`
	Tenants   []Tenant `json:"tenants"`
	Classes   []Class  `json:"classes"`
	Warnings  []string `json:"warnings"`
}

// classify is Run on series in memory: pattern per tenant, K-Means
// classes per pattern, and headroom per class.
func classify(ctx context.Context, in Input, o Options) (*Result, error) {
	if len(in.Series) == 0 {
		return nil, ErrNoSeries
	}
	step := in.Series[0].StepS
	for _, s := range in.Series {
		if s.StepS != step || step <= 0 {
			return nil, errStep(s.Tenant, s.StepS, step)
		}
	}
	res := &Result{StepS: step, Tenants: make([]Tenant, len(in.Series)), Warnings: []string{}}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := newWorkspace()
			for i := range next {
				res.Tenants[i] = analyse(&in.Series[i], &o, ws)
			}
		}()
	}
	for i := range in.Series {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return combine(res, in.Series, &o)
}

// Combine is the part of Run that needs every tenant: K-Means classes per
// pattern over tenants already analysed (Analyse, one per series, in any
// order), and the classes' mean, peak, current and headroom from their
// series. A distributed runner analyses tenants per key and calls it once
// with all of them; Run calls the same code, so both give the same Result
// bit for bit on the same series (sums run in tenant order).
func Combine(series []dataset.Series, tenants []Tenant, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	if len(series) == 0 {
		return nil, ErrNoSeries
	}
	if len(tenants) != len(series) {
		return nil, fmt.Errorf("classify: %d analysed tenants for %d series", len(tenants), len(series))
	}
	step := series[0].StepS
	for _, s := range series {
		if s.StepS != step || step <= 0 {
			return nil, errStep(s.Tenant, s.StepS, step)
		}
	}
	res := &Result{StepS: step, Tenants: slices.Clone(tenants), Warnings: []string{}}
	return combine(res, series, &o)
}

// combine sorts res.Tenants, clusters them and fills the classes from
// series (the same tenants, any order).
func combine(res *Result, in []dataset.Series, o *Options) (*Result, error) {
	sort.SliceStable(res.Tenants, func(i, j int) bool { return res.Tenants[i].Tenant < res.Tenants[j].Tenant })
	// Series must follow the same order for the class aggregates.
	series := make([]*dataset.Series, len(in))
	for i := range in {
		series[i] = &in[i]
	}
	sort.SliceStable(series, func(i, j int) bool { return series[i].Tenant < series[j].Tenant })
	for i := range series {
		if i > 0 && series[i].Tenant == series[i-1].Tenant {
			return nil, errDuplicate(series[i].Tenant)
		}
		if res.Tenants[i].Tenant != series[i].Tenant {
			return nil, fmt.Errorf("classify: tenant %q was analysed, but the series at its place is %q", res.Tenants[i].Tenant, series[i].Tenant)
		}
	}
	res.Classes = cluster(res.Tenants, o)
	res.AtMs, res.Warnings = headroom(res, series, o)
	return res, nil
}

// errStep and errDuplicate are the input errors of classify, shared with
// classifyStored.
func errStep(tenant string, s, step float64) error {
	return fmt.Errorf("classify: series of %q has step %gs, others %gs: every series must share one grid", tenant, s, step)
}

func errDuplicate(tenant string) error {
	return fmt.Errorf("classify: tenant %q has more than one series", tenant)
}

// upTo is the part of s's values at or before o.AtMs (all of them
// without --at): what a classification at that instant may know.
func (o *Options) upTo(s *dataset.Series) []float64 {
	if o.AtMs == dataset.NoTime || o.AtMs == 0 {
		return s.Values
	}
	stepMs := int64(math.Round(s.StepS * 1000))
	if stepMs <= 0 {
		return s.Values
	}
	n := floorDiv(o.AtMs, stepMs) - floorDiv(s.StartMs, stepMs) + 1
	return s.Values[:min(max(n, 0), int64(len(s.Values)))]
}

// analyse classifies one tenant.
func analyse(s *dataset.Series, o *Options, ws *workspace) Tenant {
	t := Tenant{Tenant: s.Tenant, Servers: int(s.Servers), Pattern: Insufficient, StepS: s.StepS}
	ws.forget() // ws.x and ws.y are about to hold this tenant's series
	v := o.upTo(s)
	first, last := 0, len(v)-1
	for first <= last && math.IsNaN(v[first]) {
		first++
	}
	for last > first && math.IsNaN(v[last]) {
		last--
	}
	if first > last {
		t.Reason = "no samples"
		return t
	}
	v = v[first : last+1]
	stepS := s.StepS
	// One pass: mean, peak, the sampling interval, and v copied into ws.x
	// with its gaps filled for the grid's step (used unless the tenant is
	// analysed on a coarser one).
	sc := ws.scan(v, int(3600/stepS), int(o.MaxGap.Seconds()/stepS))
	t.Mean, t.Peak = sc.mean, sc.peak
	observed, filled := sc.observed, true
	if k := sc.native; k > 1 {
		a0 := floorDiv(s.StartMs, int64(math.Round(stepS*1000))) + int64(first)
		v, observed = regrid(v, a0, k, ws)
		stepS *= float64(k)
		t.StepS = stepS
		filled = false
	}
	t.Slots = len(v)
	t.Coverage = float64(observed) / float64(len(v))
	span := time.Duration(float64(len(v)) * stepS * float64(time.Second))
	if span < o.MinHistory {
		t.Reason = fmt.Sprintf("%s of history, need at least %s", timeflag.FormatDuration(span), timeflag.FormatDuration(o.MinHistory))
		return t
	}
	if t.Coverage < o.MinCoverage {
		t.Reason = fmt.Sprintf("samples in %.0f%% of slots, need at least %.0f%%", 100*t.Coverage, 100*o.MinCoverage)
		return t
	}
	long, longest := sc.long, sc.longest
	if !filled {
		ws.x = growF(ws.x, len(v))
		copy(ws.x, v)
		long, longest = 0, 0
		if observed < len(v) { // gaps to fill
			long, longest = fillGaps(ws.x, int(o.MaxGap.Seconds()/stepS))
		}
	}
	x := ws.x[:len(v)]
	if long > 0 {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%d gap(s) longer than %s filled by linear interpolation (longest %s)",
			long, timeflag.FormatDuration(o.MaxGap), timeflag.FormatDuration(time.Duration(float64(longest)*stepS*float64(time.Second)))))
	}
	t.Spread = signalSpread(x, max(1, int(math.Round(3600/stepS))))
	flat := t.Spread <= math.Max(o.ConstantRel*t.Mean, o.ConstantAbs)
	h := fnv.New64a()
	h.Write([]byte(s.Tenant))
	c := ws.cycle(x, stepS, rand.NewPCG(o.Seed, h.Sum64()), o)
	t.Strength = clamp01(c.best)
	switch {
	case c.lag > 0 && flat && ws.cycleSD(c.window, c.lag) < o.MinAmplitude:
		// A cycle too small to matter on a flat tenant.
		t.Pattern, t.Strength = Constant, clamp01(c.strength)
	case c.lag > 0:
		// A period within max(1%, half a step) of a natural one is that
		// natural period: the grid places a period to the nearest slot
		// at best, and a smooth wave seen ten times under noise to
		// within a few (a day came out as 23h50m and 24h06m), where
		// schedules and people keep hours, days and weeks exactly.
		p := c.period * stepS
		if q, ok := nearestNatural(p, stepS/2); ok {
			p = q
		}
		t.Pattern, t.PeriodS, t.Strength = Periodic, &p, clamp01(c.strength)
	case flat:
		t.Pattern, t.Strength = Constant, 0
	default:
		t.Pattern = Unpredictable
	}
	return t
}

// found is the outcome of cycle: the period in grid slots (0 if none)
// and its strength, the window it was measured on, and the strength of
// the best candidate even when none was confirmed.
type found struct {
	lag            int
	period         float64 // in grid slots: lag, or between slots
	strength, best float64
	window         []float64
}

// cycle searches x (gap-free, on the grid of step stepS) for a period.
// First on a series averaged down to at most DetectLen points with a
// smooth length (the most recent part is kept); then, when that finds
// nothing or a period up to ShortPeriod, on the most recent DetectLen
// slots of the grid itself, for periods up to ShortPeriod: the
// detection grid (20 minutes for a month at 2 minutes) averages away
// cycles of a few slots, and places short periods coarsely.
func (ws *workspace) cycle(x []float64, stepS float64, src *rand.PCG, o *Options) found {
	f := detectFactor(len(x), o.DetectLen, stepS)
	nd := len(x) / f
	n := smoothLen(nd)
	ws.y = growF(ws.y, n)
	y := ws.y
	off := len(x) - n*f
	blockMeans(y, x[off:off+n*f], f)
	d := detect(y, band{stepS: float64(f) * stepS}, src, o, ws)
	var res found
	res.best = d.best
	shortLag := int(o.ShortPeriod.Seconds() / stepS)
	if d.periodic {
		// The cycle's size on the detection grid, before y is reused.
		sdDetect := ws.cycleSD(y, d.lag)
		// Refine on the full grid: the detection grid's lag is only good
		// to within a few of its own steps. The fold is smoothed over
		// half a detection step (10 minutes at the default grid): over a
		// whole one, weekly periods seen in four cycles came out one grid
		// step short.
		start := int(math.Round(d.period * float64(f)))
		alt := 0
		if q, ok := nearestNatural(float64(start)*stepS, float64(f)*stepS); ok {
			alt = int(math.Round(q / stepS))
		}
		lag := ws.refineClimb(x[off:], start, f+1, max(1, f/2), alt)
		period := float64(lag)
		if f == 1 && d.period != float64(d.lag) {
			// Placed between slots on the grid itself already.
			lag, period = d.lag, d.period
		}
		r := acf(ws.delevel(x[off:], lag), lag)
		if r < d.strength {
			r = d.strength
		}
		res = found{lag: lag, period: period, strength: r, best: math.Max(d.best, r), window: x[off:]}
		// A cycle the detection grid's averaging shrank (to under 70%
		// of its size on the grid itself) is faster than it looks there:
		// a 20-minute cycle on an 18-minute detection grid repeats, as
		// the grid sees it, every 3 hours.
		aliased := sdDetect < 0.7*ws.cycleSD(x[off:], lag)
		if f == 1 || lag > shortLag && !aliased && naturalPeriod(float64(lag)*stepS, stepS) {
			return res
		}
	}
	if f == 1 || shortLag < 4 {
		return res // the detection grid was the grid itself
	}
	// A short period found on the detection grid is placed better on
	// the grid itself; a long one that is not natural may be a short
	// cycle aliased by the detection grid's averaging (15.5 minutes on a
	// 20-minute grid repeats every 7.75 hours): a cycle the grid itself
	// shows wins over either.
	n = smoothLen(min(len(x), o.DetectLen))
	ws.y = growF(ws.y, n)
	y = ws.y
	copy(y, x[len(x)-n:])
	ds := detect(y, band{stepS: stepS, maxLag: shortLag}, src, o, ws)
	res.best = math.Max(res.best, ds.best)
	if !ds.periodic {
		return res
	}
	w := x[len(x)-n:]
	r := acf(ws.delevel(w, ds.lag), ds.lag)
	if r < ds.strength {
		r = ds.strength
	}
	return found{lag: ds.lag, period: ds.period, strength: r, best: math.Max(res.best, r), window: w}
}

// detectFactor is the number of grid steps averaged into one step of the
// detection series: the least that brings n points down to at most
// detectLen, raised (by at most half) to one whose detection step divides
// an hour, or else a day, so that hourly, daily and weekly periods are
// whole numbers of detection steps (a week is 67.2 steps of 2.5 hours and
// folds badly, 56 of 3 hours; an hourly cron is 3.33 steps of 18 minutes,
// and its 3-hour multiple, 10 steps, came out as the period, where 20
// minutes make it 3).
func detectFactor(n, detectLen int, stepS float64) int {
	f := max(1, (n+detectLen-1)/detectLen)
	if f == 1 {
		return 1
	}
	for _, unit := range []int64{3600, 86400} {
		for g := f; g <= f+f/2; g++ {
			d := float64(g) * stepS
			if d == math.Trunc(d) && unit%int64(d) == 0 {
				return g
			}
		}
	}
	return f
}

// blockMeans sets y[i] to the mean of x[i·f : (i+1)·f], each block summed
// in order; four blocks are summed side by side, so four independent
// chains of additions run at once and every mean has the bits of the plain
// loop.
func blockMeans(y, x []float64, f int) {
	i := 0
	for ; i+4 <= len(y); i += 4 {
		a, b, c, d := x[i*f:(i+1)*f], x[(i+1)*f:(i+2)*f], x[(i+2)*f:(i+3)*f], x[(i+3)*f:(i+4)*f]
		b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
		var sa, sb, sc, sd float64
		for j := range a {
			sa += a[j]
			sb += b[j]
			sc += c[j]
			sd += d[j]
		}
		y[i], y[i+1], y[i+2], y[i+3] = sa/float64(f), sb/float64(f), sc/float64(f), sd/float64(f)
	}
	for ; i < len(y); i++ {
		var s float64
		for _, u := range x[i*f : (i+1)*f] {
			s += u
		}
		y[i] = s / float64(f)
	}
}

// sum4 is the sum of v in four interleaved parts (one chain of dependent
// additions is four times slower; the result differs from the sequential
// sum only in rounding).
func sum4(v []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		u := v[i : i+4 : i+4]
		s0 += u[0]
		s1 += u[1]
		s2 += u[2]
		s3 += u[3]
	}
	for ; i < len(v); i++ {
		s0 += v[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// fillGaps interpolates NaN runs of x (which starts and ends with samples)
// linearly, and counts the runs longer than maxGap slots.
func fillGaps(x []float64, maxGap int) (long, longest int) {
	for i := 0; i < len(x); {
		if !math.IsNaN(x[i]) {
			i++
			continue
		}
		j := i
		for math.IsNaN(x[j]) {
			j++
		}
		interpolate(x, i, j, x[i-1], x[j])
		if j-i > maxGap {
			long++
		}
		longest = max(longest, j-i)
		i = j
	}
	return long, longest
}

// interpolate fills x[i:j], a gap between the samples a (before it) and
// b (after it), on the straight line between them.
func interpolate(x []float64, i, j int, a, b float64) {
	for k := i; k < j; k++ {
		x[k] = a + (b-a)*float64(k-i+1)/float64(j-i+1)
	}
}

// signalSpread is the standard deviation of x's means over blocks of w
// slots, less what white noise of the size seen between neighbouring
// samples contributes to it (var(diff)/2 per sample, /w per block mean).
// A flat but noisy tenant thus reads as flat.
func signalSpread(x []float64, w int) float64 {
	var d0, d1, d2, d3 float64
	i := 1
	for ; i+4 <= len(x); i += 4 {
		u := x[i-1 : i+4 : i+4] // one bounds check for five
		a, b, c, d := u[1]-u[0], u[2]-u[1], u[3]-u[2], u[4]-u[3]
		d0 += a * a
		d1 += b * b
		d2 += c * c
		d3 += d * d
	}
	for ; i < len(x); i++ {
		d := x[i] - x[i-1]
		d0 += d * d
	}
	d2 += d0 + d1 + d3
	noise := d2 / float64(2*(len(x)-1))
	nb := len(x) / w
	if nb < 2 {
		w, nb = 1, len(x)
	}
	var s, ss float64
	for b := 0; b < nb; b++ {
		m := sum4(x[b*w:(b+1)*w]) / float64(w)
		s += m
		ss += m * m
	}
	mean := s / float64(nb)
	v := ss/float64(nb) - mean*mean - noise/float64(w)
	return math.Sqrt(math.Max(v, 0))
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }
