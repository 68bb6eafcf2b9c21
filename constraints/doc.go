// Package constraints is the constraints stage (Thinakaran et al., Phoenix): it
// profiles the placement constraints of tasks and estimates how long
// constrained tasks wait.
//
// Input: the dataset's task_events (Google 2019 instance_events, whose
// events carry their constraint lists, or 2011 task_events), the 2011
// task_constraints and machine_attributes (either trace). Output, per
// distinct constraint (attribute, relation, value):
//
//   - the profile: tasks carrying it and, per attribute and relation, how
//     many constraints and tasks (Phoenix Table II, on obfuscated names);
//   - hard or soft: the traces do not say and the attributes are
//     obfuscated, so a constraint is soft when a task dropped it from a
//     later SUBMIT/SCHEDULE/UPDATE event (it was relaxed) or was scheduled
//     on a machine that did not satisfy it (it was not enforced); hard
//     otherwise. Terminal events and QUEUE/ENABLE are not compared, as
//     whether the trace fills their lists is not documented;
//   - the machines satisfying it over time: machine attribute changes are
//     swept in time order with the task events; a change re-judges only the
//     constraints on that attribute for that machine, so the cost is the
//     changes times the constraints per attribute, not machines ×
//     constraints × windows. A machine exists from its first attribute row;
//   - the Constraint Resource Vector: Phoenix's ⟨cpu, mem, disk, os, clock,
//     net⟩ names resources the obfuscated attributes cannot be mapped onto
//     (a hashed name may be a kernel version or a rack); each constrained
//     attribute is one component, with demand = task episodes (SUBMIT to
//     EVICT/FAIL/FINISH/KILL/LOST) carrying a constraint on it at some time
//     in a window, over supply = machines having the attribute at the
//     window's start. The same series is given per constraint, supply =
//     machines satisfying it. An episode carries a constraint from the
//     SUBMIT/SCHEDULE/UPDATE event whose list holds it to the one whose
//     list drops it (that event's window included), so a relaxed (soft)
//     constraint is demand while it was asked for (Phoenix §III-A: soft
//     constraints "can be relaxed or negotiated"); it was counted by the
//     list the task was scheduled with, which gave a relaxed constraint no
//     demand at all. A constraint dropped and taken back within a window
//     counts once there. Windows in which an episode carries no constraint
//     are the unconstrained demand;
//   - an M/G/1 queue per constraint whose server is the set of satisfying
//     machines taken as one server of their combined capacity (their
//     time-weighted mean count from the first to the last task event, the
//     span the arrival rate is over, each of capacity 1: the traces
//     normalise capacities to the largest machine). It was the mean of the
//     counts at window starts, which made the wait depend on --window (the
//     2011 fixture's GK != aaa: 34.7 s at 1 h, 28.6 s at 10 min; 27.1 s at
//     both now). A task's service time on it is
//     its SCHEDULE→end time × the larger of its CPU and memory requests,
//     divided by that count; the arrival rate is the episodes with a known
//     SUBMIT over the data's span. Pollaczek–Khinchine: W = λE[S²]/(2(1−ρ))
//     with ρ = λE[S]; ρ ≥ 1 is reported as unstable, never as a number. W is
//     compared with the mean SUBMIT→SCHEDULE wait of the same episodes.
//
// Placement constraints, the third class of Phoenix §III-A ("hard, soft,
// and placement constraints"; placement ones spread or gather the tasks
// of an application), are reported apart (Result.Placement): the Google
// 2011 task_events' different-machine flag, by which a task "must be
// scheduled to execute on a different machine than any other currently
// running task in the job" (the 2011 schema). Per trace: the jobs and
// tasks that carried it, hard or soft by the same test as the attribute
// constraints (relaxed: a later SUBMIT/SCHEDULE/UPDATE event of the task
// no longer carries it; violated: a SCHEDULE carrying it lands on a
// machine where another task of the job, flagged or not, is running), and
// its SUBMIT→SCHEDULE waits. It is not in the profile, the CRV or the
// queues (it names no machine attribute, so no machines satisfy it as
// such): a task with only the flag is among the unconstrained. JSON
// ("placement") and the text output carry it; the CSV stays the table of
// attribute constraints. The 2019
// trace has no such flag (its per-collection max_per_machine is not
// read).
//
// The same queue is given for the tasks without constraints, served by
// every machine with attribute rows ("unconstrained"): a constraint whose
// fit is no worse than that one's is as well explained by its machines as
// the bulk of the work is by the whole cluster.
//
// Where the model fits and where not: it sees only the tasks carrying the
// constraint, so it misses every other task on the same machines,
// priorities and preemption; it predicts short waits for constraints many
// machines satisfy, and the trace's waits there come from other causes
// (priority, batch queueing): "under-predicts". It is closest for a
// constraint few machines satisfy and that the constrained tasks load
// heavily. A single server of combined capacity also queues longer than k
// separate machines at the same load (M/M/k's Erlang-C probability of
// waiting is below ρ): in that respect W is an upper bound.
//
// Units: times in seconds, rates per second, shares in [0,1].
package constraints
