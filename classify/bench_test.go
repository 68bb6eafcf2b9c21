package classify

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
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

func benchSetup(b *testing.B) (csvPath, bin string) {
	benchOnce.Do(func() {
		tenants, days := benchSize()
		dir := filepath.Join(os.TempDir(), "wlprof-classify-bench-"+strconv.Itoa(tenants)+"x"+strconv.FormatFloat(days, 'g', -1, 64))
		if benchErr = os.MkdirAll(dir, 0o755); benchErr != nil {
			return
		}
		benchCSV = filepath.Join(dir, "usage.csv")
		if _, err := os.Stat(benchCSV); err != nil {
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
	for i := 0; i < b.N; i++ {
		ds := filepath.Join(b.TempDir(), "ds")
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
		b.ReportMetric(float64(max(ingestRSS, classRSS, cachedRSS))/(1<<20), "wlprof_peak_rss_MB")
		b.ReportMetric(float64(pyRSS)/(1<<20), "pandas_peak_rss_MB")
		b.Logf("pandas patterns %v", py.Patterns)
	}
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
