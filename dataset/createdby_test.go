package dataset

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// parquetMRVersion is parquet-mr's VersionParser pattern
// (org.apache.parquet.VersionParser.FORMAT): what Spark, Hive and Trino
// read created_by with before trusting a file's string statistics.
var parquetMRVersion = regexp.MustCompile(`^(.*?)\s+version\s*(?:([^(]*?)\s*(?:\(\s*build\s*([^)]*?)\s*\))?)?$`)

// Every Parquet file the dataset writes names its writer with a version
// and a build, in the form parquet-mr parses.
func TestCreatedByParsesAsParquetMR(t *testing.T) {
	ds, tx := newTx(t)
	if err := tx.Runs().Append(&Run{Job: "j", Run: "r", SubmitMs: 1, StartMs: 2, EndMs: 3}); err != nil {
		t.Fatal(err)
	}
	if err := tx.WriteSeries([]Series{{Tenant: "t", StartMs: 0, StepS: 60, Values: []float64{0.5, 0.25}}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	m := ds.Manifest()
	for _, table := range []string{RunsTable.Name, SeriesTable.Name} {
		files := m.Tables[table].Files
		if len(files) == 0 {
			t.Fatalf("%s: no file written", table)
		}
		pf, err := file.OpenParquetFile(filepath.Join(ds.Dir, files[0].Path), false)
		if err != nil {
			t.Fatal(err)
		}
		by := pf.MetaData().GetCreatedBy()
		pf.Close()
		g := parquetMRVersion.FindStringSubmatch(by)
		if g == nil || g[1] != "wlprof" || g[2] != Version || g[3] == "" {
			t.Errorf("%s: created_by %q; want \"wlprof version %s (build …)\"", table, by, Version)
		}
	}
}
