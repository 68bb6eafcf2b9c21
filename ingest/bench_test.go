package ingest

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
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
