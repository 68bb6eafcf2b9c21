package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/constraints"
)

func newConstraintsCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, constraints.Contract, &cobra.Command{
		Use:   "constraints",
		Short: "Placement constraint profile, demand/supply per attribute (CRV) and M/G/1 waits per constraint",
		Long: `The constraint analysis of Thinakaran et al., Phoenix, on the Google traces' task
events, task constraints and machine attributes (ingest
google2019-instance-events and google2019-machine-attributes, or
google2011-task-events, google2011-task-constraints and
google2011-machine-attributes):

  profile      constraints per attribute and relation (Phoenix Table II, on
               the trace's obfuscated attribute names);
  hard/soft    soft when a task later dropped the constraint or ran on a
               machine that did not satisfy it;
  CRV          per constrained attribute and per constraint, demand (task
               episodes carrying it at some time in the window, a dropped
               constraint up to the event that dropped it) over supply
               (machines offering or satisfying it) in every --window;
  queue        per constraint an M/G/1 whose server is the satisfying
               machines (their time-weighted mean over the trace, so the
               wait does not depend on --window) taken as one server of
               their combined capacity;
               Pollaczek–Khinchine wait against the trace's SUBMIT→SCHEDULE
               waits; "unstable" when ρ ≥ 1;
  placement    the 2011 trace's different-machine flag (Phoenix's third
               class of constraint): jobs and tasks carrying it, hard or
               soft (dropped later, or scheduled onto a machine running
               another task of its job), and its observed waits.

The rules are in the document ("rules") and in constraints/doc.go.
` + timesHelp + exitStatusHelp,
		Example: `  wlprof ingest auto task_events/ task_constraints/ machine_attributes/ -d ds
  wlprof constraints -d ds
  wlprof constraints -d ds --window 6h -o json`,
	})
	return cmd
}
