package skyline_test

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/datasettest"
	"github.com/wlprof/wlprof/skyline"
)

// loadFixture ingests a ResourceEstimator native-format fixture into a
// fresh dataset and returns its one job.
func loadFixture(t *testing.T, name string) skyline.Job {
	t.Helper()
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	res, err := ingest.Run(context.Background(), tx, "re-native", []string{filepath.Join("..", "testdata", "resourceestimator", name)}, ingest.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Rejected != 0 {
		t.Fatalf("%s: %d lines rejected", name, res.Rejected)
	}
	datasettest.Commit(t, tx)
	in, err := skyline.Load(context.Background(), ds, skyline.DefaultOptions())
	jobs := in.Jobs
	if err != nil || len(jobs) != 1 {
		t.Fatalf("%s: %d jobs, err %v; want one", name, len(jobs), err)
	}
	return jobs[0]
}

// hadoopOptions are the settings of Hadoop's TestLpSolver
// (src/test/resources/resourceestimator-config.xml): α = β = 0.1, a 5 s
// interval, at least 2 runs.
func hadoopOptions() skyline.Options {
	o := skyline.DefaultOptions()
	o.Alpha, o.Beta, o.StepS, o.MinRuns = 0.1, 0.1, 5, 2
	return o
}

var glpsolObjective = regexp.MustCompile(`(?m)^Objective:\s+\S+\s*=\s*(\S+)`)

// glpsol solves an MPS file with GLPK, an LP solver independent of CLP
// (installed by make test through scripts/deps.sh), and returns the optimum.
func glpsol(t *testing.T, mps string) float64 {
	t.Helper()
	out := filepath.Join(filepath.Dir(mps), "glpsol.txt")
	cmd := exec.Command("glpsol", "--mps", mps, "--min", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("glpsol: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	m := glpsolObjective.FindSubmatch(b)
	if m == nil {
		t.Fatalf("no objective in glpsol's report:\n%s", b)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestHadoopReference fits the two LP fixtures of Apache Hadoop's
// ResourceEstimator with its settings and checks the optimum three ways:
// the textbook model, written as MPS, solved by GLPK; the same model solved
// by CLP; and the reduced model (the default) solved by CLP. All three must
// agree to 1e-6 relative. The optimum need not be unique, so skylines are
// compared with Hadoop's own expectation only for tpch_q12 (answer.txt of
// TestLpSolver, within the 10% tolerance that test allows).
func TestHadoopReference(t *testing.T) {
	// Hadoop's src/test/resources/lp/answer.txt: the containers its LpSolver
	// (ojAlgo) reserves for tpch_q12 in each 5 s interval.
	answer := []float64{1, 1, 1738, 2535, 2484, 2478, 2468}
	for _, name := range []string{"tinySample.txt", "tpch_q12.txt"} {
		t.Run(name, func(t *testing.T) {
			job := loadFixture(t, name)
			red, err := skyline.Solve(context.Background(), job, hadoopOptions())
			if err != nil {
				t.Fatal(err)
			}
			o := hadoopOptions()
			o.Model = skyline.Textbook
			o.MPS = filepath.Join(t.TempDir(), "textbook.mps")
			txt, err := skyline.Solve(context.Background(), job, o)
			if err != nil {
				t.Fatal(err)
			}
			glpk := glpsol(t, o.MPS)
			for _, got := range []struct {
				what string
				v    float64
			}{{"reduced (CLP)", red.Objective}, {"textbook (CLP)", txt.Objective}} {
				if rel := math.Abs(got.v-glpk) / math.Abs(glpk); rel > 1e-6 {
					t.Errorf("%s objective %.10g, GLPK %.10g (relative difference %.2g)", got.what, got.v, glpk, rel)
				}
			}
			if name != "tpch_q12.txt" {
				return
			}
			for _, f := range []*skyline.Fit{red, txt} {
				if len(f.Containers) != len(answer) {
					t.Fatalf("%s: %d steps, Hadoop's answer has %d", f.Model, len(f.Containers), len(answer))
				}
				for k, want := range answer {
					if math.Abs(f.Containers[k]-want) > 0.1*want {
						t.Errorf("%s step %d: %g containers, Hadoop answers %g (±10%%)", f.Model, k, f.Containers[k], want)
					}
				}
			}
		})
	}
}

// TestLoadDuplicates: a run ingested twice counts once (with a warning);
// two different skylines under one run id (two jobs of one pipeline run, as
// Hadoop's estimator merges them) are added as step functions.
func TestLoadDuplicates(t *testing.T) {
	dir := t.TempDir()
	two := filepath.Join(dir, "two.txt")
	// r1 twice with different change points: 2 on [0,5), then 3 on [5,10)
	// from the second line → 2 on [0,5), 3 on [5,10).
	if err := os.WriteFile(two, []byte("p 1 0 0 10000 r1 0:0| 2:0|\np 1 0 0 10000 r1 0:0| 3:5|\np 1 0 0 10000 r2 0:0| 1:0|\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := dataset.OpenOrCreate(filepath.Join(dir, "ds"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the second ingest duplicates r2 (and r1's pair)
		tx, err := ds.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.Run(context.Background(), tx, "re-native", []string{two}, ingest.DefaultOptions()); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	in, err := skyline.Load(context.Background(), ds, skyline.DefaultOptions())
	jobs := in.Jobs
	if err != nil || len(jobs) != 1 || len(jobs[0].Runs) != 2 {
		t.Fatalf("jobs %+v, err %v", jobs, err)
	}
	c, err := skyline.Quantise(jobs[0].Runs, 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]float64{{2, 3}, {1, 0}}; !reflect.DeepEqual(c, want) {
		t.Errorf("quantised %v, want %v", c, want)
	}
	if w := strings.Join(jobs[0].Warnings, "; "); !strings.Contains(w, "run r1: 2 different skylines") || !strings.Contains(w, "run r2: ingested 2 times") {
		t.Errorf("warnings %q", w)
	}
}

// The provisioning ratio compares the reservation with what the runs used,
// not with their quantised per-step maxima. The oracle walks each run
// second by second (the fixture samples every 5 s from 0, so every second
// lies inside one sample's interval) and adds the containers held then;
// at a 1-minute step the quantised "used" area is close to the
// reservation (ratio ≈ 1.0 before this was fixed) while the runs, 35 s
// each, used about a third of it.
func TestProvisioningRatioFromRawSamples(t *testing.T) {
	job := loadFixture(t, "tpch_q12.txt")
	opts := skyline.DefaultOptions()
	opts.StepS = 60
	f, err := skyline.Solve(context.Background(), job, opts)
	if err != nil {
		t.Fatal(err)
	}
	reserved := 0.0
	for _, r := range f.Reservation {
		reserved += float64(r) * opts.StepS
	}
	sum := 0.0
	for i, r := range job.Runs {
		held := map[int]float64{} // second → containers
		end := 0
		for _, s := range r.Samples {
			held[int(s.OffsetS)] += s.Containers
			end = max(end, int(s.OffsetS))
		}
		used, cur := 0.0, 0.0
		for sec := 0; sec < end; sec++ {
			if v, ok := held[sec]; ok {
				cur = v
			}
			used += cur
		}
		if got := f.PerRun[i].UsedAreaContainerS; math.Abs(got-used) > 1e-6*used {
			t.Errorf("run %s: used area %g container·s, second by second %g", r.ID, got, used)
		}
		want := reserved / used
		if got := f.PerRun[i].ProvisioningRatio; math.Abs(got-want) > 1e-9*want {
			t.Errorf("run %s: provisioning ratio %g, want %g", r.ID, got, want)
		}
		sum += want
	}
	if mean := sum / float64(len(job.Runs)); math.Abs(f.ProvisioningRatio-mean) > 1e-9*mean || mean < 2 {
		t.Errorf("provisioning ratio %g, want the mean over runs %g (about 2.7)", f.ProvisioningRatio, mean)
	}
	t.Logf("tpch_q12 at a 1-minute step: reserved/used %.3f; warnings %q", f.ProvisioningRatio, f.Warnings)
	found := false
	for _, w := range f.Warnings {
		found = found || strings.Contains(w, "13 of 13 runs last less than the 1m step")
	}
	if !found {
		t.Errorf("no warning for runs shorter than the step? warnings: %q", f.Warnings)
	}
}
