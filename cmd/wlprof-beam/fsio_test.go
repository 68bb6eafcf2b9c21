package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/memfs"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/gcpopts"
	"github.com/wlprof/wlprof/internal/duckdbtest"
)

// runBeam runs wlprof-beam with args and returns its exit code, stdout
// and stderr.
func runBeam(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, streams{Out: &stdout, Err: &stderr})
	return code, stdout.String(), stderr.String()
}

// toMemfs copies the files of a local glob into memfs under dir and
// returns the glob of the copies.
func toMemfs(t *testing.T, glob, dir string) string {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v %v", glob, files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		memfs.Write(dir+"/"+filepath.Base(f), b)
	}
	return dir + "/" + filepath.Base(glob)
}

// readMemfs reads a file of memfs.
func readMemfs(t *testing.T, path string) []byte {
	t.Helper()
	b, err := readOut(context.Background(), path[:strings.LastIndex(path, "/")], path[strings.LastIndex(path, "/")+1:])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Shards and results on a Beam file system other than the local one
// (memfs://, as gs:// on Dataflow): each command, run on Prism with its
// shards in memfs and --out in memfs, writes the files of the same run on
// local paths, byte for byte (the rejects naming the memfs shards; the
// skyline fits' solve_s, a time, aside), and says the same on stdout.
func TestMemfsInputsAndOutputsAsLocal(t *testing.T) {
	usage := testdata(t, "usage_with_rejects.csv")
	profruns := testdata(t, "elasticity/profruns.csv")
	skylines := skylineWorld(t, 40)
	rolled := testdata(t, "jobs/spark-variants/eventlog_v2_local-1532512550423")
	hadoop := testdata(t, "elasticity/hadoop")
	for _, c := range []struct {
		cmd, format, input string
		outputs            []string
		args               []string
	}{
		{"classify", "csv", shard(t, usage, 3, ""), []string{classifyJSON, tenantsParquet, classesParquet, rejectsCSV}, nil},
		{"skyline", "skyline-csv", shard(t, skylines, 4, ""), []string{skylineJSON, skylinesParquet, reservationsParquet, rejectsCSV}, nil},
		{"elasticity", "profruns-csv", shard(t, profruns, 4, ""), []string{elasticityJSON, modelsParquet, curvesParquet, rejectsCSV}, nil},
		// A rolled Spark log: its parts are read once, in order, from the
		// folder fetched with the first.
		{"elasticity", "spark-eventlog", rolled + "/*", []string{elasticityJSON, modelsParquet, curvesParquet, rejectsCSV}, nil},
		// A job history, with the _conf.xml fetched beside it.
		{"elasticity", "jhist", hadoop + "/*", []string{elasticityJSON, modelsParquet, curvesParquet, rejectsCSV}, nil},
	} {
		t.Run(c.cmd+"-"+c.format, func(t *testing.T) {
			localOut := filepath.Join(t.TempDir(), "out")
			common := append([]string{c.cmd, "-o", "json", "-q", "--format", c.format}, c.args...)
			start := time.Now()
			lcode, lstdout, lstderr := runBeam(append(common, "--input", c.input, "--out", localOut)...)
			t.Logf("local: exit %d in %v", lcode, time.Since(start))
			if lcode != exitOK && lcode != exitRejected {
				t.Fatalf("local run: exit %d: %s", lcode, lstderr)
			}
			mem := "memfs://" + t.Name()
			memIn := mem + "/in/" + filepath.Base(filepath.Dir(c.input))
			glob := toMemfs(t, c.input, memIn)
			memOut := mem + "/out/"
			// A stale output of an earlier run is removed first.
			memfs.Write(memOut+c.outputs[0], []byte("stale"))
			start = time.Now()
			mcode, mstdout, mstderr := runBeam(append(common, "--input", glob, "--out", memOut)...)
			t.Logf("memfs: exit %d in %v", mcode, time.Since(start))
			if mcode != lcode {
				t.Fatalf("memfs run: exit %d, local %d: %s", mcode, lcode, mstderr)
			}
			if c.cmd == "skyline" {
				lstdout, mstdout = string(maskSolveS([]byte(lstdout))), string(maskSolveS([]byte(mstdout)))
			}
			if mstdout != lstdout {
				t.Fatalf("stdout differs:\n%s", firstDiff([]byte(mstdout), []byte(lstdout)))
			}
			for _, name := range c.outputs {
				want, err := os.ReadFile(filepath.Join(localOut, name))
				if err != nil {
					t.Fatal(err)
				}
				got := readMemfs(t, joinOut(memOut, name))
				switch name {
				case rejectsCSV:
					// The rejects name the shards as they were given.
					want = bytes.ReplaceAll(want, []byte(filepath.Dir(c.input)+"/"), []byte(memIn+"/"))
					if c.cmd == "classify" && !bytes.Contains(got, []byte(memIn+"/part-")) {
						t.Errorf("rejects.csv names no memfs shard:\n%s", got)
					}
				case skylineJSON:
					got, want = maskSolveS(got), maskSolveS(want)
				case skylinesParquet:
					// solve_s is a time: the rest of the table is the same.
					tmp := filepath.Join(t.TempDir(), name)
					if err := os.WriteFile(tmp, got, 0o644); err != nil {
						t.Fatal(err)
					}
					q := "SELECT * EXCLUDE (solve_s) FROM '%s' ORDER BY job"
					res := duckdbtest.Query(t, fmt.Sprintf(q, tmp), fmt.Sprintf(q, filepath.Join(localOut, name)))
					if len(res[0]) == 0 || fmt.Sprint(res[0]) != fmt.Sprint(res[1]) {
						t.Errorf("%s: %d rows, local %d, differ", name, len(res[0]), len(res[1]))
					}
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from the local run's (%d bytes, local %d):\n%s", name, len(got), len(want), firstDiff(got, want))
				}
			}
		})
	}
}

// A shard on another store is fetched with what its format reads beside
// it: a job history with its job's _conf.xml, a rolled Spark log's part
// with its folder, under the folder's name; rejects name the store's
// files.
func TestFetchShardCompanions(t *testing.T) {
	ctx := context.Background()
	for _, f := range []string{"job_1_0001-x.jhist", "job_1_0001_conf.xml", "job_2_0002_conf.xml",
		"eventlog_v2_app-1/events_1_app-1", "eventlog_v2_app-1/events_2_app-1.zstd", "eventlog_v2_app-1/appstatus_app-1", "other.csv"} {
		memfs.Write("memfs://fetch/"+f, []byte(f))
	}
	for _, c := range []struct {
		path string
		want []string // files of the local folder
	}{
		{"memfs://fetch/job_1_0001-x.jhist", []string{"job_1_0001-x.jhist", "job_1_0001_conf.xml"}},
		{"memfs://fetch/eventlog_v2_app-1/events_2_app-1.zstd", []string{"appstatus_app-1", "events_1_app-1", "events_2_app-1.zstd"}},
		{"memfs://fetch/other.csv", []string{"other.csv"}},
	} {
		local, name, done, err := fetchShard(ctx, c.path)
		if err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(filepath.Dir(local))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(local), e.Name()))
			if !strings.HasSuffix(c.path[:strings.LastIndex(c.path, "/")+1]+e.Name(), string(b)) {
				t.Errorf("%s: %s holds %q", c.path, e.Name(), b)
			}
			got = append(got, e.Name())
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) || filepath.Base(local) != baseOf(c.path) {
			t.Errorf("%s: fetched %v as %s, want %v", c.path, got, local, c.want)
		}
		if strings.Contains(c.path, "eventlog_v2_") && filepath.Base(filepath.Dir(local)) != "eventlog_v2_app-1" {
			t.Errorf("%s: fetched into %s", c.path, filepath.Dir(local))
		}
		if n := name(local); n != c.path {
			t.Errorf("name(%s) = %s, want %s", local, n, c.path)
		}
		if n := name("/elsewhere/x"); n != "/elsewhere/x" {
			t.Errorf("name(/elsewhere/x) = %s", n)
		}
		done()
		if _, err := os.Stat(local); !os.IsNotExist(err) {
			t.Errorf("%s: left after done: %v", local, err)
		}
	}
}

// A memfs glob that matches nothing is a usage error, as a local one is,
// and so is a scheme without a file system; memfs on a runner of other
// processes is refused.
func TestMemfsUsage(t *testing.T) {
	code, _, stderr := runBeam("classify", "-q", "--format", "csv", "--input", "memfs://nothing/*.csv", "--out", "memfs://nothing/out")
	if code != exitUsage || !strings.Contains(stderr, `--input "memfs://nothing/*.csv": no file matches`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, _, stderr = runBeam("classify", "-q", "--format", "csv", "--input", "hdfs://nn/x/*.csv", "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, `file system scheme "hdfs" not registered`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// A store that fails to list is an error, not a usage error.
	memfs.Write("memfs://bad/x.csv", []byte("x"))
	code, _, stderr = runBeam("classify", "-q", "--format", "csv", "--input", "memfs://bad/[", "--out", t.TempDir())
	if code != exitError || !strings.Contains(stderr, `--input "memfs://bad/[": invalid glob pattern`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, _, stderr = runBeam("classify", "-q", "--format", "csv", "--runner", "flink", "--endpoint", "localhost:1", "--input", "x.csv", "--out", "memfs://x/out")
	if code != exitUsage || !strings.Contains(stderr, "memfs:// is the memory of one process") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Prism as a job server of its own: its EXTERNAL workers are other
	// processes too.
	code, _, stderr = runBeam("classify", "-q", "--format", "csv", "--endpoint", "localhost:1", "--environment-type", "EXTERNAL", "--environment-config", "localhost:2", "--input", "x.csv", "--out", "memfs://x/out")
	if code != exitUsage || !strings.Contains(stderr, "memfs:// is the memory of one process") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// The Dataflow flags and --beam-opt land in the SDK's own flags, where
// its Dataflow runner reads them.
func TestDataflowFlagsReachSDK(t *testing.T) {
	s := shardFlags{Runner: "dataflow", Project: "wlprof-test", Region: "europe-west4", TempLocation: "gs://bucket/tmp/",
		BeamOpts: []string{"num_workers=7", "worker-machine-type=n2-standard-8", "--max_num_workers=20", "labels={\"team\":\"a=b\"}"},
		Inputs:   []string{"gs://bucket/in/*.json"}, Out: "gs://bucket/out", ConnectTimeout: time.Second}
	settings, errs := s.sdkSettings()
	errs = append(errs, s.validateRunner(settings)...)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if err := applySettings(settings); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if *gcpopts.Project != "wlprof-test" || gcpopts.GetRegion(ctx) != "europe-west4" {
		t.Errorf("gcpopts: project %q, region %q", *gcpopts.Project, gcpopts.GetRegion(ctx))
	}
	for name, want := range map[string]string{
		"temp_location": "gs://bucket/tmp/", "staging_location": "gs://bucket/tmp/staging",
		"num_workers": "7", "worker_machine_type": "n2-standard-8", "max_num_workers": "20", "labels": `{"team":"a=b"}`,
	} {
		if got := flag.Lookup(name).Value.String(); got != want {
			t.Errorf("SDK flag %s = %q, want %q", name, got, want)
		}
	}
	// An explicit --staging-location wins over the default, and over a
	// --beam-opt of the same flag.
	s.StagingLocation = "gs://other/stage"
	s.BeamOpts = []string{"staging_location=gs://x/y"}
	settings, _ = s.sdkSettings()
	if err := applySettings(settings); err != nil {
		t.Fatal(err)
	}
	if got := flag.Lookup("staging_location").Value.String(); got != "gs://other/stage" {
		t.Errorf("staging_location %q", got)
	}
}

// A --beam-opt the SDK does not have, or a value of the wrong type, is a
// usage error naming close matches; so is --runner dataflow without its
// project, region and temp location (said before anything is read or
// dialled: the paths here are in a bucket that cannot be reached).
func TestRunnerFlagsUsage(t *testing.T) {
	base := []string{"classify", "-q", "--format", "csv", "--input", "../../testdata/usage_with_rejects.csv", "--out", t.TempDir()}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--beam-opt", "num_workrs=3"}, []string{`the Beam SDK has no flag "num_workrs"`, "did you mean num_workers"}},
		{[]string{"--beam-opt", "machine_typ=n2"}, []string{"did you mean machine_type"}},
		{[]string{"--beam-opt", "num_workers"}, []string{"want KEY=VALUE"}},
		{[]string{"--beam-opt", "num_workers=many"}, []string{`"many" is not a value of the SDK's flag num_workers`}},
		{[]string{"--connect-timeout", "0s"}, []string{"--connect-timeout 0s: want a duration above 0"}},
	} {
		start := time.Now()
		code, _, stderr := runBeam(append(base, c.args...)...)
		if code != exitUsage {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v: took %v", c.args, d)
		}
	}
	start := time.Now()
	code, _, stderr := runBeam("classify", "-q", "--format", "csv", "--runner", "dataflow", "--input", "gs://wlprof-none/in/*.csv", "--out", "gs://wlprof-none/out")
	if code != exitUsage {
		t.Fatalf("dataflow without flags: exit %d: %s", code, stderr)
	}
	for _, w := range []string{"--runner dataflow: give --project", "--region", "--temp-location (a gs://BUCKET/DIR"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q lacks %q", stderr, w)
		}
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("dataflow without flags took %v", d)
	}
	code, _, stderr = runBeam("classify", "-q", "--format", "csv", "--runner", "dataflow", "--project", "p", "--region", "r",
		"--temp-location", "/tmp/x", "--input", "../../testdata/usage_with_rejects.csv", "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, `temp-location "/tmp/x": want a gs:// path`) ||
		!strings.Contains(stderr, "which Dataflow's workers cannot read or write: give a gs:// path") {
		t.Fatalf("dataflow with local paths: exit %d: %s", code, stderr)
	}
}

// A job service that refuses, or accepts but never answers, fails the run
// within --connect-timeout, with the endpoint and what to check (exit 1).
func TestConnectTimeout(t *testing.T) {
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never a word
		}
	}()
	for _, c := range []struct {
		endpoint, want string
		within         time.Duration
	}{
		{refused, "connection refused", 5 * time.Second},
		{silent.Addr().String(), "no answer within 1s (--connect-timeout)", 10 * time.Second},
	} {
		start := time.Now()
		code, _, stderr := runBeam("classify", "-q", "--format", "csv", "--runner", "flink", "--endpoint", c.endpoint,
			"--connect-timeout", "1s", "--input", "../../testdata/usage_with_rejects.csv", "--out", t.TempDir())
		d := time.Since(start)
		t.Logf("%s: exit %d in %v: %s", c.endpoint, code, d, strings.TrimSpace(stderr))
		if code != exitError || !strings.Contains(stderr, "the job service at --endpoint "+c.endpoint) || !strings.Contains(stderr, c.want) {
			t.Errorf("exit %d: %s", code, stderr)
		}
		if d > c.within {
			t.Errorf("took %v", d)
		}
	}
}
