// Package ingest reads raw traces and logs into the dataset: the first stage
// of the pipeline. It depends only on dataset.
//
// Every format is a Reader in the style of bufio.Scanner (Scan, Record,
// Err) registered under a name (see Formats); "auto" picks a format per file
// from its name and first bytes. gzip and zstd are recognised by their magic
// bytes and read transparently; uncompressed files are memory-mapped.
//
// Nothing is lost: a record a format cannot read is a *ParseError with file,
// line, column and reason, kept in the rejects table, and counted in the
// manifest with the source's accepted records. Only I/O errors stop a
// stream. Options.MaxRejects bounds the rejects; past it Run returns
// ErrTooManyRejects and the caller rolls the transaction back, leaving the
// dataset as it was.
//
// Each format's specification is the comment at the top of its file,
// format_<name>.go (the name as "wlprof ingest --help" lists it, dashes as
// underscores), or format_<family>.go for a file that registers several.
// Code that several formats share is in a file named for what it is:
// numbers.go and csvline.go (field parsing), csvrow.go (the fixed-column
// CSV row), vms.go (the vms-table join), machine_events.go (machine
// histories), jobs.go (runs and skylines), alibaba.go, google.go,
// google_usage.go, google_sum.go, google_json.go, google_parquet.go,
// spark_*.go, prometheus_*.go (one source family each: the Prometheus
// client, response decoding, the joins into usage, and the Jobs).
//
// # Formats
//
//	csv                            format_csv.go
//	series-csv                     format_series_csv.go
//	google2019-usage               format_google2019_usage.go
//	google2019-collection-events   format_google2019_collection_events.go
//	google2019-machine-events      format_google2019_machine_events.go
//	google2019-instance-events     format_google_constraints.go
//	google2019-machine-attributes  format_google_constraints.go
//	google2011-task-usage          format_google2011_task_usage.go
//	google2011-machine-events      format_google2011_machine_events.go
//	google2011-task-events         format_google_constraints.go
//	google2011-task-constraints    format_google_constraints.go
//	google2011-machine-attributes  format_google_constraints.go
//	azure-cpu                      format_azure.go
//	azure-vmtable                  format_azure.go
//	alibaba2018-machine            format_alibaba2018_machine.go
//	alibaba2018-machine-meta       format_alibaba2018_machine_meta.go
//	alibaba2018-container-meta     format_alibaba2018_container.go
//	alibaba2018-container-usage    format_alibaba2018_container.go
//	alibaba2018-batch-task         format_alibaba2018_batch_task.go
//	alibaba2018-batch-instance     format_alibaba2018_batch_instance.go
//	yarn-rm                        format_yarn_rm.go
//	spark-eventlog                 format_spark_eventlog.go (task attempts: spark_profruns.go)
//	skyline-csv                    format_skyline_csv.go
//	re-native                      format_re_native.go
//	profruns-csv                   format_profruns_csv.go
//	jhist                          format_jhist.go (jhist_v1.go, avro.go)
//	hdfs-audit                     format_hdfs_audit.go
//	openlineage                    format_openlineage.go
//	prometheus                     format_prometheus.go (prometheus_*.go)
//	prometheus-json                format_prometheus.go
//
// # Utilisation traces
//
// Every utilisation trace format (series-csv, google2019-usage,
// google2011-task-usage, azure-cpu, alibaba2018-machine,
// alibaba2018-container-usage) writes the usage table (tenant, server, time,
// cpu and memory as fractions of a server in [0,1], memory null when the
// trace has none). Options.Tenant (--tenant), Options.TenantKey
// (--tenant-key) and Options.TraceStart (--trace-start) apply where the
// format says. Traces with a relative clock (seconds or microseconds from
// the trace start) are placed at Options.TraceStart; the default for
// traces whose real start date is not published (Azure, Alibaba, offset
// series) is the Unix epoch, so offset s is 1970-01-01T00:00:00Z + s.
// Periods and patterns do not depend on it; calendar alignment does.
//
// Rejects in the trace and machine-history formats: wrong column counts,
// unparsable times or numbers, NaN, negative or above-100% values, unknown
// VMs in a join, duplicates as each format says; each with file, line (row
// number for Parquet), column where known, and the reason. Every parser
// has a fuzz target and a benchmark (traces_bench_test.go).
//
// # Job runs and skylines (formats "yarn-rm", "spark-eventlog", "skyline-csv")
//
// These formats write two tables: runs (one row per job run) and skylines
// (the resources a run held over time). A skyline is the change points of a
// step function: a sample's containers, memory_bytes and vcores are held
// from its offset_s (seconds from the run's start) until the next sample of
// the same run; before the first sample nothing is held. The builders here
// start every skyline with a sample at offset 0 and close it with a sample
// of 0 when the run ends. A run with no resources at all is the single
// sample (0, 0). Accepted counts rows written: runs plus samples.
// A (job, run) read from two inputs of one ingest is written twice and the
// second input's notes say so; ingesting the same input in two ingests
// duplicates it silently: readers of runs and skylines should keep one copy
// per (job, run).
//
// # Kubernetes (formats "prometheus" and "prometheus-json")
//
// A Kubernetes cluster's history in Prometheus (cAdvisor, kube-state-metrics)
// fills the same tables: a tenant is a namespace or, with --tenant-key
// workload, its controller ("namespace/Deployment/name"; StatefulSet,
// DaemonSet, CronJob likewise); a server is a node; utilisation is the
// cores (working-set bytes) a tenant's containers used on a node over the
// node's allocatable cores (bytes), kube_node_status_allocatable. A
// recurring job is a CronJob ("namespace/cronjob"), its runs are its Jobs,
// a run's skyline is its pods over time (containers = pods; memory and
// cores per pod its requests, else what it used), and a job's task
// attempts are its pods (instances table). prometheus reads the server's
// /api/v1/query_range (ranges split below 11,000 points per series,
// bounded retries); prometheus-json the responses saved with --save. The
// queries, the placeholders that tie their windows to the step, and every
// decision are at the head of format_prometheus.go. A reader tells
// Kubernetes data by the manifest: a source of format "prometheus" or
// "prometheus-json".
//
// Job identity (runs.job and skylines.job). yarn-rm uses the recurring id
// Hadoop's ResourceEstimator derives from the application name
// ("pipeline-run": name=(\w+)-(\w+), the first group) when the name has one;
// otherwise, and for the other formats, the normalised name: UUIDs are
// removed anywhere, then every token (a run of letters and digits) that is
// all digits, a compact date or timestamp (20240131, 20240131T1200Z) or a
// hex id of 12 or more characters with a digit is dropped with the separator
// before it; separators left at the ends go too, and a name with nothing
// left stays as it was. "daily_etl_2024-01-31" → "daily_etl", "load
// 7f3e2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6 done" → "load done"; "tpch_q12" stays
// (digits inside a token are identity).
package ingest
