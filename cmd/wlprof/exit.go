package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes: the command-line contract, as 'wlprof help exit-status' states it.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitRejected = 3
	// exitInterrupted is the shell's status of a command ended by SIGINT
	// (128 + 2): scripts tell an interrupted run from a failed one.
	exitInterrupted = 130
)

// timesTopic says how the commands that take instants or durations read
// them (one parser for all: internal/timeflag): the help topic
// 'wlprof help times', which those commands' help points to (timesHelp).
const timesTopic = `Instants are RFC 3339 (2024-01-14T12:00:00Z) or epoch time with a unit
(1700000000s, 1700000000000ms); durations are Go durations (90s, 1h30m)
whose terms may also be days and weeks (1d, 2w, 1d12h).`

// exitStatusTopic is the help topic 'wlprof help exit-status'; each
// command's help ends with the one line of it that applies (exitStatusHelp,
// or exitStatusRejectsHelp for the commands that read raw input).
const exitStatusTopic = `Every command exits with
  0    success
  1    error: the tool failed, or there was nothing to work on (a
       command that writes changed nothing)
  2    usage error (unknown command or flag, bad flag value, wrong arguments)
  3    finished, but some input records were rejected (count on stderr;
       wlprof rejects lists them): ingest and run only
  130  interrupted (Ctrl-C): what was under way is not written, what
       finished before is kept (profiling runs, for one)`

// timesHelp points a command's help to the times topic.
const timesHelp = `
Instants and durations: see 'wlprof help times'.`

// exitStatusHelp ends the long help of every command that reads no raw
// input.
const exitStatusHelp = `
Exit status: 0 done, 1 error, 2 usage error, 130 interrupted ('wlprof help exit-status').`

// exitStatusRejectsHelp ends the long help of the commands that read raw
// input records, which may reject some.
const exitStatusRejectsHelp = `
Exit status: 0 done, 1 error, 2 usage error, 3 done but some input records
were rejected, 130 interrupted ('wlprof help exit-status').`

// helpTopics are the 'wlprof help TOPIC' pages that commands' help points
// to instead of repeating them.
func helpTopics() []*cobra.Command {
	return []*cobra.Command{
		{Use: "exit-status", Short: "What each exit status means", Long: exitStatusTopic,
			Annotations: map[string]string{annotationHide: "dataset,output,quiet"}},
		{Use: "times", Short: "How instants and durations are written", Long: timesTopic,
			Annotations: map[string]string{annotationHide: "dataset,output,quiet"}},
	}
}

// usageError marks errors in how the command was called (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// rejectedError reports a command that finished but rejected input (exit 3).
type rejectedError struct{ n int64 }

func (e rejectedError) Error() string {
	return fmt.Sprintf("%d input record(s) rejected; wlprof rejects lists them", e.n)
}

// exitCode maps an error returned by a command to the process exit status.
func exitCode(err error) int {
	var ue usageError
	var re rejectedError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &re):
		return exitRejected
	case errors.As(err, &ue):
		return exitUsage
	case isCobraUsage(err):
		return exitUsage
	}
	return exitError
}

// isCobraUsage recognises cobra's own usage errors, which it returns as
// plain errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "invalid argument",
		"flag needs an argument", "required flag", "accepts ", "requires at least", "requires at most", "bad flag syntax"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// usageHint is what a usage error adds for the mistakes people make:
// a profiled command's own flags without the -- before it, and --output
// DIR on a command whose directory flag is --out.
func usageHint(cmd *cobra.Command, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "unknown shorthand flag") || strings.HasPrefix(msg, "unknown flag") {
		if cmd.Annotations[annotationDashDash] != "" {
			return fmt.Sprintf("\n(a flag of the command to run? Put -- before it: %s)", cmd.Annotations[annotationDashDash])
		}
	}
	if strings.HasPrefix(msg, "--output ") && cmd.Flags().Lookup("out") != nil {
		return "\n(-o/--output is the output format; the output directory is --out DIR)"
	}
	return ""
}

// annotationOutputs marks a command that writes one -o format only (a
// request body another system takes): any other -o is a usage error.
const annotationOutputs = "wlprof/outputs"

// annotationHide names the global flags a command's help leaves out
// because they mean nothing to it (-d on a command that reads no dataset),
// comma separated.
const annotationHide = "wlprof/hide-flags"

// hideFlagsInHelp wraps the help of every command: the global flags its
// annotationHide names are hidden while its help is printed. Persistent
// flags are shared by all commands, so they are hidden only for the
// moment.
func hideFlagsInHelp(root *cobra.Command) {
	def := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, a []string) {
		var hidden []*pflag.Flag
		for _, name := range strings.Split(c.Annotations[annotationHide], ",") {
			if f := c.Root().PersistentFlags().Lookup(name); name != "" && f != nil && !f.Hidden {
				f.Hidden = true
				hidden = append(hidden, f)
			}
		}
		def(c, a)
		for _, f := range hidden {
			f.Hidden = false
		}
	})
}

// annotationDashDash marks a command that runs another command given after
// --, with its usage line as the value.
const annotationDashDash = "wlprof/dash-dash"

// needArgs is a positional-argument check that names what is missing in
// the command's own words (names[i] is the i-th argument; the last may
// repeat) instead of counting arguments.
func needArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if len(a) >= len(names) {
			return nil
		}
		missing := names[len(a):]
		msg := fmt.Sprintf("missing %s", strings.Join(missing, " and "))
		if len(a) > 0 {
			msg += fmt.Sprintf(" after %s", strings.Join(a, " "))
		}
		return usageError{fmt.Errorf("%s (usage: %s)", msg, cmd.UseLine())}
	}
}

// jobArg is the argument check of a command that needs a job: the job
// may be given as its one argument or as --job (not both, unless equal),
// and ends up in *job.
func jobArg(job *string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		switch {
		case len(a) > 1:
			return usagef("one job at a time: got %d arguments (%s)", len(a), strings.Join(a, " "))
		case len(a) == 1 && *job != "" && *job != a[0]:
			return usagef("job %q and --job %q: give the job once", a[0], *job)
		case len(a) == 1:
			*job = a[0]
		}
		return nil
	}
}

// args wraps a cobra argument validator so its failures exit with 2.
func args(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := v(cmd, a); err != nil {
			return usageError{err}
		}
		return nil
	}
}

// group makes cmd a command that only holds subcommands: alone (or with
// --help) it prints its help; with an unknown subcommand it is a usage
// error that names the closest subcommands, as the root does, instead of
// printing help with status 0 or complaining about the flags meant for the
// subcommand the user misspelt.
func group(cmd *cobra.Command) *cobra.Command {
	cmd.Args = cobra.ArbitraryArgs
	cmd.DisableFlagParsing = true
	cmd.SuggestionsMinimumDistance = 2
	cmd.RunE = func(c *cobra.Command, a []string) error {
		name := ""
		for i := 0; i < len(a) && name == ""; i++ {
			switch x := a[i]; {
			case x == "-h" || x == "--help":
				return c.Help()
			case x == "-d" || x == "--dataset" || x == "-o" || x == "--output":
				i++ // the flag's value
			case !strings.HasPrefix(x, "-"):
				name = x
			}
		}
		if name == "" {
			return c.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
		if s := c.SuggestionsFor(name); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
		}
		return usageError{errors.New(msg)}
	}
	return cmd
}
