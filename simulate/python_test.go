package simulate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const python = "/usr/bin/python3"

// pyOutcome is scripts/simulate.py's answer.
type pyOutcome struct {
	Policy            string   `json:"policy"`
	MakespanS         float64  `json:"makespan_s"`
	MemoryUtilisation float64  `json:"memory_utilisation"`
	TaskEvents        int64    `json:"task_events"`
	Seconds           float64  `json:"seconds"`
	LeftOut           []string `json:"left_out"`
	Jobs              []struct {
		Job          string   `json:"job"`
		FinishS      *float64 `json:"finish_s"`
		Tasks        int32    `json:"tasks"`
		ElasticTasks int32    `json:"elastic_tasks"`
	} `json:"jobs"`
}

func needPython(t testing.TB) {
	if _, err := os.Stat(python); err != nil {
		t.Skipf("%s is missing (scripts/deps.sh test installs it): %v", python, err)
	}
}

// simulatePy runs the Python implementation on a trace file.
func simulatePy(t testing.TB, trace string, c Cluster, p Policy, o Options) pyOutcome {
	t.Helper()
	args := []string{"../scripts/simulate.py", trace, "--nodes", strconv.Itoa(c.Nodes), "--node-memory", strconv.FormatInt(c.NodeMemoryBytes, 10),
		"--node-cores", strconv.Itoa(c.NodeCores)}
	if len(c.Shapes) > 0 {
		var sh []string
		for _, s := range c.Shapes {
			x := fmt.Sprintf("%dx%d", s.Nodes, s.NodeMemoryBytes)
			if s.NodeCores != 0 {
				x += "/" + strconv.Itoa(s.NodeCores)
			}
			if s.DiskBytesPerS != 0 {
				x += "@" + strconv.FormatInt(s.DiskBytesPerS, 10)
			}
			sh = append(sh, x)
		}
		args = []string{"../scripts/simulate.py", trace, "--node-shapes", strings.Join(sh, ","), "--node-cores", strconv.Itoa(o.NodeCores)}
	}
	args = append(args, "--memory-unit", strconv.FormatInt(o.MemoryUnitBytes, 10),
		"--node-disk-bandwidth", strconv.FormatInt(o.NodeDiskBytesPerS, 10), "--elastic-disk-share", strconv.FormatFloat(o.ElasticDiskShare, 'g', -1, 64),
		"--policy", string(p), "--default-model", o.DefaultModel)
	if !o.ReservedGaps {
		args = append(args, "--no-reserved-gaps")
	}
	cmd := exec.Command(python, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/simulate.py: %v\n%s", err, stderr.String())
	}
	var out pyOutcome
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("scripts/simulate.py: %v: %.300s", err, b)
	}
	return out
}

// compare checks the Go outcome against Python's: makespan, every job's
// finish to 1e-9 s, its task and elastic task counts, the jobs left out,
// the utilisation to 1e-9.
func compare(jobs []Job, out *Outcome, un []Unschedulable, py pyOutcome) error {
	left := map[string]bool{}
	for _, u := range un {
		left[u.Job] = true
	}
	if len(left) != len(py.LeftOut) {
		return fmt.Errorf("left out: go %v, python %v", un, py.LeftOut)
	}
	for _, id := range py.LeftOut {
		if !left[id] {
			return fmt.Errorf("python left out %s, go did not", id)
		}
	}
	if math.Abs(out.MakespanS-py.MakespanS) > 1e-9 {
		return fmt.Errorf("makespan: go %v, python %v", out.MakespanS, py.MakespanS)
	}
	if math.Abs(out.MemoryUtilisation-py.MemoryUtilisation) > 1e-9 {
		return fmt.Errorf("memory utilisation: go %v, python %v", out.MemoryUtilisation, py.MemoryUtilisation)
	}
	if out.TaskEvents != py.TaskEvents {
		return fmt.Errorf("task events: go %d, python %d", out.TaskEvents, py.TaskEvents)
	}
	k := 0
	for ji, j := range jobs {
		if left[j.ID] {
			continue
		}
		if k >= len(py.Jobs) {
			return fmt.Errorf("python has %d jobs", len(py.Jobs))
		}
		pj := py.Jobs[k]
		k++
		if pj.Job != j.ID || pj.FinishS == nil {
			return fmt.Errorf("job %d: go %s, python %s (finish %v)", ji, j.ID, pj.Job, pj.FinishS)
		}
		if math.Abs(out.FinishS[ji]-*pj.FinishS) > 1e-9 || out.Tasks[ji] != pj.Tasks || out.ElasticTasks[ji] != pj.ElasticTasks {
			return fmt.Errorf("job %s: go finish %v, %d tasks, %d elastic; python %v, %d, %d", j.ID, out.FinishS[ji], out.Tasks[ji], out.ElasticTasks[ji],
				*pj.FinishS, pj.Tasks, pj.ElasticTasks)
		}
	}
	if k != len(py.Jobs) {
		return fmt.Errorf("python has %d jobs, go %d", len(py.Jobs), k)
	}
	return nil
}

// The Go engine and scripts/simulate.py (the same rules written again,
// straightforwardly, in Python) agree on small random traces: makespan,
// every job's finish to 1e-9 s, task and elastic task counts, jobs left
// out, memory utilisation; under both policies, with and without
// reserved gaps and disk limits, with step, curve and no models.
func TestMatchesPython(t *testing.T) {
	needPython(t)
	rng := rand.New(rand.NewPCG(18, 4))
	dir := t.TempDir()
	n := 40
	if testing.Short() {
		n = 10
	}
	var jobsCompared, elastic, gapDiffs int
	for i := 0; i < n; i++ {
		nj, c := 1+rng.IntN(10), Cluster{Nodes: 1 + rng.IntN(4), NodeMemoryBytes: int64(4+rng.IntN(12)) << 30, NodeCores: 1 + rng.IntN(12)}
		if i%4 == 3 { // a long queue on a small cluster: gap walks that give up
			nj, c = 25+rng.IntN(20), Cluster{Nodes: 1 + rng.IntN(2), NodeMemoryBytes: int64(8+rng.IntN(8)) << 30, NodeCores: 4 + rng.IntN(12)}
		}
		jobs := genJobs(rng, nj, 150, 12<<30)
		path := filepath.Join(dir, fmt.Sprintf("trace%d.csv", i))
		var buf bytes.Buffer
		if err := WriteTrace(&buf, jobs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		read, err := ReadTraceFile(path)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		o.ReservedGaps = rng.IntN(3) > 0
		o.NodeDiskBytesPerS = int64(rng.IntN(3)) * 400 << 20
		if rng.IntN(4) == 0 {
			o.MemoryUnitBytes = 1 << 20
		}
		var makespans []float64
		for _, p := range []Policy{YARN, YARNME} {
			out, un, err := Simulate(context.Background(), read, c, p, o)
			if err != nil {
				t.Fatal(err)
			}
			py := simulatePy(t, path, c, p, o)
			if err := compare(read, out, un, py); err != nil {
				t.Fatalf("trace %d (%s), %s on %+v, gaps %v, disk %d, unit %d: %v", i, path, p, c, o.ReservedGaps, o.NodeDiskBytesPerS, o.MemoryUnitBytes, err)
			}
			jobsCompared += len(py.Jobs)
			for _, e := range out.ElasticTasks {
				elastic += int(e)
			}
			makespans = append(makespans, out.MakespanS)
		}
		if makespans[0] != makespans[1] {
			gapDiffs++
		}
	}
	t.Logf("%d traces × 2 policies, %d job finishes compared; %d elastic tasks; yarn-me's makespan differs from yarn's on %d traces", n, jobsCompared, elastic, gapDiffs)
	if elastic == 0 || gapDiffs == 0 {
		t.Errorf("the traces exercise nothing elastic")
	}
}

// The bundled demo trace (testdata/simulate/demo.csv, the command's
// golden) agrees with Python on several clusters.
func TestDemoMatchesPython(t *testing.T) {
	needPython(t)
	path := "../testdata/simulate/demo.csv"
	jobs, err := ReadTraceFile(path)
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.DefaultModel = "step:1.5"
	ResolveModels(jobs, nil, StepModel{Slowdown: 1.5})
	for _, c := range []Cluster{{Nodes: 3, NodeMemoryBytes: 16 << 30, NodeCores: 16}, {Nodes: 4, NodeMemoryBytes: 16 << 30, NodeCores: 16},
		{Nodes: 6, NodeMemoryBytes: 32 << 30, NodeCores: 16}, {Nodes: 2, NodeMemoryBytes: 10 << 30, NodeCores: 8},
		{Shapes: []NodeShape{{Nodes: 2, NodeMemoryBytes: 16 << 30, NodeCores: 8}, {Nodes: 1, NodeMemoryBytes: 64 << 30, NodeCores: 32}, {Nodes: 2, NodeMemoryBytes: 8 << 30}}},
		{Shapes: []NodeShape{{Nodes: 1, NodeMemoryBytes: 4 << 30}, {Nodes: 1, NodeMemoryBytes: 32 << 30, NodeCores: 4}}}} {
		for _, p := range []Policy{YARN, YARNME} {
			out, un, err := Simulate(context.Background(), jobs, c, p, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := compare(jobs, out, un, simulatePy(t, path, c, p, o)); err != nil {
				t.Errorf("%s on %+v: %v", p, c, err)
			}
		}
	}
}

// The gap walk's cap (TestGapWalkGivesUp's trace) is Python's too.
func TestGapCapMatchesPython(t *testing.T) {
	needPython(t)
	jobs := capJobs(t)
	path := filepath.Join(t.TempDir(), "cap.csv")
	var buf bytes.Buffer
	if err := WriteTrace(&buf, jobs); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, buf.Bytes(), 0o644)
	o := DefaultOptions()
	out, un, err := Simulate(context.Background(), jobs, oneNode, YARNME, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := compare(jobs, out, un, simulatePy(t, path, oneNode, YARNME, o)); err != nil {
		t.Error(err)
	}
}

// randomShapes is a cluster of 2 or 3 node shapes: 1–3 nodes each of 2 to
// 16 GiB (some tasks of genJobs fit only the larger nodes) and 1 to 12
// cores, or no cores (--node-cores), and a third of them a disk bandwidth
// of their own (100 to 400 MiB/s).
func randomShapes(rng *rand.Rand) Cluster {
	var shapes []NodeShape
	for range 2 + rng.IntN(2) {
		s := NodeShape{Nodes: 1 + rng.IntN(3), NodeMemoryBytes: int64(2+rng.IntN(15)) << 30}
		if rng.IntN(4) > 0 {
			s.NodeCores = 1 + rng.IntN(12)
		}
		if rng.IntN(3) == 0 {
			s.DiskBytesPerS = int64(1+rng.IntN(4)) * 100 << 20
		}
		shapes = append(shapes, s)
	}
	return Cluster{Shapes: shapes}
}

// Random traces on random mixed clusters (2–3 node shapes): Go and
// Python agree as on identical nodes (makespan, every job's finish to
// 1e-9 s, task and elastic counts, jobs left out, utilisation), under
// both policies.
func TestMixedMatchesPython(t *testing.T) {
	needPython(t)
	rng := rand.New(rand.NewPCG(18, 18))
	dir := t.TempDir()
	n := 40
	if testing.Short() {
		n = 10
	}
	var runs, jobsCompared, elastic, leftOut, diffs int
	for i := 0; i < n; i++ {
		nj := 1 + rng.IntN(10)
		if i%4 == 3 {
			nj = 25 + rng.IntN(20)
		}
		c := randomShapes(rng)
		jobs := genJobs(rng, nj, 150, 12<<30)
		path := filepath.Join(dir, fmt.Sprintf("trace%d.csv", i))
		var buf bytes.Buffer
		if err := WriteTrace(&buf, jobs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		read, err := ReadTraceFile(path)
		if err != nil {
			t.Fatal(err)
		}
		o := DefaultOptions()
		o.NodeCores = 1 + rng.IntN(16)
		o.ReservedGaps = rng.IntN(3) > 0
		o.NodeDiskBytesPerS = int64(rng.IntN(3)) * 400 << 20
		if rng.IntN(4) == 0 {
			o.MemoryUnitBytes = 1 << 20
		}
		var makespans []float64
		for _, p := range []Policy{YARN, YARNME} {
			out, un, err := Simulate(context.Background(), read, c, p, o)
			if err != nil {
				t.Fatal(err)
			}
			py := simulatePy(t, path, c, p, o)
			if err := compare(read, out, un, py); err != nil {
				t.Fatalf("trace %d (%s), %s on %+v (node cores %d), gaps %v, disk %d, unit %d: %v", i, path, p, c.Shapes, o.NodeCores, o.ReservedGaps,
					o.NodeDiskBytesPerS, o.MemoryUnitBytes, err)
			}
			runs++
			jobsCompared += len(py.Jobs)
			leftOut += len(py.LeftOut)
			for _, e := range out.ElasticTasks {
				elastic += int(e)
			}
			makespans = append(makespans, out.MakespanS)
		}
		if makespans[0] != makespans[1] {
			diffs++
		}
	}
	t.Logf("%d traces on mixed clusters, %d runs agree: %d job finishes compared, %d jobs left out, %d elastic tasks; yarn-me's makespan differs from yarn's on %d traces",
		n, runs, jobsCompared, leftOut, elastic, diffs)
	if elastic == 0 || diffs == 0 || leftOut == 0 {
		t.Errorf("the mixed clusters exercise too little")
	}
}
