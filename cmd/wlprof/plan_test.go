package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// wlprof plan on tpch_q12 (13 runs from Hadoop's ResourceEstimator
// tests), which has no provenance: without a window it is not planned and
// says how to give one; with an override window it is fitted on its first
// 10 runs, packed, and its last 3 replayed. The text, JSON and CSV outputs
// are golden; the JSON's footprint equals the peak of its placement.
func TestPlanGolden(t *testing.T) {
	ds := skylineDataset(t)
	out, stderr, code := wlprof(t, "plan", "-d", ds, "--step", "5s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "plan-no-window.txt", out)
	ov := filepath.Join(t.TempDir(), "ov.yaml")
	os.WriteFile(ov, []byte("version: 1\njobs:\n  - job: tpch_q12\n    period_s: 3600\n    arrival_s: 600\n    deadline_s: 1800\n"), 0o644)
	for _, f := range []string{"text", "json", "csv"} {
		out, stderr, code := wlprof(t, "plan", "-d", ds, "--step", "5s", "--overrides", ov, "-o", f)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", f, code, stderr)
		}
		golden(t, "plan-tpch_q12."+map[string]string{"text": "txt", "json": "json", "csv": "csv"}[f], out)
		if f != "json" {
			continue
		}
		var doc struct {
			Footprint  int64 `json:"footprint_containers"`
			Placements []struct {
				Allocation []int64 `json:"allocation"`
			} `json:"placements"`
			Replay []struct {
				TestRuns int `json:"test_runs"`
			} `json:"replay"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Placements) != 1 || len(doc.Replay) != 1 {
			t.Fatalf("bad document (%v): %.300s", err, out)
		}
		var pk int64
		for _, v := range doc.Placements[0].Allocation {
			pk = max(pk, v)
		}
		if pk != doc.Footprint || doc.Replay[0].TestRuns != 3 {
			t.Errorf("footprint %d, placement peak %d; held-out runs %d (want 3)", doc.Footprint, pk, doc.Replay[0].TestRuns)
		}
	}
	for _, c := range []struct {
		argv []string
		code int
		msg  string
	}{
		{[]string{"plan", "-d", ds, "--holdout", "1"}, 2, "holdout 1"},
		{[]string{"plan", "-d", ds, "--lcm-cap", "0s"}, 2, "lcm-cap"},
		{[]string{"plan", "-d", ds, "--job", "nope"}, 1, `job "nope" has no skylines`},
	} {
		checkExit(t, c.argv, c.code, c.msg)
	}
}

// wlprof plan --capacity on tpch_q12 with the override window: the text
// is golden (the shares and peaks beside the footprint); the JSON's
// footprint share is the peak over the LCM of the largest share of a
// resource, recomputed from the placement's allocation, memory_bytes and
// vcores; without --capacity none of the new fields is written (the
// plan-tpch_q12.json golden). Bad capacities are usage errors, every one
// reported.
func TestPlanCapacityGolden(t *testing.T) {
	ds := skylineDataset(t)
	ov := filepath.Join(t.TempDir(), "ov.yaml")
	os.WriteFile(ov, []byte("version: 1\njobs:\n  - job: tpch_q12\n    period_s: 3600\n    arrival_s: 600\n    deadline_s: 1800\n"), 0o644)
	argv := []string{"plan", "-d", ds, "--step", "5s", "--overrides", ov, "--capacity", "containers=3000,memory=4T,cores=2000"}
	out, stderr, code := wlprof(t, argv...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "plan-tpch_q12-capacity.txt", out)
	out, stderr, code = wlprof(t, append(argv, "-o", "json")...)
	if code != 0 {
		t.Fatalf("-o json: exit %d: %s", code, stderr)
	}
	var doc struct {
		LCMS     float64 `json:"lcm_s"`
		StepS    float64 `json:"step_s"`
		Capacity struct {
			Containers  int64   `json:"containers"`
			MemoryBytes int64   `json:"memory_bytes"`
			VCores      float64 `json:"vcores"`
		} `json:"capacity"`
		FootprintShare  float64 `json:"footprint_share"`
		NaiveShare      float64 `json:"naive_footprint_share"`
		LowerBoundShare float64 `json:"lower_bound_share"`
		FootprintMemory int64   `json:"footprint_memory_bytes"`
		Placements      []struct {
			Allocation []int64   `json:"allocation"`
			Memory     []int64   `json:"memory_bytes"`
			VCores     []float64 `json:"vcores"`
		} `json:"placements"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Placements) != 1 {
		t.Fatalf("bad document (%v): %.300s", err, out)
	}
	share, lb, naive := doc.FootprintShare, doc.LowerBoundShare, doc.NaiveShare
	pl := doc.Placements[0]
	if doc.Capacity.Containers != 3000 || doc.Capacity.MemoryBytes != 4<<40 || doc.Capacity.VCores != 2000 ||
		len(pl.Memory) != len(pl.Allocation) || len(pl.VCores) != len(pl.Allocation) {
		t.Fatalf("capacity %+v; %d steps, %d of memory, %d of vcores", doc.Capacity, len(pl.Allocation), len(pl.Memory), len(pl.VCores))
	}
	var top float64
	var memPeak int64
	for i, v := range pl.Allocation { // one instance in the one-hour LCM
		top = max(top, float64(v)/3000, float64(pl.Memory[i])/float64(4<<40), pl.VCores[i]/2000)
		memPeak = max(memPeak, pl.Memory[i])
	}
	if top != share || memPeak != doc.FootprintMemory || !(lb <= share && share <= naive) {
		t.Errorf("footprint share %v, recomputed %v; memory peak %d, recomputed %d; lower bound %v, naive %v", share, top, doc.FootprintMemory, memPeak, lb, naive)
	}
	for _, c := range []struct {
		capacity string
		msgs     []string
	}{
		{"disk=1T,containers=0,memory=2G,memory=3G", []string{`unknown resource "disk"`, `containers="0"`, "memory given twice"}},
		{"cores=-4", []string{`cores="-4": want a number of vcores > 0`}},
		{"memory", []string{`"memory": want resource=amount`}},
	} {
		// A capacity that does not parse is reported by the flag parser,
		// alone, naming the flag.
		_, stderr, code := wlprof(t, "plan", "-d", ds, "--capacity", c.capacity, "--holdout", "1")
		for _, m := range append(c.msgs, `for "--capacity" flag`) {
			if code != 2 || !strings.Contains(stderr, m) {
				t.Errorf("--capacity %s: exit %d, %q; want 2 with %q", c.capacity, code, stderr, m)
			}
		}
	}
}

// The container sizes come from the skylines table through the stage:
// three recurring jobs every 10 minutes, in skyline-csv with memory and
// vcores. big (8 containers of 16 GiB) runs over minutes 0–5 and small
// (8 of 256 MiB) over 5–10, neither with slack; zflex (4 of 16 GiB, five
// minutes) may run from minute 5 to the next 5. In containers LowCost
// spreads zflex over the whole period, 2 a minute; under a memory
// capacity it keeps it beside small, 64 GiB a minute, and the memory peak
// is big's own 128 GiB. anon's samples have no memory nor vcores: it
// counts as 0 in both, with a warning for each.
func TestPlanCapacitySizesFromSkylines(t *testing.T) {
	dir := t.TempDir()
	csv := "job,run,time,containers,memory_bytes,vcores\n"
	for _, j := range []struct {
		name       string
		n, mem, vc int64
	}{{"big", 8, 16 << 30, 4}, {"small", 8, 256 << 20, 1}, {"zflex", 4, 16 << 30, 4}, {"anon", 1, 0, 0}} {
		for r := 0; r < 3; r++ {
			csv += fmt.Sprintf("%s,r%d,0,%d,%d,%d\n%s,r%d,300,0,0,0\n", j.name, r, j.n, j.n*j.mem, j.n*j.vc, j.name, r)
		}
	}
	ov := "version: 1\njobs:\n"
	for _, w := range [][4]any{{"big", 600, 0, 300}, {"small", 600, 300, 600}, {"zflex", 600, 300, 900}, {"anon", 600, 0, 300}} {
		ov += fmt.Sprintf("  - job: %s\n    period_s: %d\n    arrival_s: %d\n    deadline_s: %d\n", w[0], w[1], w[2], w[3])
	}
	os.WriteFile(filepath.Join(dir, "sky.csv"), []byte(csv), 0o644)
	os.WriteFile(filepath.Join(dir, "ov.yaml"), []byte(ov), 0o644)
	ds := filepath.Join(dir, "ds")
	mustRun(t, "ingest", "skyline-csv", filepath.Join(dir, "sky.csv"), "-d", ds, "-q")
	type doc struct {
		Warnings   []string `json:"warnings"`
		Memory     int64    `json:"footprint_memory_bytes"`
		Placements []struct {
			Job        string  `json:"job"`
			Allocation []int64 `json:"allocation"`
			Memory     []int64 `json:"memory_bytes"`
		} `json:"placements"`
	}
	plan := func(extra ...string) (d doc) {
		out := mustRun(t, append([]string{"plan", "-d", ds, "--overrides", filepath.Join(dir, "ov.yaml"), "-o", "json"}, extra...)...)
		if err := json.Unmarshal([]byte(out), &d); err != nil || len(d.Placements) != 4 {
			t.Fatalf("bad document (%v): %.300s", err, out)
		}
		return d
	}
	zflex := func(d doc) (a, m []int64) {
		for _, p := range d.Placements {
			if p.Job == "zflex" {
				return p.Allocation, p.Memory
			}
		}
		return nil, nil
	}
	if a, _ := zflex(plan()); len(a) != 10 {
		t.Errorf("containers: zflex %v, want it over the whole period", a)
	}
	d := plan("--capacity", "memory=1T,cores=200")
	a, m := zflex(d)
	if !reflect.DeepEqual(a, []int64{4, 4, 4, 4, 4}) || !reflect.DeepEqual(m, []int64{64 << 30, 64 << 30, 64 << 30, 64 << 30, 64 << 30}) || d.Memory != 128<<30 {
		t.Errorf("memory: zflex %v, %v bytes; memory peak %d; want 4 × 16 GiB a minute beside small, 128 GiB", a, m, d.Memory)
	}
	if w := strings.Join(d.Warnings, "\n"); !strings.Contains(w, "job anon: the size of its containers in memory is unknown") ||
		!strings.Contains(w, "job anon: the size of its containers in vcores is unknown") {
		t.Errorf("warnings: %q", w)
	}
}
