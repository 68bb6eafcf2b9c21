package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// jobsInputs are the job-run test inputs: the ResourceEstimator's RM logs,
// real Spark logs and their compressed / in-progress / rolled variants,
// and skyline CSVs (see testdata/jobs/SOURCES.md).
var jobsInputs = []string{
	"../../testdata/jobs/resourceestimator", "../../testdata/jobs/spark",
	"../../testdata/jobs/spark-variants", "../../testdata/jobs/skyline",
}

// TestIngestJobsGolden pins what `wlprof ingest auto` makes of the job
// inputs: the -o json report (formats detected, counts, notes) and the
// rows of the runs, skylines and rejects tables.
func TestIngestJobsGolden(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	out, errs, code := wlprof(t, append([]string{"ingest", "auto", "-d", ds, "-o", "json"}, jobsInputs...)...)
	if code != 3 || !strings.Contains(errs, "input record(s) rejected") {
		t.Fatalf("exit %d (want 3: the inputs hold bad records), stderr:\n%s", code, errs)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc["version"] != float64(1) {
		t.Fatalf("not a version 1 JSON document: %v\n%s", err, out)
	}
	golden(t, "ingest-jobs.json", strings.ReplaceAll(out, dir, "$TMP"))

	d, err := dataset.Open(ds)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var b strings.Builder
	runs, err := dataset.ReadAll(ctx, d, dataset.RunsTable)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("# runs: job run name user queue status submit_ms start_ms end_ms source\n")
	ms := func(v int64) string {
		if v == dataset.NoTime {
			return "null"
		}
		return fmt.Sprint(v)
	}
	for _, r := range runs {
		fmt.Fprintf(&b, "%q %q %q %q %q %s %s %s %s %s\n", r.Job, r.Run, r.Name, r.User, r.Queue, r.Status, ms(r.SubmitMs), ms(r.StartMs), ms(r.EndMs), r.Source)
	}
	sky, err := dataset.ReadAll(ctx, d, dataset.SkylinesTable)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("# skylines: job run offset_s containers memory_bytes vcores\n")
	for _, s := range sky {
		fmt.Fprintf(&b, "%q %q %g %g %d %g\n", s.Job, s.Run, s.OffsetS, s.Containers, s.MemoryBytes, s.VCores)
	}
	rej, err := dataset.ReadAll(ctx, d, dataset.RejectsTable)
	if err != nil {
		t.Fatal(err)
	}
	b.WriteString("# rejects: file:line:col format reason\n")
	for _, r := range rej {
		fmt.Fprintf(&b, "%s:%d:%d %s %s\n", strings.TrimPrefix(r.File, "../../"), r.Line, r.Col, r.Format, r.Reason)
	}
	golden(t, "ingest-jobs-tables.txt", b.String())
}
