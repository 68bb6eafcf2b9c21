package ingest

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
)

// oracleGoogleJSON decodes an instance_usage line with encoding/json (exact
// keys, the last of duplicates wins): the reference scanGoogleJSON must
// agree with on every valid JSON object.
func oracleGoogleJSON(line []byte) (u googleUsage, ok bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || m == nil {
		return u, false
	}
	ints := func(key string, v *int64, has *bool) bool {
		raw, found := m[key]
		if !found || string(raw) == "null" {
			return true
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			s = string(raw) // a number
			if len(raw) > 0 && raw[0] == '"' {
				return false
			}
		} else {
			// A string must hold the digits verbatim (no escapes).
			if string(raw) != strconv.Quote(s) {
				return false
			}
		}
		x, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return false
		}
		*v, *has = x, true
		return true
	}
	floats := func(m map[string]json.RawMessage, key string, v *float64, has *bool) bool {
		raw, found := m[key]
		if !found || string(raw) == "null" {
			return true
		}
		s := string(raw)
		if raw[0] == '"' {
			if json.Unmarshal(raw, &s) != nil {
				return false
			}
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return false
		}
		*v, *has = x, true
		return true
	}
	if !ints("start_time", &u.start, &u.hasStart) || !ints("end_time", &u.end, &u.hasEnd) ||
		!ints("collection_id", &u.collection, &u.hasColl) || !ints("machine_id", &u.machine, &u.hasMach) ||
		!ints("instance_index", &u.instance, &u.hasInst) || !ints("alloc_collection_id", &u.alloc, &u.hasAlloc) {
		return u, false
	}
	if raw, found := m["average_usage"]; found && string(raw) != "null" {
		var a map[string]json.RawMessage
		if json.Unmarshal(raw, &a) != nil || a == nil {
			return u, false
		}
		if !floats(a, "cpus", &u.cpus, &u.hasCPU) || !floats(a, "memory", &u.memory, &u.hasMem) {
			return u, false
		}
	}
	return u, true
}

func sameGoogleUsage(a, b googleUsage) bool {
	eq := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	return a.start == b.start && a.hasStart == b.hasStart && a.end == b.end && a.hasEnd == b.hasEnd &&
		a.collection == b.collection && a.hasColl == b.hasColl && a.machine == b.machine && a.hasMach == b.hasMach &&
		a.instance == b.instance && a.hasInst == b.hasInst && a.alloc == b.alloc && a.hasAlloc == b.hasAlloc &&
		eq(a.cpus, b.cpus) && a.hasCPU == b.hasCPU && eq(a.memory, b.memory) && a.hasMem == b.hasMem
}

// checkScanner compares the scanner with encoding/json on one line: what
// the scanner accepts is valid JSON, and on a valid JSON object both read
// the same fields (or both refuse a field's value).
func checkScanner(t *testing.T, line []byte) {
	t.Helper()
	var got googleUsage
	err := scanGoogleJSON(line, &got)
	if err == nil && !json.Valid(line) {
		t.Fatalf("scanner accepts invalid JSON %q", line)
	}
	want, ok := oracleGoogleJSON(line)
	if ok != (err == nil) && json.Valid(line) && len(line) > 0 {
		var obj map[string]any
		if json.Unmarshal(line, &obj) == nil { // an object: they must agree
			t.Fatalf("%q: scanner err %v, encoding/json ok %v", line, err, ok)
		}
	}
	if err == nil && ok && !sameGoogleUsage(got, want) {
		t.Fatalf("%q:\nscanner %+v\noracle  %+v", line, got, want)
	}
}

func TestGoogleJSONScannerMatchesEncodingJSON(t *testing.T) {
	for _, name := range []string{"instance_usage-000000000000.json", "instance_usage_derived_rows.json", "instance_usage_alloc_instance.json"} {
		b := traceBytes(t, "google2019", name)
		for _, l := range splitLines(b) {
			checkScanner(t, l)
		}
	}
	for _, l := range []string{
		`{}`, `{"start_time":null}`, `{"start_time":"12","start_time":13}`, `{"start_time":"1\u0032"}`,
		`{"start_time":1.5}`, `{"start_time":01}`, `{"average_usage":{"cpus":"0.5","memory":null,"x":[1,{"y":"\"}"}]}}`,
		`{"average_usage":[]}`, `{"a":tru}`, `{"a":-}`, `{"a":1e}`, `{"a":"\x"}`, `{"a":1}x`, ` {"a" : [ ] } `,
		`{"machine_id":"-5","collection_id":9223372036854775807,"end_time":"9223372036854775808"}`,
		`{"average_usage":{"cpus":1e-400}}`, `{"average_usage":{"cpus":"nan"}}`, "{\"a\":\"\x01\"}",
		`{"instance_index":"7","instance_index":0}`, `{"instance_index":null}`, `{"instance_index":"-1"}`, `{"instance_index":2.0}`,
		`{"alloc_collection_id":"0"}`, `{"alloc_collection_id":null}`, `{"alloc_collection_id":330587160469,"alloc_collection_id":"0"}`, `{"alloc_collection_id":"x"}`,
		// A member whose value is unusable, then the same member again:
		// the last wins, as in encoding/json (FuzzGoogleJSONScanner).
		`{"collection_id":"","collection_id":0}`, `{"collection_id":0,"collection_id":""}`, `{"start_time":1.5,"start_time":"2"}`,
		`{"average_usage":{"cpus":"x"},"average_usage":{"memory":0.5}}`, `{"average_usage":{"cpus":0.5},"average_usage":{"cpus":"x"}}`,
		`{"average_usage":[],"average_usage":{"cpus":0.25}}`, `{"average_usage":{"cpus":0.25},"average_usage":"x"}`,
		`{"average_usage":{"cpus":"x","cpus":1}}`, `{"average_usage":nul}`, `{"machine_id":"x","end_time":"y","machine_id":1}`,
	} {
		checkScanner(t, []byte(l))
	}
}

func FuzzGoogleJSONScanner(f *testing.F) {
	b := traceBytes(f, "google2019", "instance_usage_derived_rows.json")
	for _, l := range splitLines(b) {
		f.Add(l)
	}
	f.Add([]byte(`{"start_time":"1","average_usage":{"cpus":0.5}}`))
	f.Fuzz(func(t *testing.T, line []byte) { checkScanner(t, line) })
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		out = append(out, b[:i])
		if i < len(b) {
			i++
		}
		b = b[i:]
	}
	return out
}

// The last member wins in every scanner built on jsonCursor.container, not
// only in instance_usage's: machine_events here.
func TestMachineEventScannerLastMemberWins(t *testing.T) {
	var e googleMachineEvent
	if err := scanMachineEvent([]byte(`{"time":"x","machine_id":1,"time":7}`), &e); err != nil || e.time != 7 || !e.hasTime {
		t.Errorf("a bad time replaced by a good one: %v, time %d", err, e.time)
	}
	if err := scanMachineEvent([]byte(`{"time":7,"machine_id":1,"time":"x"}`), &e); err == nil {
		t.Errorf("a good time replaced by a bad one: no error")
	}
	if err := scanMachineEvent([]byte(`{"time":7,"capacity":{"cpus":"x"},"capacity":{"cpus":0.5}}`), &e); err != nil || e.cpus != 0.5 {
		t.Errorf("a bad capacity replaced by a good one: %v, cpus %v", err, e.cpus)
	}
}
