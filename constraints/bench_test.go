package constraints

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// genSpec sizes a synthetic trace in the 2019 layout (constraints on the
// events).
type genSpec struct {
	tasks, machines, attrs, pool int
	days                         int
	seed                         uint64
}

// genDataset writes a synthetic trace: machines with attributes (some
// numeric, some strings; changes and deletions over the span), tasks of
// which a quarter carry 1–3 constraints from a pool, each SUBMIT →
// SCHEDULE → FINISH/EVICT/KILL (an evicted task is submitted again), a
// few relaxed by an UPDATE_RUNNING, a few on machines without attributes,
// a few without requests. Events are written in time order, as trace
// shards are.
func genDataset(tb testing.TB, dir string, g genSpec) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(g.seed, 3))
	span := int64(g.days) * 86400_000
	base := time.Date(2019, 5, 1, 7, 0, 0, 0, time.UTC).UnixMilli()
	name := func(a int) string { return fmt.Sprintf("attr%02d", a) }
	numeric := func(a int) bool { return a%2 == 0 }
	value := func(a int) string {
		if numeric(a) {
			return strconv.Itoa(1 + rng.IntN(8))
		}
		return "v" + strconv.Itoa(rng.IntN(4))
	}
	var attrs []dataset.MachineAttribute
	for m := 1; m <= g.machines; m++ {
		for a := 0; a < g.attrs; a++ {
			if rng.IntN(10) < 8 {
				attrs = append(attrs, dataset.MachineAttribute{TimeMs: dataset.NoTime, Machine: int64(m), Attribute: name(a), Value: value(a)})
			}
		}
	}
	for i := 0; i < g.machines*2; i++ {
		a := rng.IntN(g.attrs)
		r := dataset.MachineAttribute{TimeMs: base + rng.Int64N(span), Machine: int64(1 + rng.IntN(g.machines)), Attribute: name(a)}
		if rng.IntN(10) == 0 {
			r.Deleted = true
		} else {
			r.Value = value(a)
		}
		attrs = append(attrs, r)
	}
	pool := make([]dataset.Constraint, g.pool)
	for i := range pool {
		a := rng.IntN(g.attrs)
		var rel string
		if numeric(a) {
			rel = []string{"LESS_THAN", "GREATER_THAN", "LESS_THAN_EQUAL", "GREATER_THAN_EQUAL", "EQUAL"}[rng.IntN(5)]
		} else {
			rel = []string{"EQUAL", "NOT_EQUAL", "PRESENT", "NOT_PRESENT"}[rng.IntN(4)]
		}
		c := dataset.Constraint{Attribute: name(a), Relation: rel, Value: value(a)}
		if dataset.PresenceRelation(rel) {
			c.Value = ""
		}
		pool[i] = c
	}
	// Constraint lists come from a few hundred combinations, as jobs
	// repeat them; the strings are shared.
	lists := make([]string, 4*g.pool)
	sub := make([]string, len(lists)) // the list with its first constraint dropped (relaxed)
	for i := range lists {
		n := 1 + rng.IntN(3)
		var cs []dataset.Constraint
		for len(cs) < n {
			c := pool[rng.IntN(len(pool))]
			if !slices.Contains(cs, c) {
				cs = append(cs, c)
			}
		}
		lists[i], sub[i] = dataset.EncodeConstraints(cs), dataset.EncodeConstraints(cs[1:])
	}
	var ev []dataset.TaskEvent
	add := func(e dataset.TaskEvent) { ev = append(ev, e) }
	for t := 0; t < g.tasks; t++ {
		job, idx := int64(1000+t/50), int32(t%50)
		li := -1
		cons := ""
		if rng.IntN(4) == 0 {
			li = rng.IntN(len(lists))
			cons = lists[li]
		}
		cpu, mem := float64(float32(0.01+0.2*rng.Float64())), float64(float32(0.01+0.2*rng.Float64()))
		if rng.IntN(50) == 0 {
			cpu, mem = math.NaN(), math.NaN()
		}
		at := base + rng.Int64N(span)
		for {
			e := dataset.TaskEvent{Job: job, Task: idx, CPURequest: cpu, MemoryRequest: mem, Constraints: cons, Source: "bench"}
			e.TimeMs, e.Type = at, "SUBMIT"
			add(e)
			at += 1 + int64(rng.ExpFloat64()*30_000)
			e.TimeMs, e.Type, e.Machine = at, "SCHEDULE", int64(1+rng.IntN(g.machines))
			if rng.IntN(100) == 0 {
				e.Machine = int64(g.machines + 1 + rng.IntN(10)) // no attribute rows
			}
			add(e)
			run := 1 + int64(rng.ExpFloat64()*1_800_000)
			if li >= 0 && rng.IntN(20) == 0 {
				e.TimeMs, e.Type, e.Constraints = at+run/2, "UPDATE_RUNNING", sub[li]
				add(e)
			}
			at += run
			e.TimeMs = at
			switch x := rng.IntN(20); {
			case x == 0:
				e.Type = "EVICT"
				add(e)
				at += 1000
				if rng.IntN(2) == 0 {
					continue
				}
			case x == 1:
				e.Type = "KILL"
				add(e)
			default:
				e.Type = "FINISH"
				add(e)
			}
			break
		}
	}
	slices.SortStableFunc(ev, func(x, y dataset.TaskEvent) int { return cmpInt(x.TimeMs, y.TimeMs) })
	_, tx := datasettest.Begin(tb, dir)
	datasettest.Append(tb, tx.TaskEvents(), ev)
	datasettest.Append(tb, tx.MachineAttributes(), attrs)
	datasettest.Commit(tb, tx)
}

func openDS(tb testing.TB, dir string) *dataset.Dataset {
	ds, err := dataset.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}

// Run and the straightforward baseline agree on a synthetic trace with
// every relation, attribute changes and deletions, evictions and
// resubmissions, relaxations and unknown machines.
func TestRunAgreesWithBaseline(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	genDataset(t, dir, genSpec{tasks: 3000, machines: 60, attrs: 10, pool: 40, days: 3, seed: 20})
	ds := openDS(t, dir)
	opts := DefaultOptions()
	res := runStage(t, ds, opts)
	base, err := baselineProfile(context.Background(), ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Constraints) < 30 {
		t.Fatalf("only %d constraints", len(res.Constraints))
	}
	relaxed, violated := int64(0), int64(0)
	for _, c := range res.Constraints {
		b := base[dataset.Constraint{Attribute: c.Attribute, Relation: c.Relation, Value: c.Value}]
		id := c.Attribute + " " + c.Relation + " " + c.Value
		if b == nil {
			t.Fatalf("%s: not in the baseline", id)
		}
		if c.Tasks != b.tasks || c.Episodes != b.episodes || c.Served != b.served || c.Relaxed != b.relaxed || c.Violated != b.violated ||
			c.ObservedWaits != len(b.waits) {
			t.Errorf("%s: tasks %d/%d episodes %d/%d served %d/%d relaxed %d/%d violated %d/%d waits %d/%d", id, c.Tasks, b.tasks,
				c.Episodes, b.episodes, c.Served, b.served, c.Relaxed, b.relaxed, c.Violated, b.violated, c.ObservedWaits, len(b.waits))
		}
		relaxed += c.Relaxed
		violated += c.Violated
		for w, x := range c.DemandSupply {
			if x.Demand != b.demand[w] || x.Supply != b.supply[w] {
				t.Fatalf("%s window %d: demand %d/%d supply %d/%d", id, w, x.Demand, b.demand[w], x.Supply, b.supply[w])
			}
		}
		if c.ServiceMeanS != nil {
			m := c.MachinesMean
			es := b.s1 / float64(b.served)
			if math.Abs(*c.ServiceMeanS*m-es) > 1e-3*es+1e-3 {
				t.Errorf("%s: E[S]·M %g, baseline %g", id, *c.ServiceMeanS*m, es)
			}
		}
	}
	if relaxed == 0 || violated == 0 {
		t.Errorf("the trace should exercise relaxation (%d) and violation (%d)", relaxed, violated)
	}
}

// hwmMB is the process's peak resident set so far (Linux).
func hwmMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return math.NaN()
}

// benchDataset is the benchmark's dataset, built on first use under
// $WLPROF_BENCH_DIR (default the temp dir) and kept.
func benchDataset(tb testing.TB) string {
	root := os.Getenv("WLPROF_BENCH_DIR")
	if root == "" {
		root = os.TempDir()
	}
	dir := filepath.Join(root, "wlprof-constraints-bench-10M-v1")
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		os.RemoveAll(dir)
		start := time.Now()
		genDataset(tb, dir, genSpec{tasks: 3_200_000, machines: 12_500, attrs: 30, pool: 300, days: 29, seed: 10})
		tb.Logf("built %s in %v", dir, time.Since(start))
	}
	return dir
}

// TestBuildBench10M builds the benchmark's dataset ahead of the
// benchmark (WLPROF_BUILD_BENCH=1), so the benchmark's peak RSS is its
// own.
func TestBuildBench10M(t *testing.T) {
	if os.Getenv("WLPROF_BUILD_BENCH") == "" {
		t.Skip("set WLPROF_BUILD_BENCH=1 to build the 10M-event benchmark dataset")
	}
	t.Log(benchDataset(t))
}

// BenchmarkProfile10M is the bar of issue 20: the constraint profile of
// 10 million instance events already ingested (Load + Run) in ≤ 30 s; the
// baseline runs in the same process after it, on the same dataset, and
// the ratio is reported. Run once (-benchtime 1x), after
// TestBuildBench10M.
func BenchmarkProfile10M(b *testing.B) {
	ds := openDS(b, benchDataset(b))
	b.Logf("%d task events, %d machine attribute rows", ds.Rows(dataset.TaskEventsTable.Name), ds.Rows(dataset.MachineAttributesTable.Name))
	opts := DefaultOptions()
	ctx := context.Background()
	for b.Loop() {
		runtime.GC()
		t0 := time.Now()
		in, err := Load(ctx, ds, opts)
		if err != nil {
			b.Fatal(err)
		}
		tLoad := time.Since(t0)
		res, err := Run(ctx, in, opts)
		if err != nil {
			b.Fatal(err)
		}
		fast := time.Since(t0)
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		live := float64(ms.HeapAlloc) / (1 << 20)
		runtime.KeepAlive(in) // else the input is dead here and the heap looks empty
		runtime.KeepAlive(res)
		hwmFast := hwmMB()
		msg := fmt.Sprintf("fast: load %v, run %v, total %v; %d constraints; live heap with input and result %.0f MB; peak RSS %.0f MB",
			tLoad, fast-tLoad, fast, len(res.Constraints), live, hwmFast)
		b.Log(msg)
		fmt.Fprintln(os.Stderr, msg) // now, not when the baseline is done
		in, res = Input{}, nil
		runtime.GC()
		t1 := time.Now()
		if _, err := baselineProfile(ctx, ds, opts); err != nil {
			b.Fatal(err)
		}
		slow := time.Since(t1)
		msg = fmt.Sprintf("baseline: %v; peak RSS so far %.0f MB; ratio %.1f×", slow, hwmMB(), slow.Seconds()/fast.Seconds())
		b.Log(msg)
		fmt.Fprintln(os.Stderr, msg)
		b.ReportMetric(fast.Seconds(), "fast-s")
		b.ReportMetric(slow.Seconds(), "baseline-s")
		b.ReportMetric(slow.Seconds()/fast.Seconds(), "ratio")
		b.ReportMetric(hwmFast, "fast-peak-RSS-MB")
	}
}
