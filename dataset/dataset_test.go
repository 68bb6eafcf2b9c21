package dataset

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// newDataset is a new dataset in the test's temporary directory.
func newDataset(t *testing.T) *Dataset {
	t.Helper()
	ds, err := OpenOrCreate(filepath.Join(t.TempDir(), "ds"))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// newTx is a new dataset and a transaction on it.
func newTx(t *testing.T) (*Dataset, *Tx) {
	t.Helper()
	ds := newDataset(t)
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	return ds, tx
}

// writeOne writes rows to a new dataset with the generic writer (pqarrow
// unless the table has its own encoder), in row groups of batch rows, in
// one transaction.
func writeOne[T any](t *testing.T, tbl *Table[T], rows []T, batch int) *Dataset {
	t.Helper()
	ds, tx := newTx(t)
	w := WriterFor(tx, tbl)
	w.batch = batch
	for i := range rows {
		if err := w.Append(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return ds
}

// roundTrip writes rows through a transaction and reads them back.
func roundTrip[T any](t *testing.T, tbl *Table[T], rows []T, batch int) []T {
	t.Helper()
	ds := writeOne(t, tbl, rows, batch)
	ds2, err := Open(ds.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := ds2.Rows(tbl.Name); got != int64(len(rows)) {
		t.Fatalf("%s: manifest says %d rows, wrote %d", tbl.Name, got, len(rows))
	}
	got, err := ReadAll(context.Background(), ds2, tbl)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// equalNaN compares records treating NaN as equal to NaN (null round trip).
func equalNaN(a, b any) bool {
	return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b)
}

func checkRoundTrip[T any](t *testing.T, tbl *Table[T], rows []T) {
	for _, batch := range []int{3, BatchRows} { // several row groups, and one
		got := roundTrip(t, tbl, rows, batch)
		if len(got) != len(rows) {
			t.Fatalf("%s: read %d rows, wrote %d", tbl.Name, len(got), len(rows))
		}
		for i := range rows {
			if !equalNaN(got[i], rows[i]) {
				t.Fatalf("%s row %d (batch %d):\n got %#v\nwant %#v", tbl.Name, i, batch, got[i], rows[i])
			}
		}
	}
}

// rngStr is up to 11 runes of alphabet: always UTF-8, which the writers
// insist on (TestAppendRefusesInvalidUTF8).
func rngStr(r *rand.Rand, alphabet string) string {
	n := r.IntN(12)
	rs := []rune(alphabet)
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteRune(rs[r.IntN(len(rs))])
	}
	return b.String()
}

func maybeTime(r *rand.Rand) int64 {
	if r.IntN(5) == 0 {
		return NoTime
	}
	return r.Int64N(4e12) - 1e12
}

func maybeNaN(r *rand.Rand) float64 {
	if r.IntN(4) == 0 {
		return math.NaN()
	}
	return r.Float64()
}

const alpha = "abcxyz-_/é日 \t,\"'<>"

func TestRoundTripEveryTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	n := 50
	usage := make([]Usage, n)
	series := make([]Series, n)
	runs := make([]Run, n)
	sky := make([]SkylineSample, n)
	prov := make([]Provenance, n)
	prof := make([]ProfRun, n)
	rej := make([]Reject, n)
	for i := 0; i < n; i++ {
		usage[i] = Usage{Tenant: rngStr(r, "ab"), Server: rngStr(r, alpha), TimeMs: r.Int64N(4e12), CPU: r.Float64(), Memory: maybeNaN(r)}
		vals := make([]float64, r.IntN(6))
		for j := range vals {
			vals[j] = maybeNaN(r)
		}
		series[i] = Series{Tenant: rngStr(r, alpha), StartMs: maybeTime(r), StepS: 120, Values: vals}
		runs[i] = Run{Job: rngStr(r, "ab"), Run: rngStr(r, alpha), Name: rngStr(r, alpha), User: rngStr(r, "uv"), Queue: "q",
			Status: "FINISHED", SubmitMs: maybeTime(r), StartMs: maybeTime(r), EndMs: maybeTime(r), Source: "yarn-rm"}
		sky[i] = SkylineSample{Job: "j", Run: rngStr(r, "12"), OffsetS: float64(i) * 5, Containers: float64(r.IntN(40)), MemoryBytes: r.Int64(), VCores: r.Float64() * 8}
		prov[i] = Provenance{TimeMs: maybeTime(r), Op: "read", Path: rngStr(r, alpha), Dst: rngStr(r, alpha), User: "u", Job: rngStr(r, "ab"), Run: "r", Attribution: "none"}
		prof[i] = ProfRun{Job: "j", Task: "reduce", Framework: "sandbox", MemoryBytes: r.Int64(), Slots: int32(r.IntN(8)), Repetition: int32(i),
			InputBytes: r.Int64(), RuntimeS: r.Float64(), CPUS: r.Float64(), PeakRSSBytes: r.Int64(), ReadBytes: r.Int64(), WriteBytes: r.Int64(),
			SpilledBytes: r.Int64(), ExitCode: int32(r.IntN(3)) - 1, Capped: r.IntN(2) == 0, Host: "{}", Config: `{"k":"v"}`, Source: "s"}
		rej[i] = Reject{Ingest: 1, File: "f.csv", Line: int64(i + 2), Col: int32(r.IntN(9)), Format: "csv", Reason: rngStr(r, alpha), Record: rngStr(r, alpha)}
	}
	checkRoundTrip(t, UsageTable, usage)
	checkRoundTrip(t, SeriesTable, series)
	checkRoundTrip(t, RunsTable, runs)
	checkRoundTrip(t, SkylinesTable, sky)
	checkRoundTrip(t, ProvenanceTable, prov)
	checkRoundTrip(t, ProfRunsTable, prof)
	checkRoundTrip(t, RejectsTable, rej)
}

func TestAppendSecondIngest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	for k := 0; k < 2; k++ {
		ds, err := OpenOrCreate(dir)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := ds.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 10; i++ {
			if err := tx.Usage().Append(&Usage{Tenant: fmt.Sprint("t", k), Server: "s", TimeMs: int64(i), CPU: 0.5, Memory: math.NaN()}); err != nil {
				t.Fatal(err)
			}
		}
		tx.AddSource(Source{Path: fmt.Sprint("in", k), Format: "csv", Accepted: 10})
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := ds.Manifest()
	if m.Ingests != 2 || len(m.Sources) != 2 || m.Sources[1].Ingest != 2 || len(m.Tables["usage"].Files) != 2 || ds.Rows("usage") != 20 {
		t.Fatalf("manifest after two ingests: %+v", m)
	}
	rows, err := ReadAll(context.Background(), ds, UsageTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 20 || rows[0].Tenant != "t0" || rows[19].Tenant != "t1" {
		t.Fatalf("rows: %d, first %+v last %+v", len(rows), rows[0], rows[len(rows)-1])
	}
}

func TestRefuseUnknownSchemaVersion(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ManifestName), []byte(`{"format":"wlprof-dataset","schema_version":99,"tables":{}}`), 0o644)
	_, err := Open(dir)
	if !errors.Is(err, ErrSchemaVersion) || !strings.Contains(err.Error(), "schema version 99") {
		t.Fatalf("want ErrSchemaVersion naming version 99, got %v", err)
	}
	_, err = OpenOrCreate(dir)
	if !errors.Is(err, ErrSchemaVersion) {
		t.Fatalf("OpenOrCreate must refuse too, got %v", err)
	}
}

func TestRefuseNonEmptyForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	if _, err := OpenOrCreate(dir); err == nil {
		t.Fatal("OpenOrCreate turned a non-empty directory into a dataset")
	}
	if _, err := Open(dir); !errors.Is(err, ErrNoDataset) {
		t.Fatalf("Open: want ErrNoDataset, got %v", err)
	}
}

// snapshot reads every file below dir (path → content).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// A failure after the new parts were moved into place but before the
// manifest was written must leave the dataset byte-identical.
func TestFailureBeforeManifestLeavesDatasetIdentical(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	ds, _ := OpenOrCreate(dir)
	tx, _ := ds.Begin()
	tx.Usage().Append(&Usage{Tenant: "a", Server: "s", TimeMs: 1, CPU: 0.1, Memory: math.NaN()})
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)

	testHookBeforeManifest = func() error { return errors.New("injected") }
	defer func() { testHookBeforeManifest = nil }()
	tx, _ = ds.Begin()
	tx.Usage().Append(&Usage{Tenant: "b", Server: "s", TimeMs: 2, CPU: 0.2, Memory: math.NaN()})
	tx.Rejects().Append(&Reject{File: "x", Reason: "y"})
	if err := tx.Commit(); err == nil || !strings.Contains(err.Error(), "injected") {
		t.Fatalf("commit: want the injected error, got %v", err)
	}
	if after := snapshot(t, dir); !reflect.DeepEqual(before, after) {
		t.Fatalf("dataset changed by a failed commit:\nbefore %v\nafter  %v", keys(before), keys(after))
	}
}

// Leftovers of a killed transaction (staging folder, unlisted part) are
// cleaned by the next transaction and never read.
func TestLeftoversOfKilledTransactionAreIgnored(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	ds, _ := OpenOrCreate(dir)
	tx, _ := ds.Begin()
	tx.Usage().Append(&Usage{Tenant: "a", Server: "s", TimeMs: 1, CPU: 0.1, Memory: math.NaN()})
	tx.Commit()
	os.MkdirAll(filepath.Join(dir, ".staging-000009", "usage"), 0o755)
	os.WriteFile(filepath.Join(dir, "usage", "part-000009.parquet"), []byte("junk"), 0o644)
	ds, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rows, err := ReadAll(context.Background(), ds, UsageTable); err != nil || len(rows) != 1 {
		t.Fatalf("read %d rows, err %v", len(rows), err)
	}
	tx, err = ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	tx.Rollback()
	for _, p := range []string{".staging-000009", "usage/part-000009.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !os.IsNotExist(err) {
			t.Errorf("%s survived cleanup", p)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
