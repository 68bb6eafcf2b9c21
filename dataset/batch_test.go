package dataset

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// usageRows makes n seeded usage rows: a few tenants and servers, some
// null times and memory, and cpu from a small set of values (distinct ==
// false) or all different (more than maxFloatDict per batch); noMemory:
// every memory value null, as from a file without the column.
func usageRows(seed uint64, n int, distinct, noMemory bool) []Usage {
	r := rand.New(rand.NewPCG(seed, 1))
	tenants := []string{"a", "b", "c", "acme, inc.", "e", "f", "g"}
	rows := make([]Usage, n)
	for i := range rows {
		u := Usage{Tenant: tenants[r.IntN(len(tenants))], Server: "s" + string(rune('a'+r.IntN(13))),
			TimeMs: 1_700_000_000_000 + int64(i)*60_000, CPU: float64(r.IntN(1000)) / 1000, Memory: math.NaN()}
		if distinct {
			u.CPU = r.Float64()
		}
		if r.IntN(50) == 0 {
			u.TimeMs = NoTime
		}
		if r.IntN(3) > 0 && !noMemory {
			u.Memory = float64(r.IntN(100)) / 100
		}
		rows[i] = u
	}
	return rows
}

// writeUsage writes rows into a new dataset with the given row-group size
// by one of the append paths and returns the usage Parquet file's bytes and
// what reads back.
func writeUsage(t *testing.T, rows []Usage, batch int, how string, seed uint64) ([]byte, []Usage) {
	t.Helper()
	ds, tx := newTx(t)
	w := tx.Usage()
	w.batch = batch
	var err error
	r := rand.New(rand.NewPCG(seed, 2))
	// two producers with their own string tables, as two parser workers
	type producer struct {
		tenants, servers []string
		tid, sid         map[string]int32
		tm, sm           IDMap
	}
	prods := []*producer{{tid: map[string]int32{}, sid: map[string]int32{}}, {tid: map[string]int32{}, sid: map[string]int32{}}}
	intern := func(strs *[]string, ids map[string]int32, s string) int32 {
		id, ok := ids[s]
		if !ok {
			id = int32(len(*strs))
			ids[s] = id
			*strs = append(*strs, s)
		}
		return id
	}
	for lo := 0; lo < len(rows); {
		hi := min(len(rows), lo+1+r.IntN(2*batch))
		part := rows[lo:hi]
		switch how {
		case "append":
			for i := range part {
				err = w.Append(&part[i])
			}
		case "batch":
			err = w.AppendBatch(part)
		case "columns":
			p := prods[r.IntN(len(prods))]
			var c UsageColumns
			for _, u := range part {
				c.Tenant = append(c.Tenant, intern(&p.tenants, p.tid, u.Tenant))
				c.Server = append(c.Server, intern(&p.servers, p.sid, u.Server))
				c.TimeMs = append(c.TimeMs, u.TimeMs)
				c.CPU = append(c.CPU, u.CPU)
				c.Memory = append(c.Memory, u.Memory)
			}
			// A producer whose rows have no memory (an input without the
			// column) may leave the column empty: appended as nulls.
			if !slices.ContainsFunc(c.Memory, func(v float64) bool { return v == v }) && r.IntN(2) == 0 {
				c.Memory = nil
			}
			c.Tenants, c.Servers, c.TenantMap, c.ServerMap = p.tenants, p.servers, &p.tm, &p.sm
			err = AppendUsageColumns(w, &c)
		}
		if err != nil {
			t.Fatal(err)
		}
		lo = hi
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join(ds.Dir, "usage", "*.parquet"))
	if err != nil || len(paths) != 1 {
		t.Fatalf("usage files %v (%v)", paths, err)
	}
	raw, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(context.Background(), ds, UsageTable)
	if err != nil {
		t.Fatal(err)
	}
	return raw, got
}

// parquetPages is a Parquet file without its footer (the metadata). arrow/go
// v16 lists a column chunk's page encoding stats in map order, so a column
// that fell back from dictionary to plain pages has a footer whose bytes
// vary from run to run; the pages themselves do not.
func parquetPages(b []byte) []byte {
	if len(b) < 12 {
		return b
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if n > len(b)-12 {
		return b
	}
	return b[:len(b)-8-n]
}

func sameUsageRow(a, b Usage) bool {
	return a.Tenant == b.Tenant && a.Server == b.Server && a.TimeMs == b.TimeMs && a.CPU == b.CPU &&
		(a.Memory == b.Memory || (math.IsNaN(a.Memory) && math.IsNaN(b.Memory)))
}

// TestAppendPaths: Append row by row, AppendBatch and AppendUsageColumns
// (two producers with their own string tables, runs split across row
// groups) write Parquet files with byte-identical pages that read back as
// the rows;
// cpu is dictionary-encoded when it has few distinct values, and written
// plain (by arrow's own fallback) when a batch has too many.
func TestAppendPaths(t *testing.T) {
	for _, c := range []struct {
		n, batch           int
		distinct, noMemory bool
		nullRun            bool // memory null in the middle third of the rows
	}{{5000, 700, false, false, false}, {3000, 1000, false, true, false}, {4001, 900, false, false, true},
		{3 * maxFloatDict, 2 * maxFloatDict, true, false, false}} {
		rows := usageRows(uint64(c.n), c.n, c.distinct, c.noMemory)
		if c.nullRun {
			for i := c.n / 3; i < 2*c.n/3; i++ {
				rows[i].Memory = math.NaN()
			}
		}
		want, got := writeUsage(t, rows, c.batch, "append", 7)
		if len(got) != len(rows) {
			t.Fatalf("read %d rows, wrote %d", len(got), len(rows))
		}
		for i := range rows {
			if !sameUsageRow(got[i], rows[i]) {
				t.Fatalf("row %d: got %+v, want %+v", i, got[i], rows[i])
			}
		}
		for _, how := range []string{"batch", "columns"} {
			for seed := uint64(1); seed <= 3; seed++ {
				raw, _ := writeUsage(t, rows, c.batch, how, seed)
				if !bytes.Equal(parquetPages(raw), parquetPages(want)) || len(raw) != len(want) {
					t.Fatalf("n=%d %s seed %d: the file differs from the one Append wrote", c.n, how, seed)
				}
			}
		}
		pf, err := file.NewParquetReader(bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		rg := pf.MetaData().RowGroup(0)
		cpu, err := rg.ColumnChunk(3)
		if err != nil {
			t.Fatal(err)
		}
		// Few distinct values: every data page holds dictionary ids; plain
		// data pages appear only when the writer gave up on the dictionary.
		// (Page type 2 is DICTIONARY_PAGE in parquet.thrift, itself PLAIN.)
		plain := false
		for _, st := range cpu.EncodingStats() {
			plain = plain || (int(st.PageType) != 2 && st.Encoding == parquet.Encodings.Plain)
		}
		if !c.distinct && (!cpu.HasDictionaryPage() || plain) {
			t.Errorf("n=%d: cpu dictionary page %v, plain data pages %v, want true, false", c.n, cpu.HasDictionaryPage(), plain)
		}
	}
}
