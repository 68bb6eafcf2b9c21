package dataset

import (
	"context"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// scanSlices is scanUsage through ScanUsageSlices, with each batch's
// length.
func scanSlices(t *testing.T, ds *Dataset) (rows []usageRow, lens []int) {
	t.Helper()
	err := ScanUsageSlices(context.Background(), ds, func(b *UsageBatch) error {
		for i := 0; i < b.Len; i++ {
			rows = append(rows, usageRow{b.Tenants[b.TenantIdx[i]], b.Servers[b.ServerIdx[i]], b.TimeMs[i], b.CPU[i]})
		}
		lens = append(lens, b.Len)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows, lens
}

// groupRows is the rows of each usage row group, in table order.
func groupRows(t *testing.T, ds *Dataset) []int {
	t.Helper()
	var out []int
	for _, fi := range ds.Manifest().Tables[UsageTable.Name].Files {
		g, err := openGroupReader(filepath.Join(ds.Dir, fi.Path), usageScanCols, nil)
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

// withoutNullTimes is rows with every null time set to t: the slicer
// takes only row groups without nulls.
func withoutNullTimes(rows []Usage, t int64) []Usage {
	rows = slices.Clone(rows)
	for i := range rows {
		if rows[i].TimeMs == NoTime {
			rows[i].TimeMs = t
		}
	}
	return rows
}

// ScanUsageSlices hands fn the rows ScanUsageBatches does, in the same
// order: the first row group whole, every later one in slices of at most
// usageSliceRows rows (of odd sizes here, so that slices end inside runs
// of ids and miniblocks of times), and whole where the slicer does not
// apply (row groups with null times).
func TestScanUsageSlicesEqualsBatches(t *testing.T) {
	defer func(n int) { usageSliceRows = n }(usageSliceRows)
	for seed := uint64(1); seed <= 2; seed++ {
		rows := usageWorld(seed, 200_000)
		for _, c := range []struct {
			name string
			ds   *Dataset
		}{
			{"null times", writeIngests(t, UsageTable, rows, 70_000)},
			{"no nulls", writeIngests(t, UsageTable, withoutNullTimes(rows, 0), 70_000)},
		} {
			want := scanUsage(t, c.ds, true)
			groups := groupRows(t, c.ds)
			for _, n := range []int{1 << 17, 4099, 7} {
				usageSliceRows = n
				got, lens := scanSlices(t, c.ds)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d %s, slices of %d: %d rows, ScanUsageBatches %d, or they differ", seed, c.name, n, len(got), len(want))
				}
				if lens[0] != groups[0] {
					t.Fatalf("seed %d %s: the first batch has %d rows, the first row group %d", seed, c.name, lens[0], groups[0])
				}
				// A later group comes whole, or in slices of n rows but
				// its last.
				sliced, k := 0, 1
				for _, g := range groups[1:] {
					if lens[k] == g {
						k++
						continue
					}
					for left := g; left > 0; k++ {
						if lens[k] != min(n, left) {
							t.Fatalf("seed %d %s, slices of %d: a batch of %d rows with %d of its group left", seed, c.name, n, lens[k], left)
						}
						left -= lens[k]
					}
					sliced++
				}
				if k != len(lens) {
					t.Fatalf("seed %d %s: %d batches, %d of them accounted for by the groups", seed, c.name, len(lens), k)
				}
				wantSliced := 0
				if n < 70_000 && c.name == "no nulls" {
					wantSliced = len(groups) - 1
				}
				if sliced != wantSliced {
					t.Fatalf("seed %d %s, slices of %d: %d of %d later groups sliced, want %d", seed, c.name, n, sliced, len(groups)-1, wantSliced)
				}
			}
		}
	}
}

// Where a page turns out damaged after slices of its group were handed
// on, the rest of the group comes from arrow's reader from the row the
// slices reached: rest gives the rows a whole decode has after them.
func TestUsageSlicerRest(t *testing.T) {
	defer func(n int) { usageSliceRows = n }(usageSliceRows)
	usageSliceRows = 1000
	ds := writeIngests(t, UsageTable, withoutNullTimes(usageWorld(4, 90_000), 1), 40_000)
	want := scanUsage(t, ds, true)
	first := groupRows(t, ds)[0] // the first file's one group
	fi := ds.Manifest().Tables[UsageTable.Name].Files[1]
	g, err := openGroupReader(filepath.Join(ds.Dir, fi.Path), usageScanCols, usageScanDicts)
	if err != nil {
		t.Fatal(err)
	}
	defer g.close()
	var free usageFree
	defer free.close()
	var sl usageSlicer
	defer sl.close()
	if !sl.prepare(g, 0) {
		t.Fatal("the slicer does not take the group")
	}
	for k := 0; k < 3; k++ {
		if !sl.next(free.batch()) {
			t.Fatal("next failed")
		}
	}
	var got []usageRow
	err = sl.rest(context.Background(), g, 0, &free, func(b *UsageBatch) error {
		for i := 0; i < b.Len; i++ {
			got = append(got, usageRow{b.Tenants[b.TenantIdx[i]], b.Servers[b.ServerIdx[i]], b.TimeMs[i], b.CPU[i]})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	from, end := first+3000, first+int(g.pf.MetaData().RowGroup(0).NumRows())
	if from+len(got) != end || !slices.Equal(got, want[from:end]) {
		t.Fatalf("rest gave %d rows, not the group's %d from row %d on", len(got), end-from, from)
	}
}

// A consumer slower than the decoders gets every row, and reads each
// batch's dictionaries as they were decoded while six workers go on to
// later row groups and take slicers others freed (make test runs it under
// -race).
func TestScanUsageSlicesSlowConsumer(t *testing.T) {
	defer func(n int) { usageSliceRows = n }(usageSliceRows)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(6))
	usageSliceRows = 3000
	ds := writeIngests(t, UsageTable, withoutNullTimes(usageWorld(5, 120_000), 2), 9_000)
	want := scanUsage(t, ds, true)
	var got []usageRow
	err := ScanUsageSlices(context.Background(), ds, func(b *UsageBatch) error {
		time.Sleep(200 * time.Microsecond)
		for i := 0; i < b.Len; i++ {
			got = append(got, usageRow{b.Tenants[b.TenantIdx[i]], b.Servers[b.ServerIdx[i]], b.TimeMs[i], b.CPU[i]})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%d rows, ScanUsageBatches %d, or they differ", len(got), len(want))
	}
}
