// Package profiler runs a job in a sandbox under sweeps of memory and
// concurrency and measures each run (Polo, PhD thesis, UPC 2014, §4.2.6: profile a job
// offline at 1..N slots, keep the fastest, derive per-phase resource shares;
// Iorgulescu et al., ATC'17 §2: run each task in a memory
// cgroup sized like its heap so spills really reach the disk). It sits
// beside ingest at the start of the pipeline: its runs become profruns rows
// (framework "sandbox") and profsamples rows in the dataset, which the
// elasticity stage reads. It imports dataset and no other stage.
//
// # Running
//
// Sweep runs argv once per memory setting × slot setting × repetition,
// repetitions outermost, every other pass over the settings in reverse
// order: a machine that slows down or speeds up during the sweep then
// moves every setting's median alike instead of tilting the curve. The command is executed directly (argv, never a
// shell). {mem} {mem_mb} {mem_bytes} {slots} {spill_dir} {run} {copy} are
// substituted in the arguments and WLPROF_MEM_BYTES, WLPROF_SLOTS,
// WLPROF_SPILL_DIR, WLPROF_RUN, WLPROF_COPY set in the environment. With K
// slots, K copies start at once, each in its own process group and spill
// directory, and the run measures them together: the node. Each run records
// the task's input size (Options.Input, whose path {input} names and whose
// size is measured, or Options.InputBytes): the elasticity models of
// Iorgulescu et al., ATC'17 are for an input size, and the elasticity
// stage models no run without one.
//
// # Reading a sweep
//
// A setting's statistics are over its successful runs, and absent (nil,
// JSON null, "-" in the table) when it has none: wlprof profile run then
// fails (exit 1) after printing the table, as hyperfine does. Read and
// write bytes are absent too where the node has no per-task storage I/O
// accounting (the run's config says storage_io_measured false). The
// fastest setting of Polo's §4.2.6 is noted as within the noise when its
// repetitions' range of wall time per task overlaps another setting's: a
// difference smaller than the runs' spread is no ranking.
//
// # Measuring
//
// Every Interval (100 ms) the whole process tree is read from /proc: CPU
// time (utime+stime+cutime+cstime), RSS, threads, and /proc/PID/io. The
// tree is the copies' roots, their process groups, their cgroups and every
// descendant; the profiler is a child subreaper during a sweep, so orphans
// stay in the tree, are measured, and are reaped by it. Because the kernel
// folds a reaped child's CPU and I/O counters into its reaper's, the sum
// over live members counts each process once. At exit each root is waited
// for without reaping (waitid WNOWAIT) so its final /proc counters,
// descendants included, can be read; CPU comes from wait4's rusage. The
// spill directory is walked at each sample (growth, spill_peak_bytes) and
// watched with fanotify or inotify for the total written (spilled_bytes).
// A sample costs about 0.3 ms of CPU with a few processes: at 100 ms, under
// 1% of one core (BenchmarkSampleTick, BenchmarkSweepOverhead). Each
// copy's main thread's schedstat run_delay (time runnable but waiting for
// a CPU) is read at every sample and at exit, as cpu_wait_s: on a shared
// machine, wall time minus it is the runtime of a single-threaded task on
// a core of its own (helper threads are left out: a runtime's monitor
// thread waits in the run queue without delaying the work).
//
// Phases: an output line that matches the phase regex is a mark, and the
// tree is sampled at once when the profiler reads it (before it reads the
// next line), the sample labelled with the new phase; so phase boundaries
// are the marks, to within the time it takes to read a line and /proc
// (about a millisecond), not the next tick, and what the tree does after
// a mark counts in the new phase. A command whose standard output is
// block-buffered (C stdio into a pipe) should flush after a mark or print
// it on standard error.
//
// Before each run the profiler calls sync(2) and waits for it: what the
// previous run left for the kernel to write (dirty pages, the journal's
// commit, the trim of deleted spill files on a file system mounted with
// discard) is done before the next run's clock starts, not during it.
//
// Units: seconds (_s), bytes (_bytes), CPU seconds; shares are fractions of
// the node in [0,1] (an I/O share above 1, warned about, says a phase moved
// more than the node's measured capacity).
//
// The node's I/O capacity, which I/O shares are fractions of, is measured
// once per sweep before its first run on SpillDir's file system: 64 MiB
// written sequentially and read back with O_DIRECT, three times, the
// median pass's (written + read) / (write + read time) kept (iocal.go);
// Options.IOCapacity (--io-capacity) gives it instead. Each run's host
// facts record it with its source, "measured" or "flag".
//
// Options.DiskLimit (--disk-limit) throttles each run's reads and writes
// on SpillDir's disk to a rate, each way, shared by a run's copies, through
// a cgroup per run (v1 blkio.throttle.*_bps_device, v2 io.max; the copies'
// memory cgroups below it under v2): the disk of the node the profile is
// for, so that spills cost what they would cost there (disklimit.go). The
// node's I/O capacity is then the rate unless IOCapacity is given, and
// each run's config records disk_limit_bytes_per_s and the device. A sweep
// that cannot apply it (no block I/O controller, a spill directory on no
// block device) fails before its first run (ErrNoDiskLimit).
//
// # Capping
//
// With memory settings and CapAuto, each copy goes into a new memory cgroup
// below the profiler's own (v2 memory.max, or v1 memory.limit_in_bytes,
// swap disabled when accounted) set to the setting plus CapOverhead; runs
// record capped, the limit and how it was made (cap_note, and
// cap_limit_bytes in the run's config), the cgroup's OOM kills, and outcome
// "oom-killed". The overhead is room for what {mem} does not size (code,
// libraries, a runtime, the page cache the command reads through); its
// default, DefaultCapOverhead (32 MiB), lets ordinary programs run at small
// settings (a cap of exactly 4 MiB OOM-kills GNU sort -S 4M), and
// NoCapOverhead caps at the setting itself. A run the cap OOM-kills is
// said to be, in a warning and in the sweep table (Setting.OOMKilledByCap
// and Notes, with the limit and what to change). Where no cgroup can be
// made the runs record capped=false and why, and a warning is given.
// Cgroups of killed profilers are removed by the next sweep.
//
// # Stopping
//
// A timeout or a cancelled context sends SIGTERM to every process group,
// member and cgroup of the run, then SIGKILL after Grace; processes left
// behind by a command that exited are killed too. No process, cgroup or
// spill directory outlives a run. A cancelled sweep returns the runs it
// finished (OnRun has seen each) with the context's error.
//
// # Profiles
//
// Summarize gives the sweep table (median and spread over repetitions);
// BuildProfile gives the Polo, PhD thesis, UPC 2014 Table 4.2 profile: the setting with the
// least wall time per task, and per phase (split by a regular expression
// on the command's output, else one phase) the share of the node's
// capacity one task used while Slots ran at once ("the percentage of each
// TaskTracker's capacity that is used by a single execution of the
// sub-phase"). CPU is the tree's CPU seconds over the phase / (its wall
// time × the node's CPUs × Slots): a node at 100% CPU with 4 tasks gives
// each 25%, and it is not the fraction of wall time a task spent on a CPU.
// Disk I/O is the tree's storage bytes read and written / (wall time ×
// Slots) over the node's I/O capacity (runs recorded without one fall back
// to the best rate seen for the task, source "observed", with a warning:
// such shares do not compare across jobs); memory the mean RSS / Slots
// over the node's memory. profile/FORMAT.md defines the published fields.
package profiler
