package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wlprof/wlprof/dataset"
)

// valuesOracle decodes a values array with encoding/json, the way a
// generic client would.
func valuesOracle(b []byte) ([]promPoint, error) {
	var raw [][]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	out := []promPoint{}
	for _, p := range raw {
		if len(p) != 2 {
			return nil, fmt.Errorf("not a pair")
		}
		ts, ok1 := p[0].(float64)
		v, ok2 := p[1].(string)
		if !ok1 || !ok2 || strings.Contains(v, `"`) {
			return nil, fmt.Errorf("not [number, string]")
		}
		out = append(out, promPoint{Ms: int64(math.Round(ts * 1000)), V: []byte(v)})
	}
	return out, nil
}

// TestParseValuesMatchesEncodingJSON: on seeded random matrices (times
// with fractions, values in every form Prometheus writes: decimals,
// exponents, NaN, +Inf, -Inf; whitespace between tokens) the hand parser
// gives what encoding/json gives.
func TestParseValuesMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	forms := []func() string{
		func() string { return strconv.FormatFloat(rng.Float64()*1e3, 'f', -1, 64) },
		func() string { return strconv.FormatFloat(rng.Float64()*1e12, 'e', -1, 64) },
		func() string { return "NaN" },
		func() string { return "+Inf" },
		func() string { return "-Inf" },
		func() string { return strconv.Itoa(rng.IntN(100)) },
	}
	ws := []string{"", " ", "\n", "\t "}
	for trial := 0; trial < 500; trial++ {
		var b strings.Builder
		b.WriteString(ws[rng.IntN(4)] + "[")
		n := rng.IntN(6)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString("," + ws[rng.IntN(4)])
			}
			ts := 1.7e9 + float64(rng.IntN(1e6)) + float64(rng.IntN(1000))/1000
			fmt.Fprintf(&b, "[%s%s,%s%q%s]", ws[rng.IntN(4)], strconv.FormatFloat(ts, 'f', -1, 64), ws[rng.IntN(4)], forms[rng.IntN(len(forms))](), ws[rng.IntN(4)])
		}
		b.WriteString("]" + ws[rng.IntN(4)])
		in := []byte(b.String())
		got, err := parseValues(in, nil)
		want, werr := valuesOracle(in)
		if err != nil || werr != nil {
			t.Fatalf("%q: parseValues %v, encoding/json %v", in, err, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d points, encoding/json %d", in, len(got), len(want))
		}
		for i := range got {
			if got[i].Ms != want[i].Ms || string(got[i].V) != string(want[i].V) {
				t.Fatalf("%q point %d: %d %q, encoding/json %d %q", in, i, got[i].Ms, got[i].V, want[i].Ms, want[i].V)
			}
		}
	}
}

// FuzzPrometheusValues: the hand parser never panics; on valid JSON (it
// only ever sees what encoding/json validated as the values member) without
// string escapes, what it accepts encoding/json reads the same, and what
// encoding/json reads as [number, "string"] pairs it accepts.
func FuzzPrometheusValues(f *testing.F) {
	for _, s := range []string{`[]`, `[[1700000000,"1"]]`, `[[1700000000.5, "NaN"],[1700000060,"+Inf"]]`, `[[1,"2"]`, `[[1,2]]`, `[["1","2"]]`, ` [ [ 1 , "x" ] ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseValues(b, nil)
		if !json.Valid(b) || !utf8.Valid(b) || strings.ContainsRune(string(b), '\\') {
			return
		}
		want, werr := valuesOracle(b)
		if err != nil {
			if werr == nil {
				t.Fatalf("%q: encoding/json reads %d points, parseValues refuses it: %v", b, len(want), err)
			}
			return
		}
		if werr != nil {
			t.Fatalf("%q: parseValues read %d points, encoding/json refuses it: %v", b, len(got), werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d points, encoding/json %d", b, len(got), len(want))
		}
		for i := range got {
			if got[i].Ms != want[i].Ms || string(got[i].V) != string(want[i].V) {
				t.Fatalf("%q point %d differs", b, i)
			}
		}
	})
}

// FuzzPrometheusJSON: any lines after a valid header give an ingest that
// either fails with an error about the input (never a recovered panic) or
// commits rows and rejects whose counts add up to the tables' rows.
func FuzzPrometheusJSON(f *testing.F) {
	srv := httptest.NewServer(&fakeProm{maxPts: 11000})
	defer srv.Close()
	dir := f.TempDir()
	opts := fakeOptions(srv.URL, 1)
	opts.Prometheus.Save = filepath.Join(dir, "seed.jsonl")
	if _, _, err := Into(context.Background(), filepath.Join(dir, "seed"), promFormat, nil, opts); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(opts.Prometheus.Save)
	if err != nil {
		f.Fatal(err)
	}
	header, body, _ := bytes.Cut(seed, []byte("\n"))
	f.Add(body)
	lines := bytes.Split(body, []byte("\n"))
	f.Add(bytes.Join(lines[len(lines)-3:], []byte("\n"))) // series before labels
	f.Add([]byte(`{"role":"cpu","chunk":[1,1],"response":{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"NaN"]]}]}}}`))
	f.Add([]byte("{\"role\":\"bogus\",\"response\":{}}\nnot json\n"))
	n := 0
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > 64<<10 {
			return
		}
		n++
		in := filepath.Join(dir, fmt.Sprintf("in%d.jsonl", n))
		if err := os.WriteFile(in, append(append(append([]byte{}, header...), '\n'), body...), 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(in)
		o := DefaultOptions()
		o.MaxRejects = -1
		out := filepath.Join(dir, fmt.Sprintf("ds%d", n))
		defer os.RemoveAll(out)
		res, ds, err := Into(context.Background(), out, promJSONFormat, []string{in}, o)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatal(err)
			}
			return
		}
		var rows int64
		for _, name := range []string{dataset.UsageTable.Name, dataset.RunsTable.Name, dataset.SkylinesTable.Name, dataset.InstancesTable.Name, dataset.MachineEventsTable.Name} {
			rows += ds.Rows(name)
		}
		if rows != res.Accepted || ds.Rows(dataset.RejectsTable.Name) != res.Rejected {
			t.Fatalf("accepted %d, rows %d; rejected %d, rejects %d", res.Accepted, rows, res.Rejected, ds.Rows(dataset.RejectsTable.Name))
		}
	})
}
