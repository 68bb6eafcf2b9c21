package dataset

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// usageRow is one row of a UsageBatch as ScanUsageBatches hands it over.
type usageRow struct {
	tenant, server string
	time           int64
	cpu            float64
}

func scanUsage(t *testing.T, ds *Dataset, fast bool) []usageRow {
	t.Helper()
	old := usageFastPath
	usageFastPath = fast
	defer func() { usageFastPath = old }()
	var out []usageRow
	err := ScanUsageBatches(context.Background(), ds, func(b *UsageBatch) error {
		for i := 0; i < b.Len; i++ {
			out = append(out, usageRow{b.Tenants[b.TenantIdx[i]], b.Servers[b.ServerIdx[i]], b.TimeMs[i], b.CPU[i]})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// usageWorld is a seeded usage table with what the decoders must get
// right: time deltas of every width up to 64 bits (sorted, repeated,
// random over the whole range), null times, cpu dictionaries that fit and
// one row group with more distinct cpu values than a dictionary takes (so
// its pages are plain), and tenant and server names of many lengths.
func usageWorld(seed uint64, n int) []Usage {
	r := rand.New(rand.NewPCG(seed, seed^77))
	rows := make([]Usage, n)
	t0 := int64(1_700_000_000_000)
	for i := range rows {
		var tm int64
		switch (i / 997) % 4 {
		case 0: // time-major, as a trace export
			tm = t0 + int64(i/50)*120_000
		case 1: // random over the whole range
			tm = r.Int64() - r.Int64()
			if tm == NoTime {
				tm = 0
			}
		case 2: // nulls among small steps
			tm = t0 + int64(i)
			if r.IntN(3) == 0 {
				tm = NoTime
			}
		default: // extremes
			tm = []int64{math.MaxInt64, math.MinInt64 + 1, 0, -1}[r.IntN(4)]
		}
		cpu := float64(r.IntN(100)) / 100
		if i >= n/2 {
			cpu = r.Float64() // more distinct values than one dictionary takes
		}
		rows[i] = Usage{Tenant: fmt.Sprintf("tenant-%d%s", r.IntN(300), rngStr(r, "ab")), Server: rngStr(r, alpha),
			TimeMs: tm, CPU: cpu, Memory: maybeNaN(r)}
	}
	return rows
}

// The page decoder returns what arrow's record reader returns, row for
// row, and takes every row group this package writes.
func TestUsageFastPathEqualsArrow(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		rows := usageWorld(seed, 200_000)
		// Row groups of 70,000 rows: several per file, one of them all
		// plain cpu pages (more than maxFloatDict distinct values).
		ds := writeIngests(t, UsageTable, rows, 70_000)
		fast, slow := scanUsage(t, ds, true), scanUsage(t, ds, false)
		if len(fast) != len(rows) || len(slow) != len(rows) {
			t.Fatalf("seed %d: fast %d rows, arrow %d, wrote %d", seed, len(fast), len(slow), len(rows))
		}
		for i := range rows {
			want := usageRow{rows[i].Tenant, rows[i].Server, rows[i].TimeMs, rows[i].CPU}
			if fast[i] != want || slow[i] != want {
				t.Fatalf("seed %d row %d: fast %+v arrow %+v wrote %+v", seed, i, fast[i], slow[i], want)
			}
		}
		took, groups := fastGroups(t, ds)
		if took != groups || groups < 3 {
			t.Fatalf("seed %d: the fast path took %d of %d row groups", seed, took, groups)
		}
	}
}

// fastGroups counts the row groups fastUsageGroup decodes.
func fastGroups(t *testing.T, ds *Dataset) (took, groups int) {
	t.Helper()
	var s usageScratch
	defer s.close()
	for _, fi := range ds.Manifest().Tables[UsageTable.Name].Files {
		g, err := openGroupReader(filepath.Join(ds.Dir, fi.Path), []string{"tenant", "server", "time", "cpu"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for rg := 0; rg < g.pf.NumRowGroups(); rg++ {
			groups++
			if fastUsageGroup(g, rg, &UsageBatch{}, &s) {
				took++
			}
		}
		g.close()
	}
	return took, groups
}

// A damaged usage file never panics the page decoder: each of many
// seeded corruptions gives false (arrow then decodes the group and reports
// the damage) or a batch of the group's length with ids inside the
// dictionaries. (zstd's frame checksums catch nearly every flipped byte
// of a compressed page; TestPageDecodersNeverPanic feeds the decoders
// damaged input directly.)
func TestUsageFastPathCorruption(t *testing.T) {
	rows := usageWorld(5, 30_000)
	ds := writeIngests(t, UsageTable, rows, 30_000)
	path := filepath.Join(ds.Dir, ds.Manifest().Tables[UsageTable.Name].Files[1].Path)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := openGroupReader(path, []string{"tenant", "server", "time", "cpu"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The bytes of row group 0's four chunks.
	var lo, hi int64 = math.MaxInt64, 0
	for _, ci := range g.cols {
		cc, err := g.pf.MetaData().RowGroup(0).ColumnChunk(ci)
		if err != nil {
			t.Fatal(err)
		}
		off := cc.DataPageOffset()
		if cc.HasDictionaryPage() {
			off = min(off, cc.DictionaryPageOffset())
		}
		lo, hi = min(lo, off), max(hi, off+cc.TotalCompressedSize())
	}
	g.close()
	r := rand.New(rand.NewPCG(8, 8))
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	var s usageScratch
	defer s.close()
	if took, groups := fastGroups(t, ds); took != groups {
		t.Fatalf("undamaged: the fast path took %d of %d row groups", took, groups)
	}
	refused := 0
	for i := 0; i < 300; i++ {
		b := append([]byte(nil), orig...)
		for k := 1 + r.IntN(4); k > 0; k-- {
			b[lo+r.Int64N(hi-lo)] = byte(r.Uint32())
		}
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		g, err := openGroupReader(bad, []string{"tenant", "server", "time", "cpu"}, nil)
		if err != nil {
			refused++ // the footer is intact, but be lenient
			continue
		}
		var ub UsageBatch
		ok := fastUsageGroup(g, 0, &ub, &s)
		g.close()
		if !ok {
			refused++
			continue
		}
		if ub.Len != len(ub.TenantIdx) || ub.Len != len(ub.CPU) || ub.Len != len(ub.TimeMs) {
			t.Fatalf("corruption %d: ok with a batch of %d rows and %d ids", i, ub.Len, len(ub.TenantIdx))
		}
		for j := 0; j < ub.Len; j++ {
			if int(ub.TenantIdx[j]) >= len(ub.Tenants) || int(ub.ServerIdx[j]) >= len(ub.Servers) || ub.TenantIdx[j] < 0 || ub.ServerIdx[j] < 0 {
				t.Fatalf("corruption %d: row %d has an id outside its dictionary", i, j)
			}
		}
	}
	if refused == 0 {
		t.Errorf("no corruption out of 300 was refused")
	}
	t.Logf("%d of 300 corruptions refused", refused)
}
