// Package simulate is the elastic-memory what-if of seed 004 (Iorgulescu
// et al., "Don't cry over spilled records", ATC'17, §3–§4): a
// discrete-event simulator of a YARN cluster, run with stock YARN and with
// YARN-ME, which starts a task with less than its ideal memory when that
// does not delay its job. It has the stage surface (Options, Load, Run,
// Result) and sits above the analysis stages: a task's slowdown below
// ideal memory comes from package elasticity's models (§2).
//
// # Workload (Load, ReadTrace; DSS §4)
//
// A trace (simjobs-csv, --trace) has one row per phase:
// job,submit_s,task,tasks,runtime_s,memory_bytes[,cores][,after][,model].
// runtime_s is a task's duration at memory_bytes, its ideal memory; after
// names the phase of the same job it waits for (reduces after maps: a
// phase starts when every task of that phase has ended); cores is what a
// task takes (DSS: 1); model is a model spec (ParseModel: none,
// step:SLOWDOWN, curve:F=S;...; an optional @DISK bytes/s). Every bad row
// is reported with file, line and reason: zero or negative runtimes,
// unknown models, duplicate tasks, a job with two submission times,
// after naming no phase, cycles.
//
// Each phase's model is the trace's model column, else the elasticity
// stage's model of (job, task) in the dataset (its ideal memory then
// wins over the trace's, with a warning past 10%), else --default-model.
// A fitted model's slowdown at memory m is Predict(m) / ideal runtime (at
// least 1), its disk bandwidth that of its curve point at or below m
// (§2.6's disk rate over the runtime).
//
// Without a trace the workload is the dataset's job history
// (FromHistory): one job per run whose task attempts the dataset holds
// (MapReduce .jhist files and Spark event logs give one profruns row per
// attempt), submitted at its first attempt's start; per phase (map,
// reduce, Spark stage) the tasks with a successful attempt, their mean
// runtime and the median memory a task was given (taken as the ideal
// memory: the runtime was measured at it; a fitted model of the recurring
// job and task replaces it, as above). A Spark task's memory is its share
// of its executor (profruns task_memory_bytes: the executor's memory / its
// task slots), not the executor's container (container_memory_bytes,
// what a reservation asks for): an executor runs cores / spark.task.cpus
// tasks at once. Reduces wait for maps, a Spark stage for its parent stage
// (of several, the one that ended last in the log, since a phase waits for
// one). A Spark application runs its jobs one after another: a stage
// without a parent that ran waits for the group of jobs before its own
// (jobs that overlapped in time are one group; dataset.SparkJobGroups),
// through a phase "driver before Spark job N" of one task, one core and
// the least memory, as long as the log's gap between the two groups (the
// driver's work, or an application attempt starting again, when no task
// ran). A stage whose longest task ran more than twice the mean of the
// others puts that straggler in a phase of its own ("(longest task)"),
// since a stage ends with its last task. The attempts of a YARN
// application are phases "attempt N stage ..." one after another. Failed
// attempts, the application's start-up before its first task, and runs of
// the runs table without attempts are not replayed, and the output says
// how many.
// Each job's observed_jct_s (its last attempt end − first attempt start)
// is printed beside the simulated JCTs.
//
// # Cluster
//
// Identical nodes (DSS §4: 16 cores, 10 GB: --nodes, --node-memory,
// --node-cores), or a list of node shapes (--node-shapes
// 40x16G/16,10x64G/32@1G: COUNTxMEMORY[/CORES][@DISK], no cores:
// --node-cores, no disk: --node-disk-bandwidth).
// Memory is counted in whole units of --memory-unit (DSS: 100 MB; here
// 100 MiB): a node has ⌊its memory / unit⌋ units, a task's ideal memory
// is ⌈ideal / unit⌉. Nodes are numbered in the order of the shapes as
// given, then in order within a shape; that is the node order of every
// tie below. Every node has --node-disk-bandwidth, or its shape's @DISK.
// A job with a task that fits no node (its memory and its cores
// on one node: larger than the largest node) is left out of that
// cluster's simulation and listed, under both policies alike.
//
// Several clusters of shapes (--node-shapes given again, or ; between
// clusters) are swept like counts and memories, and --target-makespan
// picks, per policy, the one of least memory in all (then fewest nodes)
// that meets it; shapes go without --nodes and --node-memory (Validate
// says which to use). In
// the output the cluster's nodes is the total, node_memory_bytes and
// node_cores what every node has, 0 when the nodes differ in it, and
// shapes lists them [{nodes, node_memory_bytes, node_cores,
// node_disk_bytes_per_s}] (absent for --nodes and --node-memory); sweep
// points and targets carry shapes and memory_bytes (the cluster's
// memory in all); the text states the shapes. CSV rows carry the same
// three cluster columns.
//
// # Engine
//
// Events are job submissions and task ends, taken in time order; there is
// no time step. At each instant every end and submission is applied
// first (their order does not matter), then the nodes due for a visit
// are visited, the lowest node id first, until none is due (a node can
// become due again while others are visited). A node is due when a task
// ended on it at this instant; when a job asks for a new phase (it was
// submitted, a phase it waited for ended, or it moved on to another ready
// phase), every node without a reservation is due, and those reserved for
// the job; when a job asks for nothing more, the nodes reserved for it
// are due. This is the event-driven form of YARN's node heartbeats: a
// node whose resources did not change is visited again only when new
// work appears, and a reserved node only when a task ends on it or its
// reservation ends (under yarn its visit would change nothing; under
// yarn-me a new job may wait for a task end on the node to fill its
// gap). Ties are broken by submission, then job id (the jobs' rank),
// then node id: results are exactly reproducible.
//
// A job asks for the next task of its first phase, in trace order, that
// is ready and has tasks not started. Jobs that ask are ordered by YARN's
// fair scheduling (§4, DSS): least memory held by their running tasks
// first, then rank. On node n the head job is the first in that order
// whose task n could fit when empty (memory and cores); the jobs before
// it are passed over on n (YARN's FairScheduler asks that a request fit
// the node's total resources), though yarn-me tries each of them
// elastically (4.) in turn, and after a start the visit begins again.
// On identical nodes no job is passed over: the head is the queue's.
//
// # Policies
//
// A visit of node n repeats until nothing changes (Algorithm 1 for one
// node; YARN assigns several containers per heartbeat):
//
//  1. If n is reserved for job J (§3): when J asks for nothing, or for
//     another phase than the reservation's, the reservation ends. Else
//     J's task starts on n if it fits (memory and cores) and the
//     reservation ends; under yarn-me, else elastically if it may (4.),
//     and the reservation ends. Else yarn stops; yarn-me fills the gap
//     (6.) and stops.
//  2. Else, with no job asking that n could fit (those n passes over
//     are tried elastically first under yarn-me, above), the visit
//     stops. Else n's head job H's task starts on n if it fits; under
//     yarn-me, else elastically if it may (4.); else n is reserved for
//     H (YARN: "a node that cannot fit the head job's next task is
//     reserved for that job while it has pending tasks").
//  3. yarn: nothing else. Every task holds its ideal memory for its
//     trace runtime.
//  4. yarn-me's elastic allocation (§3, Alg. 1 lines 7–10), for a task
//     with a model, on a node with the task's cores free: among the
//     memories the node has free below ideal, from ⌈10% of ideal⌉ (§4),
//     the least that gives the lowest runtime (ties: less memory); its
//     runtime is the ideal runtime × the model's slowdown there. It
//     starts iff the runtime is finite; the node's elastic tasks'
//     disk bandwidth plus its own stays within --elastic-disk-share of
//     --node-disk-bandwidth (§2.6; no limit at bandwidth 0; the chosen
//     memory is not changed to fit the share); and it would end no later
//     than the timeline generator's estimate of its phase's completion (5.):
//     a task ending later would be a straggler for its job (a later phase
//     cannot start before this one ends, so the phase's estimate is the
//     job's as far as this task is concerned).
//  5. The timeline generator (§3): every running regular task of the
//     phase is a lane; the phase's tasks not started (this one included)
//     run one after another on the lanes, each at its ideal duration, in
//     the order the lanes free up; the estimate is when the last lane
//     ends, or a running elastic task of the phase does if later. With q,
//     r = pending ÷ lanes and f the lanes' ends in order, that is
//     max(f_last + q·d, f_r + (q+1)·d). A phase with no regular task
//     running has no lanes: its estimate is the node's own timeline, when
//     n's running tasks will have released enough for a regular task,
//     plus its duration; when n could never fit the task, the earliest
//     such instant on the nodes that could, plus its duration (or a
//     running elastic task's end, if later). The estimate does not count
//     reservations; it is recomputed at every decision from the state at
//     that instant.
//  6. Reserved nodes under yarn-me (§3: "tasks of other jobs [may be]
//     allocated on a reserved node, but only if this does not hinder the
//     tasks of the reserved job"; DSS's gap mode): the reservation's
//     release time is when n's running tasks will have released enough
//     for J's task. Jobs other than J are taken in queue order; the
//     candidates among them are those whose task fits n and ends by the
//     release time, and those whose task does not fit but has a model,
//     finds its cores and ⌈10%⌉ of its ideal memory free on n, and whose
//     lowest elastic runtime would end by the release time and, when its
//     phase has lanes, by the phase's estimate. A candidate that fits
//     starts; one that does not starts elastically if it may (4.) and
//     ends by the release time. After a start the walk begins again at
//     the head; it stops at the end of the queue or after 8 candidates
//     in a row started nothing (a node's work per visit stays bounded, as
//     a scheduler's per heartbeat). --reserved-gaps=false turns this off.
//
// With an infinite slowdown (or none) yarn-me makes no elastic
// allocation, and without reserved gaps it is yarn task for task; with
// memory for everything nothing is reserved or elastic and the two
// schedules are the same (tests).
//
// # Outputs
//
// Per policy: makespan (last task end − first submission), mean, median
// and p95 job completion time (a job's last task end − its submission,
// §4's "job runtime"), memory utilisation (the mean share of the
// cluster's memory units, every node's whatever its shape, held by tasks
// from the first submission to the last end), tasks and elastic tasks. A sweep (several --nodes or
// --node-memory) gives the same per cluster, and --target-makespan the
// smallest swept cluster (by total memory, then nodes) that runs every
// job within it — the cluster size needed with and without elasticity.
//
// scripts/simulate.py is an independent implementation of these rules
// (Python, standard library) that the tests compare with, job by job.
//
// Not yet: workloads from the dataset's job runs (a tasks table), sweeps
// over node shapes, mis-estimation (§4's robustness study), the Meganode
// comparison.
package simulate
