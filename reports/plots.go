package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"sort"
	"strconv"

	"github.com/wlprof/wlprof/internal/quantile"
	"github.com/wlprof/wlprof/internal/safetext"
	"github.com/wlprof/wlprof/profile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The plot functions build one gonum plot each from the report's input
// types; render turns a plot into SVG and PNG. Trace strings (job, tenant,
// class names) go into titles and legends as plain text: vgsvg escapes
// them.

// Figure size: wide enough for a report column, small enough that a
// thousand of them render in seconds.
const (
	figW = 6.4 * vg.Inch
	figH = 3.2 * vg.Inch
)

// maxPoints bounds the points of one drawn line: a series is reduced to
// the minimum and maximum of each of maxPoints/2 buckets, which keeps its
// envelope (spikes stay visible) at a fraction of the size.
const maxPoints = 400

var patternColor = map[string]color.Color{
	profile.Periodic:      color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	profile.Constant:      color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	profile.Unpredictable: color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	profile.Insufficient:  color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff},
}

var patterns = []string{profile.Periodic, profile.Constant, profile.Unpredictable, profile.Insufficient}

var (
	grey  = color.RGBA{R: 0xb0, G: 0xb0, B: 0xb0, A: 0xff}
	black = color.RGBA{A: 0xff}
	red   = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	blue  = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
)

// sans is the figures' typeface, the sans-serif of the page around them
// (gonum's default is a serif).
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = safetext.Escape(title)
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Title.TextStyle.Font = font.From(sans, 12)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 11)
		a.Tick.Label.Font = font.From(sans, 9)
		a.Tick.Marker = cleanTicks{}
	}
	p.Legend.TextStyle.Font = font.From(sans, 9)
	p.Add(plotter.NewGrid())
	return p
}

// decimate returns the points of a series at x0 + k·dx, reduced to at most
// maxPoints by keeping each bucket's minimum and maximum in time order.
func decimate(values []float64, x0, dx float64) plotter.XYs {
	n := len(values)
	if n <= maxPoints {
		xy := make(plotter.XYs, n)
		for k, v := range values {
			xy[k] = plotter.XY{X: x0 + float64(k)*dx, Y: v}
		}
		return xy
	}
	buckets := maxPoints / 2
	xy := make(plotter.XYs, 0, maxPoints)
	for b := 0; b < buckets; b++ {
		lo, hi := b*n/buckets, (b+1)*n/buckets
		imin, imax := lo, lo
		for k := lo; k < hi; k++ {
			if values[k] < values[imin] {
				imin = k
			}
			if values[k] > values[imax] {
				imax = k
			}
		}
		first, second := imin, imax
		if first > second {
			first, second = second, first
		}
		xy = append(xy, plotter.XY{X: x0 + float64(first)*dx, Y: values[first]})
		if second != first {
			xy = append(xy, plotter.XY{X: x0 + float64(second)*dx, Y: values[second]})
		}
	}
	return xy
}

func line(xy plotter.XYs, c color.Color, width vg.Length) *plainLine {
	l := &plotter.Line{XYs: xy}
	l.LineStyle = draw.LineStyle{Color: c, Width: width}
	return &plainLine{l}
}

// plainLine is a plotter.Line without GlyphBoxes: gonum asks a line for a
// zero-sized glyph box per point to pad the axes, which took a sixth of a
// large report's time and pads nothing.
type plainLine struct{ l *plotter.Line }

func (p *plainLine) Plot(c draw.Canvas, plt *plot.Plot)          { p.l.Plot(c, plt) }
func (p *plainLine) DataRange() (xmin, xmax, ymin, ymax float64) { return p.l.DataRange() }
func (p *plainLine) Thumbnail(c *draw.Canvas)                    { p.l.Thumbnail(c) }

func points(xy plotter.XYs, c color.Color, r vg.Length, shape draw.GlyphDrawer) *plotter.Scatter {
	s := &plotter.Scatter{XYs: xy}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: r, Shape: shape}
	return s
}

// timeAxis picks the unit of a time axis from its extent in seconds.
func timeAxis(extentS float64) (string, float64) {
	switch {
	case extentS >= 3*86400:
		return "days", 86400
	case extentS >= 3*3600:
		return "hours", 3600
	case extentS >= 180:
		return "minutes", 60
	}
	return "seconds", 1
}

// PatternCounts is the number of tenants per pattern (Zhang et al., OSDI'16 Fig. 2/3).
func PatternCounts(t *profile.Tenants) *plot.Plot {
	counts := map[string]int{}
	for _, tn := range t.Tenants {
		counts[tn.Pattern]++
	}
	p := newPlot("Tenants per pattern", "", "tenants")
	var names []string
	top := 0
	for i, pat := range patterns {
		bar, _ := plotter.NewBarChart(plotter.Values{float64(counts[pat])}, vg.Points(40))
		bar.Color = patternColor[pat]
		bar.LineStyle.Width = 0
		bar.XMin = float64(i)
		p.Add(bar)
		names = append(names, fmt.Sprintf("%s\n%d", pat, counts[pat]))
		top = max(top, counts[pat])
	}
	p.NominalX(names...)
	p.Y.Min, p.Y.Max = 0, math.Max(1, float64(top)*1.1)
	return p
}

// ClassScatter is mean against peak utilisation per tenant, coloured by
// pattern; the class centres are drawn as crosses.
func ClassScatter(t *profile.Tenants) *plot.Plot {
	p := newPlot("Tenants: mean and peak utilisation", "mean (fraction of a server)", "peak (fraction of a server)")
	for _, pat := range patterns {
		// Tenants on the same 1/400 grid cell draw the same pixel: keep one.
		seen := map[[2]int]bool{}
		var xy plotter.XYs
		for _, tn := range t.Tenants {
			if tn.Pattern != pat {
				continue
			}
			cell := [2]int{int(tn.Mean * 400), int(tn.Peak * 400)}
			if seen[cell] {
				continue
			}
			seen[cell] = true
			xy = append(xy, plotter.XY{X: tn.Mean, Y: tn.Peak})
		}
		if len(xy) == 0 {
			continue
		}
		s := points(xy, patternColor[pat], vg.Points(1.5), draw.CircleGlyph{})
		p.Add(s)
		p.Legend.Add(pat, s)
	}
	var centres plotter.XYs
	for _, c := range t.Classes {
		centres = append(centres, plotter.XY{X: c.Mean, Y: c.Peak})
	}
	if len(centres) > 0 {
		s := points(centres, black, vg.Points(4), draw.CrossGlyph{})
		p.Add(s)
		p.Legend.Add("class", s)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	return p
}

// ClassSeries draws the representative series of one class.
func ClassSeries(class string, reps []Representative) *plot.Plot {
	extent := 0.0
	for _, r := range reps {
		extent = max(extent, float64(len(r.Series.Values))*r.Series.StepS)
	}
	unit, div := timeAxis(extent)
	p := newPlot("Class "+class+": representative tenants", unit, "utilisation (of a server)")
	ymax := 0.0
	for i, r := range reps {
		// A series with gaps is drawn as one line per run of samples: a
		// line through NaN draws nothing after it.
		var first *plainLine
		for _, run := range sampleRuns(r.Series.Values) {
			l := line(decimate(r.Series.Values[run[0]:run[1]], float64(run[0])*r.Series.StepS/div, r.Series.StepS/div), palette(i), vg.Points(0.8))
			p.Add(l)
			ymax = math.Max(ymax, maxY(l.l.XYs))
			if first == nil {
				first = l
			}
		}
		if first != nil {
			p.Legend.Add(safetext.Escape(r.Tenant), first)
		}
	}
	p.X.Min, p.X.Max = 0, extent/div
	p.Y.Min = 0
	legendRoom(p, ymax)
	return p
}

// sampleRuns are the [start, end) index ranges of v's runs of non-NaN
// values.
func sampleRuns(v []float64) [][2]int {
	var runs [][2]int
	start := -1
	for i, x := range v {
		switch {
		case math.IsNaN(x) && start >= 0:
			runs = append(runs, [2]int{start, i})
			start = -1
		case !math.IsNaN(x) && start < 0:
			start = i
		}
	}
	if start >= 0 {
		runs = append(runs, [2]int{start, len(v)})
	}
	return runs
}

// ClassSpectra draws the spectra of one class's representatives against
// the period (log scale), where periodic tenants show their peaks.
func ClassSpectra(class string, reps []Representative) *plot.Plot {
	p := newPlot("Class "+class+": spectra", "period (hours, log scale)", "power")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	ymax := 0.0
	for i, r := range reps {
		var xy plotter.XYs
		for k, f := range r.Spectrum.FrequencyHz {
			if f > 0 && k < len(r.Spectrum.Power) && !math.IsNaN(r.Spectrum.Power[k]) {
				xy = append(xy, plotter.XY{X: 1 / f / 3600, Y: r.Spectrum.Power[k]})
			}
		}
		sort.Slice(xy, func(a, b int) bool { return xy[a].X < xy[b].X })
		if len(xy) == 0 {
			continue
		}
		l := line(xy, palette(i), vg.Points(0.8))
		p.Add(l)
		p.Legend.Add(safetext.Escape(r.Tenant), l)
		ymax = math.Max(ymax, maxY(xy))
	}
	p.Y.Min = 0
	legendRoom(p, ymax)
	return p
}

// legendRoom leaves a little room above ymax, the data's maximum, so the
// highest point is not drawn on the frame. The legend is below the plot
// (layout), so it needs none of the data area.
func legendRoom(p *plot.Plot, ymax float64) {
	if ymax > 0 && !math.IsInf(ymax, 0) {
		p.Y.Max = ymax * 1.08
	}
}

// maxY is the largest Y of the point sets.
func maxY(sets ...plotter.XYs) float64 {
	m := math.Inf(-1)
	for _, s := range sets {
		for _, pt := range s {
			if !math.IsNaN(pt.Y) {
				m = math.Max(m, pt.Y)
			}
		}
	}
	return m
}

func palette(i int) color.Color {
	cs := []color.Color{blue, red, color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}, color.RGBA{R: 0x17, G: 0xbe, B: 0xcf, A: 0xff}}
	return cs[i%len(cs)]
}

// JobSkyline draws the runs' skylines in grey with the fitted skyline and
// the reservation over them (Jyothi et al., OSDI'16 Fig. 5). Nil without a skyline.
func JobSkyline(j *Job) *plot.Plot {
	sk := j.Profile.Skyline
	if sk == nil {
		return nil
	}
	extent := float64(len(sk.Containers)) * sk.StepS
	for _, r := range j.Runs {
		extent = max(extent, float64(len(r.Values))*r.StepS)
	}
	unit, div := timeAxis(extent)
	p := newPlot("Skyline of "+j.Profile.Job, unit+" since the run's start", "containers")
	ymax := 0.0
	for i, r := range j.Runs {
		l := line(stepXY(r.Values, r.StepS/div), grey, vg.Points(0.6))
		ymax = math.Max(ymax, maxY(l.l.XYs))
		p.Add(l)
		if i == 0 {
			p.Legend.Add(fmt.Sprintf("runs (%d)", len(j.Runs)), l)
		}
	}
	res := make([]float64, len(sk.Reservation))
	for k, v := range sk.Reservation {
		res[k] = float64(v)
	}
	rl := line(stepXY(res, sk.StepS/div), red, vg.Points(1))
	rl.l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
	fl := line(stepXY(sk.Containers, sk.StepS/div), blue, vg.Points(1.5))
	p.Add(fl, rl)
	p.Legend.Add(fmt.Sprintf("skyline (α=%g)", sk.Alpha), fl)
	p.Legend.Add("reservation", rl)
	p.Y.Min = 0
	legendRoom(p, math.Max(ymax, maxY(rl.l.XYs, fl.l.XYs)))
	return p
}

// stepXY draws a series as a step function: value k holds over
// [k·dx, (k+1)·dx). Long series are decimated first.
func stepXY(values []float64, dx float64) plotter.XYs {
	if len(values) > maxPoints/2 {
		return decimate(values, 0, dx)
	}
	xy := make(plotter.XYs, 0, 2*len(values))
	for k, v := range values {
		xy = append(xy, plotter.XY{X: float64(k) * dx, Y: v}, plotter.XY{X: float64(k+1) * dx, Y: v})
	}
	return xy
}

// AlphaTradeoff draws over- against under-allocation for each α of the
// sweep (Jyothi et al., OSDI'16 Fig. 9b/9c). Nil without a sweep.
func AlphaTradeoff(j *Job) *plot.Plot {
	sk := j.Profile.Skyline
	if sk == nil || len(sk.AlphaSweep) == 0 {
		return nil
	}
	p := newPlot("α trade-off of "+j.Profile.Job, "over-allocation (container·steps, mean per run)", "under-allocation (container·steps)")
	var xy plotter.XYs
	labels := make([]string, 0, len(sk.AlphaSweep))
	for _, s := range sk.AlphaSweep {
		xy = append(xy, plotter.XY{X: s.OverAllocation, Y: s.UnderAllocation})
		labels = append(labels, fmt.Sprintf("α=%g", s.Alpha))
	}
	l := line(xy, blue, vg.Points(1))
	s := points(xy, blue, vg.Points(2.5), draw.CircleGlyph{})
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
	p.Add(l, s)
	if err == nil {
		lb.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font = font.From(sans, 9)
		}
		p.Add(lb)
	}
	p.X.Min, p.Y.Min = 0, 0
	return p
}

// SlackCDF is the distribution of the jobs' slack ratios (Jyothi et al., OSDI'16 Fig.
// 9a). Nil when no job has one.
func SlackCDF(jobs []Job) *plot.Plot {
	var v []float64
	for _, j := range jobs {
		if s := j.Profile.SLO; s != nil && s.SlackRatio != nil && !math.IsNaN(*s.SlackRatio) {
			v = append(v, *s.SlackRatio)
		}
	}
	if len(v) == 0 {
		return nil
	}
	sort.Float64s(v)
	xy := make(plotter.XYs, 0, 2*len(v))
	for i, x := range v {
		xy = append(xy, plotter.XY{X: x, Y: float64(i) / float64(len(v))}, plotter.XY{X: x, Y: float64(i+1) / float64(len(v))})
	}
	p := newPlot(fmt.Sprintf("Slack of %d recurring jobs", len(v)), "slack ratio: median(T_outRead − T_end) / (T_end − T_start)", "fraction of jobs")
	p.Add(line(xy, blue, vg.Points(1.2)))
	p.Y.Min, p.Y.Max = 0, 1
	return p
}

// ElasticityCurve draws a model's predicted runtime against memory with
// the measured runs of its task (Iorgulescu et al., ATC'17 Fig. 1): filled points were used
// to fit, hollow ones validate.
func ElasticityCurve(j *Job, m *profile.ElasticityModel) *plot.Plot {
	p := newPlot(fmt.Sprintf("%s: %s tasks (%s model)", j.Profile.Job, m.Task, m.Kind), "memory (GiB)", "runtime (s)")
	const gib = 1 << 30
	var curve plotter.XYs
	for _, c := range m.Curve {
		curve = append(curve, plotter.XY{X: c.MemoryBytes / gib, Y: c.RuntimeS})
	}
	if len(curve) > 0 {
		l := line(curve, blue, vg.Points(1.5))
		p.Add(l)
		p.Legend.Add("model", l)
	}
	var fit, val plotter.XYs
	for _, r := range j.Measured {
		if r.Task != m.Task {
			continue
		}
		pt := plotter.XY{X: r.MemoryBytes / gib, Y: r.RuntimeS}
		if r.Fit {
			fit = append(fit, pt)
		} else {
			val = append(val, pt)
		}
	}
	if len(fit) > 0 {
		s := points(fit, red, vg.Points(3), draw.CircleGlyph{})
		p.Add(s)
		p.Legend.Add("measured (fit)", s)
	}
	if len(val) > 0 {
		s := points(val, black, vg.Points(3), draw.RingGlyph{})
		p.Add(s)
		p.Legend.Add("measured (validation)", s)
	}
	ideal := points(plotter.XYs{{X: m.IdealMemoryBytes / gib, Y: m.IdealRuntimeS}}, black, vg.Points(4), draw.CrossGlyph{})
	p.Add(ideal)
	p.Legend.Add("ideal", ideal)
	p.X.Min, p.Y.Min = 0, 0
	legendRoom(p, maxY(curve, fit, val, plotter.XYs{{Y: m.IdealRuntimeS}}))
	return p
}

// ProfilerSweep draws runtime against the swept setting, every repetition
// as a point and the median per setting as a line.
func ProfilerSweep(j *Job, s *Sweep) *plot.Plot {
	unit, div := s.Setting, 1.0
	if s.Setting == "memory_bytes" {
		unit, div = "memory (GiB)", 1<<30
	}
	p := newPlot(fmt.Sprintf("%s: %s sweep", j.Profile.Job, s.Task), unit, "runtime (s)")
	var all plotter.XYs
	by := map[float64][]float64{}
	for _, pt := range s.Points {
		all = append(all, plotter.XY{X: pt.Setting / div, Y: pt.RuntimeS})
		by[pt.Setting] = append(by[pt.Setting], pt.RuntimeS)
	}
	settings := make([]float64, 0, len(by))
	for k := range by {
		settings = append(settings, k)
	}
	sort.Float64s(settings)
	var med plotter.XYs
	for _, k := range settings {
		med = append(med, plotter.XY{X: k / div, Y: quantile.Median(by[k])})
	}
	if len(med) > 0 {
		l := line(med, blue, vg.Points(1.2))
		p.Add(l)
		p.Legend.Add("median", l)
	}
	if len(all) > 0 {
		sc := points(all, black, vg.Points(2), draw.RingGlyph{})
		p.Add(sc)
		p.Legend.Add("runs", sc)
	}
	p.Y.Min = 0
	legendRoom(p, maxY(all))
	return p
}

// render draws a plot as SVG and, when withPNG, PNG. The PNG is deflated
// at the fastest level: a third of the encoding time for files about a
// fifth larger, which matters with thousands of figures. A figure with a
// legend is taller by the legend's height: the legend is drawn below the
// plot (layout), so it never hides data.
func render(p *plot.Plot, w, h vg.Length, withPNG bool) (svg, pngb []byte, err error) {
	h += legendStrip(p)
	sc := vgsvg.New(w, h)
	drawFigure(p, draw.New(sc))
	var sb bytes.Buffer
	if _, err := sc.WriteTo(&sb); err != nil {
		return nil, nil, err
	}
	if !withPNG {
		return sb.Bytes(), nil, nil
	}
	ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(pngDPI))
	drawFigure(p, draw.New(ic))
	var pb bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&pb, ic.Image()); err != nil {
		return nil, nil, err
	}
	return sb.Bytes(), pb.Bytes(), nil
}

// legendGap is the space between the x axis's label and the legend below.
const legendGap = 6 * vg.Inch / 72

// legendIndent puts the legend's left edge under the data area rather than
// under the y axis's label and ticks.
const legendIndent = vg.Inch / 2

// legendStrip is the height of the strip below the plot that holds its
// legend: 0 without a legend.
func legendStrip(p *plot.Plot) vg.Length {
	r := p.Legend.Rectangle(draw.Canvas{})
	if r.Max.Y-r.Min.Y <= 0 {
		return 0
	}
	return r.Max.Y - r.Min.Y + legendGap + legendPad
}

// legendPad keeps the last entry's descenders inside the figure.
const legendPad = 4 * vg.Inch / 72

// layout splits a figure's canvas into the plot's (top) and its legend's
// (the strip below): gonum draws a legend inside the data area, over the
// data in a corner the data may use, so the report draws it outside.
func layout(p *plot.Plot, c draw.Canvas) (plotArea, legendArea draw.Canvas) {
	c = margin(c)
	strip := legendStrip(p)
	if strip == 0 {
		return c, draw.Canvas{}
	}
	plotArea = draw.Crop(c, 0, 0, strip, 0)
	legendArea = draw.Crop(c, legendIndent, 0, legendPad, -(c.Max.Y-c.Min.Y)+strip-legendGap)
	return plotArea, legendArea
}

// drawFigure draws the plot above its legend (layout).
func drawFigure(p *plot.Plot, c draw.Canvas) {
	plotArea, legendArea := layout(p, c)
	if legendArea.Canvas == nil {
		p.Draw(plotArea)
		return
	}
	leg := p.Legend
	p.Legend = plot.NewLegend()
	p.Draw(plotArea)
	p.Legend = leg
	leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, 0
	leg.Draw(legendArea)
}

// margin keeps what gonum centres on the plot's edges inside the canvas:
// the last tick label of the x axis (half of it fell off the right edge)
// and the legend's line samples.
func margin(c draw.Canvas) draw.Canvas { return draw.Crop(c, 0, -vg.Points(14), 0, -vg.Points(2)) }

// pngDPI is the resolution of the PNG figures: 614×307 pixels.
const pngDPI = 96

// inlineSVG is an SVG document as an element to put inside HTML: without
// the XML prolog and comment, with a class for the stylesheet.
func inlineSVG(svg []byte) []byte {
	if i := bytes.Index(svg, []byte("<svg")); i >= 0 {
		svg = svg[i:]
	}
	return bytes.Replace(svg, []byte("<svg "), []byte(`<svg class="fig" role="img" `), 1)
}

// PlanLoad draws the packed load over the LCM against the naive plan's
// (each skyline at its arrival) and the lower bound (Jyothi et al., OSDI'16 Fig. 9d).
// Nil without a plan.
func PlanLoad(pl *Plan) *plot.Plot {
	if pl == nil || len(pl.Load) == 0 {
		return nil
	}
	unit, div := timeAxis(pl.LCMS)
	// A naive spike ten times LowCost's peak would flatten LowCost's line
	// on a linear axis: the axis is then logarithmic, from 1 container
	// (an empty step sits on the floor).
	logY := pl.NaiveFootprint > 10*max(pl.Footprint, 1)
	ylabel := "containers"
	if logY {
		ylabel = "containers (log scale)"
	}
	p := newPlot("Packed load over the LCM", unit+" into the LCM", ylabel)
	toF := func(v []int64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(x)
			if logY {
				out[i] = math.Max(1, out[i])
			}
		}
		return out
	}
	nl := line(stepXY(toF(pl.NaiveLoad), pl.StepS/div), grey, vg.Points(1))
	ll := line(stepXY(toF(pl.Load), pl.StepS/div), blue, vg.Points(1.5))
	lb := line(plotter.XYs{{X: 0, Y: math.Max(1, float64(pl.LowerBound))}, {X: pl.LCMS / div, Y: math.Max(1, float64(pl.LowerBound))}}, red, vg.Points(1))
	lb.l.Dashes = []vg.Length{vg.Points(3), vg.Points(2)}
	p.Add(nl, ll, lb)
	p.Legend.Add(fmt.Sprintf("naive (peak %d)", pl.NaiveFootprint), nl)
	p.Legend.Add(fmt.Sprintf("LowCost (peak %d)", pl.Footprint), ll)
	p.Legend.Add(fmt.Sprintf("lower bound (%d)", pl.LowerBound), lb)
	p.X.Min, p.X.Max, p.Y.Min = 0, pl.LCMS/div, 0
	top := float64(max(pl.NaiveFootprint, pl.Footprint, pl.LowerBound))
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		// Room above the spike: a fifth of a decade.
		p.Y.Min, p.Y.Max = 1, top*1.6
		return p
	}
	p.Y.Tick.Marker = intTicks{}
	legendRoom(p, top)
	return p
}

// PlanAlphaMisses draws the share of held-out runs that miss their
// deadline against skylines fitted at each α (Jyothi et al., OSDI'16 Fig. 9c). Nil
// without held-out runs.
func PlanAlphaMisses(pl *Plan) *plot.Plot {
	if pl == nil || len(pl.Alpha) == 0 {
		return nil
	}
	p := newPlot("Held-out SLO misses by α", "α (weight of over-allocation)", "held-out runs missed (%)")
	var xy plotter.XYs
	for _, a := range pl.Alpha {
		if a.TestRuns > 0 {
			xy = append(xy, plotter.XY{X: a.Alpha, Y: 100 * float64(a.Misses) / float64(a.TestRuns)})
		}
	}
	if len(xy) == 0 {
		return nil
	}
	p.Add(line(xy, blue, vg.Points(1)), points(xy, blue, vg.Points(2.5), draw.CircleGlyph{}))
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 100
	return p
}

// intTicks marks counts: whole numbers only, labelled without decimals.
type intTicks struct{}

func (intTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) {
		return []plot.Tick{{Value: math.Round(lo), Label: fmt.Sprint(int64(math.Round(lo)))}}
	}
	step := math.Max(1, math.Pow(10, math.Floor(math.Log10(span/5))))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 6 {
			step *= m
			break
		}
	}
	var ts []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: fmt.Sprint(int64(math.Round(v)))})
	}
	return ts
}

// cleanTicks are gonum's default ticks labelled with no more decimals
// than their spacing needs ("250", not "250.00").
type cleanTicks struct{}

func (cleanTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	var major []float64
	for _, t := range ts {
		if t.Label != "" {
			major = append(major, t.Value)
		}
	}
	dec := 0
	if len(major) > 1 {
		step := math.Abs(major[1] - major[0])
		for dec < 10 && math.Abs(step*math.Pow10(dec)-math.Round(step*math.Pow10(dec))) > 1e-9*math.Pow10(dec) {
			dec++
		}
	}
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'f', dec, 64)
		}
	}
	return ts
}
