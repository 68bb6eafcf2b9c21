package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const demoTrace = "../../testdata/simulate/demo.csv"

// wlprof simulate on the bundled demo trace, 4 nodes of 16 GiB, without a
// dataset (every phase without a model column takes step:1.5): text, JSON
// and CSV are golden; the JSON has issue 18's contract names, yarn and
// yarn-me run every task, and only yarn-me runs some elastically.
func TestSimulateGolden(t *testing.T) {
	nods := filepath.Join(t.TempDir(), "none")
	for _, f := range []string{"text", "json", "csv"} {
		out, stderr, code := wlprof(t, "simulate", "-d", nods, "--trace", demoTrace, "--nodes", "4", "--node-memory", "16G", "--default-model", "step:1.5", "-o", f)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", f, code, stderr)
		}
		if !strings.Contains(stderr, "no dataset at") {
			t.Errorf("no note about the missing dataset: %q", stderr)
		}
		golden(t, "simulate-demo."+map[string]string{"text": "txt", "json": "json", "csv": "csv"}[f], out)
		if f != "json" {
			continue
		}
		var doc struct {
			Version int `json:"version"`
			Cluster struct {
				Nodes           *int   `json:"nodes"`
				NodeMemoryBytes *int64 `json:"node_memory_bytes"`
				NodeCores       *int   `json:"node_cores"`
			} `json:"cluster"`
			Policies []struct {
				Policy            string   `json:"policy"`
				MakespanS         *float64 `json:"makespan_s"`
				MeanJCTS          *float64 `json:"mean_jct_s"`
				MedianJCTS        *float64 `json:"median_jct_s"`
				MemoryUtilisation *float64 `json:"memory_utilisation"`
				ElasticTasks      *int     `json:"elastic_tasks"`
				Tasks             *int     `json:"tasks"`
			} `json:"policies"`
			Jobs []struct {
				Job     string   `json:"job"`
				Policy  string   `json:"policy"`
				SubmitS *float64 `json:"submit_s"`
				FinishS *float64 `json:"finish_s"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Version != 1 || doc.Cluster.Nodes == nil || *doc.Cluster.Nodes != 4 || doc.Cluster.NodeMemoryBytes == nil || *doc.Cluster.NodeMemoryBytes != 16<<30 ||
			doc.Cluster.NodeCores == nil || len(doc.Policies) != 2 || len(doc.Jobs) != 22 {
			t.Fatalf("document %.400s", out)
		}
		for _, p := range doc.Policies {
			if p.MakespanS == nil || p.MeanJCTS == nil || p.MedianJCTS == nil || p.MemoryUtilisation == nil || p.ElasticTasks == nil || p.Tasks == nil || *p.Tasks != 314 {
				t.Errorf("policy %+v", p)
			} else if (p.Policy == "yarn") != (*p.ElasticTasks == 0) {
				t.Errorf("%s: %d elastic tasks", p.Policy, *p.ElasticTasks)
			}
		}
		for _, j := range doc.Jobs {
			if j.SubmitS == nil || j.FinishS == nil || *j.FinishS <= *j.SubmitS {
				t.Errorf("job %+v", j)
			}
		}
	}
	// A sweep with a target: the smallest cluster per policy.
	out, stderr, code := wlprof(t, "simulate", "-d", nods, "-q", "--trace", demoTrace, "--nodes", "3,4,6", "--node-memory", "16G,32G", "--default-model", "step:1.5",
		"--target-makespan", "15m")
	if code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("-q: stderr %q", stderr)
	}
	golden(t, "simulate-demo-sweep.txt", out)
}

// The demo trace against the bundled profiling runs: wordcount, pagerank
// and join, the profiled jobs, take the elasticity stage's models; the
// other jobs without a model column take --default-model (none).
func TestSimulateDatasetModels(t *testing.T) {
	ds := ingestedDataset(t, "profruns-csv", "../../testdata/elasticity/profruns.csv")
	out := mustRun(t, "simulate", "-d", ds, "--trace", demoTrace, "--nodes", "4", "--node-memory", "16G", "-o", "json")
	var doc struct {
		Phases []struct {
			Job, Task, Model string
			Source           string `json:"model_source"`
			IdealMemoryBytes int64  `json:"ideal_memory_bytes"`
		} `json:"phases"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	src := map[string]string{}
	for _, p := range doc.Phases {
		src[p.Job+"/"+p.Task] = p.Source + " " + p.Model
	}
	for k, want := range map[string]string{"wordcount/map": "dataset fitted", "wordcount/reduce": "dataset fitted", "pagerank/reduce": "dataset fitted",
		"join/reduce": "dataset fitted", "pagerank/map": "trace step:1.2", "wordcount-2/reduce": "default none", "etl-1/load": "trace curve:0.2=2;0.5=1.4"} {
		if src[k] != want {
			t.Errorf("%s: %q, want %q", k, src[k], want)
		}
	}
	if len(doc.Warnings) != 0 {
		t.Errorf("warnings %q", doc.Warnings)
	}
}

func TestSimulateErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("job,submit_s,task,tasks,runtime_s,memory_bytes,model\na,0,m,1,0,1G,\nb,0,m,1,5,1G,linear:2\n"), 0o644)
	nods := filepath.Join(dir, "none")
	for _, c := range []struct {
		argv []string
		code int
		msg  []string
	}{
		{[]string{"simulate", "-d", nods}, 1, []string{"no dataset at", "--trace FILE"}},
		{[]string{"simulate", "-d", nods, "--trace", bad}, 1, []string{"bad.csv:2: runtime_s \"0\"", `bad.csv:3: model "linear:2": unknown model "linear"`}},
		// A value its flag cannot read is refused by the flag; values out
		// of range are refused together, by Validate.
		{[]string{"simulate", "-d", nods, "--trace", demoTrace, "--default-model", "fast"}, 2, []string{`"--default-model" flag: model "fast"`}},
		{[]string{"simulate", "-d", nods, "--trace", demoTrace, "--nodes", "0,x"}, 2, []string{`"--nodes" flag: "x": want whole numbers`}},
		{[]string{"simulate", "-d", nods, "--trace", demoTrace, "--nodes", "0,4", "--policy", "fifo", "--elastic-disk-share", "2"},
			2, []string{"nodes 0: want 1 to 1000000", `policy "fifo"`, "elastic-disk-share 2"}},
		{[]string{"simulate", "-d", nods, "--trace", filepath.Join(dir, "missing.csv")}, 1, []string{"missing.csv"}},
	} {
		checkExit(t, c.argv, c.code, c.msg...)
	}
}

// wlprof report --simulate-trace adds the simulate section: both
// policies, their figures, the stage computed in index.json.
func TestReportSimulateSection(t *testing.T) {
	ds := ingestedDataset(t, "profruns-csv", "../../testdata/elasticity/profruns.csv")
	out, _, idx := sectionReport(t, ds, "-q", "--simulate-trace", demoTrace, "--simulate-nodes", "4",
		"--simulate-node-memory", "16G", "--simulate-default-model", "step:1.5")
	if s := idx.stage("simulate"); !s.Computed || s.Jobs != 11 {
		t.Errorf("simulate stage not computed for 11 jobs: %+v", idx.Stages)
	}
	html, _ := os.ReadFile(filepath.Join(out, "index.html"))
	for _, w := range []string{`<section id="simulate">`, `<td class="t">YARN-ME</td>`, "4 nodes of 16 GiB and 16 cores"} {
		if !strings.Contains(string(html), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	if _, stderr, code := wlprof(t, "report", "-d", ds, "--out", out, "--simulate-trace", demoTrace, "--simulate-node-memory", "lots"); code != 2 || !strings.Contains(stderr, "--simulate-node-memory") {
		t.Errorf("bad --simulate-node-memory: exit %d, %q", code, stderr)
	}
	// --simulate-node-shapes: the section's cluster is the shapes.
	if _, stderr, code := wlprof(t, "report", "-d", ds, "--out", out, "-q", "--simulate-trace", demoTrace, "--simulate-node-shapes", "2x16G/8,1x64G/32@1G",
		"--simulate-default-model", "step:1.5"); code != 0 {
		t.Fatalf("--simulate-node-shapes: exit %d: %s", code, stderr)
	}
	html, _ = os.ReadFile(filepath.Join(out, "index.html"))
	if !strings.Contains(string(html), "3 nodes: 2 of 16 GiB and 8 cores, 1 of 64 GiB and 32 cores with 1 GiB/s of disk") {
		t.Errorf("index.html does not describe the shapes")
	}
	if _, stderr, code := wlprof(t, "report", "-d", ds, "--out", out, "--simulate-trace", demoTrace, "--simulate-node-shapes", "2y16G"); code != 2 || !strings.Contains(stderr, "--simulate-node-shapes") {
		t.Errorf("bad --simulate-node-shapes: exit %d, %q", code, stderr)
	}
	// The flags are wlprof simulate's: shapes and a node count given
	// together are its conflict, not shapes silently winning.
	if _, stderr, code := wlprof(t, "report", "-d", ds, "--out", out, "--simulate-trace", demoTrace, "--simulate-node-shapes", "2x16G", "--simulate-nodes", "4"); code != 2 || !strings.Contains(stderr, "nodes and node-shapes both given") {
		t.Errorf("--simulate-node-shapes with --simulate-nodes: exit %d, %q", code, stderr)
	}
}

// Every flag of report and run named after a stage (--simulate-nodes,
// --placement-seeds, ...) is that stage's own flag (same type, default and
// help, the report's note after it), declared once by the stage's
// AddFlags; only the sections' switches are the report's own.
func TestReportStageFlagsAreTheStages(t *testing.T) {
	g := &globalOptions{}
	stages := map[string]*cobra.Command{"simulate-": newSimulateCmd(g), "constraints-": newConstraintsCmd(g),
		"estimate-": newEstimateCmd(g), "harvest-": newHarvestCmd(g), "placement-": newPlacementCmd(g)}
	own := map[string]bool{"simulate-history": true}
	for _, cmd := range []*cobra.Command{newReportCmd(g), newRunCmd(g)} {
		n := 0
		cmd.Flags().VisitAll(func(got *pflag.Flag) {
			for prefix, st := range stages {
				name, ok := strings.CutPrefix(got.Name, prefix)
				if !ok || own[got.Name] {
					continue
				}
				n++
				f := st.Flags().Lookup(name)
				if f == nil {
					t.Errorf("%s --%s: wlprof %s has no --%s", cmd.Name(), got.Name, st.Name(), name)
					continue
				}
				if got.DefValue != f.DefValue || got.Value.Type() != f.Value.Type() || !strings.HasPrefix(got.Usage, f.Usage) {
					t.Errorf("%s --%s: %s %q %q; wlprof %s --%s: %s %q %q", cmd.Name(), got.Name, got.Value.Type(), got.DefValue, got.Usage,
						st.Name(), name, f.Value.Type(), f.DefValue, f.Usage)
				}
			}
		})
		if n < 16 {
			t.Errorf("%s: %d stage flags, want the 16 of simulate, constraints, estimate, harvest and placement", cmd.Name(), n)
		}
	}
}

// wlprof simulate --node-shapes: a mixed cluster of the demo trace (text
// and JSON golden; the JSON's cluster has the total of nodes, 0 for the
// memory and cores that differ, and the shapes); a uniform cluster given
// as one shape is the --nodes/--node-memory cluster, the same text and
// the same JSON but for the shapes listed.
func TestSimulateNodeShapes(t *testing.T) {
	nods := filepath.Join(t.TempDir(), "none")
	for _, f := range []string{"text", "json"} {
		out, stderr, code := wlprof(t, "simulate", "-d", nods, "-q", "--trace", demoTrace, "--node-shapes", "2x16G/8,1x64G/32,2x8G", "--default-model", "step:1.5", "-o", f)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", f, code, stderr)
		}
		golden(t, "simulate-demo-shapes."+map[string]string{"text": "txt", "json": "json"}[f], out)
		if f != "json" {
			continue
		}
		var doc struct {
			Cluster struct {
				Nodes           int   `json:"nodes"`
				NodeMemoryBytes int64 `json:"node_memory_bytes"`
				NodeCores       int   `json:"node_cores"`
				Shapes          []struct {
					Nodes           int   `json:"nodes"`
					NodeMemoryBytes int64 `json:"node_memory_bytes"`
					NodeCores       int   `json:"node_cores"`
				} `json:"shapes"`
			} `json:"cluster"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		c := doc.Cluster
		if c.Nodes != 5 || c.NodeMemoryBytes != 0 || c.NodeCores != 0 || len(c.Shapes) != 3 || c.Shapes[1].NodeMemoryBytes != 64<<30 || c.Shapes[2].NodeCores != 16 {
			t.Errorf("cluster %+v", c)
		}
	}
	docs := map[string]map[string]any{}
	texts := map[string]string{}
	for name, argv := range map[string][]string{"nodes": {"--nodes", "4", "--node-memory", "16G"}, "shapes": {"--node-shapes", "4x16G"}} {
		for _, f := range []string{"text", "json"} {
			out := mustRun(t, append([]string{"simulate", "-d", nods, "-q", "--trace", demoTrace, "--default-model", "step:1.5", "-o", f}, argv...)...)
			if f == "text" {
				texts[name] = out
				continue
			}
			var doc map[string]any
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			docs[name] = doc
		}
	}
	shapes := docs["shapes"]["cluster"].(map[string]any)
	if want := []any{map[string]any{"nodes": 4.0, "node_memory_bytes": float64(16 << 30), "node_cores": 16.0}}; !reflect.DeepEqual(shapes["shapes"], want) {
		t.Errorf("shapes %v, want %v", shapes["shapes"], want)
	}
	delete(shapes, "shapes")
	if !reflect.DeepEqual(docs["nodes"], docs["shapes"]) {
		t.Errorf("--node-shapes 4x16G differs from --nodes 4 --node-memory 16G beyond its shapes")
	}
	if texts["nodes"] != texts["shapes"] {
		t.Errorf("text differs:\n%s\n%s", texts["nodes"], texts["shapes"])
	}
}

// Bad shapes, and shapes with the flags they replace, are usage errors,
// every one reported at once and saying what to use.
// --node-shapes given twice sweeps the two clusters, and
// --target-makespan picks among them.
func TestSimulateSweepShapes(t *testing.T) {
	out, stderr, code := wlprof(t, "simulate", "-d", filepath.Join(t.TempDir(), "none"), "-q", "--trace", demoTrace, "--default-model", "step:1.5",
		"--node-shapes", "2x16G/8,1x64G/32", "--node-shapes", "4x16G;8x16G@1G", "--target-makespan", "1h")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"SHAPES", "2x16G/8,1x64G/32", "4x16G/16", "8x16G/16@1G", "target makespan 1h: yarn needs", "target makespan 1h: yarn-me needs"} {
		if !strings.Contains(out, w) {
			t.Errorf("%q not in\n%s", w, out)
		}
	}
}

func TestSimulateNodeShapesErrors(t *testing.T) {
	nods := filepath.Join(t.TempDir(), "none")
	for _, c := range []struct {
		argv []string
		msg  []string
	}{
		// Shapes the flag cannot read: every one, refused by the flag.
		{[]string{"--node-shapes", "0x16G,abc,2x8G/x", "--nodes", "5"},
			[]string{`"--node-shapes" flag: "abc": no x`, `"2x8G/x": cores "x"`}},
		// Shapes out of range and the conflict: every one, by Validate.
		{[]string{"--node-shapes", "0x16G,4x10M", "--nodes", "5", "--target-makespan", "1h"},
			[]string{"node-shapes 0x16G: 0 nodes", "node-shapes 4x10M: memory 10M: want at least one memory unit", "nodes and node-shapes both given: use --node-shapes alone"}},
		{[]string{"--node-shapes", "4x16G", "--node-memory", "32G"}, []string{"node-memory and node-shapes both given: use --node-shapes alone"}},
		{[]string{"--node-shapes", "nothing"}, []string{`"--node-shapes" flag: "nothing": no x between the node count and the memory; want COUNTxMEMORY[/CORES]`}},
	} {
		_, stderr, code := wlprof(t, append([]string{"simulate", "-d", nods, "--trace", demoTrace}, c.argv...)...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", c.argv, code, stderr)
		}
		for _, m := range c.msg {
			if !strings.Contains(stderr, m) {
				t.Errorf("%v: %q not in %q", c.argv, m, stderr)
			}
		}
	}
}

// Without --trace the workload is the dataset's job history: the real
// jhist file (one QuasiMonteCarlo run: 1 map, 1 reduce) and two Spark
// logs (PythonPi: one stage of 10 tasks; the sparklens application: 8
// tasks in its stages), each run submitted when it started.
func TestSimulateFromHistory(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	mustRun(t, "ingest", "-d", ds, "jhist", "../../testdata/elasticity/hadoop")
	mustRun(t, "ingest", "-d", ds, "spark-eventlog", "../../testdata/jobs/spark")
	out, stderr, code := wlprof(t, "simulate", "-d", ds, "--nodes", "2", "--node-memory", "8G", "-o", "json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	var doc struct {
		Workload struct {
			Source  string `json:"source"`
			History struct {
				Runs, Jobs, Attempts int
			} `json:"history"`
		} `json:"workload"`
		Phases []struct {
			Job   string `json:"job"`
			Task  string `json:"task"`
			Tasks int    `json:"tasks"`
			After string `json:"after"`
		} `json:"phases"`
		Jobs []struct {
			Job     string  `json:"job"`
			SubmitS float64 `json:"submit_s"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	w := doc.Workload
	if w.Source != "dataset" || w.History.Runs != 3 || w.History.Jobs != 3 || w.History.Attempts != 1+1+10+8 {
		t.Errorf("workload %+v", w)
	}
	got := map[string]string{}
	for _, p := range doc.Phases {
		got[p.Job+" "+p.Task] = fmt.Sprintf("%d after %q", p.Tasks, p.After)
	}
	for k, want := range map[string]string{
		"QuasiMonteCarlo/job_1526555215992_0001 map":                          `1 after ""`,
		"QuasiMonteCarlo/job_1526555215992_0001 reduce":                       `1 after "map"`,
		"PythonPi/application_1457600942802_0093 stage 0: reduce at pi.py:39": `10 after ""`,
	} {
		if got[k] != want {
			t.Errorf("%s: %s, want %s (phases %v)", k, got[k], want, got)
		}
	}
	// The Spark 1.5 log is from 2016, the jhist from 2018, sparklens from
	// 2018: the PythonPi run is submitted first.
	if len(doc.Jobs) == 0 || doc.Jobs[0].Job != "PythonPi/application_1457600942802_0093" || doc.Jobs[0].SubmitS != 0 {
		t.Errorf("first job %+v, want PythonPi at 0 s", doc.Jobs)
	}
	// The report's section replays the same history.
	rep := filepath.Join(t.TempDir(), "report")
	mustRun(t, "report", "-d", ds, "--out", rep, "-q", "--simulate-history", "--simulate-nodes", "2", "--simulate-node-memory", "8G")
	html, _ := os.ReadFile(filepath.Join(rep, "index.html"))
	if !strings.Contains(string(html), "job history (3 runs of 3 jobs, replayed from 20 task attempts) on 2 nodes of 8 GiB") {
		t.Errorf("index.html does not name the history it simulated")
	}
	if _, stderr, code := wlprof(t, "report", "-d", ds, "--out", rep, "--simulate-history", "--simulate-trace", demoTrace); code != 2 || !strings.Contains(stderr, "both given") {
		t.Errorf("--simulate-history with --simulate-trace: exit %d: %s", code, stderr)
	}
	text, _, code := wlprof(t, "simulate", "-d", ds, "--nodes", "2", "--node-memory", "8G")
	if code != 0 || !strings.Contains(text, "workload: 3 runs of 3 recurring jobs, replayed from the dataset's 20 task attempts (0 s is 2016-03-16 ") {
		t.Errorf("text output (exit %d):\n%s", code, text)
	}
}

// A real 20-job Spark application (rapids_eventlog_4nodes_8cores_dynamic_alloc,
// testdata/jobs/SOURCES.md) replayed on a cluster of its shape: at most 7
// executors of 4 cores in 28 GiB containers (20g + 8g overhead). Its tasks
// take 5 GiB each (20g / 4 slots), its jobs run in order with the driver's
// logged gaps between them; the observed JCT is its last task end − first
// task launch, 69.965 s (simulate's TestReplayRealRuns holds the bar).
func TestSimulateSparkHistoryGolden(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	mustRun(t, "ingest", "-d", ds, "spark-eventlog", "../../testdata/jobs/spark-real/rapids_eventlog_4nodes_8cores_dynamic_alloc.zstd")
	out := mustRun(t, "simulate", "-d", ds, "--nodes", "7", "--node-cores", "4", "--node-memory", "28G")
	golden(t, "simulate-spark-history.txt", out)
}

// Alibaba 2018 jobs replay from their instances and tasks (the rows
// written from the trace's schema in testdata/dag): j_1 on one 96-core
// node of the 100 GiB given as the machine's memory runs its chain
// M1 → M2_1 → R4_2 → M5_3_4 in 45 + 40 + 28 + 40 = 153 s, beside the
// 200 s it took in the trace (simulate's TestFromHistoryAlibaba counts
// these by hand); j_2 never terminated and is skipped with the reason.
// Without --alibaba-machine-memory nothing can be sized, and the error
// names the flag.
func TestSimulateAlibabaHistory(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	wlprof(t, "ingest", "-d", ds, "alibaba2018-batch-task", "../../testdata/dag/batch_task_schema_sample.csv")
	wlprof(t, "ingest", "-d", ds, "alibaba2018-batch-instance", "../../testdata/dag/batch_instance_schema_sample.csv")
	_, stderr, code := wlprof(t, "simulate", "-d", ds, "--nodes", "1", "--node-cores", "96", "--node-memory", "100G")
	if code == 0 || !strings.Contains(stderr, "give --alibaba-machine-memory SIZE") {
		t.Errorf("without the machine memory: exit %d, %s; want an error naming --alibaba-machine-memory", code, stderr)
	}
	if _, stderr, code := wlprof(t, "simulate", "-d", ds, "--alibaba-machine-memory", "lots"); code != 2 || !strings.Contains(stderr, "--alibaba-machine-memory") {
		t.Errorf("a bad size: exit %d, %s; want a usage error", code, stderr)
	}
	out := mustRun(t, "simulate", "-d", ds, "--nodes", "1", "--node-cores", "96", "--node-memory", "100G", "--alibaba-machine-memory", "100G")
	golden(t, "simulate-alibaba-history.txt", out)
}

// The report's simulate section replays Alibaba jobs too when given the
// machine memory, as wlprof simulate does.
func TestReportSimulateAlibabaHistory(t *testing.T) {
	ds := filepath.Join(t.TempDir(), "ds")
	wlprof(t, "ingest", "-d", ds, "alibaba2018-batch-task", "../../testdata/dag/batch_task_schema_sample.csv")
	wlprof(t, "ingest", "-d", ds, "alibaba2018-batch-instance", "../../testdata/dag/batch_instance_schema_sample.csv")
	out, stdout, idx := sectionReport(t, ds, "--simulate-history", "--simulate-nodes", "1",
		"--simulate-node-memory", "100G", "--simulate-alibaba-machine-memory", "100G")
	if !idx.stage("simulate").Computed {
		t.Errorf("simulate section not computed from the Alibaba instances: %s", stdout)
	}
	if _, stderr, code := wlprof(t, "report", "-d", ds, "--out", out, "--simulate-history", "--simulate-alibaba-machine-memory", "lots"); code != 2 || !strings.Contains(stderr, "--simulate-alibaba-machine-memory") {
		t.Errorf("a bad size: exit %d, %s", code, stderr)
	}
}
