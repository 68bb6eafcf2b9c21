package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/profiler"
)

type profileRunOptions struct {
	g          *globalOptions
	Job, Task  string
	Mem, Slots string
	Repeat     int
	Interval   time.Duration
	Timeout    time.Duration
	Grace      time.Duration
	SpillDir   string
	InputBytes int64
	PhaseRegex string
	Cap        string
	CapExtra   string
	IOCapacity string
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
		Long:  "Run a command under sweeps of memory and concurrency and record profiling runs (seed 002 §4.2.6, seed 004 §2).\n" + exitStatusHelp,
		Example: `  wlprof profile run --job sort --mem 256M,512M,1G --repeat 3 -- sort -S {mem} -T {spill_dir} -o /dev/null in.txt
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
{spill_dir}, {run} and {copy} are replaced; the environment gets
WLPROF_MEM_BYTES, WLPROF_SLOTS, WLPROF_SPILL_DIR, WLPROF_RUN, WLPROF_COPY.
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

A run that exceeds --timeout, or is interrupted, has its whole process tree
stopped (SIGTERM, then SIGKILL after --grace); no process, cgroup or spill
file outlives a run, and every run finished before an interrupt is kept.

Each finished run is committed to the dataset at once; the sweep table of
the runs made is printed at the end (as with 'wlprof profile show').
` + timesHelp + exitStatusHelp,
		Example: `  wlprof profile run --job sort --mem 64M,256M --repeat 3 -- sort -S {mem} -T {spill_dir} -o /dev/null in.txt
  wlprof profile run --job wc --slots 1,2,4 --timeout 10m -- wc -l big.txt
  wlprof profile run --job mr --phase-regex '(map) \d+% reduce 0%|(reduce) [1-9]' -- hadoop jar job.jar in out-{run}`,
		Args: args(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			ro.Argv = a
			return runProfileRun(cmd.Context(), ro)
		},
	}
	f := runCmd.Flags()
	f.StringVar(&ro.Job, "job", "", "job name (required)")
	f.StringVar(&ro.Task, "task", "task", "task kind: map, reduce, ...")
	f.StringVar(&ro.Mem, "mem", "", "memory settings, e.g. 256M,512M,1G (none: one setting, not capped)")
	f.StringVar(&ro.Slots, "slots", "1", "concurrency settings, e.g. 1,2,4: copies run at once")
	f.IntVar(&ro.Repeat, "repeat", 3, "repetitions per setting")
	f.Var(timeflag.NewDuration(&ro.Interval, 100*time.Millisecond), "interval", "sampling interval")
	f.Var(timeflag.NewDuration(&ro.Timeout, 0), "timeout", "stop a run after this long (0: never)")
	f.Var(timeflag.NewDuration(&ro.Grace, 5*time.Second), "grace", "wait between SIGTERM and SIGKILL when stopping a run")
	f.StringVar(&ro.SpillDir, "spill-dir", "", "where per-run spill directories are made (default: the temporary directory)")
	f.Int64Var(&ro.InputBytes, "input-bytes", 0, "input size to record with each run, bytes")
	f.StringVar(&ro.PhaseRegex, "phase-regex", "", "output lines matching this start a phase named by the first group that matched")
	f.StringVar(&ro.Cap, "cap", "auto", "memory cap: auto (cgroup when possible), off, or require")
	f.StringVar(&ro.CapExtra, "cap-overhead", bytesize.Format(profiler.DefaultCapOverhead), "added to the memory setting to make the cgroup limit: room for code, runtime and page cache (0: none)")
	f.StringVar(&ro.IOCapacity, "io-capacity", "", "the node's disk bandwidth, bytes/s, e.g. 200MB or 1.5GiB (default: measured before the first run)")
	f.BoolVar(&ro.ShowOutput, "show-output", false, "copy the command's output to stderr")
	_ = runCmd.RegisterFlagCompletionFunc("cap", cobra.FixedCompletions([]string{"auto", "off", "require"}, cobra.ShellCompDirectiveNoFileComp))

	so := &profileShowOptions{g: g}
	showCmd := &cobra.Command{
		Use:   "show --job NAME",
		Short: "Print the sweep table of a profiled job",
		Long: `Print a profiled job's sweep: per task, memory and slot setting, the number
of runs and their outcomes, and the median and spread ((max-min)/median) of
wall time, CPU time, peak RSS, I/O and spilled bytes over the successful
repetitions. Then the job profile of seed 002 (Table 4.2): the setting with
the least wall time per task (wall time / slots), and per phase the share
of the node's CPU, disk I/O and memory one task used in it: CPU seconds /
(wall time x CPUs x slots), so 4 tasks keeping the node busy are 25% each;
storage bytes / (wall time x slots) over the node's I/O capacity, recorded
by profile run (measured or --io-capacity); mean RSS / slots over the
node's memory. profile/FORMAT.md defines each.

With -o json: {"version":1,"job":...,"runs":[...],"settings":[...],"profiles":[...]}.
` + exitStatusHelp,
		Example: "  wlprof profile show --job sort\n  wlprof profile show --job sort -o json",
		Args:    args(cobra.NoArgs),
		RunE:    func(cmd *cobra.Command, _ []string) error { return runProfileShow(cmd.Context(), so) },
	}
	showCmd.Flags().StringVar(&so.Job, "job", "", "job name (required)")
	showCmd.Flags().StringVar(&so.Task, "task", "", "only this task kind")
	cmd.AddCommand(runCmd, showCmd)
	return group(cmd)
}

func runProfileRun(ctx context.Context, o *profileRunOptions) error {
	if o.Job == "" {
		return usagef("--job is required")
	}
	po := profiler.Options{Job: o.Job, Task: o.Task, Repeat: o.Repeat, Interval: o.Interval, Timeout: o.Timeout,
		Grace: o.Grace, SpillDir: o.SpillDir, InputBytes: o.InputBytes}
	var err error
	if o.Mem != "" {
		if po.Mems, err = profiler.ParseSizes(o.Mem); err != nil {
			return usageError{err}
		}
	}
	if po.Slots, err = profiler.ParseSlots(o.Slots); err != nil {
		return usageError{err}
	}
	if po.Cap, err = profiler.ParseCapMode(o.Cap); err != nil {
		return usageError{err}
	}
	if po.CapOverhead, err = profiler.ParseCapOverhead(o.CapExtra); err != nil {
		return usagef("--cap-overhead: %v", err)
	}
	if o.IOCapacity != "" {
		if po.IOCapacity, err = profiler.ParseRate(o.IOCapacity); err != nil {
			return usagef("--io-capacity: %v", err)
		}
	}
	if o.PhaseRegex != "" {
		if po.PhaseRegex, err = regexp.Compile(o.PhaseRegex); err != nil {
			return usagef("--phase-regex: %v", err)
		}
	}
	if o.Repeat < 1 || o.Interval <= 0 {
		return usagef("--repeat and --interval must be positive")
	}
	if o.ShowOutput {
		po.Output = o.g.io.Err
	}
	po.Warn = func(s string) { fmt.Fprintf(o.g.io.Err, "warning: %s\n", s) }
	ds, err := dataset.OpenOrCreate(o.g.Dataset)
	if err != nil {
		return err
	}
	total := max(len(po.Mems), 1) * len(po.Slots) * o.Repeat
	var made []dataset.ProfRun
	var samples []dataset.ProfSample
	po.OnRun = func(r *profiler.Run) error {
		if err := profiler.Commit(ds, r); err != nil {
			return err
		}
		made = append(made, r.Record)
		samples = append(samples, r.Samples...)
		rec := &r.Record
		o.g.progressf("run %d/%d  mem %s  slots %d  rep %d: %.2f s, %s\n", len(made), total,
			memText(rec.MemoryBytes), rec.Slots, rec.Repetition, rec.RuntimeS, rec.Outcome)
		return nil
	}
	_, err = profiler.Sweep(ctx, o.Argv, po)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("interrupted: the %d run(s) finished before are kept in %s", len(made), o.g.Dataset)
		}
		if len(made) > 0 {
			return fmt.Errorf("%w (the %d run(s) finished before are kept)", err, len(made))
		}
		return err
	}
	return printProfile(o.g, o.Job, made, samples)
}

func runProfileShow(ctx context.Context, o *profileShowOptions) error {
	if o.Job == "" {
		return usagef("--job is required")
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
		return fmt.Errorf("no profiling runs of job %q in %s", o.Job, o.g.Dataset)
	}
	return printProfile(o.g, o.Job, runs, samples)
}

// profRunJSON is a run in `profile show -o json`; fields are only added.
type profRunJSON struct {
	Job               string  `json:"job"`
	Task              string  `json:"task"`
	Framework         string  `json:"framework"`
	RunID             string  `json:"run_id"`
	MemBytes          int64   `json:"mem_bytes"`
	Slots             int32   `json:"slots"`
	Repetition        int32   `json:"repetition"`
	InputBytes        int64   `json:"input_bytes"`
	WallS             float64 `json:"wall_s"`
	CPUS              float64 `json:"cpu_s"`
	PeakRSSBytes      int64   `json:"peak_rss_bytes"`
	ReadBytes         int64   `json:"read_bytes"`
	WriteBytes        int64   `json:"write_bytes"`
	ReadSyscallBytes  int64   `json:"read_syscall_bytes"`
	WriteSyscallBytes int64   `json:"write_syscall_bytes"`
	SpilledBytes      int64   `json:"spilled_bytes"`
	SpillPeakBytes    int64   `json:"spill_peak_bytes"`
	PeakThreads       int32   `json:"peak_threads"`
	ExitCode          int32   `json:"exit_code"`
	Outcome           string  `json:"outcome"`
	Capped            bool    `json:"capped"`
	OOMKills          int32   `json:"oom_kills"`
	CapNote           string  `json:"cap_note"`
	CPUWaitS          float64 `json:"cpu_wait_s"` // runnable but waiting for a CPU
}

type profileReport struct {
	Version  int                 `json:"version"`
	Job      string              `json:"job"`
	Runs     []profRunJSON       `json:"runs"`
	Settings []profiler.Setting  `json:"settings"`
	Profiles []*profiler.Profile `json:"profiles"`
}

func printProfile(g *globalOptions, job string, runs []dataset.ProfRun, samples []dataset.ProfSample) error {
	profiler.SortRuns(runs)
	rep := profileReport{Version: 1, Job: job, Runs: []profRunJSON{}, Settings: profiler.Summarize(runs), Profiles: []*profiler.Profile{}}
	var tasks []string
	for _, r := range runs {
		rep.Runs = append(rep.Runs, profRunJSON{Job: r.Job, Task: r.Task, Framework: r.Framework, RunID: r.RunID,
			MemBytes: r.MemoryBytes, Slots: r.Slots, Repetition: r.Repetition, InputBytes: r.InputBytes,
			WallS: r.RuntimeS, CPUS: r.CPUS, PeakRSSBytes: r.PeakRSSBytes, ReadBytes: r.ReadBytes, WriteBytes: r.WriteBytes,
			ReadSyscallBytes: r.ReadSyscallBytes, WriteSyscallBytes: r.WriteSyscallBytes,
			SpilledBytes: r.SpilledBytes, SpillPeakBytes: r.SpillPeakBytes, PeakThreads: r.PeakThreads,
			ExitCode: r.ExitCode, Outcome: r.Outcome, Capped: r.Capped, OOMKills: r.OOMKills, CapNote: r.CapNote,
			CPUWaitS: r.CPUWaitS})
		if len(tasks) == 0 || tasks[len(tasks)-1] != r.Task {
			tasks = append(tasks, r.Task)
		}
	}
	for _, t := range tasks {
		if p := profiler.BuildProfile(t, runs, samples); p != nil {
			rep.Profiles = append(rep.Profiles, p)
		}
	}
	switch g.Output {
	case "json":
		return writeJSON(g.io.Out, rep)
	case "csv":
		return writeProfileCSV(g.io.Out, rep.Runs)
	}
	return writeProfileText(g.io.Out, rep)
}

func writeProfileCSV(w io.Writer, runs []profRunJSON) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"job", "task", "run_id", "mem_bytes", "slots", "repetition", "wall_s", "cpu_s", "peak_rss_bytes",
		"read_bytes", "write_bytes", "spilled_bytes", "exit_code", "outcome", "capped"})
	for _, r := range runs {
		cw.Write([]string{r.Job, r.Task, r.RunID, fmt.Sprint(r.MemBytes), fmt.Sprint(r.Slots), fmt.Sprint(r.Repetition),
			strconv.FormatFloat(r.WallS, 'f', 3, 64), strconv.FormatFloat(r.CPUS, 'f', 3, 64), fmt.Sprint(r.PeakRSSBytes),
			fmt.Sprint(r.ReadBytes), fmt.Sprint(r.WriteBytes), fmt.Sprint(r.SpilledBytes), fmt.Sprint(r.ExitCode),
			r.Outcome, fmt.Sprint(r.Capped)})
	}
	cw.Flush()
	return cw.Error()
}

func writeProfileText(w io.Writer, rep profileReport) error {
	fmt.Fprintf(w, "job %s: %d run(s) in %d setting(s); medians over successful repetitions, spread = (max-min)/median\n",
		rep.Job, len(rep.Runs), len(rep.Settings))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tMEM\tSLOTS\tRUNS\tOK\tWALL_S\tSPREAD\tCPU_S\tPEAK_RSS\tREAD\tWRITE\tSPILLED\tCAPPED\tOUTCOMES")
	for _, s := range rep.Settings {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%.3f\t%.1f%%\t%.3f\t%s\t%s\t%s\t%s\t%v\t%s\n", s.Task, memText(s.MemBytes), s.Slots,
			s.Runs, s.OK, s.WallS.Median, 100*s.WallS.Spread, s.CPUS.Median, bytesize.Human(s.PeakRSSBytes.Median),
			bytesize.Human(s.ReadBytes.Median), bytesize.Human(s.WriteBytes.Median), bytesize.Human(s.SpilledBytes.Median), s.Capped, outcomesText(s.Outcomes))
	}
	tw.Flush()
	for _, s := range rep.Settings {
		for _, n := range s.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	for _, p := range rep.Profiles {
		fmt.Fprintf(w, "\nprofile of %s (seed 002 Table 4.2): fastest at %d slot(s), mem %s: %.3f s per task (run %s)\n",
			p.Task, p.Slots, memText(p.MemBytes), p.TaskS, p.Run)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PHASE\tSTART_S\tEND_S\tCPU/TASK\tIO/TASK\tIO_BYTES/S\tMEM/TASK")
		for _, ph := range p.Phases {
			fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.1f%%\t%.1f%%\t%s\t%.2f%%\n", ph.Phase, ph.StartS, ph.EndS, 100*ph.CPU, 100*ph.IO,
				bytesize.Human(ph.IOBytesPerS), 100*ph.Memory)
		}
		tw.Flush()
		fmt.Fprintf(w, "shares are of the node; its I/O capacity %s/s (%s)\n", bytesize.Human(p.IOCapacityBytesPerS), p.IOCapacitySource)
		for _, warn := range p.Warnings {
			fmt.Fprintf(w, "note: %s\n", warn)
		}
	}
	return nil
}

func memText(b int64) string {
	if b == 0 {
		return "-"
	}
	return bytesize.Format(b)
}

func outcomesText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", k, m[k])
	}
	return strings.Join(parts, ",")
}
