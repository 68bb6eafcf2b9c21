package ingest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// instance_usage_same_machine.json (SOURCES.md: the real row edited) has,
// in the real row's window T (2019-05-22T13:30:00Z):
//
//	collection 330587238433 instance 200 on machine 23624491139: cpu 0.25, memory 0.0625
//	collection 330587238433 instance 201 on machine 23624491139: cpu 0.125, memory absent
//	collection 330587238433 instance 202 on machine 23624491140: cpu 0.5, memory absent
//	collection 330587238435 instance 0   on machine 23624491139: cpu 0.0625, memory 0.125
//
// and instance 203 of 330587238433 on 23624491139 in a partial window that
// starts 120 s into T (cpu 0.03125, memory 0.03125): 180 s of T's 300, so
// it adds 0.6 of its average to T. Every row, like the real one, runs
// inside alloc set 330587160469; instance_usage_alloc_instance.json is
// that alloc instance (cpu and memory 0.015625 on 23624491139 in T).
var (
	googleT       = googleRealRow.TimeMs
	googleM1      = "23624491139"
	googleM2      = "23624491140"
	googlePartial = 0.03125 * 180 / 300 // instance 203's share of T
)

func TestGoogleUsageSumsInstances(t *testing.T) {
	file := traceFile("google2019", "instance_usage_same_machine.json")

	// Collection key: instances 200 and 201 are one collection on one
	// machine in one window: their sum, 0.375 (the old code wrote two rows
	// that the series builder averaged to 0.1875). Memory is the sum of
	// what is present. Instance 203's partial row adds its share to T's
	// row (keyed by its own start_time it used to be a row of its own,
	// averaged with T's by the series builder). Instance 202 on the other
	// machine and the other collection stay their own rows.
	got := mustRun(t, "google2019-usage", []string{file}, DefaultOptions())
	usageNear(t, "collection", got.usage, []dataset.Usage{
		{Tenant: "330587238433", Server: googleM1, TimeMs: googleT, CPU: 0.375 + googlePartial, Memory: 0.0625 + googlePartial},
		{Tenant: "330587238433", Server: googleM2, TimeMs: googleT, CPU: 0.5, Memory: nan},
		{Tenant: "330587238435", Server: googleM1, TimeMs: googleT, CPU: 0.0625, Memory: 0.125},
	})
	notes := got.res.Files[0].Notes
	if got.res.Accepted != 5 || len(got.rejects) != 0 ||
		!noteContains(notes, "5 instance rows of 1 google2019-usage input(s) summed into 3 usage rows, one per tenant, machine and aligned 5-minute window (1 of them the sum of two or more rows)") ||
		!noteContains(notes, "1 of those rows cover part of a window or more than one") || noteContains(notes, "alloc") {
		t.Errorf("accepted %d, rejects %+v, notes %q", got.res.Accepted, got.rejects, notes)
	}

	// Machine key: the rows all run inside alloc set 330587160469, so a
	// machine counts them through its alloc instance, not beside it. Alone
	// they give no usage (accepted, and counted in the notes); with the
	// alloc instance, machine 1 in T is the alloc instance's usage.
	opts := DefaultOptions()
	opts.TenantKey = "machine"
	got = mustRun(t, "google2019-usage", []string{file}, opts)
	if len(got.usage) != 0 || got.res.Accepted != 5 || len(got.rejects) != 0 ||
		!noteContains(got.res.Files[0].Notes, "5 instance rows inside alloc sets (alloc_collection_id set) counted through their alloc instance") {
		t.Errorf("machine key, tasks only: usage %+v, accepted %d, notes %q", got.usage, got.res.Accepted, got.res.Files[0].Notes)
	}
	got = mustRun(t, "google2019-usage", []string{file, traceFile("google2019", "instance_usage_alloc_instance.json")}, opts)
	usageEqual(t, "machine", got.usage, []dataset.Usage{
		{Tenant: googleM1, Server: googleM1, TimeMs: googleT, CPU: 0.015625, Memory: 0.015625},
	})

	// User key: both collections belong to one user, so they add up too.
	dir := t.TempDir()
	events := writeFile(t, dir, "collection_events.json", []byte(
		`{"time":1,"type":0,"collection_id":330587238433,"user":"`+googleRealUser+`"}`+"\n"+
			`{"time":1,"type":0,"collection_id":330587238435,"user":"`+googleRealUser+`"}`+"\n"))
	opts.TenantKey = "user"
	opts.CollectionEvents = []string{events}
	got = mustRun(t, "google2019-usage", []string{file}, opts)
	usageNear(t, "user", got.usage, []dataset.Usage{
		{Tenant: googleRealUser, Server: googleM1, TimeMs: googleT, CPU: 0.4375 + googlePartial, Memory: 0.1875 + googlePartial},
		{Tenant: googleRealUser, Server: googleM2, TimeMs: googleT, CPU: 0.5, Memory: nan},
	})

	// Rows of one window in two inputs of one ingest add up as well: the
	// real row (instance 111, cpu 0.008392333984375) joins T's group.
	got = mustRun(t, "google2019-usage", []string{file, traceFile("google2019", "instance_usage-000000000000.json")}, DefaultOptions())
	if u := got.usage[0]; math.Abs(u.CPU-(0.375+googlePartial+googleRealRow.CPU)) > 1e-15 ||
		math.Abs(u.Memory-(0.0625+googlePartial+googleRealRow.Memory)) > 1e-15 || len(got.usage) != 3 {
		t.Errorf("across inputs: %+v", got.usage)
	}
}

// usageNear is usageEqual with cpu and memory within 1e-15: for sums of
// weighted shares, whose last bit depends on the order of operations.
func usageNear(t *testing.T, what string, got, want []dataset.Usage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d: %+v", what, len(got), len(want), got)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-15 || math.IsNaN(a) && math.IsNaN(b) }
	for i := range got {
		g, w := got[i], want[i]
		if g.Tenant != w.Tenant || g.Server != w.Server || g.TimeMs != w.TimeMs || !near(g.CPU, w.CPU) || !near(g.Memory, w.Memory) {
			t.Errorf("%s: record %d = %+v, want %+v", what, i, g, w)
		}
	}
}

// googleRowLine is a minimal instance_usage JSON line, times in µs of the
// trace clock. A negative end, inst or alloc leaves end_time,
// instance_index or alloc_collection_id out; a negative memory leaves
// memory out.
func googleRowLine(startUs, endUs, coll, inst, machine, alloc int64, cpu, memory float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"start_time":"%d",`, startUs)
	if endUs >= 0 {
		fmt.Fprintf(&b, `"end_time":"%d",`, endUs)
	}
	fmt.Fprintf(&b, `"collection_id":"%d",`, coll)
	if inst >= 0 {
		fmt.Fprintf(&b, `"instance_index":"%d",`, inst)
	}
	if alloc >= 0 {
		fmt.Fprintf(&b, `"alloc_collection_id":"%d",`, alloc)
	}
	fmt.Fprintf(&b, `"machine_id":"%d","average_usage":{"cpus":%s`, machine, strconv.FormatFloat(cpu, 'g', -1, 64))
	if memory >= 0 {
		fmt.Fprintf(&b, `,"memory":%s`, strconv.FormatFloat(memory, 'g', -1, 64))
	}
	b.WriteString("}}")
	return b.String()
}

// googleLine is googleRowLine in seconds from the trace window's start
// (which is 600 s into the trace clock, on the 300 s grid), without
// alloc_collection_id.
func googleLine(startS, endS, coll, inst, machine int64, cpu, memory float64) string {
	return googleRowLine((startS+600)*1_000_000, (endS+600)*1_000_000, coll, inst, machine, -1, cpu, memory)
}

// googleAt is the usage time of second s of the trace window.
func googleAt(s int64) int64 { return googleTraceStart.UnixMilli() + s*1000 }

// An instance that stops and starts again inside a window has two partial
// rows that do not overlap: both count, each for its part of the window,
// so the window's average is 0.5 as if one row had covered it all.
func TestGoogleUsagePartialRowsOfOneInstance(t *testing.T) {
	path := writeFile(t, t.TempDir(), "u.json", []byte(googleLine(0, 120, 7, 5, 9, 0.5, 0.25)+"\n"+googleLine(120, 300, 7, 5, 9, 0.5, 0.25)+"\n"))
	got := mustRun(t, "google2019-usage", []string{path}, DefaultOptions())
	usageNear(t, "two partial rows", got.usage, []dataset.Usage{{Tenant: "7", Server: "9", TimeMs: googleAt(0), CPU: 0.5, Memory: 0.25}})
	if len(got.rejects) != 0 || got.res.Accepted != 2 || !noteContains(got.res.Files[0].Notes, "2 of those rows cover part of a window") {
		t.Errorf("rejects %+v, accepted %d, notes %q", got.rejects, got.res.Accepted, got.res.Files[0].Notes)
	}
}

// An instance that starts 120 s into a window beside one that ran all of
// it: the window's sum is 0.2 + 0.5·180/300 = 0.5, one usage row (keyed by
// its own start_time the partial row used to be a second sample that the
// series builder averaged with the first: (0.2 + 0.5)/2).
func TestGoogleUsagePartialRowBesideFullRow(t *testing.T) {
	path := writeFile(t, t.TempDir(), "u.json", []byte(googleLine(120, 300, 7, 1, 9, 0.5, -1)+"\n"+googleLine(0, 300, 7, 2, 9, 0.2, 0.125)+"\n"))
	got := mustRun(t, "google2019-usage", []string{path}, DefaultOptions())
	usageNear(t, "partial beside full", got.usage, []dataset.Usage{{Tenant: "7", Server: "9", TimeMs: googleAt(0), CPU: 0.2 + 0.3, Memory: 0.125}})
}

// Rows across a window boundary are split by overlap; a row without
// end_time is its start's whole aligned window; a full row longer than
// one window gives each window its value unchanged; more than an hour is
// not a measurement window and is rejected.
func TestGoogleUsageRowAcrossWindows(t *testing.T) {
	lines := []string{
		googleLine(150, 450, 7, 1, 9, 0.5, 0.25),               // half in [0, 300), half in [300, 600)
		googleRowLine((750+600)*1e6, -1, 7, 2, 9, -1, 0.4, -1), // no end_time: all of [600, 900)
		googleLine(900, 1500, 7, 3, 9, 0.3, -1),                // [900, 1200) and [1200, 1500), whole
		googleLine(0, 3601, 7, 4, 9, 0.1, -1),                  // rejected
	}
	path := writeFile(t, t.TempDir(), "u.json", []byte(strings.Join(lines, "\n")+"\n"))
	got := mustRun(t, "google2019-usage", []string{path}, DefaultOptions())
	usageNear(t, "split", got.usage, []dataset.Usage{
		{Tenant: "7", Server: "9", TimeMs: googleAt(0), CPU: 0.25, Memory: 0.125},
		{Tenant: "7", Server: "9", TimeMs: googleAt(300), CPU: 0.25, Memory: 0.125},
		{Tenant: "7", Server: "9", TimeMs: googleAt(600), CPU: 0.4, Memory: nan},
		{Tenant: "7", Server: "9", TimeMs: googleAt(900), CPU: 0.3, Memory: nan},
		{Tenant: "7", Server: "9", TimeMs: googleAt(1200), CPU: 0.3, Memory: nan},
	})
	if got.usage[2].CPU != 0.4 || got.usage[3].CPU != 0.3 || got.usage[4].CPU != 0.3 {
		t.Errorf("whole windows must keep their value bit for bit: %+v", got.usage[2:])
	}
	if len(got.rejects) != 1 || got.rejects[0].Line != 4 || !strings.Contains(got.rejects[0].Reason, "more than an hour is not one") || got.res.Accepted != 3 {
		t.Errorf("rejects %+v, accepted %d", got.rejects, got.res.Accepted)
	}
}

// Rows of one instance on one machine that overlap in time are the same
// time measured twice: the one that starts first is kept (at equal times,
// the smaller cpu) and the other rejected whole, in every window it
// covers. Another machine is another placement, not a duplicate.
func TestGoogleUsageOverlappingInstanceRows(t *testing.T) {
	lines := []string{
		googleLine(100, 450, 7, 5, 9, 0.5, -1),    // 1: overlaps line 2, which starts first: rejected in [0, 300) and [300, 600)
		googleLine(0, 200, 7, 5, 9, 0.25, -1),     // 2: kept
		googleLine(200, 300, 7, 5, 9, 0.125, -1),  // 3: kept: starts where line 2 ends
		googleLine(900, 1050, 7, 5, 9, 0.5, -1),   // 4: kept, [900, 1050)
		googleLine(1000, 1200, 7, 5, 9, 0.5, -1),  // 5: overlaps line 4: rejected
		googleLine(1050, 1200, 7, 5, 9, 0.25, -1), // 6: kept, after line 4
		googleLine(100, 450, 7, 5, 8, 0.5, -1),    // 7: machine 8: kept
	}
	path := writeFile(t, t.TempDir(), "u.json", []byte(strings.Join(lines, "\n")+"\n"))
	got := mustRun(t, "google2019-usage", []string{path}, DefaultOptions())
	usageNear(t, "overlaps", got.usage, []dataset.Usage{
		{Tenant: "7", Server: "8", TimeMs: googleAt(0), CPU: 0.5 * 200 / 300, Memory: nan},
		{Tenant: "7", Server: "8", TimeMs: googleAt(300), CPU: 0.5 * 150 / 300, Memory: nan},
		{Tenant: "7", Server: "9", TimeMs: googleAt(0), CPU: 0.25*200/300 + 0.125*100/300, Memory: nan},
		{Tenant: "7", Server: "9", TimeMs: googleAt(900), CPU: 0.5*150/300 + 0.25*150/300, Memory: nan},
	})
	if len(got.rejects) != 2 || got.res.Accepted != 5 || got.res.Rejected != 2 || got.res.Files[0].Accepted != 5 {
		t.Fatalf("rejects %+v, accepted %d", got.rejects, got.res.Accepted)
	}
	hasReject(t, got.rejects, 1, "duplicate: instance 5 of collection 7 already has a row for machine 9 that overlaps this one in time ("+path+":2)")
	hasReject(t, got.rejects, 5, "duplicate: instance 5 of collection 7 already has a row for machine 9 that overlaps this one in time ("+path+":4)")
	if !strings.Contains(got.rejects[0].Record, "start_time=700000000 end_time=1050000000 average_usage.cpus=0.5 average_usage.memory=null") {
		t.Errorf("record %q", got.rejects[0].Record)
	}
}

// Alloc sets (instance_usage_alloc_instance.json is the alloc instance the
// real row's task runs in): with the machine key only top-level rows are
// summed, so the task is counted through its alloc instance and not
// beside it, in JSON and in Parquet; with the collection key each
// collection keeps its own usage.
func TestGoogleUsageAllocInstances(t *testing.T) {
	task, alloc := traceFile("google2019", "instance_usage-000000000000.json"), traceFile("google2019", "instance_usage_alloc_instance.json")
	got := mustRun(t, "google2019-usage", []string{task, alloc}, DefaultOptions())
	usageEqual(t, "collection", got.usage, []dataset.Usage{
		{Tenant: "330587160469", Server: googleM1, TimeMs: googleT, CPU: 0.015625, Memory: 0.015625},
		googleRealRow,
	})
	if noteContains(got.res.Files[1].Notes, "alloc") {
		t.Errorf("collection key: notes %q", got.res.Files[1].Notes)
	}

	opts := DefaultOptions()
	opts.TenantKey = "machine"
	machine := []dataset.Usage{{Tenant: googleM1, Server: googleM1, TimeMs: googleT, CPU: 0.015625, Memory: 0.015625}}
	got = mustRun(t, "google2019-usage", []string{task, alloc}, opts)
	usageEqual(t, "machine", got.usage, machine)
	if got.res.Accepted != 2 || len(got.rejects) != 0 ||
		!noteContains(got.res.Files[1].Notes, "1 instance rows inside alloc sets (alloc_collection_id set) counted through their alloc instance") ||
		!noteContains(got.res.Files[1].Notes, "1 instance rows of 2 google2019-usage input(s) summed into 1 usage rows") ||
		!noteContains(got.res.Files[0].Notes, "rows inside an alloc set (alloc_collection_id set) are left to their alloc instance (top-level instances only") {
		t.Errorf("machine key: accepted %d, rejects %+v, notes %q %q", got.res.Accepted, got.rejects, got.res.Files[0].Notes, got.res.Files[1].Notes)
	}

	// The same rows in a Parquet shard, where the column is read only for
	// the machine key; and a shard without the column has no alloc sets.
	dir := t.TempDir()
	var rows [][]byte
	for _, f := range []string{task, alloc} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, bytes.TrimSpace(b))
	}
	shard := filepath.Join(dir, "instance_usage-000000000000.parquet")
	writeGoogleParquet(t, shard, rows, 1)
	got = mustRun(t, "google2019-usage", []string{shard}, opts)
	usageEqual(t, "machine, parquet", got.usage, machine)
	got = mustRun(t, "google2019-usage", []string{shard}, DefaultOptions())
	if len(got.usage) != 2 {
		t.Errorf("collection key, parquet: %+v", got.usage)
	}
}

// A second row of one instance for one machine over the same time is the
// same measurement read twice: rejected, whichever input comes first, and
// the row kept is the one with the smaller cpu. Rows without
// instance_index cannot be told apart and are summed.
func TestGoogleUsageDuplicateInstance(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.json", []byte(googleLine(0, 300, 7, 5, 9, 0.2, 0.1)+"\n"+googleLine(0, 300, 7, -1, 9, 0.01, -1)+"\n"))
	b := writeFile(t, dir, "b.json", []byte(googleLine(0, 300, 7, 5, 9, 0.1, -1)+"\n"+googleLine(0, 300, 7, -1, 9, 0.01, -1)+"\n"))
	// The kept row of instance 5 first, then the rows without an instance.
	want := 0.1
	want += 0.01
	want += 0.01
	for _, order := range [][]string{{a, b}, {b, a}} {
		got := mustRun(t, "google2019-usage", order, DefaultOptions())
		if len(got.usage) != 1 || got.usage[0].CPU != want || !math.IsNaN(got.usage[0].Memory) {
			t.Fatalf("%v: usage %+v", order, got.usage)
		}
		if len(got.rejects) != 1 || got.rejects[0].File != a || got.rejects[0].Line != 1 ||
			!strings.Contains(got.rejects[0].Reason, "duplicate: instance 5 of collection 7 already has a row for machine 9 that overlaps this one in time ("+b+":1)") ||
			!strings.Contains(got.rejects[0].Record, "start_time=600000000 end_time=900000000 average_usage.cpus=0.2 average_usage.memory=0.1") {
			t.Fatalf("%v: rejects %+v", order, got.rejects)
		}
		fa := got.res.Files[slices.IndexFunc(got.res.Files, func(f FileResult) bool { return f.Path == a })]
		if fa.Accepted != 1 || fa.Rejected != 1 || got.res.Accepted != 3 || got.res.Rejected != 1 {
			t.Errorf("%v: counts %+v, result %d/%d", order, fa, got.res.Accepted, got.res.Rejected)
		}
	}
}

// A repeated instance is found even when another instance's value lies
// between its two values.
func TestGoogleUsageDuplicateInstanceInterleaved(t *testing.T) {
	path := writeFile(t, t.TempDir(), "u.json", []byte(googleLine(0, 300, 7, 5, 9, 0.2, -1)+"\n"+
		googleLine(0, 300, 7, 6, 9, 0.1, -1)+"\n"+googleLine(0, 300, 7, 5, 9, 0.05, -1)+"\n"))
	got := mustRun(t, "google2019-usage", []string{path}, DefaultOptions())
	want := 0.05
	want += 0.1
	if len(got.usage) != 1 || got.usage[0].CPU != want || len(got.rejects) != 1 || got.rejects[0].Line != 1 {
		t.Fatalf("usage %+v rejects %+v", got.usage, got.rejects)
	}
}

// Each row is within [0, 1] NCU, but a machine has at most 1 NCU: a larger
// sum is stored as 1 and counted.
func TestGoogleUsageSumAboveOne(t *testing.T) {
	path := writeFile(t, t.TempDir(), "u.json", []byte(googleLine(0, 300, 7, 1, 9, 0.75, 0.5)+"\n"+googleLine(0, 300, 7, 2, 9, 0.5, 0.75)+"\n"))
	got := mustRun(t, "google2019-usage", []string{path}, DefaultOptions())
	if len(got.usage) != 1 || got.usage[0].CPU != 1 || got.usage[0].Memory != 1 || len(got.rejects) != 0 {
		t.Fatalf("usage %+v rejects %+v", got.usage, got.rejects)
	}
	notes := got.res.Files[0].Notes
	if !noteContains(notes, "1 cpu sums above 1 NCU (largest 1.25) stored as 1") || !noteContains(notes, "1 memory sums above 1 NMU (largest 1.25) stored as 1") {
		t.Errorf("notes %q", notes)
	}
}

// Property: the usage table depends on the rows, not on their order, the
// files they are in, the files' encodings (JSON, gzip, Parquet) or how
// many rows are held before a spill. The reference is one JSON file read
// with the default buffer; each trial shuffles the rows (exact duplicates
// and overlapping rows included), cuts them into 1 to 4 shards of random
// encodings and spills every few rows. Sums are compared bit for bit
// (floating-point addition is not associative, so this checks the
// canonical order), and within 1e-12 against an oracle that adds each
// kept row's overlap-weighted share to every aligned window it covers, in
// generation order.
func TestGoogleUsageSumOrderProperty(t *testing.T) {
	for _, key := range []string{"collection", "machine"} {
		rng := rand.New(rand.NewPCG(3, uint64(len(key))))
		lines, oracle, rejected := googlePropertyRows(rng, key)
		dir := t.TempDir()
		opts := DefaultOptions()
		opts.TenantKey = key
		ref := mustRun(t, "google2019-usage", []string{writeFile(t, dir, "ref.json", []byte(strings.Join(lines, "\n")+"\n"))}, opts)

		// Against the oracle: one row per key, in key order, values near;
		// the rejects are the rows the oracle left out as overlapping.
		if len(ref.usage) != len(oracle) || len(ref.rejects) != rejected {
			t.Fatalf("%s: %d rows, %d rejects; oracle %d, %d", key, len(ref.usage), len(ref.rejects), len(oracle), rejected)
		}
		for i, u := range ref.usage {
			k := googleKey{u.Tenant, u.Server, u.TimeMs}
			o, ok := oracle[k]
			if !ok || math.Abs(u.CPU-min(o.cpu, 1)) > 1e-12 || math.IsNaN(u.Memory) != (o.mems == 0) ||
				o.mems > 0 && math.Abs(u.Memory-min(o.mem, 1)) > 1e-12 {
				t.Fatalf("%s: row %d %+v, oracle %+v", key, i, u, o)
			}
			if i > 0 {
				p := ref.usage[i-1]
				if c := cmpUsageKey(p, u); c >= 0 {
					t.Fatalf("%s: rows %d and %d out of order: %+v %+v", key, i-1, i, p, u)
				}
			}
		}
		for _, r := range ref.rejects {
			if !strings.HasPrefix(r.Reason, "duplicate: ") {
				t.Fatalf("%s: reject %+v", key, r)
			}
		}

		for trial := 0; trial < 12; trial++ {
			perm := slices.Clone(lines)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			shards := 1 + rng.IntN(4)
			cuts := []int{0}
			for k := 1; k < shards; k++ {
				cuts = append(cuts, rng.IntN(len(perm)+1))
			}
			slices.Sort(cuts)
			cuts = append(cuts, len(perm))
			var paths []string
			tdir := t.TempDir()
			for k := 0; k+1 < len(cuts); k++ {
				part := perm[cuts[k]:cuts[k+1]]
				if len(part) == 0 {
					continue
				}
				name := fmt.Sprintf("instance_usage-%012d", k)
				switch rng.IntN(3) {
				case 0:
					paths = append(paths, writeFile(t, tdir, name+".json", []byte(strings.Join(part, "\n")+"\n")))
				case 1:
					paths = append(paths, writeFile(t, tdir, name+".json.gz", gzipBytes(t, []byte(strings.Join(part, "\n")+"\n"))))
				default:
					rows := make([][]byte, len(part))
					for i, l := range part {
						rows[i] = []byte(l)
					}
					p := filepath.Join(tdir, name+".parquet")
					writeGoogleParquet(t, p, rows, int64(1+rng.IntN(8)))
					paths = append(paths, p)
				}
			}
			o := opts
			o.sumRows = 1 + rng.IntN(10)
			got := mustRun(t, "google2019-usage", paths, o)
			if len(got.usage) != len(ref.usage) || len(got.rejects) != len(ref.rejects) || got.res.Accepted != ref.res.Accepted {
				t.Fatalf("%s trial %d: %d rows %d rejects %d accepted; reference %d, %d, %d",
					key, trial, len(got.usage), len(got.rejects), got.res.Accepted, len(ref.usage), len(ref.rejects), ref.res.Accepted)
			}
			for i := range got.usage {
				g, r := got.usage[i], ref.usage[i]
				if g.Tenant != r.Tenant || g.Server != r.Server || g.TimeMs != r.TimeMs ||
					math.Float64bits(g.CPU) != math.Float64bits(r.CPU) || math.Float64bits(g.Memory) != math.Float64bits(r.Memory) {
					t.Fatalf("%s trial %d (%d shards, spill every %d rows): row %d = %+v, reference %+v", key, trial, len(paths), o.sumRows, i, g, r)
				}
			}
		}
	}
}

type googleKey struct {
	tenant, server string
	time           int64
}

type googleOracle struct {
	cpu, mem float64
	mems     int
}

func cmpUsageKey(a, b dataset.Usage) int {
	if c := strings.Compare(a.Tenant, b.Tenant); c != 0 {
		return c
	}
	if c := strings.Compare(a.Server, b.Server); c != 0 {
		return c
	}
	switch {
	case a.TimeMs < b.TimeMs:
		return -1
	case a.TimeMs > b.TimeMs:
		return 1
	}
	return 0
}

// googlePropertyRows makes instance rows of 8 collections (0 to 4
// instances each) on 3 machines over 12 windows, with full-precision values
// and times to the µs: each instance a sequence of rows that do not
// overlap, with gaps, full aligned windows, partial windows, rows across a
// boundary or longer than a window, rows without end_time; absent memory,
// absent instance_index, instances that move, instances inside alloc sets
// (which the machine key leaves out), exact duplicates, repeats over the
// same time with other values and rows that overlap an earlier one. It
// returns the lines, the oracle's sums per usage key and how many rows
// must be rejected.
func googlePropertyRows(rng *rand.Rand, key string) ([]string, map[googleKey]googleOracle, int) {
	const w = int64(googleWindowUs)
	var lines []string
	rejected := 0
	oracle := map[googleKey]googleOracle{}
	start := googleTraceStart.UnixMilli()
	// add is the oracle: a row's share of each window it overlaps.
	add := func(tenant string, machine, s, e int64, cpu, mem float64, copies int) {
		for win := s - s%w; win < e; win += w {
			share := func(v float64) float64 {
				o := min(e, win+w) - max(s, win)
				if o == w {
					return v
				}
				return v * float64(o) / float64(w)
			}
			k := googleKey{tenant, strconv.FormatInt(machine, 10), start + (win-googleOffsetUs)/1000}
			o := oracle[k]
			for range copies {
				o.cpu += share(cpu)
				if mem >= 0 {
					o.mem += share(mem)
					o.mems++
				}
			}
			oracle[k] = o
		}
	}
	for c := int64(0); c < 8; c++ {
		for inst := int64(0); inst < int64(rng.IntN(5)); inst++ {
			machine := 100 + rng.Int64N(3)
			// alloc_collection_id: absent, 0 (top level) or an alloc set.
			alloc := []int64{-1, 0, 7000 + c}[rng.IntN(3)]
			skip := key == "machine" && alloc > 0
			for t := int64(googleOffsetUs); ; {
				switch r := rng.Float64(); {
				case r < 0.2:
					t += 1 + rng.Int64N(w-1)
				case r < 0.3:
					t += w * (1 + rng.Int64N(2))
				}
				if t >= googleOffsetUs+12*w {
					break
				}
				if rng.Float64() < 0.1 {
					machine = 100 + rng.Int64N(3)
				}
				// [s, e) is the time the row covers; end < 0 for none.
				var s, e, startUs, endUs int64
				switch r := rng.Float64(); {
				case r < 0.5: // to the next boundary: a full window when t is on one
					s, e = t, t-t%w+w
				case r < 0.7: // partial, maybe across a boundary
					s, e = t, t+1+rng.Int64N(w-1)
				case r < 0.85: // longer than a window
					s, e = t, t+w+1+rng.Int64N(2*w)
				default: // no end_time: the aligned window of start_time
					if t%w != 0 {
						t += w - t%w
					}
					s, e = t, t+w
				}
				startUs, endUs = s, e
				if e-s == w && s%w == 0 && rng.Float64() < 0.3 {
					startUs, endUs = s+rng.Int64N(w), -1
				}
				t = e
				cpu, mem := rng.Float64()*0.25, -1.0
				if rng.Float64() < 0.7 {
					mem = rng.Float64() * 0.25
				}
				// Some rows lack instance_index: then the order of their
				// values is what makes the sum independent of input order.
				ix, copies := inst, 1
				if rng.Float64() < 0.3 {
					ix = -1
				}
				l := googleRowLine(startUs, endUs, 5000+c, ix, machine, alloc, cpu, mem)
				lines = append(lines, l)
				switch r := rng.Float64(); {
				case r < 0.05:
					// Read twice: one copy is rejected, unless the row has
					// no instance_index to tell it is the same instance.
					lines = append(lines, l)
					if ix < 0 {
						copies = 2
					} else if !skip {
						rejected++
					}
				case r < 0.1 && ix >= 0:
					// Another row of the same instance, machine and time
					// with other values: the smaller cpu is kept.
					cpu2 := rng.Float64() * 0.25
					lines = append(lines, googleRowLine(startUs, endUs, 5000+c, ix, machine, alloc, cpu2, -1))
					if cpu2 < cpu {
						cpu, mem = cpu2, -1
					}
					if !skip {
						rejected++
					}
				case r < 0.15 && ix >= 0 && e-s >= 2:
					// A row that starts inside this one (after it): the
					// later start is rejected, whatever windows it covers.
					s2 := s + 1 + rng.Int64N(e-s-1)
					lines = append(lines, googleRowLine(s2, s2+1+rng.Int64N(w), 5000+c, ix, machine, alloc, rng.Float64()*0.25, -1))
					if !skip {
						rejected++
					}
				}
				if skip {
					continue
				}
				tenant := strconv.FormatInt(5000+c, 10)
				if key == "machine" {
					tenant = strconv.FormatInt(machine, 10)
				}
				add(tenant, machine, s, e, cpu, mem, copies)
			}
		}
	}
	return lines, oracle, rejected
}

// Rows are summed within one ingest: a second google2019-usage ingest into
// the same dataset cannot add its rows to the first one's, and says so,
// while the first (and an ingest of several shards at once) does not.
func TestGoogleUsageLaterIngestWarns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	a, b := traceFile("google2019", "instance_usage_same_machine.json"), traceFile("google2019", "instance_usage_alloc_instance.json")
	first, err := runInto(t, dir, "google2019-usage", []string{a, b}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range first.res.Files {
		if noteContains(f.Notes, "earlier ingests") {
			t.Errorf("first ingest warns: %q", f.Notes)
		}
	}
	second, err := runInto(t, dir, "google2019-usage", []string{b}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !noteContains(second.res.Files[0].Notes, "already holds usage from 2 google2019-usage input(s) of earlier ingests") {
		t.Errorf("second ingest's notes %q", second.res.Files[0].Notes)
	}
}
