package slo_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/slo"
)

// buildWorld writes a world's audit log, ingests it (hdfs-audit, in the
// log's local time zone) with its runs into a fresh dataset, and returns
// the dataset.
func buildWorld(t testing.TB, seed uint64, groups, days int, nz noise) (*world, *dataset.Dataset) {
	t.Helper()
	dir := t.TempDir()
	loc, err := time.LoadLocation("Asia/Kolkata") // +05:30, no DST: the --tz path with a half-hour offset
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "hdfs-audit.log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	w := genWorld(seed, groups, days, nz, loc, f)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	ds, tx := datasettest.Begin(t, filepath.Join(dir, "ds"))
	opts := ingest.DefaultOptions()
	opts.Location = loc
	res, err := ingest.Run(context.Background(), tx, "hdfs-audit", []string{logPath}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rejected != 0 || res.Accepted != w.lines {
		t.Fatalf("ingest: %d accepted, %d rejected; the world wrote %d lines", res.Accepted, res.Rejected, w.lines)
	}
	datasettest.Append(t, tx.Runs(), w.runs)
	datasettest.Commit(t, tx)
	return w, ds
}

func inferDataset(t testing.TB, ds *dataset.Dataset, opts slo.Options) *slo.Result {
	t.Helper()
	ctx := context.Background()
	runs, err := dataset.ReadAll(ctx, ds, dataset.RunsTable)
	if err != nil {
		t.Fatal(err)
	}
	res, err := slo.Run(ctx, slo.Input{Runs: runs, Provenance: func(fn func(*dataset.Provenance) error) error {
		return dataset.Scan(ctx, ds, dataset.ProvenanceTable, fn)
	}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// score compares inferred SLOs with the truth.
type score struct {
	jobs, truePos, falsePos, falseNeg, within int
	worstArrS, worstDlS                       float64
	misses                                    []string
}

func (s score) precision() float64 {
	return float64(s.truePos) / math.Max(1, float64(s.truePos+s.falsePos))
}
func (s score) recall() float64 {
	return float64(s.truePos) / math.Max(1, float64(s.truePos+s.falseNeg))
}
func (s score) withinFrac() float64 { return float64(s.within) / math.Max(1, float64(s.truePos)) }

func scoreWorld(t testing.TB, w *world, res *slo.Result) score {
	var s score
	seen := map[string]bool{}
	for _, j := range res.Jobs {
		tr, ok := w.truth[j.Job]
		if !ok {
			t.Errorf("inferred job %q is not in the world (normalisation?)", j.Job)
			continue
		}
		seen[j.Job] = true
		s.jobs++
		switch {
		case j.Actionable && tr.actionable:
			s.truePos++
			da := math.Abs(*j.ArrivalS - tr.arrivalS)
			dd := math.Abs(*j.DeadlineS - tr.deadlineS)
			s.worstArrS, s.worstDlS = math.Max(s.worstArrS, da), math.Max(s.worstDlS, dd)
			if da <= 60 && dd <= 60 {
				s.within++
			} else {
				s.misses = append(s.misses, fmt.Sprintf("%s (%s): arrival %.0f vs %.0f, deadline %.0f vs %.0f", j.Job, tr.class, *j.ArrivalS, tr.arrivalS, *j.DeadlineS, tr.deadlineS))
			}
		case j.Actionable:
			s.falsePos++
			s.misses = append(s.misses, fmt.Sprintf("%s (%s): inferred actionable", j.Job, tr.class))
		case tr.actionable:
			s.falseNeg++
			s.misses = append(s.misses, fmt.Sprintf("%s (%s): not actionable: %s", j.Job, tr.class, j.Reason))
		}
	}
	for name := range w.truth {
		if !seen[name] {
			t.Errorf("world job %q was not inferred", name)
		}
	}
	return s
}

// TestWorldAccuracy is the quality bar: at every noise level, at
// least 95% of actionable jobs within one minute of the true arrival and
// deadline, and actionable precision and recall of at least 0.95.
// WLPROF_SLO_WORLD_TABLE=1 prints the table for the report;
// WLPROF_SLO_WORLD_SEEDS=N runs N seeds per level (default 2).
func TestWorldAccuracy(t *testing.T) {
	groups, days := 42, 10
	if testing.Short() {
		groups, days = 21, 7
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-9s %5s %5s %6s %9s %6s %8s %13s %13s\n", "noise", "seed", "jobs", "actual", "precision", "recall", "within1m", "worst_arr_s", "worst_dl_s")
	for _, nz := range noiseLevels {
		for seed := uint64(1); seed <= uint64(max(2, envInt("WLPROF_SLO_WORLD_SEEDS", 2))); seed++ {
			w, ds := buildWorld(t, seed, groups, days, nz)
			res := inferDataset(t, ds, slo.DefaultOptions())
			s := scoreWorld(t, w, res)
			fmt.Fprintf(&table, "%-9s %5d %5d %6d %9.3f %6.3f %8.3f %13.1f %13.1f\n", nz.Name, seed, s.jobs, s.truePos+s.falseNeg,
				s.precision(), s.recall(), s.withinFrac(), s.worstArrS, s.worstDlS)
			if len(s.misses) > 0 {
				t.Logf("noise %s seed %d misses:\n  %s", nz.Name, seed, strings.Join(s.misses, "\n  "))
			}
			if !nz.Reported && (s.precision() < 0.95 || s.recall() < 0.95 || s.withinFrac() < 0.95) {
				t.Errorf("noise %s seed %d: precision %.3f recall %.3f within one minute %.3f; misses:\n  %s",
					nz.Name, seed, s.precision(), s.recall(), s.withinFrac(), strings.Join(s.misses, "\n  "))
			}
		}
	}
	if os.Getenv("WLPROF_SLO_WORLD_TABLE") != "" {
		fmt.Print(table.String())
	}
}
