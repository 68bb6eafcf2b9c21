package main

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/internal/duckdbtest"
	"github.com/wlprof/wlprof/internal/synth"
)

// world writes a small synthetic world (as wlprof synth: 10 tenants of
// 1–3 servers, 4 days; WLPROF_BEAM_WORLD_TENANTS and _DAYS make it
// larger) and returns its CSV's path.
func world(t testing.TB) string {
	t.Helper()
	o := synth.Default()
	o.Tenants, o.Days, o.MaxServers = 10, 4, 3
	if n, err := strconv.Atoi(os.Getenv("WLPROF_BEAM_WORLD_TENANTS")); err == nil && n > 0 {
		o.Tenants = n
	}
	if d, err := strconv.ParseFloat(os.Getenv("WLPROF_BEAM_WORLD_DAYS"), 64); err == nil && d > 0 {
		o.Days = d
	}
	path := filepath.Join(t.TempDir(), "world.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	if _, _, err := synth.Generate(w, o); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return path
}

// shard splits a CSV's rows into n files by server (each file keeps the
// header and the rows' order); salt changes which server goes where
// ("by-day": by the day of the sample instead; "by-row": by the whole row,
// so that a server's or a run's rows are spread), and the files are named in
// reverse, so that shard order differs too.
func shard(t testing.TB, path string, n int, salt string) string {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r := bufio.NewReaderSize(in, 1<<20)
	header, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	parts := make([]*bufio.Writer, n)
	files := make([]*os.File, n)
	for i := range parts {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("part-%03d.csv", n-1-i)))
		if err != nil {
			t.Fatal(err)
		}
		files[i], parts[i] = f, bufio.NewWriterSize(f, 1<<20)
		parts[i].Write(header)
	}
	for {
		l, err := r.ReadSlice('\n')
		if err != nil && len(l) == 0 {
			break
		}
		l = bytes.TrimSuffix(l, []byte("\n"))
		if len(l) == 0 {
			continue
		}
		fields := bytes.SplitN(l, []byte(","), 4)
		h := fnv.New32a()
		if salt == "by-row" {
			h.Write(l)
		} else if salt == "by-day" {
			// Days end on slot boundaries: no server's slot is split.
			sec, err := strconv.ParseInt(string(fields[2]), 10, 64)
			if err != nil {
				t.Fatalf("timestamp %q: %v", fields[2], err)
			}
			h.Write([]byte(strconv.FormatInt(sec/86400, 10)))
		} else {
			h.Write([]byte(salt))
			h.Write(fields[0])
			h.Write([]byte(","))
			h.Write(fields[1])
		}
		w := parts[h.Sum32()%uint32(n)]
		w.Write(l)
		w.WriteByte('\n')
	}
	for i, w := range parts {
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := files[i].Close(); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part-*.csv")
}

// On a small synthetic world, wlprof-beam classify gives wlprof's
// document byte for byte, on 1, 4 and 16 shards, whatever the sharding.
func TestClassifyWorldAsCore(t *testing.T) {
	path := world(t)
	start := time.Now()
	opts := classify.DefaultOptions()
	want, _ := coreDoc(t, classify.Contract, "csv", []string{path}, opts)
	t.Logf("wlprof ingest + classify: %v", time.Since(start))
	doc := docOf[classify.Document](t, want)
	if doc.Patterns[classify.Periodic] == 0 || doc.Patterns[classify.Constant] == 0 || len(doc.Classes) < 3 {
		t.Fatalf("the world is too plain to compare on: %v, %d classes", doc.Patterns, len(doc.Classes))
	}
	t.Logf("world: %v, %d classes", doc.Patterns, len(doc.Classes))
	checkShardings(t, classify.Contract, classifyJSON, "csv", path, opts, want,
		sharding{1, ""}, sharding{4, ""}, sharding{4, "other"}, sharding{16, ""}, sharding{3, "by-day"})
}

// On the bundled fixture with bad records: the same document, exit code
// 3, and every reject in rejects.csv as in the dataset's rejects table.
func TestClassifyFixtureRejects(t *testing.T) {
	path := testdata(t, "usage_with_rejects.csv")
	want, wantRejects := coreDoc(t, classify.Contract, "csv", []string{path}, classify.DefaultOptions())
	code, _, file, out := beamDoc(t, "classify", classifyJSON, "csv", "--input", path)
	if code != exitRejected || len(wantRejects) == 0 {
		t.Fatalf("exit %d, want %d; %d rejects in wlprof's dataset", code, exitRejected, len(wantRejects))
	}
	if !bytes.Equal(file, want) {
		t.Fatalf("classify.json differs:\n%s", firstDiff(file, want))
	}
	checkRejectsCSV(t, out, wantRejects)
	// The Parquet results read in DuckDB as the document says.
	doc := docOf[classify.Document](t, file)
	res := duckdbtest.Query(t,
		"SELECT tenant, pattern, servers FROM '"+filepath.Join(out, tenantsParquet)+"' ORDER BY tenant",
		"SELECT count(*) AS n FROM '"+filepath.Join(out, classesParquet)+"'")
	if len(res[0]) != len(doc.Tenants) || len(doc.Tenants) == 0 {
		t.Fatalf("tenants.parquet: %d rows, document %d tenants", len(res[0]), len(doc.Tenants))
	}
	for i, row := range res[0] {
		tn := doc.Tenants[i]
		if row["tenant"] != tn.Tenant || row["pattern"] != string(tn.Pattern) || fmt.Sprint(row["servers"]) != fmt.Sprint(tn.Servers) {
			t.Errorf("tenants.parquet row %d: %v, document %+v", i, row, tn)
		}
	}
	if fmt.Sprint(res[1][0]["n"]) != fmt.Sprint(len(doc.Classes)) {
		t.Errorf("classes.parquet: %v rows, document %d classes", res[1][0]["n"], len(doc.Classes))
	}
}

// Bad flags are usage errors (exit 2), all reported at once.
func TestClassifyUsage(t *testing.T) {
	checkUsage(t, []string{"classify", "--format", "hdfs-audit", "--runner", "nope"}, "--format hdfs-audit", "--out", "--runner", "--input")
}

// On the bundled real series (NAB CloudWatch and Azure VMs, 5-minute
// samples, one tenant per file, series-csv): wlprof's document, the step
// chosen from the data as wlprof chooses it.
func TestClassifyRealSeriesAsCore(t *testing.T) {
	var paths, args []string
	for _, name := range []string{"azure_v1_vm1061169_avgcpu.csv", "azure_v1_vm942980_avgcpu.csv",
		"nab_ec2_cpu_utilization_53ea38.csv", "nab_ec2_cpu_utilization_77c1ca.csv", "nab_rds_cpu_utilization_cc0c53.csv"} {
		p := testdata(t, filepath.Join("timeseries", name))
		paths = append(paths, p)
		args = append([]string{"--input", p}, args...) // shards in reverse
	}
	want, _ := coreDoc(t, classify.Contract, "series-csv", paths, classify.DefaultOptions())
	doc := docOf[classify.Document](t, want)
	if len(doc.Tenants) != len(paths) || doc.StepS != 300 || doc.Patterns[classify.Insufficient] == len(paths) {
		t.Fatalf("fixtures: %d tenants, step %gs, %v", len(doc.Tenants), doc.StepS, doc.Patterns)
	}
	t.Logf("fixtures: %v, %d classes", doc.Patterns, len(doc.Classes))
	_, _, file, _ := beamDoc(t, "classify", classifyJSON, "series-csv", args...)
	if !bytes.Equal(file, want) {
		t.Fatalf("classify.json differs from wlprof classify -o json:\n%s", firstDiff(file, want))
	}
}

// Inputs without a usable record: exit 1, saying so; -o text prints the
// class table.
func TestClassifyNoDataAndText(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("tenant,server,timestamp,cpu\nx,y,not-a-time,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runBeam("classify", "-q", "--format", "csv", "--input", bad, "--out", filepath.Join(t.TempDir(), "out"))
	if code != exitError || !strings.Contains(stderr, "no utilisation data") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr := runBeam("classify", "-q", "--format", "csv", "--input", world(t), "--out", filepath.Join(t.TempDir(), "out"))
	if code != exitOK || !strings.Contains(stdout, "HEADROOM") || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// --k, --at and --step reach the stage as wlprof's flags do.
func TestClassifyFlagsAsCore(t *testing.T) {
	path := world(t)
	at := time.Date(2024, 1, 3, 12, 0, 0, 0, time.UTC)
	want, _ := coreDoc(t, classify.Contract, "csv", []string{path}, classify.Options{K: 2, AtMs: at.UnixMilli(), Step: 4 * time.Minute})
	_, _, file, _ := beamDoc(t, "classify", classifyJSON, "csv", "--input", shard(t, path, 4, ""), "--k", "2", "--at", at.Format(time.RFC3339), "--step", "4m")
	doc := docOf[classify.Document](t, file)
	if doc.StepS != 240 || doc.At != at.Format(time.RFC3339) {
		t.Fatalf("step %gs, at %s: the flags did not reach the stage", doc.StepS, doc.At)
	}
	if !bytes.Equal(file, want) {
		t.Fatalf("classify.json differs from wlprof classify --k 2 --at --step 4m:\n%s", firstDiff(file, want))
	}
}
