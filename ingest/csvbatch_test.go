package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// ingestInto runs a csv ingest of path into a new dataset under dir and
// returns what the dataset holds afterwards (nothing when Run failed).
func ingestInto(t *testing.T, dir, path string, opts Options) ([]dataset.Usage, []dataset.Reject, error) {
	t.Helper()
	ds, tx := datasettest.Begin(t, filepath.Join(dir, "ds-"+filepath.Base(path)))
	if _, err := Run(context.Background(), tx, "csv", []string{path}, opts); err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	datasettest.Commit(t, tx)
	ds, err := dataset.Open(ds.Dir)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := dataset.ReadAll(context.Background(), ds, dataset.UsageTable)
	if err != nil {
		t.Fatal(err)
	}
	rejects, err := dataset.ReadAll(context.Background(), ds, dataset.RejectsTable)
	if err != nil {
		t.Fatal(err)
	}
	return recs, rejects, nil
}

// usageFile returns the usage Parquet file that ingestInto wrote for path.
func usageFile(t *testing.T, dir, path string) []byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "ds-"+filepath.Base(path), "usage", "*.parquet"))
	if err != nil || len(files) != 1 {
		t.Fatalf("usage files %v (%v)", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
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

// TestCSVBatchDrain ingests a file big enough for the parallel chunk parser,
// whose chunks go to the dataset with AppendUsageColumns, and the same content
// gzip-compressed, which goes record by record: the usage and rejects
// tables must hold the same rows in the same order (and what bigCSV says),
// and --max-rejects must stop both at the same reject.
func TestCSVBatchDrain(t *testing.T) {
	data, wantRecs, wantRejects := bigCSV(14 << 20)
	dir := t.TempDir()
	plain := writeFile(t, dir, "big.csv", data)
	gz := writeFile(t, dir, "big.csv.gz", gzipBytes(t, data))
	opts := DefaultOptions()
	opts.MaxRejects = -1
	pRecs, pRej, err := ingestInto(t, dir, plain, opts)
	if err != nil {
		t.Fatal(err)
	}
	sRecs, sRej, err := ingestInto(t, dir, gz, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The same rows through either path make the same file, byte for byte
	// (the dictionaries keep the order of first appearance).
	if a, b := usageFile(t, dir, plain), usageFile(t, dir, gz); !bytes.Equal(parquetPages(a), parquetPages(b)) || len(a) != len(b) {
		t.Errorf("the usage files of the two paths differ (%d and %d bytes)", len(a), len(b))
	}
	checkRecords(t, "batch path vs expected", pRecs, wantRecs)
	checkRecords(t, "record path vs expected", sRecs, wantRecs)
	if len(pRej) != len(wantRejects) || len(sRej) != len(wantRejects) {
		t.Fatalf("%d and %d rejects, want %d", len(pRej), len(sRej), len(wantRejects))
	}
	for i, w := range wantRejects {
		p, s := pRej[i], sRej[i]
		if p.File != plain || s.File != gz {
			t.Fatalf("reject %d: files %q, %q", i, p.File, s.File)
		}
		p.File, s.File = "", ""
		if p != s {
			t.Fatalf("reject %d: batch path %+v, record path %+v", i, p, s)
		}
		if p.Line != w.line || int(p.Col) != w.col || !strings.Contains(p.Reason, w.reason) {
			t.Fatalf("reject %d: %+v, want line %d col %d reason %q", i, p, w.line, w.col, w.reason)
		}
	}

	opts.MaxRejects = int64(len(wantRejects) / 2)
	_, _, perr := ingestInto(t, dir, plain, opts)
	_, _, serr := ingestInto(t, dir, gz, opts)
	if !errors.Is(perr, ErrTooManyRejects) || !errors.Is(serr, ErrTooManyRejects) {
		t.Fatalf("errors %v and %v, want ErrTooManyRejects", perr, serr)
	}
	if a, b := strings.ReplaceAll(perr.Error(), plain, "F"), strings.ReplaceAll(serr.Error(), gz, "F"); a != b {
		t.Fatalf("max-rejects stopped at different records:\n%s\n%s", a, b)
	}
}
