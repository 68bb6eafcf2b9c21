package reports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// chromium runs headless Chromium on a file URL with the flags of issue 8
// and a fresh profile directory, and returns its stdout and stderr.
// Chromium is installed by scripts/deps.sh (make test runs it): a missing
// browser fails the test, it is not skipped.
func chromium(t *testing.T, page string, extra ...string) (string, string) {
	t.Helper()
	bin := os.Getenv("WLPROF_CHROMIUM")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("chromium"); err != nil {
			t.Fatalf("chromium not found (%v): run scripts/deps.sh or make test, which install it", err)
		}
	}
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir=",
		"--enable-logging=stderr", "--v=0"}
	if !slices.ContainsFunc(extra, func(a string) bool { return strings.HasPrefix(a, "--window-size=") }) {
		args = append(args, "--window-size=1280,2000")
	}
	args = append(append(args, extra...), "file://"+page)
	profileArg := 7 // a fresh profile directory for every attempt
	// Headless Chromium now and then dies of a signal at start-up on a
	// loaded machine (a segfault before the page loads, seen with the
	// whole test suite running on 2 cores); that says nothing about the
	// page, so a crash is retried, twice at most, and logged. An exit
	// status or a timeout is not retried.
	for attempt := 1; ; attempt++ {
		args[profileArg] = "--user-data-dir=" + t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		cmd := exec.CommandContext(ctx, bin, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		if err == nil {
			return out.String(), errb.String()
		}
		var ee *exec.ExitError
		if crashed := errors.As(err, &ee) && !ee.Exited() && !timedOut; crashed && attempt < 3 {
			t.Logf("chromium crashed (%v), attempt %d of 3; retrying", err, attempt)
			continue
		}
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
}

// consoleLines are the page's console messages in Chromium's log: errors,
// CSP violations, failed loads. The report has no script, so any is a bug.
func consoleLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.Contains(l, ":CONSOLE") {
			out = append(out, l)
		}
	}
	return out
}

// inkFraction is the fraction of pixels that differ from the top-left one
// (the background).
func inkFraction(img image.Image) float64 {
	b := img.Bounds()
	r0, g0, b0, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	ink := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r != r0 || g != g0 || bl != b0 {
				ink++
			}
		}
	}
	return float64(ink) / float64(b.Dx()*b.Dy())
}

// The report opens in a real browser from disk: no console message (no
// error, no blocked fetch, no script), the script-named job shows as text,
// and the screenshot has content.
func TestReportInBrowser(t *testing.T) {
	in := synthInput(300, 4, 9)
	in.Jobs[0].Profile.Job = xss
	// Inputs as ingest records them: one named like markup, one under a
	// long path that must wrap, one without rejects.
	in.Inputs = []DataInput{
		{File: "traces/" + xss + ".csv", Format: "csv", Ingest: 1, Accepted: 1200, Rejected: 30, Reasons: []RejectReason{{"cpu is NaN", 20}, {"4 fields, the header has 5", 6}, {xss, 3}, {"empty server", 1}}},
		{File: strings.Repeat("a-long-directory-name/", 12) + "usage.csv", Format: "csv", Ingest: 1, Accepted: 721392, Rejected: 1, Reasons: []RejectReason{{"timestamp \"2024-02-30T00:04:00Z\": field out of range", 1}}},
		{File: "runs.jsonl", Format: "openlineage", Ingest: 2, Accepted: 40},
	}
	_, dir := writeReport(t, in, DefaultOptions())
	page := filepath.Join(dir, "index.html")

	// The check can fail: a page that breaks the rules is caught.
	bad := filepath.Join(t.TempDir(), "bad.html")
	os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body><img src="x.png"><script>f()</script></body></html>`), 0o644)
	if _, errs := chromium(t, bad, "--dump-dom"); len(consoleLines(errs)) == 0 {
		t.Fatal("Chromium logged nothing for a page with a blocked image and script: the console check would be blind")
	}

	dom, errs := chromium(t, page, "--dump-dom")
	if c := consoleLines(errs); len(c) > 0 {
		t.Errorf("console messages while loading the report:\n%s", strings.Join(c, "\n"))
	}
	if !strings.Contains(dom, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the DOM does not show the script-named job as text")
	}
	if !strings.Contains(dom, "traces/<wbr>&lt;script&gt;alert(1)&lt;/<wbr>script&gt;.csv") {
		t.Error("the DOM does not show the script-named input as text")
	}
	if strings.Contains(strings.ToLower(dom), "<script") {
		t.Error("the DOM holds a script element")
	}
	if n := strings.Count(dom, "<svg"); n < 10 {
		t.Errorf("the DOM holds %d inline SVG figures", n)
	}

	// One screenshot of the whole page, cut at the sections' headings: a
	// screenshot per scroll depth cannot be had from the command line
	// (after a #fragment scroll, --screenshot of Chromium 148 is blank).
	shot := filepath.Join(t.TempDir(), "shot.png")
	_, errs = chromium(t, page, "--screenshot="+shot, "--hide-scrollbars", fmt.Sprintf("--window-size=1280,%d", tallWindow))
	if c := consoleLines(errs); len(c) > 0 {
		t.Errorf("console messages while taking the screenshot:\n%s", strings.Join(c, "\n"))
	}
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, errs)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if bd := img.Bounds(); bd.Dx() != 1280 || bd.Dy() != tallWindow {
		t.Errorf("screenshot is %v, want 1280×%d", bd, tallWindow)
	}
	// The top of the report is text, cards, a table and the first figures:
	// a blank or error page has far less ink.
	if f := inkFraction(crop(img, 0, 2000)); f < 0.03 {
		t.Errorf("the first 2000 pixels are nearly blank: %.4f of pixels are not background", f)
	}
	sections := strings.Count(dom, "<h2>")
	shots, problems := sectionShots(img, sections)
	for _, p := range problems {
		t.Error(p)
	}
	if dst := os.Getenv("WLPROF_SCREENSHOT"); dst != "" {
		os.WriteFile(dst, b, 0o644)
		// Beside it, each section as a reader scrolled to it sees it.
		for i, sh := range shots {
			var buf bytes.Buffer
			png.Encode(&buf, crop(img, sh.Min.Y, min(sh.Min.Y+1000, img.Bounds().Max.Y)))
			os.WriteFile(fmt.Sprintf("%s.section-%02d.png", strings.TrimSuffix(dst, ".png"), i+1), buf.Bytes(), 0o644)
		}
	}
}

// tallWindow is the height of the window of the whole-page screenshot:
// taller than the test's report (about 21,000 pixels at 1280 wide with
// every what-if section).
const tallWindow = 26000

// crop is the rows [y0, y1) of img.
func crop(img image.Image, y0, y1 int) image.Image {
	b := img.Bounds()
	return img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(b.Min.X, y0, b.Max.X, y1))
}

// rgb is the colour of a pixel as 8-bit red, green and blue; png.Decode
// gives *image.RGBA or *image.NRGBA for Chromium's screenshots, read here
// without At's interface call per pixel.
func rgb(img image.Image, x, y int) [3]uint8 {
	switch m := img.(type) {
	case *image.RGBA:
		i := m.PixOffset(x, y)
		return [3]uint8{m.Pix[i], m.Pix[i+1], m.Pix[i+2]}
	case *image.NRGBA:
		i := m.PixOffset(x, y)
		return [3]uint8{m.Pix[i], m.Pix[i+1], m.Pix[i+2]}
	}
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
}

// ruleColour is the colour of the rule under every section's heading
// (h2{border-bottom:2px solid #ddd}); minRule is how many pixels of a row
// it covers at least (the content is about 1060 pixels wide).
var ruleColour = [3]uint8{0xdd, 0xdd, 0xdd}

const minRule = 800

// sectionShots finds the sections of a whole-page screenshot by their
// headings' rules: rows mostly of the rule's colour, exactly two rows thick
// (the cards' borders share the colour but are one row thick). Each section
// runs from its rule to the next, the last one to the last row that is not
// background. It returns the sections and what is wrong: not want of them,
// a page taller than the screenshot, or a section that is blank (a single
// colour, or hardly any ink).
func sectionShots(img image.Image, want int) ([]image.Rectangle, []string) {
	b := img.Bounds()
	bg := rgb(img, b.Min.X, b.Min.Y)
	var rule []bool
	last := b.Min.Y
	for y := b.Min.Y; y < b.Max.Y; y++ {
		n, ink := 0, false
		for x := b.Min.X; x < b.Max.X; x++ {
			c := rgb(img, x, y)
			if c == ruleColour {
				n++
			}
			if c != bg {
				ink = true
			}
		}
		rule = append(rule, n >= minRule)
		if ink {
			last = y
		}
	}
	var problems []string
	if last >= b.Max.Y-20 {
		problems = append(problems, fmt.Sprintf("the page is taller than the %d-pixel screenshot: raise tallWindow", b.Dy()))
	}
	var tops []int
	for i := 0; i+1 < len(rule); i++ {
		if rule[i] && rule[i+1] && (i == 0 || !rule[i-1]) && (i+2 == len(rule) || !rule[i+2]) {
			tops = append(tops, b.Min.Y+i)
		}
	}
	if len(tops) != want {
		problems = append(problems, fmt.Sprintf("the screenshot shows %d section headings at rows %v, the page has %d", len(tops), tops, want))
	}
	var shots []image.Rectangle
	for i, top := range tops {
		// From the heading's text, about 40 pixels above its rule.
		y0, y1 := max(b.Min.Y, top-40), last+1
		if i+1 < len(tops) {
			y1 = tops[i+1] - 40
		}
		r := image.Rect(b.Min.X, y0, b.Max.X, y1)
		shots = append(shots, r)
		sec := crop(img, y0, y1)
		if n := distinctColours(sec, 16); n < 16 {
			problems = append(problems, fmt.Sprintf("section %d of %d (rows %d–%d) is blank: %d colours", i+1, len(tops), y0, y1, n))
		} else if f := inkFraction(sec); f < 0.005 {
			problems = append(problems, fmt.Sprintf("section %d of %d (rows %d–%d) is nearly blank: %.4f of pixels are not background", i+1, len(tops), y0, y1, f))
		}
	}
	return shots, problems
}

// distinctColours counts the colours of img, stopping at limit.
func distinctColours(img image.Image, limit int) int {
	b := img.Bounds()
	seen := map[[3]uint8]bool{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			seen[rgb(img, x, y)] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// The section check can fail: a blank section between two headings, a
// missing heading and a page cut off are each caught.
func TestSectionShotsCatchBlankSections(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1000, 600))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	rule := func(y int) {
		draw.Draw(img, image.Rect(50, y, 950, y+2), image.NewUniform(color.RGBA{0xdd, 0xdd, 0xdd, 255}), image.Point{}, draw.Src)
	}
	rule(100)
	rule(300)
	// Section 1 has text-like ink in many greys; section 2 is blank; a
	// one-row border (a card's) is not a heading.
	for y := 150; y < 250; y++ {
		for x := 60; x < 940; x += 3 {
			img.Set(x, y, color.Gray{uint8(x % 200)})
		}
	}
	draw.Draw(img, image.Rect(50, 200, 950, 201), image.NewUniform(color.RGBA{0xdd, 0xdd, 0xdd, 255}), image.Point{}, draw.Src)
	img.Set(500, 400, color.Black)
	shots, problems := sectionShots(img, 3)
	if len(shots) != 2 || len(problems) != 2 || !strings.Contains(problems[0], "2 section headings at rows [100 300], the page has 3") ||
		!strings.Contains(problems[1], "section 2 of 2 (rows 260–401) is blank") {
		t.Errorf("shots %v, problems %q", shots, problems)
	}
	img.Set(500, 590, color.Black)
	if _, problems := sectionShots(img, 2); len(problems) != 2 || !strings.Contains(problems[0], "taller than the 600-pixel screenshot") {
		t.Errorf("a page longer than the screenshot: %q", problems)
	}
}
