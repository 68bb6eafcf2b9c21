package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// readAudit runs the hdfs-audit reader over data and returns its records
// (copied) and rejects.
func readAudit(t testing.TB, data []byte) ([]dataset.Provenance, []ParseError) {
	in := fuzzInput(t, "audit.log", data)
	defer in.Close()
	r := newHDFSAudit(in, time.UTC)
	var recs []dataset.Provenance
	var rejs []ParseError
	for r.Scan() {
		rec, perr := r.Record()
		if (rec == nil) == (perr == nil) {
			t.Fatalf("Record returned %v, %v: want exactly one", rec, perr)
		}
		if perr != nil {
			rejs = append(rejs, *perr)
			continue
		}
		c := *rec
		c.Path, c.Dst = string(bytes.Clone([]byte(rec.Path))), string(bytes.Clone([]byte(rec.Dst)))
		recs = append(recs, c)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return recs, rejs
}

// FuzzHDFSAudit: never a panic; every non-blank line is one record or one
// reject; an accepted record written back as an audit line reads back the
// same (read → write → read).
func FuzzHDFSAudit(f *testing.F) {
	f.Add(fixtureBytes(f, "hadoop_dynamometer_audit_trace_direct_audit0.log"))
	f.Add([]byte(auditLine("2024-03-10 01:30:00,250", "true", "alice (auth:TOKEN) via hive (auth:KERBEROS)", "open", "/data/a", "null",
		"\tcallerContext=mr_attempt_1710000000000_0042_m_000003_0") + "\n"))
	f.Add([]byte("2024-01-01 00:00:00,000 INFO x: allowed=false\tugi=a\tip=/1\tcmd=rename\tsrc=/a\tdst=/b\tperm=null\n\n\r\nallowed="))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, rejs := readAudit(t, data)
		nonBlank := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				nonBlank++
			}
		}
		if len(recs)+len(rejs) != nonBlank {
			t.Fatalf("%d records + %d rejects for %d non-blank lines", len(recs), len(rejs), nonBlank)
		}
		var out bytes.Buffer
		for _, r := range recs {
			if bytes.ContainsAny([]byte(r.Path+r.Dst+r.User+r.Cmd), "\t\n\r") || r.User == "" || r.Path == "" {
				return // not representable in one audit line
			}
			allowed, dst := "true", r.Dst
			if r.Op == OpDenied {
				allowed = "false"
			}
			if dst == "" {
				dst = "null"
			}
			ctx := ""
			if r.Run != "" {
				ctx = "\tcallerContext=" + r.Run
			}
			ts := time.UnixMilli(r.TimeMs).UTC().Format("2006-01-02 15:04:05.000")
			fmt.Fprintln(&out, auditLine(ts, allowed, r.User, r.Cmd, r.Path, dst, ctx))
		}
		again, rej2 := readAudit(t, out.Bytes())
		if len(rej2) != 0 || len(again) != len(recs) {
			t.Fatalf("re-read: %d records %v, want %d", len(again), rej2, len(recs))
		}
		for i := range recs {
			a, b := recs[i], again[i]
			if b.Attribution == "callerContext" && a.Attribution == "trackingId" {
				b.Attribution = a.Attribution
			}
			if a != b {
				t.Fatalf("record %d: %+v, re-read %+v", i, a, b)
			}
		}
	})
}

// FuzzOpenLineage: never a panic or an error on any input; each input is
// either ingested or rejected.
func FuzzOpenLineage(f *testing.F) {
	for _, name := range []string{"openlineage/marquez_event_full.json", "openlineage/marquez_event_required_no_timezone.json",
		"openlineage/marquez_apples/2_apple_filling.json"} {
		f.Add(fixtureBytes(f, name))
	}
	f.Add([]byte(`{"eventType":"START","eventTime":"2024-01-01T02:00:00","run":{"runId":"r1"},"job":{"name":"d"},"inputs":[{"name":"/a"}]}` + "\n{}\n[1]\n"))
	// One dataset and one open transaction per worker, never committed:
	// each execution reads its event from memory into that transaction's
	// writers through the format's ingest function (a transaction and an
	// input file per execution kept the target under 700 executions a
	// second).
	ds, err := dataset.OpenOrCreate(filepath.Join(f.TempDir(), "ds"))
	if err != nil {
		f.Fatal(err)
	}
	var tx *dataset.Tx
	f.Cleanup(func() {
		if tx != nil {
			tx.Rollback()
		}
	})
	opts := DefaultOptions()
	opts.MaxRejects = -1
	f.Fuzz(func(t *testing.T, data []byte) {
		// Inputs up to 4 KB: the 9 KB full Marquez event and its mutants
		// were most of a 10-minute run's time (841/s); the whole fixtures
		// are read by the OpenLineage unit tests.
		if len(data) > 4<<10 {
			return
		}
		if tx == nil {
			if tx, err = ds.Begin(); err != nil {
				t.Fatal(err)
			}
		}
		in := fuzzInput(t, "ev.json", data)
		defer in.Close()
		s := &sink{tx: tx, format: "openlineage", opts: opts, res: &Result{}, run: &runState{}, file: in.Path}
		if err := ingestOpenLineage(context.Background(), in, s); err != nil {
			t.Fatal(err)
		}
		// An empty array ("[]", "[\n]") holds nothing to accept or reject.
		var events []json.RawMessage
		trimmed := bytes.TrimSpace(data)
		empty := len(trimmed) > 0 && trimmed[0] == '[' && json.Unmarshal(data, &events) == nil && len(events) == 0
		if len(trimmed) > 0 && s.accepted+s.rejected == 0 && !empty {
			t.Fatalf("non-empty input %q neither accepted nor rejected", data)
		}
	})
}
