package main

import (
	"github.com/spf13/cobra"
)

func newCompletionCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print a completion script for the named shell. Load it in the current
shell, or install it where your shell looks for completions.
` + exitStatusHelp,
		Example: `  source <(wlprof completion bash)
  wlprof completion zsh > "${fpath[1]}/_wlprof"
  wlprof completion fish > ~/.config/fish/completions/wlprof.fish`,
		ValidArgs:   []string{"bash", "zsh", "fish", "powershell"},
		Args:        args(cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs)),
		Annotations: map[string]string{annotationHide: "dataset,output"},
		RunE: func(cmd *cobra.Command, a []string) error {
			root := cmd.Root()
			switch a[0] {
			case "bash":
				return root.GenBashCompletionV2(g.io.Out, true)
			case "zsh":
				return root.GenZshCompletion(g.io.Out)
			case "fish":
				return root.GenFishCompletion(g.io.Out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(g.io.Out)
			}
		},
	}
}
