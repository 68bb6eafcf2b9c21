package elasticity

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
)

var update = flag.Bool("update", false, "rewrite testdata/elasticity/profruns.csv from the generator")

const profrunsCSVPath = "../testdata/elasticity/profruns.csv"

// sweep is a synthetic profiling sweep: runtimes from a simulator's spilled
// bytes, a disk rate and an ideal runtime, with seeded noise.
type sweep struct {
	job, task, framework string
	slots                int
	input                float64
	idealS, rate, noise  float64
	mems                 []float64
	reps                 int
	spilled              func(m float64) float64 // bytes on disk at m
	floor                float64                 // spilled at ideal memory
	memSpilledPer        float64                 // Spark: memory bytes per disk byte spilled
	outBytes, outRecs    float64
	config               []string // key=value, written in the config column
}

func (s sweep) runs(rng *rand.Rand) []dataset.ProfRun {
	var out []dataset.ProfRun
	for _, m := range s.mems {
		sp := s.spilled(m)
		for r := 1; r <= s.reps; r++ {
			t := (s.idealS + (sp-s.floor)/s.rate) * (1 + s.noise*rng.NormFloat64())
			pr := dataset.ProfRun{Job: s.job, Task: s.task, Framework: s.framework, MemoryBytes: int64(m), Slots: int32(s.slots),
				Repetition: int32(r), InputBytes: int64(s.input), RuntimeS: math.Round(t*1000) / 1000, SpilledBytes: int64(sp),
				MemorySpilledBytes: int64(sp * s.memSpilledPer), OutputBytes: int64(s.outBytes), OutputRecords: int64(s.outRecs)}
			out = append(out, pr)
		}
	}
	return out
}

// gib and mibs make sizes readable below.
func gib(x float64) float64 { return x * (1 << 30) }

func grid(lo, hi, step float64) []float64 {
	var m []float64
	n := int(math.Round((hi - lo) / step))
	for i := 0; i <= n; i++ {
		m = append(m, math.Round(lo+float64(i)*step))
	}
	return m
}

// sweeps are the bundled example: Hadoop reducers with and without the
// sawtooth, a Hadoop mapper, a Spark sort stage, a Tez reducer, an
// external sort in the sandbox (the shape of the profiler's reference
// workload: ≥ 8 settings × 3 repetitions) and the bad inputs of issue 7.
func sweeps() []sweep {
	wcConf := []string{"mapreduce.job.maps=200", "mapreduce.reduce.input.buffer.percent=1.0", "mapreduce.job.heap.memory-mb.ratio=0.8"}
	wc := &reduceMerge{inputBytes: gib(3), segments: 200, heapFraction: 0.8, inBufPct: 0.7, limitPct: 0.25, mergePct: 0.66, reduceInPct: 1.0, factor: 10, capSingle: true}
	wcIdeal := gib(3) / (0.8 * 0.7 * 0.66)
	pr := &reduceMerge{inputBytes: gib(2), segments: 100, heapFraction: 0.8, inBufPct: 0.7, limitPct: 0.25, mergePct: 0.66, reduceInPct: 0, factor: 10, capSingle: true}
	mp := &mapSort{outputBytes: 400 << 20, outputRecords: 4e6, heapFraction: 0.8, sortFraction: 100.0 / (1024 * 0.8), spillPct: 0.8, factor: 10}
	mpIdeal := (400<<20 + 16*4e6) / (0.8 * 0.8 * 100.0 / (1024 * 0.8))
	sparkIn, sparkE := gib(1), 2.5
	sparkExec := func(m float64) float64 { return math.Max(m-reservedSparkBytes, 0) * 0.6 / 2 }
	sparkSpill := func(m float64) float64 {
		d, x := sparkIn*sparkE, sparkExec(m)
		if d <= x {
			return 0
		}
		return (math.Ceil(d/x) - 1) * x / sparkE
	}
	sparkIdeal := reservedSparkBytes + sparkIn*sparkE*2/0.6
	tez := &reduceMerge{inputBytes: gib(2), segments: 100, heapFraction: 0.8, inBufPct: 0.9, limitPct: 0.25, mergePct: 0.9, reduceInPct: 1.0, factor: 100, localFrac: 0.25}
	tezIdeal := gib(2) * 0.75 / (0.8 * 0.9 * 0.9)
	sortIn := float64(16 << 20)
	allOrNothing := func(m float64) float64 {
		if m >= sortIn {
			return 0
		}
		return sortIn
	}
	return []sweep{
		{job: "wordcount", task: "reduce", framework: "mapreduce", slots: 1, input: gib(3), idealS: 120, rate: 90 << 20, noise: 0.02,
			mems: grid(0.1*wcIdeal, 1.1*wcIdeal, 0.1*wcIdeal), reps: 3, spilled: wc.spilled, config: wcConf},
		{job: "pagerank", task: "reduce", framework: "mapreduce", slots: 1, input: gib(2), idealS: 200, rate: 150 << 20, noise: 0.01,
			mems: []float64{128 << 20, 256 << 20, 384 << 20, 512 << 20, gib(1), gib(2)}, reps: 1, spilled: pr.spilled, floor: gib(2),
			config: []string{"mapreduce.job.maps=100"}},
		{job: "wordcount", task: "map", framework: "mapreduce", slots: 1, input: 256 << 20, idealS: 20, rate: 60 << 20, noise: 0.01,
			mems: grid(0.2*mpIdeal, 1.2*mpIdeal, 0.2*mpIdeal), reps: 2, spilled: mp.spilled, floor: 400 << 20,
			outBytes: 400 << 20, outRecs: 4e6},
		{job: "terasort", task: "stage 1: sortByKey", framework: "spark", slots: 2, input: sparkIn, idealS: 80, rate: 120 << 20, noise: 0.02,
			mems: grid(0.2*sparkIdeal, 1.2*sparkIdeal, 0.2*sparkIdeal), reps: 2, spilled: sparkSpill, memSpilledPer: sparkE,
			config: []string{"spark.memory.fraction=0.6"}},
		{job: "join", task: "reduce", framework: "tez", slots: 1, input: gib(2), idealS: 90, rate: 100 << 20, noise: 0.01,
			mems: grid(0.2*tezIdeal, 1.2*tezIdeal, 0.2*tezIdeal), reps: 1, spilled: tez.spilled,
			config: []string{"wlprof.local.fetch.fraction=0.25", "tez.runtime.task.input.post-merge.buffer.percent=1.0", "wlprof.map.outputs=100"}},
		{job: "spillsort-sim", task: "reduce", framework: "sandbox", slots: 1, input: sortIn, idealS: 0.5, rate: 64 << 20, noise: 0.03,
			mems: []float64{2 << 20, 4 << 20, 6 << 20, 8 << 20, 12 << 20, 16 << 20, 24 << 20, 32 << 20}, reps: 3, spilled: allOrNothing},
		// Bad inputs: one run; never spills; faster when under-sized; no input size.
		{job: "single", task: "reduce", framework: "mapreduce", slots: 1, input: gib(1), idealS: 50, rate: 100 << 20,
			mems: []float64{gib(1)}, reps: 1, spilled: func(float64) float64 { return gib(1) }, floor: gib(1)},
		{job: "nospill", task: "reduce", framework: "sandbox", slots: 1, input: 1 << 20, idealS: 5, rate: 1,
			mems: []float64{64 << 20, 128 << 20, 256 << 20}, reps: 2, spilled: allOrNothing},
		{job: "nonmonotone", task: "reduce", framework: "sandbox", slots: 1, input: sortIn, idealS: 10, rate: -(8 << 20),
			mems: []float64{4 << 20, 8 << 20, 16 << 20, 32 << 20}, reps: 1, spilled: allOrNothing},
		{job: "noinput", task: "reduce", framework: "sandbox", slots: 1, input: 0, idealS: 10, rate: 1 << 20,
			mems: []float64{4 << 20, 8 << 20}, reps: 1, spilled: func(float64) float64 { return 0 }},
	}
}

// generate writes the bundled profruns-csv.
func generate() []byte {
	rng := rand.New(rand.NewPCG(2017, 4))
	var b bytes.Buffer
	b.WriteString("job,task,framework,memory_bytes,input_bytes,runtime_s,spilled_bytes,repetition,slots,memory_spilled_bytes,output_bytes,output_records,config\n")
	for _, s := range sweeps() {
		cfg := ""
		if len(s.config) > 0 {
			var c bytes.Buffer
			c.WriteString("{")
			for i, kv := range s.config {
				k, v, _ := bytes.Cut([]byte(kv), []byte("="))
				if i > 0 {
					c.WriteString(",")
				}
				fmt.Fprintf(&c, "%q:%q", k, v)
			}
			c.WriteString("}")
			cfg = `"` + string(bytes.ReplaceAll(c.Bytes(), []byte(`"`), []byte(`""`))) + `"`
		}
		for _, r := range s.runs(rng) {
			fmt.Fprintf(&b, "%s,%s,%s,%d,%d,%s,%d,%d,%d,%d,%d,%d,%s\n", r.Job, quoteIf(r.Task), r.Framework, r.MemoryBytes, r.InputBytes,
				strconv.FormatFloat(r.RuntimeS, 'f', 3, 64), r.SpilledBytes, r.Repetition, r.Slots, r.MemorySpilledBytes, r.OutputBytes, r.OutputRecords, cfg)
		}
	}
	return b.Bytes()
}

func quoteIf(s string) string {
	if bytes.ContainsAny([]byte(s), ",\"") {
		return `"` + string(bytes.ReplaceAll([]byte(s), []byte(`"`), []byte(`""`))) + `"`
	}
	return s
}

// The bundled CSV is what the generator writes (go test -update rewrites it).
func TestGeneratedCSV(t *testing.T) {
	got := generate()
	if *update {
		if err := os.WriteFile(profrunsCSVPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(profrunsCSVPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go test ./elasticity -run TestGeneratedCSV -update", profrunsCSVPath)
	}
}

// The bundled sweeps: each model recovers its truth; each bad input gives
// its reason.
func TestBundledSweeps(t *testing.T) {
	rng := rand.New(rand.NewPCG(2017, 4))
	runs := bundledRuns(rng)
	res, err := build(runs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	byJob := map[string]*Model{}
	for _, m := range res.Models {
		byJob[m.Job+"/"+m.Task] = m
		assertFinite(t, m)
		t.Logf("%-28s %-10s ideal %-10s %7.2f s  rate %8.3g  val %.3g (%d)  lsq %v  baseline %.3g (%d)", m.Job+"/"+m.Task, m.Kind,
			bytesize.Human(float64(m.IdealMemoryBytes)), m.IdealRuntimeS, m.Params["disk_rate_bytes_per_s"], m.Validation.MedianAbsError, m.Validation.Runs,
			m.LeastSquares != nil, m.Baseline.Validation.MedianAbsError, m.Baseline.Validation.Runs)
	}
	reasons := map[string]string{}
	for _, s := range res.Skipped {
		reasons[s.Job] = s.Reason
		t.Logf("skipped %s: %s", s.Job, s.Reason)
	}
	for _, c := range []struct {
		key       string
		kind      string
		rate      float64
		idealMem  float64
		idealS    float64
		maxValErr float64
	}{
		{"wordcount/reduce", "spill-rate", 90 << 20, gib(3) / (0.8 * 0.7 * 0.66), 120, 0.05},
		{"wordcount/map", "step", 0, (400<<20 + 16*4e6) / (0.8 * 100.0 / 1024), 20, 0.05},
		{"terasort/stage 1: sortByKey", "spill-rate", 120 << 20, reservedSparkBytes + gib(1)*2.5*2/0.6, 80, 0.05},
		{"join/reduce", "spill-rate", 100 << 20, gib(2) * 0.75 / (0.8 * 0.9 * 0.9), 90, 0.05},
		// The shape of issue 7's accuracy bar on the profiler's reference
		// workload: 8 memory settings × 3 repetitions, median error ≤ 5%.
		{"spillsort-sim/reduce", "spill-rate", 0, 16 << 20, 0.5, 0.05},
		{"pagerank/reduce", "spill-rate", 150 << 20, 0, 200, 0.05},
	} {
		m := byJob[c.key]
		if m == nil {
			t.Errorf("%s: no model", c.key)
			continue
		}
		if m.Kind != c.kind {
			t.Errorf("%s: kind %s, want %s", c.key, m.Kind, c.kind)
		}
		if c.idealMem > 0 && math.Abs(float64(m.IdealMemoryBytes)-c.idealMem)/c.idealMem > 0.002 {
			t.Errorf("%s: ideal memory %s, want %s", c.key, bytesize.Human(float64(m.IdealMemoryBytes)), bytesize.Human(c.idealMem))
		}
		if math.Abs(m.IdealRuntimeS-c.idealS)/c.idealS > 0.08 {
			t.Errorf("%s: ideal runtime %.3g, want %.3g", c.key, m.IdealRuntimeS, c.idealS)
		}
		if c.rate > 0 {
			if r := m.Params["disk_rate_bytes_per_s"]; math.Abs(r-c.rate)/c.rate > 0.25 {
				t.Errorf("%s: disk rate %.4g, want %.4g", c.key, r, c.rate)
			}
		}
		if m.Validation.Runs > 0 && m.Validation.MedianAbsError > c.maxValErr {
			t.Errorf("%s: median validation error %.3g > %.3g", c.key, m.Validation.MedianAbsError, c.maxValErr)
		}
	}
	for job, want := range map[string]string{
		"single":      "one memory setting",
		"nospill":     "never spills",
		"noinput":     "input_bytes is 0",
		"nonmonotone": "", // modelled, with a warning
	} {
		if want == "" {
			m := byJob[job+"/reduce"]
			if m == nil || !containsAny(m.Warnings, "non-monotone") {
				t.Errorf("%s: want a model warning of non-monotone measurements, got %+v / %q", job, m, reasons[job])
			}
			continue
		}
		if !bytes.Contains([]byte(reasons[job]), []byte(want)) {
			t.Errorf("%s: reason %q, want it to say %q", job, reasons[job], want)
		}
	}
}

func containsAny(ss []string, sub string) bool {
	for _, s := range ss {
		if bytes.Contains([]byte(s), []byte(sub)) {
			return true
		}
	}
	return false
}

func confJSON(kv []string) string {
	if len(kv) == 0 {
		return ""
	}
	c := Conf{}
	for _, x := range kv {
		k, v, _ := bytes.Cut([]byte(x), []byte("="))
		c[string(k)] = string(v)
	}
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range sortedKeys(c) {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:%q", k, c[k])
	}
	b.WriteString("}")
	return b.String()
}

// bundledRuns are the runs of every bundled sweep, each with its
// configuration.
func bundledRuns(rng *rand.Rand) []dataset.ProfRun {
	var runs []dataset.ProfRun
	for _, s := range sweeps() {
		rs := s.runs(rng)
		for i := range rs {
			rs[i].Config = confJSON(s.config)
		}
		runs = append(runs, rs...)
	}
	return runs
}
