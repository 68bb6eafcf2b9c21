package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/profile"
)

func newSchemaCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "schema job|tenants",
		Short: "Print the JSON Schema of a profile file",
		Long: `Print the JSON Schema (draft 2020-12) of the files wlprof writes for
schedulers: job for profiles/<job>.json, tenants for tenants.json. Each
file names its schema's $id in its "$schema" field; a report ships both
schemas in its schema/ folder. profile/FORMAT.md documents the fields.
` + exitStatusHelp,
		Example:     "  wlprof schema job > job.schema.json\n  wlprof schema tenants",
		Args:        args(cobra.ExactArgs(1)),
		Annotations: map[string]string{annotationHide: "dataset,output"},
		ValidArgs:   []string{"job", "tenants"},
		RunE: func(cmd *cobra.Command, a []string) error {
			var b []byte
			switch a[0] {
			case "job":
				b = profile.JobSchema
			case "tenants":
				b = profile.TenantsSchema
			default:
				return usagef("schema %q: want job or tenants", a[0])
			}
			_, err := g.io.Out.Write(b)
			return err
		},
	}
}
