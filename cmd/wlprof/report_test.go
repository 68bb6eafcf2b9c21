package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/wlprof/wlprof/profile"
	"github.com/wlprof/wlprof/skyline"
)

// The report of the bundled tpch_q12 fixture: its JSON index and the
// profile file are golden (the profile package also checks the golden
// profile against the published schema).
func TestReportGolden(t *testing.T) {
	ds := skylineDataset(t)
	dir := filepath.Dir(ds)
	out := filepath.Join(dir, "report")
	stdout, stderr, code := wlprof(t, "report", "-d", ds, "--out", out, "--step", "5s", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "report-tpch_q12.json", strings.ReplaceAll(stdout, dir, "$TMP"))
	var idx struct {
		Version  int    `json:"version"`
		Dir      string `json:"dir"`
		Profiles []struct{ Job, Path string }
		Stages   []struct {
			Stage    string
			Computed bool
		}
	}
	if err := json.Unmarshal([]byte(stdout), &idx); err != nil || idx.Version != 1 || idx.Dir != out || len(idx.Profiles) != 1 {
		t.Fatalf("index %+v (%v)", idx, err)
	}
	for _, s := range idx.Stages {
		// skyline fits the runs; slo infers their period (no consumer reads
		// them, so the SLO is not actionable)
		if s.Computed != (s.Stage == "skyline" || s.Stage == "slo") {
			t.Errorf("stage %s computed=%v", s.Stage, s.Computed)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, idx.Profiles[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "report/profiles/tpch_q12.json", string(b))
	j, err := profile.LoadJob(filepath.Join(out, idx.Profiles[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	// The profile's skyline is what wlprof skyline fits (same flags), and
	// its stages cover the reservation exactly.
	sk, _, _ := wlprof(t, "skyline", "-d", ds, "--step", "5s", "-o", "json")
	var fit skyline.Result
	if err := json.Unmarshal([]byte(sk), &fit); err != nil {
		t.Fatal(err)
	}
	if got, want := j.Skyline.Reservation, fit.Jobs[0].Reservation; len(got) != len(want) || got[3] != want[3] {
		t.Errorf("profile reservation %v, skyline %v", got, want)
	}
	area := 0.0
	for _, st := range j.Skyline.Stages {
		area += float64(st.Containers) * st.DurationS
	}
	if area != j.Skyline.ReservedAreaContainerS {
		t.Errorf("stages cover %g container·s, the reservation %g", area, j.Skyline.ReservedAreaContainerS)
	}
	if j.Skyline.UsedAreaContainerS <= 0 || j.Skyline.ReservedAreaContainerS < j.Skyline.UsedAreaContainerS*0.9 {
		t.Errorf("used %g, reserved %g", j.Skyline.UsedAreaContainerS, j.Skyline.ReservedAreaContainerS)
	}
	if len(j.Skyline.AlphaSweep) != 4 {
		t.Errorf("%d alpha sweep points, want the default 4", len(j.Skyline.AlphaSweep))
	}

	// Text and CSV outputs name what was written.
	stdout, _, code = wlprof(t, "report", "-d", ds, "--out", out, "--step", "5s", "--alpha-sweep", "")
	if code != 0 || !strings.Contains(stdout, filepath.Join(out, "index.html")) || !strings.Contains(stdout, "not computed: classify, plan, elasticity, profiler") {
		t.Errorf("text output: exit %d\n%s", code, stdout)
	}
	stdout, _, _ = wlprof(t, "report", "-d", ds, "--out", out, "--step", "5s", "-o", "csv")
	if !strings.Contains(stdout, "profile,,tpch_q12,profiles/tpch_q12.json") || !strings.Contains(stdout, "svg,skyline,tpch_q12,plots/skyline-tpch_q12.svg") {
		t.Errorf("csv output:\n%s", stdout)
	}
}

// A job named like markup, end to end: ingested from a CSV, fitted, and
// shown escaped; its profile file has a safe name.
func TestReportEscapesJobNames(t *testing.T) {
	dir := t.TempDir()
	// Hadoop's tpch_q12 runs, renamed: the job id is the first field.
	src, err := os.ReadFile("../../testdata/resourceestimator/tpch_q12.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(src)), "\n")
	for i, l := range lines {
		lines[i] = "<script>alert(1)</script>" + strings.TrimPrefix(l, "tpch_q12")
	}
	nativePath := filepath.Join(dir, "sky.txt")
	os.WriteFile(nativePath, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	ds := filepath.Join(dir, "ds")
	mustRun(t, "ingest", "re-native", nativePath, "-d", ds, "-q")
	out := filepath.Join(dir, "report")
	mustRun(t, "report", "-d", ds, "--out", out, "--step", "5s", "-q")
	html, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if strings.Contains(strings.ToLower(string(html)), "<script") || !strings.Contains(string(html), "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the job name is not escaped in index.html")
	}
	if _, err := profile.LoadJob(filepath.Join(out, "profiles", profile.FileName("<script>alert(1)</script>"))); err != nil {
		t.Error(err)
	}
}

func TestReportErrors(t *testing.T) {
	ds := skylineDataset(t)
	notReport := t.TempDir()
	os.WriteFile(filepath.Join(notReport, "notes.txt"), []byte("mine"), 0o644)
	for _, c := range []struct {
		argv []string
		code int
		err  string
	}{
		{[]string{"report", "-d", ds}, 2, "--out DIR is required"},
		{[]string{"report", "-d", ds, "--out", notReport}, 1, "not a wlprof report"},
		{[]string{"report", "-d", ds, "--out", filepath.Join(notReport, "r"), "--alpha-sweep", "2"}, 2, "not an alpha"},
		{[]string{"report", "-d", filepath.Join(notReport, "nods"), "--out", filepath.Join(notReport, "r")}, 1, ""},
		// The destination is checked before the work: with no dataset at
		// all, the error is still the destination's.
		{[]string{"report", "-d", filepath.Join(notReport, "nods"), "--out", notReport}, 1, "not a wlprof report"},
	} {
		checkExit(t, c.argv, c.code, c.err)
	}
	if b, _ := os.ReadFile(filepath.Join(notReport, "notes.txt")); string(b) != "mine" {
		t.Error("a directory that is not a report was changed")
	}
}

// A dataset without skylines still gives a report: every stage but classify
// (which has usage rows) says why it is not computed, and no profile is written.
func TestReportWithoutSkylines(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	if _, _, code := wlprof(t, "ingest", "csv", "../../testdata/usage_with_rejects.csv", "-d", ds, "-q"); code != 3 {
		t.Fatalf("ingest: exit %d", code)
	}
	stdout := mustRun(t, "report", "-d", ds, "--out", filepath.Join(dir, "r"), "-o", "json")
	var idx struct {
		Profiles []any
		Stages   []struct {
			Stage    string
			Computed bool
			Notes    []string
		}
	}
	if err := json.Unmarshal([]byte(stdout), &idx); err != nil || len(idx.Profiles) != 0 {
		t.Fatalf("%v: %s", err, stdout)
	}
	for _, s := range idx.Stages {
		if s.Stage == "classify" {
			continue // it runs on the six usage rows: every tenant is insufficient
		}
		if s.Computed || len(s.Notes) == 0 {
			t.Errorf("stage %s: computed %v, notes %q", s.Stage, s.Computed, s.Notes)
		}
		if s.Stage == "skyline" && !strings.Contains(s.Notes[0], "no skylines") {
			t.Errorf("skyline note %q", s.Notes)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, "r", "index.html"))
	if !strings.Contains(string(html), "No recurring jobs.") {
		t.Error("index.html does not say there are no jobs")
	}
}

// With --yarn-queue the report holds each job's YARN reservation request:
// the same request wlprof export yarn-reservation prints with the same
// flags. The slo stage finds tpch_q12's runs starting every 300 s (the
// median spacing, 315.7 s, snapped to a natural period), which divides the
// RM's default max periodicity of a day.
func TestReportYARNReservationMatchesExport(t *testing.T) {
	ds := skylineDataset(t)
	out := filepath.Join(filepath.Dir(ds), "report")
	stdout, stderr, code := wlprof(t, "report", "-d", ds, "--out", out, "--step", "5s", "--yarn-queue", "dedicated", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var idx struct{ Reservations []struct{ Job, Path string } }
	if err := json.Unmarshal([]byte(stdout), &idx); err != nil || len(idx.Reservations) != 1 {
		t.Fatalf("reservations %+v (%v)", idx.Reservations, err)
	}
	got, err := os.ReadFile(filepath.Join(out, idx.Reservations[0].Path))
	if err != nil {
		t.Fatal(err)
	}
	want, stderr, code := wlprof(t, "export", "yarn-reservation", "-d", ds, "--job", "tpch_q12", "--queue", "dedicated",
		"--reservation-id", "reservation_1462166141572_0001", "--step", "5s")
	if code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	// The report's requests are export's without the id, which only the
	// ResourceManager gives (reservations/SUBMIT.md says how).
	var g, w map[string]any
	if json.Unmarshal([]byte(want), &w) == nil {
		delete(w, "reservation-id")
	}
	if json.Unmarshal(got, &g) != nil || w == nil || !reflect.DeepEqual(g, w) {
		t.Errorf("report's reservation\n%s\ndiffers from export's\n%s", got, want)
	}
	// With a max periodicity of 7 minutes the 5-minute period does not fit:
	// a warning, no file.
	mustRun(t, "report", "-d", ds, "--out", out, "--step", "5s", "--yarn-queue", "dedicated", "--max-periodicity", "7m")
	j, err := profile.LoadJob(filepath.Join(out, "profiles", "tpch_q12.json"))
	if err != nil || !strings.Contains(strings.Join(j.Warnings, "\n"), "does not divide the RM's max periodicity") {
		t.Errorf("warnings %q (%v)", j.Warnings, err)
	}
	if _, err := os.Stat(filepath.Join(out, "reservations")); !os.IsNotExist(err) {
		t.Errorf("reservations/ written without a reservation: %v", err)
	}
}

// The class figures (each class's representative series and spectra) are
// drawn whether the report builds the series table itself (none stored
// yet: it is committed through another handle, and the figures' series
// are read from it) or reads a fresh one, and the two reports are the
// same.
func TestReportClassFiguresWithAndWithoutStoredSeries(t *testing.T) {
	dir, ds := classifyDataset(t)
	type index struct {
		Plots []struct{ Name, Stage string }
	}
	var docs [2]string
	for i := range docs {
		out := filepath.Join(dir, fmt.Sprintf("report%d", i))
		stdout := mustRun(t, "report", "-d", ds, "--out", out, "-o", "json")
		var idx index
		if err := json.Unmarshal([]byte(stdout), &idx); err != nil {
			t.Fatal(err)
		}
		tj, err := profile.LoadTenants(filepath.Join(out, "tenants.json"))
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, p := range idx.Plots {
			names[p.Name] = true
		}
		if len(tj.Classes) < 3 {
			t.Fatalf("report %d: %d classes, want the synthetic world's ≥ 3", i, len(tj.Classes))
		}
		for _, c := range tj.Classes {
			for _, kind := range []string{"series-", "spectrum-"} {
				found := false
				for n := range names {
					if strings.HasPrefix(n, kind) && strings.Contains(n, c.Class) {
						found = true
					}
				}
				if !found {
					t.Errorf("report %d: no %s figure for class %s; plots %v", i, kind, c.Class, idx.Plots)
				}
			}
		}
		docs[i] = strings.ReplaceAll(stdout, out, "$OUT")
	}
	if docs[0] != docs[1] {
		t.Errorf("the report that built the series and the one that read them differ:\n%s\n%s", docs[0], docs[1])
	}
}

// The report counts the tenants it classified (issue 22 item 4): the
// text says "classify computed (N tenants)", and index.json's classify
// stage carries tenants, N, beside jobs (0: classify profiles no job).
func TestReportCountsTenants(t *testing.T) {
	dir, ds := classifyDataset(t)
	out := filepath.Join(dir, "report")
	stdout := mustRun(t, "report", "-d", ds, "--out", out)
	tj, err := profile.LoadTenants(filepath.Join(out, "tenants.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("classify   computed (%d tenants)", len(tj.Tenants))
	if len(tj.Tenants) == 0 || !strings.Contains(stdout, want) {
		t.Errorf("output %q lacks %q", stdout, want)
	}
	b, err := os.ReadFile(filepath.Join(out, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Stages []struct {
			Stage   string
			Jobs    int
			Tenants *int
		}
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	for _, s := range idx.Stages {
		if s.Stage == "classify" && (s.Tenants == nil || *s.Tenants != len(tj.Tenants) || s.Jobs != 0) {
			t.Errorf("index.json classify stage %+v, want %d tenants", s, len(tj.Tenants))
		}
		if s.Stage != "classify" && s.Tenants != nil {
			t.Errorf("index.json stage %s has tenants", s.Stage)
		}
	}
}

// wlprof run checks OUT/report before it ingests: a destination it may
// not replace fails the command with nothing written (exit 1 means nothing
// was changed), not after OUT/dataset was committed (issue 22 item 8).
func TestRunChecksTheReportDirectoryFirst(t *testing.T) {
	out := t.TempDir()
	if err := os.MkdirAll(filepath.Join(out, "report"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "report", "mine.txt"), []byte("mine"), 0o644)
	_, stderr, code := wlprof(t, "run", "--out", out, "../../testdata/resourceestimator/tpch_q12.txt")
	if code != 1 || !strings.Contains(stderr, "not a wlprof report") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 1 || entries[0].Name() != "report" {
		t.Errorf("run wrote %v before failing", entries)
	}
}

// TestReportSubmitScript: the report's reservations/submit.sh takes an id
// from a ResourceManager's new-reservation call and submits each request
// with it; a stand-in ResourceManager (the two REST calls, nothing else)
// checks each body against the ResourceManager's validation rules.
func TestReportSubmitScript(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("curl not found: scripts/deps.sh (make test) installs it")
	}
	ds := skylineDataset(t)
	out := filepath.Join(filepath.Dir(ds), "report")
	mustRun(t, "report", "-d", ds, "--out", out, "--step", "5s", "--yarn-queue", "dedicated", "-q")
	md, err := os.ReadFile(filepath.Join(out, "reservations", "SUBMIT.md"))
	if err != nil || !strings.Contains(string(md), "new-reservation") || !strings.Contains(string(md), "tpch_q12") {
		t.Fatalf("SUBMIT.md (%v):\n%s", err, md)
	}
	var mu sync.Mutex
	var submitted []skyline.YARNReservation
	next := 0
	rm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/ws/v1/cluster/reservation/new-reservation":
			next++
			fmt.Fprintf(w, `{"reservation-id":"reservation_1700000000000_%04d"}`, next)
		case r.Method == http.MethodPost && r.URL.Path == "/ws/v1/cluster/reservation/submit":
			var req skyline.YARNReservation
			dec := json.NewDecoder(r.Body)
			dec.DisallowUnknownFields()
			if err := dec.Decode(&req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if err := skyline.CheckSubmission(&req, 86400000); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			submitted = append(submitted, req)
		default:
			http.NotFound(w, r)
		}
	}))
	defer rm.Close()
	cmd := exec.Command("sh", filepath.Join(out, "reservations", "submit.sh"), rm.URL)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("submit.sh: %v\n%s", err, b)
	}
	if len(submitted) != 1 || submitted[0].ReservationID != "reservation_1700000000000_0001" || submitted[0].Definition.Name != "tpch_q12" {
		t.Errorf("submitted %+v; want tpch_q12's request with the id handed out\n%s", submitted, b)
	}
}

// reportIndex is the part of wlprof report's JSON index the section
// tests read.
type reportIndex struct {
	Stages []reportStage `json:"stages"`
	Plots  []struct {
		Name string `json:"name"`
	} `json:"plots"`
}

type reportStage struct {
	Stage    string `json:"stage"`
	Computed bool   `json:"computed"`
	Jobs     int    `json:"jobs"`
	Tenants  *int   `json:"tenants"`
}

// sectionReport runs wlprof report -o json on the dataset ds into a new
// directory with a section's flags; it fails t unless the report is
// written, and returns the directory, the JSON index as printed and as
// read.
func sectionReport(t *testing.T, ds string, flags ...string) (string, string, reportIndex) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r")
	stdout := mustRun(t, append([]string{"report", "-d", ds, "--out", out, "-o", "json"}, flags...)...)
	var idx reportIndex
	if err := json.Unmarshal([]byte(stdout), &idx); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	return out, stdout, idx
}

// stage is the index's row of the named stage (Stage empty when absent).
func (idx reportIndex) stage(name string) reportStage {
	for _, s := range idx.Stages {
		if s.Stage == name {
			return s
		}
	}
	return reportStage{}
}

// plotsNamed counts the plots whose names start with prefix.
func (idx reportIndex) plotsNamed(prefix string) int {
	n := 0
	for _, p := range idx.Plots {
		if strings.HasPrefix(p.Name, prefix) {
			n++
		}
	}
	return n
}
