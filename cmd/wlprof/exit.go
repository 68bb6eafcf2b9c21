package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// Exit codes, as DESIGN.md fixes them.
const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitRejected = 3
	// exitInterrupted is the shell's status of a command ended by SIGINT
	// (128 + 2): scripts tell an interrupted run from a failed one.
	exitInterrupted = 130
)

// timesHelp says how the commands that take instants or durations read
// them (one parser for all: internal/timeflag).
const timesHelp = `
TIMES
  Instants are RFC 3339 (2024-01-14T12:00:00Z) or epoch time with a unit
  (1700000000s, 1700000000000ms); durations are Go durations (90s, 1h30m)
  whose terms may also be days and weeks (1d, 2w, 1d12h).
`

// exitStatusHelp ends every command's long help.
const exitStatusHelp = `
EXIT STATUS
  0  success
  1  error (nothing was changed when the command writes)
  2  usage error (unknown command or flag, bad flag value, wrong arguments)
  3  finished, but some input records were rejected (count on stderr)`

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
