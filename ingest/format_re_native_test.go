package ingest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// TestNativeFixture reads Hadoop's tinySample.txt: two runs of tpch_q12,
// each a list of "containers:seconds" units of 5 s (NativeSingleLineParser).
func TestNativeFixture(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	res := mustIngest(t, dir, "auto", []string{"../testdata/resourceestimator/tinySample.txt"}, DefaultOptions())
	if res.Accepted != 2 || res.Rejected != 0 || res.Files[0].Format != "re-native" {
		t.Fatalf("result %+v, want 2 runs of re-native", res)
	}
	ds := openDataset(t, dir)
	runs, err := dataset.ReadAll(context.Background(), ds, dataset.RunsTable)
	if err != nil {
		t.Fatal(err)
	}
	// First line: tpch_q12 50 1462148517000 1462148527345 1462148952345 tpch_q12_0 ...
	want := dataset.Run{Job: "tpch_q12", Run: "tpch_q12_0", Name: "tpch_q12", Status: "FINISHED",
		SubmitMs: 1462148517000, StartMs: 1462148527345, EndMs: 1462148952345, Source: "re-native"}
	if len(runs) != 2 || runs[0] != want {
		t.Fatalf("runs %+v, want first %+v", runs, want)
	}
	sky, err := dataset.ReadAll(context.Background(), ds, dataset.SkylinesTable)
	if err != nil {
		t.Fatal(err)
	}
	// 1:0|1:5|1074:10|2538:15|2468:20| → a step function: 1 from 0 s,
	// 1074 from 10 s, 2538 from 15 s, 2468 from 20 s, 0 from 25 s.
	var got [][2]float64
	for _, s := range sky {
		if s.Run == "tpch_q12_0" {
			got = append(got, [2]float64{s.OffsetS, s.Containers})
			if s.MemoryBytes != int64(s.Containers)*1024<<20 || s.VCores != s.Containers {
				t.Errorf("sample %+v: want 1024 MB and 1 vcore per container", s)
			}
		}
	}
	wantSky := [][2]float64{{0, 1}, {10, 1074}, {15, 2538}, {20, 2468}, {25, 0}}
	if !reflect.DeepEqual(got, wantSky) {
		t.Errorf("skyline %v, want %v", got, wantSky)
	}
}

// TestNativeRejects: each malformed line is a reject with its line and
// reason; good lines around it are kept; overlapping units add up.
func TestNativeRejects(t *testing.T) {
	body := strings.Join([]string{
		"p 1 1000 2000 9000 r1 0:0| 2:0|3:5|",
		"p 1 1000 2000 9000 r2 0:0|",           // 7 fields
		"p 1 x 2000 9000 r3 0:0| 1:0|",         // bad submit
		"p 1 1000 2000 9000 r4 0:0| 1:0|-2:5|", // negative count
		"p 1 1000 2000 9000 r5 0:0| 1:zero|",   // bad time
		"p 1 1000 9000 2000 r6 0:0| 1:0|",      // ends before it starts
		"",                                     // blank: skipped
		"p 1 1000 2000 9000 r7 0:0| 2:0|4:2|",  // overlap: 2, 6 from 2 s, 4 from 5 s, 0 from 7 s
		"p 1 1000 2000 9000 r8 0:0| ||",        // empty skyline
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "native.txt")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ds")
	res := mustIngest(t, dir, "re-native", []string{path}, DefaultOptions())
	if res.Accepted != 2 || res.Rejected != 6 {
		t.Fatalf("accepted %d rejected %d, want 2 and 6", res.Accepted, res.Rejected)
	}
	ds := openDataset(t, dir)
	rej, err := dataset.ReadAll(context.Background(), ds, dataset.RejectsTable)
	if err != nil {
		t.Fatal(err)
	}
	lines := []int64{}
	for _, r := range rej {
		lines = append(lines, r.Line)
		if r.Reason == "" || r.File != path {
			t.Errorf("reject %+v lacks file or reason", r)
		}
	}
	if !reflect.DeepEqual(lines, []int64{2, 3, 4, 5, 6, 9}) {
		t.Errorf("rejected lines %v, want 2 3 4 5 6 9", lines)
	}
	sky, err := dataset.ReadAll(context.Background(), ds, dataset.SkylinesTable)
	if err != nil {
		t.Fatal(err)
	}
	var r7 [][2]float64
	for _, s := range sky {
		if s.Run == "r7" {
			r7 = append(r7, [2]float64{s.OffsetS, s.Containers})
		}
	}
	if want := [][2]float64{{0, 2}, {2, 6}, {5, 4}, {7, 0}}; !reflect.DeepEqual(r7, want) {
		t.Errorf("r7 skyline %v, want %v", r7, want)
	}
}

// FuzzNative: the parser never panics, and what it accepts is a valid step
// function (offsets increasing, counts ≥ 0, ending at zero).
func FuzzNative(f *testing.F) {
	for _, name := range []string{"tinySample.txt", "tpch_q12.txt", "nativeLog.txt"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "resourceestimator", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			f.Add(line)
		}
	}
	f.Add("p 1 1 2 3 r m 1:0|1:0|")
	f.Fuzz(func(t *testing.T, line string) {
		run, samples, err := parseNativeLine([]byte(line))
		if err != nil {
			return
		}
		if run == nil || len(samples) == 0 {
			t.Fatalf("accepted %q without a run or samples", line)
		}
		for i, s := range samples {
			if s.Containers < 0 || (i > 0 && s.OffsetS <= samples[i-1].OffsetS) {
				t.Fatalf("%q: bad step function %+v", line, samples)
			}
		}
		if samples[len(samples)-1].Containers != 0 {
			t.Fatalf("%q: step function does not end at zero: %+v", line, samples)
		}
	})
}
