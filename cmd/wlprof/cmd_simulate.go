package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/simulate"
)

func newSimulateCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, simulate.Contract, &cobra.Command{
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
	})
	return cmd
}
