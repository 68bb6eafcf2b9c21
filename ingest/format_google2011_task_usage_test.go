package ingest

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/internal/strtab"
)

// The 2011 trace's first task_usage rows (job 3418309's tasks 0 and 1 in
// the window 600–900 s of the trace clock, the trace window's first: 19:00
// EDT on 1 May 2011 = 23:00Z) and schema-written rows after them
// (testdata/traces/SOURCES.md): task 2 on task 0's machine in the same
// window adds up with it, as instance rows do in google2019-usage.
func TestGoogle2011TaskUsage(t *testing.T) {
	path := traceFile("google2011", "task_usage_sample.csv")
	got := mustRun(t, "auto", []string{path}, DefaultOptions())
	f := got.res.Files[0]
	if f.Format != google2011TaskUsageFormat || f.Accepted != 4 || f.Rejected != 4 {
		t.Fatalf("file %+v, rejects %+v", f, got.rejects)
	}
	hasReject(t, got.rejects, 6, "CPU rate 1.5 is outside [0, 1]")
	hasReject(t, got.rejects, 7, "end time 900000000 is not after start time 1200000000")
	hasReject(t, got.rejects, 8, "7 fields, want 19 or 20")
	dup := false
	for _, r := range got.rejects {
		dup = dup || (r.Line == 1 || r.Line == 5) && strings.Contains(r.Reason, "duplicate: instance 0 of collection 3418309")
	}
	if !dup {
		t.Errorf("no duplicate reject for lines 1 and 5: %+v", got.rejects)
	}
	t0 := time.Date(2011, 5, 1, 23, 0, 0, 0, time.UTC).UnixMilli()
	if len(got.usage) != 3 {
		t.Fatalf("usage %+v", got.usage)
	}
	u := got.usage
	// Sorted by tenant, server, time: machine 329150663 first (string order).
	if u[0].Tenant != "3418309" || u[0].Server != "329150663" || u[0].TimeMs != t0 || u[0].CPU != 0.001568 || u[0].Memory != 0.06787 {
		t.Errorf("task 1 %+v", u[0])
	}
	if u[1].Server != "4155527081" || u[1].TimeMs != t0 || !near(u[1].CPU, 0.001562+0.25) || !near(u[1].Memory, 0.06787+0.125) {
		t.Errorf("tasks 0 and 2 summed %+v", u[1])
	}
	if u[2].TimeMs != t0+300_000 || !near(u[2].CPU, 0.25) || !near(u[2].Memory, 0.125) {
		t.Errorf("task 0 over half the next window %+v", u[2])
	}
	if notes := strings.Join(f.Notes, "\n"); !strings.Contains(notes, "google2011-task-usage input(s) summed") {
		t.Errorf("notes %s", notes)
	}
}

// FuzzGoogle2011TaskUsage: never a panic; an accepted row is a task of a
// job on a machine with cpu and memory in [0, 1].
func FuzzGoogle2011TaskUsage(f *testing.F) {
	f.Add(traceBytes(f, "google2011", "task_usage_sample.csv"))
	fuzzBodies(f, 4096, func(t *testing.T, body []byte) {
		g := &googleRows{file: "task_usage.csv", key: "collection", start: 0, tenants: strtab.New(), servers: strtab.New()}
		p := &g2011Usage{csvRow: csvRow{file: "task_usage.csv"}, g: g}
		for i, line := range bytes.Split(body, []byte("\n")) {
			var rec googleSample
			if perr := p.parse(line, int64(i+1), &rec); perr != nil {
				continue
			}
			if rec.Tenant == "" || rec.Server == "" || !(rec.CPU >= 0 && rec.CPU <= 1) || !(math.IsNaN(rec.Memory) || rec.Memory >= 0 && rec.Memory <= 1) || rec.start <= 0 {
				t.Fatalf("line %d: accepted %+v", i+1, rec)
			}
		}
	})
}
