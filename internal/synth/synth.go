// Package synth generates synthetic utilisation worlds with known ground
// truth, for tests, benchmarks and the demo: tenants whose average-server
// CPU follows a daily or weekly+daily cycle, a cron-like spike train, a
// constant level, or an unpredictable random process, written as the generic
// utilisation CSV (tenant,server,timestamp,cpu) that `wlprof ingest csv` reads.
package synth

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Pattern names, as the classify stage reports them.
const (
	Periodic      = "periodic"
	Constant      = "constant"
	Unpredictable = "unpredictable"
)

// Kind is the generating process of a tenant.
type Kind string

const (
	Daily         Kind = "daily"        // one-day cycle with a second harmonic
	WeeklyDaily   Kind = "weekly+daily" // weekday/weekend level times a daily cycle
	Spikes        Kind = "spikes"       // short bursts every 6 hours (cron)
	Flat          Kind = "constant"     // a level with small noise
	RandomProcess Kind = "random"       // AR(1) walk with random bursts
)

// Kinds in the order tenants are assigned to them.
var Kinds = []Kind{Daily, WeeklyDaily, Spikes, Flat, RandomProcess}

// Options describe a world. Zero fields take the defaults of Default.
type Options struct {
	Tenants    int
	Days       float64
	Step       time.Duration
	MinServers int
	MaxServers int
	Noise      float64 // standard deviation of per-sample noise, fraction of a server
	Missing    float64 // probability that a sample is dropped
	Seed       uint64
	Start      time.Time
	Compact    bool // short tenant and server names (t0001, t0001s2), for benchmarks
	// Shifts is the probability that a periodic or random tenant's level
	// jumps once, at a random instant in the middle 80% of the trace, by
	// 0.1–0.25 up or down: the pattern (and its truth) stays the same.
	Shifts float64
}

// Default is a small world: 25 tenants, two weeks at 2-minute steps.
func Default() Options {
	return Options{Tenants: 25, Days: 14, Step: 2 * time.Minute, MinServers: 1, MaxServers: 4,
		Noise: 0.02, Missing: 0.001, Seed: 1, Start: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Truth is what a tenant really is.
type Truth struct {
	Tenant  string  `json:"tenant"`
	Kind    Kind    `json:"kind"`
	Pattern string  `json:"pattern"`
	PeriodS float64 `json:"period_s,omitempty"` // the dominant period, when periodic
	Servers int     `json:"servers"`
	Level   float64 `json:"level"` // mean utilisation the process is built around
}

type tenant struct {
	Truth
	names []string
	amp   float64
	phase float64
	state float64 // AR(1) state of random tenants
	burst int     // remaining steps of a burst
	// level shift: from shiftAt seconds on, shiftBy is added
	shiftAt, shiftBy float64
}

// Generate writes the world's CSV to w and returns the ground truth and the
// number of rows written. Rows are time-major, as monitoring systems emit them.
func Generate(w io.Writer, o Options) ([]Truth, int64, error) {
	d := Default()
	if o.Tenants <= 0 {
		o.Tenants = d.Tenants
	}
	if o.Days <= 0 {
		o.Days = d.Days
	}
	if o.Step <= 0 {
		o.Step = d.Step
	}
	if o.MinServers <= 0 {
		o.MinServers = d.MinServers
	}
	if o.MaxServers < o.MinServers {
		o.MaxServers = o.MinServers
	}
	if o.Start.IsZero() {
		o.Start = d.Start
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	ts := make([]*tenant, o.Tenants)
	truth := make([]Truth, o.Tenants)
	for i := range ts {
		k := Kinds[i%len(Kinds)]
		t := &tenant{}
		t.Kind = k
		t.Tenant = fmt.Sprintf("tenant-%04d", i)
		if o.Compact {
			t.Tenant = fmt.Sprintf("t%04d", i)
		}
		t.Servers = o.MinServers + rng.IntN(o.MaxServers-o.MinServers+1)
		t.Level = 0.15 + 0.45*rng.Float64()
		t.amp = (0.3 + 0.5*rng.Float64()) * math.Min(t.Level, 1-t.Level)
		t.phase = 2 * math.Pi * rng.Float64()
		t.state = t.Level
		switch k {
		case Daily, Spikes:
			t.Pattern, t.PeriodS = Periodic, 86400
			if k == Spikes {
				t.PeriodS = 6 * 3600
				t.Level = 0.05 + 0.1*rng.Float64()
			}
		case WeeklyDaily:
			t.Pattern, t.PeriodS = Periodic, 7*86400
		case Flat:
			t.Pattern = Constant
		case RandomProcess:
			t.Pattern = Unpredictable
		}
		t.shiftAt = math.Inf(1)
		if o.Shifts > 0 && k != Flat && rng.Float64() < o.Shifts {
			// Drawn only when asked for, so worlds without shifts keep
			// their bytes.
			t.shiftAt = (0.1 + 0.8*rng.Float64()) * o.Days * 86400
			t.shiftBy = 0.1 + 0.15*rng.Float64()
			if t.Level > 0.5 || (t.Level > 0.25 && rng.Float64() < 0.5) {
				t.shiftBy = -t.shiftBy
			}
		}
		for s := 0; s < t.Servers; s++ {
			if o.Compact {
				t.names = append(t.names, fmt.Sprintf("%ss%d", t.Tenant, s))
			} else {
				t.names = append(t.names, fmt.Sprintf("%s-srv%02d", t.Tenant, s))
			}
		}
		ts[i] = t
		truth[i] = t.Truth
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.WriteString("tenant,server,timestamp,cpu\n"); err != nil {
		return nil, 0, err
	}
	steps := int(o.Days * 86400 / o.Step.Seconds())
	startS := o.Start.Unix()
	stepS := o.Step.Seconds()
	var rows int64
	var line []byte
	for k := 0; k < steps; k++ {
		sec := startS + int64(float64(k)*stepS)
		tod := float64(k) * stepS
		for _, t := range ts {
			v := t.value(tod, stepS, rng)
			if tod >= t.shiftAt {
				v += t.shiftBy
			}
			for _, name := range t.names {
				if o.Missing > 0 && rng.Float64() < o.Missing {
					continue
				}
				x := v + o.Noise*rng.NormFloat64()
				x = math.Min(1, math.Max(0, x))
				line = append(line[:0], t.Tenant...)
				line = append(line, ',')
				line = append(line, name...)
				line = append(line, ',')
				line = strconv.AppendInt(line, sec, 10)
				line = append(line, ',')
				line = strconv.AppendFloat(line, x, 'f', 4, 64)
				line = append(line, '\n')
				if _, err := bw.Write(line); err != nil {
					return nil, rows, err
				}
				rows++
			}
		}
	}
	return truth, rows, bw.Flush()
}

// value is the tenant's noiseless average-server utilisation at t seconds
// from the start of the world.
func (t *tenant) value(sec, stepS float64, rng *rand.Rand) float64 {
	day := 2 * math.Pi * sec / 86400
	switch t.Kind {
	case Daily:
		return t.Level + t.amp*(0.8*math.Sin(day+t.phase)+0.2*math.Sin(2*day+t.phase))
	case WeeklyDaily:
		weekday := int(sec/86400) % 7
		lvl := t.Level
		if weekday >= 5 {
			lvl *= 0.45
		}
		return lvl + t.amp*0.6*math.Sin(day+t.phase)
	case Spikes:
		pos := math.Mod(sec+t.phase*3600, t.PeriodS)
		if pos < 20*60 {
			return t.Level + 0.6
		}
		return t.Level
	case Flat:
		return t.Level
	default:
		// AR(1) around the level with occasional bursts of random length.
		t.state = t.Level + 0.97*(t.state-t.Level) + 0.03*rng.NormFloat64()
		if t.burst > 0 {
			t.burst--
			return t.state + 0.3
		}
		if rng.Float64() < 0.5*stepS/86400 { // about one burst every two days
			t.burst = 1 + rng.IntN(int(4*3600/stepS)+1)
		}
		return t.state
	}
}
