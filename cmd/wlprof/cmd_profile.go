package main

import "github.com/spf13/cobra"

func newProfileCmd(g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Profile a job in a sandbox under memory or slot sweeps",
		Long:  "Run a command under sweeps of memory and concurrency and record profiling runs (seed 002 §4.2.6, seed 004 §2).\n" + exitStatusHelp,
		Example: `  wlprof profile run --job sort --mem 256M,512M,1G --repeat 3 -- sort -S {mem} -T {spill_dir} in.txt
  wlprof profile show --job sort`,
		Args: args(cobra.NoArgs),
	}
	runCmd := &cobra.Command{
		Use:     "run [flags] -- CMD ARGS...",
		Short:   "Run a command once per setting and repetition and record each run",
		Long:    "Run CMD once per memory/slot setting and repetition, sample its process tree and record profiling runs in the dataset.\n" + exitStatusHelp,
		Example: "  wlprof profile run --job sort --mem 256M,1G --repeat 3 -- sort -S {mem} -T {spill_dir} in.txt",
		Args:    args(cobra.MinimumNArgs(1)),
		RunE:    notBuilt(6),
	}
	f := runCmd.Flags()
	f.String("job", "", "job name")
	f.String("task", "task", "task kind: map, reduce, ...")
	f.String("mem", "", "memory settings, e.g. 256M,512M,1G")
	f.String("slots", "1", "concurrency settings, e.g. 1,2,4")
	f.Int("repeat", 3, "repetitions per setting")
	showCmd := &cobra.Command{
		Use:     "show",
		Short:   "Print the sweep table of a profiled job",
		Long:    "Print a profiled job's runs with medians and spread over repetitions.\n" + exitStatusHelp,
		Example: "  wlprof profile show --job sort\n  wlprof profile show --job sort -o json",
		Args:    args(cobra.NoArgs),
		RunE:    notBuilt(6),
	}
	showCmd.Flags().String("job", "", "job name")
	cmd.AddCommand(runCmd, showCmd)
	return cmd
}
