package ingest_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/k8sworld"
)

// BenchmarkPrometheusMonth ingests a month of a thousand containers at one
// minute (k8sworld.Month: 960 long-running containers and 10 hourly
// CronJobs of 4 pods) through a real Prometheus server's API on 127.0.0.1,
// saving the responses, and then the same responses from the file, in the
// same run: api and file are one iteration each (make bench runs
// -benchtime 1x). The backfill (promtool, a day at a time) is outside the
// timings. WLPROF_K8S_BENCH_DAYS shortens the month.
func BenchmarkPrometheusMonth(b *testing.B) {
	cfg := k8sworld.Month()
	if d, err := strconv.Atoi(os.Getenv("WLPROF_K8S_BENCH_DAYS")); err == nil && d > 0 {
		cfg.Duration = time.Duration(d) * 24 * time.Hour
	}
	setup := time.Now()
	pw := startPromWorld(b, cfg)
	b.Logf("backfill and start: %v (%d containers, %v at %v)", time.Since(setup).Round(time.Second), cfg.Containers(), cfg.Duration, cfg.Scrape)
	ctx := context.Background()
	capture := filepath.Join(pw.dir, "capture.jsonl")
	var apiRows int64
	b.Run("api", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			res, _, err := ingest.Into(ctx, filepath.Join(pw.dir, "api"+strconv.Itoa(i)), "prometheus", nil, pw.options(capture))
			if err != nil {
				b.Fatal(err)
			}
			apiRows = res.Accepted
			b.ReportMetric(float64(res.Accepted), "rows")
		}
	})
	st, err := os.Stat(capture)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("file", func(b *testing.B) {
		b.SetBytes(st.Size())
		for i := 0; i < b.N; i++ {
			res, _, err := ingest.Into(ctx, filepath.Join(pw.dir, "file"+strconv.Itoa(i)), "prometheus-json", []string{capture}, ingest.DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			if res.Accepted != apiRows {
				b.Fatalf("file: %d rows, API %d", res.Accepted, apiRows)
			}
			b.ReportMetric(float64(res.Accepted), "rows")
		}
	})
}
