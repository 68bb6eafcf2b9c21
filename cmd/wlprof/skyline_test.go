package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/skyline"
)

// timing masks what varies from run to run in skyline outputs: solve times.
var (
	jsonSolveS = regexp.MustCompile(`"solve_s": [0-9.e+-]+`)
	textSolveS = regexp.MustCompile(`(?m)^(  tpch_q12 .*  )[0-9]+\.[0-9]{3}$`)
)

// skylineDataset ingests Hadoop's tpch_q12 fixture (13 runs, native
// format) into a fresh dataset.
func skylineDataset(t *testing.T) string {
	t.Helper()
	return ingestedDataset(t, "re-native", "../../testdata/resourceestimator/tpch_q12.txt")
}

func TestSkylineGolden(t *testing.T) {
	ds := skylineDataset(t)
	out, stderr, code := wlprof(t, "skyline", "-d", ds, "--step", "5s", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "skyline-tpch_q12.json", jsonSolveS.ReplaceAllString(out, `"solve_s": 0`))
	var doc struct {
		Version int `json:"version"`
		Jobs    []struct {
			Job         string    `json:"job"`
			Containers  []float64 `json:"containers"`
			Reservation []int64   `json:"reservation"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Version != 1 || len(doc.Jobs) != 1 {
		t.Fatalf("bad document (%v): %s", err, out)
	}
	out, _, code = wlprof(t, "skyline", "-d", ds, "--step", "5s", "--alpha-sweep", "0.01,0.1,0.5,0.9")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	golden(t, "skyline-tpch_q12.txt", textSolveS.ReplaceAllString(out, "${1}X.XXX"))
	out = mustRun(t, "skyline", "-d", ds, "--step", "5s", "-o", "csv")
	golden(t, "skyline-tpch_q12.csv", out)
}

// TestSkylineAlphaTradeOff: raising α must not raise over-allocation nor
// lower under-allocation (Morpheus Fig. 9b/9c); a property of any optimum.
func TestSkylineAlphaTradeOff(t *testing.T) {
	ds := skylineDataset(t)
	out := mustRun(t, "skyline", "-d", ds, "--step", "5s", "--alpha-sweep", "0,0.01,0.1,0.5,0.9,1", "-o", "json")
	var doc struct {
		Jobs []struct {
			Sweep []struct {
				Alpha float64 `json:"alpha"`
				Over  float64 `json:"over_allocation"`
				Under float64 `json:"under_allocation"`
			} `json:"alpha_sweep"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Jobs) != 1 || len(doc.Jobs[0].Sweep) != 6 {
		t.Fatalf("bad document (%v): %s", err, out)
	}
	s := doc.Jobs[0].Sweep
	for i := 1; i < len(s); i++ {
		if s[i].Over > s[i-1].Over+1e-6 || s[i].Under < s[i-1].Under-1e-6 {
			t.Errorf("alpha %g → %g: over %g → %g, under %g → %g", s[i-1].Alpha, s[i].Alpha, s[i-1].Over, s[i].Over, s[i-1].Under, s[i].Under)
		}
	}
}

func TestExportYARNGolden(t *testing.T) {
	ds := skylineDataset(t)
	out := mustRun(t, "export", "yarn-reservation", "-d", ds, "--job", "tpch_q12", "--queue", "dedicated", "--reservation-id", "reservation_1462166141572_0001", "--step", "5s", "--period", "1h")
	golden(t, "export-yarn-tpch_q12.json", out)
}

// With --period and --deadline, export places the request as without
// --deadline (one period after the last run, on the given period), with
// the deadline given: the SLO, whose period and window both give way, is
// not inferred.
func TestExportYARNPeriodAndDeadline(t *testing.T) {
	ds := skylineDataset(t)
	base := []string{"export", "yarn-reservation", "-d", ds, "--job", "tpch_q12", "--queue", "dedicated", "--reservation-id", "reservation_1462166141572_0001", "--step", "5s", "--period", "1h"}
	parse := func(args ...string) map[string]any {
		out := mustRun(t, append(base, args...)...)
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	want := parse()
	def := want["reservation-definition"].(map[string]any)
	deadline := int64(def["deadline"].(float64)) + 600_000
	def["deadline"] = float64(deadline)
	got := parse("--deadline", strconv.FormatInt(deadline, 10)+"ms")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("with --deadline %d:\n got %v\nwant %v", deadline, got, want)
	}
}

// --now moves the request on by whole periods until it arrives at or after
// that instant (the golden's arrival is before it); --min-concurrency 0
// asks for whole stages; the default is 1 (seed 001's minimum
// parallelism). A request in the past of the wall clock gets a warning.
func TestExportYARNNowAndGang(t *testing.T) {
	ds := skylineDataset(t)
	base := []string{"export", "yarn-reservation", "-d", ds, "--job", "tpch_q12", "--queue", "dedicated", "--reservation-id", "reservation_1462166141572_0001", "--step", "5s", "--period", "1h"}
	parse := func(args ...string) (map[string]any, string) {
		out, stderr, code := wlprof(t, append(base, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		return doc["reservation-definition"].(map[string]any), stderr
	}
	def, stderr := parse()
	if !strings.Contains(stderr, "warning: the reservation arrives at") {
		t.Errorf("no past-arrival warning for a 2016 reservation: %q", stderr)
	}
	arrival := int64(def["arrival"].(float64))
	now := arrival + 10*3600_000 + 1 // just after the 10th next occurrence
	moved, _ := parse("--now", strconv.FormatInt(now, 10)+"ms")
	if got, want := int64(moved["arrival"].(float64)), arrival+11*3600_000; got != want {
		t.Errorf("--now %d: arrival %d, want %d (11 periods on)", now, got, want)
	}
	if d0, d1 := int64(def["deadline"].(float64))-arrival, int64(moved["deadline"].(float64))-int64(moved["arrival"].(float64)); d0 != d1 {
		t.Errorf("--now changed the window's length: %d ms, was %d", d1, d0)
	}
	stages := func(def map[string]any) []map[string]any {
		var out []map[string]any
		for _, r := range def["reservation-requests"].(map[string]any)["reservation-request"].([]any) {
			out = append(out, r.(map[string]any))
		}
		return out
	}
	whole, _ := parse("--min-concurrency", "0")
	for i, st := range stages(whole) {
		if st["min-concurrency"] != st["num-containers"] {
			t.Errorf("--min-concurrency 0: stage %d min %v of %v containers", i, st["min-concurrency"], st["num-containers"])
		}
		if stages(def)[i]["min-concurrency"] != 1.0 {
			t.Errorf("default: stage %d min-concurrency %v, want 1", i, stages(def)[i]["min-concurrency"])
		}
	}
	if _, stderr, code := wlprof(t, append(base, "--min-concurrency", "-2")...); code != 2 || !strings.Contains(stderr, "--min-concurrency -2") {
		t.Errorf("--min-concurrency -2: exit %d, %q; want 2 naming the flag", code, stderr)
	}
}

// TestSkylineErrors: bad flags are usage errors (2); data that cannot be
// fitted is an error (1) with a reason and nothing on stdout.
func TestSkylineErrors(t *testing.T) {
	ds := skylineDataset(t)
	for _, c := range []struct {
		argv []string
		code int
		msg  string
	}{
		{[]string{"skyline", "--beta", "lots"}, 2, "--beta"},
		{[]string{"skyline", "--alpha", "1.5"}, 2, "alpha"},
		{[]string{"skyline", "--step", "0s"}, 2, "step"},
		{[]string{"skyline", "--alpha-sweep", "0.1,x"}, 2, "alpha-sweep"},
		{[]string{"skyline", "--job", "nope"}, 1, "no skylines"},
		{[]string{"skyline", "--job", "tpch_q12", "--min-runs", "14"}, 1, "too few runs"},
		{[]string{"skyline", "--step", "1ms"}, 1, "coarser --step"},
		{[]string{"skyline", "--timeout", "1ns"}, 1, "time limit"},
		{[]string{"export", "yarn-reservation", "--job", "tpch_q12"}, 2, "--queue"},
		{[]string{"export", "yarn-reservation", "--job", "tpch_q12", "--queue", "q", "--reservation-id", "reservation_1462166141572_0001", "--step", "5s", "--max-periodicity", "7m"}, 1, "does not divide"},
		{[]string{"export", "yarn-reservation", "--job", "tpch_q12", "--queue", "q", "--reservation-id", "reservation_1462166141572_0001", "--step", "5s", "--period", "7m"}, 1, "does not divide"},
		{[]string{"export", "yarn-reservation", "--job", "tpch_q12", "--queue", "q", "--reservation-id", "reservation_1462166141572_0001", "--step", "5s", "--period", "1h", "--arrival", "1000ms", "--deadline", "2000ms"}, 1, "shorter than the skyline"},
		{[]string{"export", "yarn-reservation", "--job", "tpch_q12", "--queue", "q", "--reservation-id", "reservation_1462166141572_0001", "--arrival", "1000"}, 2, "an epoch time needs its unit: 1000s (seconds) or 1000ms"},
	} {
		if out, _ := checkExit(t, append(c.argv, "-d", ds), c.code, c.msg); out != "" {
			t.Errorf("%v: stdout %d bytes, want none", c.argv, len(out))
		}
	}
}

// TestSkylineSkipsBadJob: one job whose runs cannot be fitted (Hadoop
// ResourceEstimator's invalidLog1.txt: job "Test", every sample zero) is
// listed as skipped with its reason (one run is enough with --min-runs 1),
// and the other jobs are still fitted;
// the command exits 0, since the tool did not fail.
func TestSkylineSkipsBadJob(t *testing.T) {
	ds := skylineDataset(t)
	mustRun(t, "ingest", "yarn-rm", "../../testdata/jobs/resourceestimator/invalidLog1.txt", "-d", ds, "-q")
	out := mustRun(t, "skyline", "-d", ds, "--step", "5s", "--min-runs", "1", "-o", "json")
	var doc struct {
		Jobs []struct {
			Job string `json:"job"`
		} `json:"jobs"`
		Skipped []struct {
			Job    string `json:"job"`
			Reason string `json:"reason"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("bad document (%v): %s", err, out)
	}
	if len(doc.Jobs) != 1 || doc.Jobs[0].Job != "tpch_q12" {
		t.Errorf("fitted %+v, want tpch_q12 alone", doc.Jobs)
	}
	var test string
	for _, s := range doc.Skipped {
		if s.Job == "Test" {
			test = s.Reason
		}
	}
	if !strings.Contains(test, "uses no resources") {
		t.Errorf("job Test skipped for %q, want the reason its runs use no resources; skipped: %+v", test, doc.Skipped)
	}
}

// TestExportYARNReservationID: the ResourceManager refuses a submission
// without a reservation id (ReservationInputValidator), so export needs
// one, from --reservation-id or from the new-reservation call's response
// (--new-reservation FILE), and says how to get it; the printed request
// passes the validator's rules.
func TestExportYARNReservationID(t *testing.T) {
	ds := skylineDataset(t)
	base := []string{"export", "yarn-reservation", "-d", ds, "--job", "tpch_q12", "--queue", "dedicated", "--step", "5s", "--period", "1h"}
	if _, stderr, code := wlprof(t, base...); code != 2 || !strings.Contains(stderr, "new-reservation") {
		t.Errorf("without an id: exit %d, %q; want 2 saying how to get one", code, stderr)
	}
	if _, stderr, code := wlprof(t, append(base, "--reservation-id", "42")...); code != 2 || !strings.Contains(stderr, "reservation_<cluster timestamp>_<number>") {
		t.Errorf("a malformed id: exit %d, %q", code, stderr)
	}
	resp := filepath.Join(t.TempDir(), "new.json")
	if err := os.WriteFile(resp, []byte(`{"reservation-id":"reservation_1404198295326_0003"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, append(base, "--new-reservation", resp)...)
	var req skyline.YARNReservation
	if err := json.Unmarshal([]byte(out), &req); err != nil {
		t.Fatal(err)
	}
	if req.ReservationID != "reservation_1404198295326_0003" {
		t.Errorf("reservation-id %q, want the response's", req.ReservationID)
	}
	if err := skyline.CheckSubmission(&req, 86400000); err != nil {
		t.Errorf("the exported request breaks the ResourceManager's rules: %v", err)
	}
}

// TestFitFlagsAreSkylines: every command that fits skylines takes the fit's
// flags as the skyline stage declares them (name, default, type, help), so
// a default is written once, in skyline.DefaultOptions.
func TestFitFlagsAreSkylines(t *testing.T) {
	want := pflag.NewFlagSet("skyline", pflag.ContinueOnError)
	o := skyline.DefaultOptions()
	o.AddFlags(want)
	root := newRootCmd(&streams{})
	for _, path := range [][]string{{"skyline"}, {"export", "yarn-reservation"}, {"plan"}, {"report"}, {"run"}} {
		cmd, _, err := root.Find(path)
		if err != nil {
			t.Fatalf("%v: %v", path, err)
		}
		for _, n := range skyline.FitFlags {
			w, got := want.Lookup(n), cmd.Flags().Lookup(n)
			if got == nil || got.DefValue != w.DefValue || got.Usage != w.Usage || got.Value.Type() != w.Value.Type() {
				t.Errorf("%s --%s: %+v; the skyline stage's: default %q, %s, %q", cmd.CommandPath(), n, got, w.DefValue, w.Value.Type(), w.Usage)
			}
		}
	}
}
