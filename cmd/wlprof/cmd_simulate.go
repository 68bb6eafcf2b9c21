package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/simulate"
)

type simulateOptions struct {
	g            *globalOptions
	Trace        string
	Policies     string
	Nodes        string
	NodeMemory   string
	NodeCores    int
	MemoryUnit   string
	DiskBW       string
	DiskShare    float64
	DefaultModel string
	ReservedGaps bool
	Target       time.Duration
}

func newSimulateCmd(g *globalOptions) *cobra.Command {
	o := &simulateOptions{g: g}
	def := simulate.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate a workload on a cluster under YARN and YARN-ME (elastic memory)",
		Long: `What memory elasticity buys on a cluster (seed 004 §3, §4): a discrete-event
simulation of the jobs of --trace on --nodes nodes of --node-memory and
--node-cores, under stock YARN (fair ordering of jobs, nodes reserved for
the head job) and under YARN-ME, which starts a task with less than its
ideal memory when it would still end no later than its job's estimated
completion: the least memory that gives the lowest runtime among what the
node has, never below 10% of ideal, within the node's disk bandwidth
share for elastic tasks; other jobs may use a reserved node when they end
before the reserved job could start there.

The trace (simjobs-csv) has one row per phase:
  job,submit_s,task,tasks,runtime_s,memory_bytes[,cores][,after][,model]
runtime_s is a task's duration at memory_bytes, its ideal memory; after
names the phase the row waits for (reduces after maps); model is none,
step:SLOWDOWN or curve:FRACTION=SLOWDOWN;... (from that fraction of ideal
memory on), each with an optional @DISK bytes per second. A phase without
one uses the elasticity model of its job and task in the dataset (wlprof
elasticity; its ideal memory wins over the trace's), else --default-model.

Memory is allocated in --memory-unit steps. A job with a task larger than
a node is left out and listed. Several --nodes or --node-memory values
sweep the clusters; --target-makespan then names, per policy, the
smallest cluster that runs the trace within it. The rules are in
simulate/doc.go; scripts/simulate.py implements them again.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof simulate --trace testdata/simulate/demo.csv --nodes 4 --node-memory 10G
  wlprof simulate -d ds --trace jobs.csv --nodes 100 --default-model step:1.5 -o json
  wlprof simulate --trace jobs.csv --nodes 50,100 --node-memory 32G,64G,128G --target-makespan 2h`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runSimulate(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Trace, "trace", "", "the workload: a simjobs-csv file (required)")
	f.StringVar(&o.Policies, "policy", "yarn,yarn-me", "policies to simulate: yarn, yarn-me or both")
	f.StringVar(&o.Nodes, "nodes", "100", "nodes in the cluster (a list sweeps)")
	f.StringVar(&o.NodeMemory, "node-memory", "10G", "memory of a node (a list sweeps; K, M, G, T: binary units)")
	f.IntVar(&o.NodeCores, "node-cores", def.NodeCores, "cores of a node; a task takes its phase's cores (1 unless the trace says)")
	f.StringVar(&o.MemoryUnit, "memory-unit", bytesize.Format(def.MemoryUnitBytes), "memory is allocated in whole units of this size")
	f.StringVar(&o.DiskBW, "node-disk-bandwidth", bytesize.Format(def.NodeDiskBytesPerS), "a node's disk bandwidth per second (0: elastic tasks' disk is not limited)")
	f.Float64Var(&o.DiskShare, "elastic-disk-share", def.ElasticDiskShare, "share of a node's disk bandwidth elastic tasks may take together")
	f.StringVar(&o.DefaultModel, "default-model", def.DefaultModel, "model of tasks with none in the trace or dataset: none or step:SLOWDOWN")
	f.BoolVar(&o.ReservedGaps, "reserved-gaps", def.ReservedGaps, "yarn-me: run other jobs' tasks on a reserved node when they end before the reserved job could start there")
	f.Var(timeflag.NewDuration(&o.Target, 0), "target-makespan", "name, per policy, the smallest swept cluster that runs the trace within this")
	return cmd
}

func runSimulate(ctx context.Context, o *simulateOptions) error {
	g := o.g
	opts := simulate.DefaultOptions()
	opts.Trace, opts.NodeCores, opts.ElasticDiskShare, opts.DefaultModel, opts.ReservedGaps, opts.TargetMakespan =
		o.Trace, o.NodeCores, o.DiskShare, o.DefaultModel, o.ReservedGaps, o.Target
	var errs []error
	opts.Policies = nil
	for _, p := range splitList(o.Policies) {
		opts.Policies = append(opts.Policies, simulate.Policy(p))
	}
	opts.Nodes = nil
	for _, s := range splitList(o.Nodes) {
		n, err := strconv.Atoi(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("--nodes %q: want whole numbers, e.g. 50,100", s))
			continue
		}
		opts.Nodes = append(opts.Nodes, n)
	}
	opts.NodeMemoryBytes = nil
	for _, s := range splitList(o.NodeMemory) {
		m, err := bytesize.Parse(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("--node-memory: %w", err))
			continue
		}
		opts.NodeMemoryBytes = append(opts.NodeMemoryBytes, m)
	}
	var err error
	if opts.MemoryUnitBytes, err = bytesize.Parse(o.MemoryUnit); err != nil {
		errs = append(errs, fmt.Errorf("--memory-unit: %w", err))
	}
	if strings.TrimSpace(o.DiskBW) == "0" {
		opts.NodeDiskBytesPerS = 0
	} else if opts.NodeDiskBytesPerS, err = bytesize.Parse(o.DiskBW); err != nil {
		errs = append(errs, fmt.Errorf("--node-disk-bandwidth: %w", err))
	}
	if o.Trace == "" {
		errs = append(errs, errors.New("--trace FILE is required: the workload, in simjobs-csv (workloads from the dataset's job runs are not built yet)"))
	}
	if len(errs) == 0 || (len(opts.Nodes) > 0 && len(opts.NodeMemoryBytes) > 0 && opts.MemoryUnitBytes > 0) {
		if err := opts.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return usageError{errors.Join(errs...)}
	}
	ds, err := dataset.Open(g.Dataset)
	if errors.Is(err, dataset.ErrNoDataset) {
		g.progressf("note: no dataset at %s: no elasticity models; tasks use their trace's model or --default-model %s\n", g.Dataset, o.DefaultModel)
		ds, err = nil, nil
	}
	if err != nil {
		return err
	}
	in, err := simulate.Load(ctx, ds, opts)
	if err != nil {
		return err
	}
	res, err := simulate.Run(ctx, in, opts)
	if err != nil {
		return err
	}
	switch g.Output {
	case "json":
		return writeJSON(g.io.Out, res)
	case "csv":
		return simulateCSV(g.io.Out, res)
	}
	return simulateText(g.io.Out, res)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// maxTextJobs is how many jobs the text output lists at most.
const maxTextJobs = 30

func simulateText(out io.Writer, r *simulate.Result) error {
	c := r.Cluster
	jobs, tasks := 0, int64(0)
	if len(r.Policies) > 0 {
		jobs, tasks = r.Policies[0].Jobs, r.Policies[0].Tasks
	}
	disk := "elastic tasks' disk not limited"
	if c.NodeDiskBytesPerS > 0 {
		disk = fmt.Sprintf("elastic tasks may take %s/s of a node's %s/s of disk", bytesize.Human(c.ElasticDiskShare*float64(c.NodeDiskBytesPerS)),
			bytesize.Human(float64(c.NodeDiskBytesPerS)))
	}
	fmt.Fprintf(out, "%d %s, %d tasks, on %d %s of %s and %d cores (memory in %s units; %s)\n\n", jobs, plural(jobs, "job", "jobs"), tasks,
		c.Nodes, plural(c.Nodes, "node", "nodes"), bytesize.Human(float64(c.NodeMemoryBytes)), c.NodeCores, bytesize.Format(c.MemoryUnitBytes), disk)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "POLICY\tMAKESPAN\tMEAN_JCT\tMEDIAN_JCT\tP95_JCT\tMEMORY_UTILISATION\tTASKS\tELASTIC_TASKS")
	for _, p := range r.Policies {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", p.Policy, timeflag.FormatSeconds(p.MakespanS), timeflag.FormatSeconds(p.MeanJCTS),
			timeflag.FormatSeconds(p.MedianJCTS), timeflag.FormatSeconds(p.P95JCTS), pctText(p.MemoryUtilisation), p.Tasks, p.ElasticTasks)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(r.Policies) == 2 && r.Policies[0].MakespanS > 0 && r.Policies[0].MeanJCTS > 0 {
		a, b := r.Policies[0], r.Policies[1]
		fmt.Fprintf(out, "%s against %s: makespan %s, mean JCT %s\n", b.Policy, a.Policy, changeText(b.MakespanS/a.MakespanS), changeText(b.MeanJCTS/a.MeanJCTS))
	}
	if len(r.Jobs) > 0 && len(r.Policies) > 0 {
		fmt.Fprintln(out)
		w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		head := []string{"JOB", "SUBMIT"}
		for _, p := range r.Policies {
			head = append(head, strings.ToUpper(strings.ReplaceAll(string(p.Policy), "-", "_"))+"_JCT")
		}
		fmt.Fprintln(w, strings.Join(append(head, "ELASTIC_TASKS"), "\t"))
		type row struct {
			submit  float64
			jct     []string
			elastic int32
		}
		rows := map[string]*row{}
		var order []string
		for _, j := range r.Jobs {
			rw := rows[j.Job]
			if rw == nil {
				rw = &row{submit: j.SubmitS}
				rows[j.Job] = rw
				order = append(order, j.Job)
			}
			rw.jct = append(rw.jct, timeflag.FormatSeconds(j.JCTS))
			rw.elastic += j.ElasticTasks
		}
		for i, id := range order {
			if i == maxTextJobs {
				break
			}
			rw := rows[id]
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\n", id, timeflag.FormatSeconds(rw.submit), strings.Join(rw.jct, "\t"), rw.elastic)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if len(order) > maxTextJobs {
			fmt.Fprintf(out, "(%d of %d jobs shown; -o json or -o csv for all)\n", maxTextJobs, len(order))
		}
	}
	if len(r.Sweep) > 0 {
		fmt.Fprintln(out, "\nclusters:")
		w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "  NODES\tNODE_MEMORY\tPOLICY\tMAKESPAN\tMEAN_JCT\tMEMORY_UTILISATION\tELASTIC_TASKS\tJOBS_LEFT_OUT")
		for _, s := range r.Sweep {
			fmt.Fprintf(w, "  %d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", s.Nodes, bytesize.Human(float64(s.NodeMemoryBytes)), s.Policy, timeflag.FormatSeconds(s.MakespanS),
				timeflag.FormatSeconds(s.MeanJCTS), pctText(s.MemoryUtilisation), s.ElasticTasks, s.JobsLeftOut)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	for _, t := range r.Targets {
		if t.Nodes == nil {
			fmt.Fprintf(out, "target makespan %s: no swept cluster meets it under %s\n", timeflag.FormatSeconds(t.TargetMakespanS), t.Policy)
			continue
		}
		fmt.Fprintf(out, "target makespan %s: %s needs %d × %s (%s of memory; makespan %s)\n", timeflag.FormatSeconds(t.TargetMakespanS), t.Policy, *t.Nodes,
			bytesize.Human(float64(*t.NodeMemoryBytes)), bytesize.Human(float64(*t.Nodes)*float64(*t.NodeMemoryBytes)), timeflag.FormatSeconds(*t.MakespanS))
	}
	if len(r.Unschedulable) > 0 {
		fmt.Fprintln(out, "\nnot simulated:")
		for _, u := range r.Unschedulable {
			fmt.Fprintf(out, "  %s (task %s): %s\n", u.Job, u.Task, u.Reason)
		}
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(out, "warning: %s\n", s)
	}
	return nil
}

// changeText writes a ratio as a signed percentage change.
func changeText(ratio float64) string {
	return strconv.FormatFloat(100*(ratio-1), 'f', 1, 64) + "%"
}

// simulateCSV writes one row per job and policy of the first cluster.
func simulateCSV(out io.Writer, r *simulate.Result) error {
	w := csv.NewWriter(out)
	_ = w.Write([]string{"nodes", "node_memory_bytes", "node_cores", "policy", "job", "submit_s", "finish_s", "jct_s", "tasks", "elastic_tasks"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, j := range r.Jobs {
		_ = w.Write([]string{strconv.Itoa(r.Cluster.Nodes), strconv.FormatInt(r.Cluster.NodeMemoryBytes, 10), strconv.Itoa(r.Cluster.NodeCores),
			string(j.Policy), j.Job, f(j.SubmitS), f(j.FinishS), f(j.JCTS), strconv.Itoa(int(j.Tasks)), strconv.Itoa(int(j.ElasticTasks))})
	}
	w.Flush()
	return w.Error()
}
