// Package estimate is the completion-goal estimator of Polo, PhD thesis,
// UPC 2014 (Multi-constraint Scheduling of MapReduce Workloads; sections
// below are the thesis'): how many slots each job needs now to meet its
// goal (s_req, §3.3–3.4, and s_req_waves in whole tasks), how many of its
// tasks must start in the current placement cycle when the slots left to
// batch work vary over the day (s_fit, Alg. 2 of §5.3.4.2), whether it
// meets its goal, how satisfied it is with each allocation (the utility
// of §4.2.3 and §5.3.4.3, u^M + u^R) and its place in the placement order
// (§3.4.1). It is a what-if stage: it reads the slo stage's deadlines,
// the classify stage's periodic tenants and the dataset's task history,
// and never runs a scheduler.
//
// Units: times are seconds (instants are Unix seconds inside the package,
// seconds after --at in the output); work is slot-seconds; a slot is one
// task's worth of a server (--slot-cpu, --slot-memory).
//
// # s_req (eq. 1)
//
// For a job m with goal T_goal, at T_curr, with pending tasks U, running
// tasks R (elapsed β_i) and mean task length µ:
//
//	s_req = ⌈(Σ_{i∈R} δ_i + |U|·µ) / (T_goal − T_curr) − |R|⌉,  δ_i = max(µ − β_i, 0).
//
// The thesis' text of eq. 1 is garbled in our copy; this is its reading
// that keeps the terms it shows and its units: the remaining work over
// the time left is the slots needed in parallel, less the |R| slots the
// running tasks already hold, so s_req is compared with allocations of
// pending tasks (s_alloc ≤ s_pend in eq. 6). It is at least 0. A running
// task past µ is assumed about to end (δ = 0; the thesis' δ = µ − β would
// be negative). Per phase (§3.3.1): phases run in order and the time left
// is split among those with work in proportion to their work, the split
// under which one slot count carries the job through every phase; the
// job's s_req is its current phase's (the first with pending tasks).
//
// s_req_waves is the same need counted in whole tasks, §3.3.1's "Each
// task takes time α to be completed, and requires one slot to execute":
// the fewest slots, besides those its running tasks hold (kept as they
// free up), that carry the job through all its phases by its goal when
// each pending task holds a slot for µ and each running one for δ, a
// phase starting once the earlier ones have ended (§3.4.6 counts "the
// number of sequential task executions, or waves"). The fluid s_req
// undercounts near the goal — 10 tasks of 100 s due in 150 s give s_req
// 7, but 7 slots end at 200 s; s_req_waves is 10 — and both are
// published: s_req is eq. 1 as the thesis' priority and utilities use
// it, s_req_waves the allocation that meets the goal (a seeded test
// checks it does, and that one slot fewer does not). When no slot count
// meets the goal (a task needs longer than the time left) s_req_waves is
// every pending task of the current phase, with a warning.
// Edge cases (§3.4.1): a goal already passed gives every pending task
// (finish as soon as possible) and meets_goal false; a job with no
// observed µ in any phase is not estimated (the thesis gives it top
// priority until it has one) and listed with the reason. A phase without
// a µ when another phase has one takes the nearest earlier phase's (else
// the nearest later's), with a warning of the job and mu_from saying so:
// §3.4.5, "If no estimate is provided, the scheduler assumes that the
// computational cost of a map task is the same as that of a reduce task"
// (such a job was refused before).
//
// Rank (§3.4.1): "First, jobs that have already missed the deadline.
// Second, recently submitted jobs for which there is no available data.
// Finally, executing jobs based on their s_req", the largest first (a
// slot given lowers a job's s_req, and its priority). rank orders every
// job, the not-estimated ones with a goal and no µ in any phase (no
// data) among them; within the first two groups and on ties the earliest
// goal comes first (the thesis puts the oldest job without data first,
// and submission times are not in the input), then the name. --job
// filters after ranking.
//
// # Availability Ω(t) (§5.3.3)
//
// The slots left to batch work by the primary tenants: the classify
// stage's periodic tenants (their usage is what f(t) of §5.3.3 predicts;
// series and patterns through classify.Load and classify.Run, whose series
// step builds and stores the series table when it is missing or stale),
// folded over the UTC day in AvailabilityStep bins. Per bin, in servers:
// Σ_tenants servers·(1 − Reserve) − Σ_tenants servers·u(bin), with u the
// tenant's mean average-server CPU in the bin over every day of its
// history; slots are ⌊CPU / SlotCPU⌋, and, with SlotMemory set, at
// most ⌊memory / SlotMemory⌋, memory being Σ servers·(1 − Reserve) less
// Σ servers·(the tenant's mean memory in the bin), folded the same way
// from the usage table's memory column (a tenant without memory samples
// subtracts nothing, with a warning). Ω repeats
// every day. --availability FILE gives the daily profile instead
// (start_s,slots rows, start_s seconds after UTC midnight).
//
// # s_fit (Alg. 2)
//
// For all jobs at once: s_fit^j starts at s_pend^j; from the job with the
// last goal to the earliest, the window between its goal and the previous
// one takes, in slot-seconds ∫Ω, first the tasks left of the jobs already
// visited (latest goal first), then the job's own (fit(j, a, b)). The
// loop of Alg. 2 (lines 6–18) visits every job, the earliest included:
// its window runs from the next placement cycle to its goal (§5.3.4.1,
// Fig. 5.16c: "the timeframe between 1 and 17"), and no window reaches
// before the next cycle. What is left after every window fits nowhere
// after the current cycle, so it must start in it; in tasks of the job's
// current phase that is s_fit, "the minimum number of tasks that should
// be allocated concurrently during the next placement cycle" (§5.3.4.2).
// The cycle is Options.PlacementCycle (--placement-cycle), 30 s by
// default: §4.2.2 puts the control cycle "of the order of tens of
// seconds". (Before, the earliest window was left out, so the earliest
// job's s_fit was always every pending task.) The fit is fluid
// — a task may straddle a goal — which keeps it monotone (fit.go says
// why). A job's later phases fill its windows before its current phase
// (they run nearer its goal). Whether a job meets its goal is not
// Alg. 2's to say (it fills every window latest goal first, so a late
// job's overflow lands on the earlier ones): late_tasks are the job's
// tasks that end after its goal when Ω's slots are given out earliest
// goal first, one task to a slot for µ (a running task keeps its slot
// for δ; a task is not stopped when Ω falls, as §5.3.4.5's Task
// Scheduler only assigns tasks that "do not exceed its current
// capacity"), and meets_goal is late_tasks = 0. short_tasks is the same
// split read fluidly (a task's work may spread over slots), a lower
// bound kept for comparison: it let one 100-s task due in 50 s "meet its
// goal" when meets_goal was short_tasks = 0. Without an availability,
// meets_goal says some slot count meets the goal (s_req_waves exists;
// it was s_req ≤ the pending tasks). Release times are not modelled: as in
// §5.3.2, every job may run from now. s_req under the mean availability
// from now to the goal (§5.3.4.2: "a fixed availability equal to the
// average amount of resources from current time to its deadline") is
// eq. 1 itself; avail_mean_slots is that mean, and s_req above it means
// the goal cannot be met at that availability.
//
// # Utility (eq. 5–7, eq. 14)
//
// For allocations 0…s_pend of the current phase: eq. 14 with s_fit
// (−∞ at 0 below s_fit, log(a)/log(s_fit) − 1 up to s_fit, linear to ½ at
// s_req, linear to 1 at s_pend) and eq. 6 with s_req alone. Edge cases
// the thesis leaves open (division by log 1 or by 0): see UtilityReq and
// UtilityFit; −∞ is null in JSON. Above MaxCurve pending tasks the curve
// is sampled (utility_alloc lists the allocations, s_fit, s_req and
// s_pend among them). That curve is u^M; a job's utility is
// u_j = u^M + u^R (eq. 5/13), u^R = log(r_alloc)/log(r_pend) − 1 (eq.
// 7/15, UtilityReduce) over its reduce tasks: r_pend the tasks of its
// phase named "reduce" not finished at --at, r_alloc those holding a
// slot then (running), when that phase comes after the current one (else
// both are 0 and u^R is 0: a job in its reduce phase has it as the
// current phase, whose curve is u^M's). utility_reduce is u^R and
// utility_sum the curve u^M + u^R at each allocation of utility. (Only
// u^M was published before.) Fig. 5.17's job with no reduce started has
// u^R = −1, the floor of eq. 15's range [−1, 0] where log 0 is −∞.
//
// # Inputs (Load)
//
// Deadlines: the slo stage's actionable SLOs (the next period instance
// whose deadline is after --at), or deadline_s in the --jobs file.
// Profiles: task counts and µ per phase from the --jobs file when it
// gives phases, else from the dataset's task history (profruns rows
// ingested from jhist and spark-eventlog, one per task attempt: a phase
// is the task kind or Spark stage, its task count the median over the
// job's runs of successful attempts, µ the mean length of all successful
// attempts, §3.3.2's µ);
// sandbox profiling runs (framework sandbox or profruns-csv) measure a
// whole task under a setting, not a job's task count, and give µ only
// when the --jobs file gives the tasks: µ is the mean completed task
// length (§3.3.2) at the setting the published profile uses (§4.2.6, the
// one with the least median wall time per task, profiler.BuildProfile),
// each run's time per task being its runtime over its slots (tasks at
// once on the node; a row without slots ran one). It was the median
// runtime over every setting, 30 s where the profile's own setting gives
// 12 s. Progress at --at: when a run of
// the job in the task history was in progress then (its first attempt
// started at or before --at, its last ends after; of several, the
// latest started), its attempts give each phase's tasks (that run's),
// those finished, and the elapsed time β of each running one; otherwise
// every task is pending. The --jobs file may give pending and running
// tasks per phase instead. An Alibaba job with task instances (the
// instances table, batch_instance) takes them as its task history
// instead of the profruns rows, unless --jobs gives its phases: a phase
// is a task (batch_task's task_name, M1, R2_1, ...) in the DAG's order
// (parents first, ties by task number), its task count batch_task's
// instance_num (its distinct instances when the job has no batch_task row
// for it), µ the mean length of its Terminated instance runs (§3.3.2's
// mean completed task length; failed runs left out, as failed attempts
// are). The trace holds one run of the job: at --at within it (its first
// instance start to its last end, or on while an instance has a start and
// no end) an instance with a Terminated run ended by then is done, one
// with a run started and not ended by then is running for --at − its
// start, the rest pending; outside it every task is pending. A task with
// no Terminated run takes a neighbour's µ (§3.4.5), with a note.
// Jobs without a goal, a µ or a task count are listed in not_estimated
// with the reason.
//
// # Departures kept, and why
//
//   - Alg. 2's fit is fluid (a task may straddle a goal): whole tasks
//     would let a larger window leave a smaller remainder for the next
//     job (fit.go), so s_fit would not be monotone in Ω. Whether a job
//     meets its goal, where whole tasks matter, is counted in whole tasks
//     (late_tasks).
//   - s_req stays eq. 1's fluid reading (the thesis' priority and eq. 6 and
//     14 use it) and s_req_waves is published beside it: the two answer
//     different questions, the rate the thesis' scheduler steers by and
//     the allocation that meets the goal.
//   - A running task past µ has δ = 0 (δ = µ − β would be negative).
//   - u^R is for the phase named "reduce" after the current one; Spark
//     stages have no reduce in the thesis' sense, so their u^R is 0.
//     r_alloc is the reduces running at --at, the allocation in force.
//   - The rank breaks ties, and orders the jobs that missed their goal
//     and those without data, by goal: the thesis puts the oldest job
//     without data first, and submission times are not in the input.
//   - Jobs have no release times (§5.3.2: every job may run from now),
//     and §3.3.1's per-phase goals are the time left split by work.
//
// Speed: SFit is O(J log J); Alg. 2 as written is O(J²) (sfitBaseline,
// the benchmark's baseline). The stage for 10,000 jobs is benchmarked in
// bench_test.go (BenchmarkRun10k against BenchmarkRun10kBaseline; the
// bar is 5 s), not run by the tests.
package estimate
