package ingest

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// tracesDir holds the trace fixtures; testdata/traces/SOURCES.md says where
// each file comes from.
var tracesDir = filepath.Join("..", "testdata", "traces")

func traceFile(parts ...string) string {
	return filepath.Join(append([]string{tracesDir}, parts...)...)
}

// traceBytes reads a trace fixture (for fuzz seeds, benchmarks and
// rows to rewrite).
func traceBytes(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(traceFile(parts...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// wantFormat checks that Detect picks want for the file at path.
func wantFormat(t testing.TB, path, want string) {
	t.Helper()
	if f, err := detectedAs(t, path); err != nil || f.Name != want {
		t.Errorf("%s: detected %v (%v), want %s", path, f, err, want)
	}
}

// detectedAs is the format Detect picks for the file at path (nil and
// Detect's error when none).
func detectedAs(t testing.TB, path string) (*Format, error) {
	t.Helper()
	in, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	return Detect(in)
}

// ingested is what one Run put in a fresh dataset, read back from it.
type ingested struct {
	res     *Result
	usage   []dataset.Usage
	vms     []dataset.VM
	rejects []dataset.Reject
}

// runInto ingests paths into the dataset at dir (no reject limit) and reads
// the tables back.
func runInto(t testing.TB, dir, format string, paths []string, opts Options) (*ingested, error) {
	t.Helper()
	opts.MaxRejects = -1
	res, err := ingest(t, context.Background(), dir, format, paths, opts)
	if err != nil {
		return nil, err
	}
	ds := openDataset(t, dir)
	return &ingested{res: res, usage: readAll(t, ds, dataset.UsageTable), vms: readAll(t, ds, dataset.VMsTable),
		rejects: readAll(t, ds, dataset.RejectsTable)}, nil
}

// readAll reads every row of a table.
func readAll[T any](t testing.TB, ds *dataset.Dataset, table *dataset.Table[T]) []T {
	t.Helper()
	rows, err := dataset.ReadAll(context.Background(), ds, table)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func mustRun(t testing.TB, format string, paths []string, opts Options) *ingested {
	t.Helper()
	out, err := runInto(t, filepath.Join(t.TempDir(), "ds"), format, paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func wallUTCMs(s string) int64 {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

// wantReject checks that the rejects hold one on line with a reason
// containing why.
// lineReject is a reject a test expects: its line and a phrase of its
// reason.
type lineReject struct {
	line int64
	why  string
}

// hasRejects checks that rejects hold each of want (hasReject).
func hasRejects(t *testing.T, rejects []dataset.Reject, want []lineReject) {
	t.Helper()
	for _, w := range want {
		hasReject(t, rejects, w.line, w.why)
	}
}

func hasReject(t *testing.T, rejects []dataset.Reject, line int64, why string) {
	t.Helper()
	for _, r := range rejects {
		if r.Line == line && strings.Contains(r.Reason, why) {
			return
		}
	}
	t.Errorf("no reject on line %d containing %q; rejects: %+v", line, why, rejects)
}

// The real single-series fixtures: counts are the data lines of each file
// (wc -l minus the header), first/last values are its first and last data
// lines, units follow from the values (see each case).
func TestSeriesCSVFixtures(t *testing.T) {
	cases := []struct {
		file        string
		rows        int
		unit        string // expected unit note prefix
		first, last dataset.Usage
	}{
		// offset_seconds,avg_cpu_percent: header declares percent; offsets from the epoch default.
		{"azure_v1_vm942980_avgcpu.csv", 8004, "cpu unit: percent (from the header name)",
			dataset.Usage{TimeMs: 0, CPU: 0.15924987}, dataset.Usage{TimeMs: 2400900 * 1000, CPU: 0.10951904}},
		{"azure_v1_vm1061169_avgcpu.csv", 8004, "cpu unit: percent (from the header name)",
			dataset.Usage{TimeMs: 0, CPU: 0.14582427}, dataset.Usage{TimeMs: 2400900 * 1000, CPU: 0.15015513}},
		// NAB CloudWatch CPU: values up to 2.656 (> 1) read as percent.
		{"nab_ec2_cpu_utilization_53ea38.csv", 4032, "cpu unit: percent (detected: values up to 2.656)",
			dataset.Usage{TimeMs: wallUTCMs("2014-02-14 14:30:00"), CPU: 0.01732}, dataset.Usage{TimeMs: wallUTCMs("2014-02-28 14:25:00"), CPU: 0.01766}},
		// 77c1ca starts at 0.068 but peaks at 99.898: percent, so 0.068 is 0.068%.
		{"nab_ec2_cpu_utilization_77c1ca.csv", 4032, "cpu unit: percent (detected: values up to 99.898)",
			dataset.Usage{TimeMs: wallUTCMs("2014-04-02 14:25:00"), CPU: 0.00068}, dataset.Usage{TimeMs: wallUTCMs("2014-04-16 14:20:00"), CPU: 0.00102}},
		{"nab_rds_cpu_utilization_cc0c53.csv", 4032, "cpu unit: percent (detected: values up to 25.1033)",
			dataset.Usage{TimeMs: wallUTCMs("2014-02-14 14:30:00"), CPU: 0.06456}, dataset.Usage{TimeMs: wallUTCMs("2014-02-28 14:30:00"), CPU: 0.155567}},
		// NYC taxi passenger counts (8 to 39197) are not utilisation: raw,
		// divided by the maximum 39197 (awk max over the value column).
		{"nab_nyc_taxi.csv", 10320, "cpu unit: raw (detected: 10308 of 10320 values above 100 are not utilisation; divided by the file's maximum 39197",
			dataset.Usage{TimeMs: wallUTCMs("2014-07-01 00:00:00"), CPU: 10844.0 / 39197}, dataset.Usage{TimeMs: wallUTCMs("2015-01-31 23:30:00"), CPU: 26288.0 / 39197}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got := mustRun(t, "series-csv", []string{traceFile("timeseries", c.file)}, DefaultOptions())
			if len(got.usage) != c.rows || got.res.Rejected != 0 {
				t.Fatalf("%d rows, %d rejected; want %d, 0", len(got.usage), got.res.Rejected, c.rows)
			}
			notes := strings.Join(got.res.Files[0].Notes, "\n")
			if !strings.Contains(notes, c.unit) {
				t.Errorf("notes %q lack %q", notes, c.unit)
			}
			name := strings.TrimSuffix(c.file, ".csv")
			maxCPU := 0.0
			for _, u := range got.usage {
				if u.Tenant != name || u.Server != name || !math.IsNaN(u.Memory) || u.CPU < 0 || u.CPU > 1 {
					t.Fatalf("record %+v: want tenant = server = %s, memory unknown, cpu in [0,1]", u, name)
				}
				maxCPU = math.Max(maxCPU, u.CPU)
			}
			f, l := got.usage[0], got.usage[len(got.usage)-1]
			if f.TimeMs != c.first.TimeMs || !near(f.CPU, c.first.CPU) || l.TimeMs != c.last.TimeMs || !near(l.CPU, c.last.CPU) {
				t.Errorf("first %+v last %+v; want %+v %+v", f, l, c.first, c.last)
			}
			if strings.Contains(c.unit, "raw") && maxCPU != 1 {
				t.Errorf("raw unit: peak %v, want 1", maxCPU)
			}
		})
	}
}

func TestSeriesCSVTenantOption(t *testing.T) {
	opts := DefaultOptions()
	opts.Tenant = "aws"
	got := mustRun(t, "series-csv", []string{traceFile("timeseries", "nab_ec2_cpu_utilization_53ea38.csv"),
		traceFile("timeseries", "nab_rds_cpu_utilization_cc0c53.csv")}, opts)
	servers := map[string]int{}
	for _, u := range got.usage {
		if u.Tenant != "aws" {
			t.Fatalf("tenant %q, want aws", u.Tenant)
		}
		servers[u.Server]++
	}
	// Each file is one server of the named tenant.
	if servers["nab_ec2_cpu_utilization_53ea38"] != 4032 || servers["nab_rds_cpu_utilization_cc0c53"] != 4032 {
		t.Errorf("servers %v", servers)
	}
	// --trace-start moves offset_seconds series.
	opts = DefaultOptions()
	opts.TraceStart = time.Date(2016, 11, 16, 0, 0, 0, 0, time.UTC)
	got = mustRun(t, "series-csv", []string{traceFile("timeseries", "azure_v1_vm942980_avgcpu.csv")}, opts)
	if got.usage[1].TimeMs != opts.TraceStart.UnixMilli()+300_000 {
		t.Errorf("second sample at %d, want trace start + 300 s", got.usage[1].TimeMs)
	}
}

// The autumn repeated hour, written twice by a logger in New York time
// (testdata/traces/dst, hand-written): every reading is 15 minutes after
// the previous one once the second pass is recognised.
func TestSeriesCSVFallBack(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Location = ny
	got := mustRun(t, "series-csv", []string{traceFile("dst", "nab_style_fall_back_new_york.csv")}, opts)
	if len(got.usage) != 11 || got.res.Rejected != 0 {
		t.Fatalf("%d rows, %d rejects: %+v", len(got.usage), got.res.Rejected, got.rejects)
	}
	// 00:30 EDT is 04:30Z; then every 15 minutes to 02:00 EST = 07:00Z.
	start := wallUTCMs("2014-11-02 04:30:00")
	for i, u := range got.usage {
		if want := start + int64(i)*15*60_000; u.TimeMs != want {
			t.Errorf("row %d at %s, want %s", i, time.UnixMilli(u.TimeMs).UTC(), time.UnixMilli(want).UTC())
		}
		if want := float64(10+i) / 100; !near(u.CPU, want) {
			t.Errorf("row %d cpu %v, want %v", i, u.CPU, want)
		}
	}
	if !noteContains(got.res.Files[0].Notes, "local times read in America/New_York; 4 in the repeated daylight-saving hour taken as its second pass") {
		t.Errorf("notes %q", got.res.Files[0].Notes)
	}
	// Read as UTC, the repeated wall times are duplicates.
	utc := mustRun(t, "series-csv", []string{traceFile("dst", "nab_style_fall_back_new_york.csv")}, DefaultOptions())
	if len(utc.usage) != 7 || len(utc.rejects) != 4 {
		t.Fatalf("UTC: %d rows, %d rejects", len(utc.usage), len(utc.rejects))
	}
	hasReject(t, utc.rejects, 8, "duplicate timestamp: the same instant as line 4")
}

// The spring gap: 02:00–02:59 do not exist in New York on 2014-03-09, and
// NAB's artefact of one wall time repeated (03:00:00 three times here) is
// duplicates, whatever the zone.
func TestSeriesCSVSpringGap(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	opts := DefaultOptions()
	opts.Location = ny
	got := mustRun(t, "series-csv", []string{traceFile("dst", "nab_style_spring_gap_new_york.csv")}, opts)
	if len(got.usage) != 5 || len(got.rejects) != 4 {
		t.Fatalf("%d rows, %d rejects: %+v", len(got.usage), len(got.rejects), got.rejects)
	}
	hasReject(t, got.rejects, 5, "local time 2014-03-09 02:00:00 does not exist in America/New_York")
	hasReject(t, got.rejects, 6, "local time 2014-03-09 02:30:00 does not exist")
	hasReject(t, got.rejects, 8, "duplicate timestamp: the same instant as line 7")
	hasReject(t, got.rejects, 9, "duplicate timestamp: the same instant as line 7")
	// 01:55 EST is 06:55Z and 03:00 EDT is 07:00Z: five minutes apart.
	if got.usage[2].TimeMs != wallUTCMs("2014-03-09 06:55:00") || got.usage[3].TimeMs != wallUTCMs("2014-03-09 07:00:00") {
		t.Errorf("around the gap: %v %v", got.usage[2].TimeMs, got.usage[3].TimeMs)
	}
	if got.rejects[0].Col != 1 {
		t.Errorf("gap reject column %d, want 1", got.rejects[0].Col)
	}
}

// NYC taxi counts are aggregated per half hour in local time and do not
// repeat the autumn hour (01:00, 01:30, 02:00 on 2014-11-02): read in New
// York time the first pass is kept, leaving a one-hour hole, not a clash.
func TestSeriesCSVTaxiInNewYork(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	opts := DefaultOptions()
	opts.Location = ny
	got := mustRun(t, "series-csv", []string{traceFile("timeseries", "nab_nyc_taxi.csv")}, opts)
	if len(got.usage) != 10320 || got.res.Rejected != 0 {
		t.Fatalf("%d rows, %d rejected", len(got.usage), got.res.Rejected)
	}
	// Lines 5956–5958 of the file (data rows 5954–5956, 0-based 5954..).
	want := []int64{wallUTCMs("2014-11-02 05:00:00"), wallUTCMs("2014-11-02 05:30:00"), wallUTCMs("2014-11-02 07:00:00")}
	for i, w := range want {
		if got := got.usage[5954+i].TimeMs; got != w {
			t.Errorf("row %d at %s, want %s", 5954+i, time.UnixMilli(got).UTC(), time.UnixMilli(w).UTC())
		}
	}
}

// Every instant of a year, in zones with 1-hour and 30-minute daylight
// shifts, is among the candidates of its own wall clock; a wall time with
// two candidates is one of the zone's repeated ones.
func TestLocalCandidates(t *testing.T) {
	for _, name := range []string{"America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Tokyo"} {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatal(err)
		}
		from := time.Date(2014, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
		twice := 0
		for u := from; u < from+366*86400_000; u += 7 * 60_000 {
			wall := u + offsetAt(loc, u)
			cand, n := candidates(loc, wall)
			if n == 0 || (cand[0] != u && (n < 2 || cand[1] != u)) {
				t.Fatalf("%s: instant %d (wall %d) not among candidates %v[:%d]", name, u, wall, cand, n)
			}
			if n == 2 {
				twice++
			}
		}
		// A 1-hour fold holds 60/7 ≈ 8.6 sampled instants on each pass;
		// Lord Howe's 30-minute fold half that; Tokyo has none.
		switch name {
		case "Asia/Tokyo":
			if twice != 0 {
				t.Errorf("%s: %d ambiguous instants", name, twice)
			}
		case "Australia/Lord_Howe":
			if twice < 6 || twice > 12 {
				t.Errorf("%s: %d ambiguous instants, want 2 folds × 2 passes × ~4", name, twice)
			}
		default:
			if twice < 14 || twice > 20 {
				t.Errorf("%s: %d ambiguous instants, want 2 passes × ~8.6", name, twice)
			}
		}
	}
}

// Bad input in a single-series file: each rejected with its line and why.
func TestSeriesCSVBadInput(t *testing.T) {
	body := "timestamp,value\n" + // 1
		"2024-01-01 00:00:00,50\n" + // 2 ok
		"2024-01-01 00:05:00,NaN\n" + // 3
		"2024-01-01 00:10:00,-3\n" + // 4
		"2024-01-01 00:15:00,150\n" + // 5
		"2024-13-01 00:20:00,20\n" + // 6 impossible month
		"yesterday,20\n" + // 7
		"2024-01-01 00:25:00,20,7\n" + // 8 three fields
		"2024-01-01 00:00:00,40\n" + // 9 duplicate of line 2
		"2024-01-01 00:30:00,abc\n" + // 10
		"\n" + // 11 blank: skipped
		"2024-01-01 00:01:00,10\n" // 12 ok, out of order: accepted
	path := writeFile(t, t.TempDir(), "bad.csv", []byte(body))
	got := mustRun(t, "series-csv", []string{path}, DefaultOptions())
	if len(got.usage) != 2 || len(got.rejects) != 8 {
		t.Fatalf("%d rows, %d rejects: %+v", len(got.usage), len(got.rejects), got.rejects)
	}
	hasRejects(t, got.rejects, []lineReject{
		{3, "value is NaN"}, {4, "value -3 is negative"}, {5, "value 150 is above 100% of a server"},
		{6, "field out of range"}, {7, "is neither RFC 3339 nor epoch"}, {8, "3 fields, want 2"},
		{9, "duplicate timestamp: the same instant as line 2"}, {10, `value: "abc" is not a number`},
	})
	if got.rejects[0].File != path || got.rejects[0].Format != "series-csv" {
		t.Errorf("reject %+v", got.rejects[0])
	}
	// A first line with a time and a bad value is data, not a header.
	noHeader := writeFile(t, t.TempDir(), "noheader.csv", []byte("2024-01-01 00:00:00,abc\n2024-01-01 00:05:00,0.5\n"))
	got = mustRun(t, "series-csv", []string{noHeader}, DefaultOptions())
	if len(got.usage) != 1 || len(got.rejects) != 1 {
		t.Fatalf("headerless file: %d rows, %d rejects", len(got.usage), len(got.rejects))
	}
	hasReject(t, got.rejects, 1, `value: "abc" is not a number`)
	// Declared fraction: 50 is then out of range, pointing at --cpu-unit.
	opts := DefaultOptions()
	opts.CPUUnit = UnitFraction
	got = mustRun(t, "series-csv", []string{path}, opts)
	hasReject(t, got.rejects, 2, "above 1 but the file's unit is fraction")
	// raw is for series-csv only.
	_, err := runInto(t, filepath.Join(t.TempDir(), "ds"), "csv", []string{filepath.Join("..", "testdata", "usage_with_rejects.csv")}, Options{CPUUnit: UnitRaw, Location: time.UTC})
	if err == nil || !strings.Contains(err.Error(), "--cpu-unit raw applies to series-csv only") {
		t.Errorf("csv with raw: %v", err)
	}
}

// Every file under testdata/traces is detected as its format.
func TestTraceDetection(t *testing.T) {
	cases := map[string]string{
		"timeseries/nab_nyc_taxi.csv":                                   "series-csv",
		"timeseries/azure_v1_vm942980_avgcpu.csv":                       "series-csv",
		"dst/nab_style_fall_back_new_york.csv":                          "series-csv",
		"google2019/instance_usage-000000000000.json":                   "google2019-usage",
		"google2019/instance_usage-000000000001.json.gz":                "google2019-usage",
		"google2019/instance_usage_derived_rows.json":                   "google2019-usage",
		"google2019/instance_usage_same_machine.json":                   "google2019-usage",
		"google2019/instance_usage_alloc_instance.json":                 "google2019-usage",
		"google2019/collection_events-000000000000.json":                "google2019-collection-events",
		"google2019/collection_events_derived_rows.json":                "google2019-collection-events",
		"azure/v1_vm_cpu_readings-file-1-of-125_opendc_sample.csv":      "azure-cpu",
		"azure/v1_vm_cpu_readings_joined_sample.csv":                    "azure-cpu",
		"azure/v1_vmtable_opendc_sample.csv":                            "azure-vmtable",
		"azure_v2/vmtable_v2_buckets_sample.csv":                        "azure-vmtable",
		"azure_v2/vm_cpu_readings_v2_sample.csv":                        "azure-cpu",
		"alibaba2018/machine_usage_sample.csv":                          "alibaba2018-machine",
		filepath.Join("..", "..", "testdata", "usage_with_rejects.csv"): "csv",
	}
	for rel, want := range cases {
		wantFormat(t, traceFile(rel), want)
	}
	// Headers alone, and lines that are none of them.
	for head, want := range map[string]string{
		"timestamp,vmid,min,max,avg\n": "azure-cpu",
		"vmid,subscriptionid,deploymentid,vmcreated,vmdeleted,maxcpu,avgcpu,p95maxcpu,vmcategory,vmcorecount,vmmemory\n": "azure-vmtable",
		"time,value\n1700000000,0.5\n": "series-csv",
		"1700000000,0.5\n":             "series-csv",
		"time,value\nnot a time,0.5\n": "",
		"a,b\nc,d\n":                   "",
		"m_1,10,5,,,,,,\n":             "alibaba2018-machine",
		"{\"start_time\":\"1\",\"instance_index\":\"2\"}\n": "google2019-usage",
		"{\"start_time\":\"1\"}\n":                          "",
		"0,vm,1,2\n":                                        "",
	} {
		f, err := detectedAs(t, writeFile(t, t.TempDir(), "head.txt", []byte(head)))
		got := ""
		if err == nil {
			got = f.Name
		}
		if got != want {
			t.Errorf("Detect(%q) = %q, want %q", head, got, want)
		}
	}
}

// noteContains reports whether a note contains want.
func noteContains(notes []string, want string) bool {
	for _, n := range notes {
		if strings.Contains(n, want) {
			return true
		}
	}
	return false
}
