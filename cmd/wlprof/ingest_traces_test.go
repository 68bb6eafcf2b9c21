package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `wlprof ingest auto` over the bundled traces of every trace format: the
// JSON document (formats detected, counts, notes) is pinned by a golden
// file. The vmtable is named after the readings and still joins first.
func TestIngestTracesAutoGolden(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	tr := "../../testdata/traces/"
	out, errs, code := wlprof(t, "ingest", "auto", "-d", ds, "-o", "json", "--tz", "America/New_York",
		tr+"google2019",
		tr+"azure/v1_vm_cpu_readings_joined_sample.csv",
		tr+"azure/v1_vmtable_opendc_sample.csv",
		tr+"alibaba2018",
		tr+"dst",
		tr+"timeseries/nab_nyc_taxi.csv")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (some records rejected); stderr %s", code, errs)
	}
	var doc struct {
		Version int `json:"version"`
		Files   []struct {
			Format string `json:"format"`
		} `json:"files"`
		Tables map[string]int64 `json:"tables"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Version != 1 {
		t.Fatalf("not a version 1 document: %v\n%s", err, out)
	}
	// Join tables (collection_events, the vmtable, container_meta) are read
	// before the rest: 10 VMs and 4 containers.
	if doc.Files[0].Format != "google2019-collection-events" || doc.Files[2].Format != "azure-vmtable" || doc.Files[3].Format != "alibaba2018-container-meta" ||
		doc.Tables["vms"] != 14 || doc.Tables["collections"] != 3 {
		t.Errorf("the join tables are not read first: %+v", doc)
	}
	golden(t, "ingest-traces-auto.json", strings.ReplaceAll(out, dir, "$TMP"))
	// 14, the 10 of the machine-history fixtures, 1 of the re-exported
	// batch_task and the 6 of the container fixtures.
	if !strings.Contains(errs, "31 input record(s) rejected") {
		t.Errorf("stderr lacks the reject count: %s", errs)
	}
}

// The text output of an ingest of a trace's shards: a note every shard
// has (the format's description of its columns) is printed once, with how
// many inputs share it; notes of one input keep its path.
func TestIngestTextGroupsNotes(t *testing.T) {
	dir := t.TempDir()
	out, errs, code := wlprof(t, "ingest", "google2019-usage", "-d", filepath.Join(dir, "ds"),
		"../../testdata/traces/google2019/instance_usage-000000000000.json",
		"../../testdata/traces/google2019/instance_usage-000000000001.json.gz",
		"../../testdata/traces/google2019/instance_usage_alloc_instance.json",
		"../../testdata/traces/google2019/instance_usage_same_machine.json")
	if code != 3 {
		t.Fatalf("exit %d, want 3 (the .json.gz row repeats the .json one); stderr %s", code, errs)
	}
	if n := strings.Count(out, "time = start of the aligned 5-minute window"); n != 1 {
		t.Errorf("the shards' common note printed %d times, want once:\n%s", n, out)
	}
	if !strings.Contains(out, "instance_usage-000000000000.json and 3 other input(s): time = start") {
		t.Errorf("the common note does not say how many inputs share it:\n%s", out)
	}
	golden(t, "ingest-google-shards.txt", strings.ReplaceAll(out, dir, "$TMP"))
}

func TestIngestTraceFlags(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	cases := []struct {
		argv []string
		code int
		err  string
	}{
		{[]string{"ingest", "google2019-usage", "--tenant-key", "tenant", "x.json", "-d", ds}, 2, "--tenant-key \"tenant\": want one of"},
		{[]string{"ingest", "google2019-usage", "--trace-start", "May 1", "x.json", "-d", ds}, 2, "--trace-start"},
		{[]string{"ingest", "google2019-usage", "--tenant-key", "user", "../../testdata/traces/google2019/instance_usage-000000000000.json", "-d", ds}, 1, "collection_events"},
		{[]string{"ingest", "azure-cpu", "--vmtable", "../../testdata/traces/azure/v1_vmtable_opendc_sample.csv",
			"../../testdata/traces/azure/v1_vm_cpu_readings_joined_sample.csv", "-d", ds}, 3, "unknown VM in join"},
		{[]string{"ingest", "series-csv", "--cpu-unit", "raw", "--tenant", "taxi", "../../testdata/traces/timeseries/nab_nyc_taxi.csv", "-d", ds}, 0, ""},
	}
	for _, c := range cases {
		checkExit(t, c.argv, c.code, c.err)
	}
}

// ingest auto DIR leaves out the files below DIR that no format reads,
// listing them (stderr, and undetected in -o json), as wlprof run does; a
// file named on its own that no format reads is still an error (issue 22).
func TestIngestAutoLeavesOutUnknownFiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	os.MkdirAll(in, 0o755)
	b, err := os.ReadFile("../../testdata/usage_with_rejects.csv")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(in, "usage.csv"), b, 0o644)
	os.WriteFile(filepath.Join(in, "README.md"), []byte("# what these files are\n"), 0o644)
	out, errs, code := wlprof(t, "ingest", "auto", in, "-d", filepath.Join(dir, "ds"), "-o", "json")
	if code != 3 || !strings.Contains(errs, "left out "+filepath.Join(in, "README.md")) {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var rep struct {
		Accepted   int64
		Undetected []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Accepted != 6 || len(rep.Undetected) != 1 || rep.Undetected[0].Path != filepath.Join(in, "README.md") {
		t.Errorf("report %+v", rep)
	}
	if _, errs, code := wlprof(t, "ingest", "auto", filepath.Join(in, "README.md"), "-d", filepath.Join(dir, "ds2")); code == 0 || !strings.Contains(errs, "cannot detect the format") {
		t.Errorf("a lone unknown file: exit %d, %q", code, errs)
	}
}
