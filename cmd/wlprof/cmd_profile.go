package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/profiler"
)

// profileRunOptions: the flags are bound to the sweep's options and to
// the text settings profiler.Flags parses.
type profileRunOptions struct {
	g          *globalOptions
	opts       profiler.Options
	flags      profiler.Flags
	ShowOutput bool
	Argv       []string
}

type profileShowOptions struct {
	g         *globalOptions
	Job, Task string
}

func newProfileCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Profile a job in a sandbox under memory or slot sweeps",
		Long:  "Run a command under sweeps of memory and concurrency and record profiling runs (Polo, PhD thesis, UPC 2014 §4.2.6, Iorgulescu et al., ATC'17 §2).\n" + exitStatusHelp,
		Example: `  wlprof profile run --job sort --mem 256M,512M,1G --repeat 3 --input in.txt -- sort -S {mem} -T {spill_dir} -o /dev/null {input}
  wlprof profile show --job sort`,
		Args: args(cobra.NoArgs),
	}
	ro := &profileRunOptions{g: g}
	runCmd := &cobra.Command{
		Use:   "run --job NAME [flags] -- CMD ARGS...",
		Short: "Run a command once per setting and repetition and record each run",
		Long: `Run CMD once per memory setting, slot setting and repetition, sample its
whole process tree from /proc, and record each run in the dataset (table
profruns, its samples in profsamples). CMD is executed directly, never
through a shell (pass one, e.g. sh -c '...', if you need it). wlprof's own
flags, -o and -d included, go before --; everything after it is CMD.

In the arguments {mem} (e.g. 256M), {mem_mb}, {mem_bytes}, {slots},
{spill_dir}, {run}, {copy} and {input} are replaced; the environment gets
WLPROF_MEM_BYTES, WLPROF_SLOTS, WLPROF_SPILL_DIR, WLPROF_RUN, WLPROF_COPY.

Each run records the task's input size, which 'wlprof elasticity' needs to
model the runs (Iorgulescu et al.'s (ATC'17) models are for an input size and scale with
it): --input PATH gives the input (a file, or a directory whose files are
summed), which {input} names in CMD; --input-bytes SIZE gives its size
(e.g. 6M, 10G) when CMD finds or makes its input itself. Without either,
the sweep ends with a note saying so.
--slots K runs K copies at once, each with its own spill directory, and
measures the node. Each run gets a fresh spill directory under --spill-dir;
spilled_bytes is the total written there, spill_peak_bytes its largest size.

With --mem, each copy is put in a memory cgroup (v2 memory.max or v1
memory.limit_in_bytes) capped at the setting plus --cap-overhead when the
machine allows; runs record capped and OOM kills, or why they were not
capped (with a warning). The overhead is room for what {mem} does not size:
code, libraries, a runtime, the page cache the command reads through. Its
default, 32M, lets ordinary programs (GNU sort, Go, CPython) run at small
settings; a JVM needs more (YARN adds max(384M, 10%)). 0 caps at the
setting itself. A run the cap OOM-kills is said to be, on stderr and in the
sweep table (outcome oom-killed, oom_killed_by_cap and notes).

I/O shares are of the node's disk bandwidth: measured once before the first
run (sequential O_DIRECT write and read of 64 MiB, three times, on the file
system of --spill-dir; well under a second on an SSD) unless --io-capacity
gives it. The runs record it, and whether it was measured or given.

--disk-limit RATE throttles each run's reads and writes on the disk of
--spill-dir to RATE bytes/s each way, shared by a run's copies: profile as
on the node the profile is for (an HDD cluster node from an SSD sandbox;
a steady disk on a cloud VM whose disk speed changes). It needs a cgroup
I/O controller (v1 blkio, v2 io) and a --spill-dir on a local block
device, and fails the sweep otherwise; the node's I/O capacity is then the
rate unless --io-capacity gives it, and each run's config records the
limit (disk_limit_bytes_per_s). Under cgroup v1, writes the kernel writes
back from the page cache in the background are not throttled (direct I/O,
reads and fsync'd writes are): spill with direct I/O, as Iorgulescu et al., ATC'17 does.

A run that exceeds --timeout, or is interrupted, has its whole process tree
stopped (SIGTERM, then SIGKILL after --grace); no process, cgroup or spill
file outlives a run, and every run finished before an interrupt is kept.

Each finished run is committed to the dataset at once; the sweep table of
the runs made is printed at the end (as with 'wlprof profile show').
` + timesHelp + exitStatusHelp,
		Example: `  wlprof profile run --job sort --mem 64M,256M --repeat 3 --input in.txt -- sort -S {mem} -T {spill_dir} -o /dev/null {input}
  wlprof profile run --job wc --slots 1,2,4 --timeout 10m -- wc -l big.txt
  wlprof profile run --job mr --input-bytes 10G --phase-regex '(map) \d+% reduce 0%|(reduce) [1-9]' -- hadoop jar job.jar in out-{run}`,
		Args:        needArgs("CMD (the command to profile, after --)"),
		Annotations: map[string]string{annotationDashDash: "wlprof profile run [flags] -- CMD [ARGS...]"},
		RunE: func(cmd *cobra.Command, a []string) error {
			ro.Argv = a
			return runProfileRun(cmd.Context(), ro)
		},
	}
	f := runCmd.Flags()
	f.StringVar(&ro.opts.Job, "job", "", "job name (required)")
	f.StringVar(&ro.opts.Task, "task", "task", "task kind: map, reduce, ...")
	f.StringVar(&ro.flags.Mem, "mem", "", "memory settings, e.g. 256M,512M,1G (none: one setting, not capped)")
	f.StringVar(&ro.flags.Slots, "slots", "1", "concurrency settings, e.g. 1,2,4: copies run at once")
	f.IntVar(&ro.opts.Repeat, "repeat", 3, "repetitions per setting")
	f.Var(timeflag.NewDuration(&ro.opts.Interval, 100*time.Millisecond), "interval", "sampling interval")
	f.Var(timeflag.NewDuration(&ro.opts.Timeout, 0), "timeout", "stop a run after this long (0: never)")
	f.Var(timeflag.NewDuration(&ro.opts.Grace, 5*time.Second), "grace", "wait between SIGTERM and SIGKILL when stopping a run")
	f.StringVar(&ro.opts.SpillDir, "spill-dir", "", "where per-run spill directories are made (default: the temporary directory)")
	f.StringVar(&ro.flags.Input, "input", "", "the task's input, a file or directory: {input} in CMD is replaced by it and its size is recorded with each run")
	f.StringVar(&ro.flags.InputBytes, "input-bytes", "", "the task's input size to record with each run, e.g. 6M or 10G (instead of --input)")
	f.StringVar(&ro.flags.PhaseRegex, "phase-regex", "", "output lines matching this start a phase named by the first group that matched")
	f.StringVar(&ro.flags.Cap, "cap", "auto", "memory cap: auto (cgroup when possible), off, or require")
	f.StringVar(&ro.flags.CapOverhead, "cap-overhead", bytesize.Format(profiler.DefaultCapOverhead), "added to the memory setting to make the cgroup limit: room for code, runtime and page cache (0: none)")
	f.StringVar(&ro.flags.IOCapacity, "io-capacity", "", "the node's disk bandwidth, bytes/s, e.g. 200MB or 1.5GiB (default: measured before the first run)")
	f.StringVar(&ro.flags.DiskLimit, "disk-limit", "", "throttle each run's reads and writes on the --spill-dir disk to this many bytes/s each way, e.g. 100MB (default: no limit)")
	f.BoolVar(&ro.ShowOutput, "show-output", false, "copy the command's output to stderr")
	_ = runCmd.RegisterFlagCompletionFunc("cap", cobra.FixedCompletions([]string{"auto", "off", "require"}, cobra.ShellCompDirectiveNoFileComp))

	so := &profileShowOptions{g: g}
	showCmd := &cobra.Command{
		Use:   "show JOB",
		Short: "Print the sweep table of a profiled job",
		Long: `Print a profiled job's sweep: per task, memory and slot setting, the number
of runs and their outcomes, and the median and spread ((max-min)/median) of
wall time, CPU time, peak RSS, I/O and spilled bytes over the successful
repetitions. Then the job profile of Polo, PhD thesis, UPC 2014 (Table 4.2): the setting with
the least wall time per task (wall time / slots), and per phase the share
of the node's CPU, disk I/O and memory one task used in it: CPU seconds /
(wall time x CPUs x slots), so 4 tasks keeping the node busy are 25% each;
storage bytes / (wall time x slots) over the node's I/O capacity, recorded
by profile run (measured or --io-capacity); mean RSS / slots over the
node's memory. profile/FORMAT.md defines each.

With -o json: {"version":1,"job":...,"runs":[...],"settings":[...],"profiles":[...]}.
` + exitStatusHelp,
		Example: "  wlprof profile show sort\n  wlprof profile show --job sort -o json",
		Args:    jobArg(&so.Job),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runProfileShow(cmd.Context(), so) },
	}
	showCmd.Flags().StringVar(&so.Job, "job", "", "job name (or give it as the argument)")
	showCmd.Flags().StringVar(&so.Task, "task", "", "only this task kind")
	completeJob(showCmd, g, dataset.ProfRunsTable.Name)
	cmd.AddCommand(runCmd, showCmd)
	return group(cmd)
}

func runProfileRun(ctx context.Context, o *profileRunOptions) error {
	po := o.opts
	if po.Job == "" {
		return usagef("--job is required")
	}
	if err := o.flags.Apply(&po); err != nil {
		return usageError{err}
	}
	if o.ShowOutput {
		po.Output = o.g.io.Err
	}
	po.Warn = func(s string) { fmt.Fprintf(o.g.io.Err, "warning: %s\n", s) }
	ds, err := dataset.OpenOrCreate(o.g.Dataset)
	if err != nil {
		return err
	}
	total, n := max(len(po.Mems), 1)*len(po.Slots)*po.Repeat, 0
	po.OnRun = func(r *profiler.Run) error {
		n++
		rec := &r.Record
		o.g.progressf("run %d/%d  mem %s  slots %d  rep %d: %.2f s, %s\n", n, total,
			profiler.MemText(rec.MemoryBytes), rec.Slots, rec.Repetition, rec.RuntimeS, rec.Outcome)
		return nil
	}
	made, samples, err := profiler.SweepInto(ctx, ds, o.Argv, po)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("interrupted: the %d run(s) finished before are kept in %s", len(made), o.g.Dataset)
		}
		if len(made) > 0 {
			return fmt.Errorf("%w (the %d run(s) finished before are kept)", err, len(made))
		}
		return err
	}
	rep := profiler.NewReport(po.Job, made, samples)
	if err := printDoc(o.g, rep, rep.WriteCSV, rep.WriteText); err != nil {
		return err
	}
	// A setting without a successful run has no measurement: the sweep
	// failed there, as hyperfine fails unless told to ignore failures.
	var failed []error
	for _, st := range rep.Settings {
		if st.OK == 0 {
			failed = append(failed, fmt.Errorf("%s: no successful run of %d (%s)", profiler.SettingText(st), st.Runs, profiler.OutcomesText(st.Outcomes)))
		}
	}
	if len(made) > 0 && made[0].InputBytes == 0 {
		fmt.Fprintf(o.g.io.Err, "note: no input size recorded: wlprof elasticity models only runs that have one; "+
			"give the task's input with --input PATH (and {input} in the command) or its size with --input-bytes SIZE\n")
	}
	if len(failed) > 0 {
		return fmt.Errorf("%w; the runs are kept in %s (see the table's notes and outcomes)", errors.Join(failed...), o.g.Dataset)
	}
	return nil
}

func runProfileShow(ctx context.Context, o *profileShowOptions) error {
	if o.Job == "" {
		return usagef("the job is required: wlprof profile show JOB")
	}
	ds, err := dataset.Open(o.g.Dataset)
	if err != nil {
		return err
	}
	runs, samples, err := profiler.LoadJob(ctx, ds, o.Job, o.Task)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return profiler.NoRunsError(ctx, ds, o.Job, o.Task)
	}
	rep := profiler.NewReport(o.Job, runs, samples)
	return printDoc(o.g, rep, rep.WriteCSV, rep.WriteText)
}
