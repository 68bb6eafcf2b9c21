package ingest

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

// readMachines runs a machine-events parser over body: accepted events
// and the count of rejects. A line is one or the other; nothing panics.
func readMachines(t *testing.T, format string, body []byte) ([]dataset.MachineEvent, int) {
	in := fuzzInput(t, "machine_events.csv", body)
	defer in.Close()
	ix := &machineIndex{m: map[string]*machineState{}}
	var r Reader[dataset.MachineEvent]
	switch format {
	case alibabaMetaFormat:
		p := &alibabaMeta{csvRow: csvRow{file: in.Path}, ix: ix, strs: strtab.New(), down: statusCounts{}}
		r = newLineRecords(in, p.parse)
	default:
		g := &googleMachines{file: in.Path, start: googleTraceStart.UnixMilli(), ix: ix, strs: strtab.New()}
		r = newLineRecords(in, func(line []byte, lineNo int64, rec *dataset.MachineEvent) *ParseError {
			var e googleMachineEvent
			err := scanMachineEvent(line, &e)
			if err == nil {
				err = g.record(&e, rec)
			}
			if err != nil {
				return &ParseError{File: in.Path, Line: lineNo, Err: err}
			}
			return nil
		})
	}
	var out []dataset.MachineEvent
	rejects := 0
	for r.Scan() {
		rec, perr := r.Record()
		if perr != nil {
			rejects++
			continue
		}
		out = append(out, *rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out, rejects
}

// checkHistories: each machine's accepted events are in time order and
// alternate ADD and REMOVE, UPDATE only while added.
func checkHistories(t *testing.T, evs []dataset.MachineEvent) {
	t.Helper()
	up := map[string]bool{}
	last := map[string]int64{}
	for i, e := range evs {
		if l, ok := last[e.Machine]; ok && e.TimeMs < l {
			t.Fatalf("event %d %+v before %d", i, e, l)
		}
		last[e.Machine] = e.TimeMs
		switch e.Type {
		case dataset.MachineAdd:
			if up[e.Machine] {
				t.Fatalf("event %d: ADD of an added machine %+v", i, e)
			}
			up[e.Machine] = true
		case dataset.MachineRemove, dataset.MachineUpdate:
			if !up[e.Machine] {
				t.Fatalf("event %d: %s of a machine not added %+v", i, e.Type, e)
			}
			up[e.Machine] = e.Type == dataset.MachineUpdate
		case dataset.MachineOut:
			if up[e.Machine] {
				t.Fatalf("event %d: OUT of a machine in the cluster %+v", i, e)
			}
		default:
			t.Fatalf("event %d: type %q", i, e.Type)
		}
	}
}

// machine_meta: read → write → read gives the same events.
func FuzzAlibabaMachineMeta(f *testing.F) {
	f.Add(traceBytes(f, "alibaba2018", "machine_meta_sample.csv"))
	f.Add([]byte("m_1,0,1,a,1,1,USING\nm_1,0,1,a,1,1,DOWN\nm_1,0,1,a,,,USING\nm_2,5,,,,,X\n\"m,3\",1,2,b,4,50.5,USING\n"))
	fuzzBodies(f, 2048, func(t *testing.T, body []byte) {
		// Bodies up to 2 KB (about 40 machines): each is read twice (and
		// written back), and a 10-minute run whose corpus grew without a
		// bound managed 434/s. Large files are the unit tests'.
		got, rejects := readMachines(t, alibabaMetaFormat, body)
		if len(got)+rejects != nonBlank(body) {
			t.Fatalf("%d events + %d rejects for %d lines", len(got), rejects, nonBlank(body))
		}
		checkHistories(t, got)
		var back bytes.Buffer
		for _, e := range got {
			st := "USING"
			if e.Type == dataset.MachineRemove || e.Type == dataset.MachineOut {
				st = "DOWN"
			}
			num := func(v float64, scale float64) string {
				if math.IsNaN(v) {
					return ""
				}
				return strconv.FormatFloat(v*scale, 'g', -1, 64)
			}
			fmt.Fprintf(&back, "%s,%d,%s,,%s,%s,%s\n", csvQuote(e.Machine), e.TimeMs/1000, csvQuote(e.Rack), num(e.CPUs, 1), num(e.Memory, 100), st)
		}
		again, rejects := readMachines(t, alibabaMetaFormat, back.Bytes())
		if rejects != 0 || len(again) != len(got) {
			t.Fatalf("round trip: %d events, %d rejects, want %d", len(again), rejects, len(got))
		}
		for i := range got {
			a, g := again[i], got[i]
			if a.Machine != g.Machine || a.TimeMs != g.TimeMs || a.Type != g.Type || a.Rack != g.Rack ||
				!(a.CPUs == g.CPUs || math.IsNaN(a.CPUs) && math.IsNaN(g.CPUs)) ||
				!(math.Abs(a.Memory-g.Memory) < 1e-12 || math.IsNaN(a.Memory) && math.IsNaN(g.Memory)) {
				t.Fatalf("round trip %d: %+v vs %+v", i, a, g)
			}
		}
	})
}

// machine_events JSON: never a panic; accepted events form histories.
func FuzzGoogleMachineEvents(f *testing.F) {
	f.Add(traceBytes(f, "google2019", "machine_events_schema_rows.json"))
	f.Add([]byte(`{"time":1,"machine_id":2,"type":"ADD"}` + "\n" + `{"time":1,"machine_id":2,"type":"REMOVE","capacity":{"cpus":null}}` + "\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, rejects := readMachines(t, googleMachineEventsFormat, body)
		if len(got)+rejects != nonBlank(body) {
			t.Fatalf("%d events + %d rejects for %d lines", len(got), rejects, nonBlank(body))
		}
		checkHistories(t, got)
	})
}
