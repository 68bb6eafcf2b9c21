package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/elasticity"
	"github.com/wlprof/wlprof/internal/duckdbtest"
)

// On the bundled profiling runs (testdata/elasticity/profruns.csv, the
// elasticity package's synthetic world: MapReduce, Spark, Tez and sandbox
// jobs, 106 runs), split into 1, 4 and 16 files by job and task (named in
// reverse): wlprof's document byte for byte; split row by row (a group's
// runs spread over the files), wlprof's document on those files.
func TestElasticityProfRunsAsCore(t *testing.T) {
	path := testdata(t, "elasticity/profruns.csv")
	opts := elasticity.DefaultOptions()
	want, _ := coreDoc(t, elasticity.Contract, "profruns-csv", []string{path}, opts)
	doc := docOf[elasticity.Document](t, want)
	kinds := map[string]int{}
	for _, m := range doc.Models {
		kinds[m.Kind]++
	}
	if kinds["step"] == 0 || kinds["spill-rate"] == 0 || len(doc.Models) < 5 {
		t.Fatalf("the fixture is too plain to compare on: %v", kinds)
	}
	t.Logf("fixture: %d models %v, %d skipped", len(doc.Models), kinds, len(doc.Skipped))
	checkShardings(t, elasticity.Contract, elasticityJSON, "profruns-csv", path, opts, want,
		sharding{1, ""}, sharding{4, ""}, sharding{16, ""}, sharding{4, "other"}, sharding{4, "by-row"})
}

// --job, --grid, --set, --input-bytes, --wall-time and --fit reach the stage as
// wlprof elasticity's flags do; the Parquet results read in DuckDB.
func TestElasticityFlagsAsCore(t *testing.T) {
	path := testdata(t, "elasticity/profruns.csv")
	opts := elasticity.DefaultOptions()
	opts.Job, opts.GridBytes, opts.InputBytes, opts.WallTime, opts.Fit = "wordcount", 256<<20, 10<<30, true, elasticity.FitLeastSquares
	opts.Overrides = elasticity.Conf{"mapreduce.job.maps": "400"}
	want, _ := coreDoc(t, elasticity.Contract, "profruns-csv", []string{path}, opts)
	_, _, file, out := beamDoc(t, "elasticity", elasticityJSON, "profruns-csv", "--input", shard(t, path, 4, ""),
		"--job", "wordcount", "--grid", "256M", "--input-bytes", "10G", "--set", "mapreduce.job.maps=400", "--wall-time", "--fit", "least-squares")
	if !bytes.Equal(file, want) {
		t.Fatalf("elasticity.json differs from wlprof elasticity with the same flags:\n%s", firstDiff(file, want))
	}
	doc := docOf[elasticity.Document](t, file)
	if len(doc.Models) == 0 || doc.Models[0].Job != "wordcount" || doc.Models[0].InputBytes != 10<<30 {
		t.Fatalf("the flags did not reach the stage: %s", file)
	}
	fitted := 0
	for _, m := range doc.Models {
		if m.Kind == "spill-rate" && m.LeastSquares != nil {
			if len(m.FitMemoryBytes) != 0 || m.ParamSources["disk_rate_bytes_per_s"] != "least-squares" && m.LeastSquares.DiskRateBytesPerS > 0 {
				t.Errorf("--fit least-squares did not reach %s/%s: fitted on %v, rate from %q", m.Job, m.Task, m.FitMemoryBytes, m.ParamSources["disk_rate_bytes_per_s"])
			}
			fitted++
		}
	}
	t.Logf("%d of %d models fitted by least squares", fitted, len(doc.Models))
	res := duckdbtest.Query(t,
		"SELECT job, task, kind, ideal_memory_bytes FROM '"+filepath.Join(out, modelsParquet)+"' ORDER BY job, task, framework, slots",
		"SELECT count(*) AS n FROM '"+filepath.Join(out, curvesParquet)+"'")
	points := 0
	for i, m := range doc.Models {
		points += len(m.Curve)
		if i >= len(res[0]) || res[0][i]["task"] != m.Task || res[0][i]["kind"] != m.Kind || fmt.Sprint(res[0][i]["ideal_memory_bytes"]) != fmt.Sprint(m.IdealMemoryBytes) {
			t.Errorf("models.parquet row %d: %v, document %s/%s %s %d", i, res[0], m.Job, m.Task, m.Kind, m.IdealMemoryBytes)
		}
	}
	if len(res[0]) != len(doc.Models) || fmt.Sprint(res[1][0]["n"]) != fmt.Sprint(points) {
		t.Errorf("Parquet: %d models, %v curve points; document %d and %d", len(res[0]), res[1][0]["n"], len(doc.Models), points)
	}
}

// On the bundled job histories (a MapReduce jhist with its _conf.xml
// beside it; two Spark event logs): wlprof's document.
func TestElasticityHistoriesAsCore(t *testing.T) {
	for _, c := range []struct {
		format, glob string
	}{
		{"jhist", "../../testdata/elasticity/hadoop/*.jhist"},
		{"spark-eventlog", "../../testdata/elasticity/spark/*.jsonl"},
	} {
		t.Run(c.format, func(t *testing.T) {
			paths, err := filepath.Glob(c.glob)
			if err != nil || len(paths) == 0 {
				t.Fatalf("%s: %v", c.glob, err)
			}
			for i := range paths {
				paths[i], _ = filepath.Abs(paths[i])
			}
			want, _ := coreDoc(t, elasticity.Contract, c.format, paths, elasticity.DefaultOptions())
			doc := docOf[elasticity.Document](t, want)
			if len(doc.Models)+len(doc.Skipped) == 0 {
				t.Fatalf("fixture: no group")
			}
			t.Logf("%s: %d models, %d skipped", c.format, len(doc.Models), len(doc.Skipped))
			var args []string
			for i := len(paths) - 1; i >= 0; i-- {
				args = append(args, "--input", paths[i])
			}
			_, _, file, _ := beamDoc(t, "elasticity", elasticityJSON, c.format, args...)
			if !bytes.Equal(file, want) {
				t.Fatalf("elasticity.json differs from wlprof elasticity -o json:\n%s", firstDiff(file, want))
			}
		})
	}
}

// Inputs without a profiling run: exit 1, saying so as wlprof does; a bad
// row: exit 3 with wlprof's rejects; -o text prints wlprof's table; bad
// flags: exit 2, all at once.
func TestElasticityErrorsAndText(t *testing.T) {
	dir := t.TempDir()
	path := testdata(t, "elasticity/profruns.csv")
	beam := func(args ...string) []string {
		return append([]string{"elasticity", "-q", "--out", filepath.Join(t.TempDir(), "out")}, args...)
	}
	if code, _, stderr := runBeam(beam("--format", "profruns-csv", "--input", path, "--job", "nope")...); code != exitError || !strings.Contains(stderr, `no profiling runs for job "nope"`) {
		t.Fatalf("--job nope: exit %d, %s", code, stderr)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, append(data, "sort,map,mapreduce,x,1,1,0\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	want, wantRejects := coreDoc(t, elasticity.Contract, "profruns-csv", []string{bad}, elasticity.DefaultOptions())
	code, _, file, out := beamDoc(t, "elasticity", elasticityJSON, "profruns-csv", "--input", bad)
	if code != exitRejected || len(wantRejects) != 1 || !bytes.Equal(file, want) {
		t.Fatalf("exit %d, %d rejects in wlprof's dataset; document equal: %v", code, len(wantRejects), bytes.Equal(file, want))
	}
	checkRejectsCSV(t, out, wantRejects)
	if code, stdout, stderr := runBeam(beam("--format", "profruns-csv", "--input", path)...); code != exitOK || !strings.Contains(stdout, "wordcount") || stderr != "" {
		t.Fatalf("text: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// Bad values are usage errors, all at once; one that does not parse
	// is reported alone, by the flag parser, as wlprof does.
	checkUsage(t, beam("--format", "re-native", "--fit", "nope"), "--format re-native", `fit "nope"`, "--input")
	for _, c := range [][]string{{"--grid", "0"}, {"--input-bytes", "-1"}, {"--set", "nokey"}} {
		code, _, stderr := runBeam(beam(c...)...)
		if want := fmt.Sprintf("invalid argument %q for %q flag", c[1], c[0]); code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c, code, stderr, exitUsage, want)
		}
	}
}
