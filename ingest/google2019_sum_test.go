package ingest

import (
	"fmt"
	"math"
	"math/rand/v2"
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
// starts 120 s into T (cpu 0.03125, memory 0.03125). The values are
// binary fractions, so the sums below are exact.
var (
	googleT  = googleRealRow.TimeMs
	googleM1 = "23624491139"
	googleM2 = "23624491140"
)

func TestGoogleUsageSumsInstances(t *testing.T) {
	file := traceFile("google2019", "instance_usage_same_machine.json")

	// Collection key: instances 200 and 201 are one collection on one
	// machine in one window: their sum, 0.375 (the old code wrote two rows
	// that the series builder averaged to 0.1875). Memory is the sum of
	// what is present: 0.0625. Instance 202 on the other machine and the
	// other collection stay their own rows; the partial window keeps its
	// own start_time, so it is not added to T's row.
	got := mustRun(t, "google2019-usage", []string{file}, DefaultOptions())
	usageEqual(t, "collection", got.usage, []dataset.Usage{
		{Tenant: "330587238433", Server: googleM1, TimeMs: googleT, CPU: 0.375, Memory: 0.0625},
		{Tenant: "330587238433", Server: googleM1, TimeMs: googleT + 120_000, CPU: 0.03125, Memory: 0.03125},
		{Tenant: "330587238433", Server: googleM2, TimeMs: googleT, CPU: 0.5, Memory: nan},
		{Tenant: "330587238435", Server: googleM1, TimeMs: googleT, CPU: 0.0625, Memory: 0.125},
	})
	if got.res.Accepted != 5 || len(got.rejects) != 0 ||
		!noteContains(got.res.Files[0].Notes, "5 instance rows of 1 google2019-usage input(s) summed into 4 usage rows, one per tenant, machine and start_time (1 of them the sum of two or more rows)") {
		t.Errorf("accepted %d, rejects %+v, notes %q", got.res.Accepted, got.rejects, got.res.Files[0].Notes)
	}

	// Machine key: every collection on the machine adds up.
	opts := DefaultOptions()
	opts.TenantKey = "machine"
	got = mustRun(t, "google2019-usage", []string{file}, opts)
	usageEqual(t, "machine", got.usage, []dataset.Usage{
		{Tenant: googleM1, Server: googleM1, TimeMs: googleT, CPU: 0.4375, Memory: 0.1875},
		{Tenant: googleM1, Server: googleM1, TimeMs: googleT + 120_000, CPU: 0.03125, Memory: 0.03125},
		{Tenant: googleM2, Server: googleM2, TimeMs: googleT, CPU: 0.5, Memory: nan},
	})

	// User key: both collections belong to one user, so they add up too.
	dir := t.TempDir()
	events := writeFile(t, dir, "collection_events.json", []byte(
		`{"time":1,"type":0,"collection_id":330587238433,"user":"`+googleRealUser+`"}`+"\n"+
			`{"time":1,"type":0,"collection_id":330587238435,"user":"`+googleRealUser+`"}`+"\n"))
	opts.TenantKey = "user"
	opts.CollectionEvents = []string{events}
	got = mustRun(t, "google2019-usage", []string{file}, opts)
	usageEqual(t, "user", got.usage, []dataset.Usage{
		{Tenant: googleRealUser, Server: googleM1, TimeMs: googleT, CPU: 0.4375, Memory: 0.1875},
		{Tenant: googleRealUser, Server: googleM1, TimeMs: googleT + 120_000, CPU: 0.03125, Memory: 0.03125},
		{Tenant: googleRealUser, Server: googleM2, TimeMs: googleT, CPU: 0.5, Memory: nan},
	})

	// Rows of one window in two inputs of one ingest add up as well: the
	// real row (instance 111, cpu 0.008392333984375) joins T's group.
	got = mustRun(t, "google2019-usage", []string{file, traceFile("google2019", "instance_usage-000000000000.json")}, DefaultOptions())
	if u := got.usage[0]; u.CPU != 0.375+googleRealRow.CPU || u.Memory != 0.0625+googleRealRow.Memory || len(got.usage) != 4 {
		t.Errorf("across inputs: %+v", got.usage)
	}
}

// googleLine is a minimal instance_usage JSON line; memory < 0 leaves it
// out and inst < 0 leaves instance_index out.
func googleLine(startS, endS, coll, inst, machine int64, cpu, memory float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"start_time":"%d","end_time":"%d","collection_id":"%d",`, (startS+600)*1_000_000, (endS+600)*1_000_000, coll)
	if inst >= 0 {
		fmt.Fprintf(&b, `"instance_index":"%d",`, inst)
	}
	fmt.Fprintf(&b, `"machine_id":"%d","average_usage":{"cpus":%s`, machine, strconv.FormatFloat(cpu, 'g', -1, 64))
	if memory >= 0 {
		fmt.Fprintf(&b, `,"memory":%s`, strconv.FormatFloat(memory, 'g', -1, 64))
	}
	b.WriteString("}}")
	return b.String()
}

// A second row of one instance for one machine and start_time is the same
// measurement read twice: rejected, whichever input comes first, and the
// row kept is the one with the smaller cpu. Rows without instance_index
// cannot be told apart and are summed.
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
			!strings.Contains(got.rejects[0].Reason, "duplicate: instance 5 of collection 7 already has a row for machine 9 at this start_time ("+b+":1)") ||
			!strings.Contains(got.rejects[0].Record, "average_usage.cpus=0.2 average_usage.memory=0.1") {
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
// included), cuts them into 1 to 4 shards of random encodings and spills
// every few rows. Sums are compared bit for bit (floating-point addition
// is not associative, so this checks the canonical order), and against a
// map sum in generation order within 1e-12.
func TestGoogleUsageSumOrderProperty(t *testing.T) {
	for _, key := range []string{"collection", "machine"} {
		rng := rand.New(rand.NewPCG(3, uint64(len(key))))
		lines, oracle := googlePropertyRows(rng, key)
		dir := t.TempDir()
		opts := DefaultOptions()
		opts.TenantKey = key
		ref := mustRun(t, "google2019-usage", []string{writeFile(t, dir, "ref.json", []byte(strings.Join(lines, "\n")+"\n"))}, opts)

		// Against the oracle: one row per key, in key order, values near.
		if len(ref.usage) != len(oracle) {
			t.Fatalf("%s: %d rows, oracle %d", key, len(ref.usage), len(oracle))
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

// googlePropertyRows makes instance rows of 6 collections (0 to 4
// instances each) on 3 machines over 8 windows, with full-precision
// values, absent memory, absent instance_index, partial windows, instances
// that move, exact duplicates and repeated instances with other values;
// and the oracle's sums per usage key.
func googlePropertyRows(rng *rand.Rand, key string) ([]string, map[googleKey]googleOracle) {
	var lines []string
	oracle := map[googleKey]googleOracle{}
	start := googleTraceStart.UnixMilli()
	for c := int64(0); c < 6; c++ {
		for inst := int64(0); inst < int64(rng.IntN(5)); inst++ {
			machine := 100 + rng.Int64N(3)
			for w := int64(0); w < 8; w++ {
				if rng.Float64() < 0.2 {
					continue
				}
				if rng.Float64() < 0.1 {
					machine = 100 + rng.Int64N(3)
				}
				s, e := w*300, w*300+300
				if rng.Float64() < 0.1 {
					s += 1 + rng.Int64N(299)
				}
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
				l := googleLine(s, e, 5000+c, ix, machine, cpu, mem)
				lines = append(lines, l)
				switch r := rng.Float64(); {
				case r < 0.05:
					// Read twice: one copy is rejected, unless the row has
					// no instance_index to tell it is the same instance.
					lines = append(lines, l)
					if ix < 0 {
						copies = 2
					}
				case r < 0.1 && ix >= 0:
					// Another row of the same instance, machine and
					// window with other values: the smaller cpu is kept.
					cpu2 := rng.Float64() * 0.25
					lines = append(lines, googleLine(s, e, 5000+c, ix, machine, cpu2, -1))
					if cpu2 < cpu {
						cpu, mem = cpu2, -1
					}
				}
				tenant := strconv.FormatInt(5000+c, 10)
				if key == "machine" {
					tenant = strconv.FormatInt(machine, 10)
				}
				k := googleKey{tenant, strconv.FormatInt(machine, 10), start + s*1000}
				o := oracle[k]
				for range copies {
					o.cpu += cpu
					if mem >= 0 {
						o.mem += mem
						o.mems++
					}
				}
				oracle[k] = o
			}
		}
	}
	return lines, oracle
}
