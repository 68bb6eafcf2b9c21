package dag

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
)

// The hand case: A (5 tasks); B (3) and C (4) after A; D (6)
// after B and C. Levels {A}, {B, C}, {D}: the maximum is 7, at level 1.
func TestLevelsFourStages(t *testing.T) {
	stages := []Stage{{"A", 5, nil}, {"B", 3, []string{"A"}}, {"C", 4, []string{"A"}}, {"D", 6, []string{"B", "C"}}}
	levels, missing, cyclic := Levels(stages)
	want := []Level{{[]string{"A"}, 5}, {[]string{"B", "C"}, 7}, {[]string{"D"}, 6}}
	if !reflect.DeepEqual(levels, want) || missing != nil || cyclic != nil {
		t.Fatalf("levels %v missing %v cyclic %v", levels, missing, cyclic)
	}
	if l, n := MaxLevel(levels); l != 1 || n != 7 {
		t.Errorf("max level %d with %d tasks, want 1 with 7", l, n)
	}
}

// A stage enters the level after its *last* parent, not its first: E
// waits for A (level 0) and D (level 2).
func TestLevelsLastParent(t *testing.T) {
	stages := []Stage{{"A", 1, nil}, {"B", 1, []string{"A"}}, {"D", 1, []string{"B"}}, {"E", 9, []string{"A", "D", "D"}}}
	levels, _, _ := Levels(stages)
	if len(levels) != 4 || levels[3].Stages[0] != "E" {
		t.Errorf("levels %v: want E alone in level 3", levels)
	}
}

func TestLevelsBadDAGs(t *testing.T) {
	_, missing, cyclic := Levels([]Stage{{"1", 2, []string{"9"}}, {"2", 1, []string{"1", "8", "9"}}})
	if !reflect.DeepEqual(missing, []string{"8", "9"}) || cyclic != nil {
		t.Errorf("missing %v cyclic %v", missing, cyclic)
	}
	// 2 and 3 form a cycle; 4 waits for 3, so it never starts either.
	levels, _, cyclic := Levels([]Stage{{"1", 2, nil}, {"2", 1, []string{"3"}}, {"3", 1, []string{"2"}}, {"4", 1, []string{"3"}}})
	if !reflect.DeepEqual(cyclic, []string{"2", "3", "4"}) || len(levels) != 1 {
		t.Errorf("levels %v cyclic %v", levels, cyclic)
	}
}

// Seeded random DAGs: every stage is in exactly one level, one past its
// deepest parent (longest path from a root, computed here by recursion),
// and the level maximum never exceeds the largest antichain (brute
// force over subsets).
func TestLevelsProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 4))
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(10)
		stages := make([]Stage, n)
		anc := make([]uint, n) // bit j: stage j is an ancestor
		for i := range stages {
			stages[i] = Stage{ID: strconv.Itoa(i), Tasks: int64(1 + r.IntN(20))}
			for j := 0; j < i; j++ {
				if r.Float64() < 0.3 {
					stages[i].Parents = append(stages[i].Parents, strconv.Itoa(j))
					anc[i] |= 1<<j | anc[j]
				}
			}
		}
		r.Shuffle(n, func(a, b int) { stages[a], stages[b] = stages[b], stages[a] })
		levels, missing, cyclic := Levels(stages)
		if missing != nil || cyclic != nil {
			t.Fatalf("trial %d: missing %v cyclic %v", trial, missing, cyclic)
		}
		depth := map[string]int{}
		byID := map[string]Stage{}
		for _, s := range stages {
			byID[s.ID] = s
		}
		var d func(id string) int
		d = func(id string) int {
			if v, ok := depth[id]; ok {
				return v
			}
			v := 0
			for _, p := range byID[id].Parents {
				v = max(v, d(p)+1)
			}
			depth[id] = v
			return v
		}
		seen := 0
		for li, l := range levels {
			var sum int64
			for _, id := range l.Stages {
				seen++
				sum += byID[id].Tasks
				if d(id) != li {
					t.Fatalf("trial %d: stage %s in level %d, its longest path is %d", trial, id, li, d(id))
				}
			}
			if sum != l.Tasks {
				t.Fatalf("trial %d: level %d tasks %d, want %d", trial, li, l.Tasks, sum)
			}
		}
		if seen != n {
			t.Fatalf("trial %d: %d stages in levels, want %d", trial, seen, n)
		}
		// anc is indexed by stage number (the id), stages are shuffled.
		var best int64
		for set := uint(1); set < 1<<n; set++ {
			ok := true
			for i := 0; i < n && ok; i++ {
				ok = set&(1<<i) == 0 || anc[i]&set == 0
			}
			if !ok {
				continue
			}
			var w int64
			for _, s := range stages {
				i, _ := strconv.Atoi(s.ID)
				if set&(1<<i) != 0 {
					w += s.Tasks
				}
			}
			best = max(best, w)
		}
		if _, m := MaxLevel(levels); m > best {
			t.Fatalf("trial %d: level maximum %d above the largest antichain %d", trial, m, best)
		}
	}
}

// The Alibaba fixture (written from the trace's schema), through ingest
// and the stage: Job-A of trace_2018.md §2.3 has levels {1}: 10,
// {2, 3}: 4+6, {4}: 3, {5}: 2.
func TestStageAlibaba(t *testing.T) {
	ds := ingestFixture(t, filepath.Join(t.TempDir(), "ds"), "alibaba2018-batch-task", "../testdata/dag/batch_task_schema_sample.csv")
	res := runOn(t, ds, DefaultOptions())
	got := map[string]string{}
	for _, j := range res.Jobs {
		got[j.Job] = strconv.FormatInt(j.MaxContainers, 10) + "@" + strconv.Itoa(j.MaxLevel) + "/" + strconv.Itoa(len(j.Levels)) + " " + j.Reason
	}
	want := map[string]string{
		"j_1": "10@0/4 ",
		"j_2": "13@0/1 ",
		"j_3": "0@-1/0 stage(s) 1, 2 wait for each other (a cycle) and never start: no maximum",
		"j_4": "4@0/1 waits for stage(s) 9 that the job does not have: taken as done",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if l := res.Jobs[0].Levels; !reflect.DeepEqual(l[1], Level{[]string{"2", "3"}, 10}) {
		t.Errorf("j_1 level 1 %v", l[1])
	}
}

// Google 2019 collections that start after others are grouped into
// workflows: 100 → {101, 102} → 103 is one (100 has no edges of its own
// but is a collection of the trace), 300 starts after 999, which the
// trace does not have. Without instance events the task counts are
// unknown: levels only, no maximum.
func TestStageGoogleWorkflows(t *testing.T) {
	ds := ingestFixture(t, filepath.Join(t.TempDir(), "ds"), "google2019-collection-events", "../testdata/dag/google2019_collection_events_dag.json")
	res := runOn(t, ds, DefaultOptions())
	if len(res.Jobs) != 2 {
		t.Fatalf("jobs %+v, want workflow-100 and workflow-300", res.Jobs)
	}
	w := res.Jobs[0]
	want := []Level{{[]string{"100"}, 0}, {[]string{"101", "102"}, 0}, {[]string{"103"}, 0}}
	if w.Job != "workflow-100" || w.Stages != 4 || !reflect.DeepEqual(w.Levels, want) || w.MaxLevel != -1 || !strings.Contains(w.Reason, "task counts unknown") {
		t.Errorf("workflow-100: %+v", w)
	}
	if w := res.Jobs[1]; w.Job != "workflow-300" || !reflect.DeepEqual(w.MissingParents, []string{"999"}) {
		t.Errorf("workflow-300: %+v", w)
	}
}

// With the collections' instance events ingested, workflow-100's levels
// carry tasks: {100}: 5, {101, 102}: 3 + 4, {103}: 2, so 7 at level 1.
func TestStageGoogleWorkflowsTasks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	ingestFixture(t, dir, "google2019-collection-events", "../testdata/dag/google2019_collection_events_dag.json")
	ds := ingestFixture(t, dir, "google2019-instance-events", "../testdata/dag/google2019_instance_events_dag.json")
	res := runOn(t, ds, Options{Job: "workflow-100"})
	want := []Level{{[]string{"100"}, 5}, {[]string{"101", "102"}, 7}, {[]string{"103"}, 2}}
	if len(res.Jobs) != 1 || !reflect.DeepEqual(res.Jobs[0].Levels, want) || res.Jobs[0].MaxContainers != 7 || res.Jobs[0].MaxLevel != 1 || res.Jobs[0].Reason != "" {
		t.Errorf("jobs %+v", res.Jobs)
	}
}

// TestSparkJobsInSequence: a Spark SQL application runs its Spark jobs one
// after another, and a job's stages have no parents in the jobs before
// it, so they must not share a level. The real log
// rapids_eventlog_4nodes_8cores_dynamic_alloc (testdata/jobs/SOURCES.md)
// has 20 jobs; counted by hand from its SparkListenerJobStart ("Stage
// IDs", "Submission Time"), SparkListenerJobEnd ("Completion Time"),
// StageSubmitted ("Parent IDs") and the distinct task indexes of each
// stage's TaskEnd lines (seconds from job 0's submission; a job joins
// the group before it when it was submitted before that group ended):
//
//	group  jobs    spans (s)                     stages that ran  tasks
//	 1     0, 1    0–14.93, 0.17–14.94           0, 1             6 + 6 = 12
//	 2     2       15.17–18.47                   4 (2, 3 skipped) 13
//	 3     3       18.51–18.68                   8                1
//	 4     4, 5    20.55–36.34, 20.56–22.57      9, 10            6 + 6 = 12
//	 5     6       36.37–39.99                   13               17
//	 6     7       40.02–40.16                   17               1
//	 7     8, 9    41.95–44.21, 41.96–44.21      18, 19           6 + 6 = 12
//	 8     10      44.25–45.97                   22               21
//	 9     11      45.99–46.13                   26               1
//	10     12, 13  61.37–64.25, 61.39–65.30      27, 28           24 + 24 = 48
//	11     14      65.34–67.94                   31               22
//	12     15      67.97–68.12                   35               1
//	13     16, 17  75.43–77.31, 75.45–76.80      36, 37           24 + 24 = 48
//	14     18      77.35–80.32                   40               25
//	15     19      80.34–80.52                   44               1
//
// so the maximum is 48, at the 10th level (jobs 12 and 13); every stage
// in one level, as before, gave all 235 tasks. Beside it, the task slots
// the run had: at most 7 executors at once (ExecutorAdded and
// ExecutorRemoved counted in time order), each of Total Cores 4, no
// spark.task.cpus (1): 28.
func TestSparkJobsInSequence(t *testing.T) {
	ctx := context.Background()
	_, ds, err := ingest.Into(ctx, filepath.Join(t.TempDir(), "ds"), "spark-eventlog",
		[]string{"../testdata/jobs/spark-real/rapids_eventlog_4nodes_8cores_dynamic_alloc.zstd"}, ingest.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	res := runOn(t, ds, DefaultOptions())
	if len(res.Jobs) != 1 {
		t.Fatalf("%d jobs", len(res.Jobs))
	}
	j := res.Jobs[0]
	if j.Stages != 20 || j.Tasks != 235 || j.SparkJobs != 20 || j.JobGroups != 15 || len(j.Levels) != 15 {
		t.Errorf("%d stages, %d tasks, %d Spark jobs in %d groups, %d levels; want 20, 235, 20, 15, 15", j.Stages, j.Tasks, j.SparkJobs, j.JobGroups, len(j.Levels))
	}
	if j.MaxContainers != 48 || j.MaxLevel != 9 || !reflect.DeepEqual(j.Levels[9].Stages, []string{"27", "28"}) {
		t.Errorf("max %d at level %d (%v), want 48 at level 9 (stages 27, 28)", j.MaxContainers, j.MaxLevel, j.Levels)
	}
	if j.ObservedPeak == nil || *j.ObservedPeak != 7 || j.ObservedSlots == nil || *j.ObservedSlots != 28 {
		t.Errorf("observed peak %v executors, %v task slots; want 7 and 28", j.ObservedPeak, j.ObservedSlots)
	}
}

// Alibaba batch_instance beside batch_task (both written from the trace's
// schema, testdata/dag/SOURCES.md): j_1's instance runs, in seconds from
// the trace start, are ins_1 [100, 130), ins_2 [100, 160), ins_3
// [160, 200), ins_4 [200, 230) failed and its retry [232, 260). Counted
// by hand: two at once over [100, 130), one at every other instant
// (ins_3 starts as ins_2 ends), so the observed peak is 2 of 5 instance
// runs, beside the DAG's level maximum of 10. j_2's one instance is
// Waiting (no times): no peak, and the note says one was left out. j_3's
// three rows are rejects: no instances.
func TestStageAlibabaInstances(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	ingestFixture(t, dir, "alibaba2018-batch-task", "../testdata/dag/batch_task_schema_sample.csv")
	ds := ingestFixture(t, dir, "alibaba2018-batch-instance", "../testdata/dag/batch_instance_schema_sample.csv")
	res := runOn(t, ds, DefaultOptions())
	got := map[string]Job{}
	for _, j := range res.Jobs {
		got[j.Job] = j
	}
	j1 := got["j_1"]
	if j1.ObservedPeakInstances == nil || *j1.ObservedPeakInstances != 2 || j1.ObservedInstances == nil || *j1.ObservedInstances != 5 || j1.MaxContainers != 10 {
		t.Errorf("j_1: observed peak %v of %v instance runs, level maximum %d; want 2 of 5, 10", j1.ObservedPeakInstances, j1.ObservedInstances, j1.MaxContainers)
	}
	j2 := got["j_2"]
	if j2.ObservedPeakInstances != nil || !strings.Contains(j2.Reason, "1 instance run(s) without a start or an end") {
		t.Errorf("j_2: observed peak %v, reason %q; want none and a note of the waiting instance", j2.ObservedPeakInstances, j2.Reason)
	}
	if j3 := got["j_3"]; j3.ObservedPeakInstances != nil || strings.Contains(j3.Reason, "instance") {
		t.Errorf("j_3: %+v; its instance rows are rejects", j3)
	}
}

// PeakConcurrent's spans are half-open: [0, 10) and [10, 20) are never
// running together, [5, 15) overlaps both; an empty or reversed span
// counts nothing.
func TestPeakConcurrentBoundaries(t *testing.T) {
	for _, c := range []struct {
		spans [][2]int64
		want  int64
	}{
		{nil, 0},
		{[][2]int64{{0, 10}, {10, 20}}, 1},
		{[][2]int64{{0, 10}, {10, 20}, {5, 15}}, 2},
		{[][2]int64{{0, 10}, {0, 10}, {0, 10}}, 3},
		{[][2]int64{{5, 5}, {9, 3}}, 0},
	} {
		if got := PeakConcurrent(c.spans); got != c.want {
			t.Errorf("PeakConcurrent(%v) = %d, want %d", c.spans, got, c.want)
		}
	}
}

// Seeded property: PeakConcurrent equals the most spans that hold any
// one instant, counted by brute force at every span's start (a maximum
// of a step function that rises only at starts).
func TestPeakConcurrentProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	for trial := 0; trial < 500; trial++ {
		spans := make([][2]int64, rng.IntN(12))
		for i := range spans {
			s := rng.Int64N(30)
			spans[i] = [2]int64{s, s + rng.Int64N(10) - 1}
		}
		var want int64
		for _, a := range spans {
			if a[1] <= a[0] {
				continue
			}
			var n int64
			for _, b := range spans {
				if b[0] <= a[0] && a[0] < b[1] {
					n++
				}
			}
			want = max(want, n)
		}
		if got := PeakConcurrent(spans); got != want {
			t.Fatalf("trial %d: PeakConcurrent(%v) = %d, brute force %d", trial, spans, got, want)
		}
	}
}

// ingestFixture ingests a fixture into the dataset at dir and returns the
// dataset; the fixtures hold rejects on purpose, so only an ingest that
// leaves no dataset fails t.
func ingestFixture(t *testing.T, dir, format, path string) *dataset.Dataset {
	t.Helper()
	_, ds, err := ingest.Into(context.Background(), dir, format, []string{path}, ingest.DefaultOptions())
	if ds == nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ds
}

// runOn loads the stage's input from ds with load and runs it with the
// default options.
func runOn(t *testing.T, ds *dataset.Dataset, load Options) *Result {
	t.Helper()
	in, err := Load(context.Background(), ds, load)
	var res *Result
	if err == nil {
		res, err = Run(context.Background(), in, DefaultOptions())
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}
