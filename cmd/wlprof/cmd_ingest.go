package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/timeflag"
)

type ingestOptions struct {
	g          *globalOptions
	Format     string
	Paths      []string
	MaxRejects int64
	AllowDup   bool
	CPUUnit    string
	TZ         string
	Tenant     string
	TenantKey  string
	TraceStart timeflag.Instant
	VMTables   []string
	CollEvents []string
	Prom       promFlags
}

// promFlags are format prometheus' server, range and queries.
type promFlags struct {
	URL        string
	Start, End timeflag.Instant
	Step       time.Duration
	Queries    []string
	Save       string
}

func newIngestCmd(g *globalOptions) *cobra.Command {
	o := &ingestOptions{g: g}
	var formats strings.Builder
	for _, f := range ingest.Formats() {
		fmt.Fprintf(&formats, "  %-18s %s\n", f.Name, f.Description)
	}
	cmd := &cobra.Command{
		Use:   "ingest FORMAT PATH...",
		Short: "Add raw traces and logs to the dataset",
		Long: `Read input files in FORMAT (or "auto" to detect each file's format) and add
their records to the dataset. gzip and zstd inputs are read transparently;
directories stand for the files below them.

Every input record is either ingested or kept in the rejects table with its
file, line and reason. The manifest, written last, is the commit point: an
ingest that fails or is interrupted leaves the dataset as it was.

FORMATS
` + formats.String() + timesHelp + exitStatusRejectsHelp,
		Example: `  wlprof ingest csv usage.csv -d ds
  wlprof ingest csv --cpu-unit percent --max-rejects 0 usage.csv.gz -d ds
  wlprof ingest auto traces/ -d ds -o json
  wlprof ingest series-csv --tz America/New_York nab_ec2_cpu_utilization_53ea38.csv -d ds
  wlprof ingest series-csv --cpu-unit raw --tenant taxi nab_nyc_taxi.csv -d ds
  wlprof ingest google2019-usage instance_usage-000000000000.json.gz -d ds
  wlprof ingest google2019-usage --tenant-key user --collection-events collection_events-000000000000.json.gz instance_usage-000000000000.json.gz -d ds
  wlprof ingest azure-cpu --vmtable vmtable.csv.gz vm_cpu_readings-file-1-of-195.csv.gz -d ds
  wlprof ingest alibaba2018-machine --tenant-key machine machine_usage.csv -d ds
  wlprof ingest yarn-rm --tz Europe/Berlin yarn-resourcemanager.log -d ds
  wlprof ingest spark-eventlog spark-history/ -d ds
  wlprof ingest prometheus --url http://127.0.0.1:9090 --start 2026-03-01T00:00:00Z --end 2026-04-01T00:00:00Z --step 1m --save march.jsonl -d ds
  wlprof ingest prometheus-json --tenant-key workload march.jsonl -d ds`,
		Args: func(cmd *cobra.Command, a []string) error {
			if len(a) > 0 && a[0] == "prometheus" {
				return nil // the server is --url
			}
			return needArgs("FORMAT", "PATH")(cmd, a)
		},
		ValidArgsFunction: func(_ *cobra.Command, a []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(a) == 0 {
				return append(ingest.FormatNames(), "auto"), cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveDefault
		},
		RunE: func(cmd *cobra.Command, a []string) error {
			o.Format, o.Paths = a[0], a[1:]
			return runIngest(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.AllowDup, "allow-duplicate", false, "ingest a file even when the dataset holds its content (same sha256) already")
	f.Int64Var(&o.MaxRejects, "max-rejects", 1000, "abort, leaving the dataset unchanged, after this many rejected records (-1: no limit)")
	f.StringVar(&o.CPUUnit, "cpu-unit", "auto", "CSV utilisation unit: auto, fraction or percent; raw (series-csv: not utilisation, scaled by the file's maximum)")
	f.StringVar(&o.TZ, "tz", "UTC", "time zone of timestamps written without an offset (IANA name)")
	f.StringVar(&o.Tenant, "tenant", "", "tenant of series-csv files (default: the file name) and alibaba2018-machine (default: alibaba)")
	f.StringVar(&o.TenantKey, "tenant-key", "", "trace field that is the tenant: google2019-usage collection|machine|user, azure-cpu subscription|deployment|vm, alibaba2018-machine cluster|machine, alibaba2018-container-usage app|container, google2011-task-usage job|machine, prometheus(-json) namespace|workload (default: the first)")
	var traceStart int64
	o.TraceStart = *timeflag.NewInstant(&traceStart)
	f.Var(&o.TraceStart, "trace-start", "instant of offset 0 in traces with relative clocks (default: 1970-01-01T00:00:00Z; google2019-usage: 2019-05-01T00:00:00-07:00)")
	f.StringSliceVar(&o.VMTables, "vmtable", nil, "Azure vmtable file(s) to store and join azure-cpu readings with (tenant = subscription); repeatable")
	f.StringSliceVar(&o.CollEvents, "collection-events", nil, "Google collection_events file(s) to store and join google2019-usage with (--tenant-key user); repeatable")
	var promStart, promEnd int64
	o.Prom.Start, o.Prom.End = *timeflag.NewInstant(&promStart), *timeflag.NewInstant(&promEnd)
	f.StringVar(&o.Prom.URL, "url", "", "prometheus: the server's base URL (its /api/v1/query_range is read)")
	f.Var(&o.Prom.Start, "start", "prometheus: first instant of the range")
	f.Var(&o.Prom.End, "end", "prometheus: last instant of the range")
	f.Var(timeflag.NewDuration(&o.Prom.Step, time.Minute), "step", "prometheus: resolution of the CPU and memory series (at least the scrape interval)")
	f.StringArrayVar(&o.Prom.Queries, "query", nil, "prometheus: ROLE=PROMQL replaces a role's default query (roles: "+strings.Join(ingest.PrometheusRoles(), ", ")+"); repeatable")
	f.StringVar(&o.Prom.Save, "save", "", "prometheus: also write the responses to this file (format prometheus-json)")
	_ = cmd.RegisterFlagCompletionFunc("cpu-unit", cobra.FixedCompletions([]string{"auto", "fraction", "percent", "raw"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("tenant-key", cobra.FixedCompletions(ingest.TenantKeys(), cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runIngest(ctx context.Context, o *ingestOptions) error {
	opts := ingest.DefaultOptions()
	err := (ingest.Flags{CPUUnit: o.CPUUnit, TZ: o.TZ}).Apply(&opts)
	if err != nil {
		return usageError{err}
	}
	opts.MaxRejects, opts.SkipDuplicates = o.MaxRejects, !o.AllowDup
	opts.Tenant, opts.TenantKey, opts.VMTables, opts.CollectionEvents = o.Tenant, o.TenantKey, o.VMTables, o.CollEvents
	if o.TraceStart.Given {
		opts.TraceStart = time.UnixMilli(*o.TraceStart.Ms).UTC()
	}
	if o.Format == "prometheus" {
		if opts.Prometheus, err = o.Prom.options(); err != nil {
			return usageError{err}
		}
		if err := opts.Prometheus.Validate(); err != nil {
			return usageError{err}
		}
	}
	if err := opts.Validate(); err != nil {
		return usageError{err}
	}
	if o.Format != "auto" {
		if _, err := ingest.Lookup(o.Format); err != nil {
			return usageError{err}
		}
	}
	opts.Watch = o.g.watchInput
	if o.g.io.Term != nil && !o.g.Quiet {
		opts.Progress = func(fr ingest.FileResult) {
			fmt.Fprintf(o.g.io.Err, "  %s: %d accepted, %d rejected\n", fr.Path, fr.Accepted, fr.Rejected)
		}
	}
	var undetected []ingest.Undetected
	if o.Format == "auto" {
		if o.Paths, undetected, err = ingest.SurveyDirs(o.Paths); err != nil {
			return err
		}
		for _, u := range undetected {
			o.g.progressf("  left out %s: no known format\n", u.Path)
		}
		if len(o.Paths) == 0 {
			return ingest.NoneKnown(undetected)
		}
	}
	var res *ingest.Result
	var ds *dataset.Dataset
	err = tuneStage("ingest", func() (err error) {
		res, ds, err = ingest.Into(ctx, o.g.Dataset, o.Format, o.Paths, opts)
		return err
	})
	if err != nil {
		return err
	}
	doc := res.Document(ds, undetected)
	if err := printDoc(o.g, doc, doc.WriteCSV, doc.WriteText); err != nil {
		return err
	}
	if res.Rejected > 0 {
		if !o.g.Quiet {
			for _, s := range res.Samples {
				fmt.Fprintf(o.g.io.Err, "  rejected %v\n", s)
			}
			if int64(len(res.Samples)) < res.Rejected {
				fmt.Fprintf(o.g.io.Err, "  ... and %d more\n", res.Rejected-int64(len(res.Samples)))
			}
		}
		return rejectedError{res.Rejected}
	}
	return nil
}

func (p promFlags) options() (ingest.PrometheusOptions, error) {
	q, err := ingest.ParsePrometheusQueries(p.Queries)
	o := ingest.PrometheusOptions{URL: p.URL, Step: p.Step, Queries: q, Save: p.Save}
	if p.Start.Given {
		o.Start = time.UnixMilli(*p.Start.Ms).UTC()
	}
	if p.End.Given {
		o.End = time.UnixMilli(*p.End.Ms).UTC()
	}
	return o, err
}
