package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/atomicfile"
	"github.com/wlprof/wlprof/internal/stage"
	"github.com/wlprof/wlprof/kube"
	"github.com/wlprof/wlprof/pipeline"
	"github.com/wlprof/wlprof/skyline"
)

type exportKubernetesOptions struct {
	g        *globalOptions
	fit      skyline.Options
	export   kube.Options
	profiles string
	out      string
	command  string
}

func newExportKubernetesCmd(g *globalOptions) *cobra.Command {
	o := &exportKubernetesOptions{g: g, fit: skyline.DefaultOptions(), export: kube.DefaultOptions()}
	cmd := &cobra.Command{
		Use:   "kubernetes",
		Short: "Print strategic-merge patches setting Kubernetes workloads' requests, limits and parallelism",
		Long: `Print one patch per Kubernetes object (YAML documents separated by ---, in
the form kubectl patch --type strategic and kustomize's patches take): each
container's resources.requests and limits from its usage, a CronJob's
job-template parallelism from its skyline, each number with its evidence in
the annotation wlprof/evidence (JSON: field, value, source, statistic,
samples or runs, window, model, why capped) and the command in
wlprof/command.

Usage tenants name workloads NAMESPACE/KIND/NAME[/CONTAINER] (KIND
Deployment, StatefulSet, DaemonSet or CronJob), as wlprof ingest prometheus
--tenant-key workload writes them (with the container); a usage row is the
workload's pods on the node its server names, as fractions of that node
(rows of 0 CPU and 0 memory, where none ran, are not samples). Recurring
jobs (the runs, skylines, instances and profruns tables) are CronJobs:
NAMESPACE/NAME, or a bare NAME in --namespace when the dataset came from a
Kubernetes ingest (format prometheus or prometheus-json); a Job of its own
(NAMESPACE/Job/NAME) is skipped: a finished Job cannot be patched. A
CronJob's pods known one by one (the instances table) give its numbers per
pod: the percentiles of the pods' peak CPU and peak memory, set on the
container their task names. Where the data names no container, the
container set is the one named after the workload, or --container's.

  requests.cpu     the --cpu-percentile of the CPU samples, in millicores
  limits.cpu       none (a CPU limit throttles even on an idle node), or
                   the peak sample with --cpu-limit peak
  requests.memory  the --memory-percentile of the memory samples, in Mi
  limits.memory    the peak sample × (1 + --memory-margin), in Mi
  memory (model)   where the job has an elasticity model (Iorgulescu et
                   al., ATC'17 §2): request = limit = the least memory
                   within --max-slowdown of its ideal runtime
  parallelism      the skyline's peak reservation (Jyothi et al., OSDI'16
                   §5), fitted as wlprof skyline does (its flags apply)

No number exceeds the largest node's allocatable (the smallest node's for a
DaemonSet), and a pod's requests summed over its containers fit a node
(every node, for a DaemonSet); a capped number says so. Node shapes are the allocatable of a
Kubernetes ingest's nodes (machine_events), else --node-cpu and
--node-memory. Memory is written in Mi and Gi: wlprof's sizes are binary
(--node-memory 16G is 16 GiB), whereas Kubernetes reads 16G as 16·10⁹
bytes. Tenants and jobs that are not workloads are listed on stderr with
the reason. Apply one object's patch with kubectl patch KIND NAME -n
NAMESPACE --type strategic --patch-file FILE (--out DIR writes one file per
object and prints their names), or list the files under a kustomization's
patches (kustomize moves a patched container before the pod's others;
kubectl patch keeps its place). A patch only sets: a CPU limit the object
has stays under --cpu-limit none, and the API server refuses the patch where
that limit is below the new request.
` + exitStatusHelp,
		Example: `  wlprof export kubernetes -d ds --node-cpu 16 --node-memory 64G > patches.yaml
  wlprof export kubernetes -d ds --cpu-percentile 90 --memory-percentile 95 --cpu-limit peak
  wlprof export kubernetes -d ds --profiles report/ --max-slowdown 0.2
  wlprof export kubernetes -d ds --container shop/Deployment/web=nginx --out patches/
  kubectl patch deployment web -n shop --type strategic --patch-file patches/shop_deployment_web.yaml`,
		Args:        args(cobra.NoArgs),
		Annotations: map[string]string{annotationOutputs: "text"},
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.command = commandLine(cmd)
			return runExportKubernetes(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	stage.AddOnly(f, o.fit.AddFlags, skyline.FitFlags...)
	o.export.AddFlags(f)
	f.StringVar(&o.out, "out", "", "write each object's patch to DIR/NAMESPACE_KIND_NAME.yaml (what kubectl patch --patch-file takes) instead of stdout")
	f.StringVar(&o.profiles, "profiles", "", "take skylines and elasticity models from these profile files (a report directory, or its profiles/) instead of fitting them")
	_ = cmd.RegisterFlagCompletionFunc("cpu-limit", cobra.FixedCompletions([]string{kube.CPULimitNone, kube.CPULimitPeak}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runExportKubernetes(ctx context.Context, o *exportKubernetesOptions) error {
	g := o.g
	opts := o.fit
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	o.export.Command = o.command
	if err := o.export.Validate(); err != nil {
		return usageError{err}
	}
	ds, err := dataset.Open(g.Dataset)
	if err != nil {
		return err
	}
	res, err := pipeline.Kubernetes(ctx, ds, pipeline.KubernetesOptions{Export: o.export, Skyline: opts, Profiles: o.profiles, Around: tuneStage})
	if res != nil {
		for _, s := range res.Skipped {
			fmt.Fprintf(g.io.Err, "skipped %s: %s\n", s.ID, s.Reason)
		}
	}
	if errors.Is(err, kube.ErrNothing) {
		return fmt.Errorf("%w in %s: name usage tenants NAMESPACE/KIND/NAME[/CONTAINER] and jobs NAMESPACE/NAME", err, g.Dataset)
	}
	if err != nil {
		return err
	}
	if o.out == "" {
		return res.WriteYAML(g.io.Out)
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	for _, p := range res.Patches {
		doc, err := res.Document(p)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(o.out, kube.FileName(p)), doc, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(g.io.Out, filepath.Join(o.out, kube.FileName(p)))
	}
	return nil
}

// commandLine is the command as typed, flags in name order: what the
// patches' wlprof/command annotation records.
func commandLine(cmd *cobra.Command) string {
	parts := strings.Fields(cmd.CommandPath())
	seen := map[string]bool{}
	add := func(f *pflag.Flag) {
		if seen[f.Name] || f.Name == "output" || f.Name == "quiet" {
			return
		}
		seen[f.Name] = true
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				parts = append(parts, "--"+f.Name, shellQuote(v))
			}
			return
		}
		parts = append(parts, "--"+f.Name, shellQuote(f.Value.String()))
	}
	cmd.InheritedFlags().Visit(add)
	cmd.Flags().Visit(add)
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
