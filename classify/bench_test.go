package classify

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/synth"
)

// The benchmark world is the issue's: 10,000 tenants × 30 days at 2-minute
// samples, one server each (216 M samples, ~7 GB of CSV). The CSV is
// written once under the temporary directory and reused by later runs.
// WLPROF_BENCH_TENANTS and WLPROF_BENCH_DAYS shrink it for quick runs.
func benchSize() (tenants int, days float64) {
	tenants, days = 10_000, 30
	if n, err := strconv.Atoi(os.Getenv("WLPROF_BENCH_TENANTS")); err == nil && n > 0 {
		tenants = n
	}
	if d, err := strconv.ParseFloat(os.Getenv("WLPROF_BENCH_DAYS"), 64); err == nil && d > 0 {
		days = d
	}
	return
}

var (
	benchOnce sync.Once
	benchCSV  string
	benchBin  string
	benchErr  error
)

// benchDir is the directory of the benchmark's CSV and binary, removed
// when the package's benchmarks are done (TestMain) unless
// WLPROF_BENCH_KEEP is set: the default world's CSV is 6.9 GB.
var benchDir string

// csvBytesPerRow is about what a row of the benchmark world takes in the
// CSV (compact names, epoch seconds, four decimals), for the disk check.
const csvBytesPerRow = 32

func benchSetup(b *testing.B) (csvPath, bin string) {
	benchOnce.Do(func() {
		tenants, days := benchSize()
		dir := filepath.Join(os.TempDir(), "wlprof-classify-bench-"+strconv.Itoa(tenants)+"x"+strconv.FormatFloat(days, 'g', -1, 64))
		if benchErr = os.MkdirAll(dir, 0o755); benchErr != nil {
			return
		}
		benchDir = dir
		benchCSV = filepath.Join(dir, "usage.csv")
		if _, err := os.Stat(benchCSV); err != nil {
			// The CSV, the usage table (about a twentieth of it) and the
			// series table (8 bytes a sample) must fit, with a margin.
			rows := float64(tenants) * days * 86400 / DefaultStep.Seconds()
			need := uint64(rows * (csvBytesPerRow + 8 + 2) * 1.1)
			var st syscall.Statfs_t
			if err := syscall.Statfs(dir, &st); err == nil && st.Bavail*uint64(st.Bsize) < need {
				benchErr = fmt.Errorf("%s: %.1f GB free, the benchmark world (%d tenants × %g days) needs about %.1f GB: free some or set WLPROF_BENCH_TENANTS",
					dir, float64(st.Bavail*uint64(st.Bsize))/1e9, tenants, days, float64(need)/1e9)
				return
			}
			tmp := benchCSV + ".tmp"
			f, err := os.Create(tmp)
			if err != nil {
				benchErr = err
				return
			}
			o := synth.Default()
			o.Tenants, o.Days, o.MinServers, o.MaxServers, o.Compact, o.Seed = tenants, days, 1, 1, true, 5
			if _, _, benchErr = synth.Generate(f, o); benchErr != nil {
				f.Close()
				return
			}
			f.Close()
			if benchErr = os.Rename(tmp, benchCSV); benchErr != nil {
				return
			}
		}
		benchBin = filepath.Join(dir, "wlprof")
		out, err := exec.Command("go", "build", "-o", benchBin, "../cmd/wlprof").CombinedOutput()
		if err != nil {
			benchErr = &buildError{string(out)}
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchCSV, benchBin
}

type buildError struct{ out string }

func (e *buildError) Error() string { return "go build: " + e.out }

// run runs a command and returns its wall time, peak RSS in bytes and
// output. Its CPU time (user + system) is added to *cpu when cpu is not
// nil: on a shared machine wall times stretch with the load, CPU times
// much less.
func run(b *testing.B, cpu *time.Duration, name string, args ...string) (time.Duration, int64, []byte) {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	out, err := cmd.Output()
	el := time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v", name, args, err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if cpu != nil {
		*cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return el, ru.Maxrss * 1024, out
}

// BenchmarkClassifyEndToEnd is CSV → `wlprof ingest csv` → `wlprof
// classify` against the pandas + numpy baseline (testdata/
// classify_pandas.py: the same resampling, rfft and decision rule) on the
// same CSV, in one run. Reported: each side's seconds and peak RSS, the
// ratio, and classify alone on the stored series (the median of three
// runs after the first).
func BenchmarkClassifyEndToEnd(b *testing.B) {
	csvPath, bin := benchSetup(b)
	// Both sides read the CSV from the page cache: whichever ran first
	// would otherwise pay the disk for both (the 1,000-tenant ingest took
	// 1.7 s on a cold file, 1 s on a warm one).
	readAll(b, csvPath, nil)
	for i := 0; i < b.N; i++ {
		ds := filepath.Join(b.TempDir(), "ds")
		b.ReportMetric(loadAverage(), "load1_start")
		var wlCPU, cachedCPU, pyCPU time.Duration
		ingestT, ingestRSS, _ := run(b, &wlCPU, bin, "ingest", "csv", csvPath, "-d", ds, "-q")
		classT, classRSS, _ := run(b, &wlCPU, bin, "classify", "-d", ds, "-o", "json", "-q")
		// Classify alone: the median of three runs on the stored series,
		// after sync(2), so that the writeback of the series table the
		// first classify just wrote (1.7 GB) is not charged to them.
		syscall.Sync()
		var cachedT time.Duration
		var cachedRSS int64
		{
			var ts []time.Duration
			var cpus []time.Duration
			for k := 0; k < 3; k++ {
				var c time.Duration
				t, rss, _ := run(b, &c, bin, "classify", "-d", ds, "-o", "json", "-q")
				ts, cpus = append(ts, t), append(cpus, c)
				cachedRSS = max(cachedRSS, rss)
			}
			order := []int{0, 1, 2}
			sort.Slice(order, func(i, j int) bool { return ts[order[i]] < ts[order[j]] })
			cachedT, cachedCPU = ts[order[1]], cpus[order[1]]
		}
		pyT, pyRSS, pyOut := run(b, &pyCPU, python(), "testdata/classify_pandas.py", csvPath)
		var py struct {
			Tenants  int            `json:"tenants"`
			Patterns map[string]int `json:"patterns"`
		}
		if err := json.Unmarshal(pyOut, &py); err != nil {
			b.Fatalf("pandas output %q: %v", pyOut, err)
		}
		wl := ingestT + classT
		b.ReportMetric(ingestT.Seconds(), "ingest_s")
		b.ReportMetric(classT.Seconds(), "classify_s")
		b.ReportMetric(cachedT.Seconds(), "classify_from_series_s")
		b.ReportMetric(wl.Seconds(), "wlprof_s")
		b.ReportMetric(pyT.Seconds(), "pandas_s")
		b.ReportMetric(pyT.Seconds()/wl.Seconds(), "speedup_x")
		b.ReportMetric(wlCPU.Seconds(), "wlprof_cpu_s")
		b.ReportMetric(cachedCPU.Seconds(), "classify_from_series_cpu_s")
		b.ReportMetric(pyCPU.Seconds(), "pandas_cpu_s")
		// The ratio of CPU seconds stretches far less with the load than
		// the ratio of wall times, which loads two cores for wlprof and
		// one for pandas.
		b.ReportMetric(pyCPU.Seconds()/wlCPU.Seconds(), "cpu_speedup_x")
		b.ReportMetric(float64(max(ingestRSS, classRSS, cachedRSS))/(1<<20), "wlprof_peak_rss_MB")
		b.ReportMetric(float64(pyRSS)/(1<<20), "pandas_peak_rss_MB")
		b.ReportMetric(loadAverage(), "load1_end")
		b.Logf("pandas patterns %v", py.Patterns)
		breakdown(b, csvPath, ds)
	}
}

// breakdown times, in this process and one after another, the parts of
// ingest + the first classify on the dataset the run just made, each
// beside its floor on this machine:
//
//   - csv_read_s: the CSV's bytes read (page cache) in 1 MiB reads, the
//     floor of any parser; hash_s: their SHA-256 on one core, which ingest
//     computes as it parses (the manifest's content hash);
//   - read_s: the usage table decoded (ScanUsageBatches, every worker);
//     usage_bytes_s: its file's bytes read, the floor of that;
//   - build_s: the series built from usage (BuildSeries, which includes
//     the read);
//   - fft_s: every tenant analysed (detrend, FFT, shuffles,
//     autocorrelation: the per-tenant work, on every worker);
//     fft_floor_s: one forward FFT per tenant of its detection series;
//   - cluster_s: K-Means per pattern; headroom_s: the classes' sums;
//   - write_s: the series table written and committed (fsync);
//     write_floor_s: as many bytes written and fsynced in one file.
func breakdown(b *testing.B, csvPath, dsDir string) {
	ctx := context.Background()
	timed := func(name string, f func()) {
		start := time.Now()
		f()
		b.ReportMetric(time.Since(start).Seconds(), name)
	}
	timed("csv_read_s", func() { readAll(b, csvPath, nil) })
	timed("hash_s", func() { readAll(b, csvPath, sha256.New()) })
	d, err := dataset.Open(dsDir)
	if err != nil {
		b.Fatal(err)
	}
	timed("read_s", func() {
		if err := dataset.ScanUsageBatches(ctx, d, func(*dataset.UsageBatch) error { return nil }); err != nil {
			b.Fatal(err)
		}
	})
	timed("usage_bytes_s", func() {
		for _, f := range d.Manifest().Tables[dataset.UsageTable.Name].Files {
			readAll(b, filepath.Join(dsDir, f.Path), nil)
		}
	})
	var series []dataset.Series
	timed("build_s", func() {
		if series, _, err = BuildSeries(ctx, d, SeriesOptions{}); err != nil {
			b.Fatal(err)
		}
	})
	o := Options{}.withDefaults()
	res := &Result{StepS: series[0].StepS, Tenants: make([]Tenant, len(series))}
	parallel := func(f func(ws *workspace, i int)) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := 0; w < o.Workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ws := newWorkspace()
				for i := int(next.Add(1) - 1); i < len(series); i = int(next.Add(1) - 1) {
					f(ws, i)
				}
			}()
		}
		wg.Wait()
	}
	timed("fft_s", func() { parallel(func(ws *workspace, i int) { res.Tenants[i] = analyse(&series[i], &o, ws) }) })
	timed("fft_floor_s", func() {
		parallel(func(ws *workspace, i int) {
			x := o.upTo(&series[i])
			f := detectFactor(len(x), o.DetectLen, series[i].StepS)
			y := make([]float64, len(x)/f)
			blockMeans(y, x[len(x)-len(y)*f:], f)
			for k := range y {
				if y[k] != y[k] {
					y[k] = 0
				}
			}
			ws.periodogram(y[len(y)-smoothLen(len(y)):])
		})
	})
	timed("cluster_s", func() { res.Classes = cluster(res.Tenants, &o) })
	ptrs := make([]*dataset.Series, len(series))
	for i := range series {
		ptrs[i] = &series[i]
	}
	timed("headroom_s", func() { headroom(res, ptrs, &o) })
	wds, err := dataset.OpenOrCreate(filepath.Join(b.TempDir(), "ds"))
	if err != nil {
		b.Fatal(err)
	}
	timed("write_s", func() {
		tx, err := wds.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if err := tx.WriteSeries(series); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	})
	var size int64
	for _, f := range wds.Manifest().Tables[dataset.SeriesTable.Name].Files {
		size += f.Bytes
	}
	series, ptrs = nil, nil
	runtime.GC()
	timed("write_floor_s", func() { writeZeros(b, filepath.Join(b.TempDir(), "floor"), size) })
	b.ReportMetric(float64(size)/1e6, "series_MB")
}

// readAll reads path in 1 MiB reads, into h when not nil.
func readAll(b *testing.B, path string, h io.Writer) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		if h != nil {
			h.Write(buf[:n])
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// writeZeros writes n bytes of random data (so that no layer below can
// skip them) to path and fsyncs it, then removes it.
func writeZeros(b *testing.B, path string, n int64) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(path)
	buf := make([]byte, 1<<20)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	for n > 0 {
		k := min(n, int64(len(buf)))
		if _, err := f.Write(buf[:k]); err != nil {
			b.Fatal(err)
		}
		n -= k
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// loadAverage is the machine's one-minute load average (0 where
// /proc/loadavg cannot be read).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(string(b[:bytesIndex(b, ' ')]), 64)
	return f
}

func bytesIndex(b []byte, c byte) int {
	for i := range b {
		if b[i] == c {
			return i
		}
	}
	return len(b)
}

// TestMain removes the benchmark world (benchSetup) once every benchmark
// of the package has run, unless WLPROF_BENCH_KEEP is set.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" && os.Getenv("WLPROF_BENCH_KEEP") == "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// BenchmarkClassifyStage is the classify stage alone on a dataset whose
// series table is fresh: Load and Run, which classify the table as it
// reads it (the path `wlprof classify` takes), and, for comparison, the
// series read whole (ReadSeries, timed as read_s) and then Classify.
func BenchmarkClassifyStage(b *testing.B) {
	csvPath, bin := benchSetup(b)
	ds := filepath.Join(b.TempDir(), "ds")
	run(b, nil, bin, "ingest", "csv", csvPath, "-d", ds, "-q")
	run(b, nil, bin, "classify", "-d", ds, "-q") // builds the series table
	d, err := dataset.Open(ds)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		res, built, err := classifyDataset(context.Background(), d, Options{})
		if err != nil || built {
			b.Fatalf("built %v, err %v", built, err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "classify_stored_s")
		b.ReportMetric(float64(len(res.Tenants)), "tenants")
		start = time.Now()
		series, err := dataset.ReadSeries(context.Background(), d)
		if err != nil {
			b.Fatal(err)
		}
		read := time.Since(start)
		if _, err := Run(context.Background(), Input{Series: series}, Options{}); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(read.Seconds(), "read_s")
		b.ReportMetric(time.Since(start).Seconds()-read.Seconds(), "classify_in_memory_s")
	}
}

// python is the interpreter of the Debian python3-numpy/python3-pandas
// packages that scripts/deps.sh installs (a pyenv python3 earlier on PATH
// would not see them).
func python() string {
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	return "python3"
}

// BenchmarkSeriesBuild is BuildSeries alone: the usage table (decoded by
// row group in parallel) to every tenant's average-server series.
func BenchmarkSeriesBuild(b *testing.B) {
	csvPath, bin := benchSetup(b)
	ds := filepath.Join(b.TempDir(), "ds")
	run(b, nil, bin, "ingest", "csv", csvPath, "-d", ds, "-q")
	d, err := dataset.Open(ds)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		series, _, err := BuildSeries(context.Background(), d, SeriesOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(series)), "tenants")
		b.ReportMetric(float64(d.Rows(dataset.UsageTable.Name))/time.Since(start).Seconds()/1e6, "Mrows/s")
	}
}
