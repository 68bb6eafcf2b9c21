package elasticity_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/quantile"
	"github.com/wlprof/wlprof/profiler"
)

// The accuracy bar of issue 7 on real measurements: the reference spilling
// workload (testdata/profiler/spillsort, a reducer that merges sorted
// segments, spills whole buffers of them with O_DIRECT and keeps its last
// buffer in memory) is profiled in the sandbox, in memory cgroups, at 8
// memory settings (7 under-sized ones from 11% to 86% of ideal memory and a
// well-sized one) with 6 repetitions each; the spill-rate model is fitted
// on two settings (the under-sized one the simulation says spills most,
// and the well-sized one) and predicts the 6 others. The
// bar, a median absolute error of 5% (Iorgulescu et al., ATC'17 §2.3: "within 5% for most
// reducers"), is BenchmarkSandboxAccuracy's at full size (256 MiB); this
// test runs the same pipeline on 64 MiB of records, near 30 s, with the
// looser bound testAccuracyBound explains.
//
// Why the tolerance holds on a loaded 2-core machine:
//   - the runtime modelled is wall time minus the time the task's thread
//     sat runnable behind other processes (cpu_wait_s, schedstat
//     run_delay); spillsort does its work on its main thread only (one
//     goroutine locked to it, raw system calls for its I/O, no garbage
//     collector), so that is all a busy CPU adds;
//   - the spill cost is the disk's (O_DIRECT writes and reads, no page
//     cache to absorb it) and the merge is the same at every memory, so
//     the penalty follows the spilled bytes, which the simulation gets
//     exactly (checked below against what the profiler saw written);
//   - the cap is the setting plus 32 MiB: with 16 MiB the cgroup's reclaim
//     slowed the larger settings by a few percent (measured), a cost of
//     the sandbox, not of spilling;
//   - spillsort's buffer is faulted in huge pages before its work
//     (-hugepages): on this virtual machine 4 KiB faults cost 5–20 µs each
//     in some states, and with them the well-sized run (74 MiB faulted)
//     came out slower than the 8 MiB one that spilled 65 MB (0.9 s against
//     0.5 s), failing the test on the host, not on the model;
//   - what remains is other processes' bursts of CPU and disk use: each
//     setting's runtime is the median of its 6 repetitions (one per pass
//     over the settings), and the bar is checked on these medians (the
//     sweep table's view). The error over single runs is logged with the
//     table (about 4–8% here: single runs on this machine vary by more
//     than 5%).
//
// A burst of other work can still push one sweep's medians off; a model
// that is wrong is wrong on every sweep. So a sweep that misses the bar is
// measured once more and the test fails only when both miss (each table is
// logged). make test runs this test on its own, after the other packages,
// so that the project's own tests are not the burst.
// testAccuracyBound is what make test asserts at 64 MiB. Issue 7's bar (5%)
// is asserted at full size by BenchmarkSandboxAccuracy (make bench; 3.6%
// and 4.2% over the settings, 4.5% and 4.8% over single runs, in two
// sweeps; 1.6% and 4.2% with the buffer in huge pages): at 64 MiB a run
// lasts 0.2–0.5 s and its runtime varies by more than 5% between identical
// runs on this shared host. Fitting at the largest spill, two sweeps here
// gave 5.3% and 3.3% (0.9–3.4% in four with huge pages); the test bounds
// the error at 10% (it was 15% when the rate was learnt at 52% of ideal),
// which still fails a wrong model (a step model, or a spill simulation off
// by a buffer, is off by 25–40% on these runs).
const testAccuracyBound = 0.10

func TestSandboxAccuracy(t *testing.T) {
	var last string
	for attempt := 1; attempt <= 2; attempt++ {
		miss := sandboxAccuracyOnce(t)
		if miss == "" {
			return
		}
		t.Logf("sweep %d: %s", attempt, miss)
		last = miss
	}
	// spillsort -hugepages gets huge pages only where the kernel offers
	// them; without, page faults can cost a well-sized run more than the
	// spills cost the others (see spillsort's populatedBuf).
	thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		thp = []byte(err.Error())
	}
	t.Errorf("%s (in both sweeps; transparent huge pages: %s)", last, strings.TrimSpace(string(thp)))
}

// sandboxAccuracyOnce sweeps, fits and checks; it fails the test on what
// is not measurement noise and returns the bar's miss, or "".
func sandboxAccuracyOnce(t *testing.T) string {
	const gen = "64M"
	mems := []int64{8 << 20, 16 << 20, 24 << 20, 32 << 20, 36 << 20, 48 << 20, 64 << 20, 80 << 20}
	res, runs := sweepSpillsort(t, gen, mems, 6, "-hugepages")
	if len(res.Models) != 1 {
		t.Fatalf("models %+v skipped %+v", res.Models, res.Skipped)
	}
	m := res.Models[0]
	t.Log("\n" + accuracyTable(m))
	if m.Kind != "spill-rate" || m.Simulator != "spill-buffer" {
		// A sweep whose fitted under-sized runs came out no slower than
		// the well-sized one measured the host, not spilling (the
		// profiler says so in a warning): it is measured once more, as a
		// sweep that misses the bar is.
		for _, w := range m.Warnings {
			if m.Simulator == "spill-buffer" && strings.HasPrefix(w, "non-monotone measurements") {
				return fmt.Sprintf("model %s/%s, want spill-rate/spill-buffer: %s", m.Kind, m.Simulator, w)
			}
		}
		t.Fatalf("model %s/%s, want spill-rate/spill-buffer; warnings %q", m.Kind, m.Simulator, m.Warnings)
	}
	// The simulation spills what the program spilled: (⌈1.16·in/m⌉−1)
	// buffers of ⌊m/116⌋ records, within the rounding of m to records.
	for _, s := range m.Settings {
		sim, meas := float64(s.SimulatedSpilledBy), float64(s.SpilledBytes)
		if math.Abs(sim-meas) > 0.002*math.Max(meas, 1)+200 {
			t.Errorf("at %d MiB: simulated %v bytes spilled, the profiler saw %v", s.MemoryBytes>>20, sim, meas)
		}
	}
	if m.Validation.Runs < 18 || m.Validation.Settings < 6 {
		t.Fatalf("validated on %d runs in %d settings, want every run of the 6 settings not fitted", m.Validation.Runs, m.Validation.Settings)
	}
	miss := ""
	if e := m.Validation.SettingsMedianAbsError; e > testAccuracyBound || math.IsNaN(e) {
		miss = fmt.Sprintf("median absolute error %.1f%% over %d settings (medians of their runs), want ≤ %.0f%%", 100*e, m.Validation.Settings, 100*testAccuracyBound)
	}
	for _, r := range runs {
		if r.Outcome != "ok" || !r.Capped {
			t.Logf("run %s: %s, capped %v (%s)", r.RunID, r.Outcome, r.Capped, r.CapNote)
		}
	}
	return miss
}

// BenchmarkSandboxAccuracy is the full-size run of the bar (256 MiB of
// records, 9 settings from 32 MiB to 320 MiB, 9 repetitions, about two and
// a half minutes): its table is logged and the median absolute errors
// reported and checked, over the settings' medians and over single runs.
// Nine repetitions, not the minimum of three: on this shared VM
// the CPU time of identical runs varies by up to 40% in spells of tens of
// seconds (user time 1.20-1.61 s for one spillsort setting run ten times
// alone; the VM has no hardware counters to see why), so a few passes of
// a sweep can all land in one spell. With 5 repetitions, sweeps gave
// 1.9%, 3.6%, 4.2%, 4.7% and 6.2% over the settings' medians (4.5-7.8%
// over single runs); with 9, 0.4%, 1.0%, 3.6% and 1.1% (4.1%, 4.8%, 7.1%
// and 6.4%: the single runs' own scatter around their setting's median,
// runs_scatter_floor, is most of that).
// The same by hand: scripts/elasticity-accuracy.sh.
func BenchmarkSandboxAccuracy(b *testing.B) {
	mems := []int64{32 << 20, 64 << 20, 96 << 20, 128 << 20, 160 << 20, 192 << 20, 224 << 20, 256 << 20, 320 << 20}
	for i := 0; i < b.N; i++ {
		res, _ := sweepSpillsort(b, "256M", mems, 9, "-hugepages")
		if len(res.Models) != 1 {
			b.Fatalf("models %+v skipped %+v", res.Models, res.Skipped)
		}
		m := res.Models[0]
		b.Log("\n" + accuracyTable(m))
		b.ReportMetric(m.Validation.SettingsMedianAbsError, "settings_median_abs_error")
		if e := m.Validation.SettingsMedianAbsError; e > 0.05 || math.IsNaN(e) {
			b.Errorf("issue 7's bar: median absolute error %.1f%% over the settings' medians, want ≤ 5%%", 100*e)
		}
		b.ReportMetric(m.Validation.MedianAbsError, "runs_median_abs_error")
		floor := scatterFloor(m)
		b.ReportMetric(floor, "runs_scatter_floor")
		// Issue 16: the bar is on the settings' medians (above); single
		// runs scatter by the machine's noise, so their error is printed
		// beside that floor, not failed on: make bench exits 0 on a sound
		// model on a noisy host.
		b.Logf("single runs not fitted: median absolute error %.1f%% (a model that predicted each setting's median exactly would have %.1f%% on these runs)",
			100*m.Validation.MedianAbsError, 100*floor)
	}
}

// diskDir is a temporary directory on a disk-backed file system: spills to
// tmpfs (where O_DIRECT is refused and spillsort falls back to the page
// cache) cost nearly nothing, and the model would be right about a workload
// that does not spill to disk. When the test's temp dir is tmpfs, the
// directory goes under the package's own folder (the checkout's disk).
func diskDir(t testing.TB) string {
	dir := t.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Type != 0x01021994 { // TMPFS_MAGIC
		return dir
	}
	d, err := os.MkdirTemp(".", ".accuracy-spill-")
	if err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(abs) })
	return abs
}

// sweepSpillsort builds spillsort, profiles it and fits the model.
func sweepSpillsort(t testing.TB, gen string, mems []int64, repeat int, extra ...string) (*elasticity.Result, []dataset.ProfRun) {
	t.Helper()
	runs := profileSpillsort(t, gen, mems, repeat, extra...)
	return fitSpillsort(t, runs), runs
}

// profileSpillsort builds spillsort and profiles it: repeat passes over
// mems on -gen gen records.
func profileSpillsort(t testing.TB, gen string, mems []int64, repeat int, extra ...string) []dataset.ProfRun {
	return profileSpillsortLimited(t, gen, mems, repeat, 0, "", extra...)
}

// profileSpillsortLimited is profileSpillsort with the spill disk throttled
// to diskLimit bytes/s each way (profiler.Options.DiskLimit; 0: none), and
// the spills in a directory under spillRoot when it is not "" (a zram
// disk: BenchmarkSampleRetarget), else next to the test's binary.
func profileSpillsortLimited(t testing.TB, gen string, mems []int64, repeat int, diskLimit int64, spillRoot string, extra ...string) []dataset.ProfRun {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	dir := diskDir(t)
	bin := filepath.Join(dir, "spillsort")
	spill := dir
	if spillRoot != "" {
		if spill, err = os.MkdirTemp(spillRoot, "wlprof-accuracy-spill-"); err != nil {
			t.Fatalf("spill directory: %v", err)
		}
		t.Cleanup(func() { os.RemoveAll(spill) })
	}
	if out, err := exec.Command(goBin, "build", "-o", bin, "../testdata/profiler/spillsort").CombinedOutput(); err != nil {
		t.Fatalf("building spillsort: %v\n%s", err, out)
	}
	n, err := parseMiB(gen)
	if err != nil {
		t.Fatal(err)
	}
	input := n / 100 * 100 // whole 100-byte records
	// spillsort's memory beyond -mem: about 8 MiB, and a 100 KiB read
	// buffer per spilled segment (a 3.2 GB input in 4 MiB segments: 80 MB).
	overhead := int64(32<<20) + input/40
	o := profiler.Options{Job: "spillsort", Task: "reduce", Mems: mems, Repeat: repeat, Interval: 20 * time.Millisecond,
		SpillDir: spill, InputBytes: input, Cap: profiler.CapAuto, CapOverhead: overhead, DiskLimit: diskLimit, Warn: func(string) {}}
	ps, err := profiler.Sweep(context.Background(), append([]string{bin, "-gen", gen, "-mem", "{mem}", "-spill", "{spill_dir}"}, extra...), o)
	if err != nil {
		t.Fatal(err)
	}
	var runs []dataset.ProfRun
	for _, p := range ps {
		if p.Record.Outcome != "ok" {
			t.Fatalf("run %s: %s\n%s", p.Record.RunID, p.Record.Outcome, p.Tail)
		}
		runs = append(runs, p.Record)
	}
	return runs
}

// fitSpillsort fits spillsort's model to its runs.
func fitSpillsort(t testing.TB, runs []dataset.ProfRun) *elasticity.Result {
	t.Helper()
	return fitSpillsortWith(t, runs, elasticity.FitPair)
}

// fitSpillsortWith fits spillsort's model to its runs by fit (Options.Fit).
func fitSpillsortWith(t testing.TB, runs []dataset.ProfRun, fit string) *elasticity.Result {
	t.Helper()
	opts := elasticity.DefaultOptions()
	opts.Fit = fit
	opts.GridBytes = 8 << 20
	opts.Overrides = elasticity.Conf{"wlprof.spill.buffer": "true", "wlprof.expansion.factor": "1.16"}
	res, err := elasticity.Run(context.Background(), elasticity.Input{Runs: runs}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func parseMiB(s string) (int64, error) {
	var n int64
	if _, err := fmt.Sscanf(strings.TrimSuffix(s, "M"), "%d", &n); err != nil {
		return 0, err
	}
	return n << 20, nil
}

// scatterFloor is the median absolute error over m's validation runs of
// a model that predicted every setting's median runtime exactly: how far
// single runs scatter around their setting's median, which no model of
// runtime against memory can predict. When it is near 5%, the single-run
// bar measures the machine, not the model.
func scatterFloor(m *elasticity.Model) float64 {
	med := map[int64]float64{}
	for _, s := range m.Settings {
		med[s.MemoryBytes] = s.RuntimeS
	}
	var errs []float64
	for _, c := range m.Validation.Checks {
		if c.MeasuredS > 0 {
			errs = append(errs, math.Abs(med[c.MemoryBytes]-c.MeasuredS)/c.MeasuredS)
		}
	}
	if len(errs) == 0 {
		return math.NaN()
	}
	slices.Sort(errs)
	n := len(errs)
	if n%2 == 1 {
		return errs[n/2]
	}
	return (errs[n/2-1] + errs[n/2]) / 2
}

// fitMiB is the settings m was fitted on, in MiB (none: every setting, by
// least squares).
func fitMiB(m *elasticity.Model) []int64 {
	var r []int64
	for _, b := range m.FitMemoryBytes {
		r = append(r, b>>20)
	}
	return r
}

// accuracyTable is memory → median measured runtime, prediction, error.
func accuracyTable(m *elasticity.Model) string {
	var b strings.Builder
	fmt.Fprintf(&b, "median abs error %.2f%% over %d settings' medians (max %.2f%%), %.2f%% over their %d runs (runs around their setting's median: %.2f%%; fit at %v MiB); ideal %.3g s, rate %.3g MB/s\n",
		100*m.Validation.SettingsMedianAbsError, m.Validation.Settings, 100*m.Validation.SettingsMaxAbsError, 100*m.Validation.MedianAbsError, m.Validation.Runs, 100*scatterFloor(m),
		fitMiB(m), m.IdealRuntimeS, m.Params["disk_rate_bytes_per_s"]/1e6)
	fmt.Fprintf(&b, "%8s %10s %12s %12s %12s %8s %s\n", "mem_MiB", "spilled_MB", "sim_spill_MB", "measured_s", "predicted_s", "error", "role")
	for _, s := range m.Settings {
		var errs []float64
		var p float64
		for _, c := range m.Validation.Checks {
			if c.MemoryBytes == s.MemoryBytes {
				errs = append(errs, c.Error)
				p = c.PredictedS
			}
		}
		e := "fit"
		if !s.UsedToFit {
			if p == 0 {
				e = "-"
			} else {
				e = fmt.Sprintf("%+.1f%%", 100*(p-s.RuntimeS)/s.RuntimeS)
			}
		}
		if p == 0 {
			p = s.RuntimeS
		}
		fmt.Fprintf(&b, "%8d %10.1f %12.1f %12.3f %12.3f %8s %s\n", s.MemoryBytes>>20, float64(s.SpilledBytes)/1e6,
			float64(s.SimulatedSpilledBy)/1e6, s.RuntimeS, p, e, s.Role)
	}
	return b.String()
}

// BenchmarkSampleRetarget is issue 16's bar for carrying a model from a
// sample to the whole input: spillsort profiled on a 10% sample (64 MiB of
// records, settings 8–80 MiB; WLPROF_RETARGET_SAMPLE=32M halves both), its
// model retargeted to the full input (640 MiB) by Model.Retarget, against a
// sweep of the full input at ten times the settings: each full setting's
// median runtime within 10% of the prediction. The sample is fitted both
// ways (Options.Fit): by least squares over all its runs, the model the bar
// is on (wlprof elasticity --fit least-squares --input-bytes), and by the
// pair of settings, logged beside it.
//
// The bar needs a spill disk whose cost per byte does not depend on the
// length of the burst (elasticity/doc.go, "From a sample to the whole
// input"): WLPROF_RETARGET_SPILL_DIR, a directory on a zram disk that
// scripts/spill-disk.sh makes (make bench and make bench-retarget do, as
// root), throttled to WLPROF_RETARGET_DISK_LIMIT (default 25M there) each
// way; there every setting is asserted, in about 23 minutes (the
// well-sized one, all CPU, against what the runs' own scatter allows: see
// below). Without it the
// spills go to the machine's own disk, where a VM's host caches bursts and
// the per-setting bar cannot be met: the table is logged and only a gross
// error is asserted (median over settings above 25%: a wrong rule, with no
// scaling of the penalty or of the ideal runtime, misses by 30% and more).
func BenchmarkSampleRetarget(b *testing.B) {
	sample := "64M"
	if v := os.Getenv("WLPROF_RETARGET_SAMPLE"); v != "" {
		sample = v
	}
	n, err := parseMiB(sample)
	if err != nil || n < 8<<20 {
		b.Fatalf("WLPROF_RETARGET_SAMPLE=%q: want a size like 32M (at least 8M)", sample)
	}
	// The settings are 1/8 to 1.25 of the sample (a 32 MiB sample: 4–40
	// MiB), whole MiB.
	fullSize := fmt.Sprintf("%dM", 10*(n>>20))
	var small, full []int64
	for _, eighths := range []int64{1, 2, 3, 4, 6, 8, 10} {
		m := (eighths * n / 8) >> 20 << 20
		small = append(small, m)
		full = append(full, 10*m)
	}
	// WLPROF_RETARGET_DISK_LIMIT (e.g. 25M) throttles the spill disk to
	// that many bytes/s each way (profiler.Options.DiskLimit); default 25M
	// with WLPROF_RETARGET_SPILL_DIR, else none. On a zram disk at 25
	// MiB/s (session 14, six runs) every spilling setting was within 1–6%
	// by least squares. Session 13, at 100 MiB/s on the VM's disk (cgroup
	// v1 blkio; a rotational device, so 100 ms throttle slices): the full
	// sweep became steady (the three settings that spill 276 MiB took
	// 6.873, 6.875 and 6.871 s, where the raw disk gave 4.19–4.39 s), but
	// the sample's short spill bursts got through faster than the rate
	// (15 ms per MiB spilled against the full input's 18, where the rate
	// makes it 20: each spilled MiB is written and read back; the throttle
	// starts each new time slice with an allowance), so the retargeted
	// penalty came out 11–14% low at every spilling setting: a throttled
	// disk does not help a sample this small.
	spillRoot := os.Getenv("WLPROF_RETARGET_SPILL_DIR")
	limit := int64(0)
	v := os.Getenv("WLPROF_RETARGET_DISK_LIMIT")
	if v == "" && spillRoot != "" {
		v = "25M"
	}
	if v != "" && v != "off" {
		if limit, err = profiler.ParseRate(v); err != nil {
			b.Fatalf("WLPROF_RETARGET_DISK_LIMIT: %v", err)
		}
	}
	steady := spillRoot != "" && limit > 0
	where := "the machine's own disk (no WLPROF_RETARGET_SPILL_DIR)"
	if spillRoot != "" {
		where = spillRoot
	}
	if limit > 0 {
		b.Logf("spills on %s, limited to %s/s each way", where, bytesize.Human(float64(limit)))
	} else {
		b.Logf("spills on %s, not limited", where)
	}
	for i := 0; i < b.N; i++ {
		// WLPROF_RETARGET_SAMPLE_SEGMENT (e.g. 400K) sets the sample's
		// segment size: at a tenth of the 4 MiB default the sample's
		// reducer merges as many segments as the full one (160), which
		// tells the merge's fan-in apart from the rest of the rule.
		var extra []string
		if seg := os.Getenv("WLPROF_RETARGET_SAMPLE_SEGMENT"); seg != "" {
			extra = []string{"-segment", seg}
			b.Logf("sample segments of %s", seg)
		}
		// The sample's and the full input's passes alternate, so that both
		// sweeps see the disk in the same state: this VM's disk changes
		// speed over minutes, and a rate learnt in one minute and applied
		// to the next was off by up to 20% at single settings whichever
		// way the disk had moved (sessions 8–10).
		// A 32 MiB sample's runs last 0.2–0.35 s, and their medians over 5 passes
		// moved by 10–15% between sweeps; retargeting multiplies that by
		// ten. A sample is cheap to run, so it gets 5 passes per pass over
		// the full input (15 against 3: 40 s against 60 s).
		// The well-sized setting is all CPU, and this host's CPU is not
		// steady either: a well-sized run took 0.16–0.20 s or 0.25–0.28 s
		// in one sweep of the sample, and the full input's medians of
		// three well-sized runs moved between 1.86 and 2.73 s from one
		// benchmark to the next (session 14; its ratio to the sample's
		// from 7.9× to 11.0×). So the full input's well-sized setting gets
		// 5 runs per pass too (15 in all, as the sample's), and the two
		// inputs' well-sized runs alternate one by one: with 64 MiB the
		// sample's took 0.35 s or 0.52–0.63 s and the full input's
		// 4.1–6.4 s in one benchmark (session 15), the host's state
		// changing from run to run, and alternating gives both medians
		// the same mix of states.
		var sampleRuns, fullRuns []dataset.ProfRun
		well, spilling := full[len(full)-1:], full[:len(full)-1]
		for pass := 0; pass < 3; pass++ {
			sampleRuns = append(sampleRuns, profileSpillsortLimited(b, sample, small[:len(small)-1], 5, limit, spillRoot, extra...)...)
			for i := 0; i < 5; i++ {
				sampleRuns = append(sampleRuns, profileSpillsortLimited(b, sample, small[len(small)-1:], 1, limit, spillRoot, extra...)...)
				fullRuns = append(fullRuns, profileSpillsortLimited(b, fullSize, well, 1, limit, spillRoot)...)
			}
			fullRuns = append(fullRuns, profileSpillsortLimited(b, fullSize, spilling, 1, limit, spillRoot)...)
		}
		b.Logf("well-sized runs: sample %s; full %s", runtimesAt(sampleRuns, small[len(small)-1]), runtimesAt(fullRuns, well[0]))
		fullRes := fitSpillsort(b, fullRuns)
		if len(fullRes.Models) != 1 {
			b.Fatalf("full: models %+v skipped %+v", fullRes.Models, fullRes.Skipped)
		}
		fm := fullRes.Models[0]
		// The sample's model is fitted both ways and carried by the rule
		// (Model.Retarget).
		type way struct {
			name, fit string
		}
		// retargeted is how one way did against the full sweep.
		type retargeted struct {
			median, spillWorst float64 // absolute errors: median over settings, worst spilling setting
			wellErr, wellPred  float64 // signed error and prediction at the well-sized setting
		}
		got := map[string]retargeted{}
		for _, w := range []way{{"pair", elasticity.FitPair}, {"lsq", elasticity.FitLeastSquares}} {
			res := fitSpillsortWith(b, sampleRuns, w.fit)
			if len(res.Models) != 1 {
				b.Fatalf("sample (fit %s): models %+v skipped %+v", w.fit, res.Models, res.Skipped)
			}
			m := res.Models[0]
			if w.name == "pair" {
				sIdeal, fIdeal := idealMedian(m), idealMedian(fm)
				// Where the retarget rule's linearity stands: the well-sized
				// runs (no spill) of both sweeps, whose ratio the rule takes
				// to be the input ratio (10).
				if sIdeal > 0 && fIdeal > 0 {
					b.ReportMetric(fIdeal/sIdeal, "ideal_runtime_ratio")
					b.Logf("well-sized runtime: sample %.3f s, full %.3f s: %.2f× for %.2f× the input", sIdeal, fIdeal, fIdeal/sIdeal,
						float64(fm.InputBytes)/float64(m.InputBytes))
				}
			}
			if err := m.Retarget(fm.InputBytes); err != nil {
				b.Fatal(err)
			}
			var errs []float64
			table := "MEMORY_MIB  MEASURED_S  PREDICTED_S  ERROR\n"
			var r retargeted
			for _, s := range fm.Settings {
				p := m.Predict(s.MemoryBytes)
				e := (p - s.RuntimeS) / s.RuntimeS
				errs = append(errs, math.Abs(e))
				if s.SpilledBytes > 0 {
					r.spillWorst = max(r.spillWorst, math.Abs(e))
				} else { // the one well-sized setting, well[0]
					r.wellErr, r.wellPred = e, p
				}
				table += fmt.Sprintf("%10d  %10.3f  %11.3f  %+5.1f%%\n", s.MemoryBytes>>20, s.RuntimeS, p, 100*e)
			}
			sort.Float64s(errs)
			b.Logf("\nthe sample's model (fit %s), retargeted, against the full input's sweep (median error %.1f%%, largest %.1f%%):\n%s",
				w.fit, 100*errs[len(errs)/2], 100*errs[len(errs)-1], table)
			r.median = errs[len(errs)/2]
			got[w.name] = r
			b.ReportMetric(errs[len(errs)/2], w.name+"_median_abs_error")
			b.ReportMetric(errs[len(errs)-1], w.name+"_max_abs_error")
		}
		// Issue 16's bar is every setting within 10%, asserted on a steady
		// spill disk. At the spilling settings the rule's own claims
		// (spilled bytes and ideal memory scale with the input, the disk
		// rate stays) decide the runtime. The well-sized setting is all
		// CPU, and its error is the ratio of the two inputs' well-sized
		// medians against 10, which this shared host's CPU moves from one
		// benchmark to the next: 7.9× to 11.7× over six with a 32 MiB
		// sample, whose 0.2 s runs are bimodal (session 14); 10.04×,
		// 10.09×, 11.09× and 10.53× over four with 64 MiB (session 15). A
		// miss there fails only when the runs' own scatter cannot explain
		// it: when the whole 95% interval of the error that resampling the
		// two inputs' well-sized runs gives lies beyond 10% (with 64 MiB
		// those intervals were −22% to +9%, −30% to +6%, −16% to −2% and
		// −22% to +8%).
		// On this VM's own disk the bar is not met at spilling settings
		// either: the host caches bursts, so a spilled byte of the full
		// input's long spills costs less than one of the sample's short
		// ones, and by how much changes from day to day (session 12: worst
		// settings 11.3% at 32 MiB and 16.1% at 64 MiB, by least squares;
		// session 14, with a test beside it: 36.4%, the full sweep's
		// penalty per spilled MB between 1.2 and 7.7 ms within one sweep).
		// There only a gross error is asserted.
		lsq := got["lsq"]
		lo, hi := wellSizedInterval(runtimesOf(sampleRuns, small[len(small)-1]), runtimesOf(fullRuns, well[0]), lsq.wellPred)
		b.Logf("well-sized setting: %+.1f%% by least squares; the runs' scatter allows %+.1f%% to %+.1f%% (95%%, resampled)",
			100*lsq.wellErr, 100*lo, 100*hi)
		if max(lsq.spillWorst, math.Abs(lsq.wellErr)) > 0.10 {
			b.Logf("issue 16's per-setting bar missed: spilling settings' worst %.1f%%, well-sized %+.1f%%", 100*lsq.spillWorst, 100*lsq.wellErr)
		}
		if steady && lsq.spillWorst > 0.10 {
			b.Errorf("the retargeted least-squares model is %.1f%% off at a spilling setting, want ≤ 10%% on a steady disk", 100*lsq.spillWorst)
		}
		if steady && math.Abs(lsq.wellErr) > 0.10 && (hi < -0.10 || lo > 0.10) {
			b.Errorf("the retargeted least-squares model is %+.1f%% off at the well-sized setting, beyond 10%% even at the edge of what the runs' scatter allows (%+.1f%% to %+.1f%%)",
				100*lsq.wellErr, 100*lo, 100*hi)
		}
		if !steady && lsq.median > 0.25 {
			b.Errorf("the retargeted least-squares model is %.1f%% off the full input's medians (median over settings), want ≤ 25%% even on an unsteady disk: is the rule wrong?", 100*lsq.median)
		}
	}
}

// runtimesOf is the runtimes of runs at memory mem, in seconds, sorted:
// wall time minus the wait for a CPU, as the models take them.
func runtimesOf(runs []dataset.ProfRun, mem int64) []float64 {
	var ts []float64
	for _, r := range runs {
		if r.MemoryBytes == mem {
			t := r.RuntimeS
			if w := r.CPUWaitS; w > 0 && w < t {
				t -= w
			}
			ts = append(ts, t)
		}
	}
	sort.Float64s(ts)
	return ts
}

// wellSizedInterval is the 95% interval of a retargeted model's error at
// the full input's well-sized setting that the runs' own scatter allows:
// pred, the model's prediction there, is the full input's well-sized
// median times 10 times the sample's well-sized median over the full's
// (the least-squares T is the sample's median), so resampling both inputs'
// well-sized runs with replacement (4,000 times, seeded) and scaling pred
// by the resampled sample median gives the errors the same benchmark could
// have measured on another draw of the host's states.
func wellSizedInterval(sample, full []float64, pred float64) (lo, hi float64) {
	if len(sample) == 0 || len(full) == 0 || pred <= 0 {
		return math.NaN(), math.NaN()
	}
	rng := rand.New(rand.NewPCG(16, 64))
	ms := quantile.Median(sample)
	draw := func(xs []float64) float64 {
		r := make([]float64, len(xs))
		for i := range r {
			r[i] = xs[rng.IntN(len(xs))]
		}
		return quantile.Median(r)
	}
	errs := make([]float64, 4000)
	for i := range errs {
		errs[i] = pred*draw(sample)/ms/draw(full) - 1
	}
	sort.Float64s(errs)
	return errs[len(errs)*25/1000], errs[len(errs)*975/1000]
}

// The well-sized interval holds the measured error, is a point when the
// runs do not scatter, and widens with a bimodal sample (session 15's first
// 64 MiB benchmark: a median 0.536 s of runs in two modes, 0.35 and 0.55 s).
func TestWellSizedInterval(t *testing.T) {
	rep := func(x float64, n int) []float64 { return slices.Repeat([]float64{x}, n) }
	if lo, hi := wellSizedInterval(rep(1, 15), rep(10, 15), 10.5); math.Abs(lo-0.05) > 1e-12 || math.Abs(hi-0.05) > 1e-12 {
		t.Errorf("no scatter: %g to %g, want 0.05", lo, hi)
	}
	sample := []float64{0.353, 0.354, 0.358, 0.416, 0.448, 0.519, 0.520, 0.536, 0.544, 0.555, 0.568, 0.574, 0.576, 0.601, 0.629}
	full := []float64{4.087, 4.312, 4.448, 4.849, 5.123, 5.251, 5.313, 5.377, 5.598, 5.713, 5.736, 5.850, 5.916, 6.306, 6.406}
	pred := 10 * quantile.Median(sample)
	e := pred/quantile.Median(full) - 1
	lo, hi := wellSizedInterval(sample, full, pred)
	if lo > e || hi < e || hi-lo < 0.2 {
		t.Errorf("bimodal sample: %g to %g, want around %g and wider than 20 points", lo, hi, e)
	}
	if lo, hi := wellSizedInterval(nil, full, pred); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("no sample runs: %g to %g, want NaN", lo, hi)
	}
}

// runtimesAt lists the runtimes of runs at memory mem, in seconds, sorted.
func runtimesAt(runs []dataset.ProfRun, mem int64) string {
	ts := runtimesOf(runs, mem)
	var b strings.Builder
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.3f", t)
	}
	return b.String()
}

// idealMedian is the median runtime of m's largest setting that spilled
// nothing, or 0.
func idealMedian(m *elasticity.Model) float64 {
	t := 0.0
	for _, s := range m.Settings {
		if s.SpilledBytes == 0 {
			t = s.RuntimeS
		}
	}
	return t
}
