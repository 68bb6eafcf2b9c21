package ingest

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

// The 2011 trace's first machine_events rows (machines 5, 6, 7 added at
// time 0, the machines there before the window) and schema-written rows
// after them (testdata/traces/SOURCES.md). Time 0 is 600 s before the
// trace's start, 19:00 EDT on 1 May 2011 (ClusterData2011_2.md): 22:50Z.
func TestGoogle2011MachineEvents(t *testing.T) {
	path := traceFile("google2011", "machine_events_sample.csv")
	dir := filepath.Join(t.TempDir(), "ds")
	got, err := runInto(t, dir, "auto", []string{path}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if f := got.res.Files[0]; f.Format != google2011MachineEventsFormat || f.Accepted != 6 || f.Rejected != 3 {
		t.Fatalf("file %+v, rejects %+v", f, got.rejects)
	}
	hasReject(t, got.rejects, 7, "REMOVE of machine 8 without an ADD")
	hasReject(t, got.rejects, 8, "event type 3 is not a machine event type")
	hasReject(t, got.rejects, 9, "cpus 1.5 is above 1")
	ev := readMachineEvents(t, dir)
	var types []string
	for _, e := range ev {
		types = append(types, e.Machine+"@"+e.Type)
	}
	if s := strings.Join(types, " "); s != "5@ADD 6@ADD 7@ADD 5@REMOVE 5@ADD 6@UPDATE" {
		t.Errorf("events %s", s)
	}
	t0 := time.Date(2011, 5, 1, 22, 50, 0, 0, time.UTC).UnixMilli()
	want := dataset.MachineEvent{Machine: "5", TimeMs: t0, Type: dataset.MachineAdd, CPUs: 0.5, Memory: 0.2493,
		Platform: "HofLGzk1Or/8Ildj2+Lqv0UGGvY82NLoni8+J/Yy0RU=", Source: google2011MachineEventsFormat}
	if ev[0] != want {
		t.Errorf("first event %+v\nwant %+v", ev[0], want)
	}
	if e := ev[3]; e.TimeMs != t0+835150655/1000 || !math.IsNaN(e.CPUs) || !math.IsNaN(e.Memory) {
		t.Errorf("the REMOVE without capacities %+v", e)
	}
	// Neither 2011 six-column format claims the other's rows.
	constraints := writeFile(t, t.TempDir(), "task_constraints.csv", []byte("5612000000,6251812952,0,1,GKdJ9iJ5Zg8=,2\n"))
	for file, want := range map[string]string{path: google2011MachineEventsFormat, constraints: google2011TaskConstraintsFormat} {
		wantFormat(t, file, want)
	}
}

// FuzzGoogle2011MachineEvents: read → write → read gives the same events;
// every accepted history is consistent.
func FuzzGoogle2011MachineEvents(f *testing.F) {
	f.Add(traceBytes(f, "google2011", "machine_events_sample.csv"))
	f.Add([]byte("0,1,0,p,,\n5,1,2,\"p,q\",1,0\n5,1,1,p,0.25,1e-3\n"))
	fuzzBodies(f, 2048, func(t *testing.T, body []byte) {
		read := func(body []byte) ([]dataset.MachineEvent, int) {
			p := &g2011Machines{g2011: g2011{csvRow: csvRow{file: "machine_events.csv"}}, ix: &machineIndex{m: map[string]*machineState{}}, strs: strtab.New()}
			var out []dataset.MachineEvent
			rejects := 0
			for i, line := range bytes.Split(body, []byte("\n")) {
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				var rec dataset.MachineEvent
				if perr := p.parse(line, int64(i+1), &rec); perr != nil {
					rejects++
					continue
				}
				out = append(out, rec)
			}
			return out, rejects
		}
		got, _ := read(body)
		checkHistories(t, got)
		var back bytes.Buffer
		for _, e := range got {
			typ := map[string]int{dataset.MachineAdd: 0, dataset.MachineRemove: 1, dataset.MachineUpdate: 2}[e.Type]
			num := func(v float64) string {
				if math.IsNaN(v) {
					return ""
				}
				return strconv.FormatFloat(v, 'g', -1, 64)
			}
			fmt.Fprintf(&back, "%d,%s,%d,%s,%s,%s\n", e.TimeMs*1000+googleOffsetUs, e.Machine, typ, csvQuote(e.Platform), num(e.CPUs), num(e.Memory))
		}
		again, rejects := read(back.Bytes())
		if rejects != 0 || len(again) != len(got) {
			t.Fatalf("round trip: %d events, %d rejects, want %d\n%s", len(again), rejects, len(got), back.Bytes())
		}
		for i := range got {
			a, b := got[i], again[i]
			if a.Machine != b.Machine || a.TimeMs != b.TimeMs || a.Type != b.Type || a.Platform != b.Platform {
				t.Fatalf("event %d: %+v read back as %+v", i, a, b)
			}
		}
	})
}
