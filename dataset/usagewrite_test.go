package dataset

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// The usage encoder writes what pqarrow writes for the same rows, as far
// as readers tell: pqarrow's reader returns the rows written from both
// files, and the files agree on schema, row groups, levels per chunk,
// encodings and the time column's statistics.
func TestUsageEncoderEqualsPqarrow(t *testing.T) {
	rows := usageWorld(21, 150_000)
	mine := writeIngests(t, UsageTable, rows, 40_000)
	ownPages = false
	defer func() { ownPages = true }()
	theirs := writeIngests(t, UsageTable, rows, 40_000)
	ownPages = true
	for name, ds := range map[string]*Dataset{"own encoder": mine, "pqarrow": theirs} {
		got, err := ReadAll(context.Background(), ds, UsageTable)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(rows) {
			t.Fatalf("%s: %d rows, wrote %d", name, len(got), len(rows))
		}
		for i := range rows {
			if !equalNaN(got[i], rows[i]) {
				t.Fatalf("%s row %d: %+v, wrote %+v", name, i, got[i], rows[i])
			}
		}
	}
	mf, tf := mine.Manifest().Tables[UsageTable.Name].Files, theirs.Manifest().Tables[UsageTable.Name].Files
	if len(mf) != len(tf) {
		t.Fatalf("%d files, pqarrow %d", len(mf), len(tf))
	}
	for k := range mf {
		a, err := file.OpenParquetFile(filepath.Join(mine.Dir, mf[k].Path), false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := file.OpenParquetFile(filepath.Join(theirs.Dir, tf[k].Path), false)
		if err != nil {
			t.Fatal(err)
		}
		if !a.MetaData().Schema.Equals(b.MetaData().Schema) || a.NumRowGroups() != b.NumRowGroups() {
			t.Fatalf("file %d: schema or row groups differ", k)
		}
		for rg := 0; rg < a.NumRowGroups(); rg++ {
			ra, rb := a.MetaData().RowGroup(rg), b.MetaData().RowGroup(rg)
			for c := 0; c < ra.NumColumns(); c++ {
				ca, _ := ra.ColumnChunk(c)
				cb, _ := rb.ColumnChunk(c)
				// The pages' encodings (Encodings() comes from the writer
				// properties, the same for both), not their counts: pqarrow
				// cuts pages at 1 MB.
				encs := func(es []metadata.PageEncodingStats) []string {
					var out []string
					for _, e := range es {
						out = append(out, fmt.Sprint(e.PageType, e.Encoding))
					}
					slices.Sort(out)
					return slices.Compact(out)
				}
				// The own encoder stores a value column's chunk uncompressed
				// where zstd would not shrink it by an eighth; pqarrow
				// compresses every chunk, so its chunk must not shrink by an
				// eighth either. The names and times stay compressed.
				codecOK := ca.Compression() == cb.Compression() ||
					(c == usageCPULeaf || c == usageMemoryLeaf) &&
						ca.Compression() == compress.Codecs.Uncompressed && cb.TotalCompressedSize()*8 > cb.TotalUncompressedSize()*7
				if ca.NumValues() != cb.NumValues() || ca.HasDictionaryPage() != cb.HasDictionaryPage() ||
					!slices.Equal(encs(ca.EncodingStats()), encs(cb.EncodingStats())) || !codecOK {
					t.Fatalf("file %d group %d column %v: levels %d dict %v %v %v, pqarrow %d %v %v %v (%d of %d bytes)", k, rg, ca.PathInSchema(),
						ca.NumValues(), ca.HasDictionaryPage(), encs(ca.EncodingStats()), ca.Compression(), cb.NumValues(), cb.HasDictionaryPage(),
						encs(cb.EncodingStats()), cb.Compression(), cb.TotalCompressedSize(), cb.TotalUncompressedSize())
				}
				sa, _ := ca.StatsSet()
				sb, _ := cb.StatsSet()
				if sa != sb {
					t.Fatalf("file %d group %d column %v: statistics %v, pqarrow %v", k, rg, ca.PathInSchema(), sa, sb)
				}
				if sa {
					xa, _ := ca.Statistics()
					xb, _ := cb.Statistics()
					if xa.NullCount() != xb.NullCount() || xa.HasMinMax() != xb.HasMinMax() ||
						(xa.HasMinMax() && (string(xa.EncodeMin()) != string(xb.EncodeMin()) || string(xa.EncodeMax()) != string(xb.EncodeMax()))) {
						t.Fatalf("file %d group %d column %v: statistics %v, pqarrow %v", k, rg, ca.PathInSchema(), xa, xb)
					}
				}
			}
		}
		a.Close()
		b.Close()
	}
}

// The same rows make the same bytes: the encoder's reused buffers leave
// nothing behind in a page (bit-packed runs are padded with zeros).
func TestUsageEncoderDeterministic(t *testing.T) {
	rows := usageWorld(22, 90_000)
	a, b := writeIngests(t, UsageTable, rows, 7_000), writeIngests(t, UsageTable, rows, 7_000)
	for k, fa := range a.Manifest().Tables[UsageTable.Name].Files {
		ba, err := os.ReadFile(filepath.Join(a.Dir, fa.Path))
		if err != nil {
			t.Fatal(err)
		}
		bb, err := os.ReadFile(filepath.Join(b.Dir, b.Manifest().Tables[UsageTable.Name].Files[k].Path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ba, bb) {
			t.Fatalf("file %d: two writes of the same rows differ", k)
		}
	}
}

// A scan that stops early (fn fails on the first batch) returns only once
// its workers are done with the page decoders it then closes: before,
// a worker could still be inside zstd's DecodeAll (a send on a closed
// channel under the race detector).
func TestScanUsageStopsEarly(t *testing.T) {
	rows := usageWorld(23, 200_000)
	ds := writeIngests(t, UsageTable, rows, 10_000)
	stop := fmt.Errorf("stop")
	for k := 0; k < 20; k++ {
		err := ScanUsageBatches(context.Background(), ds, func(*UsageBatch) error { return stop })
		if err != stop {
			t.Fatalf("scan %d: %v, want fn's error", k, err)
		}
	}
}

// Width-0 bit-packed runs (a one-entry dictionary, fewer than 16 ids in a
// page) take no bytes and decode; the fast path takes such groups.
func TestUsageFastPathOneTenant(t *testing.T) {
	rows := make([]Usage, 9)
	for i := range rows {
		rows[i] = Usage{Tenant: "only", Server: "s", TimeMs: int64(i) * 1000, CPU: 0.5, Memory: math.NaN()}
	}
	ds := writeIngests(t, UsageTable, rows, 3)
	if took, groups := fastGroups(t, ds); took != groups {
		t.Fatalf("the fast path took %d of %d row groups", took, groups)
	}
}

// BenchmarkUsageWrite: four row groups of usage rows through a Writer and
// the usage encoder (its columns two at a time), committed; ns/op is per
// file.
func BenchmarkUsageWrite(b *testing.B) {
	rows := usageWorld(24, 4*BatchRows)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ds, err := OpenOrCreate(filepath.Join(b.TempDir(), "ds"))
		if err != nil {
			b.Fatal(err)
		}
		tx, err := ds.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if err := WriterFor(tx, UsageTable).AppendBatch(rows); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}
