package reports

import (
	"bytes"
	"html"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/profile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
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

// svgText matches an upright text element of a gonum SVG: its y (negated:
// the document flips the y axis) and its content. The y axis's label,
// in a rotated group, has a y of its own frame and does not match.
var svgText = regexp.MustCompile(`<text x="[-0-9.e]+" y="([-0-9.e]+)"[^>]*>([^<]*)</text>`)

var svgRotated = regexp.MustCompile(`(?s)<g transform="rotate\([^)]*\)">.*?</g>`)

// Every figure's legend is drawn below its x axis's labels, out of the data
// area: a legend in a corner hid the class scatter's points and the
// elasticity curves' measured runs. In the SVG, a larger y attribute is
// lower on the page.
func TestLegendsBelowTheData(t *testing.T) {
	in := synthInput(60, 4, 11)
	j := in.Jobs[0]
	var reps []Representative
	for _, r := range in.Tenants.Representatives {
		if r.Class == in.Tenants.Representatives[0].Class {
			reps = append(reps, r)
		}
	}
	figs := map[string]*plot.Plot{
		"class-scatter": ClassScatter(in.Tenants.File), "series": ClassSeries("c", reps), "spectra": ClassSpectra("c", reps),
		"skyline": JobSkyline(&j), "plan-load": PlanLoad(in.Plan), "sim-jct": SimJCTCDF(in.Simulation), "sim-memory": SimMemory(in.Simulation),
		"estimate": EstimateAvailability(in.Estimate), "harvest": HarvestKills(in.Harvest), "placement": PlacementShares(in.Placement),
		"constraints-crv": ConstraintsCRV(in.Constraints), "constraints-waits": ConstraintsWaits(in.Constraints),
	}
	for i := range in.Jobs {
		if len(in.Jobs[i].Profile.Elasticity) > 0 {
			figs["elasticity"] = ElasticityCurve(&in.Jobs[i], &in.Jobs[i].Profile.Elasticity[0])
			figs["sweep"] = ProfilerSweep(&in.Jobs[i], &in.Jobs[i].Sweeps[0])
			break
		}
	}
	for name, p := range figs {
		if p == nil {
			t.Errorf("%s: not drawn", name)
			continue
		}
		entries := legendEntries(p)
		if len(entries) == 0 {
			t.Errorf("%s: no legend", name)
		}
		legend := map[string]bool{}
		for _, e := range entries {
			legend[e] = true
		}
		svg, _, err := render(p, figW, figH, false)
		if err != nil {
			t.Fatal(err)
		}
		// The lowest text that is not the legend's: the x axis's label, or
		// its tick labels when it has none.
		texts := svgText.FindAllStringSubmatch(svgRotated.ReplaceAllString(string(svg), ""), -1)
		labelY := math.Inf(-1)
		for _, m := range texts {
			if !legend[html.UnescapeString(m[2])] {
				y, _ := strconv.ParseFloat(m[1], 64)
				labelY = math.Max(labelY, y)
			}
		}
		for _, e := range entries {
			found := false
			for _, m := range texts {
				if html.UnescapeString(m[2]) != e {
					continue
				}
				found = true
				if y, _ := strconv.ParseFloat(m[1], 64); y <= labelY {
					t.Errorf("%s: legend entry %q at y=%g, above the x axis's labels (y=%g): over the data area", name, e, y, labelY)
				}
			}
			if !found {
				t.Errorf("%s: legend entry %q not in the SVG", name, e)
			}
		}
	}
}

// legendEntries are the texts of a plot's legend, read by drawing the
// legend alone (gonum keeps its entries to itself).
func legendEntries(p *plot.Plot) []string {
	c := vgsvg.New(figW, figH)
	leg := p.Legend
	leg.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil
	}
	var out []string
	for _, m := range svgText.FindAllStringSubmatch(b.String(), -1) {
		out = append(out, html.UnescapeString(m[2]))
	}
	return out
}
