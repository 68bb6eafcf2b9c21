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
		// Under a capacity: the allocation in bytes and thousandths of a
		// vcore per step.
		Memory     []int64 `json:"allocation_memory"`
		MilliCores []int64 `json:"allocation_millicores"`
	} `json:"units"`
	// Under a capacity: the peak shares, and per resource the packed,
	// naive and lower-bound peaks.
	FootprintShare  float64             `json:"footprint_share"`
	NaiveShare      float64             `json:"naive_share"`
	LowerBoundShare float64             `json:"lower_bound_share"`
	Peaks           map[string][3]int64 `json:"peaks"`
}

// lowcostPy runs the Python implementation (Debian's python3 with numpy,
// which make test installs) on jobs.
func lowcostPy(t testing.TB, jobs []Job, o PackOptions) pyResult {
	t.Helper()
	type pj struct {
		ID         string  `json:"id"`
		PeriodS    float64 `json:"period_s"`
		ArrivalS   float64 `json:"arrival_s"`
		DeadlineS  float64 `json:"deadline_s"`
		PhaseS     float64 `json:"phase_s"`
		Skyline    []int64 `json:"skyline"`
		Memory     []int64 `json:"memory_per_container,omitempty"`
		MilliCores []int64 `json:"millicores_per_container,omitempty"`
	}
	type pc struct {
		Containers  int64 `json:"containers"`
		MemoryBytes int64 `json:"memory_bytes"`
		MilliCores  int64 `json:"millicores"`
	}
	in := struct {
		StepS     float64 `json:"step_s"`
		LCMCapS   float64 `json:"lcm_cap_s"`
		EndPoints int     `json:"end_points"`
		Capacity  *pc     `json:"capacity,omitempty"`
		Jobs      []pj    `json:"jobs"`
	}{o.StepS, o.LCMCapS, o.EndPoints, nil, nil}
	if c := o.Capacity; c.Set() {
		in.Capacity = &pc{c.Containers, c.MemoryBytes, int64(math.Round(c.VCores * 1000))}
	}
	for _, j := range jobs {
		in.Jobs = append(in.Jobs, pj{j.ID, j.PeriodS, j.ArrivalS, j.DeadlineS, j.PhaseS, j.Skyline, j.MemoryPerContainer, j.MilliVCoresPerContainer})
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
// Every other world has a capacity in containers alone: the same
// packing, and the shares agree.
func TestPackMatchesPython(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 6; trial++ {
		jobs := randomJobs(rng, 8+rng.IntN(12), 2+rng.IntN(30), trial%2 == 1)
		for i := range jobs {
			jobs[i].PhaseS = math.Floor(rng.Float64()*jobs[i].PeriodS/60) * 60
		}
		o := PackOptions{StepS: 60, LCMCapS: 86400, EndPoints: 8 + rng.IntN(30)}
		if trial%2 == 1 {
			o.Capacity = Capacity{Containers: int64(97 + trial)}
		}
		p, err := Pack(jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		py := lowcostPy(t, jobs, o)
		if trial%2 == 1 && (*p.FootprintShare != py.FootprintShare || *p.NaiveFootprintShare != py.NaiveShare || *p.LowerBoundShare != py.LowerBoundShare) {
			t.Errorf("trial %d: shares %v %v %v, Python %v %v %v", trial, *p.FootprintShare, *p.NaiveFootprintShare, *p.LowerBoundShare,
				py.FootprintShare, py.NaiveShare, py.LowerBoundShare)
		}
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

// Under --capacity, the Go packing (a heap of steps by cost) and the
// Python one (a container at a time, the cost recomputed over every
// instance) agree exactly on random worlds, in both cost modes asked
// for — memory and cores, containers and memory: offsets, allocations in
// containers, bytes and vcores, fallbacks, the peak shares of the packed,
// naive and lower-bound plans, and each resource's peaks. The packed
// share and peaks are also recomputed from the placements alone. In half
// the worlds most jobs have no slack (window = skyline); the last world is
// fallbackWorld, so that the fallback to naive is compared too.
func TestPackCapacityMatchesPython(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	modes := map[string]int{}
	fallbacks := 0
	const random = 20
	for trial := 0; trial <= random; trial++ {
		jobs := randomJobs(rng, 6+rng.IntN(8), 2+rng.IntN(10), trial%4 == 3)
		for i := range jobs {
			jobs[i].PhaseS = math.Floor(rng.Float64()*jobs[i].PeriodS/60) * 60
			if trial%4 >= 2 && rng.IntN(4) > 0 {
				jobs[i].DeadlineS = jobs[i].ArrivalS + float64(len(jobs[i].Skyline))*60
			}
		}
		sizeJobs(rng, jobs)
		var c Capacity
		mode := "memory+cores"
		if trial == random {
			jobs, c = fallbackWorld()
		} else if trial%2 == 0 {
			c = Capacity{MemoryBytes: int64(16+rng.IntN(200)) << 30, VCores: float64(10+rng.IntN(100)) + 0.5}
		} else {
			mode = "containers+memory"
			c = Capacity{Containers: int64(20 + rng.IntN(200)), MemoryBytes: int64(16+rng.IntN(200))<<30 + int64(rng.IntN(1<<30))}
		}
		modes[mode]++
		o := PackOptions{StepS: 60, LCMCapS: 86400, EndPoints: 4 + rng.IntN(12), Capacity: c}
		if trial == random {
			o.EndPoints = 64
		}
		p, err := Pack(jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		py := lowcostPy(t, jobs, o)
		if int(math.Round(p.LCMS/60)) != py.LCMSteps || p.Footprint != py.Footprint || p.NaiveFootprint != py.Naive || p.LowerBound != py.LowerBound ||
			*p.FootprintShare != py.FootprintShare || *p.NaiveFootprintShare != py.NaiveShare || *p.LowerBoundShare != py.LowerBoundShare {
			t.Errorf("trial %d (%s): LCM %g s containers %d/%d/%d shares %v/%v/%v; Python: LCM %d steps, %d/%d/%d, %v/%v/%v", trial, mode,
				p.LCMS, p.Footprint, p.NaiveFootprint, p.LowerBound, *p.FootprintShare, *p.NaiveFootprintShare, *p.LowerBoundShare,
				py.LCMSteps, py.Footprint, py.Naive, py.LowerBound, py.FootprintShare, py.NaiveShare, py.LowerBoundShare)
		}
		if got, want := [3]int64{*p.FootprintMemoryBytes, *p.NaiveFootprintMemoryBytes, *p.LowerBoundMemoryBytes}, py.Peaks["memory_bytes"]; got != want {
			t.Errorf("trial %d: memory peaks %v, Python %v", trial, got, want)
		}
		if c.VCores > 0 {
			got := [3]int64{int64(math.Round(*p.FootprintVCores * 1000)), int64(math.Round(*p.NaiveFootprintVCores * 1000)), int64(math.Round(*p.LowerBoundVCores * 1000))}
			if want := py.Peaks["millicores"]; got != want {
				t.Errorf("trial %d: millicores peaks %v, Python %v", trial, got, want)
			}
		}
		share, memPeak, milliPeak := recomputeShare(t, p, c)
		if share != *p.FootprintShare || memPeak != *p.FootprintMemoryBytes || c.VCores > 0 && float64(milliPeak)/1000 != *p.FootprintVCores {
			t.Errorf("trial %d: recomputed from the placements: share %v memory %d millicores %d; Pack says %v %d %v",
				trial, share, memPeak, milliPeak, *p.FootprintShare, *p.FootprintMemoryBytes, p.FootprintVCores)
		}
		got := map[string][]any{}
		for _, pl := range p.Placements {
			key := pl.Job
			if pl.Instance != nil {
				key = fmt.Sprintf("%s#%d", pl.Job, *pl.Instance)
			}
			milli := make([]int64, len(pl.Allocation))
			if c.VCores > 0 {
				for i, v := range pl.VCores {
					milli[i] = int64(math.Round(v * 1000))
				}
			}
			got[key] = []any{int(math.Round((pl.OffsetS - pl.WindowStartS) / 60)), pl.Allocation, pl.MemoryBytes, milli, pl.Naive}
		}
		want := map[string][]any{}
		for _, u := range py.Units {
			key := u.Job
			if u.Instance != nil {
				key = fmt.Sprintf("%s#%d", u.Job, *u.Instance)
			}
			milli := u.MilliCores
			if c.VCores == 0 {
				milli = make([]int64, len(u.Allocation))
			}
			want[key] = []any{u.Offset, u.Allocation, u.Memory, milli, u.Naive}
		}
		if !reflect.DeepEqual(got, want) {
			for k := range want {
				if !reflect.DeepEqual(got[k], want[k]) {
					t.Errorf("trial %d: %s: Go %v, Python %v", trial, k, got[k], want[k])
				}
			}
		}
		fallbacks += len(p.FallbackToNaiveJobs)
		t.Logf("trial %d (%s): %d jobs, %d placements, %d fallbacks: share %.4f, naive %.4f, lower bound %.4f", trial, mode,
			len(jobs), len(p.Placements), len(p.FallbackToNaiveJobs), *p.FootprintShare, *p.NaiveFootprintShare, *p.LowerBoundShare)
	}
	t.Logf("worlds compared with scripts/lowcost.py: %v; %d fallbacks to naive among them", modes, fallbacks)
	if fallbacks == 0 {
		t.Error("no world fell back to naive: the fallback is not compared")
	}
}

// fallbackWorld makes LowCost fall back to naive under memory and cores
// (memory binds: 1 GiB and one vcore per container, 20 GiB and 100
// vcores): a holds 1 container over [0, 10) with no slack; b, 10 × 10
// containers with a window of [0, 20), is placed next and spread at 5 over
// [0, 20) (cost 6/20 beside a); c, 10 containers over [10, 20) with no
// slack, then lands on it: 15/20, above naive's 11/20 (b at its arrival
// beside a, c alone). c, the last placed at the peak, goes naive first (it
// does not move), then b.
func fallbackWorld() ([]Job, Capacity) {
	rigid := func(id string, arr, n int, v int64) Job {
		sky := make([]int64, n)
		for i := range sky {
			sky[i] = v
		}
		return Job{ID: id, PeriodS: 86400, ArrivalS: float64(arr) * 60, DeadlineS: float64(arr+n) * 60, Skyline: sky}
	}
	jobs := []Job{rigid("a", 0, 10, 1), rigid("b", 0, 10, 10), rigid("c", 10, 10, 10)}
	jobs[1].DeadlineS = 20 * 60
	for i := range jobs {
		n := len(jobs[i].Skyline)
		jobs[i].MemoryPerContainer, jobs[i].MilliVCoresPerContainer = make([]int64, n), make([]int64, n)
		for k := 0; k < n; k++ {
			jobs[i].MemoryPerContainer[k], jobs[i].MilliVCoresPerContainer[k] = 1<<30, 1000
		}
	}
	return jobs, Capacity{MemoryBytes: 20 << 30, VCores: 100}
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
