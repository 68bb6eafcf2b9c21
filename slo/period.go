package slo

import (
	"math"
	"sort"

	"github.com/wlprof/wlprof/internal/quantile"
)

// NaturalPeriodsS are the periods a measured period snaps to: the divisors
// of a day that schedulers use (cron minutes and hours), a day and a week.
var NaturalPeriodsS = []float64{
	60, 2 * 60, 5 * 60, 10 * 60, 15 * 60, 20 * 60, 30 * 60,
	3600, 2 * 3600, 3 * 3600, 4 * 3600, 6 * 3600, 8 * 3600, 12 * 3600,
	86400, 7 * 86400,
}

// Period is what the submission times of a job say about its recurrence.
type Period struct {
	PeriodS float64 // snapped or measured period; 0 when there are too few runs
	CV      float64 // MAD / median of the submission spacing
	Snapped bool    // PeriodS is a natural period the median spacing was close to
	Regular bool    // CV and PhaseSpread ≤ the threshold
	// PhaseSpread is the MAD of the submissions' offsets from their usual
	// phase in the period, as a fraction of the period: a cron job keeps
	// its phase, submissions at random times do not, even when their
	// spacing happens to look regular over a few runs.
	PhaseSpread float64
	AnchorMs    int64 // instant of some period start: period k starts at AnchorMs + k·PeriodS
}

// mondayMs is 1970-01-05T00:00Z, a Monday: weekly periods start on Mondays.
const mondayMs = 4 * 86400 * 1000

// findPeriod measures the period of sorted submission instants: the median
// spacing (robust to a missed or an extra run), its CV = MAD / median, and
// the nearest natural period when the median is within snapTol (relative)
// of it. Periods that divide a day start at UTC midnight (and its
// multiples), weekly ones on Monday 00:00 UTC; an unsnapped period starts at
// the circular mean phase of the submissions minus half a period, so that
// runs submitted around their usual time fall in one period each.
func findPeriod(submits []int64, maxCV, snapTol float64) Period {
	if len(submits) < 3 {
		return Period{}
	}
	d := make([]float64, 0, len(submits)-1)
	for i := 1; i < len(submits); i++ {
		d = append(d, float64(submits[i]-submits[i-1])/1000)
	}
	m := quantile.Percentile(d, 50)
	if m <= 0 {
		return Period{CV: math.Inf(1)}
	}
	p := Period{PeriodS: m, CV: mad(d) / m}
	p.Regular = p.CV <= maxCV
	best := math.Inf(1)
	for _, n := range NaturalPeriodsS {
		if r := math.Abs(m-n) / n; r <= snapTol && r < best {
			best, p.PeriodS, p.Snapped = r, n, true
		}
	}
	if !p.Snapped {
		p.PeriodS = math.Round(m)
	}
	p.AnchorMs = anchor(submits, p)
	p.PhaseSpread = p.phaseSpread(submits)
	p.Regular = p.Regular && p.PhaseSpread <= maxCV
	return p
}

// phaseSpread is the MAD of the submissions' circular distance from their
// mean phase, over the period.
func (p Period) phaseSpread(submits []int64) float64 {
	periodMs := int64(p.PeriodS * 1000)
	if periodMs <= 0 {
		return 0
	}
	starts := p.runPeriodStarts(submits)
	var sx, sy float64
	for i, s := range submits {
		a := 2 * math.Pi * float64(s-starts[i]) / float64(periodMs)
		sx += math.Cos(a)
		sy += math.Sin(a)
	}
	mean := math.Atan2(sy, sx) / (2 * math.Pi) * float64(periodMs)
	d := make([]float64, len(submits))
	for i, s := range submits {
		x := math.Mod(float64(s-starts[i])-mean, float64(periodMs))
		if x > float64(periodMs)/2 {
			x -= float64(periodMs)
		} else if x < -float64(periodMs)/2 {
			x += float64(periodMs)
		}
		d[i] = math.Abs(x)
	}
	return quantile.Percentile(d, 50) / float64(periodMs)
}

// anchor returns a period start for period p given the submissions.
func anchor(submits []int64, p Period) int64 {
	periodMs := int64(p.PeriodS * 1000)
	if p.Snapped && periodMs > 0 {
		if 86400_000%periodMs == 0 {
			return 0
		}
		if periodMs == 7*86400_000 {
			return mondayMs
		}
	}
	return phaseAnchor(submits, periodMs)
}

// phaseAnchor is the circular mean of the submissions' phase in the period,
// minus half a period.
func phaseAnchor(submits []int64, periodMs int64) int64 {
	if periodMs <= 0 || len(submits) == 0 {
		return 0
	}
	var sx, sy float64
	for _, s := range submits {
		a := 2 * math.Pi * float64(mod(s, periodMs)) / float64(periodMs)
		sx += math.Cos(a)
		sy += math.Sin(a)
	}
	ph := math.Atan2(sy, sx) / (2 * math.Pi) * float64(periodMs)
	return mod(int64(ph)-periodMs/2, periodMs)
}

func mod(a, b int64) int64 {
	r := a % b
	if r < 0 {
		r += b
	}
	return r
}

// runPeriodStarts assigns each submission the start of its period. The
// usual phase φ of submissions within the period (circular mean) decides:
// a run belongs to the period whose start + φ is nearest its submission.
func (p Period) runPeriodStarts(submits []int64) []int64 {
	periodMs := int64(p.PeriodS * 1000)
	out := make([]int64, len(submits))
	if periodMs <= 0 {
		copy(out, submits)
		return out
	}
	var sx, sy float64
	for _, s := range submits {
		a := 2 * math.Pi * float64(mod(s-p.AnchorMs, periodMs)) / float64(periodMs)
		sx += math.Cos(a)
		sy += math.Sin(a)
	}
	phase := mod(int64(math.Atan2(sy, sx)/(2*math.Pi)*float64(periodMs)), periodMs)
	for i, s := range submits {
		// nearest k with anchor + k·P + φ ≈ s
		k := math.Round(float64(s-p.AnchorMs-phase) / float64(periodMs))
		out[i] = p.AnchorMs + int64(k)*periodMs
	}
	return out
}

// sortInt64 sorts in place.
func sortInt64(xs []int64) { sort.Slice(xs, func(i, j int) bool { return xs[i] < xs[j] }) }
