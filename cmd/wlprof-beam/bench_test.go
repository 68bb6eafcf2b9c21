package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkClassifyVsCore is issue 21's speed bar: wlprof-beam classify on
// Prism against wlprof ingest + wlprof classify -o json on the same
// synthetic world (WLPROF_BEAM_WORLD_TENANTS × _DAYS; default 1,000
// tenants × 14 days here, the bar's 10,000 with the variable), end to
// end, in the same run. Each iteration times the core once and Beam on 1,
// 4 and 16 shards, one after the other, so that a change of load hits
// both; the shards are written before the timer starts, and every Beam
// document is checked against the core's. Reported: seconds of each and
// Beam's ratio to the core (the bar: ≤ 3), and the process's peak RSS
// (Prism runs in process, so it holds both).
func BenchmarkClassifyVsCore(b *testing.B) {
	if os.Getenv("WLPROF_BEAM_WORLD_TENANTS") == "" {
		os.Setenv("WLPROF_BEAM_WORLD_TENANTS", "1000")
		defer os.Unsetenv("WLPROF_BEAM_WORLD_TENANTS")
	}
	if os.Getenv("WLPROF_BEAM_WORLD_DAYS") == "" {
		os.Setenv("WLPROF_BEAM_WORLD_DAYS", "14")
		defer os.Unsetenv("WLPROF_BEAM_WORLD_DAYS")
	}
	path := world(b)
	shardCounts := []int{1, 4, 16}
	globs := map[int]string{}
	for _, n := range shardCounts {
		globs[n] = shard(b, path, n, "")
	}
	b.ResetTimer()
	sums := map[string]time.Duration{}
	for i := 0; i < b.N; i++ {
		start := time.Now()
		want, _ := coreClassify(b, "csv", []string{path})
		core := time.Since(start)
		sums["core"] += core
		for _, n := range shardCounts {
			start := time.Now()
			code, _, got, _ := beamClassify(b, "csv", "--input", globs[n])
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
	b.Log(fmt.Sprintf("world: %s tenants × %s days", os.Getenv("WLPROF_BEAM_WORLD_TENANTS"), os.Getenv("WLPROF_BEAM_WORLD_DAYS")))
}
