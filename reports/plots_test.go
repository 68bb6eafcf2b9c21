package reports

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/profile"
)

// decimate keeps a series' envelope: the maximum and minimum of the whole
// series, and of every bucket, survive; points stay in time order.
func TestDecimateKeepsExtremes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 200; trial++ {
		n := 1 + r.IntN(20000)
		v := make([]float64, n)
		for k := range v {
			v[k] = r.NormFloat64()
			if r.IntN(500) == 0 {
				v[k] = 50 * r.Float64() // spikes
			}
		}
		xy := decimate(v, 0, 2)
		if len(xy) > maxPoints {
			t.Fatalf("n=%d: %d points, more than %d", n, len(xy), maxPoints)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range v {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		glo, ghi := math.Inf(1), math.Inf(-1)
		for i, p := range xy {
			glo, ghi = math.Min(glo, p.Y), math.Max(ghi, p.Y)
			if i > 0 && p.X <= xy[i-1].X {
				t.Fatalf("n=%d: x not increasing at %d", n, i)
			}
			if k := int(p.X / 2); v[k] != p.Y {
				t.Fatalf("n=%d: point %v is not the series' value %g", n, p, v[k])
			}
		}
		if glo != lo || ghi != hi {
			t.Fatalf("n=%d: range [%g,%g], series [%g,%g]", n, glo, ghi, lo, hi)
		}
	}
}

// Figures without data are not drawn (nil), those with data are.
func TestPlotsNeedTheirData(t *testing.T) {
	j := synthJob(rand.New(rand.NewPCG(2, 2)), "j")
	if JobSkyline(&j) == nil || AlphaTradeoff(&j) == nil || SlackCDF([]Job{j}) == nil {
		t.Fatal("a figure with data was not drawn")
	}
	bare := Job{Profile: &profile.Job{Job: "bare"}}
	if JobSkyline(&bare) != nil || AlphaTradeoff(&bare) != nil || SlackCDF([]Job{bare}) != nil {
		t.Fatal("a figure without data was drawn")
	}
	j.Profile.Skyline.AlphaSweep = nil
	if AlphaTradeoff(&j) != nil {
		t.Fatal("an α trade-off without a sweep was drawn")
	}
}

// The SVG of a figure carries its title and legend as escaped text, and
// the axis unit follows the extent.
func TestFigureText(t *testing.T) {
	j := synthJob(rand.New(rand.NewPCG(3, 3)), `a&b<c>`)
	svg, png, err := render(JobSkyline(&j), figW, figH, true)
	if err != nil || len(png) == 0 {
		t.Fatal(err)
	}
	s := string(svg)
	for _, w := range []string{"Skyline of a&amp;b&lt;c&gt;", "reservation", "minutes since the run&#39;s start"} {
		if !strings.Contains(s, w) {
			t.Errorf("SVG lacks %q", w)
		}
	}
	for _, c := range []struct {
		s    float64
		unit string
	}{{100, "seconds"}, {600, "minutes"}, {4 * 3600, "hours"}, {7 * 86400, "days"}} {
		if u, _ := timeAxis(c.s); u != c.unit {
			t.Errorf("timeAxis(%g) = %s, want %s", c.s, u, c.unit)
		}
	}
}
