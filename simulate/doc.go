// Package simulate is the elastic-memory what-if of Iorgulescu et al.,
// "Don't cry over spilled records", ATC'17 §3–§4: a
// discrete-event simulator of a YARN cluster, run with stock YARN and with
// YARN-ME, which starts a task with less than its ideal memory when that
// does not delay its job. It has the stage surface of package
// internal/stage (Contract, Options, Load, Run, Result, Document) and
// sits above the analysis stages: a task's slowdown below ideal memory
// comes from package elasticity's models (§2).
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
// Alibaba 2018 jobs (FromHistoryWith) replay from their task instances
// (batch_instance) and tasks (batch_task): a phase per task, after the
// task it names (of several, the one whose instances ended last), its
// Terminated instance runs at their mean duration, plan_cpu / 100 cores
// rounded up to whole cores and plan_mem percent of the machine memory
// given (HistoryOptions; the trace publishes its machines' 96 cores but
// only a normalised memory, so without it those jobs are left out, with
// the reason). A task without instance rows runs instance_num tasks as
// long as its batch_task end − start; a task whose instances never
// terminated, or with no batch_task row, makes its job unreplayable: it
// is skipped with the reason. observed_jct_s is the last instance end −
// the first instance start, widened to the span of tasks replayed from
// batch_task alone.
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
// no time step. At each instant the jobs submitted then arrive, then the
// nodes due for a visit are visited, the lowest node id first, until
// none is due (a node can become due again while others are visited).
// A node learns of the tasks that ended on it at this instant at its own
// visit, as YARN's ResourceManager learns of a node's finished
// containers at that node's heartbeat: only then do their memory and
// cores come back, their jobs' held memory (the fair order) drop, and a
// phase whose last task ended there let the phases waiting for it ask,
// so the nodes of lower id are visited without them. A node is due when a task
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
//     than the timeline generator's estimate of its job's completion (5.):
//     "an elastic allocation is made for a task that cannot be scheduled
//     regularly iff its expected completion time does not exceed the
//     current estimated completion time of its job" (§3). A task is thus
//     started elastically only when that does not delay its job against
//     starting it regularly, on this node later or on any other.
//  5. The timeline generator (§3: it "builds simple timelines for each
//     node, which it then merges", counting reservations) is stock YARN
//     run ahead from the engine's state, as DSS's PEEK runs it: a copy
//     of the cluster, its queue, reservations and running tasks (elastic
//     ones end when they end), without the jobs not yet submitted,
//     scheduled under rules 1–3 from where the engine is (the node being
//     visited goes on first, then the nodes due); a job's estimate is
//     when its last task ends there, and never less than now plus its
//     phase's duration and those of the phases waiting for it (a regular
//     start from now cannot end sooner). As the generator "runs
//     periodically, every heartbeat interval" and "when a new job
//     arrives", the copy is taken at the first elastic decision after a
//     heartbeat (1 s, YARN's default and DSS's) has passed since the
//     last, or after a submission, and serves every decision until then.
//     It is run only as far as the questions need: until the job
//     completes, or until one of the job's tasks is still to start when
//     a start at once would end past the elastic task. The copy keeps
//     only what stock YARN reads (on identical nodes the queue's head,
//     kept as a heap; of a job's reservations, the nodes reserved now)
//     and reuses the last copy's buffers: its schedule is a full copy's.
//  6. Reserved nodes under yarn-me (§3: "tasks of other jobs [may be]
//     allocated on a reserved node, but only if this does not hinder the
//     tasks of the reserved job"; DSS's gap mode): the reservation's
//     release time is when n's running tasks will have released enough
//     for J's task. Jobs other than J are taken in queue order; the
//     candidates among them are those whose task fits n and ends by the
//     release time, and those whose task does not fit but has a model,
//     finds its cores and ⌈10%⌉ of its ideal memory free on n, and whose
//     lowest elastic runtime would end by the release time and by its
//     job's estimate (5.). A candidate that fits
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
// # Where this differs from YARN and from DSS
//
// DSS (Iorgulescu et al.'s simulator, policies REGULAR and PEEK) models
// YARN's heartbeats and ApplicationMasters; this engine does not, for
// three reasons that each move results a little:
//
//   - No ApplicationMaster container per job: a job's tasks start at its
//     submission, and no node memory goes to AMs. DSS starts an AM first
//     (its memory and cores, held until the job ends) and the tasks
//     after the AM's own heartbeat. The elastic-memory what-if is about
//     the tasks; an AM's share would be a constant to add per job.
//   - A phase that waits for another (reduces after maps) asks for its
//     tasks once every task of the phase it waits for has ended. DSS
//     asks for reduces once every map has been placed (its pending
//     tasks are one list, maps first), so
//     its reduces may hold memory while the last maps run. Jobs of one
//     phase, as in §4's simulations, are not affected.
//   - The order in which nodes are visited at one instant. YARN's nodes
//     heartbeat at their own offsets, once per interval; DSS spreads
//     them evenly over its 1 s interval in the order of its node table
//     (Python's dictionary order of the node names); here every node due
//     at an instant is visited then, lowest id first. Which node sees a
//     freed slot first decides which job gets it: starting each
//     instant's visits at another node (rotating with time, as staggered
//     heartbeats would) moved, on the traces of testdata/simulate/dss
//     and others, yarn's mean JCT by up to 12% and yarn-me's makespan by
//     up to 14% (the ratio of the two by up to 0.15), so results that far
//     from DSS's are not a different result. The tests allow YARN-ME 10%
//     over YARN, and a ratio 0.12 from DSS's, for it.
//
// Completions are reported per node as YARN reports them (Engine), and
// YARN-ME's estimate is DSS's PEEK (5.), so on DSS's own traces the
// ratio of yarn-me to yarn follows DSS's within that noise.
//
// Not yet: workloads from the dataset's job runs (a tasks table), sweeps
// over node shapes, mis-estimation (§4's robustness study), the Meganode
// comparison.
package simulate
