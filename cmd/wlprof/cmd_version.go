package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

type versionInfo struct {
	Version       int    `json:"version"`
	WlprofVersion string `json:"wlprof"`
	Go            string `json:"go"`
	DatasetSchema int    `json:"dataset_schema"`
}

func newVersionCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:         "version",
		Short:       "Print the wlprof version and the dataset schema it reads",
		Long:        "Print the wlprof version, the Go toolchain it was built with and the dataset schema version it reads and writes.\n" + exitStatusHelp,
		Example:     "  wlprof version\n  wlprof version -o json",
		Args:        args(cobra.NoArgs),
		Annotations: map[string]string{annotationHide: "dataset"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := versionInfo{Version: 1, WlprofVersion: version, Go: runtime.Version(), DatasetSchema: dataset.SchemaVersion}
			return printDoc(g, v, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "wlprof,go,dataset_schema\n%s,%s,%d\n", v.WlprofVersion, v.Go, v.DatasetSchema)
				return err
			}, func(w io.Writer) error {
				_, err := fmt.Fprintf(w, "wlprof %s (%s, dataset schema %d)\n", v.WlprofVersion, v.Go, v.DatasetSchema)
				return err
			})
		},
	}
}
