package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	NodeShapes   []string
	NodeCores    int
	MemoryUnit   string
	DiskBW       string
	DiskShare    float64
	DefaultModel string
	ReservedGaps bool
	Target       time.Duration
	AlibabaMem   string
}

func newSimulateCmd(g *globalOptions) *cobra.Command {
	o := &simulateOptions{g: g}
	def := simulate.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate a workload on a cluster under YARN and YARN-ME (elastic memory)",
		Long: `What memory elasticity buys on a cluster (Iorgulescu et al., ATC'17 §3, §4): a discrete-event
simulation of a workload on --nodes nodes of --node-memory and
--node-cores, under stock YARN (fair ordering of jobs, nodes reserved for
the head job) and under YARN-ME, which starts a task with less than its
ideal memory when it would still end no later than its job's estimated
completion: the least memory that gives the lowest runtime among what the
node has, never below 10% of ideal, within the node's disk bandwidth
share for elastic tasks; other jobs may use a reserved node when they end
before the reserved job could start there.

The workload is the dataset's job history unless --trace is given: every
run whose task attempts the dataset holds (MapReduce .jhist files, Spark
event logs) is submitted when it started, each phase (map, reduce, Spark
stage) with its successful tasks, their mean runtime and the container
memory they were given, taken as ideal; reduces wait for maps, a Spark
stage for its parent stage (of several, the one that finished last).
Alibaba 2018 jobs are replayed from their instances (batch_instance) and
tasks (batch_task): a phase per task after the task it names that ended
last, its Terminated instance runs at their mean duration (a task without
instance rows: instance_num tasks of its batch_task duration), plan_cpu
/ 100 cores (rounded up) and plan_mem percent of
--alibaba-machine-memory, which the trace does not publish (its machines
have 96 cores): without it those jobs are left out, and said so. A job
that cannot be replayed is skipped with the reason. The observed JCT
beside each is its last instance end − its first instance start (widened
to the batch_task span of a task without instance rows).
The first output line says how many runs and attempts were replayed.

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
smallest cluster that runs the trace within it.

--node-shapes gives instead a cluster of nodes that differ:
COUNTxMEMORY[/CORES][@DISK] comma-separated, e.g. 40x16G/16,10x64G/32@1G
(no cores: --node-cores; no disk bandwidth per second:
--node-disk-bandwidth). Given several times (or with ; between clusters)
it sweeps those clusters, and --target-makespan picks the one of least
memory that meets it. It goes without --nodes and --node-memory. A node
passes over the jobs whose task it could
never fit (YARN-ME may still run one there with less memory); a job
whose task fits no node is left out. Nodes are numbered in the order of
the shapes, which breaks ties. The rules are in simulate/doc.go.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof simulate -d ds --nodes 4 --node-memory 16G
  wlprof simulate -d alibaba --nodes 100 --node-cores 96 --node-memory 512G --alibaba-machine-memory 512G
  wlprof simulate --trace testdata/simulate/demo.csv --nodes 4 --node-memory 10G
  wlprof simulate -d ds --trace jobs.csv --nodes 100 --default-model step:1.5 -o json
  wlprof simulate --trace jobs.csv --nodes 50,100 --node-memory 32G,64G,128G --target-makespan 2h
  wlprof simulate --trace jobs.csv --node-shapes 40x16G/16,10x64G/32
  wlprof simulate --trace jobs.csv --node-shapes 40x16G,10x64G --node-shapes 30x32G@1G --target-makespan 2h`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error { return runSimulate(cmd.Context(), cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.Trace, "trace", "", "the workload: a simjobs-csv file (default: the dataset's task attempts)")
	f.StringVar(&o.Policies, "policy", "yarn,yarn-me", "policies to simulate: yarn, yarn-me or both")
	f.StringVar(&o.Nodes, "nodes", "100", "nodes in the cluster (a list sweeps)")
	f.StringVar(&o.NodeMemory, "node-memory", "10G", "memory of a node (a list sweeps; K, M, G, T: binary units)")
	f.StringArrayVar(&o.NodeShapes, "node-shapes", nil, "a cluster of several node shapes instead of --nodes and --node-memory: COUNTxMEMORY[/CORES][@DISK],... e.g. 40x16G/16,10x64G/32@1G (given again, or ; between clusters: a sweep)")
	f.IntVar(&o.NodeCores, "node-cores", def.NodeCores, "cores of a node (of a shape without /CORES); a task takes its phase's cores (1 unless the trace says)")
	f.StringVar(&o.MemoryUnit, "memory-unit", bytesize.Format(def.MemoryUnitBytes), "memory is allocated in whole units of this size")
	f.StringVar(&o.DiskBW, "node-disk-bandwidth", bytesize.Format(def.NodeDiskBytesPerS), "a node's disk bandwidth per second (0: elastic tasks' disk is not limited)")
	f.Float64Var(&o.DiskShare, "elastic-disk-share", def.ElasticDiskShare, "share of a node's disk bandwidth elastic tasks may take together")
	f.StringVar(&o.DefaultModel, "default-model", def.DefaultModel, "model of tasks with none in the trace or dataset: none or step:SLOWDOWN")
	f.BoolVar(&o.ReservedGaps, "reserved-gaps", def.ReservedGaps, "yarn-me: run other jobs' tasks on a reserved node when they end before the reserved job could start there")
	f.StringVar(&o.AlibabaMem, "alibaba-machine-memory", "", "memory of the Alibaba 2018 trace's largest machine, which plan_mem is a percentage of (no default: the trace does not publish it; without it Alibaba jobs are not replayed)")
	f.Var(timeflag.NewDuration(&o.Target, 0), "target-makespan", "name, per policy, the smallest swept cluster that runs the trace within this")
	return cmd
}

func runSimulate(ctx context.Context, cmd *cobra.Command, o *simulateOptions) error {
	g := o.g
	opts := simulate.DefaultOptions()
	opts.Trace, opts.NodeCores, opts.ElasticDiskShare, opts.DefaultModel, opts.ReservedGaps, opts.TargetMakespan =
		o.Trace, o.NodeCores, o.DiskShare, o.DefaultModel, o.ReservedGaps, o.Target
	nodes, mem := o.Nodes, o.NodeMemory
	shapes := strings.Join(o.NodeShapes, ";")
	if shapes != "" { // the defaults of --nodes and --node-memory do not apply
		if !cmd.Flags().Changed("nodes") {
			nodes = ""
		}
		if !cmd.Flags().Changed("node-memory") {
			mem = ""
		}
	}
	errs := simulate.Flags{Policies: o.Policies, Nodes: nodes, NodeMemory: mem, NodeShapes: shapes, MemoryUnit: o.MemoryUnit,
		NodeDiskBandwidth: o.DiskBW}.Apply(&opts)
	if o.AlibabaMem != "" {
		m, err := bytesize.Parse(o.AlibabaMem)
		if err != nil || m <= 0 {
			errs = append(errs, fmt.Errorf("--alibaba-machine-memory %q: want a positive size, e.g. 512G", o.AlibabaMem))
		}
		opts.AlibabaMachineMemoryBytes = m
	}
	if len(errs) == 0 || ((len(opts.NodeShapes) > 0 || len(opts.Nodes) > 0 && len(opts.NodeMemoryBytes) > 0) && opts.MemoryUnitBytes > 0) {
		if err := opts.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return usageError{errors.Join(errs...)}
	}
	ds, err := dataset.Open(g.Dataset)
	if errors.Is(err, dataset.ErrNoDataset) && o.Trace == "" {
		return fmt.Errorf("no workload: no dataset at %s to replay the job history of, and no --trace FILE (simjobs-csv) given", g.Dataset)
	}
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
	return printDoc(g, res, res.WriteCSV, res.WriteText)
}
