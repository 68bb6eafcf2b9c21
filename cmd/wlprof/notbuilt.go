package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// notBuilt is the RunE of a stage whose package holds only its doc.go yet:
// the command exists so the pipeline is visible in --help, and says which
// issue builds it.
func notBuilt(issue int) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		return fmt.Errorf("%s: not built yet (tracked in issue %d)", cmd.CommandPath(), issue)
	}
}
