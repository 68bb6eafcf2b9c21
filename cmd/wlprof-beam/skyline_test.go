package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/duckdbtest"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/skyline"
)

// The helpers every command's tests share (with world and shard, in
// classify_test.go): wlprof's answer on an input (coreDoc), wlprof-beam's
// (beamDoc), and the checks that they agree.

// solveS is the one field of a skyline document that is a time.
var solveS = regexp.MustCompile(`"solve_s": [0-9.e+-]+`)

func maskSolveS(b []byte) []byte { return solveS.ReplaceAll(b, []byte(`"solve_s": 0`)) }

// testdata is the absolute path of a file the repository bundles under
// testdata/ (the commands are given absolute paths, as a runner's workers
// need them).
func testdata(t testing.TB, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("../../testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// coreDataset is wlprof ingest FORMAT PATHS into a new dataset.
func coreDataset(t testing.TB, format string, paths []string) *dataset.Dataset {
	t.Helper()
	_, ds, err := ingest.Fresh(context.Background(), filepath.Join(t.TempDir(), "ds"), format, paths, ingest.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// coreDoc is wlprof ingest FORMAT PATHS + wlprof STAGE -o json with the
// stage's options (solve_s masked), and the rejects.
func coreDoc[O, I, R any, D stage.Document](t testing.TB, st stage.Stage[O, I, R, D], format string, paths []string, opts O) ([]byte, []dataset.Reject) {
	t.Helper()
	ctx := context.Background()
	ds := coreDataset(t, format, paths)
	res, err := st.Execute(ctx, ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, st.Document(res)); err != nil {
		t.Fatal(err)
	}
	rejects, err := dataset.ReadRejects(ctx, ds, "")
	if err != nil {
		t.Fatal(err)
	}
	return maskSolveS(buf.Bytes()), rejects
}

// docOf decodes a JSON document.
func docOf[D any](t testing.TB, b []byte) D {
	t.Helper()
	var doc D
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// beamDoc runs wlprof-beam CMD -o json -q --format FORMAT --out DIR ARGS
// and returns its exit code, stdout and DIR/file (solve_s masked in both),
// and DIR.
func beamDoc(t testing.TB, cmd, file, format string, args ...string) (int, []byte, []byte, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runBeam(append([]string{cmd, "-o", "json", "-q", "--format", format, "--out", out}, args...)...)
	if code != exitOK && code != exitRejected {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := os.ReadFile(filepath.Join(out, file))
	if err != nil {
		t.Fatal(err)
	}
	return code, maskSolveS([]byte(stdout)), maskSolveS(doc), out
}

// checkAsCore fails t unless wlprof-beam CMD exited 0 and wrote want,
// wlprof CMD's document, to DIR/file and to stdout, byte for byte.
func checkAsCore(t testing.TB, cmd, file string, code int, stdout, got, want []byte) {
	t.Helper()
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from wlprof %s -o json:\n%s", file, cmd, firstDiff(got, want))
	}
	if !bytes.Equal(stdout, want) {
		t.Fatalf("stdout differs from %s", file)
	}
}

// sharding is one way of splitting an input into files: shard's n and
// salt.
type sharding struct {
	n    int
	salt string
}

// checkShardings runs wlprof-beam STAGE on path split each way, one
// subtest each, and checks that it gives wlprof STAGE's document
// (checkAsCore): want, wlprof's on path, or, on shards split "by-row" (a
// key's rows spread over them), wlprof's on those shards, which ingest
// reads in the order of their names as wlprof-beam does.
func checkShardings[O, I, R any, D stage.Document](t *testing.T, st stage.Stage[O, I, R, D], file, format, path string, opts O, want []byte, shardings ...sharding) {
	t.Helper()
	for _, c := range shardings {
		t.Run(fmt.Sprintf("%d-shards-%s", c.n, c.salt), func(t *testing.T) {
			glob := shard(t, path, c.n, c.salt)
			want := want
			if c.salt == "by-row" {
				shards, _ := filepath.Glob(glob)
				want, _ = coreDoc(t, st, format, shards, opts)
			}
			start := time.Now()
			code, stdout, got, _ := beamDoc(t, st.Name, file, format, "--input", glob)
			t.Logf("%d shards: %v", c.n, time.Since(start))
			checkAsCore(t, st.Name, file, code, stdout, got, want)
		})
	}
}

// checkRejectsCSV checks DIR/rejects.csv against the rejects of wlprof's
// dataset.
func checkRejectsCSV(t *testing.T, out string, want []dataset.Reject) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, rejectsCSV))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("file,line,col,format,reason,record\n")
	for _, r := range want {
		fmt.Fprintf(&b, "%s,%d,%d,%s,%s,%s\n", r.File, r.Line, r.Col, r.Format, csvField(r.Reason), csvField(r.Record))
	}
	if string(data) != b.String() {
		t.Fatalf("rejects.csv:\n%s\nwant:\n%s", data, b.String())
	}
}

// csvField quotes s as encoding/csv does.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\r\n") || strings.HasPrefix(s, " ") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// firstDiff shows the first differing line of two documents.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < min(len(g), len(w)); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(g), len(w))
}

// checkUsage runs wlprof-beam ARGS and fails t unless it is a usage error
// (exit 2) whose message names each of names: every problem at once.
func checkUsage(t *testing.T, args []string, names ...string) {
	t.Helper()
	code, _, stderr := runBeam(args...)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d: %s", code, exitUsage, stderr)
	}
	for _, want := range names {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not name %s", stderr, want)
		}
	}
}

// lineShards splits a file without a header into n files, line i to file
// i mod n, the files named in reverse; some may be empty.
func lineShards(t *testing.T, path string, n int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]strings.Builder, n)
	for i, l := range strings.SplitAfter(string(data), "\n") {
		parts[i%n].WriteString(l)
	}
	dir := t.TempDir()
	for i := range parts {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%03d.txt", n-1-i)), []byte(parts[i].String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part-*")
}

// skylineWorld writes a small synthetic skyline-csv (seeded): jobs of one
// to six runs, each a step function of whole and fractional containers at
// irregular offsets, some runs much longer than their job's others.
func skylineWorld(t *testing.T, jobs int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 1))
	var b strings.Builder
	b.WriteString("job,run,time,containers\n")
	for j := 0; j < jobs; j++ {
		runs := 1 + rng.IntN(6)
		base := 1 + rng.IntN(30)
		for r := 0; r < runs; r++ {
			steps := 3 + rng.IntN(25)
			if rng.IntN(10) == 0 {
				steps *= 6
			}
			t := 0
			for k := 0; k < steps; k++ {
				c := float64(base + rng.IntN(base+1) - base/2)
				if rng.IntN(4) == 0 {
					c += 0.5
				}
				fmt.Fprintf(&b, "job%02d,run%d,%d,%g\n", j, r, t, c)
				t += []int{15, 30, 60, 90, 120}[rng.IntN(5)]
			}
			fmt.Fprintf(&b, "job%02d,run%d,%d,0\n", j, r, t)
		}
	}
	path := filepath.Join(t.TempDir(), "world.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// On a synthetic world of 40 jobs, wlprof-beam skyline gives wlprof's
// document (but solve_s) on 1, 4 and 16 shards of whole runs, named in
// reverse and with two different shardings; on runs spread row by row
// over 4 shards, the document of wlprof on those shards.
func TestSkylineWorldAsCore(t *testing.T) {
	path := skylineWorld(t, 40)
	opts := skyline.DefaultOptions()
	want, _ := coreDoc(t, skyline.Contract, "skyline-csv", []string{path}, opts)
	doc := docOf[skyline.Document](t, want)
	if len(doc.Jobs) < 20 || len(doc.Skipped) == 0 {
		t.Fatalf("the world is too plain to compare on: %d jobs fitted, %d skipped", len(doc.Jobs), len(doc.Skipped))
	}
	checkShardings(t, skyline.Contract, skylineJSON, "skyline-csv", path, opts, want,
		sharding{1, ""}, sharding{4, ""}, sharding{4, "other"}, sharding{16, ""}, sharding{4, "by-row"})
}

// On the bundled Hadoop ResourceEstimator fixture (13 runs of tpch_q12),
// split into 1, 4 and 16 files: wlprof's document, with the default
// flags and with --beta auto, --alpha and --alpha-sweep, --step and
// --model textbook.
func TestSkylineResourceEstimatorAsCore(t *testing.T) {
	path := testdata(t, "resourceestimator/tpch_q12.txt")
	tuned := skyline.DefaultOptions()
	tuned.BetaAuto, tuned.Alpha, tuned.AlphaSweep, tuned.StepS, tuned.Model = true, 0.3, []float64{0.1, 0.9}, 10, skyline.Textbook
	for _, c := range []struct {
		name string
		opts skyline.Options
		args []string
	}{
		{"defaults", skyline.DefaultOptions(), nil},
		{"tuned", tuned, []string{"--beta", "auto", "--alpha", "0.3", "--alpha-sweep", "0.1,0.9", "--step", "10s", "--model", "textbook"}},
	} {
		want, _ := coreDoc(t, skyline.Contract, "re-native", []string{path}, c.opts)
		doc := docOf[skyline.Document](t, want)
		if len(doc.Jobs) != 1 || doc.Jobs[0].Runs != 13 {
			t.Fatalf("fixture: %+v", doc.Result)
		}
		for _, n := range []int{1, 4, 16} {
			t.Run(fmt.Sprintf("%s-%d-shards", c.name, n), func(t *testing.T) {
				_, _, file, _ := beamDoc(t, "skyline", skylineJSON, "re-native", append([]string{"--input", lineShards(t, path, n)}, c.args...)...)
				if !bytes.Equal(file, want) {
					t.Fatalf("skyline.json differs from wlprof skyline -o json:\n%s", firstDiff(file, want))
				}
			})
		}
	}
}

// On the other bundled job fixtures (YARN RM log, Spark event logs, and
// skyline CSVs with bad rows): wlprof's document and, where rows are bad,
// exit 3 and wlprof's rejects; the Parquet results read in DuckDB.
func TestSkylineJobFixturesAsCore(t *testing.T) {
	abs := func(names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, testdata(t, filepath.Join("jobs", n)))
		}
		return out
	}
	one := skyline.DefaultOptions()
	one.MinRuns = 1
	for _, c := range []struct {
		format  string
		paths   []string
		opts    skyline.Options
		args    []string
		rejects bool
	}{
		{"skyline-csv", abs("skyline/timestamps.csv", "skyline/offsets.csv"), skyline.DefaultOptions(), nil, true},
		{"yarn-rm", abs("resourceestimator/rmLog.txt"), one, []string{"--min-runs", "1"}, false},
		{"spark-eventlog", abs("spark/sparklens_local-1532512550423.jsonl", "spark/drelephant_event_log_1.jsonl"), one, []string{"--min-runs", "1"}, false},
	} {
		t.Run(c.format, func(t *testing.T) {
			sorted := append([]string(nil), c.paths...)
			sort.Strings(sorted)
			want, wantRejects := coreDoc(t, skyline.Contract, c.format, sorted, c.opts)
			args := c.args
			for _, p := range c.paths {
				args = append(args, "--input", p)
			}
			code, _, file, out := beamDoc(t, "skyline", skylineJSON, c.format, args...)
			if !bytes.Equal(file, want) {
				t.Fatalf("skyline.json differs from wlprof skyline -o json:\n%s", firstDiff(file, want))
			}
			doc := docOf[skyline.Document](t, file)
			if len(doc.Jobs) == 0 {
				t.Fatalf("nothing fitted: %s", file)
			}
			if (code == exitRejected) != c.rejects || (len(wantRejects) > 0) != c.rejects {
				t.Fatalf("exit %d with %d rejects in wlprof's dataset", code, len(wantRejects))
			}
			checkRejectsCSV(t, out, wantRejects)
			res := duckdbtest.Query(t,
				"SELECT job, runs, peak_reservation FROM '"+filepath.Join(out, skylinesParquet)+"' ORDER BY job",
				"SELECT job, count(*) AS n, max(reservation) AS peak FROM '"+filepath.Join(out, reservationsParquet)+"' GROUP BY job ORDER BY job")
			if len(res[0]) != len(doc.Jobs) || len(res[1]) != len(doc.Jobs) {
				t.Fatalf("Parquet: %d and %d jobs, document %d", len(res[0]), len(res[1]), len(doc.Jobs))
			}
			for i, f := range doc.Jobs {
				row, steps := res[0][i], res[1][i]
				if row["job"] != f.Job || fmt.Sprint(row["runs"]) != fmt.Sprint(f.Runs) || fmt.Sprint(row["peak_reservation"]) != fmt.Sprint(f.Peak()) ||
					steps["job"] != f.Job || fmt.Sprint(steps["n"]) != fmt.Sprint(len(f.Reservation)) || fmt.Sprint(steps["peak"]) != fmt.Sprint(f.Peak()) {
					t.Errorf("Parquet rows %v and %v, document job %s: %d runs, %d steps, peak %d", row, steps, f.Job, f.Runs, len(f.Reservation), f.Peak())
				}
			}
		})
	}
}

// A job whose run uses nothing is skipped by wlprof skyline with the job's
// reason while the others are fitted; wlprof-beam does the same (exit 0,
// the same reason). --job picks one job, and a job that is not there or
// has too few runs is an error.
func TestSkylineErrorsAsCore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sky.csv")
	if err := os.WriteFile(path, []byte("job,run,time,containers\na,1,0,2\na,1,60,0\na,2,0,0\na,2,60,0\nb,1,0,1\nb,2,0,3\nc,1,0,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := skyline.Contract.Execute(context.Background(), coreDataset(t, "skyline-csv", []string{path}), skyline.DefaultOptions())
	if err != nil || len(res.Skipped) == 0 {
		t.Fatalf("wlprof skyline: %v, skipped %+v; want job a (a run that uses nothing) skipped", err, res)
	}
	var reasonA string
	for _, s := range res.Skipped {
		if s.Job == "a" {
			reasonA = s.Reason
		}
	}
	beam := func(args ...string) (int, string, string) {
		return runBeam(append([]string{"skyline", "-q", "-o", "json", "--format", "skyline-csv", "--input", path, "--out", filepath.Join(t.TempDir(), "out")}, args...)...)
	}
	// Job a cannot be fitted: skipped with the core's reason, b fitted.
	if code, stdout, stderr := beam(); code != exitOK || !strings.Contains(stdout, `"job": "b"`) || reasonA == "" || !strings.Contains(stdout, reasonA) {
		t.Fatalf("exit %d, stdout %s stderr %q; want exit 0, b fitted and a skipped for %q", code, stdout, stderr, reasonA)
	}
	if code, stdout, stderr := beam("--job", "b"); code != exitOK || !strings.Contains(stdout, `"job": "b"`) {
		t.Fatalf("--job b: exit %d, %s %s", code, stdout, stderr)
	}
	if code, _, stderr := beam("--job", "c"); code != exitError || !strings.Contains(stderr, "too few runs") {
		t.Fatalf("--job c: exit %d, %s", code, stderr)
	}
	if code, _, stderr := beam("--job", "nope"); code != exitError || !strings.Contains(stderr, `job "nope"`) {
		t.Fatalf("--job nope: exit %d, %s", code, stderr)
	}
	// An input without skylines is the stage's "nothing to work on", as
	// wlprof skyline says it.
	empty := filepath.Join(dir, "empty.csv")
	if err := os.WriteFile(empty, []byte("job,run,time,containers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runBeam("skyline", "-q", "--format", "skyline-csv", "--input", empty, "--out", filepath.Join(t.TempDir(), "out"))
	if code != exitError || !strings.Contains(stderr, skyline.ErrNoSkylines.Error()) {
		t.Fatalf("no skylines: exit %d, %s", code, stderr)
	}
}

// Bad flags are usage errors (exit 2), all reported at once (a value that
// does not parse is reported alone, by the flag parser, as wlprof does);
// -o text prints wlprof skyline's table.
func TestSkylineUsageAndText(t *testing.T) {
	checkUsage(t, []string{"skyline", "--format", "csv", "--alpha", "2", "--beta", "-1", "--runner", "nope"},
		"--format csv", "alpha 2", "beta -1", "--out", "--runner", "--input")
	code, _, stderr := runBeam("skyline", "--beta", "x")
	if want := `invalid argument "x" for "--beta" flag: want a number ≥ 0 or auto`; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("--beta x: exit %d, %q; want %d and %q", code, stderr, exitUsage, want)
	}
	path := testdata(t, "resourceestimator/tinySample.txt")
	code, stdout, stderr := runBeam("skyline", "-q", "--format", "re-native", "--input", path, "--out", filepath.Join(t.TempDir(), "out"))
	if code != exitOK || !strings.Contains(stdout, "tpch_q12") || !strings.Contains(stdout, "provisioning") || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// The portable runners get a worker binary from wlprof-beam, never the
// SDK's CGO_ENABLED=0 cross-compile (which cannot build CLP's binding):
// the one named, or this very program on linux/amd64.
func TestWorkerBinary(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	got, err := workerBinary("")
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
		if err != nil || got != self {
			t.Fatalf("workerBinary(\"\") = %q, %v; want this program %q", got, err, self)
		}
	} else if err == nil || !strings.Contains(err.Error(), "--worker-binary") {
		t.Fatalf("workerBinary(\"\") on %s/%s = %q, %v; want an error naming --worker-binary", runtime.GOOS, runtime.GOARCH, got, err)
	}
	if got, err := workerBinary("bin/wlprof-beam"); err != nil || !filepath.IsAbs(got) || !strings.HasSuffix(got, "bin/wlprof-beam") {
		t.Fatalf("workerBinary(bin/wlprof-beam) = %q, %v", got, err)
	}
}
