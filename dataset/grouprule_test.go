package dataset

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// timeOrdered is a usage trace of tenants tenants sampled together every
// 2 minutes for steps steps, time-major as trace exports are.
func timeOrdered(tenants, steps int) []Usage {
	rows := make([]Usage, 0, tenants*steps)
	for s := 0; s < steps; s++ {
		for k := 0; k < tenants; k++ {
			rows = append(rows, Usage{Tenant: fmt.Sprintf("t%05d", k), Server: fmt.Sprintf("s%05d", k),
				TimeMs: 1_700_000_000_000 + int64(s)*120_000, CPU: float64((k*7+s)%100) / 100, Memory: math.NaN()})
		}
	}
	return rows
}

// writeUsageVia writes rows as one ingest with the writer's own batch size,
// through append (the row-by-row, batch or column-chunk path), and
// returns the dataset and the usage file's bytes.
func writeUsageVia(t *testing.T, rows []Usage, appendRows func(*Writer[Usage], []Usage) error) (*Dataset, []byte) {
	t.Helper()
	ds, tx := newTx(t)
	w := WriterFor(tx, UsageTable)
	if err := appendRows(w, rows); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	fi := ds.Manifest().Tables[UsageTable.Name].Files
	if len(fi) != 1 {
		t.Fatalf("%d usage files", len(fi))
	}
	b, err := os.ReadFile(filepath.Join(ds.Dir, fi[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	return ds, b
}

// A usage row group ends once it holds 256 rows for each tenant seen so
// far, at a multiple of 2^17 rows and at most 2^20: 300 tenants make
// groups of 2^17 rows, 1,000 of 2^18, 5,000 keep 2^20. The groups do not
// depend on how the rows were handed to the writer (one by one, in
// batches, in column chunks of odd sizes), the files are byte-identical,
// and the rows read back.
func TestUsageGroupRule(t *testing.T) {
	for _, c := range []struct {
		tenants, steps int
		want           []int
	}{
		{300, 1000, []int{1 << 17, 1 << 17, 300*1000 - 2<<17}},
		{1000, 400, []int{1 << 18, 400_000 - 1<<18}},
		{5000, 250, []int{1 << 20, 5000*250 - 1<<20}},
	} {
		rows := timeOrdered(c.tenants, c.steps)
		ways := map[string]func(*Writer[Usage], []Usage) error{
			"rows": func(w *Writer[Usage], rs []Usage) error {
				for i := range rs {
					if err := w.Append(&rs[i]); err != nil {
						return err
					}
				}
				return nil
			},
			"batches of 77,777": func(w *Writer[Usage], rs []Usage) error {
				for lo := 0; lo < len(rs); lo += 77_777 {
					if err := w.AppendBatch(rs[lo:min(lo+77_777, len(rs))]); err != nil {
						return err
					}
				}
				return nil
			},
			"column chunks of 50,001": func(w *Writer[Usage], rs []Usage) error {
				for lo := 0; lo < len(rs); lo += 50_001 {
					if err := AppendUsageColumns(w, usageColumnsOf(rs[lo:min(lo+50_001, len(rs))])); err != nil {
						return err
					}
				}
				return nil
			},
		}
		var first []byte
		for _, name := range []string{"rows", "batches of 77,777", "column chunks of 50,001"} {
			if c.tenants == 5000 && name == "rows" {
				continue // a million rows one by one: the other two ways suffice
			}
			ds, b := writeUsageVia(t, rows, ways[name])
			if got := groupRows(t, ds); !slices.Equal(got, c.want) {
				t.Fatalf("%d tenants, %s: row groups %v, want %v", c.tenants, name, got, c.want)
			}
			if first == nil {
				first = b
				got := scanUsage(t, ds, true)
				if len(got) != len(rows) {
					t.Fatalf("%d tenants: %d rows read, %d written", c.tenants, len(got), len(rows))
				}
				for i, r := range rows {
					if want := (usageRow{r.Tenant, r.Server, r.TimeMs, r.CPU}); got[i] != want {
						t.Fatalf("%d tenants, row %d: %+v, wrote %+v", c.tenants, i, got[i], want)
					}
				}
			} else if !bytes.Equal(b, first) {
				t.Fatalf("%d tenants: %s gives another file than the first way", c.tenants, name)
			}
		}
	}
}

// usageColumnsOf is rows as the CSV parser's column chunks: strings as ids
// into the chunk's own tables.
func usageColumnsOf(rows []Usage) *UsageColumns {
	c := &UsageColumns{TenantMap: &IDMap{}, ServerMap: &IDMap{}} // tables of its own: maps of its own
	tid, sid := map[string]int32{}, map[string]int32{}
	id := func(m map[string]int32, strs *[]string, s string) int32 {
		if v, ok := m[s]; ok {
			return v
		}
		m[s] = int32(len(*strs))
		*strs = append(*strs, s)
		return m[s]
	}
	for _, r := range rows {
		c.Tenant = append(c.Tenant, id(tid, &c.Tenants, r.Tenant))
		c.Server = append(c.Server, id(sid, &c.Servers, r.Server))
		c.TimeMs = append(c.TimeMs, r.TimeMs)
		c.CPU = append(c.CPU, r.CPU)
	}
	return c
}

// groupRows is the rows of each usage row group, in table order.
func groupRows(t *testing.T, ds *Dataset) []int {
	t.Helper()
	var out []int
	for _, fi := range ds.Manifest().Tables[UsageTable.Name].Files {
		g, err := openGroupReader(filepath.Join(ds.Dir, fi.Path), []string{"tenant", "server", "time", "cpu"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for rg := 0; rg < g.pf.NumRowGroups(); rg++ {
			out = append(out, int(g.pf.MetaData().RowGroup(rg).NumRows()))
		}
		g.close()
	}
	return out
}
