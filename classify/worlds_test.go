package classify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// Independent worlds for the pattern rule (issue 16, "pattern errors"):
// generators written apart from internal/synth and on other assumptions
// (per-minute processes sampled by agents with their own clock offsets
// and jitter, 1–5 minute steps, 7–30 days, per-server load imbalance,
// heavy-tailed noise, whole-percent quantisation, outages), each with the
// label a person gives it and why. They were frozen before the rule was
// changed: do not tune them to the classifier; add a generator instead,
// and say so.
//
// The labels follow Harvest's (Zhang et al., OSDI'16) three patterns (§3): periodic and constant
// tenants are those "for which the historical utilization data is a good
// predictor of future behaviors (the utilizations repeat periodically or
// all the time)"; an unpredictable tenant's spectrum has most of its power
// at the lowest frequencies, "events that rarely happen" (its Figure 1d).
// So:
//
//   - a cycle a person sees in the plot is periodic, at the shortest
//     period that repeats the whole shape, whatever its length (10
//     minutes or a week) and whatever the level it rides on;
//   - a level that holds, with white noise around it, is constant;
//   - wandering levels (red noise, random walks), switches between
//     levels at random times, trends without a cycle and irregular
//     bursts are unpredictable: their past level does not say what the
//     next hours bring (a trend is not "the same all the time", and the
//     paper ranks constant first for long jobs because such a tenant is
//     "unlikely to take resources away": a growing one will).

// worldTruth is one generated tenant: its noiseless per-minute
// average-server utilisation and its label.
type worldTruth struct {
	u       []float64 // per minute from the start of the world
	pattern Pattern
	periodS float64 // when periodic
	note    string  // the generator's parameters, for failure logs
}

// worldCfg is the sampling of one generator call, drawn before the
// generator runs; a generator may narrow it (weekly needs 21 days, a
// sub-hourly period needs four grid slots per cycle, a small wave needs
// its noise below it).
type worldCfg struct {
	days    float64
	stepMin int     // agent sampling interval, minutes (1, 2, 3 or 5)
	noise   float64 // per-sample standard deviation, fraction of a server
	// maxStepMin: the generator's largest allowed sampling step.
	maxStepMin int
}

// generator makes one or more tenants (anti-phase makes pairs) on one
// world configuration.
type generator struct {
	name string
	rule string
	gen  func(r *rand.Rand, c *worldCfg) []worldTruth
}

// worldGenerators, each with its labelling rule.
var worldGenerators = []generator{
	{"cron", "jobs started by a schedule (every 1, 2, 3, 4, 6, 8, 12 or 24 h at a fixed minute), each run a plateau of 5–30% of the period (at least two samples), run lengths ±10%, start delays up to 2 min, 3% of runs skipped → periodic at the schedule's period", genCron},
	{"subhourly", "square (30–70% duty), sine or sawtooth cycles of 10–60 min (half on round periods, half anywhere in the range), fixed to the clock (starts jitter ±30 s, no drift), 0.1–0.5 peak to trough, at least four grid slots per cycle → periodic at that period", genSubHourly},
	{"rednoise", "AR(1) with a time constant of 2 h–4 days (φ per minute 0.992–0.99983), or a reflected random walk; the noiseless path's hourly means span at least max(0.1, 30% of its mean) → unpredictable", genRedNoise},
	{"regime", "2–4 levels at least 0.08 apart, switched at exponential times (mean dwell 6 h–4 days, at least 1 h), at least two switches → unpredictable", genRegime},
	{"trend", "a linear or saturating trend moving the level by 0.15–0.4 with no cycle → unpredictable (not the same all the time, nothing repeats); a linear trend of 0.1–0.4 under a daily wave of 0.05–0.2 half peak-to-trough → periodic at one day", genTrend},
	{"weekly", "21–30 days: office hours on five weekdays only (weekends and nights at the base), or one weekly batch run of 3–12 h → periodic at one week (a day does not repeat the shape: the weekend differs)", genWeekly},
	{"antiphase", "pairs of tenants with the same daily shape (sine with a second harmonic, or a business-hours plateau), the second shifted by 12 h → both periodic at one day", genAntiPhase},
	{"smallwave", "a daily sine (with up to 30% second harmonic) of 0.015–0.04 half peak-to-trough on a level of 0.55–0.92, sample noise at most a third of the wave in hourly means → periodic at one day: the wave is plain in any plot, and a level does not make it flat", genSmallWave},
	{"flat", "a level of 0.02–0.9 with white noise (Gaussian or heavy-tailed), lone outliers and no structure → constant", genFlat},
	{"bursty", "idle at 0.01–0.1 with bursts at Poisson times (0.3–3 a day, 10 min–8 h, 0.2–0.8 high), at least three → unpredictable", genBursty},
}

// worldTenant is a generated tenant sampled into a series.
type worldTenant struct {
	gen    string
	series dataset.Series
	worldTruth
}

// makeWorld generates perGen tenants per generator with seed, each
// sampled as monitoring agents would and built into its average-server
// series by SeriesBuilder on its own step (the default, or the sampling
// step when coarser).
func makeWorld(seed uint64, perGen int) []worldTenant {
	var out []worldTenant
	for gi, g := range worldGenerators {
		r := rand.New(rand.NewPCG(seed, uint64(gi)+1))
		n := 0
		for n < perGen {
			c := &worldCfg{
				days:       7 + 23*r.Float64(),
				stepMin:    []int{1, 2, 3, 5}[r.IntN(4)],
				noise:      logUniform(r, 0.005, 0.04),
				maxStepMin: 5,
			}
			truths := g.gen(r, c)
			if c.stepMin > c.maxStepMin {
				c.stepMin = []int{1, 2, 3, 5}[r.IntN(indexOfStep(c.maxStepMin)+1)]
			}
			for _, tr := range truths {
				name := fmt.Sprintf("%s-s%d-%03d", g.name, seed, n)
				s := sampleWorld(r, name, c, tr.u)
				out = append(out, worldTenant{gen: g.name, series: s, worldTruth: tr})
				n++
			}
		}
	}
	return out
}

func indexOfStep(m int) int {
	for i, s := range []int{1, 2, 3, 5} {
		if s == m {
			return i
		}
	}
	return 0
}

func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return lo * math.Exp(r.Float64()*math.Log(hi/lo))
}

func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// minutes is the length of a world's per-minute truth.
func (c *worldCfg) minutes() int { return int(c.days * 1440) }

// sampleWorld samples the truth u as 1–5 monitoring agents (servers)
// would: each server reads every stepMin minutes at its own clock offset
// with ±2 s jitter, carries its share of the load (±5% imbalance) and its
// own noise (Gaussian, or Student-t with 3 degrees of freedom in a third
// of tenants), a lone outlier once in 10,000 samples, values clipped to
// [0,1] and, in a third of tenants, reported in whole per cent. Samples go
// missing at random (0–5%) and in 0–3 outages of 10 min–3 h across every
// server.
func sampleWorld(r *rand.Rand, name string, c *worldCfg, u []float64) dataset.Series {
	servers := 1 + r.IntN(5)
	heavy := r.IntN(3) == 0
	quant := r.IntN(3) == 0
	missing := 0.05 * r.Float64() * r.Float64()
	type outage struct{ from, to float64 } // minutes
	var outages []outage
	for k := r.IntN(4); k > 0; k-- {
		from := uniform(r, 0.05, 0.95) * float64(len(u))
		outages = append(outages, outage{from, from + logUniform(r, 10, 180)})
	}
	// The world starts at an arbitrary instant of 2024, not at midnight:
	// daily phases are the generators' business.
	startMs := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() + int64(r.IntN(300*86400))*1000
	step := max(DefaultStep, time.Duration(c.stepMin)*time.Minute)
	b := NewSeriesBuilder(step)
	share := make([]float64, servers)
	var sum float64
	for i := range share {
		share[i] = 1 + uniform(r, -0.05, 0.05)
		sum += share[i]
	}
	for i := range share {
		share[i] *= float64(servers) / sum
	}
	stepS := float64(c.stepMin) * 60
	for sv := 0; sv < servers; sv++ {
		server := fmt.Sprintf("%s-srv%d", name, sv)
		offS := stepS * r.Float64()
		for k := 0; ; k++ {
			tS := offS + float64(k)*stepS + uniform(r, -2, 2)
			m := tS / 60
			if m >= float64(len(u)) {
				break
			}
			if m < 0 || r.Float64() < missing {
				continue
			}
			down := false
			for _, o := range outages {
				if m >= o.from && m < o.to {
					down = true
				}
			}
			if down {
				continue
			}
			e := r.NormFloat64()
			if heavy { // Student-t(3), scaled to unit variance
				z1, z2, z3 := r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
				chi := z1*z1 + z2*z2 + z3*z3
				e = e / math.Sqrt(chi/3) / math.Sqrt(3)
			}
			v := u[int(m)]*share[sv] + c.noise*e
			if r.Float64() < 1e-4 {
				v += uniform(r, 0.2, 0.5)
			}
			v = math.Min(1, math.Max(0, v))
			if quant {
				v = math.Round(v*100) / 100
			}
			b.Add(name, server, startMs+int64(tS*1000), v)
		}
	}
	return b.Series()[0]
}

// clipU keeps a truth inside what a server can report.
func clipU(u []float64) {
	for i, v := range u {
		u[i] = math.Min(1, math.Max(0, v))
	}
}

// genCron: a scheduled job. Periods are those cron expressions give;
// each run is a plateau with a one-minute ramp.
func genCron(r *rand.Rand, c *worldCfg) []worldTruth {
	periods := []float64{1, 2, 3, 4, 6, 8, 12, 24}
	pH := periods[r.IntN(len(periods))]
	pMin := pH * 60
	at := math.Floor(r.Float64() * pMin) // fixed minute (and hour) of the schedule
	frac := uniform(r, 0.05, 0.3)
	dur := math.Max(2*float64(c.stepMin)+1, frac*pMin)
	base := uniform(r, 0.02, 0.3)
	height := uniform(r, 0.15, 0.6)
	u := make([]float64, c.minutes())
	for i := range u {
		u[i] = base
	}
	for start := at - pMin; start < float64(len(u)); start += pMin {
		if r.Float64() < 0.03 {
			continue // a skipped run
		}
		s := start + 2*r.Float64()
		d := dur * uniform(r, 0.9, 1.1)
		h := height * uniform(r, 0.9, 1.1)
		for m := int(math.Max(0, math.Ceil(s))); m < len(u) && float64(m) < s+d; m++ {
			u[m] = base + h*math.Min(1, float64(m)-s+1)
		}
	}
	clipU(u)
	return []worldTruth{{u: u, pattern: Periodic, periodS: pH * 3600,
		note: fmt.Sprintf("every %gh at minute %g, runs %.0f min, height %.2f on %.2f", pH, at, dur, height, base)}}
}

// genSubHourly: a short cycle tied to the clock.
func genSubHourly(r *rand.Rand, c *worldCfg) []worldTruth {
	var pMin float64
	if r.IntN(2) == 0 {
		round := []float64{10, 12, 15, 20, 30, 45, 60}
		pMin = round[r.IntN(len(round))]
	} else {
		pMin = math.Round(uniform(r, 10, 60)*10) / 10
	}
	// At least four grid slots per cycle (the grid is 2 minutes, or the
	// sampling step when coarser).
	switch {
	case pMin < 12:
		c.maxStepMin = 2
	case pMin < 20:
		c.maxStepMin = 3
	}
	base := uniform(r, 0.03, 0.4)
	amp := uniform(r, 0.1, 0.5)
	shape := r.IntN(3)
	duty := uniform(r, 0.3, 0.7)
	phase := r.Float64() * pMin
	u := make([]float64, c.minutes())
	jitter := 0.0
	for i := range u {
		t := float64(i) + phase
		cyc := math.Floor(t / pMin)
		if i == 0 || math.Floor((t-1)/pMin) != cyc {
			jitter = uniform(r, -0.5, 0.5) // this cycle's start delay, minutes
		}
		pos := (t - cyc*pMin - jitter) / pMin
		if pos < 0 {
			pos += 1
		}
		var w float64
		switch shape {
		case 0: // square
			if pos < duty {
				w = 1
			}
		case 1: // sine
			w = 0.5 + 0.5*math.Sin(2*math.Pi*pos)
		default: // sawtooth
			w = pos
		}
		u[i] = base + amp*w
	}
	clipU(u)
	return []worldTruth{{u: u, pattern: Periodic, periodS: pMin * 60,
		note: fmt.Sprintf("%g min, shape %d, amp %.2f on %.2f", pMin, shape, amp, base)}}
}

// hourlyRange is the range of u's hourly means and its mean.
func hourlyRange(u []float64) (lo, hi, mean float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	var s float64
	for h := 0; h+60 <= len(u); h += 60 {
		var m float64
		for _, v := range u[h : h+60] {
			m += v
		}
		m /= 60
		lo, hi = math.Min(lo, m), math.Max(hi, m)
	}
	for _, v := range u {
		s += v
	}
	return lo, hi, s / float64(len(u))
}

// genRedNoise: a wandering level. The path is redrawn until it visibly
// wanders (a short world with a slow process may not have moved yet).
func genRedNoise(r *rand.Rand, c *worldCfg) []worldTruth {
	for {
		u := make([]float64, c.minutes())
		level := uniform(r, 0.15, 0.6)
		sd := uniform(r, math.Max(0.03, 0.15*level), 0.3*level+0.03)
		var note string
		if r.IntN(4) == 0 { // reflected random walk
			// Its spread after the window is sd.
			sig := sd / math.Sqrt(float64(len(u)))
			x := level
			for i := range u {
				x += sig * r.NormFloat64()
				if x < 0.02 {
					x = 0.04 - x
				}
				if x > 0.98 {
					x = 1.96 - x
				}
				u[i] = x
			}
			note = fmt.Sprintf("random walk, sd %.3f", sd)
		} else {
			tau := logUniform(r, 120, 4*1440) // minutes
			phi := math.Exp(-1 / tau)
			sig := sd * math.Sqrt(1-phi*phi)
			x := level + sd*r.NormFloat64()
			for i := range u {
				x = level + phi*(x-level) + sig*r.NormFloat64()
				u[i] = x
			}
			note = fmt.Sprintf("AR(1) tau %.0f min, sd %.3f around %.2f", tau, sd, level)
		}
		clipU(u)
		lo, hi, mean := hourlyRange(u)
		if hi-lo >= math.Max(0.1, 0.3*mean) {
			return []worldTruth{{u: u, pattern: Unpredictable, note: note}}
		}
	}
}

// genRegime: levels switched at random instants.
func genRegime(r *rand.Rand, c *worldCfg) []worldTruth {
	for {
		k := 2 + r.IntN(3)
		var levels []float64
		for len(levels) < k {
			l := uniform(r, 0.05, 0.85)
			ok := true
			for _, m := range levels {
				if math.Abs(l-m) < 0.08 {
					ok = false
				}
			}
			if ok {
				levels = append(levels, l)
			}
		}
		dwell := logUniform(r, 360, 4*1440)
		u := make([]float64, c.minutes())
		cur := r.IntN(k)
		switches := 0
		for i := 0; i < len(u); {
			d := int(math.Max(60, dwell*r.ExpFloat64()))
			for j := i; j < min(i+d, len(u)); j++ {
				u[j] = levels[cur]
			}
			i += d
			if i < len(u) {
				cur = (cur + 1 + r.IntN(k-1)) % k
				switches++
			}
		}
		if switches >= 2 {
			return []worldTruth{{u: u, pattern: Unpredictable,
				note: fmt.Sprintf("%d levels %.2f, mean dwell %.0f min, %d switches", k, levels, dwell, switches)}}
		}
	}
}

// genTrend: a level that moves one way, with or without a daily wave.
func genTrend(r *rand.Rand, c *worldCfg) []worldTruth {
	n := c.minutes()
	u := make([]float64, n)
	kind := r.IntN(3)
	if kind == 2 { // linear trend under a daily wave
		delta := uniform(r, 0.1, 0.4)
		amp := uniform(r, 0.05, 0.2)
		from := uniform(r, amp+0.02, 0.95-amp-delta)
		if r.IntN(2) == 0 {
			from, delta = from+delta, -delta
		}
		ph := 2 * math.Pi * r.Float64()
		for i := range u {
			day := 2 * math.Pi * float64(i) / 1440
			u[i] = from + delta*float64(i)/float64(n) + amp*math.Sin(day+ph)
		}
		clipU(u)
		return []worldTruth{{u: u, pattern: Periodic, periodS: 86400,
			note: fmt.Sprintf("trend %+.2f from %.2f under daily wave %.2f", delta, from, amp)}}
	}
	delta := uniform(r, 0.15, 0.4)
	from := uniform(r, 0.03, 0.9-delta)
	if r.IntN(2) == 0 {
		from, delta = from+delta, -delta
	}
	T := uniform(r, 0.1, 0.5) * float64(n)
	for i := range u {
		x := float64(i) / float64(n)
		if kind == 0 {
			u[i] = from + delta*x
		} else { // saturating: most of the move early on
			u[i] = from + delta*(1-math.Exp(-float64(i)/T))/(1-math.Exp(-float64(n)/T))
		}
	}
	clipU(u)
	return []worldTruth{{u: u, pattern: Unpredictable,
		note: fmt.Sprintf("trend kind %d %+.2f from %.2f", kind, delta, from)}}
}

// genWeekly: a week is the shortest period that repeats.
func genWeekly(r *rand.Rand, c *worldCfg) []worldTruth {
	c.days = uniform(r, 21, 30)
	n := c.minutes()
	u := make([]float64, n)
	weekStart := r.Float64() * 7 * 1440 // minutes into the world at which a local Monday starts
	base := uniform(r, 0.03, 0.35)
	height := uniform(r, 0.15, 0.5)
	if r.IntN(2) == 0 { // office hours on weekdays
		open := uniform(r, 7, 10) * 60
		length := uniform(r, 8, 11) * 60
		for i := range u {
			m := math.Mod(float64(i)-weekStart+14*1440, 7*1440)
			day, tod := int(m/1440), math.Mod(m, 1440)
			u[i] = base
			if day < 5 && tod >= open && tod < open+length {
				// One-hour ramps at either end of the day.
				ramp := math.Min(1, math.Min(tod-open, open+length-tod)/60)
				u[i] = base + height*ramp
			}
		}
		clipU(u)
		return []worldTruth{{u: u, pattern: Periodic, periodS: 7 * 86400,
			note: fmt.Sprintf("office %.1fh from %.1fh, %.2f on %.2f", length/60, open/60, height, base)}}
	}
	at := r.Float64() * 7 * 1440
	dur := uniform(r, 3, 12) * 60
	for i := range u {
		m := math.Mod(float64(i)-weekStart-at+14*1440, 7*1440)
		u[i] = base
		if m < dur {
			u[i] = base + height*math.Min(1, m/10)
		}
	}
	clipU(u)
	return []worldTruth{{u: u, pattern: Periodic, periodS: 7 * 86400,
		note: fmt.Sprintf("weekly batch %.1fh, %.2f on %.2f", dur/60, height, base)}}
}

// genAntiPhase: two tenants, the same day in opposite phase.
func genAntiPhase(r *rand.Rand, c *worldCfg) []worldTruth {
	n := c.minutes()
	plateau := r.IntN(2) == 0
	h2 := uniform(r, 0, 0.4)
	open, length := uniform(r, 0, 24)*60, uniform(r, 6, 12)*60
	var out []worldTruth
	for p := 0; p < 2; p++ {
		level := uniform(r, 0.2, 0.6)
		amp := uniform(r, 0.1, 0.35) * math.Min(level, 1-level) / 0.35
		shift := float64(p) * 720
		u := make([]float64, n)
		for i := range u {
			t := float64(i) + shift
			if plateau {
				tod := math.Mod(t-open+1440*10, 1440)
				w := -1.0
				if tod < length {
					w = -1 + 2*math.Min(1, math.Min(tod, length-tod)/60)
				}
				u[i] = level + amp*w
			} else {
				day := 2 * math.Pi * t / 1440
				u[i] = level + amp*(math.Sin(day)+h2*math.Sin(2*day))/(1+h2)
			}
		}
		clipU(u)
		out = append(out, worldTruth{u: u, pattern: Periodic, periodS: 86400,
			note: fmt.Sprintf("anti-phase %d (plateau %v), amp %.2f on %.2f", p, plateau, amp, level)})
	}
	return out
}

// genSmallWave: a daily wave of a few points on a busy tenant.
func genSmallWave(r *rand.Rand, c *worldCfg) []worldTruth {
	level := uniform(r, 0.55, 0.92)
	amp := uniform(r, 0.015, 0.04)
	// Noise of hourly means at most a third of the wave (one server's
	// samples; more servers only average it down).
	perHour := 60 / float64(c.stepMin)
	c.noise = math.Min(c.noise, amp*math.Sqrt(perHour)/3)
	h2 := uniform(r, 0, 0.3)
	ph := 2 * math.Pi * r.Float64()
	u := make([]float64, c.minutes())
	for i := range u {
		day := 2*math.Pi*float64(i)/1440 + ph
		u[i] = level + amp*(math.Sin(day)+h2*math.Sin(2*day))/(1+h2)
	}
	clipU(u)
	return []worldTruth{{u: u, pattern: Periodic, periodS: 86400,
		note: fmt.Sprintf("wave %.3f on %.2f, noise %.3f", amp, level, c.noise)}}
}

// genFlat: a level that holds.
func genFlat(r *rand.Rand, c *worldCfg) []worldTruth {
	level := uniform(r, 0.02, 0.9)
	c.noise = logUniform(r, 0.002, 0.05)
	u := make([]float64, c.minutes())
	for i := range u {
		u[i] = level
	}
	return []worldTruth{{u: u, pattern: Constant, note: fmt.Sprintf("flat %.2f, noise %.3f", level, c.noise)}}
}

// genBursty: idle with irregular bursts.
func genBursty(r *rand.Rand, c *worldCfg) []worldTruth {
	for {
		n := c.minutes()
		idle := uniform(r, 0.01, 0.1)
		rate := uniform(r, 0.3, 3) / 1440 // per minute
		u := make([]float64, n)
		for i := range u {
			u[i] = idle
		}
		bursts := 0
		for t := r.ExpFloat64() / rate; t < float64(n); t += r.ExpFloat64() / rate {
			d := math.Min(480, math.Max(10, 30*math.Exp(r.NormFloat64())))
			h := uniform(r, 0.2, 0.8)
			for m := int(t); m < min(n, int(t+d)); m++ {
				u[m] = math.Max(u[m], idle+h)
			}
			bursts++
		}
		if bursts >= 3 {
			clipU(u)
			return []worldTruth{{u: u, pattern: Unpredictable,
				note: fmt.Sprintf("%d bursts on %.2f", bursts, idle)}}
		}
	}
}
