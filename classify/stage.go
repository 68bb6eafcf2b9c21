package classify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"sort"
	"syscall"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// Input is what Run classifies: every tenant's average-server series on
// one grid (all with the same step), in memory (Series, as SeriesBuilder
// gives them), or the dataset's fresh series table, which Run classifies
// as it reads it. Load makes either, from Series.
type Input struct {
	Series []dataset.Series
	// stored is a dataset whose series table is fresh: Run streams it.
	stored *dataset.Dataset
	// built: Series were built from usage by Load (and stored).
	built bool
	// units, unitsNote: what a utilisation of 1 is (CapacityUnits).
	units, unitsNote string
	// set is where Series came from: Run waits for the series table it
	// is storing, and its Warnings (a table that could not be stored)
	// are the last of the result's (nil for an Input made by hand).
	set *SeriesSet
}

// AllSeries returns the input's series in memory: Series, or the fresh
// series table read whole. It is for the stages that replay the series
// themselves (harvest, placement); Run streams a stored table instead.
func (in Input) AllSeries(ctx context.Context) ([]dataset.Series, error) {
	if in.stored == nil {
		return in.Series, nil
	}
	return dataset.ReadSeries(ctx, in.stored)
}

// Load prepares the classify stage's input from a dataset: the series
// from Series, which builds them and stores the series table when it is
// missing or stale. A fresh table is not read here: Run classifies it
// group by group as it reads it (130 MB instead of 1.7 GB at 10,000
// tenants × 30 days). The table Series stores is committed through its
// own handle on the dataset: ds's manifest still lists the table it
// replaced (Result.Representatives reopens it).
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	set, err := Series(ctx, ds, SeriesOptions{Step: opts.Step})
	if err != nil {
		return Input{}, err
	}
	units, note := CapacityUnits(ds.Manifest())
	return Input{Series: set.series, stored: set.stored, built: set.Built, units: units, unitsNote: note, set: set}, nil
}

// GoogleUsageFormat is the ingest format of Google ClusterData 2019's
// instance usage, whose cpu and memory are NCU/NMU: fractions of the
// largest machine of the cell, not of the tenant's own machine.
const GoogleUsageFormat = "google2019-usage"

// CapacityUnits says what a utilisation of 1 means in the dataset's usage
// table, from the inputs its rows came from: "server" (a fraction of the
// tenant's own server: csv, Alibaba, Azure), "ncu" (Google 2019: a
// fraction of the largest machine of the cell, so 1 − usage is the spare
// share of that machine, not of the tenant's) or "mixed"; the note says
// it in words for tenants.json.
func CapacityUnits(m *dataset.Manifest) (units, note string) {
	var ncu, server bool
	for _, s := range m.Sources {
		switch {
		case s.Format == GoogleUsageFormat:
			ncu = true
		case s.Table == dataset.UsageTable.Name:
			server = true
		}
	}
	switch {
	case ncu && server:
		return "mixed", "utilisation mixes fractions of a server with Google 2019 NCU (fractions of the largest machine of a cell): headroom compares them as if they were one unit"
	case ncu:
		return "ncu", "utilisation is in Google 2019 NCU, a fraction of the largest machine of the cell: headroom (1 − utilisation) is spare capacity in that unit, not a fraction of the tenant's own machine"
	}
	return "server", ""
}

// Run is the classify stage: pattern per tenant (Analyse), K-Means classes
// per pattern, and headroom per class. On a stored series table the result
// is the same, bit for bit, as on the same series in memory (tested). A
// stored table not in tenant order (not one Series wrote) is read whole
// and classified in memory. Run writes nothing.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	res, err := runStage(ctx, in, opts)
	var notes []string
	if in.set != nil {
		// The series Load built are stored while they are classified.
		if werr := in.set.Stored(); werr != nil {
			return nil, werr
		}
		notes = in.set.Warnings
	}
	if res != nil {
		// Series given in memory are taken as fractions of each tenant's
		// own server, as a dataset without Google 2019 usage is.
		res.Units, res.UnitsNote = in.units, in.unitsNote
		if res.Units == "" {
			res.Units = "server"
		}
		res.Built, res.ListTenants = in.built, opts.Tenants
		res.Warnings = append(res.Warnings, notes...)
	}
	return res, err
}

func runStage(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	if in.stored != nil {
		res, err := classifyStored(ctx, in.stored, SeriesOptions{Step: opts.Step}, opts)
		if !errors.Is(err, errRebuild) {
			return res, err
		}
		// Series checked the table's step; a table out of tenant order
		// is read whole, and its series are classified in memory.
		if in.Series, err = dataset.ReadSeries(ctx, in.stored); err != nil {
			return nil, err
		}
	}
	return classify(ctx, in, o)
}

// Analyse is the per-tenant core of the stage, a plain function of one
// tenant's series that a distributed runner can call per key: the pattern,
// period, strength, mean and peak of one series (class, and the class
// aggregates, come from every tenant: Run).
func Analyse(s *dataset.Series, opts Options) Tenant {
	o := opts.withDefaults()
	return analyse(s, &o, newWorkspace())
}

// Validate reports every option out of range at once. Zero values mean
// their defaults and are valid.
func (o *Options) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("classify: "+format, a...)) }
	if o.Step < 0 || (o.Step > 0 && o.Step < time.Second) {
		bad("step %v: want at least 1s", o.Step)
	}
	if o.K < 0 {
		bad("k %d: want a positive number of classes per pattern (0: chosen from the data)", o.K)
	}
	if o.MaxK < 0 {
		bad("max-k %d: want a positive number", o.MaxK)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"min-coverage", o.MinCoverage}, {"min-strength", o.MinStrength}, {"fundamental-share", o.FundamentalShare}, {"split-strength", o.SplitStrength}, {"few-cycles-strength", o.FewCyclesStrength}} {
		if !(f.v >= 0 && f.v <= 1) {
			bad("%s %g: want a fraction in [0,1]", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"constant-rel", o.ConstantRel}, {"constant-abs", o.ConstantAbs}, {"min-amplitude", o.MinAmplitude}, {"harmonic-tolerance", o.HarmonicTolerance}, {"class-spread", o.ClassSpread}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			bad("%s %g: want a number ≥ 0", f.name, f.v)
		}
	}
	if o.MinHistory < 0 || o.MaxGap < 0 || o.ShortPeriod < 0 {
		bad("min-history %v, max-gap %v and short-period %v: want durations ≥ 0", o.MinHistory, o.MaxGap, o.ShortPeriod)
	}
	if o.DetectLen < 0 || o.Shuffles < 0 || o.MinCycles < 0 || o.MinCyclesFree < 0 || o.Candidates < 0 || o.MaxHarmonic < 0 || o.Workers < 0 {
		bad("detect len, shuffles, min cycles, min cycles free, candidates, max harmonic and workers: want counts ≥ 0")
	}
	return errors.Join(errs...)
}

// Profile turns the result into tenants.json (package profile): every
// tenant's pattern and class, every class's pattern, mean, peak, headroom,
// ranking weights and period.
func (r *Result) Profile() *profile.Tenants {
	file := &profile.Tenants{Version: profile.Version, Kind: "tenants", StepS: r.StepS,
		Ranking: profile.DefaultRanking(), Classes: []profile.Class{}, Tenants: []profile.Tenant{},
		Warnings: append([]string{}, r.Warnings...)}
	if r.AtMs != dataset.NoTime {
		at := r.AtMs
		file.AtMs = &at
	}
	file.CapacityUnits, file.CapacityNote = r.Units, r.UnitsNote
	if file.CapacityUnits == "" {
		file.CapacityUnits = "server"
	}
	topWeight := 1.0
	for _, c := range r.Classes {
		topWeight = math.Max(topWeight, math.Max(c.Weights.Short, math.Max(c.Weights.Medium, c.Weights.Long)))
	}
	periods := map[string]map[float64]int{}
	for _, t := range r.Tenants {
		file.Tenants = append(file.Tenants, profile.Tenant{Tenant: t.Tenant, Class: t.Class, Pattern: string(t.Pattern),
			PeriodS: t.PeriodS, Strength: t.Strength, Mean: t.Mean, Peak: t.Peak, StepS: t.StepS, Reason: t.Reason})
		if t.PeriodS != nil && t.Class != "" {
			if periods[t.Class] == nil {
				periods[t.Class] = map[float64]int{}
			}
			periods[t.Class][*t.PeriodS]++
		}
	}
	sort.Slice(file.Tenants, func(a, b int) bool { return file.Tenants[a].Tenant < file.Tenants[b].Tenant })
	for _, c := range r.Classes {
		pc := profile.Class{Class: c.Class, Pattern: string(c.Pattern), Tenants: c.Tenants, Servers: c.Servers,
			Mean: c.Mean, Peak: c.Peak, Current: c.Current,
			Headroom: profile.JobTypes{Short: c.Headroom.Short, Medium: c.Headroom.Medium, Long: c.Headroom.Long},
			// Ranking weights are 3/2/1 per job type here; the profile
			// format keeps weights in [0,1], so they are divided by the
			// top rank.
			Weights: profile.JobTypes{Short: c.Weights.Short / topWeight, Medium: c.Weights.Medium / topWeight, Long: c.Weights.Long / topWeight}}
		pc.PeriodS = classPeriod(periods[c.Class])
		file.Classes = append(file.Classes, pc)
	}
	return file
}

// classPeriod is a class's period: the one most of its periodic tenants
// have (the shorter on a tie); nil when none is periodic.
func classPeriod(votes map[float64]int) *float64 {
	best, bestN := 0.0, 0
	for p, n := range votes {
		if n > bestN || (n == bestN && p < best) {
			best, bestN = p, n
		}
	}
	if bestN == 0 {
		return nil
	}
	return &best
}

// Representative is a tenant shown for its class: its series and their
// periodogram (Spectrum).
type Representative struct {
	Class       string
	Series      dataset.Series
	FrequencyHz []float64
	Power       []float64
}

// Representatives picks, per class, up to n tenants closest to the class's
// (mean, peak) (ties by name), and reads back their series from ds's
// series table: only those, not the whole table.
func (r *Result) Representatives(ctx context.Context, ds *dataset.Dataset, n int) ([]Representative, error) {
	type pick struct {
		class, tenant string
		stepS         float64 // the step the tenant was analysed on
	}
	var picks []pick
	wanted := map[string]bool{}
	for _, c := range r.Classes {
		var members []Tenant
		for _, t := range r.Tenants {
			if t.Class == c.Class {
				members = append(members, t)
			}
		}
		dist := func(t Tenant) float64 { return math.Hypot(t.Mean-c.Mean, t.Peak-c.Peak) }
		sort.SliceStable(members, func(a, b int) bool {
			da, db := dist(members[a]), dist(members[b])
			if da != db {
				return da < db
			}
			return members[a].Tenant < members[b].Tenant
		})
		for _, t := range members[:min(n, len(members))] {
			picks = append(picks, pick{c.Class, t.Tenant, t.StepS})
			wanted[t.Tenant] = true
		}
	}
	if len(picks) == 0 {
		return nil, nil
	}
	if r.Built {
		// The series table was committed through a handle of its own;
		// ds's manifest still lists the table it replaced.
		var err error
		if ds, err = dataset.Open(ds.Dir); err != nil {
			return nil, err
		}
	}
	series, err := dataset.ReadSeriesOf(ctx, ds, func(tenant string) bool { return wanted[tenant] })
	if err != nil {
		return nil, err
	}
	byTenant := map[string]*dataset.Series{}
	for i := range series {
		byTenant[series[i].Tenant] = &series[i]
	}
	var out []Representative
	for _, p := range picks {
		s := byTenant[p.tenant]
		if s == nil {
			continue
		}
		on := onStep(s, p.stepS)
		f, pw := Spectrum(on.Values, on.StepS)
		out = append(out, Representative{Class: p.class, Series: on, FrequencyHz: f, Power: pw})
	}
	return out, nil
}

// onStep is s as the tenant was analysed: from its first sample to its
// last, on stepS when that is coarser than s's grid (regrid's blocks; a
// tenant sampled every 30 minutes on a 2-minute grid is NaN in 14 slots
// of 15 there, and its figure and spectrum were drawn from those).
func onStep(s *dataset.Series, stepS float64) dataset.Series {
	first, last := -1, -1
	for i, x := range s.Values {
		if !math.IsNaN(x) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	out := *s
	if first < 0 {
		out.Values = nil
		return out
	}
	stepMs := int64(math.Round(s.StepS * 1000))
	v := s.Values[first : last+1]
	a0 := floorDiv(s.StartMs, stepMs) + int64(first)
	out.StartMs, out.Values = a0*stepMs, slices.Clone(v)
	if k := int(math.Round(stepS / s.StepS)); k > 1 {
		var w workspace
		reg, _ := regrid(v, a0, k, &w)
		out.Values = slices.Clone(reg)
		out.StartMs = floorDiv(a0, int64(k)) * int64(k) * stepMs
		out.StepS = s.StepS * float64(k)
	}
	return out
}

// readOnly says whether err is the file system refusing a write.
func readOnly(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES)
}
