package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/duckdbtest"
	"github.com/wlprof/wlprof/internal/synth"
)

// benchRows is the size of the benchmark input: the 10 million rows
// (about 320 MB). WLPROF_BENCH_ROWS overrides it for quick runs.
func benchRows() int {
	if s := os.Getenv("WLPROF_BENCH_ROWS"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	return 10_000_000
}

var (
	benchOnce sync.Once
	benchPath string
	benchErr  error
)

// benchFile writes a synthetic world of about benchRows rows: 1000 tenants
// with 1–4 servers at 2-minute steps, compact names. The file is named for
// its options in the temporary directory and reused by later runs (written
// under another name and renamed, so a reader never sees half of it);
// a directory per run would leave hundreds of megabytes behind each time.
func benchFile(b *testing.B) string {
	benchOnce.Do(func() {
		o := synth.Default()
		o.Tenants, o.Compact, o.Seed = 1000, true, 3
		perStep := 2.5 * float64(o.Tenants) // mean servers per tenant is 2.5
		o.Days = float64(benchRows()) / perStep * o.Step.Seconds() / 86400
		benchPath = filepath.Join(os.TempDir(), fmt.Sprintf("wlprof-bench-v1-%d-rows.csv", benchRows()))
		if _, err := os.Stat(benchPath); err == nil {
			return
		}
		f, err := os.CreateTemp(os.TempDir(), "wlprof-bench-*.tmp")
		if err != nil {
			benchErr = err
			return
		}
		defer os.Remove(f.Name()) // after a successful rename, nothing to remove
		if _, _, benchErr = synth.Generate(f, o); benchErr != nil {
			f.Close()
			return
		}
		if benchErr = f.Close(); benchErr == nil {
			benchErr = os.Rename(f.Name(), benchPath)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchPath
}

func fileSize(b *testing.B, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return st.Size()
}

// BenchmarkIngestCSV is the whole `wlprof ingest csv`: read, parse, validate,
// hash, encode Parquet, commit.
func BenchmarkIngestCSV(b *testing.B) {
	// As wlprof sets them for ingest (cmd/wlprof tuneStage).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(768 << 20))
	path := benchFile(b)
	b.SetBytes(fileSize(b, path))
	for i := 0; i < b.N; i++ {
		res, err := ingest(b, context.Background(), filepath.Join(b.TempDir(), "ds"), "csv", []string{path}, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Accepted)/b.Elapsed().Seconds()*float64(i+1)/1e6, "Mrows/s")
	}
}

// BenchmarkScanCSV is the parser alone (no Parquet), the ceiling of ingest.
func BenchmarkScanCSV(b *testing.B) {
	path := benchFile(b)
	b.SetBytes(fileSize(b, path))
	for i := 0; i < b.N; i++ {
		in, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r, err := newUsageCSV(in, UnitAuto, time.UTC)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for r.Scan() {
			if _, perr := r.Record(); perr == nil {
				n++
			}
		}
		if r.Err() != nil {
			b.Fatal(r.Err())
		}
		in.Close()
	}
}

// BenchmarkEncodingCSV is the baseline the issue names: encoding/csv with
// strconv on the same file, building the same records, no Parquet.
func BenchmarkEncodingCSV(b *testing.B) {
	path := benchFile(b)
	b.SetBytes(fileSize(b, path))
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		cr := csv.NewReader(f)
		cr.ReuseRecord = true
		if _, err := cr.Read(); err != nil { // header
			b.Fatal(err)
		}
		var sink dataset.Usage
		for {
			rec, err := cr.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			sec, err1 := strconv.ParseInt(rec[2], 10, 64)
			cpu, err2 := strconv.ParseFloat(rec[3], 64)
			if err1 != nil || err2 != nil {
				b.Fatal(fmt.Errorf("%v %v", err1, err2))
			}
			sink = dataset.Usage{Tenant: rec[0], Server: rec[1], TimeMs: sec * 1000, CPU: cpu}
		}
		_ = sink
		f.Close()
	}
}

// BenchmarkIngestVsDuckDB is `wlprof ingest csv` against its anchor, DuckDB
// reading the same CSV with read_csv and writing one Parquet file (zstd
// level 1, as wlprof writes), in the same run: three rounds, each running
// wlprof then DuckDB, in processes of their own, so that both start cold
// and each one's peak RSS is its own (getrusage). Reported: the medians of
// the three, their ratio (speedup_x), wlprof's MB/s of CSV, and the one-
// minute load average when the run started. wlprof's time is the whole
// process (read, parse, hash, encode, fsync, commit); DuckDB's is its
// COPY statement alone, without node's start. hash_s is the SHA-256 of
// the file alone on one core, which ingest computes as it parses: the
// floor of that part.
func BenchmarkIngestVsDuckDB(b *testing.B) {
	path := benchFile(b)
	size := fileSize(b, path)
	bin := filepath.Join(b.TempDir(), "wlprof")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/wlprof").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	for i := 0; i < b.N; i++ {
		load := loadAverage()
		var wl, wlCPU, dd, ddCPU []float64
		var wlRSS, ddRSS int64
		for round := 0; round < 3; round++ {
			dir := b.TempDir()
			t, cpu, rss, _ := runProc(b, exec.Command(bin, "ingest", "csv", path, "-d", filepath.Join(dir, "ds"), "-q"))
			wl, wlCPU, wlRSS = append(wl, t), append(wlCPU, cpu), max(wlRSS, rss)
			_, cpu, rss, out := runProc(b, duckdbtest.CopyCSV(b, path, filepath.Join(dir, "duckdb.parquet")))
			ddCPU = append(ddCPU, cpu)
			var res struct{ Seconds float64 }
			if err := json.Unmarshal(out, &res); err != nil || res.Seconds <= 0 {
				b.Fatalf("duckdb output %q: %v", out, err)
			}
			dd, ddRSS = append(dd, res.Seconds), max(ddRSS, rss)
			os.RemoveAll(dir)
		}
		start := time.Now()
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			b.Fatal(err)
		}
		f.Close()
		hash := time.Since(start).Seconds()
		b.ReportMetric(median(wl), "wlprof_s")
		b.ReportMetric(median(wlCPU), "wlprof_cpu_s")
		b.ReportMetric(median(dd), "duckdb_s")
		// The whole node process, its start included: an upper bound.
		b.ReportMetric(median(ddCPU), "duckdb_process_cpu_s")
		b.ReportMetric(median(dd)/median(wl), "speedup_x")
		b.ReportMetric(float64(size)/1e6/median(wl), "wlprof_MB/s")
		b.ReportMetric(float64(wlRSS)/(1<<20), "wlprof_peak_rss_MB")
		b.ReportMetric(float64(ddRSS)/(1<<20), "duckdb_peak_rss_MB")
		b.ReportMetric(hash, "hash_s")
		b.ReportMetric(load, "load1")
		b.Logf("%d rows, %.0f MB: wlprof %.2f s (%v), DuckDB %.2f s (%v), load %.2f", benchRows(), float64(size)/1e6,
			median(wl), wl, median(dd), dd, load)
	}
}

// runProc runs cmd and returns its wall and CPU seconds, its peak RSS in
// bytes (getrusage) and its standard output.
func runProc(b *testing.B, cmd *exec.Cmd) (wall, cpu float64, rss int64, out []byte) {
	b.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	wall = time.Since(start).Seconds()
	if err != nil {
		b.Fatalf("%v: %v\n%s", cmd.Args, err, stderr.String())
	}
	ps := cmd.ProcessState
	return wall, (ps.UserTime() + ps.SystemTime()).Seconds(), ps.SysUsage().(*syscall.Rusage).Maxrss * 1024, out
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// loadAverage is the machine's one-minute load average (0 where
// /proc/loadavg cannot be read).
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}
