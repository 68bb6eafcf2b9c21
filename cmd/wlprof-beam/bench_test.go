package main

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/internal/synth"
)

// BenchmarkClassifyVsCore is wlprof-beam's speed bar: wlprof-beam classify on
// Prism against wlprof ingest + wlprof classify -o json on the same
// synthetic world, end to end, in the same run. Each iteration times the
// core once and Beam on each shard count (WLPROF_BEAM_BENCH_SHARDS, default
// "1,4,16"), one after the other, so that a change of load hits both; the
// shards are written before the timer starts, and every Beam document is
// checked against the core's. Reported: seconds of each and Beam's ratio
// to the core (the bar: ≤ 3), and the process's peak RSS (Prism runs in
// process, so it holds both).
//
// The world: WLPROF_BEAM_WORLD_TENANTS × _DAYS of the tests' world
// (1–3 servers; default 1,000 tenants × 14 days here), or with
// WLPROF_BEAM_BENCH_WORLD=10k the classify benchmark's (classify/bench_test.go:
// 10,000 tenants × 30 days at 2 minutes, one server each, 216 M samples,
// about 7 GB of CSV, kept under the temporary directory for later runs;
// WLPROF_BEAM_BENCH_DAYS shortens it). The 30-day world needs about 12 GB
// (measured: peak RSS 11.1 GB with the core's run and 1 and 16 shards;
// before Partials crossed the stages in binary form, the kernel killed the
// process at 24 GB). Quiet-machine results are in docs/benchmarks/wlprof-beam.md.
func BenchmarkClassifyVsCore(b *testing.B) {
	var path string
	if os.Getenv("WLPROF_BEAM_BENCH_WORLD") == "10k" {
		path = bigWorld(b)
	} else {
		if os.Getenv("WLPROF_BEAM_WORLD_TENANTS") == "" {
			os.Setenv("WLPROF_BEAM_WORLD_TENANTS", "1000")
			defer os.Unsetenv("WLPROF_BEAM_WORLD_TENANTS")
		}
		if os.Getenv("WLPROF_BEAM_WORLD_DAYS") == "" {
			os.Setenv("WLPROF_BEAM_WORLD_DAYS", "14")
			defer os.Unsetenv("WLPROF_BEAM_WORLD_DAYS")
		}
		path = world(b)
	}
	shardCounts := []int{1, 4, 16}
	if v := os.Getenv("WLPROF_BEAM_BENCH_SHARDS"); v != "" {
		shardCounts = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("WLPROF_BEAM_BENCH_SHARDS=%q: want shard counts like 1,4,16", v)
			}
			shardCounts = append(shardCounts, n)
		}
	}
	globs := map[int]string{}
	for _, n := range shardCounts {
		if n == 1 {
			globs[n] = path // the world's own file
			continue
		}
		globs[n] = shard(b, path, n, "")
	}
	b.ResetTimer()
	sums := map[string]time.Duration{}
	for i := 0; i < b.N; i++ {
		start := time.Now()
		want, _ := coreDoc(b, classify.Contract, "csv", []string{path}, classify.DefaultOptions())
		core := time.Since(start)
		sums["core"] += core
		for _, n := range shardCounts {
			start := time.Now()
			code, _, got, _ := beamDoc(b, "classify", classifyJSON, "csv", "--input", globs[n])
			d := time.Since(start)
			if code != exitOK || !bytes.Equal(got, want) {
				b.Fatalf("%d shards: exit %d, or a document that is not wlprof classify's:\n%s", n, code, firstDiff(got, want))
			}
			sums["beam-"+strconv.Itoa(n)] += d
			b.Logf("iteration %d: core %.2fs, beam on %d shards %.2fs (%.2f×)", i, core.Seconds(), n, d.Seconds(), d.Seconds()/core.Seconds())
		}
	}
	b.StopTimer()
	for k, d := range sums {
		b.ReportMetric(d.Seconds()/float64(b.N), k+"_s")
		if k != "core" {
			b.ReportMetric(d.Seconds()/sums["core"].Seconds(), k+"_vs_core")
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak_rss_MiB")
	}
	b.Logf("world: %s", path)
}

// bigWorld is the classify benchmark's world (classify/bench_test.go), written
// once under the temporary directory.
func bigWorld(b testing.TB) string {
	days := 30.0
	if d, err := strconv.ParseFloat(os.Getenv("WLPROF_BEAM_BENCH_DAYS"), 64); err == nil && d > 0 {
		days = d
	}
	dir := filepath.Join(os.TempDir(), "wlprof-beam-bench-10000x"+strconv.FormatFloat(days, 'g', -1, 64))
	path := filepath.Join(dir, "usage.csv")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	o := synth.Default()
	o.Tenants, o.Days, o.MinServers, o.MaxServers, o.Compact, o.Seed = 10_000, days, 1, 1, true, 5
	if _, _, err := synth.Generate(w, o); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}
