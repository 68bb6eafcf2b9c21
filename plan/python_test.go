package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"reflect"
	"testing"
	"time"
)

// pyResult is scripts/lowcost.py's answer.
type pyResult struct {
	LCMSteps   int      `json:"lcm_steps"`
	Footprint  int64    `json:"footprint"`
	Naive      int64    `json:"naive"`
	LowerBound int64    `json:"lower_bound"`
	Seconds    float64  `json:"seconds"`
	NotPlanned []string `json:"not_planned"`
	Units      []struct {
		Job        string  `json:"job"`
		Instance   *int    `json:"instance"`
		Offset     int     `json:"offset"`
		Allocation []int64 `json:"allocation"`
		Naive      bool    `json:"naive"`
	} `json:"units"`
}

// lowcostPy runs the Python implementation (Debian's python3 with numpy,
// which make test installs) on jobs.
func lowcostPy(t testing.TB, jobs []Job, o PackOptions) pyResult {
	t.Helper()
	type pj struct {
		ID        string  `json:"id"`
		PeriodS   float64 `json:"period_s"`
		ArrivalS  float64 `json:"arrival_s"`
		DeadlineS float64 `json:"deadline_s"`
		PhaseS    float64 `json:"phase_s"`
		Skyline   []int64 `json:"skyline"`
	}
	in := struct {
		StepS     float64 `json:"step_s"`
		LCMCapS   float64 `json:"lcm_cap_s"`
		EndPoints int     `json:"end_points"`
		Jobs      []pj    `json:"jobs"`
	}{o.StepS, o.LCMCapS, o.EndPoints, nil}
	for _, j := range jobs {
		in.Jobs = append(in.Jobs, pj{j.ID, j.PeriodS, j.ArrivalS, j.DeadlineS, j.PhaseS, j.Skyline})
	}
	b, _ := json.Marshal(in)
	cmd := exec.Command("/usr/bin/python3", "../scripts/lowcost.py")
	cmd.Stdin = bytes.NewReader(b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/lowcost.py: %v\n%s(run scripts/deps.sh test or make test: it installs python3-numpy)", err, stderr.String())
	}
	var r pyResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// The Go packing and the straightforward Python one (a container at a
// time, written separately from plan/doc.go's rules) place every job the
// same: offsets, allocations, footprint, naive, lower bound, fallbacks.
func TestPackMatchesPython(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 6; trial++ {
		jobs := randomJobs(rng, 8+rng.IntN(12), 2+rng.IntN(30), trial%2 == 1)
		for i := range jobs {
			jobs[i].PhaseS = math.Floor(rng.Float64()*jobs[i].PeriodS/60) * 60
		}
		o := PackOptions{StepS: 60, LCMCapS: 86400, EndPoints: 8 + rng.IntN(30)}
		p, err := Pack(jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		py := lowcostPy(t, jobs, o)
		if int(math.Round(p.LCMS/60)) != py.LCMSteps || p.Footprint != py.Footprint || p.NaiveFootprint != py.Naive || p.LowerBound != py.LowerBound {
			t.Errorf("trial %d: LCM %g s footprint %d naive %d bound %d; Python: LCM %d steps, %d %d %d", trial,
				p.LCMS, p.Footprint, p.NaiveFootprint, p.LowerBound, py.LCMSteps, py.Footprint, py.Naive, py.LowerBound)
		}
		got := map[string][]any{}
		for _, pl := range p.Placements {
			key := pl.Job
			if pl.Instance != nil {
				key = fmt.Sprintf("%s#%d", pl.Job, *pl.Instance)
			}
			got[key] = []any{int(math.Round((pl.OffsetS - pl.WindowStartS) / 60)), pl.Allocation, pl.Naive}
		}
		want := map[string][]any{}
		for _, u := range py.Units {
			key := u.Job
			if u.Instance != nil {
				key = fmt.Sprintf("%s#%d", u.Job, *u.Instance)
			}
			want[key] = []any{u.Offset, u.Allocation, u.Naive}
		}
		if !reflect.DeepEqual(got, want) {
			for k := range want {
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Errorf("trial %d: %s: Go %v, Python %v", trial, k, got[k], want[k])
				}
			}
		}
	}
}

// BenchmarkPackPython times the Python/numpy baseline on the first 10
// jobs of the benchmark world (all 1,000 take it many minutes) and Go's
// Pack on the same 10, in the same run: the ratio is per job.
func BenchmarkPackPython(b *testing.B) {
	jobs := benchWorld()[:10]
	o := PackOptions{StepS: 60, LCMCapS: 86400, EndPoints: 64}
	py := lowcostPy(b, jobs, o)
	start := time.Now()
	const reps = 20
	for i := 0; i < reps; i++ {
		if _, err := Pack(jobs, o); err != nil {
			b.Fatal(err)
		}
	}
	goS := time.Since(start).Seconds() / reps
	b.ReportMetric(py.Seconds, "python-s")
	b.ReportMetric(goS, "go-s")
	b.ReportMetric(py.Seconds/goS, "python/go")
}
