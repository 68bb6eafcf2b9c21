package plan

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/internal/stage/stagetest"
)

func TestParseCapacity(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Capacity
	}{
		{"", Capacity{}},
		{"containers=500", Capacity{Containers: 500}},
		{" memory=2T , cores=4000.5 ", Capacity{MemoryBytes: 2 << 40, VCores: 4000.5}},
		{"Containers=10,MEMORY=512G,vcores=8", Capacity{Containers: 10, MemoryBytes: 512 << 30, VCores: 8}},
	} {
		got, err := ParseCapacity(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseCapacity(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	if s := (Capacity{Containers: 10, MemoryBytes: 512 << 30, VCores: 8.25}).String(); s != "containers=10,memory=512G,cores=8.25" {
		t.Errorf("String: %q", s)
	}
	// Every problem at once, each named.
	_, err := ParseCapacity("disk=1T,containers=0,memory=-2G,cores=x,containers=3,memory")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`unknown resource "disk"`, `containers="0": want a whole number > 0`, `size "-2G"`,
		`cores="x"`, "containers given twice", `"memory": want resource=amount`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := ParseCapacity("memory=1G,memory=2G"); err == nil || !strings.Contains(err.Error(), "memory given twice") {
		t.Errorf("memory twice: %v", err)
	}
	if _, err := ParseCapacity("vcores=0.0004"); err == nil || !strings.Contains(err.Error(), "at least a thousandth of a vcore") {
		t.Errorf("0.0004 vcores: %v", err)
	}
}

// The stage's options report a bad capacity beside the other problems.
func TestOptionsValidateCapacity(t *testing.T) {
	o := DefaultOptions()
	o.Holdout = 2
	o.Capacity = Capacity{Containers: -1, VCores: math.Inf(1)}
	err := o.Validate()
	for _, want := range []string{"holdout 2", "containers -1", "cores +Inf"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v; want it to say %q", err, want)
		}
	}
	if _, err := stagetest.Parse(Contract, "--capacity", "cores=12,nope=1"); err == nil || err.Error() != `invalid argument "cores=12,nope=1" for "--capacity" flag: unknown resource "nope" (want containers, memory or cores)` {
		t.Errorf("--capacity cores=12,nope=1: %v", err)
	}
	if o, err := stagetest.Parse(Contract, "--capacity", "cores=12"); err != nil || o.Capacity != (Capacity{VCores: 12}) {
		t.Errorf("--capacity cores=12: %v, %+v", err, o.Capacity)
	}
	if _, err := Pack(nil, PackOptions{StepS: 60, LCMCapS: 3600, Capacity: Capacity{MemoryBytes: -1}}); err == nil || !strings.Contains(err.Error(), "memory -1 bytes") {
		t.Errorf("Pack with a bad capacity: %v", err)
	}
}

// Three jobs every 10 minutes (an LCM of 10 one-minute steps): a holds 8
// containers of 16 GiB over minutes 0–5 and b 8 of 256 MiB over 5–10,
// neither with slack; c, 4 × 5 containers of 16 GiB, may run anywhere
// from minute 5 to the next 5. In containers both halves weigh 8, so
// LowCost spreads c over both (2 a step, 10 containers everywhere, and
// 8 + 2 containers of 16 GiB, 160 GiB, beside a). Under a memory capacity
// b's half holds 2 GiB and a's 128 GiB: c stays beside b (4 a step, 66
// GiB) and the memory peak is a's own 128 GiB, the lower bound — at the
// price of 12 containers beside b.
func TestPackCapacityMemorySeparatesBigContainers(t *testing.T) {
	job := func(id string, arr, win int, v, mem int64) Job {
		sky, m := make([]int64, 5), make([]int64, 5)
		for i := range sky {
			sky[i], m[i] = v, mem
		}
		return Job{ID: id, PeriodS: 600, ArrivalS: float64(arr * 60), DeadlineS: float64((arr + win) * 60), Skyline: sky, MemoryPerContainer: m}
	}
	jobs := []Job{job("a", 0, 5, 8, 16<<30), job("b", 5, 5, 8, 256<<20), job("c", 5, 10, 4, 16<<30)}
	alloc := func(p *Packing, id string) (float64, []int64, []int64) {
		for _, pl := range p.Placements {
			if pl.Job == id {
				return pl.OffsetS, pl.Allocation, pl.MemoryBytes
			}
		}
		t.Fatalf("%s not placed", id)
		return 0, nil, nil
	}
	def, err := Pack(jobs, PackOptions{StepS: 60, LCMCapS: 86400})
	if err != nil {
		t.Fatal(err)
	}
	if off, a, _ := alloc(def, "c"); off != 300 || !reflect.DeepEqual(a, []int64{2, 2, 2, 2, 2, 2, 2, 2, 2, 2}) || def.Footprint != 10 {
		t.Errorf("containers: c at %g s %v, footprint %d; want 2 a step over the whole period, 10", off, a, def.Footprint)
	}
	p, err := Pack(jobs, PackOptions{StepS: 60, LCMCapS: 86400, Capacity: Capacity{MemoryBytes: 1 << 40}})
	if err != nil {
		t.Fatal(err)
	}
	off, a, mem := alloc(p, "c")
	if off != 300 || !reflect.DeepEqual(a, []int64{4, 4, 4, 4, 4}) || !reflect.DeepEqual(mem, []int64{64 << 30, 64 << 30, 64 << 30, 64 << 30, 64 << 30}) {
		t.Errorf("memory: c at %g s %v (%v bytes); want 4 a step beside b", off, a, mem)
	}
	if *p.FootprintMemoryBytes != 128<<30 || *p.FootprintShare != 0.125 || *p.LowerBoundShare != 0.125 || p.Footprint != 12 {
		t.Errorf("memory: peak %d bytes, share %v, lower bound %v, %d containers; want 128 GiB, 1/8, 1/8, 12",
			*p.FootprintMemoryBytes, *p.FootprintShare, *p.LowerBoundShare, p.Footprint)
	}
	// The containers plan, had it been costed in memory: 160 GiB beside a.
	if share, memPeak, _ := recomputeShareOf(t, def, jobs, Capacity{MemoryBytes: 1 << 40}); memPeak != 160<<30 || share <= *p.FootprintShare {
		t.Errorf("the containers plan in memory: %d bytes, share %v", memPeak, share)
	}
}

// recomputeShareOf is recomputeShare for a plan packed without sizes:
// every job here has one container size, which gives the placements'
// memory and vcores.
func recomputeShareOf(t *testing.T, p *Packing, jobs []Job, c Capacity) (float64, int64, int64) {
	q := *p
	q.Placements = append([]Placement(nil), p.Placements...)
	for i, pl := range q.Placements {
		for _, j := range jobs {
			if j.ID != pl.Job {
				continue
			}
			q.Placements[i].MemoryBytes, q.Placements[i].VCores = make([]int64, len(pl.Allocation)), make([]float64, len(pl.Allocation))
			for s, v := range pl.Allocation {
				if j.MemoryPerContainer != nil {
					q.Placements[i].MemoryBytes[s] = v * j.MemoryPerContainer[0]
				}
				if j.MilliVCoresPerContainer != nil {
					q.Placements[i].VCores[s] = float64(v*j.MilliVCoresPerContainer[0]) / 1000
				}
			}
		}
	}
	return recomputeShare(t, &q, c)
}

// The packing's invariants under a capacity, from the published
// placements: every instance inside its window, contiguous, carrying its
// skyline's area in containers, bytes and vcores (a stretched stage keeps
// its containers' size); the peak share and peaks recomputed from the
// placements; lower bound ≤ footprint ≤ naive in shares (the fallback
// compares shares), and each resource's peak at least its lower bound.
func TestPackCapacityInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := 0; trial < 30; trial++ {
		jobs := randomJobs(rng, 5+rng.IntN(30), 1+rng.IntN(60), trial%3 == 0)
		for i := range jobs {
			if trial%2 == 1 && rng.IntN(3) == 0 {
				jobs[i].DeadlineS = jobs[i].ArrivalS + float64(len(jobs[i].Skyline))*60
			}
		}
		sizeJobs(rng, jobs)
		c := []Capacity{{MemoryBytes: int64(8+rng.IntN(500)) << 30, VCores: float64(4 + rng.IntN(300))},
			{Containers: int64(10 + rng.IntN(300)), MemoryBytes: int64(8+rng.IntN(500)) << 30},
			{VCores: 0.5 + float64(rng.IntN(100))}}[trial%3]
		p, err := Pack(jobs, PackOptions{StepS: 60, LCMCapS: 86400, EndPoints: 16, Capacity: c})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[string]*Job{}
		for i := range jobs {
			byID[jobs[i].ID] = &jobs[i]
		}
		for _, pl := range p.Placements {
			j := byID[pl.Job]
			var want, got [3]int64
			for k, v := range j.Skyline {
				want[0] += v
				if j.MemoryPerContainer != nil {
					want[1] += v * j.MemoryPerContainer[k]
				}
				if j.MilliVCoresPerContainer != nil {
					want[2] += v * j.MilliVCoresPerContainer[k]
				}
			}
			for s, v := range pl.Allocation {
				if v <= 0 {
					t.Fatalf("trial %d: %s: a hole at step %d of %v", trial, pl.Job, s, pl.Allocation)
				}
				got[0] += v
				if c.MemoryBytes > 0 {
					got[1] += pl.MemoryBytes[s]
				}
				if c.VCores > 0 {
					got[2] += int64(math.Round(pl.VCores[s] * 1000))
				}
			}
			if c.MemoryBytes == 0 {
				want[1] = 0
			}
			if c.VCores == 0 {
				want[2] = 0
			}
			if got != want {
				t.Errorf("trial %d: %s: area %v (containers, bytes, millicores), skyline %v", trial, pl.Job, got, want)
			}
			if pl.OffsetS < pl.WindowStartS || pl.OffsetS+float64(len(pl.Allocation))*60 > pl.WindowEndS+1e-9 {
				t.Errorf("trial %d: %s: allocation [%g, %g) outside window [%g, %g]", trial, pl.Job, pl.OffsetS,
					pl.OffsetS+float64(len(pl.Allocation))*60, pl.WindowStartS, pl.WindowEndS)
			}
		}
		share, memPeak, milliPeak := recomputeShare(t, p, c)
		if share != *p.FootprintShare {
			t.Errorf("trial %d: share %v, recomputed from the placements %v", trial, *p.FootprintShare, share)
		}
		if !(*p.LowerBoundShare <= *p.FootprintShare && *p.FootprintShare <= *p.NaiveFootprintShare) {
			t.Errorf("trial %d: shares: lower bound %v, footprint %v, naive %v", trial, *p.LowerBoundShare, *p.FootprintShare, *p.NaiveFootprintShare)
		}
		if c.MemoryBytes > 0 && (memPeak != *p.FootprintMemoryBytes || memPeak < *p.LowerBoundMemoryBytes || *p.NaiveFootprintMemoryBytes < *p.LowerBoundMemoryBytes) {
			t.Errorf("trial %d: memory peak %d (recomputed %d), naive %d, lower bound %d", trial, *p.FootprintMemoryBytes, memPeak,
				*p.NaiveFootprintMemoryBytes, *p.LowerBoundMemoryBytes)
		}
		if c.VCores > 0 && (float64(milliPeak)/1000 != *p.FootprintVCores || *p.FootprintVCores < *p.LowerBoundVCores) {
			t.Errorf("trial %d: vcores peak %v (recomputed %d thousandths), lower bound %v", trial, *p.FootprintVCores, milliPeak, *p.LowerBoundVCores)
		}
		if c.MemoryBytes == 0 && (p.FootprintMemoryBytes != nil || p.Placements[0].MemoryBytes != nil) {
			t.Errorf("trial %d: memory reported though the capacity does not name it", trial)
		}
	}
}

// A capacity in containers alone orders every choice as the load does:
// the packing is the default one, with its footprints over the capacity.
func TestPackContainersCapacityIsDefault(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 10; trial++ {
		jobs := randomJobs(rng, 5+rng.IntN(30), 1+rng.IntN(60), trial%3 == 0)
		o := PackOptions{StepS: 60, LCMCapS: 86400, EndPoints: 16}
		def, err := Pack(jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		o.Capacity = Capacity{Containers: 333}
		p, err := Pack(jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p.Placements, def.Placements) || *p.FootprintShare != float64(def.Footprint)/333 ||
			*p.NaiveFootprintShare != float64(def.NaiveFootprint)/333 || *p.LowerBoundShare != float64(def.LowerBound)/333 {
			t.Errorf("trial %d: containers=333 packs otherwise, or its shares (%v %v %v) are not the footprints (%d %d %d) / 333",
				trial, *p.FootprintShare, *p.NaiveFootprintShare, *p.LowerBoundShare, def.Footprint, def.NaiveFootprint, def.LowerBound)
		}
	}
}

// Container sizes under a capacity: a job whose sizes do not match its
// skyline is not planned (without a capacity they are not read); a job
// with no memory is warned about.
func TestPackCapacityBadSizes(t *testing.T) {
	jobs := []Job{
		{ID: "short", PeriodS: 3600, DeadlineS: 600, Skyline: []int64{1, 2}, MemoryPerContainer: []int64{1 << 30}},
		{ID: "negative", PeriodS: 3600, DeadlineS: 600, Skyline: []int64{1, 2}, MilliVCoresPerContainer: []int64{1000, -1}},
		{ID: "unknown", PeriodS: 3600, DeadlineS: 600, Skyline: []int64{1, 2}},
	}
	p, err := Pack(jobs, PackOptions{StepS: 60, LCMCapS: 86400})
	if err != nil || len(p.Placements) != 3 {
		t.Fatalf("without a capacity: %v, %d placements", err, len(p.Placements))
	}
	p, err = Pack(jobs, PackOptions{StepS: 60, LCMCapS: 86400, Capacity: Capacity{MemoryBytes: 1 << 40, VCores: 10}})
	if err != nil || len(p.Placements) != 1 || len(p.NotPlanned) != 2 {
		t.Fatalf("%v: placements %+v, not planned %+v", err, p.Placements, p.NotPlanned)
	}
	if !strings.Contains(p.NotPlanned[0].Reason, "negative") || !strings.Contains(p.NotPlanned[1].Reason, "1 steps of memory per container for a skyline of 2") {
		t.Errorf("reasons: %+v", p.NotPlanned)
	}
	if w := strings.Join(p.Warnings, "\n"); !strings.Contains(w, "job unknown: the size of its containers in memory is unknown") ||
		!strings.Contains(w, "job unknown: the size of its containers in vcores is unknown") {
		t.Errorf("warnings: %q", w)
	}
}

// stepSizes: per step, the largest size per container of the samples in
// force during it (as Quantise takes the maximum), the job's largest
// where no sample says, 0 when nothing says.
func TestStepSizes(t *testing.T) {
	runs := [][]SizeSample{
		{ // 5 s steps: 2 × 2 GiB (1.5 vcores each) over [0, 5), 4 × 1 GiB over [5, 12), then nothing
			{OffsetS: 0, Containers: 2, MemoryBytes: 4 << 30, VCores: 3},
			{OffsetS: 5, Containers: 4, MemoryBytes: 4 << 30},
			{OffsetS: 12, Containers: 0},
		},
		{ // in any order: 3 GiB over [3, 6) (steps 0 and 1), 1 GiB over [6, 8) (step 1);
			// 10 GiB past the skyline's end, which counts only in the job's largest
			{OffsetS: 6, Containers: 1, MemoryBytes: 1 << 30, VCores: 0.5},
			{OffsetS: 3, Containers: 1, MemoryBytes: 3 << 30, VCores: 1.0001},
			{OffsetS: 30, Containers: 9, MemoryBytes: 90 << 30},
			{OffsetS: 8, Containers: 0},
		},
	}
	mem, milli := stepSizes(runs, 4, 5)
	// Step 3 ([15, 20)) has no sample in force: the job's largest, and so
	// has step 2 for vcores.
	if want := []int64{3 << 30, 3 << 30, 1 << 30, 10 << 30}; !reflect.DeepEqual(mem, want) {
		t.Errorf("memory %v, want %v", mem, want)
	}
	if want := []int64{1500, 1001, 1500, 1500}; !reflect.DeepEqual(milli, want) {
		t.Errorf("millicores %v, want %v", milli, want)
	}
	mem, milli = stepSizes([][]SizeSample{{{OffsetS: 0, Containers: 3}}}, 2, 5)
	if !reflect.DeepEqual(mem, []int64{0, 0}) || !reflect.DeepEqual(milli, []int64{0, 0}) {
		t.Errorf("nothing known: %v %v", mem, milli)
	}
}

// sizeJobs gives most jobs a container size per step of their skyline:
// memory from 256 MiB to 8 GiB, some steps bigger (and not a whole
// MiB), thousandths of a vcore from 500 to 4,000; some jobs know only
// one of the two, some neither, some steps are unknown (0).
func sizeJobs(rng *rand.Rand, jobs []Job) {
	for i := range jobs {
		j := &jobs[i]
		n := len(j.Skyline)
		if rng.IntN(6) > 0 {
			base := int64(256<<20) << rng.IntN(6)
			j.MemoryPerContainer = make([]int64, n)
			for k := range j.MemoryPerContainer {
				switch rng.IntN(8) {
				case 0:
					j.MemoryPerContainer[k] = base*int64(2+rng.IntN(3)) + int64(rng.IntN(1<<20))
				case 1:
					j.MemoryPerContainer[k] = 0
				default:
					j.MemoryPerContainer[k] = base
				}
			}
		}
		if rng.IntN(6) > 0 {
			base := []int64{500, 1000, 1500, 2000, 4000}[rng.IntN(5)]
			j.MilliVCoresPerContainer = make([]int64, n)
			for k := range j.MilliVCoresPerContainer {
				j.MilliVCoresPerContainer[k] = base
				if rng.IntN(5) == 0 {
					j.MilliVCoresPerContainer[k] = base * int64(1+rng.IntN(4))
				}
			}
		}
	}
}

// recomputeShare is the packed plan's peak cost recomputed from the
// published placements alone: each instance's allocation (containers,
// memory_bytes, vcores per step) added to per-resource loads over the
// LCM, c(t) = max over the capacity's resources of load / capacity.
func recomputeShare(t *testing.T, p *Packing, c Capacity) (share float64, memPeak int64, milliPeak int64) {
	t.Helper()
	lcm := int(math.Round(p.LCMS / p.StepS))
	var load [3][]int64
	for r := range load {
		load[r] = make([]int64, lcm)
	}
	for _, pl := range p.Placements {
		if c.MemoryBytes > 0 && len(pl.MemoryBytes) != len(pl.Allocation) || c.VCores > 0 && len(pl.VCores) != len(pl.Allocation) {
			t.Fatalf("%s: %d steps, %d of memory, %d of vcores", pl.Job, len(pl.Allocation), len(pl.MemoryBytes), len(pl.VCores))
		}
		for i := 0; i < pl.Instances; i++ {
			start := int(math.Round((pl.PeriodStartS + float64(i)*pl.PeriodS + pl.OffsetS) / p.StepS))
			for s, v := range pl.Allocation {
				q := (start + s) % lcm
				load[0][q] += v
				if c.MemoryBytes > 0 {
					load[1][q] += pl.MemoryBytes[s]
				}
				if c.VCores > 0 {
					load[2][q] += int64(math.Round(pl.VCores[s] * 1000))
				}
			}
		}
	}
	caps := [3]float64{float64(c.Containers), float64(c.MemoryBytes), math.Round(c.VCores * 1000)}
	for q := 0; q < lcm; q++ {
		for r := range load {
			if caps[r] > 0 {
				share = max(share, float64(load[r][q])/caps[r])
			}
		}
		memPeak, milliPeak = max(memPeak, load[1][q]), max(milliPeak, load[2][q])
	}
	return share, memPeak, milliPeak
}
