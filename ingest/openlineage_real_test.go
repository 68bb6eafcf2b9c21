package ingest

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

const marquezFixtures = "../testdata/provenance/marquez"

// Marquez's demo history (docker/metadata.json) declares every run's
// inputs and outputs on its START and sends a bare COMPLETE: 13 runs,
// 13 distinct outputs (delivery_times_7_days writes two, email_discounts
// none). Each output is written once, at its run's COMPLETE time, e.g.
// etl_menus completes at 2020-02-22T22:45:52Z.
func TestOpenLineageOutputsDeclaredOnStart(t *testing.T) {
	got := ingestProv(t, "openlineage", nil, filepath.Join(marquezFixtures, "docker_metadata.json"))
	if got.res.Accepted != 26 || got.res.Rejected != 0 {
		t.Fatalf("accepted %d rejected %d, want 26 and 0", got.res.Accepted, got.res.Rejected)
	}
	writes := map[string]dataset.Provenance{}
	reads := 0
	for _, p := range got.prov {
		switch p.Op {
		case OpWrite:
			if _, dup := writes[p.Path]; dup {
				t.Errorf("%s written twice", p.Path)
			}
			writes[p.Path] = p
		case OpRead:
			reads++
		}
	}
	if len(writes) != 13 || reads != 14 {
		t.Fatalf("%d writes and %d reads, want 13 (one per declared output) and 14 (the START events' inputs)", len(writes), reads)
	}
	menus := writes["food_delivery/public.menus"]
	want := dataset.Provenance{TimeMs: time.Date(2020, 2, 22, 22, 45, 52, 0, time.UTC).UnixMilli(), Op: OpWrite, Path: "food_delivery/public.menus",
		Job: "food_delivery/etl_menus", Run: "4d3b8069-69b6-4708-ade0-3275112c9f04", Attribution: "lineage", Cmd: "COMPLETE"}
	if menus != want {
		t.Errorf("etl_menus' output: %+v\nwant %+v", menus, want)
	}
	if tdt := writes["food_delivery/public.top_delivery_times"]; tdt.Job != "food_delivery/delivery_times_7_days" ||
		tdt.TimeMs != time.Date(2020, 2, 22, 22, 58, 2, 0, time.UTC).UnixMilli() {
		t.Errorf("delivery_times_7_days' output: %+v", tdt)
	}
}

// Marquez's listener_1.json (RUNNING) and listener_2.json (COMPLETE, a
// day later) are one run, 5e58a95c…, that declares out_file1 on the first
// and out_file2 on the second: both are its outputs, written when it
// completes (2020-12-29T19:52:00.001+10:00), whichever input is read
// first.
func TestOpenLineageOutputsMergedAcrossFiles(t *testing.T) {
	done := time.Date(2020, 12, 29, 9, 52, 0, 1e6, time.UTC).UnixMilli()
	for _, order := range [][]string{{"listener_1.json", "listener_2.json"}, {"listener_2.json", "listener_1.json"}} {
		var paths []string
		for _, f := range order {
			paths = append(paths, filepath.Join(marquezFixtures, "api_tests", f))
		}
		got := ingestProv(t, "openlineage", nil, paths...)
		var writes []string
		for _, p := range got.prov {
			if p.Op == OpWrite {
				if p.TimeMs != done || p.Run != "5e58a95c-1c71-4231-8984-ac172d5566cf" {
					t.Errorf("%v: write %+v, want at the COMPLETE %d", order, p, done)
				}
				writes = append(writes, p.Path)
			}
		}
		slices.Sort(writes)
		if strings.Join(writes, " ") != "file.localhost/file://localhost/out_file1.txt file.localhost/file://localhost/out_file2.txt" {
			t.Errorf("%v: writes %v, want out_file1 and out_file2", order, writes)
		}
	}
}

// A run that declares outputs and never completes writes nothing, and the
// notes say so.
func TestOpenLineageOutputsWithoutComplete(t *testing.T) {
	// null_nominal_end_time.json: a START declaring
	// instance.schema.out_table_with_no_facets, and no other event.
	got := ingestProv(t, "openlineage", nil, filepath.Join(marquezFixtures, "api_tests", "null_nominal_end_time.json"))
	for _, p := range got.prov {
		if p.Op == OpWrite {
			t.Errorf("write without a COMPLETE: %+v", p)
		}
	}
	if notes := strings.Join(got.res.Files[0].Notes, "; "); !strings.Contains(notes, "1 runs declared 1 outputs but have no COMPLETE") {
		t.Errorf("notes %q", notes)
	}
}

// OpenLineage 2's DatasetEvent and JobEvent carry no run (Marquez's
// event_dataset_event.json, event_job_event.json): they are read, as
// provenance rows of op meta, not rejected; auto detects them.
func TestOpenLineageDatasetAndJobEvents(t *testing.T) {
	got := ingestProv(t, "auto", nil, filepath.Join(marquezFixtures, "api_tests"))
	if got.res.Rejected != 0 || got.res.Accepted != 13 {
		t.Fatalf("accepted %d rejected %d, want all 13 Marquez test events and 0: %+v", got.res.Accepted, got.res.Rejected, got.rejects)
	}
	at := time.Date(2020, 12, 28, 9, 52, 0, 1e6, time.UTC).UnixMilli()
	var meta []dataset.Provenance
	for _, p := range got.prov {
		if p.Op == OpMeta {
			meta = append(meta, p)
		}
	}
	want := []dataset.Provenance{
		{TimeMs: at, Op: OpMeta, Path: "my-dataset-namespace/my-dataset-name", Attribution: "lineage", Cmd: "DatasetEvent"},
		{TimeMs: at, Op: OpMeta, Path: "my-datasource-namespace/instance.schema.input-1", Job: "my-scheduler-namespace/myjob", Attribution: "lineage", Cmd: "JobEvent input"},
		{TimeMs: at, Op: OpMeta, Path: "my-datasource-namespace/instance.schema.output-1", Job: "my-scheduler-namespace/myjob", Attribution: "lineage", Cmd: "JobEvent output"},
	}
	if !slices.Equal(meta, want) {
		t.Errorf("meta rows %+v\nwant %+v", meta, want)
	}
	for _, r := range got.runs {
		if r.Run == "" {
			t.Errorf("a run row without a run id: %+v", r)
		}
	}
	// A RunEvent that lost its run is still a reject.
	lost := writeFile(t, t.TempDir(), "lost.json", []byte(`{"eventType":"COMPLETE","eventTime":"2024-01-01T00:00:00Z","job":{"name":"j"},"schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent"}`))
	got = ingestProv(t, "openlineage", nil, lost)
	if len(got.rejects) != 1 || !strings.Contains(got.rejects[0].Reason, "missing run.runId") {
		t.Errorf("a RunEvent without run: rejects %+v", got.rejects)
	}
}
